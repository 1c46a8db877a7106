//! The server's world archive: quantised rows of every entity for the frames in flight,
//! shared by all client peers.

use crate::engine::frame::{ARCHIVE, NO_FRAME, age};
use crate::schema::Schema;
use crate::{Error, Result};

/// Marks an entity slot with no entity.
pub(crate) const NO_CLASS: u16 = u16::MAX;

/// Caller-owned storage of a [`World`]; see [`WorldStorage::rows_len`] and friends for the
/// sizes a capacity needs.
#[derive(Debug)]
pub struct WorldStorage<'a> {
    /// `ARCHIVE × capacity × schema.max_fields` raw values.
    pub rows: &'a mut [i32],
    /// `ARCHIVE × capacity` class indices.
    pub classes: &'a mut [u16],
    /// `capacity` frame numbers: when the entity now at each id was spawned.
    pub spawned: &'a mut [u32],
    /// `capacity` frame numbers: when the entity now at each id last changed (was spawned or
    /// set to other values than the frame before held).
    pub changed: &'a mut [u32],
    /// `capacity × schema.max_links` targets of the entities' links in the current frame,
    /// two words each: the target's id + 1 (0: none) and the frame it was spawned at, so that
    /// a link whose target was removed names nothing, whatever takes its id.
    pub links: &'a mut [u32],
    /// `capacity × schema.max_fields` raw values: the current frame's timeline fields
    /// ([`Class::is_key`](crate::schema::Class::is_key)) of every entity, which the archive
    /// holds as their empty values; empty for a schema without timelines.
    pub keys: &'a mut [i32],
}

impl WorldStorage<'_> {
    /// Length of [`WorldStorage::rows`] for `capacity` entities.
    pub const fn rows_len(schema: &Schema, capacity: usize) -> usize {
        (ARCHIVE as usize).saturating_mul(capacity).saturating_mul(schema.max_fields)
    }

    /// Length of [`WorldStorage::classes`] for `capacity` entities.
    pub const fn classes_len(capacity: usize) -> usize {
        (ARCHIVE as usize).saturating_mul(capacity)
    }

    /// Length of [`WorldStorage::links`] for `capacity` entities.
    pub const fn links_len(schema: &Schema, capacity: usize) -> usize {
        capacity.saturating_mul(schema.max_links).saturating_mul(2)
    }

    /// Length of [`WorldStorage::keys`] for `capacity` entities: 0 without timelines.
    pub fn keys_len(schema: &Schema, capacity: usize) -> usize {
        if schema.has_keys() { capacity.saturating_mul(schema.max_fields) } else { 0 }
    }
}

/// What a [`World`] keeps besides its storage, for the owned layer to resume it.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorldState {
    capacity: usize,
    frame: u32,
    members: u32,
}

#[cfg(feature = "std")]
impl WorldState {
    /// The current frame, if any.
    pub(crate) fn frame(&self) -> Option<u32> {
        (self.frame != NO_FRAME).then_some(self.frame)
    }
}

/// Quantised rows of all entities over the last [`ARCHIVE`] frames.
///
/// Entities are identified by the caller's ids `0..capacity`. Each [`World::begin_frame`]
/// starts a new frame holding a copy of the previous one, which the caller then updates with
/// [`World::set`] and [`World::remove`].
#[derive(Debug)]
pub struct World<'a> {
    schema: &'a Schema,
    capacity: usize,
    rows: &'a mut [i32],
    classes: &'a mut [u16],
    spawned: &'a mut [u32],
    changed: &'a mut [u32],
    links: &'a mut [u32],
    keys: &'a mut [i32],
    pub(crate) frame: u32,
    /// The last frame in which an entity was spawned or removed ([`NO_FRAME`]: none yet).
    members: u32,
}

