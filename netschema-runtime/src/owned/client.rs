//! The owned, typed client: decodes packets into values of the schema's classes.

use core::fmt;
use core::marker::PhantomData;

use super::buffers::ClientBuffers;
use super::frame::{Down, Up};
use super::inputs::SenderEnd;
use super::sight::RenderTime;
use super::texts::client::HeldTexts;
use crate::engine::ack::{Ack, AckOutcome};
use crate::engine::client::{self, ClientState, Reader};
use crate::engine::handshake;
use crate::engine::input::{MAX_INPUT_FIELDS, SenderStats, SyncStats, check_schema};
use crate::engine::records::Records;
use crate::model::predict::{Predictor, Rate};
use crate::schema::Schema;
use crate::{ClassOf, Error, Input, Protocol, Ref, Result, Target};

/// What changed from the previous view to the current one, with the entity's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<P> {
    /// An entity became visible.
    Created {
        /// Its handle: how this client names it while it stays visible.
        handle: u32,
        /// Its value.
        value: P,
        /// Whether the server marked it as this client's own.
        own: bool,
    },
    /// An entity's values changed.
    Updated {
        /// Its handle.
        handle: u32,
        /// Its new value.
        value: P,
    },
    /// An entity is no longer visible; its handle may later name another entity.
    Removed {
        /// Its handle.
        handle: u32,
    },
}

/// What a down frame brought ([`Client::receive`]): each part's outcome, as it would be
/// had the part come alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FromServer {
    /// The state packet's, if the frame carried one: its frame, as [`Client::decode`] gives.
    pub packet: Option<Result<u32>>,
    /// The input ack's, if the frame carried one and this client sends inputs.
    pub input_ack: Option<AckOutcome>,
}

