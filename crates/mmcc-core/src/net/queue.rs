//! Queue disciplines: drop-tail (bytes or packets) and CoDel (RFC 8289).

use super::packet::Packet;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum QueueConfig {
    /// First in, first out; a packet that does not fit is dropped on arrival.
    DropTail {
        #[serde(default)]
        limit_bytes: Option<u64>,
        #[serde(default)]
        limit_packets: Option<u64>,
        /// Admit a packet only while this many bytes are free, whatever its own size: ns-3's
        /// point-to-point device stops its queue when an MTU-sized packet would not fit
        /// (`NetDeviceQueue::PacketEnqueued`: `WouldOverflow(1, mtu)`), and its traffic-control
        /// layer then drops whatever arrives, a 56-byte SYN as well as a full segment.
        #[serde(default)]
        room_bytes: Option<u64>,
    },
    /// CoDel (RFC 8289) in front of a drop-tail limit.
    CoDel {
        #[serde(default)]
        limit_bytes: Option<u64>,
        #[serde(default)]
        limit_packets: Option<u64>,
        /// RFC 8289 section 4.4: TARGET = 5 ms.
        #[serde(default = "codel_target")]
        target: Dur,
        /// RFC 8289 section 4.3: INTERVAL = 100 ms.
        #[serde(default = "codel_interval")]
        interval: Dur,
    },
}

fn codel_target() -> Dur {
    Dur::from_millis(5)
}
fn codel_interval() -> Dur {
    Dur::from_millis(100)
}

/// The packets a drop-tail queue given no limit holds (Linux's default `txqueuelen`).
pub const DEFAULT_LIMIT_PACKETS: u64 = 1000;

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::DropTail { limit_bytes: None, limit_packets: Some(DEFAULT_LIMIT_PACKETS), room_bytes: None }
    }
}

impl QueueConfig {
    /// A drop-tail queue given neither limit holds [`DEFAULT_LIMIT_PACKETS`] (a scenario's
    /// default, filled in when a configuration is read: `SimConfig::from_json`).
    pub fn fill_default_limit(&mut self) {
        if let QueueConfig::DropTail { limit_bytes: None, limit_packets: p @ None, .. } = self {
            *p = Some(DEFAULT_LIMIT_PACKETS);
        }
    }

    pub fn limits(&self) -> Limits {
        let mut q = self.clone();
        q.fill_default_limit();
        match q {
            QueueConfig::DropTail { limit_bytes, limit_packets, room_bytes } => Limits {
                bytes: limit_bytes.unwrap_or(u64::MAX),
                packets: limit_packets.unwrap_or(u64::MAX),
                room: room_bytes.unwrap_or(0),
            },
            QueueConfig::CoDel { limit_bytes, limit_packets, .. } => Limits {
                bytes: limit_bytes.unwrap_or(u64::MAX),
                packets: limit_packets.unwrap_or(u64::MAX),
                room: 0,
            },
        }
    }
}

/// Drop-tail admission limits of a queue.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub bytes: u64,
    pub packets: u64,
    /// Bytes that must be free for any packet to enter (0: its own size suffices).
    pub room: u64,
}

impl Limits {
    /// Would a packet of `size` bytes fit behind `bytes` / `packets` already queued?
    #[inline]
    pub fn admits(&self, bytes: u64, packets: u64, size: u64) -> bool {
        bytes + size.max(self.room) <= self.bytes && packets < self.packets
    }
}

/// A queued packet with its enqueue time (CoDel measures sojourn time from it).
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: Packet,
    pub enq: Time,
    pub size: u32,
}

/// A FIFO of packets in bytes with CoDel's dequeue-time dropping (RFC 8289, section 5 pseudocode).
pub struct CoDelQueue {
    q: VecDeque<Queued>,
    bytes: u64,
    limits: Limits,
    target: Dur,
    interval: Dur,
    /// Largest packet seen (RFC 8289 `maxpacket`): below one packet queued, never drop.
    max_packet: u64,
    first_above_time: Option<Time>,
    drop_next: Time,
    count: u32,
    last_count: u32,
    dropping: bool,
}

