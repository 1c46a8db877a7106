//! The scenes and the measuring harness of `versus`, shared with `tests/versus.rs`: one headless
//! server app and its client apps replicate a scene either through bevy_replicon's own
//! replication ([`Mode::Replicon`]) or through netschema-bevy ([`Mode::Netschema`]), over the
//! same seeded lossy, delayed link ([`LossyLink`]), and the harness measures bytes, time per
//! tick, heap and staleness, and checks the clients against the server.

use std::alloc::System;
use std::f32::consts::TAU;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use netschema::owned::{ClientId, ServerConfig};
use netschema::{ClassOf, Protocol, Snapshot};
use netschema_bevy::loopback::LossyLink;
use netschema_bevy::{NetschemaPlugins, NsClient, NsPeer, NsReplicate, NsServer, ns_id};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

/// Every allocation of the process goes through this counter, from every thread: the heap a
/// Bevy app holds is what dropping it gives back (see [`Outcome::server_heap`]).
#[global_allocator]
static HEAP: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated and not yet freed, by the whole process.
fn live_heap() -> usize {
    let stats = HEAP.stats();
    stats.bytes_allocated.saturating_sub(stats.bytes_deallocated)
}

/// Server ticks (and app updates) per simulated second.
pub(crate) const HZ: f64 = 60.0;

/// Server ticks of history kept per entity to tell how old a client's value is: older values
/// (or values the server never had) count as unmatched.
const HISTORY: usize = 128;

/// A ship of the `ships` scene, as `examples/ships.rs` declares it.
#[derive(Component, Snapshot, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ship {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)), predict(hold, linear, quadratic))]
    pos: [f32; 2],
    #[netschema(angle(bits = 10))]
    heading: f32,
    shields: bool,
}

/// A particle of the `crowd` scene.
#[derive(Component, Snapshot, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Particle {
    #[netschema(vec3(fixed(-256.0, 256.0, res = 1 / 64)))]
    pos: [f32; 3],
}

/// A prop of the `still` scene: a crate, a barrel, a door; now and then one is hit or pushed.
#[derive(Component, Snapshot, Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub(crate) struct Prop {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 16)))]
    pos: [f32; 2],
    #[netschema(int(0, 15))]
    kind: u8,
    #[netschema(int(0, 100))]
    health: u8,
}

/// The schema of netschema's mode: every scene's class.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "versus")]
pub(crate) enum Versus {
    Ship(Ship),
    Particle(Particle),
    Prop(Prop),
}

/// Who replicates the scene's component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// bevy_replicon's own replication: `app.replicate::<C>()`, entities marked `Replicated`,
    /// postcard serialisation, mutations sent as replicon sends them.
    Replicon,
    /// netschema-bevy: the plugin with the class, entities marked [`NsReplicate`], nothing
    /// replicated by replicon itself.
    Netschema,
}

/// A scene: what the server simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scene {
    /// `examples/ships.rs`'s ships flying circles: every ship moves and turns every tick.
    Ships,
    /// Particles drifting in a box, their velocities jittering, bouncing off the walls.
    Crowd,
    /// Props on a grid; each tick each one is hit or pushed with a chance of 1 in 200.
    Still,
}

/// One measured run of both modes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    pub(crate) scene: Scene,
    /// Entities in the scene.
    pub(crate) entities: usize,
    /// Clients connected (0 measures the server alone).
    pub(crate) clients: usize,
    /// Server ticks measured.
    pub(crate) ticks: u32,
    /// Ticks at the start whose staleness is not sampled, while the clients receive the scene.
    pub(crate) warmup: u32,
    /// Fraction of unreliable messages lost, each way.
    pub(crate) loss: f64,
    /// Ticks each message takes, each way.
    pub(crate) latency: u32,
}

/// How old the values clients show are, in server ticks, sampled per client, entity and tick
/// after the warm-up (for the entities the client shows): a value's age is how many ticks back
/// the server last held it.
#[derive(Clone, Debug)]
pub(crate) struct Staleness {
    /// Samples of each age below [`HISTORY`].
    ages: Vec<u64>,
    /// Samples whose value the server held at none of the last [`HISTORY`] ticks.
    pub(crate) unmatched: u64,
}

impl Staleness {
    fn new() -> Self {
        Staleness { ages: vec![0; HISTORY], unmatched: 0 }
    }

    /// Samples with an age.
    fn samples(&self) -> u64 {
        self.ages.iter().sum()
    }

