//! Rates of change on the client, from the values it decoded.

mod support;

use netschema_runtime::model::predict::Predictor;
use support::*;

/// A ball moving along known polynomials, replicated over a link that loses every third
/// packet: the client's rates are the polynomials' slopes at the newest frame, exactly.
#[test]
fn rates_on_a_replicated_session_are_the_slopes_of_the_motion() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, 4, 8);
    let mut buf = vec![0u8; 4096];
    let x = |n: i64| 1000 + 7 * n;
    let y = |n: i64| 30_000 + 3 * n - n * n;
    let heading = |n: i64| (13 * n).rem_euclid(1024);
    for n in 0..120i64 {
        world.begin_frame();
        peer.set_visible(0, true).unwrap();
        world.set(0, 0, &[x(n) as i32, y(n) as i32, heading(n) as i32, 1, 0]).unwrap();
        let len = peer.encode(&world, &mut buf).unwrap();
        if n % 3 == 2 {
            continue;
        }
        client.decode(&buf[..len]).unwrap();
        if let Some(ack) = client.ack() {
            peer.receive_ack(&ack);
        }
        if n < 10 {
            continue;
        }
        let h = peer.handle_of(0).unwrap();
        let rate = |f, order| client.rate(h, f, order).map(|r| r.fixed(8));
        assert_eq!(rate(0, Predictor::Linear), Some(7 << 8), "frame {n}");
        assert_eq!(rate(0, Predictor::Cubic), Some(7 << 8));
        assert_eq!(rate(1, Predictor::Quadratic), Some((3 - 2 * n) << 8), "frame {n}");
        // The backward difference over the gap to the previous value held.
        let gap = if n % 3 == 0 { 2 } else { 1 };
        let backward = ((y(n) - y(n - gap)) << 8) / gap;
        assert_eq!(rate(1, Predictor::Linear), Some(backward), "frame {n}");
        assert_eq!(rate(2, Predictor::Linear), Some(13 << 8), "across the seam");
        assert_eq!(rate(3, Predictor::Linear), None, "categorical");
        assert_eq!(rate(1, Predictor::Hold), None);
        assert_eq!(rate(9, Predictor::Linear), None);
        assert_eq!(client.rate(h + 1, 0, Predictor::Linear), None);
    }
}