impl CoDelQueue {
    pub fn new(limits: Limits, target: Dur, interval: Dur) -> CoDelQueue {
        CoDelQueue {
            q: VecDeque::new(),
            bytes: 0,
            limits,
            target,
            interval,
            max_packet: 1500,
            first_above_time: None,
            drop_next: Time::ZERO,
            count: 0,
            last_count: 0,
            dropping: false,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn for_each(&self, mut f: impl FnMut(&Packet)) {
        for e in &self.q {
            f(&e.pkt);
        }
    }

    /// Enqueue; returns the packet back if the drop-tail limit refuses it.
    pub fn enqueue(&mut self, pkt: Packet, size: u32, now: Time) -> Result<(), Packet> {
        if !self.limits.admits(self.bytes, self.q.len() as u64, size as u64) {
            return Err(pkt);
        }
        self.max_packet = self.max_packet.max(size as u64);
        self.bytes += size as u64;
        self.q.push_back(Queued { pkt, enq: now, size });
        Ok(())
    }

    fn pop(&mut self) -> Option<Queued> {
        let e = self.q.pop_front()?;
        self.bytes -= e.size as u64;
        Some(e)
    }

    /// RFC 8289 `dodequeue`: pop the head and tell whether its sojourn time has stayed above
    /// TARGET for at least INTERVAL.
    fn do_dequeue(&mut self, now: Time) -> (Option<Queued>, bool) {
        let Some(e) = self.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - e.enq;
        if sojourn < self.target || self.bytes <= self.max_packet {
            // Below target, or less than one MTU left queued: leave the dropping state.
            self.first_above_time = None;
            return (Some(e), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.interval);
                (Some(e), false)
            }
            Some(t) => (Some(e), now >= t),
        }
    }

    /// RFC 8289 control law: next drop at `t + interval / sqrt(count)`.
    fn control_law(&self, t: Time) -> Time {
        t + Dur((self.interval.0 as f64 / (self.count.max(1) as f64).sqrt()) as u64)
    }

    /// Dequeue the next packet to transmit; packets CoDel drops are pushed to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Queued> {
        let (mut e, ok_to_drop) = self.do_dequeue(now);
        e?;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            let mut ok = ok_to_drop;
            while self.dropping && now >= self.drop_next {
                // RFC 8289: drop and dequeue again until the control law says stop.
                dropped.push(e.take().expect("head").pkt);
                self.count += 1;
                let (ne, nok) = self.do_dequeue(now);
                e = ne;
                ok = nok;
                if e.is_none() || !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next);
                }
            }
            let _ = ok;
        } else if ok_to_drop {
            dropped.push(e.take().expect("head").pkt);
            let (ne, _) = self.do_dequeue(now);
            e = ne;
            self.dropping = true;
            // RFC 8289: resume the drop rate of the last episode if it ended recently.
            let delta = self.count.saturating_sub(self.last_count);
            self.count = if delta > 1 && now - self.drop_next < self.interval.saturating_mul(16) {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now);
            self.last_count = self.count;
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u64) -> Packet {
        Packet::data(0, 0, 1, seq, 1460, Time::ZERO, false)
    }

    #[test]
    fn droptail_limits_in_bytes_and_packets() {
        let l = QueueConfig::DropTail { limit_bytes: Some(3000), limit_packets: None, room_bytes: None }.limits();
        assert!(l.admits(1500, 1, 1500));
        assert!(!l.admits(1501, 1, 1500));
        let l = QueueConfig::DropTail { limit_bytes: None, limit_packets: Some(2), room_bytes: None }.limits();
        assert!(l.admits(0, 1, 1500));
        assert!(!l.admits(0, 2, 1500));
    }

    #[test]
    fn codel_does_not_drop_below_target() {
        let mut q = CoDelQueue::new(Limits { bytes: u64::MAX, packets: u64::MAX, room: 0 }, Dur::from_millis(5), Dur::from_millis(100));
        let mut dropped = vec![];
        for i in 0..100 {
            q.enqueue(pkt(i), 1500, Time::from_millis(i)).unwrap();
            // dequeued 1 ms after enqueue: sojourn below the 5 ms target
            let out = q.dequeue(Time::from_millis(i + 1), &mut dropped);
            assert!(out.is_some());
        }
        assert!(dropped.is_empty());
    }

    #[test]
    fn codel_starts_dropping_after_an_interval_above_target_and_speeds_up() {
        let mut q = CoDelQueue::new(Limits { bytes: u64::MAX, packets: u64::MAX, room: 0 }, Dur::from_millis(5), Dur::from_millis(100));
        let mut dropped = vec![];
        // A standing queue: 50 packets enqueued at t=0, refilled; dequeue one per ms.
        let mut seq = 0;
        for _ in 0..50 {
            q.enqueue(pkt(seq), 1500, Time::ZERO).unwrap();
            seq += 1;
        }
        let mut drop_times = vec![];
        for ms in 1..400u64 {
            let now = Time::from_millis(ms);
            let before = dropped.len();
            q.dequeue(now, &mut dropped);
            if dropped.len() > before {
                drop_times.push(ms);
            }
            q.enqueue(pkt(seq), 1500, now).unwrap();
            seq += 1;
        }
        // The head's sojourn first reaches the 5 ms target at t = 5 ms; the first drop comes a
        // full interval later (105 ms), then drops follow at interval / sqrt(count).
        assert_eq!(drop_times[0], 105);
        assert!(drop_times.len() >= 3);
        let gaps: Vec<u64> = drop_times.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps[0] >= gaps[gaps.len() - 1], "drop interval must not grow: {gaps:?}");
        assert_eq!(gaps[0], 100); // 100 ms / sqrt(1)
        assert_eq!(gaps[1], 71); // 100 ms / sqrt(2) = 70.7 ms -> next ms slot
    }

    /// ns-3's device flow control (`room_bytes` = the MTU): with less than 1,500 bytes free
    /// nothing enters, not even a 56-byte SYN; with room, a full segment does.
    #[test]
    fn room_bytes_refuses_everything_below_an_mtu_of_free_space() {
        let l = QueueConfig::DropTail { limit_bytes: Some(10_000), limit_packets: None, room_bytes: Some(1500) }.limits();
        assert!(l.admits(8_500, 5, 1456));
        assert!(!l.admits(8_501, 5, 56));
        let plain = QueueConfig::DropTail { limit_bytes: Some(10_000), limit_packets: None, room_bytes: None }.limits();
        assert!(plain.admits(8_501, 5, 56) && plain.admits(8_544, 5, 1456) && !plain.admits(8_545, 5, 1456));
    }

    #[test]
    fn a_droptail_queue_given_no_limit_holds_1000_packets() {
        let mut q = QueueConfig::DropTail { limit_bytes: None, limit_packets: None, room_bytes: None };
        assert_eq!((q.limits().packets, q.limits().bytes), (DEFAULT_LIMIT_PACKETS, u64::MAX));
        q.fill_default_limit();
        assert_eq!(q, QueueConfig::default());
        let mut bytes_only = QueueConfig::DropTail { limit_bytes: Some(3000), limit_packets: None, room_bytes: None };
        bytes_only.fill_default_limit();
        assert_eq!(bytes_only.limits().packets, u64::MAX, "a byte limit alone stays alone");
    }
}
