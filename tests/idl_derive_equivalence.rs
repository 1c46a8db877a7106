//! The same schema as a `.netidl` file (`tests/schemas/equiv.netidl`, generated into
//! `tests/generated/equiv.rs`) and as `#[derive(Snapshot)]` structs must give the same class
//! tables, the same schema hash, the same raw values and identical packets.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test idl_derive_equivalence` regenerates the checked-in file.

mod golden;

use netschema::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema::schema::{Class, Schema};
use netschema::{Snapshot, SnapshotEnum};

/// The code generated from `tests/schemas/equiv.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/equiv.rs");
}

/// The same schema, derived.
#[allow(unreachable_pub)]
mod derived {
    use netschema::{Snapshot, SnapshotEnum, SnapshotStruct};

    /// What a unit is doing.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotEnum)]
    pub enum Mood {
        #[default]
        Calm,
        Angry,
        Asleep,
    }

    /// A unit with one field of every kind, in two update groups.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    #[netschema(priority = 3, group(name = "slow", every = 4, priority = 2))]
    pub struct Unit {
        /// Position in metres.
        #[netschema(vec2(fixed(-64, 64, res = 1 / 512)), tolerance = 0.01)]
        pub pos: [f32; 2],
        #[netschema(angle(bits = 10), predict(hold, linear))]
        pub heading: f32,
        #[netschema(quat(bits = 9), tolerance = 0.02, group = "slow")]
        pub turret: [f32; 4],
        #[netschema(int(0, 1_000), group = "slow", predict(hold))]
        #[netschema(tolerance = 2)]
        pub hp: i32,
        #[netschema(fixed(0, 20, bits = 12))]
        #[netschema(predict(zero, hold, linear, quadratic, cubic))]
        pub speed: f32,
        #[netschema(int(0, 255))]
        pub color: [i32; 3],
        pub flags: [bool; 2],
        #[netschema(group = "slow")]
        pub mood: Mood,
        #[netschema(vec3(int(-10, 10)))]
        pub path: [[i32; 3]; 2],
        #[netschema(int(-3, 3))]
        pub r#type: i32,
    }

    /// A capture point.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    pub struct Flag {
        #[netschema(int(0, 3))]
        pub owner: i32,
        #[netschema(fixed(0, 1, bits = 8))]
        pub progress: f32,
        pub contested: bool,
        /// Who is capturing it, if anyone.
        #[netschema(int(0, 3), predict(hold))]
        pub capturer: Option<u8>,
        #[netschema(vec2(fixed(-64, 64, res = 1 / 8)), tolerance = 0.25)]
        pub rally: Option<[f32; 2]>,
        pub moods: [Option<Mood>; 2],
        /// The name shown over it: not part of its row.
        pub label: netschema::Text<12>,
    }

    /// Where a unit aims.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotStruct)]
    pub struct Aim {
        #[netschema(angle(bits = 8))]
        pub dir: f32,
        pub locked: bool,
    }

    /// A unit's vitals: a struct holding a struct.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotStruct)]
    pub struct Stats {
        #[netschema(int(0, 200), predict(hold))]
        pub health: u8,
        #[netschema(fixed(0, 10, res = 1 / 4))]
        pub armour: f32,
        pub mood: Mood,
        pub aim: Aim,
    }

    /// A timed bonus.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotStruct)]
    pub struct Buff {
        #[netschema(int(0, 600))]
        pub time: i32,
        #[netschema(int(0, 9))]
        pub bonus: Option<u8>,
    }

    /// A squad: a struct field, an array of structs and an optional struct.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    #[netschema(group(name = "slow", every = 2))]
    pub struct Squad {
        #[netschema(tolerance = 1, group = "slow")]
        pub leader: Stats,
        #[netschema(predict(hold, linear))]
        pub buffs: [Buff; 3],
        pub target: Option<Stats>,
    }

    /// A shot: who fired it, and what it homes in on (an entity of any class).
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    #[netschema(protocol = "Equiv")]
    pub struct Shot {
        #[netschema(vec2(fixed(-64, 64, res = 1 / 8)))]
        pub pos: [f32; 2],
        pub owner: netschema::Ref<Unit>,
        pub target: netschema::Ref<Equiv>,
    }

    /// A bag: lists of a scalar, a vector and a struct, and a list inside an optional.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    pub struct Bag {
        #[netschema(int(0, 1_000), predict(hold))]
        pub ids: netschema::List<u16, 4>,
        #[netschema(vec2(fixed(-64, 64, res = 1 / 8)), tolerance = 0.25)]
        pub stops: netschema::List<[f32; 2], 3>,
        pub buffs: netschema::List<Buff, 3>,
        pub moods: Option<netschema::List<Mood, 2>>,
    }

    /// The classes in the order of the `.netidl` file, with its rate and model policy.
    pub const SCHEMA: netschema::schema::Schema = netschema::schema::Schema::new(
        "equiv",
        &[Unit::CLASS, Flag::CLASS, Squad::CLASS, Shot::CLASS, Bag::CLASS],
    )
    .with_rate(60)
    .with_policy(netschema::model::ModelPolicy::Batched { batch: 4, kept: 3 });

    /// The same schema starting from a prior (`tests/generated/equiv.prior`, see
    /// `checked_in_prior_is_up_to_date`).
    #[derive(Clone, Copy, Debug, PartialEq, netschema::Protocol)]
    #[netschema(
        name = "equiv",
        models = "batched:4:3",
        rate = 60,
        prior = "tests/generated/equiv.prior"
    )]
    pub enum WarmEquiv {
        Unit(Unit),
        Flag(Flag),
        Squad(Squad),
        Shot(Shot),
        Bag(Bag),
    }

    /// The same schema as a `Protocol` enum.
    #[derive(Clone, Copy, Debug, PartialEq, netschema::Protocol)]
    #[netschema(name = "equiv", models = "batched:4:3", rate = 60)]
    pub enum Equiv {
        Unit(Unit),
        Flag(Flag),
        Squad(Squad),
        Shot(Shot),
        Bag(Bag),
    }
}

