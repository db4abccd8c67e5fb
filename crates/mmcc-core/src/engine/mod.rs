//! The discrete-event engine: an event queue with a written ordering contract, and lazy timers.
//!
//! # Ordering contract
//! Events are delivered in increasing `(time, seq)` order, where `seq` is a counter incremented
//! at every `schedule` call. So events at the same instant run in the order they were scheduled
//! (FIFO among equals), whatever their kind. An event may also take a position reserved earlier
//! ([`Scheduler::reserve`], [`Scheduler::schedule_reserved`]): a channel schedules only the head
//! of its propagation queue, but each packet's arrival keeps the position of the moment its
//! transmission started, where ns-3 schedules it (found against ns-3: a paced sender's timer
//! and an ACK due at the same nanosecond). Nothing else (no priority, no hash, no address)
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

#[derive(Clone, Copy)]
struct Entry<E> {
    /// (time << 64) | seq: one comparison orders by time, then by scheduling order.
    key: u128,
    ev: E,
}

#[inline]
fn key(time: Time, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

/// The event queue. `E` is the event type of the model using it.
///
/// A binary min-heap on `(time, seq)`. Most events schedule exactly one follow-up (a link's
/// next arrival, a timer), so `pop_until` leaves the popped entry in place as a *hole* and the
/// next `schedule` sifts the new entry down from the root, instead of a pop followed by a push.
/// The order is unchanged by this.
pub struct Scheduler<E: Copy> {
    heap: Vec<Entry<E>>,
    /// `heap[0]` has been handed out and is logically removed.
    hole: bool,
    seq: u64,
    now: Time,
    processed: u64,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler { heap: Vec::with_capacity(1024), hole: false, seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Place `e` at index `i` (a hole) and move it down to its place.
    #[inline]
    fn sift_down(&mut self, mut i: usize, e: Entry<E>) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].key < self.heap[l].key { r } else { l };
            if self.heap[c].key >= e.key {
                break;
            }
            self.heap[i] = self.heap[c];
            i = c;
        }
        self.heap[i] = e;
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, e: Entry<E>) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.heap[p].key <= e.key {
                break;
            }
            self.heap[i] = self.heap[p];
            i = p;
        }
        self.heap[i] = e;
    }

    /// Remove the hole left by the last pop, if no schedule filled it.
    #[inline]
    fn close_hole(&mut self) {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().expect("hole implies an entry");
            if !self.heap.is_empty() {
                self.sift_down(0, last);
            }
        }
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
        self.insert(Entry { key: key(time, self.seq), ev });
    }

    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        if self.hole {
            self.hole = false;
            self.sift_down(0, e);
        } else {
            self.heap.push(e);
            let i = self.heap.len() - 1;
            self.sift_up(i, e);
        }
    }

    /// Reserve a position in the order of events of equal time, for an event whose time is
    /// known now but which is scheduled later ([`Scheduler::schedule_reserved`]): it then runs
    /// among the events of its instant as if it had been scheduled now (ns-3 schedules a
    /// packet's reception when its transmission starts; mmcc's channels schedule only the head
    /// of their propagation queue).
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule `ev` at `time` in the position `seq` reserved earlier.
    #[inline]
    pub fn schedule_reserved(&mut self, time: Time, seq: u64, ev: E) {
        debug_assert!(time >= self.now && seq <= self.seq, "event scheduled in the past");
        self.insert(Entry { key: key(time.max(self.now), seq), ev });
    }

    /// Pop the next event if it is due no later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        self.close_hole();
        let top = self.heap.first()?;
        let time = Time((top.key >> 64) as u64);
        if time > until {
            return None;
        }
        let ev = top.ev;
        self.hole = true;
        self.now = time;
        self.processed += 1;
        Some((time, ev))
    }

    /// Advance the clock to `t` (used at the end of a run when no event is due).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Time of the next queued event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.close_hole();
        self.heap.first().map(|e| Time((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// A reserved position orders an event scheduled later before the events of its instant
    /// scheduled in between (a packet whose arrival is scheduled only when the one ahead of it
    /// arrives still runs before a timer set after its transmission started, as in ns-3).
    #[test]
    fn a_reserved_position_runs_before_later_scheduled_events_of_its_instant() {
        let mut s = Scheduler::new();
        let arrival = s.reserve(); // the packet starts its transmission
        s.schedule(Time(50), "timer"); // a timer set afterwards, due at the same instant
        s.schedule(Time(10), "head arrives");
        assert_eq!(s.pop_until(Time::MAX), Some((Time(10), "head arrives")));
        s.schedule_reserved(Time(50), arrival, "arrival"); // now scheduled, in its place
        s.schedule(Time(50), "other");
        let order: Vec<_> = std::iter::from_fn(|| s.pop_until(Time::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["arrival", "timer", "other"]);
    }

    #[test]
    fn scheduling_into_the_hole_keeps_the_order() {
        let mut s = Scheduler::new();
        s.schedule(Time(10), 1);
        s.schedule(Time(20), 2);
        s.schedule(Time(30), 3);
        assert_eq!(s.pop_until(Time::MAX), Some((Time(10), 1)));
        // follow-ups: one later than everything, one in between, one at an existing time
        s.schedule(Time(40), 4);
        s.schedule(Time(25), 5);
        s.schedule(Time(20), 6);
        let mut out = vec![];
        while let Some((t, e)) = s.pop_until(Time::MAX) {
            out.push((t.0, e));
        }
        assert_eq!(out, vec![(20, 2), (20, 6), (25, 5), (30, 3), (40, 4)]);
        assert!(s.is_empty());
    }

    #[test]
    fn random_schedules_pop_sorted() {
        let mut rng = crate::rng::Rng::stream(5, "heap");
        let mut s = Scheduler::new();
        let mut expect = vec![];
        let mut got = vec![];
        let mut id = 0u32;
        for _ in 0..2000 {
            let k = rng.below(3);
            for _ in 0..k {
                let t = s.now().0 + rng.below(50);
                s.schedule(Time(t), id);
                expect.push((t, id));
                id += 1;
            }
            if let Some((t, e)) = s.pop_until(Time::MAX) {
                got.push((t.0, e));
            }
        }
        while let Some((t, e)) = s.pop_until(Time::MAX) {
            got.push((t.0, e));
        }
        // ids increase with scheduling order, so sorting by (time, id) is the contract
        expect.sort();
        assert_eq!(got, expect);
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