impl<'a> World<'a> {
    /// A world of up to `capacity` entities in `storage`. No frame exists until the first
    /// [`World::begin_frame`].
    pub fn new(schema: &'a Schema, capacity: usize, storage: WorldStorage<'a>) -> Result<Self> {
        schema.validate()?;
        let WorldStorage { rows, classes, spawned, changed, links, keys } = storage;
        let rows_len = WorldStorage::rows_len(schema, capacity);
        let classes_len = WorldStorage::classes_len(capacity);
        let links_len = WorldStorage::links_len(schema, capacity);
        let keys_len = WorldStorage::keys_len(schema, capacity);
        if rows.len() < rows_len
            || classes.len() < classes_len
            || spawned.len() < capacity
            || changed.len() < capacity
            || links.len() < links_len
            || keys.len() < keys_len
        {
            return Err(Error::StorageTooSmall);
        }
        classes[..classes_len].fill(NO_CLASS);
        links[..links_len].fill(0);
        Ok(World {
            schema,
            capacity,
            rows: &mut rows[..rows_len],
            classes: &mut classes[..classes_len],
            spawned: &mut spawned[..capacity],
            changed: &mut changed[..capacity],
            links: &mut links[..links_len],
            keys: &mut keys[..keys_len],
            frame: NO_FRAME,
            members: NO_FRAME,
        })
    }

    #[cfg(feature = "std")]
    /// The world in `storage` as it was when `state` was taken from it (storage of
    /// [`World::new`]'s sizes, which it has already initialised).
    pub(crate) fn resume(schema: &'a Schema, storage: WorldStorage<'a>, state: WorldState) -> Self {
        let WorldStorage { rows, classes, spawned, changed, links, keys } = storage;
        let rows_len = WorldStorage::rows_len(schema, state.capacity);
        let classes_len = WorldStorage::classes_len(state.capacity);
        let links_len = WorldStorage::links_len(schema, state.capacity);
        let keys_len = WorldStorage::keys_len(schema, state.capacity);
        World {
            schema,
            capacity: state.capacity,
            rows: &mut rows[..rows_len],
            classes: &mut classes[..classes_len],
            spawned: &mut spawned[..state.capacity],
            changed: &mut changed[..state.capacity],
            links: &mut links[..links_len],
            keys: &mut keys[..keys_len],
            frame: state.frame,
            members: state.members,
        }
    }

    #[cfg(feature = "std")]
    /// What [`World::resume`] needs besides the storage.
    pub(crate) fn state(&self) -> WorldState {
        WorldState { capacity: self.capacity, frame: self.frame, members: self.members }
    }

