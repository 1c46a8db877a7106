//! Timelines through the engine, whose keyframes travel as keyframe records, once per edit:
//! under loss, reordering, duplication and a byte budget, the keyframe lists a client reads
//! after every accepted packet are lists the server held at a frame since those it read before,
//! no later than the frame decoded; keyframes planned far enough ahead arrive before they are
//! needed; a record never reaches a later entity of its handle; and a client that stops
//! acknowledging fills the record queue without losing an edit.

mod support;

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, KeySlot, Schema};
use netschema_runtime::timeline::{Interp, Keyframe, Kind, Spec, Time, Timeline};
use netschema_runtime::{Ack, Client, Error, Peer, World};
use support::{Link, Rng, ack_bytes, session};

const UNITS: usize = 40;
const COORD: Field = Field::numeric("x", 0, 4095, false, &[Predictor::Hold]);
const PROGRESS: Field = Field::numeric("p", 0, 100, false, &[Predictor::Hold]);
const POS: Spec = Spec {
    fields: &[COORD, COORD],
    kind: Kind::Scalars,
    interp: Interp::Linear,
    ahead: 4,
    history: 2,
    keep: 60,
};
const BUILD: Spec = Spec {
    fields: &[PROGRESS],
    kind: Kind::Scalars,
    interp: Interp::Linear,
    ahead: 2,
    history: 1,
    keep: 0,
};

/// The scalar fields of a timeline's slots, as a schema compiler lays them out (`keyed`: with
/// their [`KeySlot`]s, as it does, so that they travel as keyframe records; without, they are
/// plain fields of the state stream).
fn slot_fields(name: &str, spec: &Spec, keyed: bool) -> Vec<Field> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    (0..spec.capacity())
        .flat_map(|s| {
            let live = Field::categorical(leak(format!("{name}[{s}].live")), 3);
            let time = Field::numeric(
                leak(format!("{name}[{s}].t")),
                0,
                i32::MAX,
                false,
                &[Predictor::Zero, Predictor::Hold],
            );
            let (stride, capacity) = (2 + spec.fields.len() as u8, spec.capacity() as u8);
            let values = spec
                .fields
                .iter()
                .map(move |f| Field { name: leak(format!("{name}[{s}].{}", f.name)), ..*f });
            let slotted = [time].into_iter().chain(values).enumerate().map(move |(i, field)| {
                let slot = KeySlot { after_flag: 1 + i as u8, stride, index: s as u8, capacity };
                if keyed { field.in_slot(slot) } else { field }
            });
            [live].into_iter().chain(slotted)
        })
        .collect()
}

fn schema(keyed: bool) -> &'static Schema {
    let mut fields = slot_fields("pos", &POS, keyed);
    fields.extend(slot_fields("build", &BUILD, keyed));
    let fields: &'static [Field] = Box::leak(fields.into_boxed_slice());
    let classes: &'static [Class] = Box::leak(Box::new([Class::new("unit", fields)]));
    Box::leak(Box::new(Schema::new("timelines", classes)))
}

struct Unit {
    pos: Timeline<2, 6>,
    build: Timeline<1, 3>,
}

impl Unit {
    /// Plans ahead like an RTS unit: a new waypoint whenever fewer than two are ahead, now and
    /// then a changed plan (a waypoint dropped or retimed); a build that restarts when done.
    fn plan(&mut self, rng: &mut Rng, now: u32) {
        self.pos.advance(now);
        self.build.advance(now);
        let ahead: Vec<u32> = self.pos.keys().iter().map(|k| k.time).filter(|&t| t > now).collect();
        if ahead.len() < 2 {
            // The next waypoint is near the last one.
            let last = self.pos.keys().last().map_or([2048, 2048], |k| k.value);
            let near = |v: i32, rng: &mut Rng| (v + rng.below(401) as i32 - 200).clamp(0, 4095);
            let at = [near(last[0], rng), near(last[1], rng)];
            let time = ahead.last().copied().unwrap_or(now);
            self.pos.add(time + 5 + rng.below(30) as u32, at).unwrap();
        } else if rng.chance(0.02) {
            let victim = ahead[rng.below(ahead.len() as u64) as usize];
            match rng.below(2) {
                0 => drop(self.pos.remove(victim).unwrap()),
                _ => match self.pos.move_key(victim, victim + 1 + rng.below(8) as u32) {
                    Ok(()) | Err(Error::KeyframeExists { .. }) => {}
                    Err(e) => panic!("move: {e:?}"),
                },
            }
        }
        if self.build.keys().iter().all(|k| k.time <= now) {
            self.build.add(now + 1, [0]).unwrap();
            self.build.add(now + 20 + rng.below(100) as u32, [100]).unwrap();
        }
    }

