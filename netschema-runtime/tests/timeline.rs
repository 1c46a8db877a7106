//! Keyframe timelines: lookup formulas per interpolation and kind, holds at the ends, edits and
//! their errors, the pinned past, history limits, late keyframes on a client, no allocation.

use netschema_runtime::Error;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::QuatQuant;
use netschema_runtime::schema::Field;
use netschema_runtime::timeline::{Interp, Keyframe, Kind, Spec, Time, Timeline};
use proptest::prelude::*;

const X: Field = Field::numeric("x", 0, 1000, false, &[Predictor::Hold]);
const ANGLE: Field = Field::numeric("a", 0, 255, true, &[Predictor::Hold]);
const STATE: Field = Field::categorical("s", 3);
const QUAT_BITS: QuatQuant = match QuatQuant::new(12) {
    Ok(q) => q,
    Err(_) => panic!("12 bits"),
};
const QC: Field = Field::numeric("q", 0, 4095, false, &[Predictor::Hold]);
const QI: Field = Field::numeric("i", 0, 3, false, &[Predictor::Hold]);

fn spec(fields: &'static [Field], interp: Interp) -> Spec {
    Spec { fields, kind: Kind::Scalars, interp, ahead: 6, history: 4, keep: 100 }
}

fn client<const W: usize>(s: Spec, keys: &[(u32, [i32; W])]) -> Timeline<W, 16> {
    let mut t = Timeline::new(s).unwrap();
    let keys: Vec<_> = keys.iter().map(|&(time, value)| Keyframe { time, value }).collect();
    t.replace(&keys).unwrap();
    t
}

fn at<const W: usize>(t: &Timeline<W, 16>, frame: u32, frac: u64) -> [i32; W] {
    t.value_at(Time(Time::frame(frame).0 + frac)).unwrap()
}

const HALF: u64 = 1 << 15;

#[test]
fn linear_lookup_is_exact_at_keyframes_and_holds_at_the_ends() {
    let t = client(spec(&[X], Interp::Linear), &[(10, [0]), (20, [100]), (30, [100]), (40, [7])]);
    for k in t.keys() {
        assert_eq!(at(&t, k.time, 0), k.value);
    }
    assert_eq!(at(&t, 15, 0), [50]);
    assert_eq!(at(&t, 15, HALF), [55]);
    assert_eq!(at(&t, 25, 1234), [100]);
    // 100 - 93 * 3.5 / 10 = 67.45
    assert_eq!(at(&t, 33, HALF), [67]);
    assert_eq!(at(&t, 0, 0), [0], "before the first: hold it");
    assert_eq!(at(&t, 1_000_000, 0), [7], "after the last: hold it");
    let empty: Timeline<1, 16> = Timeline::new(spec(&[X], Interp::Linear)).unwrap();
    assert_eq!(empty.value_at(Time::frame(5)), None);
}

#[test]
fn step_holds_the_earlier_keyframe() {
    let t = client(spec(&[STATE], Interp::Step), &[(10, [0]), (20, [2]), (30, [1])]);
    assert_eq!(at(&t, 19, u64::from(u16::MAX)), [0]);
    assert_eq!(at(&t, 20, 0), [2]);
    assert_eq!(at(&t, 29, 0), [2]);
    assert_eq!(at(&t, 31, 0), [1]);
}

#[test]
fn categorical_fields_are_step_only_and_quaternions_not_cubic() {
    assert_eq!(Timeline::<1, 16>::new(spec(&[STATE], Interp::Linear)), Err(Error::InvalidSchema));
    let quat = Spec { kind: Kind::Quat(QUAT_BITS), ..spec(&[QI, QC, QC, QC], Interp::Cubic) };
    assert_eq!(Timeline::<4, 16>::new(quat), Err(Error::InvalidSchema));
    assert_eq!(Timeline::<2, 16>::new(spec(&[X], Interp::Linear)), Err(Error::InvalidSchema));
    assert_eq!(Timeline::<1, 8>::new(spec(&[X], Interp::Linear)), Err(Error::InvalidSchema));
}