#[test]
fn checked_in_code_is_up_to_date() {
    golden::assert_generated_is_current("equiv");
}

/// The prior the derive embeds is what the engine learns over a minute of a flag changing
/// hands (rewritten with `NETSCHEMA_BLESS=1`), and the derived schema starts from it.
#[test]
fn checked_in_prior_is_up_to_date() {
    use netschema::model::ModelLayout;
    const N: usize = 4;
    let schema = &derived::SCHEMA;
    let mut wb = WorldBuffers::new(schema, N);
    let mut world = wb.world(schema, N).unwrap();
    let mut pb = PeerBuffers::new(schema, N, N);
    let mut peer = pb.peer(schema, N, N).unwrap();
    let mut cb = ClientBuffers::new(schema, N);
    let mut client = cb.client(schema, N).unwrap();
    let mut buf = [0u8; 1024];
    for tick in 0..3600 {
        world.begin_frame();
        for id in 0..N {
            let flag = derived::Flag {
                owner: ((tick / 600 + id) % 4) as i32,
                progress: (tick % 600) as f32 / 600.0,
                contested: (tick + id) % 7 == 0,
                capturer: ((tick + id) % 900 < 300).then_some(((tick / 300 + id) % 4) as u8),
                rally: None,
                moods: [None, Some(derived::Mood::Calm)],
                label: netschema::Text::default(),
            };
            let mut row = [0; 12];
            flag.quantise(&mut row);
            world.set(id, 1, &row).unwrap();
            peer.set_visible(id, true).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
    }
    let mut prior = vec![0u8; ModelLayout::prior_len(schema)];
    ModelLayout::write_prior(schema, peer.learned().unwrap(), &mut prior).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/generated/equiv.prior");
    if std::env::var_os("NETSCHEMA_BLESS").is_some() {
        std::fs::write(&path, &prior).unwrap();
    }
    assert!(std::fs::read(&path).unwrap() == prior, "equiv.prior is stale: NETSCHEMA_BLESS=1");
    let warm = <derived::WarmEquiv as netschema::Protocol>::SCHEMA;
    let embedded: &'static [u8] = include_bytes!("generated/equiv.prior");
    assert_eq!(*warm, derived::SCHEMA.with_prior(embedded));
    assert_eq!(warm.validate(), Ok(()));
    assert_ne!(warm.hash, derived::SCHEMA.hash);
}

#[test]
fn class_tables_and_hash_are_identical() {
    assert_eq!(<idl::Unit as Snapshot>::CLASS, <derived::Unit as Snapshot>::CLASS);
    let unit = <derived::Unit as Snapshot>::CLASS;
    let slow = netschema::schema::Group { name: "slow", interval: 4, priority: 2 };
    assert_eq!(
        unit.groups,
        [netschema::schema::Group { name: "", interval: 1, priority: 3 }, slow]
    );
    let scheduled: Vec<(&str, u32, u8)> = unit
        .fields
        .iter()
        .filter(|f| f.tolerance > 0 || f.group > 0)
        .map(|f| (f.name, f.tolerance, f.group))
        .collect();
    // Steps of 1/512 m and √2/511 per quaternion component; the largest index stays exact.
    assert_eq!(
        scheduled,
        [
            ("pos.x", 5, 0),
            ("pos.y", 5, 0),
            ("turret.largest", 0, 1),
            ("turret.c0", 7, 1),
            ("turret.c1", 7, 1),
            ("turret.c2", 7, 1),
            ("hp", 2, 1),
            ("mood", 0, 1),
        ]
    );
    assert_eq!(<derived::Flag as Snapshot>::CLASS.groups, []);
    let label = netschema::schema::TextField::string("label", 12);
    assert_eq!(<derived::Flag as Snapshot>::CLASS.texts, [label]);
    let flag: Vec<&str> =
        <derived::Flag as Snapshot>::CLASS.fields.iter().map(|f| f.name).collect();
    assert_eq!(
        flag[3..],
        [
            "capturer.present",
            "capturer.value",
            "rally.present",
            "rally.value.x",
            "rally.value.y",
            "moods[0].present",
            "moods[0].value",
            "moods[1].present",
            "moods[1].value",
        ]
    );
    assert_eq!(<idl::Flag as Snapshot>::CLASS, <derived::Flag as Snapshot>::CLASS);
    assert_eq!(idl::SCHEMA, derived::SCHEMA);
    assert_eq!(idl::SCHEMA.hash, derived::SCHEMA.hash);
    let protocol = <derived::Equiv as netschema::Protocol>::SCHEMA;
    assert_eq!(*protocol, idl::SCHEMA, "the derive's `models` is the `.netidl` statement");
    assert_ne!(idl::SCHEMA.hash, netschema::schema::Schema::new("equiv", idl::SCHEMA.classes).hash);
    assert_eq!(<idl::Mood as SnapshotEnum>::CASES, <derived::Mood as SnapshotEnum>::CASES);
    let names: Vec<&str> =
        <derived::Unit as Snapshot>::CLASS.fields.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "pos.x",
            "pos.y",
            "heading",
            "turret.largest",
            "turret.c0",
            "turret.c1",
            "turret.c2",
            "hp",
            "speed",
            "color[0]",
            "color[1]",
            "color[2]",
            "flags[0]",
            "flags[1]",
            "mood",
            "path[0].x",
            "path[0].y",
            "path[0].z",
            "path[1].x",
            "path[1].y",
            "path[1].z",
            "type",
        ]
    );
}