    fn row(&self) -> Vec<i32> {
        let mut row = vec![0; self.pos.row_len() + self.build.row_len()];
        let (pos, build) = row.split_at_mut(self.pos.row_len());
        self.pos.write_row(pos).unwrap();
        self.build.write_row(build).unwrap();
        row
    }
}

/// The keyframe lists a row holds.
fn lists(row: &[i32]) -> Lists {
    let mut pos = Timeline::<2, 6>::new(POS).unwrap();
    let mut build = Timeline::<1, 3>::new(BUILD).unwrap();
    pos.read_row(row).unwrap();
    build.read_row(&row[pos.row_len()..]).unwrap();
    (pos.keys().to_vec(), build.keys().to_vec())
}

type Lists = (Vec<Keyframe<2>>, Vec<Keyframe<1>>);

/// Whether a client holding `client` holds the server's `server` of frame `frame`: the same
/// keyframes, but that it may still hold keyframes of `frame` or before the server's timeline
/// forgot (they go with the entity's next edit).
fn holds(client: &Lists, server: &Lists, frame: u32) -> bool {
    fn same<const W: usize>(c: &[Keyframe<W>], s: &[Keyframe<W>], frame: u32) -> bool {
        let first = s.first().map_or(u32::MAX, |k| k.time);
        let kept = c.iter().filter(|k| k.time >= first || k.time > frame);
        kept.copied().eq(s.iter().copied())
    }
    same(&client.0, &server.0, frame) && same(&client.1, &server.1, frame)
}

/// A session of [`UNITS`] units over lossy links, checking what the client holds after every
/// packet it accepts.
struct Run {
    world: World<'static>,
    peer: Peer<'static>,
    client: Client<'static>,
    units: Vec<Unit>,
    rng: Rng,
    down: Link,
    up: Link,
    buf: Vec<u8>,
    /// Per unit, the lists it held at each frame it changed, oldest first: the first is the
    /// one the client last held.
    history: Vec<Vec<(u32, Lists)>>,
    /// Per unit, whether the client was found to hold its lists.
    found: Vec<bool>,
    bytes: usize,
    accepted: usize,
}

impl Run {
    fn new(schema: &'static Schema, seed: u64, loss: f64, budget: usize) -> Run {
        let (world, peer, client) = session(schema, UNITS, UNITS);
        let unit =
            || Unit { pos: Timeline::new(POS).unwrap(), build: Timeline::new(BUILD).unwrap() };
        let mut down = Link::new((1, 6), loss);
        down.duplicate = 0.1;
        Run {
            world,
            peer,
            client,
            units: (0..UNITS).map(|_| unit()).collect(),
            rng: Rng(seed),
            down,
            up: Link::new((1, 6), loss),
            buf: vec![0; budget],
            history: vec![Vec::new(); UNITS],
            found: vec![false; UNITS],
            bytes: 0,
            accepted: 0,
        }
    }

    /// One frame: the units plan, the world and the packet follow; what arrives is decoded
    /// and checked.
    /// Steps through `frames` without edits, then asserts that the client holds every unit's
    /// current lists (`what` names the case).
    fn settle(&mut self, frames: core::ops::Range<u32>, what: &str) {
        let end = frames.end;
        for now in frames {
            self.step(now, |_, _, _| {});
        }
        for (id, unit) in self.units.iter().enumerate() {
            let h = self.peer.handle_of(id).unwrap();
            let got = lists(self.client.get(h).unwrap().1);
            assert!(holds(&got, &lists(&unit.row()), end), "{what}: unit {id}: {got:?}");
        }
    }

