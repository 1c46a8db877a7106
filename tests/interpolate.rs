//! Client interpolation over real server → client sessions: values at frame times are the
//! decoded ones, values between follow the documented blend per kind (across lost frames
//! too), angles and rotations take the short way, the newest values hold without
//! extrapolation, and a new entity at a reused handle is never blended with the old one.

use std::collections::{BTreeSet, HashMap, VecDeque};

use netschema::owned::{Client, ClientId, Interpolator, RESYNC, Server, ServerConfig};
use netschema::{Snapshot, SnapshotEnum};

#[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
enum Mode {
    Cruise,
    Dock,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(vec2(fixed(-512, 512, res = 1 / 64)))]
    pos: [f32; 2],
    #[netschema(angle(bits = 10))]
    heading: f32,
    #[netschema(quat(bits = 12))]
    rot: [f32; 4],
    #[netschema(int(0, 1000))]
    hp: u16,
    boosting: bool,
    mode: Mode,
}

#[derive(Clone, Copy, Debug, PartialEq, netschema::Protocol)]
#[netschema(name = "space")]
enum Space {
    Ship(Ship),
}

#[test]
fn derived_fields_blend_by_their_kind() {
    use netschema::blend::Blend::{self, *};
    let fields = Ship::CLASS.fields;
    let blends: Vec<Blend> = (0..fields.len()).map(|i| Blend::of(fields, i)).collect();
    let quat = netschema::quant::QuatQuant::new(12).unwrap();
    // pos.x, pos.y, heading, rot (index and three components), hp, boosting, mode.
    assert_eq!(blends, [Linear, Linear, Arc, Quat(quat), Part, Part, Part, Step, Step, Step]);
}

/// Raw steps of `pos` per metre, of `heading` per turn.
const POS_STEPS: f32 = 64.0;
const TURN: i32 = 1024;

/// The state of a ship in raw steps and whole values: what the test reasons about.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Raw {
    x: i32,
    y: i32,
    heading: i32,
    /// Rotation about z, radians.
    spin: f64,
    hp: u16,
    boosting: bool,
}

impl Raw {
    fn ship(self) -> Ship {
        let (s, c) = ((self.spin / 2.0).sin() as f32, (self.spin / 2.0).cos() as f32);
        Ship {
            pos: [self.x as f32 / POS_STEPS - 512.0, self.y as f32 / POS_STEPS - 512.0],
            heading: (self.heading.rem_euclid(TURN) as f64 * std::f64::consts::TAU / 1024.0) as f32,
            rot: [0.0, 0.0, s, c],
            hp: self.hp,
            boosting: self.boosting,
            mode: if self.hp > 500 { Mode::Cruise } else { Mode::Dock },
        }
    }
}

/// The raw values of a ship, as the wire has them.
fn raw(ship: &Ship) -> Vec<i32> {
    let mut raw = vec![0; Ship::CLASS.fields.len()];
    ship.quantise(&mut raw);
    raw
}

/// What the client decodes for `ship`.
fn decoded(ship: &Ship) -> Ship {
    Ship::dequantise(&raw(ship))
}

/// `a + ⌊(b − a)·t / 65536 + ½⌋`: the documented linear blend on raw values.
fn lerp(a: i32, b: i32, t: i64) -> i32 {
    a + ((i64::from(b - a) * t + 32_768) >> 16) as i32
}

/// The documented weight of render time `r` between source frames `a < b`, in 1/65536.
fn weight(a: u32, b: u32, (frame, past): (u32, f64)) -> i64 {
    let r = i64::from(frame - a) * 65_536 + (past * 65_536.0) as i64;
    r / i64::from(b - a)
}

/// One server, one client and its interpolator; packets arrive at once unless dropped, acks
/// return at once.
struct Session {
    server: Server<Space>,
    id: ClientId,
    client: Client<Space>,
    interp: Interpolator<Space>,
}

impl Session {
    fn new(delay: u32) -> Session {
        let mut server = Server::<Space>::new(ServerConfig::new(64, 64)).unwrap();
        let mut msg = [0; 64];
        let n = Client::<Space>::hello(&mut msg).unwrap();
        let id = server.connect(&msg[..n]).unwrap();
        // Frames far from 0, so that the test's frame arithmetic never wraps.
        for _ in 0..100 {
            server.begin_frame();
        }
        let n = server.welcome(&mut msg).unwrap();
        let client = Client::<Space>::connect(&msg[..n], 64).unwrap();
        let interp = Interpolator::new(client.handles(), delay);
        Session { server, id, client, interp }
    }