    /// The mean age.
    pub(crate) fn mean(&self) -> f64 {
        let sum: u64 = self.ages.iter().enumerate().map(|(age, &n)| age as u64 * n).sum();
        sum as f64 / self.samples().max(1) as f64
    }

    /// The smallest age at least `fraction` of the samples do not exceed.
    pub(crate) fn quantile(&self, fraction: f64) -> usize {
        let wanted = (fraction * self.samples() as f64).ceil() as u64;
        let mut seen = 0;
        for (age, &n) in self.ages.iter().enumerate() {
            seen += n;
            if seen >= wanted.max(1) {
                return age;
            }
        }
        0
    }

    /// The largest age sampled.
    pub(crate) fn max(&self) -> usize {
        self.ages.iter().rposition(|&n| n > 0).unwrap_or(0)
    }
}

/// What a run measured.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    /// Bytes the server sent one client per simulated second (ticks / [`HZ`]), every channel,
    /// lost or not: the mean over clients.
    pub(crate) bytes_per_second: f64,
    /// The median wall time of `server.update()`.
    pub(crate) server_tick: Duration,
    /// The median wall time of a client's `client.update()`, over clients and ticks.
    pub(crate) client_tick: Duration,
    /// The heap the server app held at the end: what dropping it gave back.
    pub(crate) server_heap: usize,
    /// The heap a client app held at the end, the mean over clients (0 without clients).
    pub(crate) client_heap: usize,
    /// How old the clients' values were.
    pub(crate) staleness: Staleness,
    /// The tick (counted from 1, the scene's first) after which every client had shown every
    /// entity at least once; `None` if one had not by the end.
    pub(crate) complete: Option<u32>,
    /// Times, from the first tick on, that an entity a client showed was gone from it at the
    /// next tick, summed over clients (every entity stays in the scene, so each is a despawn
    /// the client undoes later).
    pub(crate) vanished: u64,
    /// Entities whose value differed between a client and the server (or that the client did
    /// not show), summed over clients, once the scene stood still and the link had emptied.
    pub(crate) mismatched: usize,
}

/// The component a scene replicates.
trait Body:
    Component<Mutability = bevy::ecs::component::Mutable>
    + ClassOf<Versus>
    + Serialize
    + DeserializeOwned
    + Copy
    + PartialEq
{
}

impl<C> Body for C where
    C: Component<Mutability = bevy::ecs::component::Mutable>
        + ClassOf<Versus>
        + Serialize
        + DeserializeOwned
        + Copy
        + PartialEq
{
}

/// Runs `config` in both modes and measures them: replicon's outcome, then netschema's.
pub(crate) fn run(config: &Config) -> [Outcome; 2] {
    match config.scene {
        Scene::Ships => run_scene::<Ship>(config),
        Scene::Crowd => run_scene::<Particle>(config),
        Scene::Still => run_scene::<Prop>(config),
    }
}

/// Server and client alike: replicon ticking every update, 1/60 s of virtual time per update,
/// and `mode`'s replication of every scene's component.
fn app(mode: Mode, entities: usize) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / HZ)));
    match mode {
        Mode::Replicon => {
            app.replicate::<Ship>().replicate::<Particle>().replicate::<Prop>();
        }
        Mode::Netschema => {
            app.add_plugins(
                NetschemaPlugins::<Versus>::new(ServerConfig::new(entities, entities))
                    .class::<Ship>()
                    .class::<Particle>()
                    .class::<Prop>(),
            );
        }
    }
    app.finish();
    app
}

/// Whether the scene moves.
#[derive(Resource)]
struct Moving(bool);

fn moving(moving: Res<Moving>) -> bool {
    moving.0
}

/// The scene's random numbers (a 64-bit LCG).
#[derive(Resource)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn real(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() % 1_000_000) as f32 / 1e6
    }
}

/// A particle's velocity, in units per tick: the server's alone, never replicated.
#[derive(Component)]
struct Velocity([f32; 3]);

