//! The TCP receiver: in-order delivery to the application, out-of-order buffering, SACK blocks
//! (RFC 2018) and delayed ACKs (RFC 5681 section 4.2: at least every second full segment, an
//! immediate ACK for out-of-order data or when a hole is filled).

use super::{Ctx, TcpConfig, TimerKind};
use crate::engine::timer::Fired;
use crate::engine::LazyTimer;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{FlowId, NodeId, Packet, Range};
use crate::time::Time;
use std::collections::{BTreeMap, VecDeque};


pub struct TcpReceiver {
    pub flow: FlowId,
    pub node: NodeId,
    pub peer: NodeId,
    sack: bool,
    delack_count: u32,
    delack_timeout: crate::time::Dur,
    rcv_buf: u64,
    /// Next byte expected in order.
    pub rcv_nxt: u64,
    /// Out-of-order data as merged ranges above `rcv_nxt`, sorted.
    ooo: VecDeque<Range>,
    /// Sequence numbers of the latest out-of-order segments, newest first: their ranges are
    /// the SACK blocks (RFC 2018 order) without scanning every range.
    recent: [u64; MAX_SACK_BLOCKS],
    nrecent: usize,
    /// Out-of-order segments: seq -> (len, send time), for their one-way delay at delivery.
    ooo_segs: BTreeMap<u64, (u32, Time)>,
    pending: u32,
    delack: LazyTimer,
    /// Application bytes delivered in order.
    pub delivered: u64,
}

impl TcpReceiver {
    pub fn new(flow: FlowId, node: NodeId, peer: NodeId, cfg: &TcpConfig) -> TcpReceiver {
        TcpReceiver {
            flow,
            node,
            peer,
            sack: cfg.sack,
            delack_count: cfg.delack_count.max(1),
            delack_timeout: cfg.delack_timeout,
            rcv_buf: cfg.rcv_buf,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            recent: [0; MAX_SACK_BLOCKS],
            nrecent: 0,
            ooo_segs: BTreeMap::new(),
            pending: 0,
            delack: LazyTimer::new(),
            delivered: 0,
        }
    }

    fn deliver(&mut self, seq: u64, len: u64, sent_at: Time, ctx: &mut Ctx) {
        if seq != self.delivered {
            ctx.rec.counters.stream_violations += 1;
        }
        self.delivered = seq + len;
        ctx.rec.on_delivered(ctx.now, len, ctx.now - sent_at);
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        ctx.rec.counters.data_received += 1;
        let (s, e) = (pkt.seq, pkt.seq + pkt.len as u64);
        if e <= self.rcv_nxt {
            // Entirely old: a spurious retransmission. ACK at once (RFC 5681).
            ctx.rec.counters.dup_data_received += 1;
            self.send_ack(ctx);
            return;
        }
        if s <= self.rcv_nxt {
            let had_hole = !self.ooo.is_empty();
            let from = self.rcv_nxt;
            self.deliver(from, e - from, pkt.sent_at, ctx);
            self.rcv_nxt = e;
            self.pull_in_order(ctx);
            if had_hole {
                self.send_ack(ctx);
            } else {
                self.pending += 1;
                if self.pending >= self.delack_count {
                    self.send_ack(ctx);
                } else if let Some((t, g)) = self.delack.arm(ctx.now + self.delack_timeout) {
                    ctx.timers.push((TimerKind::DelAck, t, g));
                }
            }
            return;
        }
        // Out of order: keep it, ACK at once with SACK.
        if let std::collections::btree_map::Entry::Vacant(v) = self.ooo_segs.entry(s) {
            v.insert((pkt.len, pkt.sent_at));
            self.insert_ooo(s, e);
        } else {
            ctx.rec.counters.dup_data_received += 1;
        }
        self.send_ack(ctx);
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        self.note_recent(s);
        // fast paths: the segment extends or follows the highest range (the usual case)
        match self.ooo.back_mut() {
            Some(last) if s == last.end => {
                last.end = e;
                return;
            }
            Some(last) if s > last.end => {
                self.ooo.push_back(Range::new(s, e));
                return;
            }
            None => {
                self.ooo.push_back(Range::new(s, e));
                return;
            }
            _ => {}
        }
        let lo = self.ooo.partition_point(|r| r.end < s);
        let hi = self.ooo.partition_point(|r| r.start <= e);
        if lo == hi {
            self.ooo.insert(lo, Range::new(s, e));
        } else {
            let merged = Range::new(self.ooo[lo].start.min(s), self.ooo[hi - 1].end.max(e));
            self.ooo[lo] = merged;
            self.ooo.drain(lo + 1..hi);
        }
    }

