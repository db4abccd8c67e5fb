//! One direction of a radio link (`link.rs`): the RLC transmit buffer (drop-tail or CoDel) with
//! its PDCP headers, the RLC AM window and its retransmissions, the HARQ processes' blocks, and
//! in-order delivery with head-of-line blocking.

use super::mcs::ns3_mmwave_mac_subheader;
use super::rlc_report::{RlcReports, AMD_HEADER};
use crate::net::queue::{CoDelQueue, Limits, QueueConfig};
use crate::net::{DropCause, NodeId, Packet};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// The LI field's largest length (11 bits, TS 36.322 6.2.2.5).
const MAX_LI: u64 = 2047;

#[derive(Clone, Copy, Debug)]
struct Sdu {
    pkt: Packet,
    size: u32,
    unsent: u32,
    received: u32,
    rlc_retx: u32,
    discarded: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Harq {
    pub(super) due: Time,
    pub(super) tx: u32,
    /// The SINR the block error rate is measured against (see the module doc).
    pub(super) ref_sinr: f64,
    /// The block's MCS (ns3-mmwave's table; None without it): its modulation and error curve.
    pub(super) mcs: Option<usize>,
    pub(super) segs: Vec<(u64, u32)>,
    /// A copy the poll timer sends again (`rlc_poll.rs`): its bytes, which deliver nothing.
    pub(super) copy: u64,
    /// The PDU's id at the poll timer (0: not tracked).
    pub(super) pdu: u64,
    /// Whether its PDU polls the receiver for a STATUS (every PDU of new data does).
    pub(super) polls: bool,
}

impl Harq {
    /// A block of new data (or retransmissions after HARQ) sent at `due`.
    pub(super) fn data(due: Time, ref_sinr: f64, mcs: Option<usize>, segs: Vec<(u64, u32)>) -> Harq {
        Harq { due, tx: 1, ref_sinr, mcs, segs, copy: 0, pdu: 0, polls: true }
    }

    /// Bytes on air: the segments' and a copy's.
    pub(super) fn air_bytes(&self) -> u64 {
        self.segs.iter().map(|s| s.1 as u64).sum::<u64>() + self.copy
    }
}

enum Waiting {
    DropTail {
        q: VecDeque<(Packet, u32, Time)>,
        bytes: u64,
        limits: Limits,
    },
    CoDel(CoDelQueue),
}

/// Per-direction counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct DirStats {
    pub tbs: u64,
    pub tb_failures: u64,
    pub harq_retx: u64,
    pub rlc_retx_bytes: u64,
    pub rlc_discards: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub air_bytes: u64,
    pub buffer_drops: u64,
}

pub struct Direction {
    pub from: NodeId,
    pub to: NodeId,
    waiting: Waiting,
    /// Packets being sent or awaiting in-order delivery, by RLC sequence number.
    window: VecDeque<Sdu>,
    base_seq: u64,
    /// Every packet before this sequence number has been sent once.
    first_unsent: u64,
    /// Released arrival times (uplink scheduling delay) of waiting packets are implicit: a
    /// packet may be taken `sched_delay` after it arrived.
    sched_delay: Dur,
    retx: VecDeque<(Time, u64, u32)>,
    pub(super) harq: VecDeque<Harq>,
    /// Successful TB of the previous slot, applied at the next slot boundary.
    pub(super) pending: Vec<(u64, u32)>,
    pub slot_scheduled: bool,
    pub(super) rng: Rng,
    /// Trace mode: byte credit carried between slots.
    pub(super) credit: u64,
    /// The scheduler's record of this buffer (the downlink with `RlcReporting::Ns3Mmwave`).
    pub(super) reports: Option<RlcReports>,
    /// PDUs carry RLC headers without a record too (the uplink's grants, `ul_grants.rs`).
    pub(super) rlc_headers: bool,
    pub stats: DirStats,
}

impl Direction {
    pub(super) fn new(from: NodeId, to: NodeId, q: &QueueConfig, sched_delay: Dur, rng: Rng) -> Direction {
        let waiting = match q {
            QueueConfig::DropTail { .. } => Waiting::DropTail {
                q: VecDeque::new(),
                bytes: 0,
                limits: q.limits(),
            },
            QueueConfig::CoDel {
                target, interval, ..
            } => Waiting::CoDel(CoDelQueue::new(q.limits(), *target, *interval)),
        };
        Direction {
            from,
            to,
            waiting,
            window: VecDeque::new(),
            base_seq: 0,
            first_unsent: 0,
            sched_delay,
            retx: VecDeque::new(),
            harq: VecDeque::new(),
            pending: Vec::new(),
            slot_scheduled: false,
            rng,
            credit: 0,
            reports: None,
            rlc_headers: false,
            stats: DirStats::default(),
        }
    }

