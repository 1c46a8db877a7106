//! The client: decodes packets into its own archive of recent frames, yields what changed,
//! and writes acknowledgements.

use crate::codec::coder::{BinaryCoder, Decoder};
use crate::engine::ack::Ack;
use crate::engine::frame::{NO_FRAME, WINDOW, age, from_wire};
use crate::engine::packet::{self, BASE_BITS, BASE_ID_BITS, CHECK_BITS, FRAME_BITS, Refs, Side};
use crate::engine::peer::digest;
use crate::engine::probe::NoProbe;
use crate::engine::slots::{SLOTS, Slots};
use crate::engine::world::NO_CLASS;
use crate::model::predict::MAX_SAMPLES;
use crate::model::{Model, ModelLayout};
use crate::schema::Schema;
use crate::{Error, Result};

/// Caller-owned storage of a [`Client`]; [`ClientStorage::sizes`] gives every length.
#[derive(Debug)]
pub struct ClientStorage<'a> {
    /// Raw values of every handle in every frame slot.
    pub rows: &'a mut [i32],
    /// Class of every handle in every frame slot.
    pub classes: &'a mut [u16],
    /// Frame at which every handle got its entity, in every frame slot.
    pub born: &'a mut [u32],
    /// Models stored with each frame slot.
    pub models: &'a mut [Model],
}

/// Lengths of the slices of a [`ClientStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientSizes {
    /// Length of [`ClientStorage::rows`].
    pub rows: usize,
    /// Length of [`ClientStorage::classes`] and [`ClientStorage::born`].
    pub handles: usize,
    /// Length of [`ClientStorage::models`].
    pub models: usize,
}

impl ClientSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.rows * 4 + self.handles * 6 + self.models * core::mem::size_of::<Model>()
    }
}

impl ClientStorage<'_> {
    /// Slice lengths for a client that sees up to `handles` entities at once.
    pub fn sizes(schema: &Schema, handles: usize) -> ClientSizes {
        ClientSizes {
            rows: SLOTS * handles * schema.max_fields,
            handles: SLOTS * handles,
            models: SLOTS * ModelLayout::new(schema).len,
        }
    }
}

/// A change between the previous view and the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An entity became visible.
    Created {
        /// Its handle.
        handle: u32,
        /// Its class.
        class: usize,
    },
    /// An entity's values changed.
    Updated {
        /// Its handle.
        handle: u32,
    },
    /// An entity is no longer visible.
    Removed {
        /// Its handle.
        handle: u32,
    },
}

/// The client side of a connection.
#[derive(Debug)]
pub struct Client<'a> {
    schema: &'a Schema,
    layout: ModelLayout,
    handles: u32,
    store: ClientStorage<'a>,
    slots: Slots,
    newest: u32,
    previous: Option<usize>,
}

impl<'a> Client<'a> {
    /// A client that sees up to `handles` entities at once (as its server peer was set up).
    pub fn new(schema: &'a Schema, handles: usize, store: ClientStorage<'a>) -> Result<Self> {
        schema.validate()?;
        let sizes = ClientStorage::sizes(schema, handles);
        let ClientStorage { rows, classes, born, models } = store;
        if handles > u32::MAX as usize / 2
            || rows.len() < sizes.rows
            || classes.len() < sizes.handles
            || born.len() < sizes.handles
            || models.len() < sizes.models
        {
            return Err(Error::StorageTooSmall);
        }
        let store = ClientStorage {
            rows: &mut rows[..sizes.rows],
            classes: &mut classes[..sizes.handles],
            born: &mut born[..sizes.handles],
            models: &mut models[..sizes.models],
        };
        store.classes.fill(NO_CLASS);
        Ok(Client {
            schema,
            layout: ModelLayout::new(schema),
            handles: handles as u32,
            store,
            slots: Slots::new(),
            newest: NO_FRAME,
            previous: None,
        })
    }

    /// The schema hash this client presents when connecting.
    pub fn schema_hash(&self) -> u64 {
        self.schema.hash
    }

    /// The newest frame decoded, if any.
    pub fn frame(&self) -> Option<u32> {
        (self.newest != NO_FRAME).then_some(self.newest)
    }

    /// The acknowledgement to send: the newest frame held and the ones before it.
    pub fn ack(&self) -> Option<Ack> {
        let newest = self.frame()?;
        Some(Ack::from_frames(newest, |f| self.slots.find(f).is_some()))
    }

