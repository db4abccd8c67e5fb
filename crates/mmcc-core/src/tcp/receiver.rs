//! The TCP receiver: in-order delivery to the application, out-of-order buffering, SACK blocks
//! (RFC 2018) and delayed ACKs (RFC 5681 section 4.2: at least every second full segment, an
//! immediate ACK for out-of-order data or when a hole is filled).
//!
//! SACK blocks: the `linux` profile reports the whole out-of-order range around each of the
//! latest segments (Linux `tcp_sack_new_ofo_skb` keeps its blocks merged with the queue); the
//! `ns3` profile keeps ns-3's own list (`Ns3SackList`), which forgets a block once four newer
//! ones exist and so may report only part of a range.

use super::profile::MAX_QUICKACKS;
use super::rcv_window::{ts_ticks, LinuxRcvWindow};
use super::{Ctx, TcpSettings, TimerKind};
use crate::engine::timer::Fired;
use crate::engine::LazyTimer;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{FlowId, NodeId, Packet, Range};
use crate::time::Time;
use std::collections::{BTreeMap, VecDeque};

/// Marks a ring slot whose segment is not held (no real send time is this late).
const EMPTY: Time = Time(u64::MAX);
/// Linux `TCP_NUM_SACKS`: the receiver remembers four SACK blocks (an ACK with timestamps
/// carries the first three, `MAX_SACK_BLOCKS`).
const NUM_SACKS: usize = 4;
/// Linux `TCP_SACK_BLOCKS_EXPECTED`: the SACK blocks a receiver counts on the sender seeing
/// (`tcp_sack_new_ofo_skb`).
const SACK_BLOCKS_EXPECTED: usize = 2;

/// Send times of out-of-order segments, for their one-way delay at delivery: a ring indexed by
/// segment number for full, MSS-aligned segments (the normal case: O(1) insert and in-order
/// removal however fragmented the window is), a sorted map for any other segment.
struct OooTimes {
    mss: u64,
    /// Sequence number of `ring[0]` (a multiple of `mss`).
    ring_base: u64,
    /// Send time of each full segment held, `EMPTY` for a slot not held (8 bytes per slot).
    ring: VecDeque<Time>,
    other: BTreeMap<u64, (u32, Time)>,
}

impl OooTimes {
    fn new(mss: u64) -> Self {
        OooTimes {
            mss: mss.max(1),
            ring_base: 0,
            ring: VecDeque::new(),
            other: BTreeMap::new(),
        }
    }

    /// Store a segment; false if it was already stored (a duplicate).
    fn insert(&mut self, seq: u64, len: u32, t: Time) -> bool {
        // the usual case: the full segment right above the ring (no division)
        if len as u64 == self.mss
            && !self.ring.is_empty()
            && seq == self.ring_base + self.ring.len() as u64 * self.mss
        {
            self.ring.push_back(t);
            return true;
        }
        if len as u64 == self.mss && seq.is_multiple_of(self.mss) {
            if self.ring.is_empty() {
                self.ring_base = seq;
            }
            while seq < self.ring_base {
                self.ring.push_front(EMPTY);
                self.ring_base -= self.mss;
            }
            let i = ((seq - self.ring_base) / self.mss) as usize;
            if i >= self.ring.len() {
                self.ring.resize(i + 1, EMPTY);
            }
            if self.ring[i] != EMPTY {
                return false;
            }
            self.ring[i] = t;
            true
        } else {
            match self.other.entry(seq) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert((len, t));
                    true
                }
                std::collections::btree_map::Entry::Occupied(_) => false,
            }
        }
    }

    /// Remove and return the lowest stored segment starting below `end`.
    fn pop_below(&mut self, end: u64) -> Option<(u64, u32, Time)> {
        // leading empty slots below `end` are delivered data (in-order or odd-sized): drop them
        while self.ring.front() == Some(&EMPTY) && self.ring_base < end {
            self.ring.pop_front();
            self.ring_base += self.mss;
        }
        let ring_first = match self.ring.front() {
            Some(&t) if self.ring_base < end => Some((self.ring_base, self.mss as u32, t)),
            _ => None,
        };
        let other_first = self
            .other
            .first_key_value()
            .filter(|(&k, _)| k < end)
            .map(|(&k, &(l, t))| (k, l, t));
        match (ring_first, other_first) {
            (Some(r), Some(o)) if o.0 < r.0 => {
                self.other.pop_first();
                Some(o)
            }
            (Some(r), _) => {
                self.ring.pop_front();
                self.ring_base += self.mss;
                Some(r)
            }
            (None, Some(o)) => {
                self.other.pop_first();
                Some(o)
            }
            (None, None) => None,
        }
    }
}

