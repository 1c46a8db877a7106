//! What the fuzz targets and the seed writer (`examples/seeds.rs`) share: the schemas the
//! targets read against.

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, KeySlot, Link, Schema};

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Cubic];
static BALL: [Field; 4] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("a", 0, 1023, true, &[Predictor::Zero, Predictor::Hold]),
    Field::categorical("mood", 5),
    Field::categorical("lit", 2),
];
static BOX: [Field; 1] = [Field::numeric("hp", i32::MIN, i32::MAX, false, MOVING)];
static BOX_LINKS: [Link; 1] = [Link::new("ball", Some(0))];
static CLASSES: [Class; 2] =
    [Class::new("ball", &BALL), Class::new("box", &BOX).with_links(&BOX_LINKS)];

/// The schema `client_decode` decodes packets of.
pub static CLIENT_SCHEMA: Schema = Schema::new("fuzz", &CLASSES);

/// The handles of `client_decode`'s client.
pub const CLIENT_HANDLES: usize = 16;

/// A keyframe slot's frame or value (`after_flag` fields after the slot's flag) in slot
/// `index` of a timeline of three slots of one value.
const fn keyed(field: Field, after_flag: u8, index: u8) -> Field {
    field.in_slot(KeySlot { after_flag, stride: 3, index, capacity: 3 })
}
const KEY_TIME: Field =
    Field::numeric("t", 0, i32::MAX, false, &[Predictor::Zero, Predictor::Hold]);
const KEY_VALUE: Field = Field::numeric("v", -500, 500, false, &[Predictor::Hold]);
static WAYPOINT: [Field; 10] = [
    Field::numeric("hp", 0, 100, false, &[Predictor::Hold]),
    Field::categorical("path[0].live", 3),
    keyed(KEY_TIME, 1, 0),
    keyed(KEY_VALUE, 2, 0),
    Field::categorical("path[1].live", 3),
    keyed(KEY_TIME, 1, 1),
    keyed(KEY_VALUE, 2, 1),
    Field::categorical("path[2].live", 3),
    keyed(KEY_TIME, 1, 2),
    keyed(KEY_VALUE, 2, 2),
];
static TIMELINE_CLASSES: [Class; 2] = [Class::new("walker", &WAYPOINT), Class::new("ball", &BALL)];

/// A schema with a timeline field, whose keyframes travel as records: `client_decode` feeds
/// its datagrams to a client of it too, so that keyframe records are read from any bytes.
pub static TIMELINE_SCHEMA: Schema = Schema::new("fuzz-keys", &TIMELINE_CLASSES);

/// The schema `trace_read` reads traces against.
pub const TRACE_SCHEMA: &str = "\
enum State { idle, moving, attacking }
class Unit {
    pos: vec2<fixed(0, 256, res = 1/32)>;
    heading: angle(bits = 8);
    hp: int(0, 200);
    state: State;
    alive: bool;
    orientation: quat(bits = 9);
    path: [vec3<int(-10, 10)>; 2];
}
class Tree { height: fixed(0, 20, bits = 12); }
";