/// Builds `scene` on the server, each of its `count` entities marked with `marker`, and the
/// system moving it: the one function both modes build their scene with. Returns the entities,
/// in spawn order.
fn build(scene: Scene, count: usize, server: &mut App, marker: impl Bundle + Copy) -> Vec<Entity> {
    let mut rng = Rng(7);
    let world = server.world_mut();
    let side = (count as f32).sqrt().ceil() as usize;
    let entities = (0..count)
        .map(|i| match scene {
            Scene::Ships => {
                let a = i as f32 * 0.37;
                let pos = [a.cos() * i as f32, a.sin() * i as f32];
                let ship = Ship { pos, heading: a.rem_euclid(TAU), shields: i % 3 == 0 };
                world.spawn((ship, marker)).id()
            }
            Scene::Crowd => {
                let pos = [0; 3].map(|_| rng.real(-200.0, 200.0));
                let velocity = [0; 3].map(|_| rng.real(-1.0, 1.0));
                world.spawn((Particle { pos }, Velocity(velocity), marker)).id()
            }
            Scene::Still => {
                let cell = 960.0 / side as f32;
                let at = |n: usize| (n as f32 + 0.5) * cell - 480.0;
                let pos = [at(i % side) + rng.real(-2.0, 2.0), at(i / side) + rng.real(-2.0, 2.0)];
                let prop = Prop { pos, kind: (rng.next() % 16) as u8, health: 100 };
                world.spawn((prop, marker)).id()
            }
        })
        .collect();
    server.insert_resource(Moving(true)).insert_resource(rng);
    match scene {
        Scene::Ships => server.add_systems(Update, fly.run_if(moving)),
        Scene::Crowd => server.add_systems(Update, drift.run_if(moving)),
        Scene::Still => server.add_systems(Update, disturb.run_if(moving)),
    };
    entities
}

/// Each ship turns a little and moves forward (`examples/ships.rs`'s `fly`).
fn fly(mut ships: Query<&mut Ship>) {
    for mut ship in &mut ships {
        ship.heading = (ship.heading + 0.02).rem_euclid(TAU);
        let (sin, cos) = ship.heading.sin_cos();
        ship.pos =
            [(ship.pos[0] + cos).clamp(-500.0, 500.0), (ship.pos[1] + sin).clamp(-500.0, 500.0)];
    }
}

/// Each particle's velocity jitters and it moves, bouncing off the box's walls.
fn drift(mut rng: ResMut<Rng>, mut particles: Query<(&mut Particle, &mut Velocity)>) {
    for (mut particle, mut velocity) in &mut particles {
        for axis in 0..3 {
            velocity.0[axis] += rng.real(-0.02, 0.02);
            let x = particle.pos[axis] + velocity.0[axis];
            if x.abs() > 250.0 {
                velocity.0[axis] = -velocity.0[axis];
            }
            particle.pos[axis] = x.clamp(-250.0, 250.0);
        }
    }
}

/// Now and then a prop is hit (its health drops, and comes back full once gone) or pushed.
fn disturb(mut rng: ResMut<Rng>, mut props: Query<&mut Prop>) {
    for mut prop in &mut props {
        if !rng.next().is_multiple_of(200) {
            continue;
        }
        if rng.next().is_multiple_of(2) {
            let damage = 1 + (rng.next() % 10) as u8;
            prop.health = match prop.health.saturating_sub(damage) {
                0 => 100,
                health => health,
            };
        } else {
            let push = [rng.real(-1.0, 1.0), rng.real(-1.0, 1.0)];
            prop.pos = [0, 1].map(|axis| (prop.pos[axis] + push[axis]).clamp(-500.0, 500.0));
        }
    }
}

/// What a client's value is compared by: the value itself for replicon, which sends the `f32`s
/// as they are; its quantised fields for netschema, which sends each at its declared
/// resolution.
#[derive(Clone, Copy, PartialEq)]
enum Key<C> {
    Exact(C),
    Quantised([i32; 8]),
}

impl<C: Body> Key<C> {
    fn new(mode: Mode, value: &C) -> Self {
        match mode {
            Mode::Replicon => Key::Exact(*value),
            Mode::Netschema => {
                let mut raw = [0; 8];
                value.quantise(&mut raw);
                Key::Quantised(raw)
            }
        }
    }
}

/// The keys of the server's values of the scene's entities at its last [`HISTORY`] ticks.
struct History<C> {
    mode: Mode,
    keys: Vec<Key<C>>,
    entities: usize,
    /// Ticks recorded.
    ticks: usize,
}

impl<C: Body> History<C> {
    fn new(mode: Mode, entities: usize) -> Self {
        History { mode, keys: Vec::with_capacity(entities * HISTORY), entities, ticks: 0 }
    }

