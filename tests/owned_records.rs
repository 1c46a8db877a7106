//! Records through the owned server and client over a link that loses one datagram in five
//! each way, delays them by 2 to 4 frames (reordering) and duplicates some: every record sent
//! is applied once, in order, with its bytes and the frame it belongs to.

mod link;

use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Protocol, Snapshot};

use link::{Rng, Wire};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Door {
    #[netschema(int(0, 90))]
    angle: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "doors")]
enum Doors {
    Door(Door),
}

/// The bytes of record `n`.
fn bytes(n: u32) -> Vec<u8> {
    format!("door {} opened to {}", n % 7, n * 3 % 91).into_bytes()
}

#[test]
fn records_arrive_once_and_in_order_through_the_owned_layer() {
    let mut server = Server::<Doors>::new(ServerConfig::new(8, 8)).unwrap();
    let mut hello = [0; 64];
    let n = Client::<Doors>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Doors>::connect(&welcome[..n], 8).unwrap();
    let mut rng = Rng(77);
    let (mut down, mut up) = (Wire::default(), Wire::default());
    let (mut sent, mut applied, mut queued_at) = (0u32, 0u32, Vec::new());
    let mut buf = [0u8; 1200];
    for now in 0..700u32 {
        let frame = server.begin_frame();
        server.set(1, &Door { angle: (now % 91) as u8 }).unwrap();
        server.set_visible(id, 1, true).unwrap();
        if now < 500 && now % 2 == 0 {
            assert_eq!(server.send_record(id, &bytes(sent)), Ok(sent));
            queued_at.push(frame);
            sent += 1;
        }
        let n = server.encode(id, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..n]);
        for packet in down.receive(now) {
            let Ok(f) = client.decode(&packet) else { continue };
            for r in client.records() {
                assert_eq!(r.number, applied, "in order, once");
                assert_eq!(r.bytes, bytes(applied));
                assert!(queued_at[applied as usize] <= r.frame && r.frame <= f);
                applied += 1;
            }
            let mut ack = [0u8; netschema::Ack::MAX_LEN];
            let len = client.ack().unwrap().write(&mut ack).unwrap();
            up.send(&mut rng, now, &ack[..len]);
        }
        for ack in up.receive(now) {
            server.receive_ack(id, &netschema::Ack::read(&ack).unwrap()).unwrap();
        }
    }
    assert_eq!((applied, sent), (250, 250));
    assert_eq!(server.unacked_records(id), Ok((0, 0)));
    let stats = server.record_stats(id).unwrap();
    assert_eq!(stats.delivered, 250);
    println!("{:.2} sends per record", stats.sent as f64 / f64::from(sent));
}