#[test]
fn cubic_passes_through_keyframes_follows_lines_and_never_overshoots() {
    // Constant velocity: the cubic is the line.
    let line =
        client(spec(&[X], Interp::Cubic), &[(0, [0]), (10, [100]), (30, [300]), (35, [350])]);
    let linear = client(
        spec(&[X], Interp::Linear),
        line.keys().iter().map(|k| (k.time, k.value)).collect::<Vec<_>>().as_slice(),
    );
    for f in 0..40 {
        for frac in [0, 1000, HALF, 60_000] {
            assert_eq!(at(&line, f, frac), at(&linear, f, frac), "frame {f}.{frac}");
        }
    }
    // A progress bar that fills, stops at full, and a path that turns back: monotone between
    // neighbouring keyframes, inside the range.
    let bar = client(
        spec(&[X], Interp::Cubic),
        &[(0, [0]), (5, [400]), (10, [1000]), (20, [1000]), (24, [200]), (40, [0])],
    );
    for k in bar.keys() {
        assert_eq!(at(&bar, k.time, 0), k.value);
    }
    let mut last = at(&bar, 0, 0)[0];
    for q in 1..(40 * 8) {
        let v = at(&bar, q / 8, u64::from(q % 8) << 13)[0];
        let falling = q >= 20 * 8;
        assert!(
            if falling { v <= last } else { v >= last },
            "not monotone at {q}/8: {last} -> {v}"
        );
        assert!((0..=1000).contains(&v));
        last = v;
    }
    // Between 20 and 24 it eases out of the flat: slower than the line at first.
    assert!(at(&bar, 21, 0)[0] > 800, "{:?}", at(&bar, 21, 0));
}

#[test]
fn angles_take_the_shortest_arc_and_wrap() {
    for interp in [Interp::Linear, Interp::Cubic] {
        let t = client(spec(&[ANGLE], interp), &[(0, [250]), (10, [10]), (20, [20])]);
        assert_eq!(at(&t, 5, 0), [2], "{interp:?}");
        assert_eq!(at(&t, 10, 0), [10]);
        for f in 0..20 {
            let v = at(&t, f, HALF)[0];
            assert!(v >= 250 || v <= 20, "{interp:?} frame {f}: {v} took the long way");
        }
    }
}

#[test]
fn quaternions_nlerp_on_the_shorter_arc() {
    let spec = Spec { kind: Kind::Quat(QUAT_BITS), ..spec(&[QI, QC, QC, QC], Interp::Linear) };
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let a = QUAT_BITS.quantise([0.0, 0.0, 0.0, 1.0]);
    let b = QUAT_BITS.quantise([0.0, 0.0, s, s]);
    // The same rotation as `b`, on the other hemisphere.
    let b_neg = QUAT_BITS.quantise([0.0, 0.0, -s, -s]);
    for end in [b, b_neg] {
        let t = client(spec, &[(0, a), (10, end)]);
        assert_eq!(at(&t, 0, 0), a);
        assert_eq!(at(&t, 10, 0), end);
        let mid = QUAT_BITS.dequantise(at(&t, 5, 0));
        // Halfway is 22.5° about z: (0, 0, sin 22.5°, cos 22.5°), up to sign.
        let (sin, cos) = (22.5f64.to_radians().sin(), 22.5f64.to_radians().cos());
        let dot = (mid[2] * sin + mid[3] * cos).abs();
        assert!(dot > 0.999_99, "{mid:?}");
    }
}

#[test]
fn vectors_interpolate_per_component() {
    let t = client(spec(&[X, X], Interp::Linear), &[(0, [0, 1000]), (4, [400, 0])]);
    assert_eq!(at(&t, 1, 0), [100, 750]);
    assert_eq!(at(&t, 3, HALF), [350, 125]);
}