    /// Bytes in the RLC transmit buffer: waiting packets and not yet sent parts.
    pub fn buffered_bytes(&self) -> u64 {
        let w = match &self.waiting {
            Waiting::DropTail { bytes, .. } => *bytes,
            Waiting::CoDel(q) => q.bytes(),
        };
        // SDUs before `first_unsent` have been sent whole
        let from = self.first_unsent.saturating_sub(self.base_seq) as usize;
        w + self.window.iter().skip(from).map(|s| s.unsent as u64).sum::<u64>()
    }

    /// Whether RLC retransmissions (after HARQ gave up) wait.
    pub(super) fn retx_waiting(&self) -> bool {
        !self.retx.is_empty()
    }

    /// Whether a block's bytes wait to be applied at the next slot.
    pub(super) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(super) fn has_work(&self) -> bool {
        let waiting = match &self.waiting {
            Waiting::DropTail { q, .. } => !q.is_empty(),
            Waiting::CoDel(q) => !q.is_empty(),
        };
        waiting
            || !self.window.is_empty()
            || !self.retx.is_empty()
            || !self.harq.is_empty()
            || !self.pending.is_empty()
    }

    /// A packet arrives with `header` bytes of PDCP on it. A drop-tail limit counts what the
    /// RLC still has to send, the untransmitted rest of a segmented SDU included (ns-3
    /// `LteRlcAm::DoTransmitPdcpPdu` tests `m_txonBufferSize`, into which
    /// `DoNotifyTxOpportunity` puts such a rest back).
    pub(super) fn enqueue(&mut self, pkt: &Packet, header: u32, now: Time) -> Result<(), DropCause> {
        let size = pkt.wire_bytes() + header;
        let buffered = self.buffered_bytes();
        match &mut self.waiting {
            Waiting::DropTail { q, limits, bytes } => {
                if !limits.admits(buffered, q.len() as u64, size as u64) {
                    self.stats.buffer_drops += 1;
                    return Err(DropCause::QueueFull);
                }
                *bytes += size as u64;
                q.push_back((*pkt, size, now));
            }
            Waiting::CoDel(q) => {
                if q.enqueue(*pkt, size, now).is_err() {
                    self.stats.buffer_drops += 1;
                    return Err(DropCause::QueueFull);
                }
            }
        }
        self.with_reports(|r, queued, _| r.on_sdu(now, queued));
        Ok(())
    }

    /// Hand the scheduler's record (if this direction keeps one) the bytes waiting to be sent
    /// and whether anything is held at all (buffered or unacknowledged); without a record this
    /// costs nothing.
    pub(super) fn with_reports(&mut self, f: impl FnOnce(&mut RlcReports, u64, bool)) {
        let Some(mut r) = self.reports.take() else { return };
        let queued = self.buffered_bytes();
        f(&mut r, queued, queued > 0 || !self.window.is_empty());
        self.reports = Some(r);
    }

    /// Take the next whole packet into the RLC window (CoDel may drop some on the way); with
    /// `before`, only a packet that arrived before then (drop-tail buffers).
    fn pull(&mut self, now: Time, before: Option<Time>, drops: &mut Vec<(Packet, DropCause)>) -> bool {
        let got = match &mut self.waiting {
            Waiting::DropTail { q, bytes, .. } => match q.front() {
                Some(&(p, sz, at)) if Self::takeable(at, self.sched_delay, now, before) => {
                    q.pop_front();
                    *bytes -= sz as u64;
                    Some((p, sz))
                }
                _ => None,
            },
            Waiting::CoDel(q) => {
                let mut dropped = Vec::new();
                let e = q.dequeue(now, &mut dropped);
                drops.extend(dropped.into_iter().map(|p| (p, DropCause::Aqm)));
                e.map(|e| (e.pkt, e.size))
            }
        };
        match got {
            Some((pkt, size)) => {
                self.window.push_back(Sdu {
                    pkt,
                    size,
                    unsent: size,
                    received: 0,
                    rlc_retx: 0,
                    discarded: false,
                });
                true
            }
            None => false,
        }
    }