/// ns-3 3.37's receiver SACK list (`TcpRxBuffer::UpdateSackList` / `ClearSackList`): each new
/// out-of-order piece becomes the first block and merges with list blocks it touches; the list
/// keeps at most four blocks (the oldest is forgotten, and a piece next to a forgotten block is
/// reported without it); the ACK carries the first blocks that fit (`AddOptionSack`).
#[derive(Clone, Copy, Default)]
struct Ns3SackList {
    blocks: [Range; 5],
    n: usize,
}

impl Ns3SackList {
    /// `UpdateSackList(head, tail)`.
    fn update(&mut self, head: u64, tail: u64) {
        // push_front
        self.blocks.copy_within(0..self.n, 1);
        self.blocks[0] = Range::new(head, tail);
        self.n += 1;
        let mut i = 1;
        while i < self.n {
            let (first, cur) = (self.blocks[0], self.blocks[i]);
            let merged = if first.start == cur.end {
                Some(Range::new(cur.start, first.end)) // left merge
            } else if first.end == cur.start {
                Some(Range::new(first.start, cur.end)) // right merge
            } else {
                None
            };
            match merged {
                Some(m) => {
                    // erase the block, the merged one replaces the first; scan again
                    self.blocks.copy_within(i + 1..self.n, i);
                    self.n -= 1;
                    self.blocks[0] = m;
                    i = 1;
                }
                None => i += 1,
            }
        }
        if self.n > 4 {
            self.n -= 1; // pop_back
        }
    }

    /// `ClearSackList(nextRxSeq)`: blocks now below the cumulative ACK go.
    fn clear_below(&mut self, seq: u64) {
        let mut k = 0;
        for i in 0..self.n {
            if self.blocks[i].end > seq {
                self.blocks[k] = self.blocks[i];
                k += 1;
            }
        }
        self.n = k;
    }
}

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
    /// Bytes in `ooo`.
    ooo_held: u64,
    /// The ranges of the latest out-of-order segments, newest first (RFC 2018 block order),
    /// kept up to date as ranges merge or are delivered: an ACK's SACK blocks need no search.
    /// Four are remembered, three fit an ACK (Linux `rx_opt.selective_acks`).
    recent: [Range; NUM_SACKS],
    nrecent: usize,
    /// ns3 profile: ns-3's SACK list, reported instead of `recent`.
    ns3_sack: Option<Ns3SackList>,
    ooo_segs: OooTimes,
    pending: u32,
    /// Segments still to be ACKed at once (Linux quick-ACK mode); 0 when off.
    quickacks: u32,
    quickack: bool,
    /// TCP option bytes on every ACK (timestamps).
    opt_bytes: u8,
    /// RFC 7323 TS.Recent: the send time of the segment whose timestamp ACKs echo, updated by
    /// an in-order segment at or below the last ACK sent (ns-3 ProcessOptionTimestamp).
    ts_recent: Time,
    last_ack_sent: u64,
    delack: LazyTimer,
    /// `linux` profile with `rcv_autotune`: Linux's receive window, DRS and SACK compression.
    win: Option<LinuxRcvWindow>,
    /// Bytes delivered in order by the segment being processed and not yet read by the
    /// application (it reads right after the ACK decision, as a Linux reader woken by it).
    unread: u64,
    /// Application bytes delivered in order.
    pub delivered: u64,
}

