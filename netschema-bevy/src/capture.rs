//! Capture: each server tick, a new netschema frame holding what changed in the marked
//! entities, what went away, and who owns what.

use bevy_ecs::prelude::*;
use netschema::{ClassOf, Protocol};

use crate::server::{NsPeer, NsServer, ns_id};

/// Marks an entity whose registered netschema component the server replicates. An entity
/// carries at most one registered class.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct NsReplicate;

/// Names the replicon client entity (the one with [`bevy_replicon::prelude::ConnectedClient`])
/// that owns a replicated entity: its avatar, its units. That client sees the entity marked
/// [`crate::NsOwn`]. Insert another to change owner. Implies [`NsReplicate`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[component(immutable)]
#[require(NsReplicate)]
pub struct NsOwner(pub Entity);

/// Starts the frame and applies the removals seen since the last one.
pub(crate) fn begin_frame<P: Protocol>(mut ns: ResMut<NsServer<P>>) {
    let ns = &mut *ns;
    ns.server.begin_frame();
    for id in ns.removed.drain(..) {
        ns.server.remove(id);
    }
}

/// Writes each marked `C` that changed since the last frame, or that the server does not hold
/// yet (just marked, or after a restart).
pub(crate) fn capture<P: Protocol, C: ClassOf<P> + Component>(
    mut ns: ResMut<NsServer<P>>,
    entities: Query<(Entity, Ref<C>), With<NsReplicate>>,
) {
    for (entity, value) in &entities {
        let id = ns_id(entity);
        if (value.is_changed() || !ns.server().contains(id))
            && let Err(e) = ns.capture(id, &*value)
        {
            log::warn!("netschema did not capture {entity}: {e}");
        }
    }
}

/// Marks each owned entity as its owner's, after ending the ownerships that changed.
pub(crate) fn own<P: Protocol>(
    mut ns: ResMut<NsServer<P>>,
    owned: Query<(Entity, &NsOwner), With<NsReplicate>>,
    peers: Query<&NsPeer>,
) {
    let ns = &mut *ns;
    for (owner, id) in ns.disowned.drain(..) {
        if let Ok(peer) = peers.get(owner) {
            let _ = ns.server.set_own(peer.client(), id, false);
        }
    }
    for (entity, owner) in &owned {
        if let Ok(peer) = peers.get(owner.0) {
            // Setting what is already set changes nothing.
            let _ = ns.server.set_own(peer.client(), ns_id(entity), true);
        }
    }
}

/// Queues the removal of an entity that loses its mark or is despawned.
pub(crate) fn unmarked<P: Protocol>(remove: On<Remove, NsReplicate>, mut ns: ResMut<NsServer<P>>) {
    ns.removed.push(ns_id(remove.entity));
}

/// Queues the removal of a marked entity that loses its `C`.
pub(crate) fn class_removed<P: Protocol, C: Component>(
    remove: On<Remove, C>,
    marked: Query<(), With<NsReplicate>>,
    mut ns: ResMut<NsServer<P>>,
) {
    if marked.contains(remove.entity) {
        ns.removed.push(ns_id(remove.entity));
    }
}

/// Queues the end of an ownership.
pub(crate) fn owner_replaced<P: Protocol>(
    replace: On<Discard, NsOwner>,
    owners: Query<&NsOwner>,
    mut ns: ResMut<NsServer<P>>,
) {
    if let Ok(owner) = owners.get(replace.entity) {
        ns.disowned.push((owner.0, ns_id(replace.entity)));
    }
}