    /// A frame with `ships` (by id); the client receives it if `deliver`. Returns the frame.
    fn tick(&mut self, ships: &[(u64, Raw)], deliver: bool) -> u32 {
        let frame = self.server.begin_frame();
        for &(id, ship) in ships {
            self.server.set(id, &ship.ship()).unwrap();
            self.server.set_visible(self.id, id, true).unwrap();
        }
        let mut buf = [0; 1200];
        let n = self.server.encode(self.id, &mut buf).unwrap();
        if deliver {
            assert_eq!(self.client.decode(&buf[..n]), Ok(frame));
            self.interp.record(&self.client);
            let ack = self.client.ack().unwrap();
            self.server.receive_ack(self.id, &ack).unwrap();
        }
        frame
    }

    /// The only ship's handle.
    fn handle(&self) -> u32 {
        let handles: Vec<u32> = self.client.iter::<Ship>().map(|(h, _)| h).collect();
        assert_eq!(handles.len(), 1);
        handles[0]
    }
}

/// A ship at frame `f` of a path that speeds up, turns across heading 0, spins about z across
/// 180° and loses hit points.
fn path(f: u32) -> Raw {
    let f = f as i32;
    Raw {
        x: 30_000 + f * f * 3,
        y: 40_000 - f * 7,
        heading: 1000 + f * 9,
        spin: 2.6 + 0.09 * f64::from(f),
        hp: 600 - 10 * f as u16,
        boosting: f % 3 == 0,
    }
}

/// Plays `frames` frames of `path`, dropping those in `lost`, and checks the interpolator at
/// every quarter frame: the decoded values at frame times, the documented blend between (ints,
/// bools and enums stepping), and the newest sample held after it.
fn check_path(delay: u32, frames: u32, lost: &[u32]) -> usize {
    let mut s = Session::new(delay);
    // Source frame → the raw values the client decoded.
    let mut samples: Vec<(u32, Raw, Ship)> = Vec::new();
    let mut checked = 0;
    let mut start = None;
    for i in 0..frames {
        let truth = path(i);
        let deliver = !lost.contains(&i);
        let frame = s.tick(&[(1, truth)], deliver);
        let first = *start.get_or_insert(frame);
        if deliver {
            let h = s.handle();
            assert_eq!(s.client.age(h), Some(0));
            samples.push((frame, truth, s.client.get::<Ship>(h).unwrap()));
        }
        for _ in 0..4 {
            let Some(time) = s.interp.time() else { continue };
            let got = s.interp.get::<Ship>(s.handle()).unwrap();
            let want = expected(&samples, time);
            assert_eq!(got, want, "frame {} time {time:?}", frame - first);
            checked += 1;
            s.interp.advance(0.25);
        }
    }
    checked
}

/// What the documentation says the interpolator shows at render time `time`, given the samples
/// received (source frame, values, what the client decoded).
fn expected(samples: &[(u32, Raw, Ship)], time: (u32, f64)) -> Ship {
    let at = samples.iter().rposition(|s| s.0 <= time.0);
    let (a, b) = match at {
        Some(k) if k + 1 < samples.len() => (samples[k], samples[k + 1]),
        Some(k) => return samples[k].2,
        None => return samples[0].2,
    };
    let t = weight(a.0, b.0, time);
    if t == 0 {
        return a.2;
    }
    let (ra, rb) = (raw(&a.1.ship()), raw(&b.1.ship()));
    // pos.x, pos.y linear; heading the short way; rot checked apart; the rest from `a`.
    let mut row = ra.clone();
    row[0] = lerp(ra[0], rb[0], t);
    row[1] = lerp(ra[1], rb[1], t);
    let d = (rb[2] - ra[2] + TURN / 2).rem_euclid(TURN) - TURN / 2;
    row[2] = (ra[2] + ((i64::from(d) * t + 32_768) >> 16) as i32).rem_euclid(TURN);
    let nlerp = nlerp(&a.2.rot, &b.2.rot, t);
    let mut ship = Ship::dequantise(&row);
    // The rotation: normalised lerp of the decoded rotations, the short way, on the grid.
    let rot = decoded(&Ship { rot: nlerp, ..ship }).rot;
    ship.rot = rot;
    ship
}

fn dot(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    (0..4).map(|k| a[k] * b[k]).sum()
}