    fn sdu(&mut self, seq: u64) -> Option<&mut Sdu> {
        if seq < self.base_seq {
            return None;
        }
        self.window.get_mut((seq - self.base_seq) as usize)
    }

    /// Fill a TB of `cap` bytes: due RLC retransmissions, then new data.
    pub(super) fn fill(
        &mut self,
        cap: u64,
        now: Time,
        drops: &mut Vec<(Packet, DropCause)>,
    ) -> Vec<(u64, u32)> {
        self.fill_arrived_before(cap, now, None, drops)
    }

    /// [`Self::fill`] with only the packets that reached a drop-tail buffer before `before`, if
    /// given: the UE fills an uplink grant at its subframe's first symbol, before the packets a
    /// downlink block decoded in that subframe brings (`RadioLink::granted_slot`).
    pub(super) fn fill_arrived_before(
        &mut self,
        cap: u64,
        now: Time,
        before: Option<Time>,
        drops: &mut Vec<(Packet, DropCause)>,
    ) -> Vec<(u64, u32)> {
        let mut segs = Vec::new();
        let mut room = cap;
        while room > 0 {
            let Some(&(due, seq, len)) = self.retx.front() else {
                break;
            };
            if due > now {
                break;
            }
            self.retx.pop_front();
            if self.sdu(seq).is_none_or(|s| s.discarded) {
                continue;
            }
            let take = (len as u64).min(room) as u32;
            if take < len {
                self.retx.push_front((due, seq, len - take));
            }
            segs.push((seq, take));
            self.stats.rlc_retx_bytes += take as u64;
            room -= take as u64;
        }
        // new data: the partly sent packet(s) first, then whole packets from the buffer; with
        // the scheduler's record (rlc_report.rs) one PDU of at most its allowance less the MAC
        // subheader, packed as ns3-mmwave's RLC AM packs it ([`Self::pack_pdu`])
        let scheduled = self.reports.as_ref().map(|r| r.allowance(room));
        let pdu = scheduled.map(|a| a.saturating_sub(ns3_mmwave_mac_subheader(a))).or(self.rlc_headers.then_some(room));
        let seq = match pdu {
            Some(opp) => self.pack_pdu(opp, now, before, drops, &mut segs),
            None => {
                let mut seq = self.first_unsent.max(self.base_seq);
                let mut room = room;
                while room > 0 {
                    let i = (seq - self.base_seq) as usize;
                    if i == self.window.len() && !self.pull(now, before, drops) {
                        break;
                    }
                    let s = &mut self.window[i];
                    let take = (s.unsent as u64).min(room) as u32;
                    if take == 0 {
                        break;
                    }
                    s.unsent -= take;
                    room -= take as u64;
                    segs.push((seq, take));
                    if s.unsent > 0 {
                        break;
                    }
                    seq += 1;
                }
                seq
            }
        };
        self.first_unsent = seq;
        if let (Some(size), Some(r)) = (scheduled.filter(|&a| a > 0), self.reports.as_mut()) {
            r.scheduled(size);
        }
        segs
    }

    /// One RLC AM data PDU of `opp` bytes from the SDUs not yet sent (the rest of a segmented
    /// one first), as `LteRlcAm::DoNotifyTxOpportunity` packs it: 4 bytes are set aside for the
    /// header, an SDU that does not fit is cut (as is one over 2047 bytes, the LI field's
    /// limit), and each whole SDU that another follows costs its E/LI field, 2 and 1 bytes in
    /// turn (12 bits each); an SDU is the last of the PDU when no other waits or when it leaves
    /// 2 bytes or fewer. Returns the next SDU not sent whole.
    fn pack_pdu(
        &mut self,
        opp: u64,
        now: Time,
        before: Option<Time>,
        drops: &mut Vec<(Packet, DropCause)>,
        segs: &mut Vec<(u64, u32)>,
    ) -> u64 {
        let mut seq = self.first_unsent.max(self.base_seq);
        let mut next = opp.saturating_sub(AMD_HEADER + 2);
        let mut id = 1u64;
        while next > 0 {
            let i = (seq - self.base_seq) as usize;
            if i == self.window.len() && !self.pull(now, before, drops) {
                break;
            }
            let size = self.window[i].unsent as u64;
            if size == 0 {
                break;
            }
            if size > next || size > MAX_LI {
                // cut to the room left (the PDU's last piece)
                let take = size.min(next) as u32;
                self.window[i].unsent -= take;
                segs.push((seq, take));
                if self.window[i].unsent == 0 {
                    seq += 1;
                }
                break;
            }
            self.window[i].unsent = 0;
            segs.push((seq, size as u32));
            seq += 1;
            let more = i + 1 < self.window.len() || self.pullable(now, before);
            if next - size <= 2 || !more {
                break;
            }
            next = next.saturating_sub(if id % 2 == 1 { 2 } else { 1 } + size);
            id += 1;
        }
        seq
    }

