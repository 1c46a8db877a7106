//! The encoder's side of the packet walk ([`Side`]): targets from the world, what the client
//! holds from the peer's record, and the record written for the new frame.

use super::NO_HANDLE;
use super::ids::{self, IdSlot};
use crate::engine::bitset::{put_bit, test_bit};
use crate::engine::frame::age;
use crate::engine::lags::{self, LagView};
use crate::engine::pack::{self, Budget, Candidate, Rank};
use crate::engine::packet::{Check, Refs, Samples, Side, in_window, links};
use crate::engine::world::World;
use crate::engine::young::YOUNG_REACH;
use crate::model::predict::MAX_SAMPLES;
use crate::schema::{Class, MAX_GROUPS, Schema};

use crate::Result;

/// The values a client holds of the entity whose row starts at `at` in the world's rows, of
/// `class`, at frame `t`, given its `lags` (per group) and `diffs` (per tolerant field) there:
/// calls `put(f, value)` for each field `f` from `lo` on.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn held_values(
    world: &World<'_>,
    class: &Class,
    at: usize,
    t: u32,
    lags: &[u8],
    diffs: &[i8],
    lo: usize,
    mut put: impl FnMut(usize, i32),
) {
    let stride = world.schema().max_fields;
    let row = |group: usize| {
        let lag = u32::from(lags.get(group).copied().unwrap_or(0));
        world.frame_rows(t.wrapping_sub(lag)).get(at + lo..at + stride).unwrap_or(&[])
    };
    let fields = class.fields.get(lo..).unwrap_or(&[]);
    let mut rows: [&[i32]; MAX_GROUPS] = [&[]; MAX_GROUPS];
    for (group, r) in rows.iter_mut().enumerate().take(class.group_count()) {
        *r = row(group);
    }
    let mut tolerant =
        class.fields[..lo.min(class.fields.len())].iter().filter(|f| f.tolerance > 0).count();
    for (f, field) in fields.iter().enumerate() {
        let v = rows[usize::from(field.group) % MAX_GROUPS].get(f).copied().unwrap_or(0);
        put(
            f,
            if field.tolerance > 0 {
                tolerant += 1;
                field.reconstruct(v, i32::from(diffs.get(tolerant - 1).copied().unwrap_or(0)))
            } else {
                v
            },
        );
    }
}

