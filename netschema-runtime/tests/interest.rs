//! Interest management against a brute-force reference: random worlds where entities and
//! clients move, come and go, and after every update each client's visible set is exactly the
//! hysteresis rule's, reached from the previous one by exactly the changes reported.

use std::collections::{BTreeMap, BTreeSet};

use netschema_runtime::owned::{Change, Interest, View};
use proptest::prelude::*;

/// What a game does between and at updates.
#[derive(Clone, Debug)]
enum Op<const D: usize> {
    Place(u64, [f32; D]),
    Remove(u64),
    Look(u32, View<D>),
    Forget(u32),
    Always(u32, u64, bool),
    Update,
}

/// A client of the reference: its view, what it always sees, the visible set the hysteresis
/// rule starts from (less entities removed since), and the set the last update reported.
struct Seer<const D: usize> {
    view: View<D>,
    always: BTreeSet<u64>,
    visible: BTreeSet<u64>,
    reported: BTreeSet<u64>,
}

/// Every entity against every client, by the rule's definition.
#[derive(Default)]
struct Reference<const D: usize> {
    entities: BTreeMap<u64, [f32; D]>,
    clients: BTreeMap<u32, Seer<D>>,
}

fn distance2<const D: usize>(a: [f32; D], b: [f32; D]) -> f32 {
    a.iter().zip(b).map(|(a, b)| (a - b) * (a - b)).sum()
}

impl<const D: usize> Reference<D> {
    /// Applies `op` to the reference and to `interest`, checking what they return.
    fn apply(&mut self, interest: &mut Interest<u32, D>, op: &Op<D>) -> Vec<Change<u32>> {
        match *op {
            Op::Place(id, pos) => {
                interest.set_entity(id, pos);
                self.entities.insert(id, pos);
            }
            Op::Remove(id) => {
                assert_eq!(interest.remove_entity(id), self.entities.remove(&id).is_some());
                for seer in self.clients.values_mut() {
                    seer.visible.remove(&id);
                }
            }
            Op::Look(client, view) => {
                interest.set_view(client, view);
                let new = || Seer {
                    view,
                    always: BTreeSet::new(),
                    visible: BTreeSet::new(),
                    reported: BTreeSet::new(),
                };
                self.clients.entry(client).or_insert_with(new).view = view;
            }
            Op::Forget(client) => {
                assert_eq!(interest.remove_client(client), self.clients.remove(&client).is_some());
            }
            Op::Always(client, id, always) => {
                let seer = self.clients.get_mut(&client);
                assert_eq!(interest.set_always(client, id, always), seer.is_some());
                if let Some(seer) = seer {
                    if always {
                        seer.always.insert(id);
                    } else {
                        seer.always.remove(&id);
                    }
                }
            }
            Op::Update => {
                let changes = interest.update().to_vec();
                self.check(interest, &changes);
                return changes;
            }
        }
        Vec::new()
    }

    /// Checks an update's `changes` and `interest`'s visible sets against the rule.
    fn check(&mut self, interest: &Interest<u32, D>, changes: &[Change<u32>]) {
        let key = |c: &Change<u32>| (c.client, c.id, c.visible);
        assert!(changes.windows(2).all(|w| key(&w[0]) < key(&w[1])), "unordered: {changes:?}");
        assert!(changes.iter().all(|c| self.clients.contains_key(&c.client)));
        for (&client, seer) in &mut self.clients {
            let View { pos, enter, leave } = seer.view;
            let now: BTreeSet<u64> = (self.entities.iter())
                .filter(|&(id, &at)| {
                    let d2 = distance2(at, pos);
                    seer.always.contains(id)
                        || d2 <= enter * enter
                        || (seer.visible.contains(id) && d2 <= leave * leave)
                })
                .map(|(&id, _)| id)
                .collect();
            for c in changes.iter().filter(|c| c.client == client) {
                let flipped = if c.visible {
                    seer.reported.insert(c.id)
                } else {
                    seer.reported.remove(&c.id)
                };
                assert!(flipped, "{c:?} changes nothing");
            }
            assert_eq!(seer.reported, now, "client {client}: the changes lead elsewhere");
            let visible: Vec<u64> = interest.visible(client).collect();
            assert_eq!(visible.len(), now.len(), "client {client}: {visible:?}");
            assert_eq!(visible.into_iter().collect::<BTreeSet<_>>(), now, "client {client}");
            seer.visible = now;
        }
    }
}

/// Runs `ops` on a grid of cells `edge` wide, checking every update; returns every change.
fn run<const D: usize>(edge: f32, ops: &[Op<D>]) -> Vec<Change<u32>> {
    let mut interest = Interest::new(edge);
    let mut reference = Reference::default();
    ops.iter().chain([&Op::Update]).flat_map(|op| reference.apply(&mut interest, op)).collect()
}

/// Positions on a lattice of half units, so that distances on the radii are exact.
fn point<const D: usize>() -> impl Strategy<Value = [f32; D]> {
    prop::array::uniform((-32..=32).prop_map(|k| k as f32 / 2.0))
}

