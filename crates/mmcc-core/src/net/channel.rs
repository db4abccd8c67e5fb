//! One direction of a point-to-point link: a queue, a transmitter, a propagation delay, an
//! optional error model, optional random reordering and scheduled outages.
//!
//! The transmitter's rate is fixed, or follows a schedule of steps (`rate_steps`): a packet is
//! serialized at the rate in effect when its transmission starts, as ns-3's
//! `PointToPointNetDevice` does when its `DataRate` attribute changes (a packet already on the
//! wire keeps its rate).
//!
//! Two transmit paths, chosen by the queue discipline:
//! - **Drop-tail (fast path)**: with a fixed rate and FIFO order, a packet's transmission start
//!   is known when it is enqueued (`max(now, busy_until)`), so the channel computes its arrival
//!   time at once and needs no event at the end of each transmission. The backlog used for the
//!   drop-tail test is the set of packets whose transmission has not started yet.
//! - **CoDel**: drops are decided at dequeue, so the channel dequeues for real at the end of each
//!   transmission (one event per packet).
//!
//! Packets in propagation are kept in a FIFO (the delay is constant, so arrival order is send
//! order); only the head has an arrival event in the scheduler. Reordered packets leave the FIFO
//! and get an event of their own.

use super::error_model::{ErrorModel, ErrorModelConfig};
use super::packet::{NodeId, Packet};
use super::queue::{CoDelQueue, Limits, QueueConfig};
use crate::rng::Rng;
use crate::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Random reordering: each packet is, with `probability`, held back by an extra `delay` so that
/// packets sent after it can overtake it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReorderConfig {
    pub probability: f64,
    pub delay: Dur,
}

/// A period during which the channel is cut: packets entering it, or arriving at its far end,
/// are dropped (cause `link_down`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outage {
    pub start: Time,
    pub end: Time,
}

/// Per-direction options of a link.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionConfig {
    #[serde(default)]
    pub queue: QueueConfig,
    #[serde(default)]
    pub error: Option<ErrorModelConfig>,
    #[serde(default)]
    pub reorder: Option<ReorderConfig>,
    #[serde(default)]
    pub outages: Vec<Outage>,
    /// Drop exactly these packets, counted from 0 in arrival order at the far end (for tests
    /// and what-if experiments; cause `error_model`).
    #[serde(default)]
    pub drop_list: Vec<u64>,
    /// Rate changes `(from this time, rate)`, in time order; before the first one the link's
    /// `rate` applies.
    #[serde(default)]
    pub rate_steps: Vec<(Time, Bandwidth)>,
    /// Link-layer bytes added to every packet on the wire, counted in its transmission time,
    /// the queue's bytes and a per-byte error model (ns-3's point-to-point links: the 2-byte
    /// PPP header of `PointToPointNetDevice`).
    #[serde(default)]
    pub framing: u32,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropCause {
    /// Drop-tail queue full on arrival.
    QueueFull = 0,
    /// Dropped by the AQM (CoDel) at dequeue.
    Aqm = 1,
    /// Corrupted by the random error model (PER).
    ErrorModel = 2,
    /// The link was cut.
    LinkDown = 3,
    /// Larger than the link MTU.
    Mtu = 4,
    /// Discarded by RLC AM after its retransmissions ran out (radio links).
    RlcDiscard = 5,
}

impl DropCause {
    pub const ALL: [DropCause; 6] = [
        DropCause::QueueFull,
        DropCause::Aqm,
        DropCause::ErrorModel,
        DropCause::LinkDown,
        DropCause::Mtu,
        DropCause::RlcDiscard,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueFull => "queue_full",
            DropCause::Aqm => "aqm",
            DropCause::ErrorModel => "error_model",
            DropCause::LinkDown => "link_down",
            DropCause::Mtu => "mtu",
            DropCause::RlcDiscard => "rlc_discard",
        }
    }
}

enum Discipline {
    /// Virtual FIFO: (transmission start, wire bytes) of packets not yet being transmitted.
    DropTail {
        limits: Limits,
        waiting: VecDeque<(Time, u32)>,
        waiting_bytes: u64,
    },
    CoDel {
        q: CoDelQueue,
        tx_busy: bool,
    },
}