/// Lists flatten into the same links and slots from both front ends, an external struct's
/// elements included.
#[test]
fn lists_flatten_as_the_compiler_does() {
    let bag = <derived::Bag as Snapshot>::CLASS;
    assert_eq!(<idl::Bag as Snapshot>::CLASS, bag);
    let names: Vec<&str> = bag.fields.iter().map(|f| f.name).collect();
    assert_eq!(names[..4], ["ids.head", "ids[0].next", "ids[0]", "ids[1].next"]);
    assert_eq!(
        names[9..14],
        ["stops.head", "stops[0].next", "stops[0].x", "stops[0].y", "stops[1].next"]
    );
    assert_eq!(
        names[19..24],
        [
            "buffs.head",
            "buffs[0].next",
            "buffs[0].time",
            "buffs[0].bonus.present",
            "buffs[0].bonus.value"
        ]
    );
    assert_eq!(
        names[names.len() - 6..],
        [
            "moods.present",
            "moods.value.head",
            "moods.value[0].next",
            "moods.value[0]",
            "moods.value[1].next",
            "moods.value[1]"
        ]
    );
    let stops = bag.fields.iter().find(|f| f.name == "stops[2].y").unwrap();
    assert_eq!(stops.tolerance, 2, "the list's tolerance reaches its elements");
    assert_eq!(bag.fields[10].tolerance, 0, "links are exact");
}