    /// Records the server's values at the tick it just ran.
    fn record(&mut self, server: &App, entities: &[Entity]) {
        let keys = entities
            .iter()
            .map(|&e| Key::new(self.mode, server.world().get::<C>(e).expect("a scene entity")));
        if self.keys.len() < self.entities * HISTORY {
            self.keys.extend(keys);
        } else {
            let at = self.ticks % HISTORY * self.entities;
            for (slot, key) in self.keys[at..at + self.entities].iter_mut().zip(keys) {
                *slot = key;
            }
        }
        self.ticks += 1;
    }

    /// How many ticks back the server last held `value` for entity `i`, if within the history.
    fn age(&self, i: usize, value: &C) -> Option<usize> {
        let key = Key::new(self.mode, value);
        (0..self.ticks.min(HISTORY)).find(|&age| {
            let tick = (self.ticks - 1 - age) % HISTORY;
            self.keys[tick * self.entities + i] == key
        })
    }
}

/// How a client's entities are found from the server's.
enum View {
    /// Through replicon's entity map.
    Replicon,
    /// Through the handle netschema's server gave each entity for this client.
    Netschema { peer: ClientId, handles: Vec<Option<u32>>, unknown: usize },
}

impl View {
    fn new(mode: Mode, server: &App, client: &App, entities: usize) -> Self {
        match mode {
            Mode::Replicon => View::Replicon,
            Mode::Netschema => {
                let peer = **client.world().resource::<TestClientEntity>();
                let peer = server.world().get::<NsPeer>(peer).expect("a connected client").client();
                View::Netschema { peer, handles: vec![None; entities], unknown: entities }
            }
        }
    }

    /// Learns the handles the server gave since the last call (call after `server.update()`).
    fn learn(&mut self, server: &mut App, entities: &[Entity]) {
        let View::Netschema { peer, handles, unknown } = self else { return };
        if *unknown == 0 {
            return;
        }
        let mut ns = server.world_mut().resource_mut::<NsServer<Versus>>();
        let mut raw = [0; 8];
        for (handle, &entity) in handles.iter_mut().zip(entities).filter(|(h, _)| h.is_none()) {
            if let Ok(Some((h, _))) = ns.server_mut().client_view(*peer, ns_id(entity), &mut raw) {
                *handle = Some(h);
                *unknown -= 1;
            }
        }
    }

    /// Calls `f` with each scene entity's index and the value `client` shows for it.
    fn shown<C: Body>(
        &self,
        client: &App,
        entities: &[Entity],
        mut f: impl FnMut(usize, Option<C>),
    ) {
        let world = client.world();
        let value = |entity: Option<Entity>| entity.and_then(|e| world.get::<C>(e).copied());
        match self {
            View::Replicon => {
                let map = world.resource::<ServerEntityMap>().to_client();
                for (i, entity) in entities.iter().enumerate() {
                    f(i, value(map.get(entity).copied()));
                }
            }
            View::Netschema { handles, .. } => {
                let ns = world.resource::<NsClient<Versus>>();
                for (i, handle) in handles.iter().enumerate() {
                    f(i, value(handle.and_then(|h| ns.entity(h))));
                }
            }
        }
    }
}

/// Runs `config` in both modes, tick by tick in lockstep (which mode goes first alternates), so
/// that both meet the same load on the machine, then stops the scene, lets the links empty and
/// compares every client with the server: replicon's outcome, then netschema's.
fn run_scene<C: Body>(config: &Config) -> [Outcome; 2] {
    let mut sides = [Mode::Replicon, Mode::Netschema].map(|mode| Side::<C>::new(config, mode));
    for tick in 0..config.ticks {
        let order = if tick % 2 == 0 { [0, 1] } else { [1, 0] };
        for side in order {
            sides[side].tick(config, tick);
        }
    }
    sides.map(|side| side.finish(config))
}

/// One mode's apps, links and measures.
struct Side<C> {
    mode: Mode,
    server: App,
    clients: Vec<App>,
    links: Vec<LossyLink>,
    views: Vec<View>,
    /// The scene's entities on the server, in spawn order.
    entities: Vec<Entity>,
    history: History<C>,
    staleness: Staleness,
    /// Per client: which entities it showed at the last tick, and the tick it first showed all.
    shown_last: Vec<Vec<bool>>,
    complete: Vec<Option<u32>>,
    vanished: u64,
    server_times: Vec<Duration>,
    client_times: Vec<Duration>,
}

