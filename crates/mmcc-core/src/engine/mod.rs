//! The discrete-event engine: an event queue with a written ordering contract, and lazy timers.
//!
//! # Ordering contract
//! Events are delivered in increasing `(time, seq)` order, where `seq` is a counter incremented
//! at every `schedule` call. So events at the same instant run in the order they were scheduled
//! (FIFO among equals), whatever their kind. Nothing else (no priority, no hash, no address)
//! enters the order, which makes every run reproducible from its configuration and seed.
//!
//! # Cancellation
//! Timers are cancelled lazily (see [`LazyTimer`]): a timer keeps its deadline outside the queue
//! and at most one queued wake-up; re-arming a timer to a later deadline (an RTO restarted on
//! every ACK) costs no queue operation, and a stale wake-up is recognised by its generation
//! number and ignored.

pub mod timer;
pub use timer::LazyTimer;

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: reverse so that the smallest (time, seq) pops first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// The event queue. `E` is the event type of the model using it.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    processed: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Current simulated time (the time of the event being processed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `ev` at `time`. Scheduling in the past is a model bug; it is clamped to `now`
    /// so that time never runs backwards.
    #[inline]
    pub fn schedule(&mut self, time: Time, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let time = time.max(self.now);
        self.seq += 1;
        self.heap.push(Entry { time, seq: self.seq, ev });
    }

    /// Pop the next event if it is due no later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        match self.heap.peek() {
            Some(e) if e.time <= until => {
                let e = self.heap.pop().expect("peeked");
                self.now = e.time;
                self.processed += 1;
                Some((e.time, e.ev))
            }
            _ => None,
        }
    }

    /// Advance the clock to `t` (used at the end of a run when no event is due).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Time of the next queued event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Number of events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_order_and_fifo_among_equals() {
        let mut s = Scheduler::new();
        s.schedule(Time(30), "c");
        s.schedule(Time(10), "a1");
        s.schedule(Time(20), "b");
        s.schedule(Time(10), "a2");
        s.schedule(Time(10), "a3");
        let mut out = vec![];
        while let Some((t, e)) = s.pop_until(Time::MAX) {
            out.push((t.0, e));
        }
        assert_eq!(out, vec![(10, "a1"), (10, "a2"), (10, "a3"), (20, "b"), (30, "c")]);
    }

    #[test]
    fn pop_until_stops_at_the_horizon() {
        let mut s = Scheduler::new();
        s.schedule(Time(5), 1);
        s.schedule(Time(15), 2);
        assert_eq!(s.pop_until(Time(10)), Some((Time(5), 1)));
        assert_eq!(s.pop_until(Time(10)), None);
        assert_eq!(s.now(), Time(5));
        assert_eq!(s.len(), 1);
    }
}