/// Structs, arrays of structs and optional structs flatten in place, with the same paths and
/// the same clause rule: a struct's own field's clause first, then the holding field's.
#[test]
fn references_are_the_same_links() {
    use netschema::schema::Link;
    let shot = <derived::Shot as Snapshot>::CLASS;
    assert_eq!(<idl::Shot as Snapshot>::CLASS, shot);
    assert_eq!(shot.links, [Link::new("owner", Some(0)), Link::new("target", None)]);
    assert_eq!(shot.fields.len(), 2, "references are not scalars");
    assert_eq!(derived::SCHEMA.max_links, 2);
    let mut value = derived::Shot { owner: netschema::Ref::to(7), ..Default::default() };
    assert_eq!((value.link(0), value.link(1), value.link(2)), (Some(7), None, None));
    value.set_link(1, Some(3));
    assert_eq!(value.target.id(), Some(3));
    let mut raw = [0; 2];
    value.quantise(&mut raw);
    assert_eq!(derived::Shot::dequantise(&raw).owner, netschema::Ref::NONE);
}

#[test]
fn nested_structs_flatten_as_the_compiler_does() {
    use netschema::model::predict::Predictor::{Hold, Linear};
    use netschema::schema::Coding;
    let squad = <derived::Squad as Snapshot>::CLASS;
    assert_eq!(<idl::Squad as Snapshot>::CLASS, squad);
    let names: Vec<&str> = squad.fields.iter().map(|f| f.name).collect();
    let buff = |i: usize| {
        [
            format!("buffs[{i}].time"),
            format!("buffs[{i}].bonus.present"),
            format!("buffs[{i}].bonus.value"),
        ]
    };
    let mut expected: Vec<String> =
        ["health", "armour", "mood", "aim.dir", "aim.locked"].map(|n| format!("leader.{n}")).into();
    expected.extend((0..3).flat_map(buff));
    expected.push("target.present".into());
    expected.extend(
        ["health", "armour", "mood", "aim.dir", "aim.locked"].map(|n| format!("target.value.{n}")),
    );
    assert_eq!(names, expected);
    let field = |name: &str| *squad.fields.iter().find(|f| f.name == name).unwrap();
    // `health` writes `predict(hold)` itself; the holding field's tolerance of 1 is one step of
    // `int`, four of a quarter and 40 of a 256th of a turn; the group covers the whole struct.
    assert_eq!(field("leader.health").coding, Coding::Numeric(&[Hold]));
    let scheduled: Vec<(u32, u8)> =
        squad.fields[..5].iter().map(|f| (f.tolerance, f.group)).collect();
    assert_eq!(scheduled, [(1, 1), (4, 1), (0, 1), (40, 1), (0, 1)]);
    assert_eq!(field("buffs[2].time").coding, Coding::Numeric(&[Hold, Linear]));
    assert_eq!(field("buffs[1].bonus.value").coding, Coding::Numeric(&[Hold, Linear]));
    assert_eq!(field("buffs[1].bonus.present").coding, Coding::Categorical);
    assert_eq!(field("target.value.health").coding, Coding::Numeric(&[Hold]));
    assert_eq!(field("target.value.armour").coding, field("leader.armour").coding);
    assert_eq!(field("target.value.aim.dir").group, 0);
}

/// A deterministic generator for the simulated values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() % 10_000) as f32 / 10_000.0
    }
    fn below(&mut self, n: u64) -> i32 {
        (self.next() % n) as i32
    }
}

fn units(rng: &mut Rng, tick: u32) -> Vec<(idl::Unit, derived::Unit)> {
    (0..6)
        .map(|i| {
            let t = tick as f32 * 0.05 + i as f32;
            let q = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5, 1.0];
            let color = [rng.below(256), rng.below(256), rng.below(256)];
            let flags = [rng.below(2) == 1, rng.below(10) == 0];
            let path = [[rng.below(21) - 10, 3, -4], [i - 2, rng.below(21) - 10, 7]];
            let (pos, heading, hp, speed, kind) = (
                [t.sin() * 60.0, t.cos() * 60.0],
                t * 0.7,
                1000 - tick as i32,
                rng.unit() * 20.0,
                i % 7 - 3,
            );
            let mood = rng.below(3) as u32;
            (
                idl::Unit {
                    pos,
                    heading,
                    turret: q,
                    hp,
                    speed,
                    color,
                    flags,
                    mood: idl::Mood::from_index(mood),
                    path,
                    r#type: kind,
                },
                derived::Unit {
                    pos,
                    heading,
                    turret: q,
                    hp,
                    speed,
                    color,
                    flags,
                    mood: derived::Mood::from_index(mood),
                    path,
                    r#type: kind,
                },
            )
        })
        .collect()
}

