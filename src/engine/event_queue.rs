//! The engine's event queue: events ordered by (virtual time, class, sequence number),
//! the order [`super::runtime::Engine`] runs them in.
//!
//! Contract: [`EventQueue::pop`] returns the event with the smallest (`at`, `class`,
//! `seq`) key, exactly as a binary heap over those keys would; `seq` is unique and
//! increasing in push order (the engine's counter), so the order is total and the same on
//! every host. What it adds is speed, not behaviour:
//!
//! - the heap holds 24-byte keys; the events (with their epoch) live in a slab of reused
//!   slots, so sifting moves no payload (an `Ev` with a mail or a decline reason is ~50
//!   bytes);
//! - an event scheduled for the current instant in class 0 — most of the engine's
//!   traffic: wake-ups of idle tasks, mails, local hand-overs — goes to a FIFO instead of
//!   the heap. Its key is larger than every key already in that FIFO (same time and
//!   class, a higher sequence number), so the FIFO stays sorted, and `pop` takes the
//!   smaller of the heap's and the FIFO's heads: the order is the heap's order.
//!
//! This is a discrete-event simulator's classic calendar split (a "now" list beside the
//! future event set); Flink itself has no such structure (its tasks run on threads).

use super::time::Micros;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Ordering key of one queued event, with the slab slot holding its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    at: Micros,
    /// `class << 56 | seq`: class first, then push order.
    order: u64,
    slot: u32,
}

const SEQ_BITS: u32 = 56;

/// A queued event as [`EventQueue::pop`] hands it back.
#[derive(Clone, Debug)]
pub struct Popped<E> {
    pub at: Micros,
    pub class: u8,
    pub seq: u64,
    pub epoch: u32,
    pub ev: E,
}

#[derive(Clone, Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Key>>,
    /// Class-0 events of one instant, in push (= key) order.
    now: VecDeque<Key>,
    slots: Vec<Option<(u32, E)>>,
    free: Vec<u32>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            now: VecDeque::new(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<E> EventQueue<E> {
    /// Queues `ev` at `at` (the caller has already clamped it to the current instant
    /// `current`). `seq` must be larger than every `seq` pushed before.
    pub fn push(&mut self, at: Micros, class: u8, seq: u64, epoch: u32, ev: E, current: Micros) {
        debug_assert!(seq < 1 << SEQ_BITS);
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some((epoch, ev));
                s
            }
            None => {
                self.slots.push(Some((epoch, ev)));
                (self.slots.len() - 1) as u32
            }
        };
        let key = Key {
            at,
            order: ((class as u64) << SEQ_BITS) | seq,
            slot,
        };
        let same_instant = self.now.back().is_none_or(|k| k.at == at);
        if class == 0 && at == current && same_instant {
            self.now.push_back(key);
        } else {
            self.heap.push(Reverse(key));
        }
    }

    /// The smallest key's (time, class), without removing it.
    pub fn peek(&self) -> Option<(Micros, u8)> {
        self.head()
            .map(|(k, _)| (k.at, (k.order >> SEQ_BITS) as u8))
    }

    /// The smallest key, and whether it is the FIFO's.
    fn head(&self) -> Option<(Key, bool)> {
        match (self.heap.peek(), self.now.front()) {
            (Some(Reverse(h)), Some(n)) => Some(if n < h { (*n, true) } else { (*h, false) }),
            (Some(Reverse(h)), None) => Some((*h, false)),
            (None, Some(n)) => Some((*n, true)),
            (None, None) => None,
        }
    }

    /// Removes and returns the event with the smallest key.
    pub fn pop(&mut self) -> Option<Popped<E>> {
        self.pop_at_most(Micros::MAX)
    }

    /// Removes and returns the event with the smallest key if it is due at or before
    /// `limit` (one look at the heads, where `peek` then `pop` took two).
    pub fn pop_at_most(&mut self, limit: Micros) -> Option<Popped<E>> {
        let (key, fifo) = self.head()?;
        if key.at > limit {
            return None;
        }
        if fifo {
            self.now.pop_front();
        } else {
            self.heap.pop();
        }
        let (epoch, ev) = self.slots[key.slot as usize]
            .take()
            .expect("a queued key has its event");
        self.free.push(key.slot);
        Some(Popped {
            at: key.at,
            class: (key.order >> SEQ_BITS) as u8,
            seq: key.order & ((1 << SEQ_BITS) - 1),
            epoch,
            ev,
        })
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.now.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the events `keep` accepts (order unchanged).
    pub fn retain(&mut self, mut keep: impl FnMut(&E) -> bool) {
        let slots = &mut self.slots;
        let free = &mut self.free;
        let mut drop_unkept = |k: &Key| {
            let kept = slots[k.slot as usize]
                .as_ref()
                .is_some_and(|(_, ev)| keep(ev));
            if !kept {
                slots[k.slot as usize] = None;
                free.push(k.slot);
            }
            kept
        };
        let mut heap = std::mem::take(&mut self.heap).into_vec();
        heap.retain(|Reverse(k)| drop_unkept(k));
        self.heap = BinaryHeap::from(heap);
        self.now.retain(|k| drop_unkept(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pop takes the smallest (at, class, seq) key queued at that moment, whatever
    /// mix of instants, classes and FIFO use (checked against an ordered set).
    #[test]
    fn pops_in_key_order() {
        let mut q = EventQueue::default();
        let mut model = std::collections::BTreeSet::new();
        let mut rng = crate::engine::rng::Rng::new(7);
        let (mut now, mut seq) = (0, 0);
        for _ in 0..20_000 {
            if rng.below(3) > 0 {
                seq += 1;
                let class = (rng.below(5) == 0) as u8;
                let at = now + if rng.below(2) == 0 { 0 } else { rng.below(50) };
                q.push(at, class, seq, 0, seq, now);
                model.insert((at, class, seq));
            } else if let Some(p) = q.pop() {
                assert_eq!(model.pop_first(), Some((p.at, p.class, p.seq)));
                assert_eq!(p.ev, p.seq);
                now = p.at;
            }
            assert_eq!(q.len(), model.len());
        }
        while let Some(p) = q.pop() {
            assert_eq!(model.pop_first(), Some((p.at, p.class, p.seq)));
        }
        assert!(model.is_empty());
    }

    /// The FIFO and the heap interleave by key: a heap event of the same instant with a
    /// smaller sequence number goes first, a class-1 event of the instant goes after.
    #[test]
    fn fifo_and_heap_interleave_by_key() {
        let mut q = EventQueue::default();
        q.push(10, 0, 1, 0, "heap-early", 0); // future: heap
        q.push(10, 1, 2, 0, "action", 0); // class 1: heap
        let a = q.pop().unwrap();
        assert_eq!(a.ev, "heap-early");
        q.push(10, 0, 3, 0, "now-1", 10); // FIFO
        q.push(10, 0, 4, 0, "now-2", 10); // FIFO
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|p| p.ev)).collect();
        assert_eq!(order, vec!["now-1", "now-2", "action"]);
        assert!(q.is_empty());
    }

    #[test]
    fn retain_keeps_order_and_reuses_slots() {
        let mut q = EventQueue::default();
        for s in 1..=10u64 {
            q.push(s % 3, 0, s, 0, s, 0);
        }
        q.retain(|e| e % 2 == 0);
        let got: Vec<u64> = std::iter::from_fn(|| q.pop().map(|p| p.ev)).collect();
        assert_eq!(got, vec![6, 4, 10, 2, 8]);
        q.push(5, 0, 11, 0, 11, 0);
        assert_eq!(q.slots.len(), 10);
    }
}