impl<C: Body> Side<C> {
    /// Builds the apps, connects the clients, then builds the scene: after the connections, so
    /// that all of it crosses the links.
    fn new(config: &Config, mode: Mode) -> Self {
        let mut server = app(mode, config.entities);
        server.world_mut().resource_mut::<NextState<ServerState>>().set(ServerState::Running);
        server.update();
        let mut clients: Vec<App> =
            (0..config.clients).map(|_| app(mode, config.entities)).collect();
        for client in &mut clients {
            server.connect_client(client);
        }
        let entities = match mode {
            Mode::Replicon => build(config.scene, config.entities, &mut server, Replicated),
            Mode::Netschema => build(config.scene, config.entities, &mut server, NsReplicate),
        };
        let links = (0..config.clients)
            .map(|i| LossyLink::new(0x5eed + i as u64, config.loss).with_latency(config.latency))
            .collect();
        let views = clients.iter().map(|c| View::new(mode, &server, c, entities.len())).collect();
        let ticks = config.ticks as usize;
        Side {
            mode,
            history: History::new(mode, entities.len()),
            staleness: Staleness::new(),
            shown_last: vec![vec![false; entities.len()]; config.clients],
            complete: vec![None; config.clients],
            vanished: 0,
            server_times: Vec::with_capacity(ticks),
            client_times: Vec::with_capacity(ticks * config.clients),
            server,
            clients,
            links,
            views,
            entities,
        }
    }

    /// One measured tick: the server's, then each client's after its link's exchange.
    fn tick(&mut self, config: &Config, tick: u32) {
        let start = Instant::now();
        self.server.update();
        self.server_times.push(start.elapsed());
        self.history.record(&self.server, &self.entities);
        let clients = self.clients.iter_mut().zip(&mut self.links).zip(&mut self.views);
        for (c, ((client, link), view)) in clients.enumerate() {
            view.learn(&mut self.server, &self.entities);
            link.exchange(&mut self.server, client);
            let start = Instant::now();
            client.update();
            self.client_times.push(start.elapsed());
            let shown_last = &mut self.shown_last[c];
            let mut shown = 0;
            view.shown::<C>(client, &self.entities, |i, value| match value {
                None => self.vanished += u64::from(std::mem::take(&mut shown_last[i])),
                Some(value) => {
                    shown_last[i] = true;
                    shown += 1;
                    if tick >= config.warmup {
                        match self.history.age(i, &value) {
                            Some(age) => self.staleness.ages[age] += 1,
                            None => self.staleness.unmatched += 1,
                        }
                    }
                }
            });
            if shown == self.entities.len() {
                self.complete[c].get_or_insert(tick + 1);
            }
        }
    }

    /// Stops the scene, lets the links empty (what was lost is sent again), compares the
    /// clients with the server, then measures the apps' heaps by dropping them.
    fn finish(mut self, config: &Config) -> Outcome {
        let sent: u64 = self.links.iter().map(|link| link.bytes().0).sum();
        let seconds = f64::from(config.ticks) / HZ;
        let bytes_per_second = sent as f64 / seconds / config.clients.max(1) as f64;

        let server = &mut self.server;
        server.insert_resource(Moving(false));
        for _ in 0..2 * config.latency + 30 {
            server.update();
            let clients = self.clients.iter_mut().zip(&mut self.links).zip(&mut self.views);
            for ((client, link), view) in clients {
                view.learn(server, &self.entities);
                link.exchange(server, client);
                client.update();
            }
        }
        let mut mismatched = 0;
        for (client, view) in self.clients.iter().zip(&self.views) {
            view.shown::<C>(client, &self.entities, |i, value| {
                let truth = server.world().get::<C>(self.entities[i]).expect("a scene entity");
                let key = Key::new(self.mode, truth);
                if value.is_none_or(|value| Key::new(self.mode, &value) != key) {
                    mismatched += 1;
                }
            });
        }

        // Each app's heap is what dropping it gives back; the links' queues go first.
        drop(self.links);
        let mut client_heap = 0;
        for client in self.clients {
            let before = live_heap();
            drop(client);
            client_heap += before.saturating_sub(live_heap());
        }
        let before = live_heap();
        drop(self.server);
        let server_heap = before.saturating_sub(live_heap());

        Outcome {
            bytes_per_second,
            server_tick: median(&mut self.server_times),
            client_tick: median(&mut self.client_times),
            server_heap,
            client_heap: client_heap / config.clients.max(1),
            staleness: self.staleness,
            complete: self.complete.iter().try_fold(0, |last, &tick| Some(last.max(tick?))),
            vanished: self.vanished,
            mismatched,
        }
    }
}

/// The median of `times` (zero if empty).
fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times.get(times.len() / 2).copied().unwrap_or_default()
}
