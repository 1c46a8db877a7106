//! Hostile acks into a server peer: forged, replayed, mutated and restart requests, chosen by
//! the input, between honest ones. The peer never fails to encode and never allocates, and its
//! packets equal those of an honest twin that receives only the honest acks (and, for each ack
//! the peer refused, a refused one too): acks it ignores change nothing.
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use libfuzzer_sys::fuzz_target;
use netschema_fuzz::{CLIENT_HANDLES as HANDLES, CLIENT_SCHEMA as SCHEMA};
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::{Ack, AckOutcome};

/// Counts allocations, so that the target can check the peer makes none.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, so from the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ENTITIES: usize = 12;

/// Reads the input a byte at a time, zeros once it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
    fn word(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut wb = WorldBuffers::new(&SCHEMA, ENTITIES);
    let mut world = wb.world(&SCHEMA, ENTITIES).unwrap();
    let (mut pb, mut tb) = (
        PeerBuffers::new(&SCHEMA, HANDLES, ENTITIES),
        PeerBuffers::new(&SCHEMA, HANDLES, ENTITIES),
    );
    let mut peer = pb.peer(&SCHEMA, HANDLES, ENTITIES).unwrap();
    let mut twin = tb.peer(&SCHEMA, HANDLES, ENTITIES).unwrap();
    let mut cb = ClientBuffers::new(&SCHEMA, HANDLES);
    let mut client = cb.client(&SCHEMA, HANDLES).unwrap();
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
        twin.set_visible(id, true).unwrap();
    }
    let (mut buf, mut twin_buf) = (vec![0u8; 2048], vec![0u8; 2048]);
    let mut honest: Vec<Ack> = Vec::new();
    // Once a hostile ack is accepted or restarts the peer, the two may part.
    let mut same = true;
    let refused = Ack { latest: 0, bits: 0, proof: 1, ..Ack::default() };
    for step in 0..48i32 {
        if input.0.is_empty() {
            break;
        }
        world.begin_frame();
        for id in 0..ENTITIES {
            let x = (id as i32 * 900 + step * i32::from(input.byte() % 7)) & 0xffff;
            world.set(id, 0, &[x, (step * 3) & 1023, 1, 0]).unwrap();
        }
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let len = peer.encode(&world, &mut buf).expect("the peer encodes whatever acks came");
        assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), before, "the peer allocated");
        let twin_len = twin.encode(&world, &mut twin_buf).unwrap();
        if same {
            assert_eq!(buf[..len], twin_buf[..twin_len], "an ignored ack changed a packet");
        }
        if input.byte() & 3 != 0 && client.decode(&buf[..len]).is_ok() {
            honest.extend(client.ack());
        }
        for _ in 0..input.byte() % 4 {
            let kind = input.byte();
            let ack = match kind % 6 {
                // An honest ack, late.
                0 | 1 if !honest.is_empty() => {
                    let ack = honest[usize::from(input.byte()) % honest.len()];
                    let outcome = peer.receive_ack(&ack);
                    twin.receive_ack(&ack);
                    assert_ne!(outcome, AckOutcome::Refused, "an honest ack was refused");
                    continue;
                }
                // An honest ack with a field changed.
                2 if !honest.is_empty() => {
                    let mut ack = honest[usize::from(input.byte()) % honest.len()];
                    match kind >> 4 & 3 {
                        0 => ack.latest ^= u16::from(input.byte()),
                        1 => ack.bits ^= input.word(),
                        2 => ack.proof ^= input.word(),
                        _ => ack.view = Some(input.word()),
                    }
                    ack
                }
                3 => Ack::restart([input.word(), input.word()]),
                _ => Ack {
                    latest: u16::from_le_bytes([input.byte(), input.byte()]),
                    bits: input.word(),
                    proof: input.word(),
                    ..Ack::default()
                },
            };
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let outcome = peer.receive_ack(&ack);
            assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), before, "the peer allocated");
            match outcome {
                AckOutcome::Refused if ack.is_restart() => {
                    twin.receive_ack(&Ack::restart([0, 0]));
                }
                AckOutcome::Refused => {
                    twin.receive_ack(&refused);
                }
                AckOutcome::Stale => {}
                AckOutcome::Accepted | AckOutcome::Restart => same = false,
            }
        }
    }
});
