//! RFC 6675 loss marking (`IsLost`, `NextSeg`), timeouts' marks (RFC 6298 / RFC 5681) and the
//! queue of segments waiting for a retransmission.

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

impl Scoreboard {
    /// RFC 6675 IsLost(): a segment is lost when at least `dupthresh` SACKed segments lie above
    /// it. Marks every such segment not marked yet; returns the bytes newly marked lost.
    pub fn mark_losses(&mut self, dupthresh: u32) -> u64 {
        // Find the dupthresh-th highest SACKed segment by counting whole segments per merged
        // SACK range, from the top (long holes between ranges cost nothing).
        let mut need = dupthresh.max(1) as usize;
        let mut found = None;
        for r in self.sacked.iter().rev() {
            let Some(b) = self.find(r.end - 1) else { continue };
            // usually the range holds `need` segments: check the candidate (recently touched)
            // before looking up the range's start
            if b + 1 >= need && self.segs[b + 1 - need].end() > r.start {
                found = Some(b + 1 - need);
                break;
            }
            let Some(a) = self.find(r.start) else { continue };
            need -= b + 1 - a;
        }
        let Some(i) = found else { return 0 };
        let boundary = self.base_id + i as u64;
        if boundary <= self.lost_hint {
            return 0;
        }
        let mut newly = 0;
        let first = self.lost_hint.max(self.base_id);
        let (from, to) = (self.idx(first), self.idx(boundary));
        for (k, s) in self.segs.range_mut(from..to).enumerate() {
            if !s.sacked && !s.lost {
                s.lost = true;
                self.lost_bytes += s.len as u64;
                newly += s.len as u64;
                self.rtx.push(first + k as u64);
            }
        }
        self.lost_hint = self.lost_hint.max(boundary);
        newly
    }

    /// Mark the first unacknowledged segment lost (fast retransmit on three duplicate ACKs
    /// without enough SACK information). With `HeadRetransmission::Forgotten` (ns-3 3.37's
    /// `TcpTxBuffer::MarkHeadAsLost` clears the head's `m_retrans` mark) a head whose
    /// retransmission is still outstanding (NextSeg rule 3, a partial ACK's `DoRetransmit`)
    /// leaves BytesInFlight until it is sent again; Linux's `tcp_mark_skb_lost` keeps
    /// `TCPCB_SACKED_RETRANS` on an skb it newly marks lost (`Kept`).
    pub fn mark_head_lost(&mut self, rule: HeadRetransmission) {
        if let Some(s) = self.segs.front_mut() {
            if !s.sacked && !s.lost {
                if rule == HeadRetransmission::Forgotten && s.rtx_inflight {
                    s.rtx_inflight = false;
                    self.retrans_bytes -= s.len as u64;
                }
                s.lost = true;
                self.lost_bytes += s.len as u64;
                self.rtx.push(self.base_id);
            }
        }
    }

    pub fn head_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// ns-3 3.37 `TcpTxBuffer::IsLost(seq)`: the lost mark of the first outstanding segment
    /// that starts at or after `seq` (false when there is none).
    pub fn lost_from(&self, seq: u64) -> bool {
        let i = self.segs.partition_point(|s| s.seq < seq);
        self.segs.get(i).is_some_and(|s| s.lost)
    }

    /// RFC 6675 NextSeg() rule 1: the lowest segment that is lost, not SACKed and not already
    /// retransmitted in this episode.
    pub fn next_lost(&mut self) -> Option<u64> {
        if self.lost_bytes == 0 {
            // no segment is lost and un-SACKed: every queued id is stale
            self.rtx.clear();
            return None;
        }
        while let Some(id) = self.rtx.first() {
            if id >= self.base_id {
                let s = &self.segs[self.idx(id)];
                if s.lost && !s.sacked && !s.rtx_inflight {
                    return Some(id);
                }
            }
            self.rtx.pop_first(); // acknowledged, SACKed or retransmitted since
        }
        None
    }

    /// RFC 6675 NextSeg() rule 3 as ns-3 3.37's `TcpTxBuffer::NextSeg` applies it: the lowest
    /// segment that is neither SACKed, retransmitted nor marked lost (ns-3 does not ask rule
    /// (1.b), that SACKed data lies above it).
    pub fn first_unmarked(&mut self) -> Option<u64> {
        let mut id = self.unmarked_hint.max(self.base_id);
        while id < self.base_id + self.segs.len() as u64 {
            let s = &self.segs[self.idx(id)];
            if !s.sacked && !s.rtx_inflight && !s.lost {
                self.unmarked_hint = id;
                return Some(id);
            }
            id += 1;
        }
        self.unmarked_hint = id;
        None
    }

    /// After a retransmission timeout: every segment not SACKed is lost and no retransmission
    /// is in flight any more (Linux tcp_enter_loss; RFC 6675 section 5.1).
    pub fn mark_all_lost(&mut self) {
        self.lost_bytes = 0;
        self.retrans_bytes = 0;
        self.rtx.clear();
        for (k, s) in self.segs.iter_mut().enumerate() {
            s.rtx_inflight = false;
            if !s.sacked {
                s.lost = true;
                self.lost_bytes += s.len as u64;
                self.rtx.push(self.base_id + k as u64);
            }
        }
        self.lost_hint = self.base_id + self.segs.len() as u64;
        self.rtx_order.clear();
    }

    /// Linux `tcp_undo_cwnd_reduction(sk, true)`: a spurious episode's loss marks are withdrawn
    /// (retransmissions in flight stay counted); the loss rule examines every segment again.
    pub fn unmark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
        self.lost_bytes = 0;
        self.rtx.clear();
        self.lost_hint = self.base_id;
        self.unmarked_hint = self.base_id;
    }
}

/// Segment ids waiting for retransmission, lowest first: a deque for ids queued in ascending
/// order (the loss rule marks upwards, so it only appends) and a min-heap for the rest (lost
/// retransmissions, below the marked ones). An id may be queued twice; `next_lost` checks
/// validity at the head.
#[derive(Default)]
pub(super) struct RtxQueue {
    pub(super) ascending: VecDeque<u64>,
    pub(super) other: BinaryHeap<Reverse<u64>>,
}

impl RtxQueue {
    pub(super) fn push(&mut self, id: u64) {
        if self.ascending.back().is_none_or(|&b| b < id) {
            self.ascending.push_back(id);
        } else {
            self.other.push(Reverse(id));
        }
    }

    /// The lowest queued id.
    pub(super) fn first(&self) -> Option<u64> {
        match (self.ascending.front(), self.other.peek()) {
            (Some(&a), Some(&Reverse(o))) => Some(a.min(o)),
            (a, o) => a.copied().or(o.map(|r| r.0)),
        }
    }

    pub(super) fn pop_first(&mut self) {
        let from_other = match (self.ascending.front(), self.other.peek()) {
            (Some(&a), Some(&Reverse(o))) => o < a,
            (a, _) => a.is_none(),
        };
        if from_other {
            self.other.pop();
        } else {
            self.ascending.pop_front();
        }
    }

    pub(super) fn clear(&mut self) {
        self.ascending.clear();
        self.other.clear();
    }
}