fn server(interp: Interp) -> Timeline<1, 16> {
    Timeline::new(spec(&[X], interp)).unwrap()
}

#[test]
fn edits_in_the_past_on_a_full_timeline_or_on_missing_keyframes_are_errors() {
    let mut t = server(Interp::Linear);
    t.advance(10);
    assert_eq!(t.add(10, [1]), Err(Error::KeyframeInPast { time: 10, now: 10 }));
    assert_eq!(t.add(3, [1]), Err(Error::KeyframeInPast { time: 3, now: 10 }));
    assert_eq!(t.add(12, [1001]), Err(Error::OutOfRange));
    assert_eq!(t.add(u32::MAX, [1]), Err(Error::OutOfRange));
    for k in 0..6 {
        t.add(20 + k, [k as i32]).unwrap();
    }
    assert_eq!(t.add(40, [1]), Err(Error::TimelineFull { ahead: 6 }));
    assert_eq!(t.add(21, [1]), Err(Error::KeyframeExists { time: 21 }));
    assert_eq!(t.remove(30), Err(Error::NoKeyframe { time: 30 }));
    assert_eq!(t.move_key(30, 40), Err(Error::NoKeyframe { time: 30 }));
    assert_eq!(t.move_key(21, 22), Err(Error::KeyframeExists { time: 22 }));
    assert_eq!(t.move_key(21, 5), Err(Error::KeyframeInPast { time: 5, now: 10 }));
    let before = t;
    t.advance(21);
    assert_eq!(t.remove(21), Err(Error::KeyframeInPast { time: 21, now: 21 }));
    // Errors change nothing; a full timeline has room again once keyframes pass.
    t.add(40, [9]).unwrap();
    assert_eq!(t.keys().len(), before.keys().len() + 1);
}

#[test]
fn add_remove_and_move_in_the_middle_and_at_the_ends() {
    let mut t = server(Interp::Linear);
    t.add(20, [200]).unwrap();
    t.add(10, [100]).unwrap(); // before the first
    t.add(40, [400]).unwrap(); // after the last
    t.add(30, [0]).unwrap(); // in the middle
    let times = |t: &Timeline<1, 16>| t.keys().iter().map(|k| k.time).collect::<Vec<_>>();
    // Frame 0 showed 200 (the hold before the first keyframe): adding 10 pinned it there.
    assert_eq!(times(&t), [0, 10, 20, 30, 40]);
    assert_eq!(t.remove(30), Ok([0]));
    assert_eq!(at(&t, 30, 0), [300]);
    t.move_key(40, 50).unwrap(); // the last, later
    t.move_key(10, 15).unwrap(); // the first, later
    t.move_key(20, 16).unwrap(); // past its neighbour's time is fine
    assert_eq!(times(&t), [0, 15, 16, 50]);
    assert_eq!(at(&t, 16, 0), [200]);
    assert_eq!(at(&t, 15, 0), [100]);
    t.remove(15).unwrap();
    t.remove(50).unwrap();
    assert_eq!(times(&t), [0, 16]);
}

#[test]
fn edits_pin_the_value_at_the_current_frame() {
    // A unit idle at 100 since frame 5 is sent to 300 at frame 20 when the server is at 10:
    // frames up to 10 keep showing 100, and it moves from there.
    let mut t = server(Interp::Linear);
    t.add(5, [100]).unwrap();
    t.advance(10);
    t.add(20, [300]).unwrap();
    assert_eq!(t.keys().iter().map(|k| k.time).collect::<Vec<_>>(), [5, 10, 20]);
    assert_eq!(at(&t, 8, 0), [100]);
    assert_eq!(at(&t, 15, 0), [200]);
    // Step curves never need a pin; edits further ahead than the first future keyframe of a
    // linear curve neither.
    t.add(30, [0]).unwrap();
    assert_eq!(t.keys().len(), 4);
    let mut s = server(Interp::Step);
    s.add(5, [100]).unwrap();
    s.advance(10);
    s.add(20, [300]).unwrap();
    assert_eq!(s.keys().len(), 2);
}

