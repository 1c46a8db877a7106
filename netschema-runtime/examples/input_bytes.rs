//! Input bytes per datagram of a scripted player against the same inputs sent raw.
//!
//! A 60 Hz client turns (a 16-bit yaw, turning at rates that change every half second, with a
//! little mouse noise), strafes (two stick components of `fixed(-1, 1)` at 1/127) and fires
//! in bursts. Each tick it sends a datagram carrying every input the server has not
//! acknowledged, over a link that loses `--loss` percent of datagrams and acks and delays each
//! by `--latency` ticks. The raw encoding sends the same inputs in the same datagrams at their
//! quantised width (8 + 8 + 16 + 1 bits), after a 16-bit first tick and a 5-bit count.
//!
//! ```sh
//! cargo run --release -p netschema-runtime --example input_bytes -- --ticks 3600 --loss 10 --latency 3
//! ```

use netschema_runtime::engine::input::{InputReceiver, InputSender, InputStorage};
use netschema_runtime::model::Model;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Schema};
use std::collections::VecDeque;

const STICK: &[Predictor] = &[Predictor::Hold, Predictor::Linear];
static FIELDS: [Field; 4] = [
    Field::numeric("dir.x", -127, 127, false, STICK),
    Field::numeric("dir.y", -127, 127, false, STICK),
    Field::numeric("yaw", 0, 65_535, true, STICK),
    Field::categorical("fire", 2),
];
static CLASSES: [Class; 1] = [Class::new("Move", &FIELDS)];
static MOVE: Schema = Schema::new("Move", &CLASSES);
/// Bits of one raw input, and of a raw datagram's header.
const RAW_INPUT_BITS: usize = 8 + 8 + 16 + 1;
const RAW_HEADER_BITS: usize = 16 + 5;

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
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n.max(1)) as i64
    }
}

/// The scripted player: its stick, its yaw and its trigger.
struct Player {
    rng: Rng,
    stick: [i32; 2],
    yaw: i64,
    turn: i64,
}

impl Player {
    fn input(&mut self, tick: u32) -> [i32; 4] {
        if tick.is_multiple_of(30) {
            self.turn = [0, 0, 90, -150, 300, -40][self.rng.below(6) as usize];
        }
        if tick.is_multiple_of(45) {
            let dirs = [[0, 127], [127, 0], [-127, 0], [90, 90], [-90, 90], [0, 0]];
            self.stick = dirs[self.rng.below(6) as usize];
        }
        let noise = if self.turn != 0 { self.rng.below(9) - 4 } else { 0 };
        self.yaw = (self.yaw + self.turn + noise).rem_euclid(65_536);
        let fire = i32::from(tick % 90 < 12);
        [self.stick[0], self.stick[1], self.yaw as i32, fire]
    }
}

fn arg(name: &str, default: u32) -> u32 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(default)
}

fn storage() -> InputStorage<'static> {
    let (models, words) = InputStorage::sizes(&MOVE);
    InputStorage {
        models: Vec::leak(vec![Model::default(); models]),
        stored: Vec::leak(vec![0u16; words]),
    }
}

fn main() {
    let (ticks, loss, latency) = (arg("--ticks", 3600), arg("--loss", 10), arg("--latency", 3));
    let mut sender = InputSender::new(&MOVE, storage()).expect("an input schema");
    let mut receiver = InputReceiver::new(&MOVE, storage()).expect("an input schema");
    let mut player = Player { rng: Rng(7), stick: [0, 0], yaw: 0, turn: 0 };
    let mut link = Rng(11);
    let lost = |link: &mut Rng| link.below(100) < i64::from(loss);
    let mut buf = [0u8; 1200];
    let (mut datagrams, mut inputs, mut bytes, mut raw_bytes) = (0usize, 0usize, 0usize, 0usize);
    let mut to_server = VecDeque::new();
    let mut to_client = VecDeque::new();
    for tick in 0..ticks {
        sender.push(tick, &player.input(tick)).expect("inputs in range");
        let len = sender.encode(&mut buf).expect("a datagram fits");
        if let Some((first, last)) = sender.last_carried().filter(|_| len > 0) {
            let carried = (last - first + 1) as usize;
            datagrams += 1;
            inputs += carried;
            bytes += len;
            raw_bytes += (RAW_HEADER_BITS + carried * RAW_INPUT_BITS).div_ceil(8);
            if !lost(&mut link) {
                to_server.push_back((tick + latency, buf[..len].to_vec()));
            }
        }
        while to_server.front().is_some_and(|(at, _)| *at <= tick) {
            let (_, datagram) = to_server.pop_front().expect("a datagram due");
            receiver.receive(&datagram).expect("honest datagrams decode");
            if let Some(ack) = receiver.ack().filter(|_| !lost(&mut link)) {
                to_client.push_back((tick + latency, ack));
            }
        }
        while to_client.front().is_some_and(|(at, _)| *at <= tick) {
            let (_, ack) = to_client.pop_front().expect("an ack due");
            sender.receive_ack(&ack);
        }
        receiver.take_next();
    }
    let per = |x: usize| x as f64 / datagrams.max(1) as f64;
    println!("{ticks} ticks, {loss} % loss, latency {latency} ticks each way");
    println!("inputs per datagram     {:8.2}", per(inputs));
    println!("netschema bytes/datagram {:7.2}", per(bytes));
    println!("raw bytes/datagram       {:7.2}", per(raw_bytes));
    println!("ratio                    {:7.3}", bytes as f64 / raw_bytes.max(1) as f64);
    let stats = receiver.stats();
    println!("receiver: {:?}", stats.buffer);
    println!("playout: {:?}", stats.playout);
}