/// The client of a schema `P`: owns its storage, decodes packets, and hands out typed values.
///
/// Connect with the server's welcome ([`Client::connect`]); then per packet
/// [`Client::decode`], read [`Client::events`] or look values up with [`Client::get`] and
/// [`Client::iter`], and send [`Client::ack`] back.
///
/// With inputs ([`Client::hello_with_inputs`], [`Client::connect_with_inputs`]) one datagram
/// each way per tick carries everything: each tick, push the input of every tick up to
/// [`Client::input_tick`] ([`Client::push`], or [`Client::push_input`] raw) and send
/// [`Client::write`]'s frame (the ack and the inputs); give each frame from the server to
/// [`Client::receive`] (the packet, the input ack and the timing that keeps the input tick in
/// step with the server).
pub struct Client<P: Protocol> {
    buffers: ClientBuffers,
    state: ClientState,
    /// The entities' strings and byte blobs, per handle.
    texts: HeldTexts,
    handles: usize,
    inputs: Option<SenderEnd>,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> fmt::Debug for Client<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("schema", &P::SCHEMA.name)
            .field("handles", &self.handles)
            .field("frame", &self.frame())
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> Client<P> {
    /// Writes the hello that asks a server to connect (schema hash and wire version) into
    /// `buf`, for a client that sends no inputs; see [`crate::engine::handshake`]. A server
    /// that takes inputs refuses it ([`Error::InputSchemaMismatch`]):
    /// [`Client::hello_with_inputs`] is the hello of a client that sends them.
    pub fn hello(buf: &mut [u8]) -> Result<usize> {
        handshake::write_hello(P::SCHEMA, None, buf)
    }

    /// Writes the hello of a client that sends inputs of `input` (see
    /// [`check_schema`](crate::engine::input::check_schema); [`Error::InvalidSchema`]
    /// otherwise) into `buf`: the hello names the input schema's hash too, and only a server
    /// that takes the same inputs accepts it
    /// ([`Server::with_inputs`](super::Server::with_inputs)). An input type's schema is
    /// [`Input::SCHEMA`]: `Client::<Game>::hello_with_inputs(Move::SCHEMA, &mut buf)`.
    pub fn hello_with_inputs(input: &Schema, buf: &mut [u8]) -> Result<usize> {
        check_schema(input)?;
        handshake::write_hello(P::SCHEMA, Some(input), buf)
    }

    /// A client for the server whose welcome is `welcome`, sending no inputs. Refuses a
    /// different schema or wire version, a server that takes inputs
    /// ([`Error::InputSchemaMismatch`]; see [`Client::connect_with_inputs`]), and a server
    /// whose clients may see more than `max_handles` entities at once
    /// ([`crate::Error::TooManyHandles`], with both numbers): storage for that many is
    /// allocated here.
    pub fn connect(welcome: &[u8], max_handles: usize) -> Result<Self> {
        let welcome = handshake::read_welcome(P::SCHEMA, None, welcome, max_handles)?;
        Self::new(welcome.handles, None)
    }

    /// A client for the server whose welcome is `welcome`, as [`Client::connect`], sending
    /// inputs of `input` at ticks of `tick_us` microseconds: the server's welcome must name
    /// the same input schema ([`Error::InputSchemaMismatch`] with both hashes otherwise, or
    /// with none for a server without inputs), as the client's hello did
    /// ([`Client::hello_with_inputs`]). The input storage is allocated here too.
    ///
    /// Each tick, push the input of every tick up to [`Client::input_tick`]: typed
    /// ([`Client::push`], for an input type such as `Move`, whose schema, `Move::SCHEMA`, is
    /// `input`) or raw ([`Client::push_input`]).
    pub fn connect_with_inputs(
        welcome: &[u8],
        max_handles: usize,
        input: &'static Schema,
        tick_us: u32,
    ) -> Result<Self> {
        check_schema(input)?;
        let welcome = handshake::read_welcome(P::SCHEMA, Some(input), welcome, max_handles)?;
        let inputs = SenderEnd::new(input, tick_us)?;
        Self::new(welcome.handles, Some(inputs))
    }

    /// A client holding `handles` entities at once, with `inputs` if it sends any.
    fn new(handles: usize, inputs: Option<SenderEnd>) -> Result<Self> {
        let mut buffers = ClientBuffers::new(P::SCHEMA, handles);
        let state = buffers.client(P::SCHEMA, handles)?.state();
        let texts = HeldTexts::new(P::SCHEMA, handles);
        let mut client = Client { buffers, state, texts, handles, inputs, _schema: PhantomData };
        if let Some(inputs) = &mut client.inputs {
            inputs.set_session(client.state.session());
        }
        Ok(client)
    }

    fn inputs(&mut self) -> Result<&mut SenderEnd> {
        self.inputs.as_mut().ok_or(Error::NoInputs)
    }

    /// Adds the input of `tick`, one raw value per field of the input; see
    /// [`InputSender::push`](crate::engine::input::InputSender::push). [`Error::NoInputs`]
    /// without [`Client::connect_with_inputs`].
    pub fn push_input(&mut self, tick: u32, values: &[i32]) -> Result<()> {
        self.inputs()?.push(tick, values)
    }

    /// Adds the input of `tick`, a value of the input type whose schema this client sends
    /// ([`Client::connect_with_inputs`]; [`Error::WrongInput`] for another,
    /// [`Error::NoInputs`] without inputs). A value that is NaN, infinite or outside its
    /// field's range is refused with [`Error::Capture`], naming the input, the field and the
    /// value, as [`Server::set`](super::Server::set) refuses an entity's; nothing is pushed
    /// then. Otherwise as [`Client::push_input`] with the value's raw values.
    pub fn push<I: Input>(&mut self, tick: u32, input: &I) -> Result<()> {
        let inputs = self.inputs()?;
        let expected = inputs.schema();
        if expected.hash != I::SCHEMA.hash {
            return Err(Error::WrongInput { expected: expected.name, given: I::SCHEMA.name });
        }
        let mut raw = [0; MAX_INPUT_FIELDS];
        let raw = raw.get_mut(..I::CLASS.fields.len()).ok_or(Error::InvalidSchema)?;
        input.try_quantise(raw).map_err(Error::Capture)?;
        inputs.push(tick, raw)
    }

    /// Sets what the game renders now, from its [`Interpolator`](super::Interpolator)
    /// ([`Interpolator::render_time`](super::Interpolator::render_time)): every input pushed
    /// from now on carries it to the server, which can then rewind to what this client showed
    /// when it pushed that input ([`Server::seen_by`](super::Server::seen_by)). `None` (the
    /// default) sends none. [`Error::NoInputs`] without [`Client::connect_with_inputs`].
    pub fn set_render_time(&mut self, time: Option<RenderTime>) -> Result<()> {
        self.inputs()?.set_render_time(time);
        Ok(())
    }

    /// The tick whose input to push at local time `now_us` (microseconds of the client's
    /// clock): ahead of the server's tick by the round trip and the server's target delay
    /// (see [`sync`](crate::engine::input::sync)). `None` before the server's first timing
    /// report, or without inputs.
    pub fn input_tick(&self, now_us: u64) -> Option<u32> {
        self.inputs.as_ref()?.sync().input_tick(now_us)
    }

    /// The server's tick at local time `now_us`, as estimated; `None` before its first timing
    /// report, or without inputs.
    pub fn server_tick(&self, now_us: u64) -> Option<u32> {
        self.inputs.as_ref()?.sync().server_tick(now_us)
    }

    /// The input sender's counters and the tick synchronisation's estimates and adjustments;
    /// `None` without inputs.
    pub fn input_stats(&mut self) -> Option<(SenderStats, SyncStats)> {
        Some(self.inputs.as_mut()?.stats())
    }

    /// Writes the frame to send the server at local time `now_us` into `buf` (see the
    /// framing in `docs/protocol.md`): the state ack, if any, and a datagram of every input
    /// the server has not acknowledged, if any, with their render times if they have some
    /// (which take [`UP_HEADER`](super::UP_HEADER) bytes of room before the datagram). [`Error::BufferFull`] if it does not fit.
    pub fn write(&mut self, now_us: u64, buf: &mut [u8]) -> Result<usize> {
        let ack = self.ack();
        let inputs = &mut self.inputs;
        Up::write(ack.as_ref(), buf, |rest| match inputs {
            Some(inputs) => inputs.encode(rest, now_us),
            None => Ok((0, 0)),
        })
    }

    /// Takes a frame from the server received at local time `now_us`: decodes its packet
    /// ([`Client::decode`]), gives its input ack to the input sender and its timing to the
    /// tick synchronisation. A malformed frame ([`Error::Corrupt`],
    /// [`Error::UnexpectedEnd`]) changes nothing; otherwise each part is taken on its own and
    /// its outcome returned.
    pub fn receive(&mut self, frame: &[u8], now_us: u64) -> Result<FromServer> {
        let (down, packet) = Down::read(frame)?;
        let input_ack = match &mut self.inputs {
            Some(inputs) => inputs.received(down.input_ack.as_ref(), down.timing.as_ref(), now_us),
            None => None,
        };
        Ok(FromServer { packet: packet.map(|p| self.decode(p)), input_ack })
    }

    /// Entities this client can hold at once (the server's handle capacity).
    pub fn handles(&self) -> usize {
        self.handles
    }

    fn reader(&self) -> Reader<'_> {
        self.buffers.reader(P::SCHEMA, &self.state)
    }