    /// Remember `s` as the newest out-of-order segment (for RFC 2018 block order).
    fn note_recent(&mut self, s: u64) {
        // newest first, without duplicates, no allocation
        let old = self.recent;
        let n = self.nrecent;
        self.recent[0] = s;
        let mut k = 1;
        for &x in &old[..n] {
            if x != s && k < MAX_SACK_BLOCKS {
                self.recent[k] = x;
                k += 1;
            }
        }
        self.nrecent = k;
    }

    /// The range holding byte `seq`, if it is still out of order.
    fn range_of(&self, seq: u64) -> Option<Range> {
        if let Some(last) = self.ooo.back() {
            if seq >= last.start {
                return (seq < last.end).then_some(*last);
            }
        }
        let i = self.ooo.partition_point(|r| r.end <= seq);
        self.ooo.get(i).copied().filter(|r| r.start <= seq)
    }

    /// Move out-of-order data that has become in order to the application.
    fn pull_in_order(&mut self, ctx: &mut Ctx) {
        while let Some(r) = self.ooo.front().copied() {
            if r.start > self.rcv_nxt {
                break;
            }
            self.ooo.pop_front();
            while let Some((&seq, &(len, sent_at))) = self.ooo_segs.first_key_value() {
                if seq >= r.end {
                    break;
                }
                self.ooo_segs.pop_first();
                let end = seq + len as u64;
                if end > self.rcv_nxt {
                    let from = self.rcv_nxt.max(seq);
                    self.deliver(from, end - from, sent_at, ctx);
                    self.rcv_nxt = end;
                }
            }
            self.rcv_nxt = self.rcv_nxt.max(r.end);
        }
    }

    fn send_ack(&mut self, ctx: &mut Ctx) {
        self.pending = 0;
        self.delack.cancel();
        // RFC 2018: the block holding the latest segment first, then the ranges of the other
        // most recent segments (each range once).
        let mut blocks = [Range::default(); MAX_SACK_BLOCKS];
        let mut n = 0;
        if self.sack && !self.ooo.is_empty() {
            for &seq in &self.recent[..self.nrecent] {
                if let Some(r) = self.range_of(seq) {
                    if !blocks[..n].contains(&r) {
                        blocks[n] = r;
                        n += 1;
                    }
                }
            }
        }
        let pkt = Packet::new_ack(self.flow, self.node, self.peer, self.rcv_nxt, self.rcv_buf, &blocks[..n], ctx.now);
        ctx.rec.counters.acks_sent += 1;
        ctx.out.push(pkt);
    }

    pub fn on_timer(&mut self, gen: u32, ctx: &mut Ctx) {
        match self.delack.fire(ctx.now, gen) {
            Fired::Ignore => {}
            Fired::Reschedule(t, g) => ctx.timers.push((TimerKind::DelAck, t, g)),
            Fired::Expired => {
                if self.pending > 0 {
                    self.send_ack(ctx);
                }
            }
        }
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|r| r.end - r.start).sum()
    }

    /// The out-of-order ranges (for tests).
    pub fn ooo_ranges(&self) -> Vec<Range> {
        self.ooo.iter().copied().collect()
    }
}