/// A squad at `tick`, from each front end: vitals drifting, buffs expiring and renewed, a
/// target acquired and lost. Every value lies on its grid, so it decodes as it was.
fn squads(tick: u32) -> (idl::Squad, derived::Squad) {
    let stats = |k: u32| {
        let (health, armour, dir) =
            ((200 - (tick + k) % 150) as u8, ((tick + k) % 40) as f32 / 4.0, 0.0);
        let (mood, locked) = ((tick / 7 + k) % 3, (tick + k).is_multiple_of(5));
        (
            idl::Stats {
                health: health.into(),
                armour,
                mood: idl::Mood::from_index(mood),
                aim: idl::Aim { dir, locked },
            },
            derived::Stats {
                health,
                armour,
                mood: derived::Mood::from_index(mood),
                aim: derived::Aim { dir, locked },
            },
        )
    };
    let buff = |i: u32| {
        let (time, bonus) = (
            (600 - (tick * (i + 1)) % 600) as i32,
            (!(tick + i).is_multiple_of(4)).then_some((i % 10) as u8),
        );
        (idl::Buff { time, bonus: bonus.map(i32::from) }, derived::Buff { time, bonus })
    };
    let target = (tick % 30 < 20).then(|| stats(7));
    let (leader_a, leader_b) = stats(0);
    (
        idl::Squad {
            leader: leader_a,
            buffs: [0, 1, 2].map(|i| buff(i).0),
            target: target.map(|t| t.0),
        },
        derived::Squad {
            leader: leader_b,
            buffs: [0, 1, 2].map(|i| buff(i).1),
            target: target.map(|t| t.1),
        },
    )
}

/// The contents of a bag: lists edited at random each tick (elements pushed, inserted and
/// removed anywhere, swapped and changed), and a list that comes and goes.
#[derive(Default)]
struct Contents {
    ids: Vec<i32>,
    stops: Vec<[f32; 2]>,
    buffs: Vec<(i32, Option<u8>)>,
    moods: Option<Vec<u32>>,
}

/// One random edit of `items`, kept to `cap` elements; `fresh` draws a new element.
fn churn<T>(rng: &mut Rng, items: &mut Vec<T>, cap: usize, fresh: impl Fn(&mut Rng) -> T) {
    let len = items.len() as u64;
    match rng.below(8) {
        0 | 1 if items.len() < cap => {
            let at = rng.below(len + 1) as usize;
            items.insert(at, fresh(rng));
        }
        2 | 3 if len > 0 => {
            items.remove(rng.below(len) as usize);
        }
        4 if len > 1 => items.swap(rng.below(len) as usize, rng.below(len) as usize),
        5 if len > 0 => {
            let at = rng.below(len) as usize;
            items[at] = fresh(rng);
        }
        _ => {}
    }
}

impl Contents {
    fn step(&mut self, rng: &mut Rng) {
        churn(rng, &mut self.ids, 4, |rng| rng.below(1001));
        churn(rng, &mut self.stops, 3, |rng| {
            [rng.below(1024) as f32 / 8.0 - 64.0, rng.below(1024) as f32 / 8.0 - 64.0]
        });
        churn(rng, &mut self.buffs, 3, |rng| {
            (rng.below(601), (rng.below(2) == 0).then(|| rng.below(10) as u8))
        });
        if rng.below(20) == 0 {
            self.moods = self.moods.is_none().then(Vec::new);
        }
        if let Some(moods) = &mut self.moods {
            churn(rng, moods, 2, |rng| rng.below(3) as u32);
        }
    }