fn view<const D: usize>() -> impl Strategy<Value = View<D>> {
    let leave = prop_oneof![4 => (-4..=12).prop_map(|k| k as f32 / 2.0), 1 => Just(f32::INFINITY)];
    (point(), 0..=20, leave).prop_map(|(pos, enter, more)| {
        let enter = enter as f32 / 2.0;
        View { pos, enter, leave: (enter + more).max(0.0) }
    })
}

fn op<const D: usize>() -> impl Strategy<Value = Op<D>> {
    let (id, client) = (0..24u64, 0..5u32);
    prop_oneof![
        8 => (id.clone(), point()).prop_map(|(id, pos)| Op::Place(id, pos)),
        1 => id.clone().prop_map(Op::Remove),
        3 => (client.clone(), view()).prop_map(|(c, v)| Op::Look(c, v)),
        1 => client.clone().prop_map(Op::Forget),
        1 => (client, id, any::<bool>()).prop_map(|(c, id, on)| Op::Always(c, id, on)),
        3 => Just(Op::Update),
    ]
}

fn edge() -> impl Strategy<Value = f32> {
    prop::sample::select(vec![0.75f32, 1.0, 2.5, 4.0, 16.0])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// In 2-D, every update matches the reference, and the same inputs give the same changes.
    #[test]
    fn plane_matches_brute_force(edge in edge(), ops in prop::collection::vec(op::<2>(), 0..160)) {
        prop_assert_eq!(run(edge, &ops), run(edge, &ops));
    }

    /// In 3-D, every update matches the reference.
    #[test]
    fn space_matches_brute_force(edge in edge(), ops in prop::collection::vec(op::<3>(), 0..160)) {
        run(edge, &ops);
    }
}

const CLIENT: u32 = 7;
const NEAR: View<2> = View { pos: [0.0, 0.0], enter: 10.0, leave: 12.0 };

/// `(id, visible)` of each change, all of them `CLIENT`'s.
fn changes(interest: &mut Interest<u32, 2>) -> Vec<(u64, bool)> {
    let changes = interest.update();
    assert!(changes.iter().all(|c| c.client == CLIENT));
    changes.iter().map(|c| (c.id, c.visible)).collect()
}

/// An entity that wobbles between the radii enters once and leaves once it is beyond both.
#[test]
fn no_flicker_between_the_radii() {
    let mut interest = Interest::new(4.0);
    interest.set_view(CLIENT, NEAR);
    interest.set_entity(1, [10.5, 0.0]);
    assert_eq!(changes(&mut interest), []);
    interest.set_entity(1, [0.0, 10.0]);
    assert_eq!(changes(&mut interest), [(1, true)]);
    for frame in 0..100 {
        let r = if frame % 2 == 0 { 11.9 } else { 9.9 };
        interest.set_entity(1, [0.0, -r]);
        assert_eq!(changes(&mut interest), []);
    }
    interest.set_entity(1, [12.1, 0.0]);
    assert_eq!(changes(&mut interest), [(1, false)]);
    interest.set_entity(1, [11.0, 0.0]);
    assert_eq!(changes(&mut interest), []);
}

/// An always-visible entity is seen wherever it is, and treated as any other once released.
#[test]
fn always_visible_anywhere() {
    let mut interest = Interest::new(4.0);
    assert!(!interest.set_always(CLIENT, 1, true));
    interest.set_view(CLIENT, NEAR);
    assert!(interest.set_always(CLIENT, 1, true));
    assert_eq!(changes(&mut interest), []);
    interest.set_entity(1, [1e6, -1e6]);
    assert_eq!(changes(&mut interest), [(1, true)]);
    interest.set_entity(1, [11.0, 0.0]);
    assert!(interest.set_always(CLIENT, 1, false));
    assert_eq!(changes(&mut interest), [], "within leave, still visible");
    interest.set_entity(1, [13.0, 0.0]);
    assert_eq!(changes(&mut interest), [(1, false)]);
}

/// A removed entity leaves; one removed and added again under its id leaves, then enters.
#[test]
fn removal_leaves_at_the_next_update() {
    let mut interest = Interest::new(4.0);
    interest.set_view(CLIENT, NEAR);
    interest.set_entity(1, [1.0, 1.0]);
    interest.set_entity(2, [2.0, 2.0]);
    assert_eq!(changes(&mut interest), [(1, true), (2, true)]);
    assert!(interest.remove_entity(1));
    assert!(!interest.remove_entity(1));
    assert!(interest.remove_entity(2));
    interest.set_entity(2, [3.0, 3.0]);
    assert_eq!(changes(&mut interest), [(1, false), (2, false), (2, true)]);
    assert_eq!(interest.visible(CLIENT).collect::<Vec<_>>(), [2]);
    assert!(interest.remove_client(CLIENT));
    assert_eq!(changes(&mut interest), []);
    assert_eq!(interest.visible(CLIENT).len(), 0);
}

/// A client with an infinite radius sees every entity, wherever it is.
#[test]
fn infinite_radius_sees_everything() {
    let mut interest = Interest::new(1.0);
    interest.set_view(CLIENT, View { pos: [0.0; 2], enter: f32::INFINITY, leave: f32::INFINITY });
    for id in 0..100 {
        interest.set_entity(id, [id as f32 * 1e5, -(id as f32)]);
    }
    assert_eq!(changes(&mut interest), (0..100).map(|id| (id, true)).collect::<Vec<_>>());
}