    /// Digest of the models stored with `frame`, if it is held (for checking both ends agree).
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.slots.find(frame)?;
        Some(digest(&self.store.models[p * self.layout.len..][..self.layout.len]))
    }

    /// Decodes a packet and makes its frame the current view; returns the frame number.
    ///
    /// A packet that is truncated, corrupted, refers to a frame this client does not hold,
    /// or is not newer than the current view is rejected with an error and changes nothing.
    pub fn decode(&mut self, packet: &[u8]) -> Result<u32> {
        let mut dec = Decoder::new(packet);
        let distance = dec.direct(0, BASE_BITS);
        let mut refs = if distance == 0 {
            let wire = dec.direct(0, FRAME_BITS) as u16;
            let frame = if self.newest == NO_FRAME {
                u32::from(wire)
            } else {
                from_wire(self.newest, wire)
            };
            Refs::new(frame, &[])
        } else {
            let id = dec.direct(0, BASE_ID_BITS);
            let base = self.slots.held_at(id, BASE_ID_BITS).ok_or(Error::UnknownBaseline)?;
            Refs::new(base.wrapping_add(distance), &[base])
        };
        let frame = refs.frame;
        if self.newest != NO_FRAME && age(frame, self.newest) as i32 <= 0 {
            return Err(Error::StalePacket);
        }
        let m = self.layout.len;
        let spare = self.slots.spare();
        match refs.base() {
            Some(b) => {
                let p = self.slots.find(b).ok_or(Error::UnknownBaseline)?;
                self.store.models.copy_within(p * m..(p + 1) * m, spare * m);
            }
            None => {
                ModelLayout::reset(self.schema, &mut self.store.models[spare * m..(spare + 1) * m])
            }
        }
        let models = &mut self.store.models[spare * m..(spare + 1) * m];
        packet::code_history(&mut dec, &mut models[ModelLayout::PACKET], &mut refs)?;
        let mut history = [0usize; MAX_SAMPLES];
        for (slot, &t) in history.iter_mut().zip(&refs.history[..refs.len]) {
            *slot = self.slots.find(t).ok_or(Error::UnknownBaseline)?;
        }
        let h = self.handles as usize;
        self.store.classes[spare * h..(spare + 1) * h].fill(NO_CLASS);
        // Split the rows into the slot being written and the slots being read.
        let mut chunks = self.store.rows.chunks_mut(h * self.schema.max_fields);
        let mut slot_rows: [Option<&mut [i32]>; SLOTS] = core::array::from_fn(|_| chunks.next());
        let new_rows = slot_rows[spare].take().ok_or(Error::StorageTooSmall)?;
        let mut history_rows: [&[i32]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
        for (rows, &p) in history_rows.iter_mut().zip(&history[..refs.len]) {
            *rows = slot_rows[p].as_deref().ok_or(Error::StorageTooSmall)?;
        }
        let mut side = DecoderSide {
            refs: &refs,
            handles: self.handles,
            stride: self.schema.max_fields,
            history,
            history_rows,
            new: spare,
            new_rows,
            classes: self.store.classes,
            born: self.store.born,
        };
        let check =
            packet::code_body(&mut dec, &mut side, &mut NoProbe, self.schema, models, &refs)?;
        if dec.direct(0, CHECK_BITS) != check {
            return Err(Error::CheckMismatch);
        }
        self.previous = (self.newest != NO_FRAME).then(|| self.slots.find(self.newest)).flatten();
        if age(frame, self.newest) >= WINDOW {
            self.previous = None;
        }
        self.slots.commit(frame);
        self.newest = frame;
        Ok(frame)
    }

    fn current_slot(&self) -> Option<usize> {
        self.slots.find(self.newest)
    }

    /// Class and raw values of `handle` in the current view.
    pub fn get(&self, handle: u32) -> Option<(usize, &[i32])> {
        self.entry(self.current_slot()?, handle)
    }

    fn entry(&self, slot: usize, handle: u32) -> Option<(usize, &[i32])> {
        if handle >= self.handles {
            return None;
        }
        let at = slot * self.handles as usize + handle as usize;
        let class = usize::from(self.store.classes[at]);
        let fields = self.schema.classes.get(class)?.fields.len();
        Some((class, &self.store.rows[at * self.schema.max_fields..][..fields]))
    }

    /// Every entity of the current view: handle, class and raw values, by handle.
    pub fn view(&self) -> impl Iterator<Item = (u32, usize, &[i32])> + '_ {
        let slot = self.current_slot();
        (0..self.handles).filter_map(move |h| {
            let (class, row) = self.entry(slot?, h)?;
            Some((h, class, row))
        })
    }

    /// What changed from the previous view to the current one, by handle.
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        let now = self.current_slot();
        let before = self.previous;
        let hs = self.handles as usize;
        (0..self.handles).flat_map(move |h| {
            let old = before
                .and_then(|p| self.entry(p, h).map(|e| (e, self.store.born[p * hs + h as usize])));
            let new = now
                .and_then(|p| self.entry(p, h).map(|e| (e, self.store.born[p * hs + h as usize])));
            let (removed, created, updated) = match (old, new) {
                (Some(_), None) => (true, false, false),
                (None, Some(_)) => (false, true, false),
                (Some((a, born_a)), Some((b, born_b))) if born_a != born_b || a.0 != b.0 => {
                    (true, true, false)
                }
                (Some((a, _)), Some((b, _))) => (false, false, a.1 != b.1),
                (None, None) => (false, false, false),
            };
            let class = new.map_or(0, |((c, _), _)| c);
            [
                removed.then_some(Event::Removed { handle: h }),
                created.then_some(Event::Created { handle: h, class }),
                updated.then_some(Event::Updated { handle: h }),
            ]
            .into_iter()
            .flatten()
        })
    }
}

