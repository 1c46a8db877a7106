//! Timelines replicated as row slots through the engine: under loss, reordering, duplication
//! and a byte budget, the keyframe lists a client reads from the frame it decoded equal the
//! lists the server records it holds, after every accepted packet, and are mostly the server's
//! own.

mod support;

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, KeySlot, Schema};
use netschema_runtime::timeline::{Interp, Keyframe, Kind, Spec, Timeline};
use netschema_runtime::{Ack, Error};
use std::collections::BTreeMap;
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
/// their [`KeySlot`]s, as it does; without, a keyframe's values are predicted as any field's).
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
fn lists(row: &[i32]) -> (Vec<Keyframe<2>>, Vec<Keyframe<1>>) {
    let mut pos = Timeline::<2, 6>::new(POS).unwrap();
    let mut build = Timeline::<1, 3>::new(BUILD).unwrap();
    pos.read_row(row).unwrap();
    build.read_row(&row[pos.row_len()..]).unwrap();
    (pos.keys().to_vec(), build.keys().to_vec())
}

/// Runs `frames` frames of packets of at most `budget` bytes; returns the share of the lists
/// held in accepted frames that were the server's current ones, and the bytes sent.
fn run(seed: u64, frames: u32, loss: f64, budget: usize, keyed: bool) -> (f64, usize) {
    let schema = schema(keyed);
    let mut bytes = 0;
    let (mut world, mut peer, mut client) = session(schema, UNITS, UNITS);
    let mut rng = Rng(seed);
    let mut up_to_date = 0;
    let mut down = Link::new((1, 6), loss);
    down.duplicate = 0.1;
    let mut up = Link::new((1, 6), loss);
    let mut units: Vec<Unit> = (0..UNITS)
        .map(|_| Unit { pos: Timeline::new(POS).unwrap(), build: Timeline::new(BUILD).unwrap() })
        .collect();
    // Per frame sent: handle -> (the lists recorded as held, whether they are the server's).
    type Lists = (Vec<Keyframe<2>>, Vec<Keyframe<1>>);
    let mut sent: BTreeMap<u32, BTreeMap<u32, (Lists, bool)>> = BTreeMap::new();
    let (mut buf, mut accepted) = (vec![0u8; budget], 0);
    let mut record = vec![0; schema.max_fields];
    for now in 0..frames {
        let frame = world.begin_frame();
        for (id, unit) in units.iter_mut().enumerate() {
            unit.plan(&mut rng, frame);
            world.set(id, 0, &unit.row()).unwrap();
            peer.set_visible(id, true).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        bytes += len;
        let held = (0..UNITS).filter_map(|id| {
            let h = peer.handle_of(id)?;
            peer.client_view(&world, frame, id, &mut record)?;
            let own = lists(&units[id].row());
            let recorded = lists(&record);
            let current = recorded == own;
            Some((h, (recorded, current)))
        });
        sent.insert(frame, held.collect());
        sent.retain(|&f, _| frame.wrapping_sub(f) < 64);
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            let Ok(f) = client.decode(&packet) else { continue };
            accepted += 1;
            let got: BTreeMap<u32, Lists> =
                client.frame_view().map(|(h, _, row)| (h, lists(row))).collect();
            // What the client shows (newer values of entities a budget held, if any arrived)
            // are whole lists too: a timeline's slots travel together.
            client.view().for_each(|(_, _, row)| drop(lists(row)));
            let want: BTreeMap<u32, Lists> =
                sent[&f].iter().map(|(&h, (l, _))| (h, l.clone())).collect();
            assert_eq!(got, want, "frame {f}: the client's lists differ from the record");
            up_to_date += sent[&f].values().filter(|(_, current)| *current).count();
            if let Some(ack) = client.ack() {
                up.send(&mut rng, now, &ack_bytes(ack));
            }
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    assert!(accepted > frames as usize / 4, "{accepted} packets accepted");
    // Most of what the client holds is the server's current plan.
    (up_to_date as f64 / (accepted * UNITS) as f64, bytes)
}

#[test]
fn lists_follow_the_server_under_loss_reordering_and_duplication() {
    for (seed, loss) in [(1, 0.0), (2, 0.2), (3, 0.5)] {
        for keyed in [true, false] {
            assert_eq!(run(seed, 600, loss, 64 * 1024, keyed).0, 1.0, "loss {loss}");
        }
    }
}

#[test]
fn lists_follow_the_server_under_a_byte_budget() {
    for (seed, loss) in [(4, 0.0), (5, 0.3)] {
        // About three quarters of what the plans need: lists wait, and stay whole.
        assert!(run(seed, 600, loss, 100, true).0 > 0.1, "loss {loss}");
    }
}

/// A new keyframe's frame and values are predicted from the keyframe before it (its slot's
/// [`KeySlot`]): the same session costs less than with each slot predicted from what it held.
#[test]
fn new_keyframes_are_predicted_from_the_one_before() {
    let (_, keyed) = run(6, 600, 0.05, 64 * 1024, true);
    let (_, plain) = run(6, 600, 0.05, 64 * 1024, false);
    assert!(keyed * 10 < plain * 9, "{keyed} bytes keyed, {plain} plain");
}