/// The normalised lerp `t / 65536` of the way from `a` to `b` or `−b`, whichever is nearer.
fn nlerp(a: &[f32; 4], b: &[f32; 4], t: i64) -> [f32; 4] {
    let sign = if dot(a, b) < 0.0 { -1.0 } else { 1.0 };
    let w = t as f64 / 65_536.0;
    let q: [f64; 4] =
        std::array::from_fn(|k| f64::from(a[k]) + (sign * f64::from(b[k]) - f64::from(a[k])) * w);
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| (c / n) as f32)
}

#[test]
fn exact_at_frames_and_the_blend_between() {
    for delay in [0, 1, 2, 4] {
        assert!(check_path(delay, 40, &[]) >= 150);
    }
}

#[test]
fn lost_frames_are_bridged() {
    // Single losses and a run of three: the gaps are blended over, at the documented weight.
    assert!(check_path(3, 40, &[5, 11, 12, 13, 20, 27]) >= 150);
}

#[test]
fn the_short_way_across_wraps_and_sign_flips() {
    // Heading 1020 → 4 steps (across 0) and 505 → 519 (across ±π); rotation 260° → 280° about
    // z, whose smallest-three forms have opposite signs (the largest component moves from z to
    // w, and at 280° w is stored negated).
    let a = Raw { x: 0, y: 0, heading: 1020, spin: 260f64.to_radians(), hp: 1, boosting: false };
    let b = Raw { heading: 4, spin: 280f64.to_radians(), ..a };
    let (c, d) = (Raw { heading: 505, ..a }, Raw { heading: 519, ..b });
    let (qa, qb) = (decoded(&a.ship()).rot, decoded(&b.ship()).rot);
    assert!(dot(&qa, &qb) < -0.9, "{qa:?} {qb:?}");
    for (from, to, mid) in [(a, b, 0), (c, d, 512)] {
        let mut s = Session::new(1);
        s.tick(&[(1, from)], true);
        s.tick(&[(1, to)], true);
        // From 2 frames behind `to` to half a frame.
        s.interp.advance(1.5);
        let ship = s.interp.get::<Ship>(s.handle()).unwrap();
        assert_eq!(ship.heading, decoded(&Raw { heading: mid, ..from }.ship()).heading);
        // Half way between 260° and 280° is 270°, not 90°.
        let half = Raw { spin: 270f64.to_radians(), ..from }.ship().rot;
        assert!(dot(&ship.rot, &half).abs() > 1.0 - 1e-5, "{:?}", ship.rot);
    }
}

#[test]
fn holds_the_newest_and_never_extrapolates() {
    let mut s = Session::new(2);
    let mut newest = None;
    for i in 0..10 {
        s.interp.advance(1.0);
        newest = Some((s.tick(&[(1, path(i))], true), path(i)));
    }
    let (frame, last) = newest.unwrap();
    assert_eq!(s.interp.time(), Some((frame - 2, 0.0)));
    // Packets stop; the game keeps rendering.
    for i in 10..40 {
        s.tick(&[(1, path(i))], false);
        s.interp.advance(1.0);
        let (at, past) = s.interp.time().unwrap();
        assert!(at < frame || (at == frame && past == 0.0), "{at} {past} past {frame}");
        if at == frame {
            assert_eq!(s.interp.get::<Ship>(s.handle()), Some(decoded(&last.ship())));
        }
    }
    assert_eq!(s.interp.time(), Some((frame, 0.0)));
    // Packets resume far ahead: the clock jumps to its place instead of crawling there.
    let later = s.tick(&[(1, path(40))], true);
    assert!(later - frame > 2 + RESYNC);
    let time = (later - 2, 0.0);
    assert_eq!(s.interp.time(), Some(time));
    // The ship is blended across the stall, from its newest sample before to the one after.
    let samples =
        [(frame, last, decoded(&last.ship())), (later, path(40), decoded(&path(40).ship()))];
    assert_eq!(s.interp.get::<Ship>(s.handle()), Some(expected(&samples, time)));
}

/// How far the render time is behind the newest frame the client decoded, in frames.
fn lag(s: &Session) -> f64 {
    let (at, past) = s.interp.time().unwrap();
    f64::from(s.client.frame().unwrap() - at) - past
}

