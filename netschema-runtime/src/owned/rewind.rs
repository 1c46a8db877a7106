//! Rewind for lag compensation: the world as one client showed it when it pushed one of its
//! inputs, read from the server's archive and its record of what that client holds.

use core::fmt;
use core::marker::PhantomData;
use std::vec;
use std::vec::Vec;

use super::ids::Ids;
use super::sight::RenderTime;
use crate::blend::{Blend, ONE, blend_row};
use crate::engine::frame::WINDOW;
use crate::schema::Schema;
use crate::{ClassOf, Peer, Protocol, World};

/// How each field of each class of `schema` blends ([`Blend::of`]).
pub(crate) fn blends(schema: &Schema) -> Vec<Vec<Blend>> {
    let class = |c: &crate::schema::Class| (0..c.fields.len()).map(|i| Blend::of(c.fields, i));
    schema.classes.iter().map(|c| class(c).collect()).collect()
}

/// What a server keeps to rewind: the blends and room for three rows (two samples and the
/// blend).
#[derive(Debug)]
pub(crate) struct Rewind {
    blends: Vec<Vec<Blend>>,
    rows: Vec<i32>,
}

impl Rewind {
    pub(crate) fn new(schema: &Schema) -> Self {
        Rewind { blends: blends(schema), rows: vec![0; 3 * schema.max_fields] }
    }
}

/// The world as one client showed it at a render time ([`Server::seen_by`]): each entity
/// blended between the client's two samples around that time exactly as its
/// [`Interpolator`](super::Interpolator) blends them, from the server's archive.
///
/// Which entities it showed and which frames it had come from the server's record of that
/// client (its peer): an entity is shown if the client held it in the newest frame it had
/// ([`RenderTime::newest`]); its samples are the frames around the render time that the
/// client's acks show it decoded while it held the entity, and their values what the client
/// held there. That is the client's view exactly when the client records every packet it
/// decodes and holds each entity at the frame it was sent in (no byte budget keeping
/// entities waiting, whose samples the interpolator keys by the older frame their values come
/// from). The record covers the frames the peer keeps and the entities the client still
/// holds: an entity removed from the world or hidden from the client since is not shown.
///
/// Nothing is copied when it is made: each look-up reads the archive.
///
/// [`Server::seen_by`]: super::Server::seen_by
pub struct Seen<'a, P: Protocol> {
    pub(crate) world: World<'a>,
    pub(crate) peer: Peer<'a>,
    pub(crate) ids: &'a Ids,
    pub(crate) time: RenderTime,
    pub(crate) rewind: &'a mut Rewind,
    pub(crate) _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> fmt::Debug for Seen<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Seen").field("time", &self.time).finish_non_exhaustive()
    }
}

/// The frame, among `frames`, of the first sample `peer`'s client had of the entity in world
/// slot `slot`, its values written into `out`: a frame it decoded while it held the entity.
fn sample(
    (world, peer): (&World<'_>, &Peer<'_>),
    slot: usize,
    mut frames: impl Iterator<Item = u32>,
    out: &mut [i32],
) -> Option<u32> {
    frames.find(|&f| peer.client_holds(f) && peer.client_view(world, f, slot, out).is_some())
}

impl<'a, P: Protocol> Seen<'a, P> {
    /// The render time the client gave with its input.
    pub fn time(&self) -> RenderTime {
        self.time
    }

    /// Entity `id` as the client showed it, raw: its class and values; `None` if the client
    /// did not show it.
    pub fn raw(&mut self, id: u64) -> Option<(usize, &[i32])> {
        let slot = self.ids.get(id)?;
        let RenderTime { frame, past, newest } = self.time;
        let stride = P::SCHEMA.max_fields;
        let (a, rest) = self.rewind.rows.split_at_mut(stride);
        let (b, out) = rest.split_at_mut(stride);
        let class = self.peer.client_view(&self.world, newest, slot, out)?;
        let fields = P::SCHEMA.classes.get(class)?.fields;
        let before = (0..WINDOW).map(|k| frame.wrapping_sub(k));
        let after = (1..=newest.wrapping_sub(frame)).map(|k| frame.wrapping_add(k));
        let record = (&self.world, &self.peer);
        let a_at = sample(record, slot, before, a);
        let b_at = match (a_at, past) {
            (Some(at), 0) if at == frame => None,
            _ => sample(record, slot, after, b),
        };
        let (a, b, t) = match (a_at, b_at) {
            (Some(a_at), Some(b_at)) => {
                let since = u64::from(frame.wrapping_sub(a_at)) * u64::from(ONE) + u64::from(past);
                (&*a, &*b, (since / u64::from(b_at.wrapping_sub(a_at))) as u32)
            }
            (Some(_), None) => (&*a, &*a, 0),
            (None, Some(_)) => (&*b, &*b, 0),
            (None, None) => return None,
        };
        let (n, out) = (fields.len(), &mut out[..fields.len()]);
        blend_row(fields, &self.rewind.blends[class], &a[..n], &b[..n], t, out);
        Some((class, out))
    }

    /// Entity `id` as the client showed it, whatever its class.
    pub fn entity(&mut self, id: u64) -> Option<P> {
        let (class, raw) = self.raw(id)?;
        P::dequantise(class, raw)
    }

    /// Entity `id` as the client showed it, if it is a `C`.
    pub fn get<C: ClassOf<P>>(&mut self, id: u64) -> Option<C> {
        match self.raw(id)? {
            (class, raw) if class == C::INDEX => Some(C::dequantise(raw)),
            _ => None,
        }
    }

    /// Every entity of class `C` the client showed, by id.
    pub fn iter<C: ClassOf<P>>(&mut self) -> impl Iterator<Item = (u64, C)> + use<'_, 'a, P, C> {
        (0..self.world.capacity()).filter_map(move |slot| {
            let id = self.ids.id_of(slot)?;
            Some((id, self.get::<C>(id)?))
        })
    }
}