#[test]
fn history_is_kept_for_its_time_and_count_and_rewinds_exactly() {
    let mut t: Timeline<1, 16> =
        Timeline::new(Spec { keep: 20, ..spec(&[X], Interp::Linear) }).unwrap();
    let mut shown = Vec::new();
    for f in 0..60u32 {
        if f % 5 == 0 {
            t.add(f + 5, [((f * 37) % 1000) as i32]).unwrap();
        }
        shown.push(t.value_at(Time::frame(f)));
        t.advance(f + 1);
        // Everything since the horizon rewinds to what was shown then.
        let horizon = t.now().saturating_sub(20);
        let past = t.keys().iter().filter(|k| k.time <= t.now()).count();
        assert!(past <= 4, "frame {f}: kept {:?}", t.keys());
        assert!(t.keys().iter().filter(|k| k.time < horizon).count() <= 1);
        let oldest = t.keys()[0].time;
        for g in oldest..=f {
            assert_eq!(t.value_at(Time::frame(g)), shown[g as usize], "frame {f}, rewound to {g}");
        }
    }
    // Past the kept history, the oldest kept value holds.
    let oldest = t.keys()[0];
    assert_eq!(t.value_at(Time::frame(0)), Some(oldest.value));
    // The count limit (4 at or before now) forgets older keyframes even within `keep`.
    assert!(t.keys().iter().filter(|k| k.time <= t.now()).count() <= 4);
}

#[test]
fn late_keyframes_make_the_client_jump() {
    // The server at frame 10 sends a unit from 0 towards 500 at frame 14; the client, 6 frames
    // behind on the link, has shown 0 up to frame 16 when the keyframes arrive.
    let mut server = server(Interp::Linear);
    server.add(1, [0]).unwrap();
    let mut client: Timeline<1, 16> = Timeline::new(*server.spec()).unwrap();
    client.replace(server.keys()).unwrap();
    server.advance(10);
    server.add(14, [500]).unwrap();
    assert_eq!(at(&client, 16, 0), [0]);
    client.replace(server.keys()).unwrap();
    assert_eq!(at(&client, 16, 0), [500], "jumps to where the new curve is");
    assert_eq!(at(&client, 12, 0), [250]);
    // What it showed up to the server's frame 10 stays.
    for f in 0..=10 {
        assert_eq!(at(&client, f, 0), [0]);
    }
}

#[test]
fn replace_refuses_unsorted_or_too_many_keyframes() {
    let mut t = server(Interp::Linear);
    let k = |time| Keyframe { time, value: [0] };
    assert_eq!(t.replace(&[k(2), k(1)]), Err(Error::Corrupt));
    assert_eq!(t.replace(&[k(2), k(2)]), Err(Error::Corrupt));
    assert_eq!(t.replace(&(0..17).map(k).collect::<Vec<_>>()), Err(Error::Corrupt));
    assert_eq!(t.keys(), []);
}

#[test]
fn lookups_allocate_nothing() {
    let t =
        client(spec(&[X, ANGLE], Interp::Cubic), &[(0, [0, 0]), (9, [900, 200]), (20, [10, 30])]);
    let counted = allocation_counter::measure(|| {
        let mut sum = 0i64;
        for q in 0..10_000u64 {
            sum += i64::from(t.value_at(Time(q * 200)).unwrap()[0]);
        }
        assert!(sum > 0);
    });
    assert_eq!(counted.count_total, 0);
}

