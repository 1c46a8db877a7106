//! A predictive contract on the owned layer: attached by `#[derive(Protocol)]`, it changes the
//! schema hash, both ends replicate exactly with it, and the client's rates come for free.

use netschema::model::contract::{Contract, Rows};
use netschema::model::predict::Predictor;
use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Stone {
    #[netschema(int(-1_000_000, 1_000_000), predict(hold, linear, contract))]
    height: i32,
}

/// Stones fall 3 raw steps per frame, per frame: predicted from the two newest rows.
struct Falling;

impl Contract for Falling {
    fn predict(&self, _class: usize, rows: &Rows<'_>, out: &mut [i32]) {
        if rows.len() < 2 {
            return;
        }
        let (d0, gap) = (i64::from(rows.offset(0)), i64::from(rows.offset(1) - rows.offset(0)));
        let (y0, y1) = (i64::from(rows.get(0, 0)), i64::from(rows.get(1, 0)));
        // y(t) = y0 + v t - 3 t (t + 1) / 2 after the newest row, through y1 at t = -gap.
        let v = (y0 - y1 - 3 * gap * (gap - 1) / 2).div_euclid(gap);
        out[0] = (y0 + v * d0 - 3 * d0 * (d0 + 1) / 2) as i32;
    }
}

static FALLING: Falling = Falling;

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "quarry", contract = "FALLING", contract_name = "falling-v1")]
enum Quarry {
    Stone(Stone),
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "quarry")]
enum PlainQuarry {
    Stone(Stone),
}

#[test]
fn a_derived_contract_replicates_exactly_on_the_owned_layer() {
    assert_eq!(Quarry::SCHEMA.contract.map(|c| c.name), Some("falling-v1"));
    assert_ne!(Quarry::SCHEMA.hash, PlainQuarry::SCHEMA.hash);
    let config = ServerConfig::new(8, 8);
    let mut server = Server::<Quarry>::new(config).unwrap();
    let mut hello = [0; 64];
    // A client without the contract is refused at connect.
    let n = Client::<PlainQuarry>::hello(&mut hello).unwrap();
    assert!(server.connect(&hello[..n]).is_err());
    let n = Client::<Quarry>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Quarry>::connect(&welcome[..n], 64).unwrap();
    let height = |n: i64, stone: i64| (500_000 + 40 * n * stone - 3 * n * (n + 1) / 2) as i32;
    let mut buf = [0u8; 1024];
    let mut bytes = 0;
    for n in 0..200i64 {
        server.begin_frame();
        for stone in 0..4 {
            server.set(stone as u64, &Stone { height: height(n, stone) }).unwrap();
            server.set_visible(id, stone as u64, true).unwrap();
        }
        let len = server.encode(id, &mut buf).unwrap();
        bytes += len;
        if n % 4 == 3 {
            continue;
        }
        client.decode(&buf[..len]).unwrap();
        let mut got: Vec<i32> = client.iter::<Stone>().map(|(_, s)| s.height).collect();
        got.sort();
        let mut want: Vec<i32> = (0..4).map(|stone| height(n, stone)).collect();
        want.sort();
        assert_eq!(got, want, "frame {n}");
        if let Some(ack) = client.ack() {
            server.receive_ack(id, &ack).unwrap();
        }
        if n > 10 {
            // The slope at the newest frame: 40 stone - 3 n - 3/2 steps per frame.
            for (h, stone) in client.iter::<Stone>() {
                let s = (i64::from(stone.height) - 500_000 + 3 * n * (n + 1) / 2) / (40 * n);
                let rate = client.rate(h, 0, Predictor::Quadratic).unwrap();
                assert_eq!(rate.fixed(1), 80 * s - 6 * n - 3, "frame {n}");
            }
        }
    }
    // Exact predictions after the first frames: a few bytes a packet.
    assert!(bytes < 200 * 12, "{bytes} bytes");
}