    /// The schema of this world.
    pub fn schema(&self) -> &'a Schema {
        self.schema
    }

    /// Most entities the world holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The current frame, or `None` before the first [`World::begin_frame`].
    pub fn frame(&self) -> Option<u32> {
        (self.frame != NO_FRAME).then_some(self.frame)
    }

    #[inline]
    fn slot(frame: u32) -> usize {
        (frame % ARCHIVE) as usize
    }

    /// Starts the next frame as a copy of the current one and returns its number. Numbers
    /// wrap after `u32::MAX - 1`, skipping `u32::MAX`.
    pub fn begin_frame(&mut self) -> u32 {
        let next = match self.frame.wrapping_add(1) {
            NO_FRAME => 0,
            next => next,
        };
        let (stride, cap) = (self.schema.max_fields, self.capacity);
        let to = Self::slot(next);
        if self.frame == NO_FRAME {
            self.classes[to * cap..(to + 1) * cap].fill(NO_CLASS);
        } else {
            let from = Self::slot(self.frame);
            self.classes.copy_within(from * cap..(from + 1) * cap, to * cap);
            self.rows
                .copy_within(from * cap * stride..(from + 1) * cap * stride, to * cap * stride);
        }
        self.frame = next;
        next
    }

    /// Sets entity `id` in the current frame to `class` with raw values `row` (one per scalar
    /// field of the class, clamped into each field's range). Setting an id to a different
    /// class than it had counts as a new entity. Timeline fields
    /// ([`Class::is_key`](crate::schema::Class::is_key)) are kept apart, for the peers to send
    /// as keyframe records: [`World::get`] shows them empty.
    ///
    /// Fails with [`Error::FrameNotStarted`] before the first [`World::begin_frame`],
    /// [`Error::UnknownClass`], [`Error::IdOutOfRange`] and [`Error::RowLength`].
    pub fn set(&mut self, id: usize, class: usize, row: &[i32]) -> Result<()> {
        if self.frame == NO_FRAME {
            return Err(Error::FrameNotStarted);
        }
        let classes = self.schema.classes.len();
        let fields =
            self.schema.classes.get(class).ok_or(Error::UnknownClass { class, classes })?.fields;
        if id >= self.capacity {
            return Err(Error::IdOutOfRange { id, capacity: self.capacity });
        }
        if row.len() != fields.len() {
            return Err(Error::RowLength { class, expected: fields.len(), actual: row.len() });
        }
        let at = Self::slot(self.frame) * self.capacity + id;
        let mut changed = self.classes[at] != class as u16;
        if changed {
            self.classes[at] = class as u16;
            self.spawned[id] = self.frame;
            self.members = self.frame;
            self.clear_links(id);
        }
        let c = &self.schema.classes[class];
        let keys = self.keys.get_mut(id * self.schema.max_fields..).unwrap_or(&mut []);
        let out = &mut self.rows[at * self.schema.max_fields..][..fields.len()];
        for (f, ((o, &v), field)) in out.iter_mut().zip(row).zip(fields).enumerate() {
            let mut v = field.clamp(i64::from(v));
            if let Some(k) = keys.get_mut(f).filter(|_| c.is_key(f)) {
                (*k, v) = (v, field.empty());
            }
            changed |= *o != v;
            *o = v;
        }
        if changed {
            self.changed[id] = self.frame;
        }
        Ok(())
    }

    /// Removes entity `id` from the current frame (a no-op if it is absent).
    pub fn remove(&mut self, id: usize) {
        if id < self.capacity && self.frame != NO_FRAME {
            let class = &mut self.classes[Self::slot(self.frame) * self.capacity + id];
            if *class != NO_CLASS {
                (*class, self.members) = (NO_CLASS, self.frame);
                self.clear_links(id);
            }
        }
    }

    /// Points link `link` of entity `id` at entity `target`, or at nothing, from the current
    /// frame on (a new entity at `id` starts with every link at nothing). A client sees the
    /// target under its own handle for it while it holds the target, and nothing otherwise;
    /// a target of another class than the link's ([`Link::target`](crate::schema::Link))
    /// counts as nothing.
    ///
    /// Fails with [`Error::FrameNotStarted`], [`Error::IdOutOfRange`] (for `id` or `target`),
    /// [`Error::UnknownEntity`] if `id` or `target` holds no entity, and
    /// [`Error::UnknownLink`].
    pub fn set_link(&mut self, id: usize, link: usize, target: Option<usize>) -> Result<()> {
        if self.frame == NO_FRAME {
            return Err(Error::FrameNotStarted);
        }
        let capacity = self.capacity;
        for i in [Some(id), target].into_iter().flatten() {
            if i >= capacity {
                return Err(Error::IdOutOfRange { id: i, capacity });
            }
        }
        if let Some(t) = target.filter(|&t| self.class_now(t).is_none()) {
            return Err(Error::UnknownEntity { id: t as u64 });
        }
        let class = self.class_now(id).and_then(|c| self.schema.classes.get(c));
        let links = class.ok_or(Error::UnknownEntity { id: id as u64 })?.links.len();
        if link >= links {
            return Err(Error::UnknownLink { link, links });
        }
        let at = 2 * (id * self.schema.max_links + link);
        let spawned = target.map_or(0, |t| self.spawned[t]);
        self.links[at..at + 2].copy_from_slice(&[target.map_or(0, |t| t as u32 + 1), spawned]);
        Ok(())
    }

    /// The target of link `link` of entity `id` in the current frame, if the entity the link
    /// was pointed at is still there.
    #[inline]
    pub(crate) fn link(&self, id: usize, link: usize) -> Option<usize> {
        let at = 2 * (id * self.schema.max_links + link);
        let &[target, spawned] = self.links.get(at..at + 2)? else { return None };
        let target = (target as usize).checked_sub(1)?;
        (self.class_now(target).is_some() && self.spawned.get(target) == Some(&spawned))
            .then_some(target)
    }

    /// The class of entity `id` in the current frame, if it holds one.
    #[inline]
    pub(crate) fn class_now(&self, id: usize) -> Option<usize> {
        self.get(self.frame, id).map(|(class, _)| class)
    }

    fn clear_links(&mut self, id: usize) {
        let n = 2 * self.schema.max_links;
        if let Some(links) = self.links.get_mut(id * n..(id + 1) * n) {
            links.fill(0);
        }
    }

    /// Whether an entity was spawned or removed at frame `t` or since.
    #[inline]
    pub(crate) fn members_changed_since(&self, t: u32) -> bool {
        self.members != NO_FRAME && age(self.members, t) as i32 >= 0
    }

    /// Whether `frame` is still held.
    pub fn holds(&self, frame: u32) -> bool {
        self.frame != NO_FRAME && age(self.frame, frame) < ARCHIVE
    }

    /// Class and raw values of entity `id` at `frame`, if it existed then and the frame is
    /// still held.
    #[inline]
    pub fn get(&self, frame: u32, id: usize) -> Option<(usize, &[i32])> {
        if id >= self.capacity || !self.holds(frame) {
            return None;
        }
        let at = Self::slot(frame) * self.capacity + id;
        let class = self.classes[at];
        let fields = self.schema.classes.get(usize::from(class))?.fields.len();
        Some((usize::from(class), &self.rows[at * self.schema.max_fields..][..fields]))
    }

    /// The current frame's values of the timeline fields of entity `id` (of `fields` fields),
    /// at their field indices (the others are not meaningful); empty without timelines.
    #[inline]
    pub(crate) fn keys(&self, id: usize, fields: usize) -> &[i32] {
        self.keys.get(id * self.schema.max_fields..).and_then(|k| k.get(..fields)).unwrap_or(&[])
    }

    /// Frame at which the entity now at `id` was spawned.
    pub(crate) fn spawned(&self, id: usize) -> u32 {
        self.spawned.get(id).copied().unwrap_or(NO_FRAME)
    }

    /// Whether the entity at `id` has held the same values since frame `t` or longer (and
    /// existed then): its row at every frame from `t` to the current one is the same. A
    /// value set and set back within one frame counts as a change.
    #[inline]
    pub(crate) fn still_since(&self, id: usize, t: u32) -> bool {
        self.changed.get(id).is_some_and(|&c| age(self.frame, c) >= age(self.frame, t))
    }

    /// The rows of all ids at a held `frame`, `max_fields` values per id whatever its class;
    /// empty if the frame is not held.
    #[inline]
    pub(crate) fn frame_rows(&self, frame: u32) -> &[i32] {
        let len = self.capacity * self.schema.max_fields;
        match self.holds(frame) {
            true => self.rows.get(Self::slot(frame) * len..).and_then(|r| r.get(..len)),
            false => None,
        }
        .unwrap_or(&[])
    }

    /// The class of every id at a held `frame` ([`NO_CLASS`] where there is no entity);
    /// empty if the frame is not held.
    #[inline]
    pub(crate) fn frame_classes(&self, frame: u32) -> &[u16] {
        let len = self.capacity;
        match self.holds(frame) {
            true => self.classes.get(Self::slot(frame) * len..).and_then(|c| c.get(..len)),
            false => None,
        }
        .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Class, Field};

    static F: [Field; 1] = [Field::categorical("on", 2)];
    static C: [Class; 1] = [Class::new("c", &F)];
    static S: Schema = Schema::new("s", &C);

    #[test]
    fn frame_numbers_roll_over_without_forgetting() {
        let (mut rows, mut classes) = ([0; 128 * 2], [0; 128 * 2]);
        let (mut spawned, mut changed) = ([0; 2], [0; 2]);
        let storage = WorldStorage {
            rows: &mut rows,
            classes: &mut classes,
            spawned: &mut spawned,
            changed: &mut changed,
            links: &mut [],
            keys: &mut [],
        };
        let mut world = World::new(&S, 2, storage).unwrap();
        world.frame = u32::MAX - 3;
        world.begin_frame();
        world.set(1, 0, &[1]).unwrap();
        for _ in 0..4 {
            let frame = world.begin_frame();
            assert_ne!(frame, NO_FRAME);
            assert_eq!(world.get(frame, 1).map(|(c, r)| (c, r[0])), Some((0, 1)), "{frame}");
        }
        assert_eq!(world.frame(), Some(2));
        assert!(world.get(u32::MAX - 1, 1).is_some(), "frames from before the wrap are kept");
    }
}
