//! Writes the committed seed corpora of `client_decode`, `residual_decode`, `trace_read`,
//! `idl_parse` and `timeline` into `seeds/`, and the `session` target's sessions that queue
//! records (its other seeds come from fuzzing it). Run from `fuzz/`: `cargo run --example
//! seeds`. Deterministic: the same files every run.

use std::fs;
use std::path::Path;

use netschema_fuzz::{CLIENT_HANDLES, CLIENT_SCHEMA};
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};

/// Entities of the client sessions: more than the handles, so some wait.
const ENTITIES: usize = 24;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The datagrams a client of `CLIENT_SCHEMA` accepts over `frames` frames of a moving world,
/// each at most 255 bytes (one length byte in `client_decode`'s input), a few lost on the
/// way: cold packets, then warm ones with baselines, history, held entities and records.
fn session(seed: u64, frames: u32, lose_one_in: u64) -> Vec<Vec<u8>> {
    let schema = &CLIENT_SCHEMA;
    let mut rng = Rng(seed);
    let mut wb = WorldBuffers::new(schema, ENTITIES);
    let mut world = wb.world(schema, ENTITIES).unwrap();
    let mut pb = PeerBuffers::new(schema, CLIENT_HANDLES, ENTITIES);
    let mut peer = pb.peer(schema, CLIENT_HANDLES, ENTITIES).unwrap();
    let mut cb = ClientBuffers::new(schema, CLIENT_HANDLES);
    let mut client = cb.client(schema, CLIENT_HANDLES).unwrap();
    let mut rows = [[0i32; 4]; ENTITIES];
    let mut packets = Vec::new();
    let mut buf = [0u8; 255];
    for step in 0..frames {
        world.begin_frame();
        for (id, row) in rows.iter_mut().enumerate() {
            if step == 0 {
                *row = [rng.below(60_000) as i32, rng.below(1024) as i32, 0, 0];
                peer.set_visible(id, rng.below(4) != 0).unwrap();
            }
            row[0] = (row[0] + id as i32 * 3) % 65_536;
            row[1] = (row[1] + 7) % 1024;
            row[2] = (step as i32 / 8 + id as i32) % 5;
            row[3] = (step as i32 / 5) & 1;
            if id % 6 == 5 {
                let hp = i32::MAX - rng.below(1000) as i32 * (id as i32);
                world.set(id, 1, &[hp]).unwrap();
            } else {
                world.set(id, 0, row).unwrap();
            }
        }
        // Each box names the ball after it, or none now and then: links change and follow
        // their targets in and out of view.
        for id in (5..ENTITIES).step_by(6) {
            let ball = ((id + 1) % ENTITIES, (id + 7) % ENTITIES);
            let target = match (step / 9 + id as u32) % 3 {
                0 => None,
                1 => Some(ball.0),
                _ => Some(ball.1),
            };
            world.set_link(id, 0, target.filter(|&b| b % 6 != 5)).unwrap();
        }
        if step % 2 == 0 {
            let record: Vec<u8> = (0..step % 9 * 2).map(|k| (step * 5 + k) as u8).collect();
            // Refused while acks lag: the queue is full.
            let _ = peer.queue_record(&record);
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        if rng.below(lose_one_in) == 0 {
            continue;
        }
        if client.decode(&buf[..len]).is_ok() {
            packets.push(buf[..len].to_vec());
            peer.receive_ack(&client.ack().unwrap());
        }
    }
    packets
}

/// Traces of `TRACE_SCHEMA`: frames in format 1 and 2, entities entering, changing, leaving
/// and changing class, empty frames, clients.
fn traces() -> Vec<String> {
    let unit = |id: u32, x: f64, hp: u32, state: &str| {
        format!(
            r#"{{"id": {id}, "class": "Unit", "fields": {{"pos": [{x}, 12.5], "heading": 1.5, "hp": {hp}, "state": "{state}", "alive": true, "orientation": [0, 0, 0, 1], "path": [[1, -2, 3], [0, 0, 10]]}}}}"#
        )
    };
    let tree = r#"{"id": 9, "class": "Tree", "fields": {"height": 7.25}}"#;
    vec![
        format!(
            "{{\"netschema_trace\": 1, \"schema\": \"fuzz\"}}\n\
             {{\"frame\": 0, \"entities\": [{}, {tree}]}}\n\
             {{\"frame\": 1, \"entities\": [{{\"id\": 1, \"class\": \"Unit\", \"fields\": {{\"hp\": 150}}}}, {tree}]}}\n",
            unit(1, 3.0, 200, "idle")
        ),
        format!(
            "{{\"netschema_trace\": 2, \"schema\": \"fuzz\", \"rate_hz\": 60}}\n\
             {{\"tick\": 0, \"entities\": [{}, {}], \"clients\": {{\"0\": [1, 2], \"1\": [2]}}}}\n\
             {{\"tick\": 1, \"entities\": []}}\n\
             {{\"tick\": 40, \"entities\": [{}]}}\n",
            unit(1, 0.0, 10, "moving"),
            unit(2, 255.5, 0, "attacking"),
            unit(2, 1.0 / 32.0, 99, "idle")
        ),
        format!(
            "{{\"netschema_trace\": 2, \"schema\": \"fuzz\"}}\n\
             {{\"time\": 0.0, \"entities\": [{}]}}\n\
             {{\"time\": 0.25, \"entities\": [{{\"id\": 1, \"class\": \"Tree\", \"fields\": {{\"height\": 20}}}}]}}\n",
            unit(1, 128.0, 100, "idle")
        ),
    ]
}

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new("seeds").join(target);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(name), bytes).unwrap();
}