    /// The bag from each front end.
    fn bags(&self) -> (idl::Bag, derived::Bag) {
        fn list<T: Clone + Default, const N: usize>(items: &[T]) -> netschema::List<T, N> {
            netschema::List::try_from(items).unwrap()
        }
        let buffs_a: Vec<idl::Buff> = (self.buffs.iter())
            .map(|&(time, bonus)| idl::Buff { time, bonus: bonus.map(i32::from) })
            .collect();
        let buffs_b: Vec<derived::Buff> =
            self.buffs.iter().map(|&(time, bonus)| derived::Buff { time, bonus }).collect();
        let ids_b: Vec<u16> = self.ids.iter().map(|&i| i as u16).collect();
        let moods = self.moods.as_deref();
        let moods_a =
            moods.map(|m| m.iter().map(|&i| idl::Mood::from_index(i)).collect::<Vec<_>>());
        let moods_b =
            moods.map(|m| m.iter().map(|&i| derived::Mood::from_index(i)).collect::<Vec<_>>());
        (
            idl::Bag {
                ids: list(&self.ids),
                stops: list(&self.stops),
                buffs: list(&buffs_a),
                moods: moods_a.map(|m| list(&m)),
            },
            derived::Bag {
                ids: list(&ids_b),
                stops: list(&self.stops),
                buffs: list(&buffs_b),
                moods: moods_b.map(|m| list(&m)),
            },
        )
    }
}

