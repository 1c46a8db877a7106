use netschema::schema::Link;
use netschema::{Protocol, Ref, Snapshot, Target};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game")]
struct Ship {
    #[netschema(int(0, 100))]
    hp: u8,
    escort: Ref<Ship>,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game")]
struct Shot {
    #[netschema(int(0, 100))]
    fuel: u8,
    owner: Ref<Ship>,
    target: Ref<Game>,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Game {
    Ship(Ship),
    Shot(Shot),
}

fn main() {
    assert_eq!(Ship::CLASS.links, [Link::new("escort", Some(0))]);
    assert_eq!(Shot::CLASS.links, [Link::new("owner", Some(0)), Link::new("target", None)]);
    assert_eq!(Game::SCHEMA.max_links, 2);
    assert_eq!(<Shot as Target<Game>>::TARGET, Some(1));
    let ship = Ship { hp: 3, escort: Ref::NONE };
    assert_eq!(Ship::from_entity(Game::Ship(ship)), Some(ship));
    assert_eq!(Shot::from_entity(Game::Ship(ship)), None);
}