    /// Decodes a packet and makes its frame the current view; see [`crate::Client::decode`].
    /// [`crate::Error::StalePacket`] and [`crate::Error::UnknownBaseline`] are normal on a
    /// lossy link (a reordered packet, or one coded against a frame that was lost): drop the
    /// packet and go on. The text records it applied set the entities' strings and blobs.
    pub fn decode(&mut self, packet: &[u8]) -> Result<u32> {
        let mut client = self.buffers.resume(P::SCHEMA, self.state);
        let frame = client.decode(packet);
        self.state = client.state();
        if frame.is_ok() {
            self.texts.apply(P::SCHEMA, self.state.records().map(|r| r.bytes));
        }
        frame
    }

    /// Binds this client to a session the server's [`Server::set_session`](super::Server::set_session)
    /// names too; see [`crate::Client::set_session`].
    pub fn set_session(&mut self, session: u64) {
        let mut client = self.buffers.resume(P::SCHEMA, self.state);
        client.set_session(session);
        self.state = client.state();
        if let Some(inputs) = &mut self.inputs {
            inputs.set_session(session);
        }
    }

    /// Forgets every frame held and asks the server to start over; see
    /// [`crate::Client::restart`] (which decoding does by itself on a wedged session).
    pub fn restart(&mut self) {
        let mut client = self.buffers.resume(P::SCHEMA, self.state);
        client.restart();
        self.state = client.state();
    }

    /// The newest frame decoded, if any, numbered as on the server.
    pub fn frame(&self) -> Option<u32> {
        self.state.frame()
    }

    /// The acknowledgement to send to the server.
    pub fn ack(&self) -> Option<Ack> {
        self.reader().ack()
    }

    /// How many frames before the current one the server had the values this client shows of
    /// the entity at `handle` (0: sent in the current frame); see
    /// [`Client::age`](crate::Client::age).
    pub fn age(&self, handle: u32) -> Option<u32> {
        self.reader().age(handle)
    }