#[test]
fn the_clock_runs_a_delay_behind_and_settles() {
    let mut s = Session::new(3);
    s.tick(&[(1, path(0))], true);
    assert_eq!(lag(&s), 3.0);
    s.interp.advance(0.25);
    assert_eq!(lag(&s), 2.75);
    // Rendering at twice the tick rate, each packet in time: exact steps of half a frame.
    for i in 1..8 {
        s.tick(&[(1, path(i))], true);
        assert_eq!(lag(&s), 3.75);
        s.interp.advance(0.5);
        assert_eq!(lag(&s), 3.25);
        s.interp.advance(0.5);
    }
    // Four packets lost: once more than a frame ahead of its place (3 behind), the clock slows
    // by an eighth, then stops at the newest frame.
    let mut lags = Vec::new();
    for i in 8..12 {
        s.tick(&[(1, path(i))], false);
        s.interp.advance(1.0);
        lags.push(lag(&s));
    }
    assert_eq!(lags, [1.75, 0.875, 0.0, 0.0]);
    // Packets resume: more than a frame behind its place, the clock runs an eighth fast until
    // it is back within a frame of it.
    let mut lags = Vec::new();
    for i in 12..22 {
        s.tick(&[(1, path(i))], true);
        s.interp.advance(1.0);
        lags.push(lag(&s));
    }
    assert_eq!(lags, [3.875, 3.75, 3.625, 3.5, 3.375, 3.25, 3.125, 3.0, 3.0, 3.0]);
    // Negative, NaN and infinite frame times change nothing.
    for dt in [-1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        s.interp.advance(dt);
        assert_eq!(lag(&s), 3.0);
    }
}

#[test]
fn a_new_entity_at_a_reused_handle_is_not_blended() {
    let mut s = Session::new(2);
    // A second interpolator that misses the frames between the two entities (a game that
    // skipped recording them): it must tell them apart all the same.
    let mut sparse = Interpolator::<Space>::new(s.client.handles(), 2);
    let old = Raw { x: 1000, y: 1000, heading: 0, spin: 0.0, hp: 900, boosting: false };
    let new = Raw { x: 60_000, y: 60_000, heading: 500, spin: 2.0, hp: 100, boosting: true };
    for _ in 0..5 {
        s.tick(&[(1, old)], true);
        sparse.record(&s.client);
        s.interp.advance(1.0);
        sparse.advance(1.0);
    }
    let h = s.handle();
    // Entity 1 leaves; once the client has seen it go, entity 2 takes its handle.
    s.server.remove(1);
    s.tick(&[], true);
    assert_eq!(s.interp.get::<Ship>(h), None, "gone at once");
    s.tick(&[(2, new)], true);
    sparse.record(&s.client);
    assert_eq!(s.handle(), h, "the new entity reuses the handle");
    // The render time is before the new entity's first sample: both show that sample, never a
    // blend with the old entity.
    assert!(s.interp.time().unwrap().0 < s.client.frame().unwrap());
    for _ in 0..12 {
        assert_eq!(s.interp.get::<Ship>(h), Some(decoded(&new.ship())));
        assert_eq!(sparse.get::<Ship>(h), Some(decoded(&new.ship())));
        s.interp.advance(0.25);
        sparse.advance(0.25);
    }
    assert_eq!(s.interp.iter::<Ship>().count(), 1);
    assert!(matches!(s.interp.entity(h), Some(Space::Ship(_))));
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(group(name = "slow", every = 4))]
struct Probe {
    #[netschema(fixed(0, 1000, res = 1 / 16))]
    pos: f32,
    #[netschema(fixed(0, 1000, res = 1 / 16), group = "slow")]
    fuel: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, netschema::Protocol)]
#[netschema(name = "probes")]
enum Probes {
    Probe(Probe),
}

