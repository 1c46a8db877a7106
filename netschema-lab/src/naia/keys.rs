//! naia's `KeyGenerator` for host entity ids: new ids count up from 0; a released id is
//! reused, oldest first, once it has rested 60 seconds (3600 frames at 60 Hz).

use std::collections::VecDeque;

/// Frames a released id rests before reuse.
const RECYCLE_FRAMES: u32 = 3600;

/// Host entity ids of one connection.
#[derive(Debug, Default)]
pub(super) struct Keys {
    resting: VecDeque<(u16, u32)>,
    ready: VecDeque<u16>,
    next: u16,
}

impl Keys {
    /// An id for an entity spawned at `frame`.
    pub(super) fn generate(&mut self, frame: u32) -> Option<u16> {
        while self.resting.front().is_some_and(|&(_, at)| frame.wrapping_sub(at) >= RECYCLE_FRAMES)
        {
            self.ready.extend(self.resting.pop_front().map(|(key, _)| key));
        }
        if let Some(key) = self.ready.pop_front() {
            return Some(key);
        }
        let key = self.next;
        self.next = self.next.checked_add(1)?;
        Some(key)
    }

    /// Releases `key` at `frame`.
    pub(super) fn recycle(&mut self, key: u16, frame: u32) {
        self.resting.push_back((key, frame));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_ids_rest_a_minute() {
        let mut keys = Keys::default();
        assert_eq!((keys.generate(0), keys.generate(0)), (Some(0), Some(1)));
        keys.recycle(0, 10);
        assert_eq!(keys.generate(3609), Some(2));
        assert_eq!(keys.generate(3610), Some(0));
    }
}
