//! Timeline fields from a `.netidl` schema (`tests/schemas/timeline.netidl`, generated into
//! `tests/generated/timeline.rs`): their slots in the class table and the schema hash, the
//! generated empty timelines, and values through capture and decode.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test timeline_idl` regenerates the checked-in file.

mod golden;

use netschema::Snapshot;
use netschema::timeline::{Interp, Seconds, Time};

/// The code generated from `tests/schemas/timeline.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/timeline.rs");
}

use idl::Unit;

/// The `Walker` class, derived.
#[allow(unreachable_pub)]
mod derived {
    use netschema::Snapshot;
    use netschema::timeline::Timeline;

    #[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
    pub struct Walker {
        #[netschema(vec2(fixed(0, 256, res = 1 / 16)))]
        #[netschema(timeline(linear, ahead = 4, history = 2, keep = 240))]
        pub pos: Timeline<2, 6>,
        #[netschema(angle(bits = 10), timeline(cubic))]
        pub heading: Timeline<1, 6>,
        #[netschema(quat(bits = 9, exact = []), timeline(linear, ahead = 2, history = 1))]
        pub turret: Timeline<4, 3>,
        #[netschema(bool, timeline(step))]
        pub alive: Timeline<1, 6>,
        #[netschema(int(0, 100), timeline(step, ahead = 2, history = 1, keep = 0))]
        pub progress: Timeline<1, 3>,
    }
}

#[test]
fn checked_in_code_is_up_to_date() {
    golden::assert_generated_is_current("timeline");
}

#[test]
fn slots_are_scalar_fields_and_capacities_constants() {
    let fields = <Unit as Snapshot>::CLASS.fields;
    let paths: Vec<&str> = fields.iter().map(|f| f.name).collect();
    assert_eq!(&paths[..5], ["pos[0].live", "pos[0].t", "pos[0].x", "pos[0].y", "pos[1].live"]);
    assert!(paths.contains(&"turret[2].c2") && paths.contains(&"order[3].t"));
    // pos 6 slots of 4, heading 6 of 3, turret 3 of 6, order 4 of 3, progress 3 of 3, hp.
    assert_eq!(fields.len(), 24 + 18 + 18 + 12 + 9 + 1);
    assert_eq!(Unit::POS_TIMELINE.spec().capacity(), 6);
    assert_eq!(Unit::POS_TIMELINE.spec().keep, 240);
    assert_eq!(Unit::HEADING_TIMELINE.spec().interp, Interp::Cubic);
    assert_eq!(Unit::HEADING_TIMELINE.spec().keep, u32::MAX);
    assert_eq!(Unit::default().pos, Unit::POS_TIMELINE);
}

#[test]
fn the_derive_gives_the_same_class_and_timelines() {
    use derived::Walker;
    assert_eq!(<Walker as Snapshot>::CLASS, <idl::Walker as Snapshot>::CLASS);
    assert_eq!(Walker::POS_TIMELINE, idl::Walker::POS_TIMELINE);
    assert_eq!(Walker::TURRET_TIMELINE, idl::Walker::TURRET_TIMELINE);
}

#[test]
fn timelines_travel_through_capture_and_decode() {
    let mut unit = Unit::default();
    unit.pos.add(10, [160, 320]).unwrap();
    unit.pos.add(30, [480, 320]).unwrap();
    unit.progress.add(5, [40]).unwrap();
    unit.hp = 700;
    let mut raw = vec![0; <Unit as Snapshot>::CLASS.fields.len()];
    unit.quantise(&mut raw);
    let back = Unit::dequantise(&raw);
    assert_eq!(back.pos.keys(), unit.pos.keys());
    assert_eq!(back.progress.keys(), unit.progress.keys());
    assert_eq!(back.hp, 700);
    assert_eq!(back.pos.value_at(Time::frame(20)), Some([320, 320]));
}

/// With the schema's `rate 60;`, keyframes are placed and looked up in seconds; the rate joins
/// the hash.
#[test]
fn times_in_seconds_follow_the_schema_rate() {
    use netschema::Error;
    use netschema::schema::Schema;
    let schema = idl::SCHEMA;
    assert_eq!(schema.rate, Some(60));
    assert_eq!(Schema::new(schema.name, schema.classes).with_rate(60).hash, schema.hash);
    assert_ne!(Schema::new(schema.name, schema.classes).hash, schema.hash);
    assert_ne!(Schema::new(schema.name, schema.classes).with_rate(30).hash, schema.hash);
    let at = |ms| schema.frame_at(Seconds::from_millis(ms));
    assert_eq!(at(2500), Ok(150));
    // 1/120 s is half a frame: halves round up.
    assert_eq!(schema.frame_at(Seconds((1 << 16) / 120 + 1)), Ok(1));
    assert_eq!(at(4), Ok(0));
    assert_eq!(schema.frame_at(Seconds(u64::MAX)), Err(Error::OutOfRange));
    let mut unit = Unit::default();
    unit.pos.add(at(1000).unwrap(), [160, 320]).unwrap();
    unit.pos.add(at(3000).unwrap(), [480, 320]).unwrap();
    let halfway = schema.time_at(Seconds::from_millis(2000)).unwrap();
    assert_eq!(halfway, Time::frame(120));
    assert_eq!(unit.pos.value_at(halfway), Some([320, 320]));
    // Between frames: 2.004 s is frame 120.24.
    let between = schema.time_at(Seconds::from_millis(2004)).unwrap();
    assert!(between > Time::frame(120) && between < Time::frame(121));
    let bare = Schema::new(schema.name, schema.classes);
    assert_eq!(bare.frame_at(Seconds::from_millis(1000)), Err(Error::NoRate));
    assert_eq!(bare.time_at(Seconds::from_millis(1000)), Err(Error::NoRate));
}