#[test]
fn slower_update_groups_blend_on_the_default_groups_timeline() {
    // The fuel is sent every 4 frames: the client's values of the probe are up to 3 frames old
    // (its age), yet there is a sample every frame, keyed by the position's frame, and the fuel
    // changes over the one frame before the sample that brings it.
    let mut server = Server::<Probes>::new(ServerConfig::new(4, 4)).unwrap();
    let mut msg = [0; 64];
    let n = Client::<Probes>::hello(&mut msg).unwrap();
    let id = server.connect(&msg[..n]).unwrap();
    let n = server.welcome(&mut msg).unwrap();
    let mut client = Client::<Probes>::connect(&msg[..n], 4).unwrap();
    let mut interp = Interpolator::<Probes>::new(client.handles(), 1);
    let mut decoded: Vec<Probe> = Vec::new();
    let mut aged = 0;
    for f in 0..40u16 {
        server.begin_frame();
        let probe = Probe { pos: 100.0 + f32::from(f) * 0.5, fuel: 900.0 - f32::from(f) * 2.0 };
        server.set(1, &probe).unwrap();
        server.set_visible(id, 1, true).unwrap();
        let mut buf = [0; 1200];
        let n = server.encode(id, &mut buf).unwrap();
        client.decode(&buf[..n]).unwrap();
        interp.record(&client);
        server.receive_ack(id, &client.ack().unwrap()).unwrap();
        aged += usize::from(client.age(0) != Some(0));
        decoded.push(client.get::<Probe>(0).unwrap());
        for quarter in 0..4 {
            // One frame behind the newest, plus the quarters this frame has advanced.
            let got = interp.get::<Probe>(0).unwrap();
            if f >= 1 {
                let (a, b) = (decoded[usize::from(f) - 1], decoded[usize::from(f)]);
                let blend = |x: f32, y: f32| {
                    let (x, y) = ((x * 16.0) as i32, (y * 16.0) as i32);
                    lerp(x, y, 16_384 * quarter) as f32 / 16.0
                };
                assert_eq!(got.pos, blend(a.pos, b.pos), "frame {f} quarter {quarter}");
                assert_eq!(got.fuel, blend(a.fuel, b.fuel), "frame {f} quarter {quarter}");
            }
            interp.advance(0.25);
        }
    }
    assert!(aged > 20, "the fuel made the probe's values older than its packets");
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

/// What [`lossy_session`] counted: render times checked between two samples, of those across
/// lost or held frames, render times at an entity's newest sample, and decoded entities whose
/// values a byte budget held (shown older than their packet).
#[derive(Debug)]
struct Counts {
    between: usize,
    across_gaps: usize,
    at_newest: usize,
    budget_held: usize,
}

/// Plays 600 frames of `ships` ships over a lossy link in packets of at most `budget` bytes,
/// rendering at twice the tick rate, and checks every ship at every render time.
///
/// Ships move and turn by whole steps per frame, so the truth at any render time is the blend
/// of any two samples around it: the interpolator must show it (to within a step of rounding)
/// however many frames were lost or held between them. A link of 2 to 4 frames' latency, so
/// packets overtake each other, loses 20 % of packets and of acks, and goes down for 20 frames
/// in the middle. A ship's hit points name it.
fn lossy_session(ships: i32, budget: usize) -> Counts {
    let mut s = Session::new(3);
    let mut rng = Rng(7);
    let truth = |k: i32, f: f64| {
        let x = 2000.0 + f64::from(k * 1000) + f * f64::from(k % 9 - 4);
        let heading = f64::from(k * 170) + f * f64::from(k * 13 - 40);
        (x, 30_000.0 - f * f64::from(k % 5 + 1), heading)
    };
    let ship = |k: i32, f: u32| {
        let (x, y, heading) = truth(k, f64::from(f));
        let (x, y, heading) = (x as i32, y as i32, heading as i32);
        Raw { x, y, heading, spin: 0.0, hp: k as u16, boosting: false }
    };
    let mut down: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut up: VecDeque<(u32, netschema::Ack)> = VecDeque::new();
    // Per handle, the source frames of the values the client decoded.
    let mut sources: HashMap<u32, BTreeSet<u32>> = HashMap::new();
    let mut start = None;
    let mut n = Counts { between: 0, across_gaps: 0, at_newest: 0, budget_held: 0 };
    for tick in 0..600u32 {
        let frame = s.server.begin_frame();
        let start = *start.get_or_insert(frame);
        for k in 1..=ships {
            s.server.set(k as u64, &ship(k, frame - start).ship()).unwrap();
            s.server.set_visible(s.id, k as u64, true).unwrap();
        }
        let mut buf = vec![0; budget];
        let len = s.server.encode(s.id, &mut buf).unwrap();
        if !rng.next().is_multiple_of(5) && !(300..320).contains(&tick) {
            down.push((tick + 2 + (rng.next() % 3) as u32, buf[..len].to_vec()));
        }
        for (_, packet) in down.extract_if(.., |(at, _)| *at <= tick) {
            if let Ok(frame) = s.client.decode(&packet) {
                s.interp.record(&s.client);
                for (h, _) in s.client.iter::<Ship>() {
                    let age = s.client.age(h).unwrap();
                    n.budget_held += usize::from(age > 0);
                    sources.entry(h).or_default().insert(frame - age - start);
                }
                if !rng.next().is_multiple_of(5) {
                    up.push_back((tick + 2, s.client.ack().unwrap()));
                }
            }
        }
        while up.front().is_some_and(|(at, _)| *at <= tick) {
            let (_, ack) = up.pop_front().unwrap();
            s.server.receive_ack(s.id, &ack).unwrap();
        }
        for _ in 0..2 {
            s.interp.advance(0.5);
            let Some((at, past)) = s.interp.time() else { continue };
            let r = f64::from(at.wrapping_sub(start) as i32) + past;
            for (h, got) in s.interp.iter::<Ship>() {
                let sources = &sources[&h];
                let (first, newest) = (sources.first().unwrap(), sources.last().unwrap());
                if r < f64::from(*first) {
                    continue; // Before the first sample: the tests above cover it.
                }
                let k = i32::from(got.hp);
                if f64::from(*newest) <= r {
                    // At or past the newest sample it holds (even where the client's own view
                    // steps back to values it held longer than the frames it keeps).
                    assert_eq!(got, decoded(&ship(k, *newest).ship()), "holds the newest");
                    n.at_newest += 1;
                    continue;
                }
                let a = *sources.range(..=r.floor() as u32).next_back().unwrap();
                let b = *sources.range(r.floor() as u32 + 1..).next().unwrap();
                let (raw, (x, y, heading)) = (raw(&got), truth(k, r));
                assert!((f64::from(raw[0]) - x).abs() <= 1.0, "x {} vs {x} at {r}", raw[0]);
                assert!((f64::from(raw[1]) - y).abs() <= 1.0, "y {} vs {y} at {r}", raw[1]);
                // The short way is the true way while the ship turns less than half a turn
                // between the samples.
                if ((b - a) as i32 * (k * 13 - 40)).abs() < TURN / 2 {
                    let turn = f64::from(TURN);
                    let off = (f64::from(raw[2]) - heading).rem_euclid(turn);
                    assert!(off.min(turn - off) <= 1.0, "heading {} vs {heading} at {r}", raw[2]);
                }
                n.between += 1;
                n.across_gaps += usize::from(b - a > 1);
            }
        }
    }
    println!("{ships} ships in {budget} B: {n:?}");
    n
}

#[test]
fn a_lossy_link_shows_the_truth_at_the_render_time() {
    let n = lossy_session(6, 1200);
    assert!(n.between > 5000 && n.across_gaps > 1000 && n.at_newest > 100, "{n:?}");
    assert_eq!(n.budget_held, 0);
}

#[test]
fn entities_a_byte_budget_holds_are_blended_at_their_source_frames() {
    // Forty ships in packets of 80 bytes: most wait several frames at a time, and the client
    // shows values older than the packet. Blending at the frames the values come from, not at
    // the packets' frames, still shows the truth at the render time.
    let n = lossy_session(40, 80);
    assert!(n.between > 20_000 && n.across_gaps > 10_000 && n.budget_held > 1500, "{n:?}");
}

#[test]
fn recording_advancing_and_reading_allocate_nothing() {
    let mut s = Session::new(2);
    for i in 0..30 {
        let ships: Vec<(u64, Raw)> = (1..=20).map(|k| (k, path(i + k as u32))).collect();
        let frame = s.server.begin_frame();
        for &(id, ship) in &ships {
            s.server.set(id, &ship.ship()).unwrap();
            s.server.set_visible(s.id, id, true).unwrap();
        }
        let mut buf = [0; 1200];
        let n = s.server.encode(s.id, &mut buf).unwrap();
        let deliver = i % 4 != 1;
        if deliver {
            assert_eq!(s.client.decode(&buf[..n]), Ok(frame));
        }
        let counted = allocation_counter::measure(|| {
            if deliver {
                s.interp.record(&s.client);
            }
            for _ in 0..3 {
                s.interp.advance(0.34);
                let n = s.interp.iter::<Ship>().count();
                assert!(s.interp.get::<Ship>(0).is_some() && s.interp.entity(0).is_some() && n > 0);
            }
        });
        assert_eq!(counted.count_total, 0, "frame {i}");
        if deliver {
            s.server.receive_ack(s.id, &s.client.ack().unwrap()).unwrap();
        }
    }
}

#[test]
fn an_interpolator_can_be_shared_across_threads() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Interpolator<Space>>();
}
