//! The wire is the same on every platform: sessions of four schemas (quaternions that change
//! basis; a predictive contract; short-lived entities entering in bursts; links between
//! entities), with records queued on most frames, over a link that loses and delays packets
//! and acks, hash every packet, ack, decoded row, link and applied record to pinned values.
//! The worlds are integer-only, so the hashes depend on nothing but the codec. CI runs this on
//! the host, on a 32-bit target (`i686-unknown-linux-gnu`) and on a big-endian one under miri
//! (`powerpc64-unknown-linux-gnu`).

mod support;

use netschema_runtime::Ack;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Link, Schema};
use support::{FALLING, SPARKS, SPINNING, ack_bytes, session};

static SHIP: [Field; 2] = [
    Field::numeric("x", 0, 4095, false, &[Predictor::Hold, Predictor::Linear]),
    Field::categorical("on", 2),
];
static SHOT: [Field; 1] = [Field::numeric("d", -500, 500, false, &[Predictor::Hold])];
static SHOT_LINKS: [Link; 2] = [Link::new("from", Some(0)), Link::new("at", None)];
static LINKED_CLASSES: [Class; 2] =
    [Class::new("ship", &SHIP), Class::new("shot", &SHOT).with_links(&SHOT_LINKS)];
/// Ships and shots that name the ship they came from and anything they aim at.
static LINKED: Schema = Schema::new("linked", &LINKED_CLASSES);

/// FNV-1a, 64 bits.
struct Hash(u64);

impl Hash {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Entity `i`'s row of class `class` at frame `t`: each field moves by a rule of its own (still,
/// a line, a parabola, a wrap), inside its range.
fn row(schema: &Schema, class: usize, i: u64, t: u64) -> Vec<i32> {
    let fields = schema.classes[class].fields;
    fields
        .iter()
        .enumerate()
        .map(|(f, field)| {
            let span = field.span();
            let k = i * 7 + f as u64;
            let v = match k % 4 {
                0 => k * 131,
                1 => k * 977 + t * (1 + k % 5),
                2 => k * 57 + t * t * (1 + k % 3) / 4,
                _ => k * 31 + t * 9 + (t / 11) * (span / 3),
            };
            (i64::from(field.min) + (v % span) as i64) as i32
        })
        .collect()
}

/// Runs 40 frames of `entities` entities of every class in turn (some of them leaving and
/// coming back) and returns the hash of what went over the link and what the client decoded.
fn run(schema: &'static Schema, entities: usize) -> u64 {
    let (mut world, mut peer, mut client) = session(schema, entities, entities);
    let classes = schema.classes.len();
    let mut hash = Hash(0xcbf2_9ce4_8422_2325);
    let mut buf = vec![0u8; 8 * 1024];
    let mut acks: Vec<(u64, Ack)> = Vec::new();
    for t in 0..40u64 {
        world.begin_frame();
        for i in 0..entities {
            let class = i % classes;
            // Every fifth entity lives eight frames in twelve.
            let here = i % 5 != 0 || (t + i as u64) % 12 < 8;
            if here {
                world.set(i, class, &row(schema, class, i as u64, t)).unwrap();
            } else {
                world.remove(i);
            }
            peer.set_visible(i, here).unwrap();
        }
        // Links name entities that come and go; one naming an absent entity is refused.
        for i in 0..entities {
            let links = schema.classes[i % classes].links.len();
            for l in 0..links {
                let target = (i + l + t as usize / 6) % (entities + 2);
                let _ = world.set_link(i, l, (target < entities).then_some(target));
            }
        }
        // Records of 0 to 18 bytes on two frames in three.
        if t % 3 != 1 {
            let bytes: Vec<u8> = (0..t % 7 * 3).map(|k| (t * 13 + k) as u8).collect();
            peer.queue_record(&bytes).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        hash.bytes(&buf[..len]);
        // One packet in four is lost; acks arrive two frames late.
        if t % 4 != 3 && client.decode(&buf[..len]).is_ok() {
            for (h, c, r) in client.frame_view() {
                hash.bytes(&u64::from(h).to_le_bytes());
                hash.bytes(&(c as u64).to_le_bytes());
                r.iter().for_each(|v| hash.bytes(&v.to_le_bytes()));
                for l in 0..schema.classes[c].links.len() {
                    hash.bytes(&client.link(h, l).map_or(u32::MAX, |t| t).to_le_bytes());
                }
            }
            for r in client.records() {
                hash.bytes(&r.number.to_le_bytes());
                hash.bytes(&r.frame.to_le_bytes());
                hash.bytes(r.bytes);
            }
            if let Some(ack) = client.ack() {
                hash.bytes(&ack_bytes(ack));
                acks.push((t + 2, ack));
            }
        }
        while acks.first().is_some_and(|&(at, _)| at <= t) {
            peer.receive_ack(&acks.remove(0).1);
        }
    }
    hash.0
}

#[test]
fn the_wire_is_pinned() {
    let got = [run(&SPINNING, 12), run(&FALLING, 12), run(&SPARKS, 16), run(&LINKED, 12)];
    assert_eq!(
        got,
        [
            0xe64e_893a_22e1_25da,
            0x34f2_c966_366a_4a01,
            0xe834_716f_f014_c593,
            0xccd4_af1e_288e_fe42
        ],
        "{got:#018x?}"
    );
}