/// What the channel asks its owner to schedule after a call.
#[derive(Debug, Default, Clone, Copy)]
pub struct Wakes {
    /// In: the scheduler position reserved for the event being handled (`Scheduler::reserve`).
    /// A packet whose transmission starts now has its arrival ordered there among events of the
    /// same instant, as ns-3 schedules a packet's reception when its transmission starts
    /// (`PointToPointChannel::TransmitStart`); a queued packet's arrival is ordered when it is
    /// scheduled. 0: none (the scheduler never reserves 0).
    pub stamp: u64,
    /// In: a forwarded packet offered at an instant where a transmission of this channel ends
    /// is offered before that transmission's dequeue, as in ns-3 when the packet's reception was
    /// scheduled first (`PointToPointChannel::TransmitStart` schedules it one serialization and
    /// one propagation delay ahead, `PointToPointNetDevice` the end of a transmission one
    /// serialization ahead): the packet starting then still counts as queued.
    pub arrives_first: bool,
    /// Schedule the arrival of the propagation FIFO's head at this time.
    pub arrival: Option<Time>,
    /// The position reserved for that arrival; 0: none.
    pub arrival_stamp: u64,
    /// Schedule the end of the current transmission (CoDel path).
    pub tx_done: Option<Time>,
    /// A reordered packet was held back: collect it with [`Channel::take_delayed`].
    pub delayed: bool,
    /// The channel hands its packets straight to the next hop: collect them with
    /// [`Channel::take_handoff`].
    pub handoff: bool,
}

/// The far end's verdict on an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Deliver,
    Drop(DropCause),
}

pub struct Channel {
    pub from: NodeId,
    pub to: NodeId,
    /// The link's configured rate (before any step).
    pub rate: Bandwidth,
    /// The rate serializing packets now (the configured one, or the current step's).
    cur_rate: Bandwidth,
    rate_steps: Vec<(Time, Bandwidth)>,
    pub delay: Dur,
    pub mtu: u32,
    disc: Discipline,
    busy_until: Time,
    /// Packets in propagation (or waiting, on the drop-tail path), in arrival order.
    /// Packets on the wire: arrival time, reserved scheduler position (0: none), packet.
    flight: VecDeque<(Time, u64, Packet)>,
    /// An arrival event for the FIFO head is in the scheduler.
    arrival_scheduled: bool,
    error: Option<ErrorModel>,
    reorder: Option<(ReorderConfig, Rng)>,
    outages: Vec<Outage>,
    /// Reordered packets currently held back (each has its own event).
    pub delayed_inside: u64,
    /// The last packet held back by reordering, until the owner schedules it.
    delayed_out: Option<(Time, Packet)>,
    /// Hand packets to the owner at transmission instead of queueing an arrival event (set by
    /// the simulation for single-feeder chains, see `Simulation::new`).
    pub cut_through: bool,
    /// Packets arriving after this time are not handed off (they stay in flight at the end of
    /// the run, exactly as without cut-through).
    pub cut_through_until: Time,
    handoff_out: Option<(Time, Packet)>,
    drop_list: Vec<u64>,
    framing: u32,
    drop_next: usize,
    arrivals: u64,
    /// Serialization-time cache: (wire bytes, time) of the last two sizes seen (data, ACK).
    tx_cache: [(u32, Dur); 2],
    /// Packets that started transmission.
    pub tx_packets: u64,
    pub tx_bytes: u64,
}

