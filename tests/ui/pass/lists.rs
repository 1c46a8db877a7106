//! Lists of every element kind, derived, round-trip through a row.

use netschema::{List, Snapshot, SnapshotEnum, SnapshotStruct};

#[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotEnum)]
enum Item {
    #[default]
    Sword,
    Key,
}

#[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotStruct)]
struct Stack {
    item: Item,
    #[netschema(int(0, 99))]
    count: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
struct Hero {
    #[netschema(int(0, 1000))]
    summons: List<u16, 4>,
    #[netschema(vec2(fixed(-8, 8, res = 1 / 4)))]
    path: List<[f32; 2], 3>,
    inventory: List<Stack, 2>,
    flags: Option<List<bool, 2>>,
}

fn main() {
    let mut hero = Hero::default();
    hero.summons.push(7).unwrap();
    hero.path.push([1.0, -2.5]).unwrap();
    hero.inventory.push(Stack { item: Item::Key, count: 3 }).unwrap();
    hero.flags = Some(List::try_from(&[true][..]).unwrap());
    let mut raw = vec![0; Hero::CLASS.fields.len()];
    hero.quantise(&mut raw);
    assert_eq!(Hero::dequantise(&raw), hero);
}