fn main() {
    for (i, (seed, frames, lose_one_in)) in
        [(1, 12, 1000), (2, 40, 5), (3, 70, 3), (4, 24, 2)].into_iter().enumerate()
    {
        let packets = session(seed, frames, lose_one_in);
        let mut input = Vec::new();
        for p in &packets {
            input.push(p.len() as u8);
            input.extend_from_slice(p);
        }
        write("client_decode", &format!("session-{i}"), &input);
        for (j, p) in packets.iter().step_by(packets.len().div_ceil(3).max(1)).enumerate() {
            write("residual_decode", &format!("packet-{i}-{j}"), p);
        }
    }
    for (i, steps) in [20u8, 60].into_iter().enumerate() {
        write("session", &format!("records-{i}"), &session_with_records(steps, i as u8));
    }
    for (i, text) in traces().iter().enumerate() {
        write("trace_read", &format!("trace-{i}.jsonl"), text.as_bytes());
    }
    for dir in ["../bench/schemas", "../examples/schema-build/schema", "../tests/schemas"] {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "netidl") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                write("idl_parse", &name, &fs::read(&path).unwrap());
            }
        }
    }
    for (mode, name) in [(0u8, "step"), (1, "linear"), (2, "cubic")] {
        write("timeline", &format!("walk-{name}"), &timeline_walk(mode, 3 + u64::from(mode)));
    }
}

/// The `session` target's input for `steps` frames of moving, visible units in which packets
/// and acks are delivered (but for one frame in five if `lossy` is not 0) and up to three
/// records are queued each frame (see `fuzz_targets/session.rs` for the bytes' meaning).
fn session_with_records(steps: u8, lossy: u8) -> Vec<u8> {
    let mut out = vec![0x40];
    for step in 0..steps {
        out.extend((0..ENTITIES as u8).map(|id| 2 + (id + step) % 5 * 8));
        let records = step % 4;
        if lossy > 0 && step % 5 == 4 {
            // The packet stays in flight, and no ack is taken.
            out.extend([1 | records << 2, 1]);
        } else {
            // The oldest packet in flight is delivered, and the oldest ack.
            out.extend([records << 2, 0, 0, 0]);
        }
    }
    out
}

/// Timeline commands (see `fuzz_targets/timeline.rs`) of a walk planned ahead: keyframes
/// added, some moved or removed, the timeline advanced, and its row sent to the client.
fn timeline_walk(mode: u8, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = vec![mode];
    for step in 0..60u8 {
        let op = match step % 6 {
            0 | 2 => 0,
            1 => 5,
            3 => 3,
            4 if rng.below(4) == 0 => [1, 2, 4][rng.below(3) as usize],
            _ => 5,
        };
        out.extend([op, 8 + rng.below(30) as u8, rng.below(40) as u8]);
        out.extend([rng.below(256) as u8, rng.below(256) as u8]);
    }
    out
}