impl Channel {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate: Bandwidth,
        delay: Dur,
        mtu: u32,
        cfg: &DirectionConfig,
        seed: u64,
        name: &str,
    ) -> Channel {
        let disc = match &cfg.queue {
            QueueConfig::DropTail { .. } => Discipline::DropTail {
                limits: cfg.queue.limits(),
                waiting: VecDeque::new(),
                waiting_bytes: 0,
            },
            QueueConfig::CoDel {
                target, interval, ..
            } => Discipline::CoDel {
                q: CoDelQueue::new(cfg.queue.limits(), *target, *interval),
                tx_busy: false,
            },
        };
        Channel {
            from,
            to,
            rate,
            cur_rate: rate,
            rate_steps: cfg.rate_steps.clone(),
            delay,
            mtu,
            disc,
            busy_until: Time::ZERO,
            flight: VecDeque::new(),
            arrival_scheduled: false,
            error: cfg
                .error
                .as_ref()
                .map(|e| ErrorModel::new(e, Rng::stream(seed, &format!("{name}/error")))),
            reorder: cfg
                .reorder
                .clone()
                .map(|r| (r, Rng::stream(seed, &format!("{name}/reorder")))),
            outages: cfg.outages.clone(),
            delayed_inside: 0,
            delayed_out: None,
            cut_through: false,
            cut_through_until: Time::ZERO,
            handoff_out: None,
            drop_list: {
                let mut d = cfg.drop_list.clone();
                d.sort_unstable();
                d.dedup();
                d
            },
            drop_next: 0,
            framing: cfg.framing,
            arrivals: 0,
            tx_cache: [(u32::MAX, Dur::ZERO); 2],
            tx_packets: 0,
            tx_bytes: 0,
        }
    }

    /// Serialization time of `size` bytes, to the nearest ns as ns-3's point-to-point devices
    /// (`DataRate::CalculateBytesTxTime`) (cached: a flow sends few distinct sizes).
    #[inline]
    fn tx_time(&mut self, size: u32) -> Dur {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let d = self.cur_rate.tx_time_nearest(size as u64);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, d);
        d
    }

    /// Put the rate in effect at `t` in place (rate schedules only).
    #[inline]
    fn rate_at(&mut self, t: Time) {
        if self.rate_steps.is_empty() {
            return;
        }
        let i = self.rate_steps.partition_point(|s| s.0 <= t);
        let r = if i == 0 {
            self.rate
        } else {
            self.rate_steps[i - 1].1
        };
        if r != self.cur_rate {
            self.cur_rate = r;
            self.tx_cache = [(u32::MAX, Dur::ZERO); 2];
        }
    }

    /// Bytes whose transmission ended by `end` (`tx_bytes` counts a packet when its
    /// transmission is scheduled, which on the drop-tail path can be after the run ends).
    pub fn bytes_sent_by(&self, end: Time) -> u64 {
        let pending: u64 = self
            .flight
            .iter()
            .filter(|(at, _, _)| at.0.saturating_sub(self.delay.0) > end.0)
            .map(|(_, _, p)| (p.wire_bytes() + self.framing) as u64)
            .sum();
        self.tx_bytes.saturating_sub(pending)
    }

    /// Mean capacity over `[0, end)` (the configured rate, or the schedule's time average).
    pub fn mean_rate(&self, end: Time) -> f64 {
        if self.rate_steps.is_empty() || end.0 == 0 {
            return self.rate.0 as f64;
        }
        let (mut t, mut r, mut bits) = (Time::ZERO, self.rate, 0.0);
        for &(at, next) in &self.rate_steps {
            let at = at.min(end);
            bits += r.0 as f64 * (at - t).secs_f64();
            t = at;
            r = next;
        }
        bits += r.0 as f64 * (end - t).secs_f64();
        bits / end.secs_f64()
    }

    #[inline]
    pub fn is_down(&self, t: Time) -> bool {
        !self.outages.is_empty() && self.outages.iter().any(|o| t >= o.start && t < o.end)
    }

    /// The packet held back by reordering in the last call (with its arrival time).
    pub fn take_delayed(&mut self) -> Option<(Time, Packet)> {
        self.delayed_out.take()
    }

    /// How long before its arrival at the far end ns-3 schedules the reception of a packet of
    /// `wire_bytes` (IP bytes): serialization (at the current rate) plus propagation.
    pub fn reception_lead(&self, wire_bytes: u32) -> Dur {
        self.serialization_of(wire_bytes) + self.delay
    }

    /// Serialization time of `pkt` at the current rate, to the nearest ns.
    pub fn serialization(&self, pkt: &Packet) -> Dur {
        self.serialization_of(pkt.wire_bytes())
    }

    /// Serialization time of a packet of `wire_bytes` (IP bytes, framing added) at the current
    /// rate, to the nearest ns.
    fn serialization_of(&self, wire_bytes: u32) -> Dur {
        self.cur_rate.tx_time_nearest((wire_bytes + self.framing) as u64)
    }

    /// The packet handed off by the last call (cut-through), with its arrival time.
    pub fn take_handoff(&mut self) -> Option<(Time, Packet)> {
        self.handoff_out.take()
    }

    /// Can this channel hand its packets off at transmission? Only when arrivals keep send
    /// order (no reordering).
    pub fn supports_cut_through(&self) -> bool {
        self.reorder.is_none()
    }

    /// Can this channel accept packets ahead of their arrival time? Only the drop-tail path,
    /// whose state depends on nothing but the packets offered, in order.
    pub fn accepts_early(&self) -> bool {
        matches!(self.disc, Discipline::DropTail { .. })
    }

    /// Bytes waiting in the queue (not yet being transmitted) at `now`.
    pub fn queued_bytes(&mut self, now: Time) -> u64 {
        self.queued_bytes_at(now, false)
    }

    /// Does a queued packet's transmission start at `now`? Only then can an offer's order against
    /// that dequeue (`Wakes::arrives_first`) change what the offer finds queued, so the caller
    /// works that order out only then.
    pub fn dequeues_at(&mut self, now: Time) -> bool {
        self.queued_bytes_at(now, true); // what started before `now` has left the queue
        match &self.disc {
            Discipline::DropTail { waiting, .. } => waiting.front().is_some_and(|&(start, _)| start == now),
            Discipline::CoDel { .. } => false,
        }
    }

    /// Bytes waiting at `now`; `keep_starting`: a packet whose transmission starts at `now`
    /// still counts (the offer comes before that dequeue).
    fn queued_bytes_at(&mut self, now: Time, keep_starting: bool) -> u64 {
        match &mut self.disc {
            Discipline::DropTail {
                waiting,
                waiting_bytes,
                ..
            } => {
                while let Some(&(start, sz)) = waiting.front() {
                    if start > now || (keep_starting && start == now) {
                        break;
                    }
                    waiting.pop_front();
                    *waiting_bytes -= sz as u64;
                }
                *waiting_bytes
            }
            Discipline::CoDel { q, .. } => q.bytes(),
        }
    }

    /// Visit every packet inside the channel (queued, in transmission or propagating).
    pub fn for_each_inside(&self, mut f: impl FnMut(&Packet)) {
        if let Discipline::CoDel { q, .. } = &self.disc {
            q.for_each(|p| f(p));
        }
        for (_, _, p) in &self.flight {
            f(p);
        }
    }

    /// Offer a packet at `now`; `Err` gives the cause when it is refused.
    #[inline]
    pub fn enqueue(&mut self, pkt: &Packet, now: Time, wakes: &mut Wakes) -> Result<(), DropCause> {
        let ip_bytes = pkt.wire_bytes();
        if ip_bytes > self.mtu {
            return Err(DropCause::Mtu);
        }
        let size = ip_bytes + self.framing;
        if self.is_down(now) {
            return Err(DropCause::LinkDown);
        }
        let queued = self.queued_bytes_at(now, wakes.arrives_first);
        match &mut self.disc {
            Discipline::DropTail {
                limits,
                waiting,
                waiting_bytes,
            } => {
                let start = now.max(self.busy_until);
                if start > now {
                    if !limits.admits(queued, waiting.len() as u64, size as u64) {
                        return Err(DropCause::QueueFull);
                    }
                    waiting.push_back((start, size));
                    *waiting_bytes += size as u64;
                }
                self.rate_at(start);
                self.transmit(pkt, size, start, now, wakes);
                Ok(())
            }
            Discipline::CoDel { q, tx_busy } => {
                if *tx_busy {
                    return q.enqueue(*pkt, size, now).map_err(|_| DropCause::QueueFull);
                }
                *tx_busy = true;
                self.rate_at(now);
                let d = self.cur_rate.tx_time_nearest(size as u64);
                wakes.tx_done = Some(now + d);
                self.transmit(pkt, size, now, now, wakes);
                Ok(())
            }
        }
    }

    /// End of a transmission on the CoDel path: dequeue the next packet (CoDel may drop some,
    /// which are appended to `dropped`).
    pub fn tx_done(&mut self, now: Time, wakes: &mut Wakes, dropped: &mut Vec<Packet>) {
        let Discipline::CoDel { q, tx_busy } = &mut self.disc else {
            return;
        };
        match q.dequeue(now, dropped) {
            Some(e) => {
                self.rate_at(now);
                wakes.tx_done = Some(now + self.cur_rate.tx_time_nearest(e.size as u64));
                self.transmit(&e.pkt, e.size, now, now, wakes);
            }
            None => *tx_busy = false,
        }
    }

    /// Start transmitting at `start`: the packet arrives at the far end after serialization and
    /// propagation (plus the reordering delay, if drawn).
    #[inline]
    fn transmit(&mut self, pkt: &Packet, size: u32, start: Time, now: Time, wakes: &mut Wakes) {
        let end = start + self.tx_time(size);
        self.busy_until = end;
        self.tx_packets += 1;
        self.tx_bytes += size as u64;
        let at = end + self.delay;
        if let Some((cfg, rng)) = &mut self.reorder {
            if rng.bernoulli(cfg.probability) {
                self.delayed_inside += 1;
                self.delayed_out = Some((at + cfg.delay, *pkt));
                wakes.delayed = true;
                return;
            }
        }
        if self.cut_through && at <= self.cut_through_until {
            self.handoff_out = Some((at, *pkt));
            wakes.handoff = true;
            return;
        }
        let stamp = if start == now { wakes.stamp } else { 0 };
        self.flight.push_back((at, stamp, *pkt));
        if !self.arrival_scheduled {
            self.arrival_scheduled = true;
            wakes.arrival = Some(at);
            wakes.arrival_stamp = stamp;
        }
    }

    /// The head's arrival event fired at `now`: pop it with the far end's verdict (error model,
    /// outage). Schedules the next head's arrival through `wakes`.
    #[inline]
    pub fn arrive(&mut self, now: Time, wakes: &mut Wakes) -> Option<(Packet, Verdict)> {
        let (at, _, pkt) = self.flight.pop_front()?;
        debug_assert_eq!(at, now);
        self.arrival_scheduled = false;
        if let Some(&(next, stamp, _)) = self.flight.front() {
            self.arrival_scheduled = true;
            wakes.arrival = Some(next);
            wakes.arrival_stamp = stamp;
        }
        let v = self.verdict(&pkt, now);
        Some((pkt, v))
    }

    /// A reordered packet reaches the far end.
    pub fn arrive_delayed(&mut self, pkt: &Packet, now: Time) -> Verdict {
        self.delayed_inside -= 1;
        self.verdict(pkt, now)
    }

    /// A handed-off packet reaches the far end at `at` (evaluated ahead of time, in order).
    pub fn arrive_handoff(&mut self, pkt: &Packet, at: Time) -> Verdict {
        self.verdict(pkt, at)
    }

    #[inline]
    fn verdict(&mut self, pkt: &Packet, now: Time) -> Verdict {
        if pkt.kind.is_handshake() {
            // not one of the link's counted packets: no drop-list index, no random draw
            return if self.is_down(now) {
                Verdict::Drop(DropCause::LinkDown)
            } else {
                Verdict::Deliver
            };
        }
        let idx = self.arrivals;
        self.arrivals += 1;
        if self.drop_next < self.drop_list.len() && self.drop_list[self.drop_next] == idx {
            self.drop_next += 1;
            return Verdict::Drop(DropCause::ErrorModel);
        }
        if self.is_down(now) {
            return Verdict::Drop(DropCause::LinkDown);
        }
        if let Some(em) = &mut self.error {
            if em.corrupts(pkt.wire_bytes() + self.framing) {
                return Verdict::Drop(DropCause::ErrorModel);
            }
        }
        Verdict::Deliver
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chan(queue: QueueConfig) -> Channel {
        let cfg = DirectionConfig {
            queue,
            ..Default::default()
        };
        Channel::new(
            0,
            1,
            Bandwidth::gbps(1),
            Dur::from_millis(10),
            1500,
            &cfg,
            1,
            "t",
        )
    }

    fn pkt(seq: u64) -> Packet {
        Packet::data(0, 0, 1, seq, 1460, Time::ZERO, false) // 1500 bytes on the wire: 12 us at 1 Gb/s
    }

    #[test]
    fn back_to_back_packets_are_serialized_then_propagated() {
        let mut c = chan(QueueConfig::DropTail {
            limit_bytes: None,
            limit_packets: Some(10),
            room_bytes: None,
        });
        let mut w = Wakes::default();
        c.enqueue(&pkt(0), Time::ZERO, &mut w).unwrap();
        assert_eq!(w.arrival, Some(Time(12_000 + 10_000_000)));
        let mut w2 = Wakes::default();
        c.enqueue(&pkt(1), Time::ZERO, &mut w2).unwrap();
        assert_eq!(w2.arrival, None, "only the head has an event");
        let mut w3 = Wakes::default();
        let (p, v) = c.arrive(Time(10_012_000), &mut w3).unwrap();
        assert_eq!((p.seq, v), (0, Verdict::Deliver));
        assert_eq!(w3.arrival, Some(Time(24_000 + 10_000_000)));
    }

    #[test]
    fn droptail_packet_limit_counts_only_waiting_packets() {
        let mut c = chan(QueueConfig::DropTail {
            limit_bytes: None,
            limit_packets: Some(2),
            room_bytes: None,
        });
        let mut w = Wakes::default();
        // first goes straight to the transmitter, next two wait, the fourth is dropped
        for i in 0..3 {
            c.enqueue(&pkt(i), Time::ZERO, &mut w).unwrap();
        }
        let r = c.enqueue(&pkt(3), Time::ZERO, &mut w);
        assert_eq!(r.unwrap_err(), DropCause::QueueFull);
        // once the first transmission ends (12 us) one waiting packet starts: room for one more
        assert!(c.enqueue(&pkt(4), Time(12_000), &mut w).is_ok());
    }

    #[test]
    fn a_rate_step_applies_to_transmissions_that_start_after_it() {
        let cfg = DirectionConfig {
            queue: QueueConfig::DropTail {
                limit_bytes: None,
                limit_packets: Some(10),
                room_bytes: None,
            },
            rate_steps: vec![(Time(18_000), Bandwidth::mbps(100))],
            ..Default::default()
        };
        let mut c = Channel::new(0, 1, Bandwidth::gbps(1), Dur::ZERO, 1500, &cfg, 1, "t");
        let mut w = Wakes::default();
        // 1 Gb/s: 12 us each; the second starts at 12 us (before the step), the third at 24 us
        // (after it) and takes 120 us at 100 Mb/s
        for i in 0..3 {
            c.enqueue(&pkt(i), Time::ZERO, &mut w).unwrap();
        }
        let mut at = vec![];
        let mut t = Time(12_000);
        let mut w = Wakes::default();
        while let Some((p, _)) = c.arrive(t, &mut w) {
            at.push((p.seq, t.0));
            match w.arrival.take() {
                Some(next) => t = next,
                None => break,
            }
        }
        assert_eq!(at, vec![(0, 12_000), (1, 24_000), (2, 144_000)]);
        // 18 us at 1 Gb/s then 100 Mb/s: the mean over 36 us is 550 Mb/s
        assert!((c.mean_rate(Time(36_000)) - 550e6).abs() < 1.0);
    }

    #[test]
    fn framing_bytes_count_in_the_transmission_time_not_in_the_mtu() {
        let cfg = DirectionConfig {
            framing: 2, // ns-3's PPP header
            ..Default::default()
        };
        let mut c = Channel::new(0, 1, Bandwidth::gbps(1), Dur::ZERO, 1500, &cfg, 1, "t");
        let mut w = Wakes::default();
        // a 1500-byte IP packet still fits the 1500-byte MTU; on the wire 1502 bytes: 12.016 us
        c.enqueue(&pkt(0), Time::ZERO, &mut w).unwrap();
        c.enqueue(&pkt(1), Time::ZERO, &mut w).unwrap();
        let mut w = Wakes::default();
        let (p, _) = c.arrive(Time(12_016), &mut w).expect("first");
        assert_eq!((p.seq, w.arrival), (0, Some(Time(24_032))));
    }

    #[test]
    fn outage_drops_on_entry_and_on_arrival() {
        let cfg = DirectionConfig {
            outages: vec![Outage {
                start: Time::from_millis(5),
                end: Time::from_millis(20),
            }],
            ..Default::default()
        };
        let mut c = Channel::new(
            0,
            1,
            Bandwidth::gbps(1),
            Dur::from_millis(10),
            1500,
            &cfg,
            1,
            "t",
        );
        let mut w = Wakes::default();
        c.enqueue(&pkt(0), Time::ZERO, &mut w).unwrap(); // arrives at 10.012 ms: inside the outage
        assert_eq!(
            c.arrive(w.arrival.unwrap(), &mut Wakes::default())
                .unwrap()
                .1,
            Verdict::Drop(DropCause::LinkDown)
        );
        assert_eq!(
            c.enqueue(&pkt(1), Time::from_millis(6), &mut w)
                .unwrap_err(),
            DropCause::LinkDown
        );
    }

    #[test]
    fn codel_path_transmits_one_packet_per_tx_done() {
        let mut c = chan(QueueConfig::CoDel {
            limit_bytes: None,
            limit_packets: Some(100),
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
        });
        let mut w = Wakes::default();
        c.enqueue(&pkt(0), Time::ZERO, &mut w).unwrap();
        assert_eq!(w.tx_done, Some(Time(12_000)));
        let mut w2 = Wakes::default();
        c.enqueue(&pkt(1), Time::ZERO, &mut w2).unwrap();
        assert!(w2.tx_done.is_none() && w2.arrival.is_none());
        let mut w3 = Wakes::default();
        let mut dropped = vec![];
        c.tx_done(Time(12_000), &mut w3, &mut dropped);
        assert_eq!(w3.tx_done, Some(Time(24_000)));
        assert!(dropped.is_empty());
    }
}