/// Runs both schemas through their own world, peer and client; every packet must be equal.
#[test]
fn packets_are_identical() {
    const N: usize = 16;
    let (sa, sb): (&Schema, &Schema) = (&idl::SCHEMA, &derived::SCHEMA);
    let (mut wa, mut wb) = (WorldBuffers::new(sa, N), WorldBuffers::new(sb, N));
    let (mut world_a, mut world_b) = (wa.world(sa, N).unwrap(), wb.world(sb, N).unwrap());
    let (mut pa, mut pb) = (PeerBuffers::new(sa, N, N), PeerBuffers::new(sb, N, N));
    let (mut peer_a, mut peer_b) = (pa.peer(sa, N, N).unwrap(), pb.peer(sb, N, N).unwrap());
    let (mut ca, mut cb) = (ClientBuffers::new(sa, N), ClientBuffers::new(sb, N));
    let (mut client_a, mut client_b) = (ca.client(sa, N).unwrap(), cb.client(sb, N).unwrap());
    let (mut buf_a, mut buf_b) = ([0u8; 4096], [0u8; 4096]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut contents = Contents::default();
    let width = |c: &Class| c.fields.len();
    for tick in 0..120 {
        let now = world_a.begin_frame();
        world_b.begin_frame();
        for (id, (a, b)) in units(&mut rng, tick).into_iter().enumerate() {
            let mut ra = vec![0; width(&<idl::Unit as Snapshot>::CLASS)];
            let mut rb = vec![0; width(&<derived::Unit as Snapshot>::CLASS)];
            a.quantise(&mut ra);
            b.quantise(&mut rb);
            assert_eq!(ra, rb, "tick {tick}: raw values differ");
            assert_eq!(idl::Unit::dequantise(&ra).pos, derived::Unit::dequantise(&rb).pos);
            world_a.set(id, idl::Unit::CLASS_INDEX, &ra).unwrap();
            world_b.set(id, 0, &rb).unwrap();
        }
        let capturer = (tick % 40 < 25).then_some((tick / 40 % 4) as u8);
        let rally = (tick % 50 >= 10).then_some([tick as f32 * 0.25 - 20.0, 3.5]);
        let mood = |k: u32| (tick % (3 + k) != 0).then_some(tick % 3);
        let flag_a = idl::Flag {
            owner: (tick / 30) as i32,
            progress: (tick % 30) as f32 / 30.0,
            contested: tick % 7 == 0,
            capturer: capturer.map(i32::from),
            rally,
            moods: [mood(0).map(idl::Mood::from_index), mood(1).map(idl::Mood::from_index)],
            label: netschema::Text::try_from(format!("flag {}", tick % 97).as_str()).unwrap(),
        };
        let flag_b = derived::Flag {
            owner: flag_a.owner,
            progress: flag_a.progress,
            contested: flag_a.contested,
            capturer,
            rally,
            moods: [mood(0).map(derived::Mood::from_index), mood(1).map(derived::Mood::from_index)],
            label: flag_a.label,
        };
        let (mut ra, mut rb) = ([0; 12], [0; 12]);
        flag_a.quantise(&mut ra);
        flag_b.quantise(&mut rb);
        assert_eq!(ra, rb);
        let (back_a, back_b) = (idl::Flag::dequantise(&ra), derived::Flag::dequantise(&rb));
        assert_eq!((back_a.capturer, back_a.rally), (capturer.map(i32::from), rally));
        assert_eq!(back_b.capturer, capturer);
        assert_eq!(back_b.moods.map(|m| m.map(derived::Mood::index)), [mood(0), mood(1)]);
        // The label is not in the row; both read and set it alike.
        assert_eq!((flag_a.text(0), flag_b.text(0)), (flag_a.label.as_bytes(), flag_a.text(0)));
        let (mut label_a, mut label_b) = (back_a, back_b);
        assert!(label_a.set_text(0, flag_a.text(0)) && label_b.set_text(0, flag_b.text(0)));
        assert_eq!((label_a.label, label_b.label), (flag_a.label, flag_b.label));
        assert!(!label_a.set_text(0, b"thirteen byte") && !label_b.set_text(1, b"x"));
        world_a.set(10, idl::Flag::CLASS_INDEX, &ra).unwrap();
        world_b.set(10, 1, &rb).unwrap();
        let (a, b) = squads(tick);
        let (mut ra, mut rb) = ([0; 20], [0; 20]);
        a.quantise(&mut ra);
        b.quantise(&mut rb);
        assert_eq!(ra, rb, "tick {tick}: squad raw values differ");
        assert_eq!(derived::Squad::dequantise(&rb), b);
        world_a.set(11, idl::Squad::CLASS_INDEX, &ra).unwrap();
        world_b.set(11, 2, &rb).unwrap();
        let pos = [tick as f32 * 0.5 - 30.0, 1.0];
        let (a, b) =
            (idl::Shot { pos, ..Default::default() }, derived::Shot { pos, ..Default::default() });
        let (mut ra, mut rb) = ([0; 2], [0; 2]);
        a.quantise(&mut ra);
        b.quantise(&mut rb);
        assert_eq!(ra, rb);
        let owner = (tick % 20 < 15).then_some(tick as usize / 20 % 6);
        let target = [Some(10), Some(11), None][tick as usize / 7 % 3];
        for (world, class) in [(&mut world_a, idl::Shot::CLASS_INDEX), (&mut world_b, 3)] {
            world.set(12, class, &ra).unwrap();
            world.set_link(12, 0, owner).unwrap();
            world.set_link(12, 1, target).unwrap();
        }
        // A bag quantised over its previous row, as a server does, so its elements keep slots.
        contents.step(&mut rng);
        let (a, b) = contents.bags();
        let previous = |world: &netschema::World<'_>| {
            world.get(now, 13).map_or(vec![0; width(&idl::Bag::CLASS)], |(_, r)| r.to_vec())
        };
        let (mut ra, mut rb) = (previous(&world_a), previous(&world_b));
        a.quantise(&mut ra);
        b.quantise(&mut rb);
        assert_eq!(ra, rb, "tick {tick}: bag raw values differ");
        assert_eq!((idl::Bag::dequantise(&ra), derived::Bag::dequantise(&rb)), (a, b));
        world_a.set(13, idl::Bag::CLASS_INDEX, &ra).unwrap();
        world_b.set(13, 4, &rb).unwrap();
        for id in 0..N {
            peer_a.set_visible(id, true).unwrap();
            peer_b.set_visible(id, true).unwrap();
        }
        let la = peer_a.encode(&world_a, &mut buf_a).unwrap();
        let lb = peer_b.encode(&world_b, &mut buf_b).unwrap();
        assert_eq!(buf_a[..la], buf_b[..lb], "tick {tick}: packets differ");
        // Drop every fifth packet on the way to the clients.
        if tick % 5 != 4 {
            let fa = client_a.decode(&buf_a[..la]).unwrap();
            let fb = client_b.decode(&buf_b[..lb]).unwrap();
            assert_eq!(fa, fb);
            let va: Vec<_> = client_a.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
            let vb: Vec<_> = client_b.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
            assert_eq!(va, vb);
            for (_, class, raw) in &va {
                if *class == idl::Unit::CLASS_INDEX {
                    let (a, b) = (idl::Unit::dequantise(raw), derived::Unit::dequantise(raw));
                    assert_eq!((a.pos, a.turret, a.hp, a.path), (b.pos, b.turret, b.hp, b.path));
                    assert_eq!(a.mood.index(), b.mood.index());
                }
            }
            if let (Some(a), Some(b)) = (client_a.ack(), client_b.ack()) {
                peer_a.receive_ack(&a);
                peer_b.receive_ack(&b);
            }
        }
    }
}