/// The decoder's side of the packet walk: reads history from, and writes the new frame into,
/// the client's archive.
struct DecoderSide<'s> {
    refs: &'s Refs,
    handles: u32,
    stride: usize,
    history: [usize; MAX_SAMPLES],
    history_rows: [&'s [i32]; MAX_SAMPLES],
    new: usize,
    new_rows: &'s mut [i32],
    classes: &'s mut [u16],
    born: &'s mut [u32],
}

impl DecoderSide<'_> {
    #[inline]
    fn at(&self, slot: usize, h: u32) -> usize {
        slot * self.handles as usize + h as usize
    }
}

impl<'s> Side<'s> for DecoderSide<'s> {
    const ENCODER: bool = false;

    fn handles(&self) -> u32 {
        self.handles
    }

    #[inline]
    fn base_present(&self, h: u32) -> bool {
        self.refs.len > 0 && self.classes[self.at(self.history[0], h)] != NO_CLASS
    }

    fn base_class(&self, h: u32) -> usize {
        usize::from(self.classes[self.at(self.history[0], h)])
    }

    fn keep_hint(&self, _h: u32) -> bool {
        false
    }

    fn enter_count_hint(&self) -> u32 {
        0
    }

    fn next_enter_hint(&mut self) -> (u32, usize, u32) {
        (0, 0, 0)
    }

    fn begin(&mut self, h: u32, class: usize, handle_age: Option<u32>) -> Result<()> {
        let at = self.at(self.new, h);
        if h >= self.handles || self.classes[at] != NO_CLASS {
            return Err(Error::Corrupt);
        }
        self.classes[at] = class as u16;
        self.born[at] = match handle_age {
            Some(a) => self.refs.frame.wrapping_sub(a),
            None => self.born[self.at(self.history[0], h)],
        };
        Ok(())
    }

    #[inline]
    fn history_len(&self, h: u32) -> usize {
        let born = self.born[self.at(self.history[0], h)];
        self.history[..self.refs.len]
            .iter()
            .take_while(|&&p| {
                let at = self.at(p, h);
                self.classes[at] != NO_CLASS && self.born[at] == born
            })
            .count()
    }

    #[inline]
    fn history_rows(&self, h: u32, k: usize) -> [&'s [i32]; MAX_SAMPLES] {
        let at = h as usize * self.stride;
        let mut rows: [&'s [i32]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
        for (row, slot) in rows.iter_mut().zip(&self.history_rows).take(k) {
            *row = slot.get(at..at + self.stride).unwrap_or(&[]);
        }
        rows
    }

    fn target_row(&self, _h: u32) -> &'s [i32] {
        &[]
    }

    #[inline]
    fn store(&mut self, h: u32, field: usize, value: i32) {
        if let Some(v) = self.new_rows.get_mut(h as usize * self.stride + field) {
            *v = value;
        }
    }
}