#[derive(Clone, Debug)]
enum Edit {
    Add(u32, i32),
    Remove(u32),
    Move(u32, u32),
    Advance(u32),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..80u32, 0..=1000i32).prop_map(|(t, v)| Edit::Add(t, v)),
        (0..80u32).prop_map(Edit::Remove),
        (0..80u32, 0..80u32).prop_map(|(a, b)| Edit::Move(a, b)),
        (0..4u32).prop_map(Edit::Advance),
    ]
}

proptest! {
    /// Whatever the edits, the keyframes stay sorted and within their limits, a refused edit
    /// changes nothing, and every value at or before the current frame within the kept history
    /// stays what it was: exactly for step curves, within the one raw step by which a pinned
    /// keyframe's value was rounded for linear ones (once there was a value: a timeline that
    /// was empty then holds its first keyframe's value there once it has one).
    #[test]
    fn edits_never_change_the_past(
        interp in prop_oneof![Just(Interp::Step), Just(Interp::Linear)],
        edits in proptest::collection::vec(edit(), 1..80),
    ) {
        let mut t = server(interp);
        let mut shown: Vec<Option<[i32; 1]>> = Vec::new();
        for e in edits {
            let before = t;
            let result = match e {
                Edit::Add(time, v) => t.add(t.now() + time, [v]),
                Edit::Remove(time) => t.remove(time).map(|_| ()),
                Edit::Move(a, b) => t.move_key(a, b),
                Edit::Advance(n) => {
                    t.advance(t.now() + n);
                    Ok(())
                }
            };
            if result.is_err() {
                prop_assert_eq!(&t, &before);
            }
            let keys = t.keys();
            prop_assert!(keys.windows(2).all(|w| w[0].time < w[1].time));
            prop_assert!(keys.iter().filter(|k| k.time > t.now()).count() <= 6);
            prop_assert!(keys.iter().filter(|k| k.time <= t.now()).count() <= 4);
            while shown.len() <= t.now() as usize {
                shown.push(t.value_at(Time::frame(shown.len() as u32)));
            }
            if let Some(oldest) = keys.first() {
                for f in oldest.time..=t.now() {
                    if let (Some([was]), Some([is])) = (shown[f as usize], t.value_at(Time::frame(f))) {
                        let slack = if interp == Interp::Step { 0 } else { 1 };
                        prop_assert!((is - was).abs() <= slack, "frame {}: {} then {}", f, was, is);
                    }
                }
            }
        }
    }
}

proptest! {
    /// Whatever a row holds (a client trusts what it decoded, but nothing may panic), reading
    /// it leaves a sorted list or refuses it, and every lookup stays inside the fields' ranges.
    #[test]
    fn any_row_reads_and_looks_up_without_panicking(
        interp in prop_oneof![Just(Interp::Step), Just(Interp::Linear), Just(Interp::Cubic)],
        row in proptest::collection::vec(any::<i32>(), 40),
        flags in proptest::collection::vec(any::<bool>(), 10),
        times in proptest::collection::vec(any::<u64>(), 8),
    ) {
        let mut row = row;
        // Make some slots live with small frames, so that lists are not all empty.
        for (s, &live) in flags.iter().enumerate() {
            if live {
                row[s * 4] = 1;
                row[s * 4 + 1] = row[s * 4 + 1].rem_euclid(1000);
            }
        }
        let mut t: Timeline<2, 16> =
            Timeline::new(Spec { ahead: 6, history: 4, ..spec(&[X, ANGLE], interp) }).unwrap();
        if t.read_row(&row).is_ok() {
            prop_assert!(t.keys().windows(2).all(|w| w[0].time < w[1].time));
            for &q in &times {
                for at in [Time(q), Time(q % (1100 << 16))] {
                    if let Some([x, a]) = t.value_at(at) {
                        prop_assert!((0..=1000).contains(&x) || t.keys().iter().any(|k| k.value[0] == x));
                        prop_assert!((0..=255).contains(&a) || t.keys().iter().any(|k| k.value[1] == a));
                    }
                }
            }
        }
    }
}