    /// The entity at `handle` in the current view, raw, with where its values come from (the
    /// frame its handle got it and the frame its values were the world's); see
    /// [`Client::sample`](crate::Client::sample).
    pub fn sample(&self, handle: u32) -> Option<client::Sample<'_>> {
        self.reader().sample(handle)
    }

    /// The handle of the entity link `link` of the entity at `handle` names, if this client
    /// holds it; see [`Client::link`](crate::Client::link).
    pub fn link(&self, handle: u32, link: usize) -> Option<u32> {
        self.reader().link(handle, link)
    }

    /// The rate of change of field `field` (its index among the class's scalar fields) of the
    /// entity at `handle`, raw steps per frame, from the values this client holds: see
    /// [`Client::rate`](crate::Client::rate). Nothing more is sent for it.
    pub fn rate(&self, handle: u32, field: usize, order: Predictor) -> Option<Rate> {
        self.reader().rate(handle, field, order)
    }

    /// The entity at `handle`, if it is a `C`: its newest values (see
    /// [`Client::view`](crate::Client::view)), its references pointed at the handles this
    /// client holds their targets under ([`Client::link`]), its strings and byte blobs the
    /// latest the server sent for it (empty until the first arrives).
    pub fn get<C: ClassOf<P>>(&self, handle: u32) -> Option<C> {
        match self.reader().get(handle)? {
            (class, raw) if class == C::INDEX => {
                let mut value = C::dequantise(raw);
                self.links(handle, class, |l, t| value.set_link(l, t));
                self.texts(handle, class, |t, bytes| value.set_text(t, bytes));
                Some(value)
            }
            _ => None,
        }
    }

    /// The entity at `handle`, whatever its class, its references and texts as by
    /// [`Client::get`].
    pub fn entity(&self, handle: u32) -> Option<P> {
        let (class, raw) = self.reader().get(handle)?;
        let mut value = P::dequantise(class, raw)?;
        self.links(handle, class, |l, t| value.set_link(l, t));
        self.texts(handle, class, |t, bytes| value.set_text(t, bytes));
        Some(value)
    }

    /// Calls `set` with each text field of the entity at `handle` (of class `class`) this
    /// client holds a text of.
    fn texts(&self, handle: u32, class: usize, mut set: impl FnMut(usize, &[u8]) -> bool) {
        let count = P::SCHEMA.classes.get(class).map_or(0, |c| c.texts.len());
        if count > 0
            && let Some(sample) = self.sample(handle)
        {
            self.texts.fill(handle, sample.born, count, |t, bytes| {
                set(t, bytes);
            });
        }
    }

    /// The entity a reference of a value this client read names, if this client holds it and
    /// it is a `T` ([`Client::get`] or, for a reference to any class, [`Client::entity`]).
    pub fn follow<T: Target<P>>(&self, target: Ref<T>) -> Option<T> {
        self.entity(target.handle()?).and_then(T::from_entity)
    }

    /// Calls `set` with each link of the entity at `handle` (of class `class`) and the handle
    /// it names.
    fn links(&self, handle: u32, class: usize, mut set: impl FnMut(usize, Option<u64>)) {
        let links = P::SCHEMA.classes.get(class).map_or(0, |c| c.links.len());
        for l in 0..links {
            set(l, self.link(handle, l).map(u64::from));
        }
    }

    /// Whether the server marked the entity at `handle` as this client's own.
    pub fn is_own(&self, handle: u32) -> bool {
        self.reader().is_own(handle)
    }

    /// Every entity of class `C` in the current view, by handle, as [`Client::get`] reads
    /// them.
    pub fn iter<C: ClassOf<P>>(&self) -> impl Iterator<Item = (u32, C)> + use<'_, P, C> {
        self.reader()
            .view()
            .filter(|&(_, class, _)| class == C::INDEX)
            .filter_map(|(h, _, _)| Some((h, self.get(h)?)))
    }

    /// Every entity in the current view, by handle, as [`Client::entity`] reads them.
    pub fn entities(&self) -> impl Iterator<Item = (u32, P)> + '_ {
        self.reader().view().filter_map(|(h, _, _)| Some((h, self.entity(h)?)))
    }

    /// Every entity of the current frame exactly as its packet set it, raw, by handle: what the
    /// server records this client holds ([`Server::client_view`](super::Server::client_view)).
    /// See [`Client::frame_view`](crate::Client::frame_view).
    pub fn frame_view(&self) -> impl Iterator<Item = (u32, usize, &[i32])> + '_ {
        self.reader().frame_view()
    }

    /// The records the last accepted packet applied, in order, each with its number and the
    /// frame it belongs to (sent by [`Server::send_record`](super::Server::send_record)); see
    /// [`Client::records`](crate::Client::records). Read them after each packet: the next
    /// accepted packet replaces them.
    pub fn records(&self) -> Records<'_> {
        self.state.records()
    }

    /// The records received that wait for an earlier one still missing; see
    /// [`Client::waiting_records`](crate::Client::waiting_records).
    pub fn waiting_records(&self) -> Records<'_> {
        self.state.waiting_records()
    }

    /// What changed from the previous view to the current one, by handle.
    pub fn events(&self) -> impl Iterator<Item = Event<P>> + '_ {
        let reader = self.reader();
        reader.events().filter_map(move |e| match e {
            client::Event::Created { handle, .. } => {
                let value = self.entity(handle)?;
                Some(Event::Created { handle, value, own: reader.is_own(handle) })
            }
            client::Event::Updated { handle } => {
                Some(Event::Updated { handle, value: self.entity(handle)? })
            }
            client::Event::Removed { handle } => Some(Event::Removed { handle }),
        })
    }
}