impl TcpReceiver {
    pub fn new(flow: FlowId, node: NodeId, peer: NodeId, cfg: &TcpSettings) -> TcpReceiver {
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
            ooo_held: 0,
            recent: [Range::default(); NUM_SACKS],
            nrecent: 0,
            ns3_sack: (cfg.profile == super::Profile::Ns3).then(Ns3SackList::default),
            ooo_segs: OooTimes::new(cfg.mss as u64),
            // ns-3 leaves the handshake with its delayed-ACK counter full (TcpSocketBase::
            // ProcessSynSent / ProcessSynRcvd: m_delAckCount = m_delAckMaxCount), so the first data
            // segment is acknowledged at once and the pairs shift by one; Linux starts in quick-ACK
            // mode instead (below).
            pending: if cfg.profile == super::Profile::Ns3 {
                cfg.delack_count.max(1) - 1
            } else {
                0
            },
            quickacks: if cfg.quickack {
                Self::quickack_budget(cfg)
            } else {
                0
            },
            quickack: cfg.quickack,
            opt_bytes: cfg.option_bytes() as u8,
            ts_recent: Time::ZERO,
            last_ack_sent: 0,
            delack: LazyTimer::new(),
            win: (cfg.rcv_autotune && cfg.profile == super::Profile::Linux).then(|| LinuxRcvWindow::new(cfg)),
            unread: 0,
            delivered: 0,
        }
    }

    /// Linux `tcp_incr_quickack`: half the receive window in segments, at most 16.
    fn quickack_budget(cfg: &TcpSettings) -> u32 {
        ((cfg.rcv_buf / (2 * cfg.mss.max(1) as u64)) as u32).clamp(1, MAX_QUICKACKS)
    }

    fn deliver(&mut self, seq: u64, len: u64, sent_at: Time, ctx: &mut Ctx) {
        if seq != self.delivered {
            ctx.rec.counters.stream_violations += 1;
        }
        self.delivered = seq + len;
        ctx.rec.on_delivered(ctx.now, len, ctx.now - sent_at);
    }

    /// A SYN arrived: answer with a SYN-ACK (each time, for a retransmitted SYN too) echoing its
    /// timestamp.
    pub fn on_syn(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let opt = crate::net::packet::syn_option_bytes(self.opt_bytes > 0);
        let kind = crate::net::Kind::SynAck;
        let mut p = Packet::handshake(kind, self.flow, self.node, self.peer, pkt.sent_at, opt, false);
        let rwnd = match &self.win {
            Some(w) => w.initial_window(),
            None => self.rcv_buf,
        };
        p.rwnd = rwnd.min(u32::MAX as u64) as u32;
        p.ts_ms = ts_ticks(ctx.now);
        ctx.out.push(p);
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        if pkt.len == 0 {
            // a window probe: answer with the window (Linux tcp_send_probe0 -> an ACK)
            self.send_ack(ctx);
            return;
        }
        ctx.rec.counters.data_received += 1;
        let (s, e) = (pkt.seq, pkt.seq + pkt.len as u64);
        if e <= self.rcv_nxt {
            // Entirely old: a spurious retransmission. ACK at once (RFC 5681); Linux also
            // re-enters quick-ACK mode (tcp_data_queue: tcp_enter_quickack_mode).
            ctx.rec.counters.dup_data_received += 1;
            if self.quickack {
                self.quickacks = MAX_QUICKACKS;
            }
            self.send_ack(ctx);
            return;
        }
        if s <= self.rcv_nxt {
            if s == self.rcv_nxt && s <= self.last_ack_sent {
                self.ts_recent = pkt.sent_at;
            }
            let had_hole = !self.ooo.is_empty();
            let from = self.rcv_nxt;
            self.deliver(from, e - from, pkt.sent_at, ctx);
            self.rcv_nxt = e;
            self.pull_in_order(ctx);
            if self.win.is_some() {
                self.in_order_linux(pkt, from, had_hole, ctx);
                return;
            }
            if had_hole {
                self.send_ack(ctx);
            } else if self.quickacks > 0 {
                self.quickacks -= 1;
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
        // Out of order: keep it, ACK at once with SACK (Linux: at once for the first three
        // duplicate ACKs of a hole, then compressed).
        if let Some(w) = &mut self.win {
            w.measure_rtt(ctx.now, pkt.ts_ms, pkt.len as u64);
        }
        if self.ooo_segs.insert(s, pkt.len, pkt.sent_at) {
            if let Some(list) = &mut self.ns3_sack {
                // TcpRxBuffer::Add: the piece not held yet (head and tail trimmed by held data)
                let (mut head, mut tail) = (s, e);
                let (lo, hi) = Range::new(s, e).touching(&self.ooo);
                for r in self.ooo.range(lo..hi) {
                    if r.start <= head && r.end > head {
                        head = r.end;
                    }
                    if r.start < tail && r.end >= tail {
                        tail = r.start;
                    }
                }
                if head < tail {
                    list.update(head, tail);
                }
            }
            self.flush_compressed_sack(s, e, ctx);
            self.insert_ooo(s, e);
            if self.win.is_some() {
                self.out_of_order_linux(pkt, ctx);
                return;
            }
        } else {
            ctx.rec.counters.dup_data_received += 1;
        }
        self.send_ack(ctx);
    }

    /// Linux `tcp_sack_new_ofo_skb` -> `tcp_sack_compress_send_ack`, before the out-of-order
    /// segment `[s, e)` joins the SACK list: if it extends the third or fourth block, or starts
    /// a new block while two or more are listed, the pending compressed SACK goes out first, so
    /// every range is reported in first or second place before it moves further down
    /// (`TCP_SACK_BLOCKS_EXPECTED`).
    fn flush_compressed_sack(&mut self, s: u64, e: u64, ctx: &mut Ctx) {
        if self.win.as_ref().is_none_or(|w| w.compressed() == 0) {
            return;
        }
        let n = self.nrecent;
        let at = self.recent[..n].iter().position(|r| r.start <= e && r.end >= s);
        if at.unwrap_or(n) >= SACK_BLOCKS_EXPECTED {
            self.send_ack(ctx);
        }
    }

    /// Memory charged now: the out-of-order data and what the application has not read yet.
    fn rmem(&self, w: &LinuxRcvWindow) -> u64 {
        debug_assert_eq!(self.ooo_held, self.ooo.iter().map(|r| r.end - r.start).sum::<u64>());
        w.charge(self.ooo_held) + w.charge(self.unread)
    }

    /// Linux, an in-order segment (`tcp_event_data_recv`, `__tcp_ack_snd_check`, then the
    /// reader's `tcp_recvmsg`: `tcp_rcv_space_adjust` and `tcp_cleanup_rbuf`).
    fn in_order_linux(&mut self, pkt: &Packet, from: u64, had_hole: bool, ctx: &mut Ctx) {
        self.unread = self.rcv_nxt - from;
        let mut w = self.win.take().expect("linux receive window");
        w.measure_rtt(ctx.now, pkt.ts_ms, pkt.len as u64);
        w.measure_rcv_mss(pkt.len as u64);
        // tcp_grow_window: a segment that opens the window keeps quick-ACK mode on
        // (`icsk_ack.quick |= 1`)
        if pkt.len >= 128 && w.grow(pkt.len as u64, self.rmem(&w)) && self.quickack {
            self.quickacks |= 1;
        }
        self.win = Some(w);
        self.pending += 1;
        // a filled hole (ICSK_ACK_NOW), quick-ACK mode, or the second full segment
        let acked = had_hole || self.quickacks > 0 || self.pending >= self.delack_count;
        if acked {
            self.send_ack(ctx);
        } else if let Some((t, g)) = self.delack.arm(ctx.now + self.delack_timeout) {
            ctx.timers.push((TimerKind::DelAck, t, g));
        }
        // the application reads everything at once
        self.unread = 0;
        let (rcv_nxt, ooo_end) = (self.rcv_nxt, self.ooo.back().map(|r| r.end));
        let mut w = self.win.take().expect("linux receive window");
        w.after_read(ctx.now, rcv_nxt, rcv_nxt, ooo_end);
        // tcp_cleanup_rbuf: a window update if the read opened the window enough (also right
        // after an ACK that offered what the unread data left)
        let update = w.update_worth_sending(rcv_nxt, self.rmem(&w));
        self.win = Some(w);
        if update {
            self.send_ack(ctx);
        }
    }

    /// Linux, a new out-of-order segment (`tcp_data_queue_ofo`, `__tcp_ack_snd_check`).
    fn out_of_order_linux(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let mut w = self.win.take().expect("linux receive window");
        if self.sack && w.grow(pkt.len as u64, self.rmem(&w)) && self.quickack {
            self.quickacks |= 1;
        }
        if let Some(last) = self.ooo.back() {
            w.after_ofo(self.rcv_nxt, last.end);
        }
        // quick-ACK mode ACKs every segment; otherwise Linux may compress the SACK
        let delay = if self.quickacks == 0 { w.compress_sack(self.rcv_nxt) } else { None };
        self.win = Some(w);
        match delay {
            None => self.send_ack(ctx),
            Some(d) => {
                if !self.delack.is_armed() {
                    if let Some((t, g)) = self.delack.arm(ctx.now + d) {
                        ctx.timers.push((TimerKind::DelAck, t, g));
                    }
                }
            }
        }
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        // fast paths: the segment extends or follows the highest range (the usual case)
        let merged = match self.ooo.back_mut() {
            Some(last) if s == last.end => {
                last.end = e;
                self.ooo_held += e - s;
                *last
            }
            Some(last) if s > last.end => {
                self.ooo.push_back(Range::new(s, e));
                self.ooo_held += e - s;
                Range::new(s, e)
            }
            None => {
                self.ooo.push_back(Range::new(s, e));
                self.ooo_held += e - s;
                Range::new(s, e)
            }
            _ => {
                let (lo, hi) = Range::new(s, e).touching(&self.ooo);
                if lo == hi {
                    self.ooo.insert(lo, Range::new(s, e));
                    self.ooo_held += e - s;
                    Range::new(s, e)
                } else {
                    let merged = Range::new(self.ooo[lo].start.min(s), self.ooo[hi - 1].end.max(e));
                    let before: u64 = self.ooo.range(lo..hi).map(|r| r.end - r.start).sum();
                    self.ooo_held += (merged.end - merged.start) - before;
                    self.ooo[lo] = merged;
                    self.ooo.drain(lo + 1..hi);
                    merged
                }
            }
        };
        self.note_recent(merged);
    }

    /// `merged` holds the newest out-of-order segment: it becomes the first SACK block; older
    /// recent ranges it swallowed are dropped (RFC 2018 order, no allocation).
    fn note_recent(&mut self, merged: Range) {
        if self.ns3_sack.is_some() {
            return; // the ns3 profile reports its own list
        }
        let old = self.recent;
        let n = self.nrecent;
        self.recent[0] = merged;
        let mut k = 1;
        for &r in &old[..n] {
            let overlaps = r.start <= merged.end && r.end >= merged.start;
            if !overlaps && k < NUM_SACKS {
                self.recent[k] = r;
                k += 1;
            }
        }
        self.nrecent = k;
    }

    /// Move out-of-order data that has become in order to the application.
    fn pull_in_order(&mut self, ctx: &mut Ctx) {
        while let Some(r) = self.ooo.front().copied() {
            if r.start > self.rcv_nxt {
                break;
            }
            self.ooo.pop_front();
            self.ooo_held -= r.end - r.start;
            while let Some((seq, len, sent_at)) = self.ooo_segs.pop_below(r.end) {
                let end = seq + len as u64;
                if end > self.rcv_nxt {
                    let from = self.rcv_nxt.max(seq);
                    self.deliver(from, end - from, sent_at, ctx);
                    self.rcv_nxt = end;
                }
            }
            self.rcv_nxt = self.rcv_nxt.max(r.end);
        }
        // delivered ranges are no SACK blocks any more
        let rcv_nxt = self.rcv_nxt;
        if let Some(list) = &mut self.ns3_sack {
            list.clear_below(rcv_nxt);
        }
        let old = self.recent;
        let n = self.nrecent;
        self.nrecent = 0;
        for &r in &old[..n] {
            if r.end > rcv_nxt {
                self.recent[self.nrecent] = r;
                self.nrecent += 1;
            }
        }
    }

    fn send_ack(&mut self, ctx: &mut Ctx) {
        self.pending = 0;
        self.delack.cancel();
        // RFC 2018: the block holding the latest segment first, then the ranges of the other
        // most recent segments (each range once).
        let (blocks, n) = match &self.ns3_sack {
            Some(list) => {
                let mut b = [Range::default(); MAX_SACK_BLOCKS];
                let n = list.n.min(MAX_SACK_BLOCKS);
                b[..n].copy_from_slice(&list.blocks[..n]);
                (b, n)
            }
            None => {
                let mut b = [Range::default(); MAX_SACK_BLOCKS];
                let n = self.nrecent.min(MAX_SACK_BLOCKS);
                b[..n].copy_from_slice(&self.recent[..n]);
                (b, n)
            }
        };
        let n = if self.sack && !self.ooo.is_empty() { n } else { 0 };
        let rwnd = match self.win.take() {
            Some(mut w) => {
                // tcp_select_window, then tcp_event_ack_sent (tcp_dec_quickack_mode)
                let (rwnd, low) = w.select(self.rcv_nxt, self.rmem(&w));
                if low {
                    self.quickacks = 0;
                }
                self.quickacks = self.quickacks.saturating_sub(1);
                w.ack_sent();
                self.win = Some(w);
                rwnd
            }
            None => self.rcv_buf,
        };
        let mut pkt = Packet::new_ack(
            self.flow,
            self.node,
            self.peer,
            self.rcv_nxt,
            rwnd,
            &blocks[..n],
            self.ts_recent,
        );
        pkt.opt = self.opt_bytes;
        pkt.ts_ms = ts_ticks(ctx.now);
        self.last_ack_sent = self.rcv_nxt;
        ctx.rec.counters.acks_sent += 1;
        ctx.out.push(pkt);
    }

    pub fn on_timer(&mut self, gen: u32, ctx: &mut Ctx) {
        match self.delack.fire(ctx.now, gen) {
            Fired::Ignore => {}
            Fired::Reschedule(t, g) => ctx.timers.push((TimerKind::DelAck, t, g)),
            Fired::Expired => {
                let compressed = self.win.as_ref().is_some_and(|w| w.compressed() > 0);
                if self.pending > 0 || compressed {
                    self.send_ack(ctx);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(l: &Ns3SackList) -> Vec<(u64, u64)> {
        l.blocks[..l.n].iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn ns3_sack_list_merges_touching_blocks_newest_first() {
        let mut l = Ns3SackList::default();
        l.update(10, 20);
        l.update(30, 40);
        assert_eq!(blocks(&l), [(30, 40), (10, 20)]);
        // a piece filling the gap merges left, then right, and goes first
        l.update(20, 30);
        assert_eq!(blocks(&l), [(10, 40)]);
        l.update(50, 60);
        l.clear_below(40);
        assert_eq!(blocks(&l), [(50, 60)]);
    }

    #[test]
    fn ns3_sack_list_forgets_the_fifth_block_and_reports_a_piece_next_to_it_alone() {
        let mut l = Ns3SackList::default();
        for k in 0..5u64 {
            l.update(100 * k + 10, 100 * k + 20);
        }
        // at most four blocks: the oldest, (10, 20), is forgotten
        assert_eq!(blocks(&l), [(410, 420), (310, 320), (210, 220), (110, 120)]);
        // a piece right after the forgotten block is a block of its own (ns-3's own remark)
        l.update(20, 30);
        assert_eq!(blocks(&l), [(20, 30), (410, 420), (310, 320), (210, 220)]);
    }

    /// Feed a Linux receiver segments `seqs` (in MSS units) at 1 us steps; the SACK blocks of
    /// every ACK it sends, in MSS units.
    fn linux_acks(compress: bool, seqs: &[u64]) -> Vec<Vec<(u64, u64)>> {
        use super::super::{Profile, TcpConfig};
        use crate::record::{FlowRecorder, RecordConfig};
        let cfg = TcpConfig { sack_compression: Some(compress), ..TcpConfig::with_profile(Profile::Linux) };
        let settings = cfg.resolve();
        let mss = settings.mss as u64;
        let mut rx = TcpReceiver::new(0, 1, 0, &settings);
        rx.quickacks = 0;
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        let mut rec = FlowRecorder::new(&RecordConfig::default(), false);
        let mut acks = Vec::new();
        for (k, &q) in seqs.iter().enumerate() {
            let now = Time(1_000_000 + 1000 * k as u64);
            let pkt = Packet::data(0, 0, 1, q * mss, mss as u32, now, false);
            let mut ctx = Ctx { now, out: &mut out, timers: &mut timers, rec: &mut rec };
            rx.on_data(&pkt, &mut ctx);
            for a in out.drain(..) {
                let (b, n) = a.sack_blocks();
                acks.push(b[..n].iter().map(|r| (r.start / mss, r.end / mss)).collect());
            }
        }
        acks
    }

    #[test]
    fn linux_receiver_remembers_four_sack_blocks_and_reports_three() {
        // every second segment lost: blocks [1,2) [3,4) [5,6) [7,8); an ACK carries three
        let acks = linux_acks(false, &[1, 3, 5, 7, 8]);
        assert_eq!(acks[3], [(7, 8), (5, 6), (3, 4)]);
        // segment 6 joins [5,6) and [7,8): [1,2), remembered as the fourth block, moves up
        // and is reported again (a list of three would have forgotten it)
        let acks = linux_acks(false, &[1, 3, 5, 7, 6]);
        assert_eq!(acks[4], [(5, 8), (3, 4), (1, 2)]);
    }

    #[test]
    fn linux_compressed_sack_reports_every_range_in_first_or_second_place() {
        // three duplicate ACKs at once (1, 3, 5), then compression: segments that extend the
        // first block (6, 7, 8, 9) wait under one SACK
        let run = linux_acks(true, &[1, 3, 5, 6, 7, 8, 9]);
        assert_eq!(run.len(), 3, "{run:?}");
        // every second segment lost: each arrival starts a new block while two or more are
        // listed, so the pending SACK (the previous segment's) goes out first and every range
        // is reported first once: no ACK is saved, none is forgotten
        let seqs = [1, 3, 5, 7, 9, 11, 13];
        let alternate = linux_acks(true, &seqs);
        assert_eq!(alternate.len(), seqs.len() - 1, "{alternate:?}");
        assert_eq!(alternate[3], [(7, 8), (5, 6), (3, 4)], "sent when 9 arrived");
        assert_eq!(alternate[5], [(11, 12), (9, 10), (7, 8)], "sent when 13 arrived");
        // without compression every segment is ACKed at once
        assert_eq!(linux_acks(false, &seqs).len(), seqs.len());
    }
}