    fn step(&mut self, now: u32, plan: impl Fn(&mut Unit, &mut Rng, u32)) {
        let frame = self.world.begin_frame();
        for (id, unit) in self.units.iter_mut().enumerate() {
            plan(unit, &mut self.rng, frame);
            self.world.set(id, 0, &unit.row()).unwrap();
            self.peer.set_visible(id, true).unwrap();
            let lists = lists(&unit.row());
            if self.history[id].last().is_none_or(|(_, l)| *l != lists) {
                self.history[id].push((frame, lists));
            }
        }
        let len = self.peer.encode(&self.world, &mut self.buf).unwrap();
        self.bytes += len;
        self.down.send(&mut self.rng, now, &self.buf[..len]);
        for packet in self.down.receive(now) {
            let Ok(f) = self.client.decode(&packet) else { continue };
            self.accepted += 1;
            self.check(f);
            if let Some(ack) = self.client.ack() {
                self.up.send(&mut self.rng, now, &ack_bytes(ack));
            }
        }
        for ack in self.up.receive(now) {
            self.peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }

    /// What the client holds after decoding frame `f`: per unit, lists the server held at a
    /// frame since those it held before, no later than `f`.
    fn check(&mut self, f: u32) {
        for (id, history) in self.history.iter_mut().enumerate() {
            let h = self.peer.handle_of(id).unwrap();
            let Some((_, row)) = self.client.get(h) else { continue };
            let got = lists(row);
            let found = history.iter().position(|(at, l)| *at <= f && holds(&got, l, *at));
            match found {
                Some(i) => {
                    history.drain(..i);
                    self.found[id] = true;
                }
                // Before its first keyframe record arrives, a unit has none.
                None => assert!(
                    !self.found[id] && got == (Vec::new(), Vec::new()),
                    "frame {f}: unit {id} holds {got:?}, none of the lists since {:?}",
                    history.first()
                ),
            }
        }
    }
}

#[test]
fn lists_follow_the_server_under_loss_reordering_and_duplication() {
    for (seed, loss) in [(1, 0.0), (2, 0.2), (3, 0.5)] {
        let mut run = Run::new(schema(true), seed, loss, 64 * 1024);
        for now in 0..600 {
            run.step(now, Unit::plan);
        }
        assert!(run.accepted > 150, "loss {loss}: {} packets accepted", run.accepted);
        // Once the link is clean, the client catches up with the server's current lists.
        run.down.loss = 0.0;
        run.up.loss = 0.0;
        run.settle(600..640, &format!("loss {loss}"));
    }
}

#[test]
fn lists_follow_the_server_under_a_byte_budget() {
    for (seed, loss) in [(4, 0.0), (5, 0.3)] {
        // Records take at most half of each 200-byte packet: lists wait, and stay whole.
        let mut run = Run::new(schema(true), seed, loss, 200);
        for now in 0..600 {
            run.step(now, Unit::plan);
        }
        assert!(run.accepted > 150, "loss {loss}: {} packets accepted", run.accepted);
        assert!(run.found.iter().all(|&f| f), "loss {loss}: every unit's lists arrived");
    }
}

/// Every keyframe is planned at least `AHEAD` frames before its time, and never edited after:
/// under 20 % loss each way, with reordering and duplication, a client's lookup at the frame a
/// packet arrives is the server's at that frame, once the client holds the units.
#[test]
fn keyframes_planned_ahead_arrive_before_they_are_needed() {
    const AHEAD: u32 = 120;
    let far = |unit: &mut Unit, rng: &mut Rng, now: u32| {
        unit.pos.advance(now);
        unit.build.advance(now);
        while unit.pos.keys().iter().filter(|k| k.time > now).count() < 3 {
            let last = unit.pos.keys().last().map_or((now, [2048, 2048]), |k| (k.time, k.value));
            let near = |v: i32, rng: &mut Rng| (v + rng.below(401) as i32 - 200).clamp(0, 4095);
            let time = last.0.max(now + AHEAD) + 5 + rng.below(60) as u32;
            unit.pos.add(time, [near(last.1[0], rng), near(last.1[1], rng)]).unwrap();
        }
    };
    for seed in [7, 8] {
        let mut run = Run::new(schema(true), seed, 0.2, 64 * 1024);
        let mut compared = 0;
        for now in 0..900 {
            run.step(now, far);
            if now < 2 * AHEAD {
                continue;
            }
            for (id, unit) in run.units.iter().enumerate() {
                let h = run.peer.handle_of(id).unwrap();
                let mut shown = Timeline::<2, 6>::new(POS).unwrap();
                shown.read_row(run.client.get(h).unwrap().1).unwrap();
                let t = Time::frame(now);
                assert_eq!(shown.value_at(t), unit.pos.value_at(t), "frame {now}: unit {id}");
                compared += 1;
            }
        }
        assert!(compared > 20_000, "{compared} lookups compared");
    }
}

/// Keyframe records cost less than the same slots sent as plain fields in the state stream.
#[test]
fn keyframe_records_cost_less_than_plain_fields() {
    let bytes = |keyed: bool| {
        let mut run = Run::new(schema(keyed), 6, 0.05, 64 * 1024);
        (0..600).for_each(|now| run.step(now, Unit::plan));
        run.bytes
    };
    let (keyed, plain) = (bytes(true), bytes(false));
    assert!(keyed * 2 < plain, "{keyed} bytes as records, {plain} as plain fields");
}

impl Unit {
    fn new() -> Unit {
        Unit { pos: Timeline::new(POS).unwrap(), build: Timeline::new(BUILD).unwrap() }
    }
}

/// A handle's entity leaves and another takes the handle while the old one's keyframe record
/// is being repaired: the record arrives after the new entity did, and never shows on it.
#[test]
fn a_record_for_an_old_entity_never_reaches_the_new_entity_of_its_handle() {
    let schema = schema(true);
    let (mut world, mut peer, mut client) = session(schema, 2, 1);
    let mut buf = vec![0u8; 4096];
    let (mut old, mut new) = (Unit::new(), Unit::new());
    old.pos.add(10, [100, 100]).unwrap();
    old.pos.add(20, [200, 200]).unwrap();
    // Frame 0: the old entity's packet, with its keyframes, is lost.
    world.begin_frame();
    world.set(0, 0, &old.row()).unwrap();
    peer.set_visible(0, true).unwrap();
    peer.encode(&world, &mut buf).unwrap();
    // Frame 1: it leaves, and the new entity (without keyframes) takes its handle.
    world.begin_frame();
    world.remove(0);
    world.set(1, 0, &new.row()).unwrap();
    peer.set_visible(0, false).unwrap();
    peer.set_visible(1, true).unwrap();
    let len = peer.encode(&world, &mut buf).unwrap();
    assert_eq!(client.decode(&buf[..len]), Ok(1));
    let h = peer.handle_of(1).unwrap();
    assert_eq!(client.sample(h).map(|s| s.born), Some(1), "the handle's new entity");
    peer.receive_ack(&client.ack().unwrap());
    // Frame 2: the ack shows frame 0 lost, and its record goes again: the client applies it,
    // to the entity born at frame 0, which its handle no longer names.
    world.begin_frame();
    let len = peer.encode(&world, &mut buf).unwrap();
    assert_eq!(client.decode(&buf[..len]), Ok(2));
    assert_eq!(peer.record_stats().resent, 1);
    assert_eq!(lists(client.get(h).unwrap().1), (Vec::new(), Vec::new()));
    // The new entity's own keyframes reach it.
    new.build.add(30, [50]).unwrap();
    world.begin_frame();
    world.set(1, 0, &new.row()).unwrap();
    let len = peer.encode(&world, &mut buf).unwrap();
    assert_eq!(client.decode(&buf[..len]), Ok(3));
    assert_eq!(lists(client.get(h).unwrap().1), lists(&new.row()));
}

/// A client that stops acknowledging fills the record queue: the game's records are refused
/// with the typed error, the keyframe edits wait in the peer (counted), and once acks come
/// back the client catches up with every edit.
#[test]
fn a_client_that_stops_acknowledging_loses_no_keyframe_edit() {
    let mut run = Run::new(schema(true), 9, 0.0, 64 * 1024);
    run.up.loss = 1.0;
    for now in 0..300 {
        run.step(now, Unit::plan);
    }
    assert!(run.peer.stats().keys_waiting > 0, "the keyframe edits waited");
    assert!(matches!(run.peer.queue_record(&[7; 200]), Err(Error::RecordQueueFull { .. })));
    run.up.loss = 0.0;
    for now in 300..400 {
        run.step(now, Unit::plan);
    }
    run.settle(400..440, "after the acks resume");
}