/// The encoder's side of the packet walk: reads targets from the world and what the client
/// holds from the peer's record, writes that record for the new frame, and packs the budget.
pub(super) struct EncoderSide<'s, 'w> {
    pub(super) world: &'s World<'w>,
    pub(super) refs: &'s Refs,
    pub(super) schema: &'s Schema,
    pub(super) handles: u32,
    /// Values per row in the world.
    pub(super) stride: usize,
    /// Lags per handle (the schema's most update groups).
    pub(super) groups: usize,
    /// Differences per handle (the schema's most fields with a tolerance).
    pub(super) tolerant: usize,
    /// Class of every id at the new frame.
    pub(super) classes: &'s [u16],
    /// Rows of every id at the new frame.
    pub(super) rows: &'s [i32],
    /// Rows of every id at each history frame.
    pub(super) history_rows: [&'s [i32]; MAX_SAMPLES],
    /// Handles present at the new frame.
    pub(super) presence: &'s mut [u64],
    pub(super) history_presence: [&'s [u64]; MAX_SAMPLES],
    /// The frames whose packets sent each handle's groups (see [`crate::engine::lags`]), to which
    /// the new frame's bit, `now`, is added as they are sent.
    pub(super) sends: &'s mut [u128],
    pub(super) now: u128,
    /// How the lags of each history frame are read.
    pub(super) history_lags: [LagView; MAX_SAMPLES],
    /// The largest lag in each history slot.
    pub(super) history_max_lag: [u8; MAX_SAMPLES],
    /// Whether any history slot holds values from an earlier frame.
    pub(super) history_held: bool,
    /// The largest lag written for the new frame.
    pub(super) max_lag: u8,
    /// Differences of every handle's tolerant fields at the new frame, then at each history
    /// frame.
    pub(super) diffs: &'s mut [i8],
    pub(super) history_diffs: [&'s [i8]; MAX_SAMPLES],
    /// Links of every handle at the new frame, and at the baseline (see
    /// [`PeerStorage::links`](super::PeerStorage::links)).
    pub(super) links: &'s mut [u16],
    pub(super) base_links: &'s [u16],
    /// The entities marked for the client and their handles.
    pub(super) ids: &'s [IdSlot],
    pub(super) handle_entity: &'s [u32],
    pub(super) since: &'s [u32],
    pub(super) handle_own: &'s [u64],
    /// Whether each handle's entity is essential to the client.
    pub(super) handle_essential: &'s [u64],
    /// The game's weight of each handle's entity.
    pub(super) weights: &'s [u16],
    /// The frame each handle was last sent in.
    pub(super) sent_at: &'s [u32],
    /// Handles coded young in the new frame (see [`crate::engine::young`]).
    pub(super) young: &'s mut [u64],
    /// Handles whose entity came in whole in the packet of the frame its handle was given.
    pub(super) entries: &'s [u64],
    /// The frames before the new one (bit `i`: `i + 1` frames before) whose packets the client
    /// may hold: sent, and not shown lost by its acks.
    pub(super) referable: u64,
    pub(super) order: &'s mut [u64],
    pub(super) budget: Budget<'s>,
    pub(super) cursor: u32,
    /// The word of handles [`Side::next_enter_hint`] last looked at, and which of them are
    /// absent at the baseline or given their entity since: found once per word and pass.
    pub(super) absent: (usize, u64),
}

impl EncoderSide<'_, '_> {
    #[inline]
    fn entity(&self, h: u32) -> usize {
        self.handle_entity[h as usize] as usize
    }

    #[inline]
    fn live(&self, h: u32) -> bool {
        self.handle_entity[h as usize] != NO_HANDLE
    }

    /// Whether entering handle `h` entered in a packet sent after the baseline (any packet
    /// without one), which the client may have taken and show: entering again is what keeps
    /// it there, so it ranks with the forced updates ([`Rank::Forced`]).
    #[inline]
    pub(super) fn entry_in_flight(&self, h: u32) -> bool {
        let (since, sent) = (self.since[h as usize], self.sent_at[h as usize]);
        age(sent, since) as i32 >= 0 && self.refs.base().is_none_or(|b| age(sent, b) as i32 > 0)
    }

    /// Whether handle `h` was given its entity after the baseline: if the baseline has it,
    /// that is another entity, which leaves as this one enters.
    #[inline]
    fn renewed(&self, h: u32) -> bool {
        self.refs.base().is_some_and(|b| (age(b, self.since[h as usize]) as i32) < 0)
    }

    #[inline]
    fn class_of(&self, h: u32) -> Option<&Class> {
        let c = *self.classes.get(self.entity(h))?;
        self.schema.classes.get(usize::from(c))
    }

    #[inline]
    fn groups(&self) -> usize {
        self.groups
    }

    /// The lag of handle `h`'s group `g` at history frame `j`.
    #[inline]
    fn lag(&self, j: usize, h: u32, g: usize) -> u8 {
        self.history_lags[j].lag_of(self.sends, self.groups, h, g)
    }

    /// The lags of handle `h`'s groups at history frame `j`.
    #[inline]
    fn lags(&self, j: usize, h: u32) -> [u8; MAX_GROUPS] {
        core::array::from_fn(|g| if g < self.groups { self.lag(j, h, g) } else { 0 })
    }

    #[inline]
    fn tolerant(&self) -> usize {
        self.tolerant
    }
}

impl<'s> Side<'s> for EncoderSide<'s, '_> {
    const ENCODER: bool = true;

    fn handles(&self) -> u32 {
        self.handles
    }

    #[inline]
    fn base_present(&self, h: u32) -> bool {
        self.refs.len > 0 && test_bit(self.history_presence[0], h as usize)
    }

    #[inline]
    fn base_class(&self, h: u32) -> usize {
        self.classes.get(self.entity(h)).map_or(0, |&c| usize::from(c))
    }

    #[inline]
    fn new_class(&self, h: u32) -> usize {
        self.base_class(h)
    }

    #[inline]
    fn staleness(&self, h: u32, g: usize) -> u32 {
        u32::from(self.lag(0, h, g)) + self.refs.distance()
    }

    #[inline]
    fn present(&self, h: u32) -> bool {
        test_bit(self.presence, h as usize)
    }

    #[inline]
    fn kept(&self, h: u32) -> bool {
        self.base_present(h) && self.present(h) && !self.renewed(h)
    }

    #[inline]
    fn must_have(&self, h: u32) -> bool {
        test_bit(self.handle_own, h as usize) || test_bit(self.handle_essential, h as usize)
    }

    #[inline]
    fn forced_entry(&self, h: u32) -> bool {
        self.must_have(h) || self.entry_in_flight(h)
    }

    fn keep_hint(&self, h: u32) -> bool {
        self.live(h) && !self.renewed(h)
    }

    fn next_enter_hint(&mut self) -> Option<(u32, usize, u32, bool)> {
        while self.cursor < self.handles {
            // Handles from the cursor on absent at the baseline, a word at a time.
            let word = self.cursor as usize / 64;
            if self.absent.0 != word {
                let base = match self.refs.len {
                    0 => 0,
                    _ => self.history_presence[0].get(word).copied().unwrap_or(0),
                };
                // With the handles given an entity since the baseline, whoever held them there.
                let (mut renewed, mut present) = (0u64, base);
                while present != 0 {
                    let i = present.trailing_zeros();
                    present &= present - 1;
                    if self.renewed(word as u32 * 64 + i) {
                        renewed |= 1 << i;
                    }
                }
                self.absent = (word, !base | renewed);
            }
            let absent = self.absent.1 >> (self.cursor % 64);
            if absent == 0 {
                self.cursor = (word as u32 + 1) * 64;
                continue;
            }
            let h = self.cursor + absent.trailing_zeros();
            self.cursor = h + 1;
            if h < self.handles && self.live(h) && self.budget.selected(h) {
                let own = test_bit(self.handle_own, h as usize);
                let age = age(self.refs.frame, self.since[h as usize]);
                return Some((h, self.base_class(h), age, own));
            }
        }
        None
    }

    fn plan(&mut self, len: usize) {
        let mut budget = core::mem::replace(
            &mut self.budget,
            Budget::new(0, [&mut [], &mut [], &mut []], &mut [], 256),
        );
        let order = core::mem::take(&mut self.order);
        let this = &*self;
        let candidates = |emit: &mut dyn FnMut(Candidate)| {
            for h in 0..this.handles {
                let Some(class) = this.class_of(h).filter(|_| this.live(h)) else { continue };
                let weight = u32::from(this.weights[h as usize]);
                let must = this.must_have(h);
                let groups = (0..class.group_count()).map(|g| (g, class.group(g)));
                let enters = !this.base_present(h) || this.renewed(h);
                let (rank, urgency) = if enters {
                    // Waiting to enter since its handle was given.
                    let waited = age(this.refs.frame, this.since[h as usize]) + 1;
                    let rate: u32 = groups.map(|(_, g)| u32::from(g.priority)).sum();
                    let rank = match this.entry_in_flight(h) {
                        true => Rank::Forced,
                        false => Rank::Enter,
                    };
                    (rank, rate.saturating_mul(waited))
                } else if !this.present(h) {
                    continue;
                } else {
                    // How old the newest values the client has are (the frames since the entity
                    // was last sent), over its due groups.
                    let (mut urgency, mut oldest) = (0u32, 0);
                    let shown = age(this.refs.frame, this.sent_at[h as usize]);
                    for (i, g) in groups {
                        let stale = this.staleness(h, i);
                        oldest = oldest.max(stale);
                        if stale >= u32::from(g.interval) {
                            urgency = urgency.saturating_add(u32::from(g.priority) * shown.max(1));
                        }
                    }
                    if urgency == 0 {
                        continue;
                    }
                    let forced = pack::forced(oldest, this.refs.distance());
                    (if forced { Rank::Forced } else { Rank::Update }, urgency)
                };
                // Must-have entities go first, entering or with an update due.
                let (rank, priority) = match must {
                    true => (Rank::Forced, u32::MAX),
                    false => (rank, urgency.saturating_mul(weight)),
                };
                emit(Candidate { h, rank, priority, enters });
            }
        };
        let live = |h: usize| this.handle_entity.get(h).is_some_and(|&e| e != NO_HANDLE);
        let bound = pack::schema_bound_bits(self.schema, self.handles);
        budget.select(len, bound, live, candidates, order);
        self.budget = budget;
        self.order = order;
    }

    fn packer(&mut self) -> Option<&mut Budget<'s>> {
        Some(&mut self.budget)
    }

    fn begin(&mut self, h: u32, _class: usize, _age: Option<u32>, _own: bool) -> Result<()> {
        put_bit(self.presence, h as usize, true);
        Ok(())
    }

    fn unbegin(&mut self, h: u32) {
        put_bit(self.presence, h as usize, false);
        put_bit(self.young, h as usize, false);
        let (g, now) = (self.groups, self.now);
        for sends in self.sends.iter_mut().skip(h as usize * g).take(g) {
            *sends &= !now;
        }
    }

    #[inline]
    fn young_hint(&self, h: u32, age: u32) -> bool {
        (1..=YOUNG_REACH).contains(&age)
            && self.referable >> (age - 1) & 1 != 0
            && test_bit(self.entries, h as usize)
            && self.since[h as usize] == self.refs.frame.wrapping_sub(age)
            && (self.tolerant == 0
                || self.class_of(h).is_some_and(|c| c.fields.iter().all(|f| f.tolerance == 0)))
    }

    #[inline]
    fn young(&mut self, h: u32, _class: usize, _entry: u32) -> bool {
        put_bit(self.young, h as usize, true);
        true
    }

    #[inline]
    fn entry_value(&self, h: u32, f: usize) -> i32 {
        let rows = self.world.frame_rows(self.since[h as usize]);
        rows.get(self.entity(h) * self.stride + f).copied().unwrap_or(0)
    }

    fn finish(&mut self) {}

    #[inline]
    fn history_len(&self, h: u32, class: &Class) -> usize {
        let (since, g) = (self.since[h as usize], self.groups());
        let groups = class.group_count();
        (0..self.refs.len)
            .take_while(|&j| {
                let (t, frame) = (self.refs.history[j], self.refs.frame);
                test_bit(self.history_presence[j], h as usize)
                    && age(t, since) as i32 >= 0
                    && (in_window(frame, t, self.history_max_lag[j])
                        || (0..groups.min(g)).all(|gr| in_window(frame, t, self.lag(j, h, gr))))
            })
            .count()
    }

    #[inline]
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]> {
        if !self.history_held || self.history_max_lag[..k].iter().all(|&l| l == 0) {
            return None;
        }
        Some(core::array::from_fn(|j| {
            self.refs.history[j].wrapping_sub(u32::from(self.lag(j, h, 0)))
        }))
    }

    #[inline]
    fn still(&self, h: u32, k: usize, _class: &Class) -> bool {
        let Some(&oldest) = self.refs.history.get(k.wrapping_sub(1)) else { return false };
        self.world.still_since(self.entity(h), oldest)
    }

    #[inline]
    fn keep_still(&mut self, h: u32, class: &Class, check: &mut Check) {
        // Nothing tolerant to record: the client holds exactly the world's row.
        let row = self.target_row(h);
        row.iter().take(class.fields.len()).for_each(|&v| check.add(v as u32));
    }

    #[inline(always)]
    fn samples(&self, h: u32, k: usize, lo: usize, class: &Class, samples: &mut Samples) {
        let at = self.entity(h) * self.stride;
        let (g, d) = (self.groups(), self.tolerant());
        let n = class.fields.len().saturating_sub(lo);
        for j in 0..k {
            let lags = || self.lags(j, h);
            let held = |lags: &[u8; MAX_GROUPS]| lags[..g.min(MAX_GROUPS)].iter().any(|&l| l > 0);
            if d == 0 && (self.history_max_lag[j] == 0 || !held(&lags())) {
                // The common case: the client holds the world's row at the history frame.
                let row = self.history_rows[j].get(at + lo..at + self.stride).unwrap_or(&[]);
                // Zipped with slices alone, the copy compiles to a plain counted loop.
                for (s, &v) in samples.iter_mut().zip(&row[..n.min(row.len())]) {
                    s[j] = v;
                }
                continue;
            }
            let diffs = self.history_diffs[j].get(h as usize * d..).unwrap_or(&[]);
            let diffs = &diffs[..d.min(diffs.len())];
            let t = self.refs.history[j];
            let lags = lags();
            held_values(self.world, class, at, t, &lags[..g.min(MAX_GROUPS)], diffs, lo, |f, v| {
                if let Some(s) = samples.get_mut(f) {
                    s[j] = v;
                }
            });
        }
    }

    #[inline]
    fn target_row(&self, h: u32) -> &'s [i32] {
        let at = self.entity(h) * self.stride;
        self.rows.get(at..at + self.stride).unwrap_or(&[])
    }