    /// Whether a packet waits that [`Self::pull`] would take now.
    fn pullable(&self, now: Time, before: Option<Time>) -> bool {
        match &self.waiting {
            Waiting::DropTail { q, .. } => q.front().is_some_and(|&(_, _, at)| Self::takeable(at, self.sched_delay, now, before)),
            Waiting::CoDel(q) => q.bytes() > 0,
        }
    }

    /// Whether a drop-tail buffer's packet that arrived at `at` may be taken at `now`: after the
    /// scheduling delay, and before `before` if given.
    fn takeable(at: Time, sched_delay: Dur, now: Time, before: Option<Time>) -> bool {
        at + sched_delay <= now && before.is_none_or(|b| at < b)
    }

    /// A TB's bytes failed for good at HARQ: back to RLC, or discard after too many tries.
    pub(super) fn harq_gave_up(&mut self, segs: &[(u64, u32)], now: Time, rlc_status: Dur, max_retx: u32) {
        for &(seq, len) in segs {
            let Some(s) = self.sdu(seq) else { continue };
            if s.discarded {
                continue;
            }
            s.rlc_retx += 1;
            if s.rlc_retx > max_retx {
                s.discarded = true;
                self.stats.rlc_discards += 1;
            } else {
                self.retx.push_back((now + rlc_status, seq, len));
            }
        }
    }

    /// Deliver the previous slot's TB and release packets in order.
    pub(super) fn deliver(&mut self, out: &mut Vec<Packet>, drops: &mut Vec<(Packet, DropCause)>) {
        for (seq, len) in std::mem::take(&mut self.pending) {
            if let Some(s) = self.sdu(seq) {
                s.received += len;
            }
        }
        while let Some(s) = self.window.front() {
            if s.discarded {
                let s = self.window.pop_front().expect("front");
                self.base_seq += 1;
                drops.push((s.pkt, DropCause::RlcDiscard));
            } else if s.received >= s.size {
                let s = self.window.pop_front().expect("front");
                self.base_seq += 1;
                self.stats.delivered_packets += 1;
                self.stats.delivered_bytes += s.size as u64;
                out.push(s.pkt);
            } else {
                break;
            }
        }
    }

    /// Visit every packet held (for the conservation invariant).
    pub fn for_each_inside(&self, mut f: impl FnMut(&Packet)) {
        match &self.waiting {
            Waiting::DropTail { q, .. } => q.iter().for_each(|(p, _, _)| f(p)),
            Waiting::CoDel(q) => q.for_each(&mut f),
        }
        for s in &self.window {
            f(&s.pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns3-mmwave's packing (`LteRlcAm::DoNotifyTxOpportunity`), with 42-byte SDUs: a 100-byte
    /// opportunity keeps 96 bytes for data; the first SDU that another follows costs 2 bytes of
    /// E/LI more, the second 1 (96 - 44 - 43 = 9 left), and the third is cut to the 9 bytes. A
    /// 39-byte opportunity (35 for data) takes the cut SDU's 33 bytes and stops, 2 bytes left,
    /// although another SDU waits; the last goes alone.
    #[test]
    fn pdus_are_packed_as_ns3_mmwaves_rlc_packs_them() {
        let q = QueueConfig::DropTail { limit_bytes: Some(1_000_000), limit_packets: None, room_bytes: None };
        let mut d = Direction::new(0, 1, &q, Dur::ZERO, Rng::stream(1, "d"));
        d.rlc_headers = true;
        let pkt = Packet::data(0, 0, 1, 0, 0, Time::ZERO, false);
        assert_eq!(pkt.wire_bytes() + 2, 42);
        for _ in 0..4 {
            d.enqueue(&pkt, 2, Time::ZERO).unwrap();
        }
        let mut drops = Vec::new();
        assert_eq!(d.fill(100, Time(1), &mut drops), vec![(0, 42), (1, 42), (2, 9)]);
        assert_eq!(d.fill(39, Time(1), &mut drops), vec![(2, 33)]);
        assert_eq!(d.fill(100, Time(1), &mut drops), vec![(3, 42)]);
        assert!(drops.is_empty());
    }
}
