//! Drives keyframe timelines with arbitrary edits and rows: never panics; edits keep the list
//! sorted and within its limits, a refused edit changes nothing, what the server writes into
//! its row reads back on a client as the same list, any row reads or is refused, and every
//! lookup stays inside the fields' ranges.
//!
//! Input: one byte choosing the interpolation (step, linear or cubic), then commands of five
//! bytes each: an opcode and four bytes of arguments.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::Field;
use netschema_runtime::timeline::{Interp, Kind, Spec, Time, Timeline};

const X: Field = Field::numeric("x", -500, 500, false, &[Predictor::Hold]);
const ANGLE: Field = Field::numeric("a", 0, 1023, true, &[Predictor::Hold]);
const FIELDS: &[Field] = &[X, ANGLE];
/// Keyframes a timeline holds: 5 ahead and 3 at or before its frame.
const CAP: usize = 8;

fn in_range(value: [i32; 2]) -> bool {
    (-500..=500).contains(&value[0]) && (0..=1023).contains(&value[1])
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, commands)) = data.split_first() else { return };
    let interp = [Interp::Step, Interp::Linear, Interp::Cubic][usize::from(mode % 3)];
    let spec = Spec { fields: FIELDS, kind: Kind::Scalars, interp, ahead: 5, history: 3, keep: 60 };
    let mut server: Timeline<2, CAP> = Timeline::new(spec).expect("valid spec");
    let mut client = server;
    let mut row = vec![0i32; server.row_len()];
    for c in commands.chunks_exact(5) {
        let [op, a, b, x, y] = [c[0], c[1], c[2], c[3], c[4]];
        let now = server.now();
        let at = now.saturating_add(u32::from(a % 40)).saturating_sub(8);
        let value = [i32::from(x as i8) * 4, i32::from(y) * 4];
        let before = server;
        let result = match op % 6 {
            0 => server.add(at, value),
            1 => server.remove(at).map(|_| ()),
            2 => server.move_key(at, now.saturating_add(u32::from(b % 40))),
            3 => {
                server.advance(now.saturating_add(u32::from(b % 8)));
                Ok(())
            }
            4 => {
                // An arbitrary row on the client: read or refused, never a panic.
                for (i, v) in row.iter_mut().enumerate() {
                    let byte = c[1 + i % 4];
                    *v = match i % 4 {
                        0 => i32::from(byte % 3),
                        1 => i32::from(byte) * 3 - 10,
                        _ => i32::from(byte as i8) * 9,
                    };
                }
                if client.read_row(&row).is_ok() {
                    assert!(client.keys().windows(2).all(|w| w[0].time < w[1].time));
                }
                Ok(())
            }
            _ => {
                // The server's row travels to the client as is.
                server.write_row(&mut row).expect("a row of row_len");
                client.read_row(&row).expect("what the server writes reads back");
                assert_eq!(client.keys(), server.keys());
                Ok(())
            }
        };
        if result.is_err() {
            assert_eq!(server, before, "a refused edit changes nothing");
        }
        let keys = server.keys();
        assert!(keys.windows(2).all(|w| w[0].time < w[1].time));
        assert!(keys.iter().filter(|k| k.time > server.now()).count() <= 5);
        assert!(keys.iter().filter(|k| k.time <= server.now()).count() <= 3);
        for t in [server.now(), at, now.saturating_add(u32::from(b))] {
            let frac = u64::from(x) << 8;
            for timeline in [&server, &client] {
                if let Some(v) = timeline.value_at(Time(Time::frame(t).0 + frac)) {
                    let keyed = timeline.keys().iter().any(|k| k.value == v);
                    assert!(in_range(v) || keyed, "{v:?} at {t}");
                }
            }
        }
    }
});