    #[inline(always)]
    fn store(&mut self, h: u32, f: usize, value: i32, coded: bool, tolerant: Option<usize>) {
        let Some(t) = tolerant else { return };
        let at = h as usize * self.tolerant() + t;
        let diff = if coded {
            let truth = self.target_row(h).get(f).copied().unwrap_or(value);
            let field = self.class_of(h).and_then(|c| c.fields.get(f));
            field.map_or(0, |field| field.residual(value, truth)) as i8
        } else {
            self.history_diffs[0].get(at).copied().unwrap_or(0)
        };
        if let Some(d) = self.diffs.get_mut(at) {
            *d = diff;
        }
    }

    #[inline]
    fn sent_groups(&mut self, h: u32, class: &Class, due: u32) {
        let (g, groups, now) = (self.groups, class.group_count(), self.now);
        if g == 1 && due & 1 != 0 {
            // One group, sent: the common case.
            if let Some(sent) = self.sends.get_mut(h as usize) {
                *sent |= now;
            }
            return;
        }
        for group in 0..g {
            // A group held may have been coded in an attempt the packet took back.
            let sent = lags::sends_group(group, groups, due);
            if !sent {
                self.max_lag = self.max_lag.max(lags::lag_byte(self.staleness(h, group)));
            }
            if let Some(sends) = self.sends.get_mut(h as usize * g + group) {
                *sends = if sent { *sends | now } else { *sends & !now };
            }
        }
    }

    fn hold(&mut self, h: u32, class: &Class) {
        links::hold(self, h, class);
        self.sent_groups(h, class, 0);
        let d = self.tolerant();
        let at = h as usize * d;
        if let (Some(to), Some(from)) =
            (self.diffs.get_mut(at..at + d), self.history_diffs[0].get(at..at + d))
        {
            to.copy_from_slice(from);
        }
    }

    fn hold_all(&mut self) {
        self.presence.copy_from_slice(self.history_presence[0]);
        // No group of any handle is sent: every lag is the baseline's, `distance` frames more.
        let largest = u32::from(self.history_max_lag[0]) + self.refs.distance();
        self.max_lag = self.max_lag.max(lags::lag_byte(largest));
        self.diffs.copy_from_slice(self.history_diffs[0]);
        let n = self.links.len().min(self.base_links.len());
        self.links[..n].copy_from_slice(&self.base_links[..n]);
    }

    #[inline]
    fn base_link(&self, h: u32, r: usize) -> u32 {
        let at = h as usize * self.schema.max_links + r;
        self.base_links.get(at).map_or(0, |&l| u32::from(l))
    }

    fn link_truth(&self, h: u32, r: usize) -> u32 {
        let link = self.class_of(h).and_then(|c| c.links.get(r));
        let target = match (link, self.world.link(self.entity(h), r)) {
            (Some(link), Some(target)) => {
                let class = self.world.class_now(target);
                link.target.is_none_or(|c| class == Some(usize::from(c))).then_some(target)
            }
            _ => None,
        };
        let handle = target.and_then(|t| Some((t, ids::get(self.ids, t)?.handle()?)));
        match handle {
            Some((t, th)) if self.present(th as u32) && self.entity(th as u32) == t => {
                th as u32 + 1
            }
            _ => 0,
        }
    }

    #[inline]
    fn set_link(&mut self, h: u32, r: usize, target: u32) {
        if let Some(l) = self.links.get_mut(h as usize * self.schema.max_links + r) {
            // A link names a handle (plus 1): at most `MAX_HANDLES`.
            *l = target as u16;
        }
    }
}
