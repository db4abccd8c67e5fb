//! The sender's scoreboard: every segment sent and not yet cumulatively acknowledged, with its
//! SACK / lost / retransmitted state, the RFC 6675 loss rule and the "pipe" estimate.
//!
//! Counters follow Linux's accounting (`packets_in_flight = packets_out - (sacked_out + lost_out)
//! + retrans_out`), in bytes:
//! `pipe = (snd_nxt - snd_una) - sacked - lost + retransmitted_in_flight`,
//! which is RFC 6675's `SetPipe()` for our segment model.
//!
//! SACK processing keeps the receiver's SACKed ranges merged; each arriving block is compared
//! with them and only the newly covered bytes are walked, so a large block repeated on every ACK
//! costs nothing after its first report.

use crate::net::Range;
use crate::time::{Dur, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Whether a SACKed retransmission still counts in the pipe until it is cumulatively
/// acknowledged (ns-3 3.37's `TcpTxBuffer` keeps `m_retrans`) or leaves it when SACKed
/// (RFC 6675 `SetPipe`, Linux `tcp_sacktag_one`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackedRetransmission {
    LeavesThePipe,
    StaysCounted,
}

/// What marking the head lost does to a retransmission of it still in flight: ns-3 3.37's
/// `TcpTxBuffer::MarkHeadAsLost` forgets it (`m_retrans` cleared), Linux's
/// `tcp_mark_skb_lost` keeps it counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadRetransmission {
    Forgotten,
    Kept,
}

/// One segment in flight (or lost, or SACKed, but not yet cumulatively acknowledged).
#[derive(Clone, Copy, Debug)]
pub struct SegRec {
    pub seq: u64,
    pub len: u32,
    /// Time of the latest transmission of this segment.
    pub sent_at: Time,
    pub tx_count: u16,
    pub sacked: bool,
    pub lost: bool,
    /// A retransmission of this segment is in flight (counted in `retrans_bytes`).
    pub rtx_inflight: bool,
    /// Sender-wide transmission counter at the latest transmission (send order).
    pub tx_seq: u64,
    // Delivery-rate snapshot at the latest transmission (draft-cheng-iccrg-delivery-rate-estimation).
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub app_limited: bool,
    /// The segment begins one of Linux's skbs (`tcp.send_buffer_truesize`: each skb costs
    /// its own overhead in the send buffer's memory, see [`Scoreboard::with_skbs`]).
    pub skb_start: bool,
}

impl SegRec {
    /// A segment `[seq, seq + len)` first sent at `now`.
    pub fn new(seq: u64, len: u32, now: Time) -> SegRec {
        SegRec {
            seq,
            len,
            sent_at: now,
            tx_count: 1,
            sacked: false,
            lost: false,
            rtx_inflight: false,
            tx_seq: 0,
            delivered: 0,
            delivered_time: Time::ZERO,
            first_sent_time: Time::ZERO,
            app_limited: false,
            skb_start: false,
        }
    }

    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// What one ACK did to the scoreboard.
#[derive(Debug, Default)]
pub struct AckOutcome {
    /// Bytes newly acknowledged cumulatively (including ones SACKed before).
    pub cum_acked: u64,
    /// Segments newly acknowledged cumulatively.
    pub cum_segments: u32,
    /// Bytes delivered by this ACK that were not known delivered before (RFC 6937 DeliveredData):
    /// newly cumulatively acked bytes not SACKed before, plus newly SACKed bytes.
    pub delivered: u64,
    /// The ACK carried SACK information not seen before.
    pub new_sack: bool,
    /// RTT sample candidate: send time of the most recently sent newly delivered segment, if it
    /// was never retransmitted (Karn's rule).
    pub rtt_sent_at: Option<Time>,
    /// The cumulative part acknowledged a segment that had been retransmitted and was not
    /// SACKed before (ns-3's `m_isRetransDataAcked`).
    pub cum_retransmitted: bool,
    /// The oldest segment the cumulative part acknowledged: its latest send time, if it was
    /// never retransmitted (ns-3 `TcpSocketBase::EstimateRtt` samples only when the ACK covers
    /// the front of its RTT history and that entry is not marked retransmitted).
    pub cum_front_clean: Option<Time>,
    /// The smallest end of a newly delivered (cumulatively or by SACK) segment that was never
    /// retransmitted: Linux sets FLAG_ORIG_SACK_ACKED when it is at or below `high_seq`.
    pub orig_min_end: Option<u64>,
}

#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<SegRec>,
    /// Id (sending order index) of `segs[0]`.
    base_id: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    sacked_bytes: u64,
    lost_bytes: u64,
    retrans_bytes: u64,
    /// Merged SACKed ranges above `snd_una`, sorted.
    sacked: VecDeque<Range>,
    /// Segments with id < `lost_hint` have been examined by the loss rule.
    lost_hint: u64,
    /// No segment with id < `unmarked_hint` is neither SACKed, retransmitted nor lost
    /// ([`Scoreboard::first_unmarked`]; a segment leaves that set only by an undo).
    unmarked_hint: u64,
    /// Ids of segments marked lost and waiting for a retransmission. Entries that were since
    /// SACKed, acknowledged or retransmitted are dropped lazily by `next_lost`.
    rtx: RtxQueue,
    /// Transmissions so far (new and retransmitted): the send order of each copy.
    tx_counter: u64,
    /// Highest send order among the segments delivered (SACKed or acknowledged) so far.
    high_delivered_tx: u64,
    /// Retransmissions in send order: (send order, segment id).
    rtx_order: VecDeque<(u64, u64)>,
    /// The SACK blocks of the previous ACK: receivers repeat them, and a repeated block
    /// carries nothing new.
    last_blocks: [Range; 4],
    last_n: usize,
    /// Scratch: the parts of a SACK block not SACKed before (reused, no allocation per ACK;
    /// unbounded, a block may cover any number of known gaps).
    fresh: Vec<Range>,
    /// A retransmitted segment stays counted in `retrans_bytes` when it is SACKed, until it is
    /// cumulatively acknowledged or a timeout clears the marks: ns-3 3.37's `TcpTxBuffer` keeps
    /// `m_retrans` until `DiscardUpTo` / `SetSentListLost`, and its `BytesInFlight` (sent -
    /// SACKed - lost + retransmitted) therefore counts such a segment as in flight (the `ns3`
    /// profile). RFC 6675 `SetPipe` and Linux count it out (`tcp_sacktag_one` clears
    /// TCPCB_SACKED_RETRANS).
    sacked_retransmissions_stay_counted: bool,
    /// RACK's state when losses are detected by time (`tcp.rack`).
    rack: Option<Rack>,
    /// Keep Linux's skb boundaries (`with_skbs`); `skbs` counts the outstanding segments that
    /// begin one.
    track_skbs: bool,
    skbs: u64,
}

/// RACK (RFC 8985; Linux 6.18 `net/ipv4/tcp_recovery.c`): the most recently sent copy among the
/// delivered ones and the RTT it took.
#[derive(Clone, Copy, Debug, Default)]
struct Rack {
    /// Send order of that copy (`rack.mstamp` with `rack.end_seq` breaking ties: mmcc's send
    /// order is the time order, ties at the same nanosecond in the order of sending).
    tx: u64,
    /// `rack.rtt_us`: the RTT of the last delivered copy that advanced RACK.
    rtt: Dur,
    /// `rack.advanced`: a delivery advanced RACK since the last loss check.
    advanced: bool,
    /// `tp->reord_seen`: a segment never retransmitted was delivered below the highest SACKed
    /// sequence (`tcp_check_sack_reordering`).
    reord_seen: bool,
    /// The ACK being processed: its time, the connection's minimum RTT (`tcp_rack_advance`) and
    /// the send time its timestamp echoes (`None` without timestamps).
    now: Time,
    min_rtt: Dur,
    echo: Option<Time>,
}

/// What a RACK loss check found: bytes newly marked lost and, for copies not yet overdue, the
/// longest time still to wait (`tcp_rack_detect_loss`'s `reo_timeout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackOutcome {
    /// The check ran (a delivery advanced RACK, or the timer forced it).
    pub checked: bool,
    pub newly_lost: u64,
    pub wait: Option<Dur>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }

    /// A scoreboard whose SACKed retransmissions follow `rule` (see the field).
    pub fn with_sacked_retransmissions(rule: SackedRetransmission) -> Self {
        Scoreboard {
            sacked_retransmissions_stay_counted: rule == SackedRetransmission::StaysCounted,
            ..Self::default()
        }
    }

    /// Detect losses by time with RACK (RFC 8985) instead of RFC 6675's count.
    pub fn with_rack(mut self) -> Self {
        self.rack = Some(Rack::default());
        self
    }

    /// Keep the boundaries of Linux's skbs over the outstanding data, for the memory the send
    /// buffer charges (`tcp.send_buffer_truesize`): the sender starts an skb per transmission
    /// (`SegRec::skb_start`, `tso_fragment`); a cumulative ACK inside an skb leaves its rest one
    /// skb (`tcp_trim_head`); a SACK block cuts the skbs it partly covers (`tcp_fragment` in
    /// `tcp_match_skb_to_sack`), joins what it newly covers to a SACKed skb just before it
    /// (`tcp_shift_skb_data`), and when it fills a hole up to a SACKed skb, that one too
    /// (`tcp_shifted_skb`: "hole filled allows collapsing with the next as well").
    pub fn with_skbs(mut self) -> Self {
        self.track_skbs = true;
        self
    }

    /// Linux skbs holding the outstanding data (with `with_skbs`).
    pub fn skbs(&self) -> u64 {
        self.skbs
    }

    fn set_skb_start(&mut self, i: usize, start: bool) {
        let s = &mut self.segs[i];
        if s.skb_start != start {
            s.skb_start = start;
            if start {
                self.skbs += 1;
            } else {
                self.skbs -= 1;
            }
        }
    }

    /// The skb boundaries around the newly SACKed segments from index `i0` to sequence `end`
    /// (see `with_skbs`).
    fn sack_skbs(&mut self, i0: usize, end: u64) {
        let i1 = i0 + self.segs.range(i0..).position(|s| s.seq >= end).unwrap_or(self.segs.len() - i0);
        let joins_prev = i0 > 0 && self.segs[i0 - 1].sacked;
        self.set_skb_start(i0, !joins_prev);
        for i in i0 + 1..i1 {
            self.set_skb_start(i, false);
        }
        if i1 < self.segs.len() {
            let next_sacked = self.segs[i1].sacked;
            self.set_skb_start(i1, !next_sacked);
        }
    }

    /// RACK: the time of the ACK about to be processed, the connection's minimum RTT and the
    /// send time the ACK's timestamp echoes.
    pub fn rack_clock(&mut self, now: Time, min_rtt: Dur, echo: Option<Time>) {
        if let Some(r) = &mut self.rack {
            r.now = now;
            r.min_rtt = min_rtt;
            r.echo = echo;
        }
    }

    /// RACK has seen reordering (`tp->reord_seen`).
    pub fn reordering_seen(&self) -> bool {
        self.rack.is_some_and(|r| r.reord_seen)
    }

    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    /// RFC 6675 pipe: bytes estimated to be in the network.
    pub fn pipe(&self) -> u64 {
        (self.outstanding() + self.retrans_bytes).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }
    pub fn retrans_bytes(&self) -> u64 {
        self.retrans_bytes
    }
    pub fn segments(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn highest_sacked(&self) -> Option<u64> {
        self.sacked.back().map(|r| r.end)
    }

    fn idx(&self, id: u64) -> usize {
        (id - self.base_id) as usize
    }
    /// The oldest outstanding segment.
    pub fn head(&self) -> Option<&SegRec> {
        self.segs.front()
    }
    pub fn get(&self, id: u64) -> &SegRec {
        &self.segs[self.idx(id)]
    }
    pub fn get_mut(&mut self, id: u64) -> &mut SegRec {
        let i = self.idx(id);
        &mut self.segs[i]
    }
    /// Id of the first unacknowledged segment.
    pub fn head_id(&self) -> Option<u64> {
        if self.segs.is_empty() {
            None
        } else {
            Some(self.base_id)
        }
    }

    /// Index of the segment containing byte `seq` (segments are contiguous and sorted).
    fn find(&self, seq: u64) -> Option<usize> {
        if self.segs.is_empty() || seq < self.snd_una || seq >= self.snd_nxt {
            return None;
        }
        // Segments are nearly always one MSS long: guess the index, check, else search.
        let guess = ((seq - self.snd_una) / self.segs[0].len.max(1) as u64) as usize;
        if let Some(s) = self.segs.get(guess) {
            if s.seq <= seq && seq < s.end() {
                return Some(guess);
            }
        }
        let i = self.segs.partition_point(|s| s.end() <= seq);
        (i < self.segs.len()).then_some(i)
    }

    /// Record a new segment `[snd_nxt, snd_nxt + len)` sent at `now`. Returns its id.
    pub fn push_new(&mut self, mut rec: SegRec) -> u64 {
        debug_assert_eq!(rec.seq, self.snd_nxt);
        rec.tx_count = 1;
        self.tx_counter += 1;
        rec.tx_seq = self.tx_counter;
        self.snd_nxt += rec.len as u64;
        if !self.track_skbs {
            rec.skb_start = false;
        }
        self.skbs += rec.skb_start as u64;
        let id = self.base_id + self.segs.len() as u64;
        self.segs.push_back(rec);
        id
    }

    /// Re-cut the outstanding data for a retransmission of `want` bytes from segment `id`, as
    /// ns-3 3.35-3.37's transmit buffer does (`TcpTxBuffer::GetTransmittedSegment` and
    /// `GetPacketFromList`): the segment may join the next one when that is not SACKed and
    /// carries the same lost mark, and the result is cut at `want` bytes; the rest stays a
    /// segment of its own. So a lost short segment (the send buffer's odd tail) goes out as a
    /// full one and the short rest moves up the lost run. Returns the length now at `id`.
    #[inline(never)]
    pub fn resegment(&mut self, id: u64, want: u32) -> u32 {
        let i = self.idx(id);
        let a = self.segs[i];
        // GetTransmittedSegment: how far the merge may reach
        let want = match self.segs.get(i + 1) {
            Some(b) if !b.sacked && b.lost == a.lost => want.min(a.len + b.len),
            _ => want.min(a.len),
        };
        if want == a.len {
            return want;
        }
        if want < a.len {
            // SplitItems: the first `want` bytes become an item of their own
            let mut rest = a;
            rest.seq += want as u64;
            rest.len -= want;
            rest.skb_start = false;
            self.segs[i].len = want;
            self.insert_segment(i + 1, rest);
            return want;
        }
        let b = self.segs[i + 1];
        // MergeItems: a retransmitted mark on one side only is dropped, the later send time kept
        let (mut a2, mut b2) = (a, b);
        if a.rtx_inflight != b.rtx_inflight {
            let marked = if a.rtx_inflight { a.len } else { b.len };
            self.retrans_bytes -= marked as u64;
            a2.rtx_inflight = false;
            b2.rtx_inflight = false;
        }
        a2.sent_at = a.sent_at.max(b.sent_at);
        if want == a.len + b.len {
            a2.len = want;
            self.segs[i] = a2;
            self.remove_segment(i + 1);
        } else {
            // merged, then split at `want`: the rest keeps the merged item's delivery-rate
            // snapshot (the first's, `m_rateInfo` is not copied by SplitItems) and the later
            // send time; its bytes keep the second segment's transmission history (Karn)
            a2.len = want;
            b2.seq = a.seq + want as u64;
            b2.len = a.len + b.len - want;
            b2.sent_at = a2.sent_at;
            b2.delivered = a.delivered;
            b2.delivered_time = a.delivered_time;
            b2.first_sent_time = a.first_sent_time;
            b2.app_limited = a.app_limited;
            self.segs[i] = a2;
            self.segs[i + 1] = b2;
            if b.rtx_inflight && !b2.rtx_inflight && b2.lost {
                self.rtx.push(id + 1); // a mark dropped by the merge: due again
            }
        }
        self.unmarked_hint = self.unmarked_hint.min(id);
        want
    }

    /// Insert `rec` at index `i` (a split): every stored id from there on moves up by one.
    fn insert_segment(&mut self, i: usize, rec: SegRec) {
        let id = self.base_id + i as u64;
        self.renumber(|x| if x >= id { x + 1 } else { x });
        self.segs.insert(i, rec);
        if rec.lost && !rec.sacked && !rec.rtx_inflight {
            self.rtx.push(id);
        }
    }

    /// Remove the segment at index `i` (merged into the one before): the ids above move down
    /// and the removed one's become its predecessor's.
    fn remove_segment(&mut self, i: usize) {
        let id = self.base_id + i as u64;
        self.segs.remove(i);
        self.renumber(|x| if x >= id { x - 1 } else { x });
    }

    /// Apply `f` to every stored segment id (the rare re-cut of the outstanding data).
    fn renumber(&mut self, f: impl Fn(u64) -> u64) {
        self.lost_hint = f(self.lost_hint);
        self.unmarked_hint = f(self.unmarked_hint);
        for e in self.rtx_order.iter_mut() {
            e.1 = f(e.1);
        }
        let mut queued: Vec<u64> = self.rtx.ascending.drain(..).chain(self.rtx.other.drain().map(|r| r.0)).collect();
        queued.sort_unstable();
        for id in queued {
            self.rtx.push(f(id));
        }
    }

    /// Record a retransmission of segment `id`.
    pub fn on_retransmit(&mut self, id: u64, now: Time) {
        let i = self.idx(id);
        self.tx_counter += 1;
        self.rtx_order.push_back((self.tx_counter, id));
        let s = &mut self.segs[i];
        s.sent_at = now;
        s.tx_seq = self.tx_counter;
        s.tx_count = s.tx_count.saturating_add(1);
        if !s.rtx_inflight && !s.sacked {
            s.rtx_inflight = true;
            self.retrans_bytes += s.len as u64;
        }
    }

    /// Apply a cumulative ACK and SACK blocks. Calls `on_delivered` for every segment newly
    /// delivered (cumulatively acked without an earlier SACK, or newly SACKed).
    pub fn on_ack(&mut self, ack: u64, blocks: &[Range], mut on_delivered: impl FnMut(&SegRec)) -> AckOutcome {
        let mut out = AckOutcome::default();
        let mut newest: Option<(Time, bool)> = None; // (sent_at, never retransmitted)
        let mut high_tx = self.high_delivered_tx;
        let mut rack = self.rack;
        let fack = self.sacked.back().map_or(0, |r| r.end);
        let mut note = |s: &SegRec, out: &mut AckOutcome, cum: bool| {
            high_tx = high_tx.max(s.tx_seq);
            if let Some(r) = &mut rack {
                // tcp_rack_advance: a retransmitted copy delivered sooner than the minimum RTT
                // may be the original's delivery; it does not advance RACK. Cumulatively
                // acknowledged, neither does one whose ACK echoes a timestamp older than the
                // retransmission (tcp_clean_rtx_queue: tcp_skb_spurious_retrans; whole ms)
                let rtt = r.now - s.sent_at;
                let spurious = cum
                    && s.tx_count > 1
                    && r.echo.is_some_and(|e| e.0 / 1_000_000 < s.sent_at.0 / 1_000_000);
                let ambiguous = s.tx_count > 1 && rtt < r.min_rtt;
                if !ambiguous && !spurious {
                    r.advanced = true;
                    r.rtt = rtt;
                    r.tx = r.tx.max(s.tx_seq);
                }
                // tcp_check_sack_reordering: an original delivered below the highest SACK
                r.reord_seen |= s.tx_count == 1 && s.seq < fack;
            }
            out.delivered += s.len as u64;
            if s.tx_count == 1 {
                out.orig_min_end = Some(out.orig_min_end.map_or(s.end(), |e| e.min(s.end())));
            }
            if newest.is_none_or(|(t, _)| s.sent_at >= t) {
                newest = Some((s.sent_at, s.tx_count == 1));
            }
        };

        // Cumulative part.
        let ack = ack.min(self.snd_nxt);
        if ack > self.snd_una {
            while let Some(s) = self.segs.front() {
                if s.end() > ack {
                    break;
                }
                let s = self.segs.pop_front().expect("front");
                self.base_id += 1;
                self.skbs -= s.skb_start as u64;
                if out.cum_segments == 0 && s.tx_count == 1 {
                    out.cum_front_clean = Some(s.sent_at);
                }
                out.cum_acked += s.len as u64;
                out.cum_segments += 1;
                // ns-3 TcpTxBuffer::IsRetransmittedDataAcked: a retransmitted item not SACKed
                out.cum_retransmitted |= s.tx_count > 1 && !s.sacked;
                if s.sacked {
                    self.sacked_bytes -= s.len as u64;
                    if s.rtx_inflight {
                        self.retrans_bytes -= s.len as u64;
                    }
                } else {
                    note(&s, &mut out, true);
                    on_delivered(&s);
                    if s.lost {
                        self.lost_bytes -= s.len as u64;
                    }
                    if s.rtx_inflight {
                        self.retrans_bytes -= s.len as u64;
                    }
                }
            }
            self.snd_una = ack;
            // Drop SACK ranges now below snd_una.
            while self.sacked.front().is_some_and(|r| r.end <= ack) {
                self.sacked.pop_front();
            }
            if let Some(r) = self.sacked.front_mut() {
                r.start = r.start.max(ack);
            }
            self.lost_hint = self.lost_hint.max(self.base_id);
            if self.track_skbs && !self.segs.is_empty() {
                self.set_skb_start(0, true); // tcp_trim_head: the rest of a partly acked skb
            }
        }

        // SACK part: only the bytes not covered by earlier SACKs are walked; blocks repeated
        // from the previous ACK are skipped outright.
        let (prev, prev_n) = (self.last_blocks, self.last_n);
        self.last_n = blocks.len().min(4);
        for (k, b) in blocks.iter().take(4).enumerate() {
            self.last_blocks[k] = *b; // element-wise: no memcpy call for a few bytes
        }
        for b in blocks {
            if prev[..prev_n].contains(b) {
                continue;
            }
            let b = Range::new(b.start.max(self.snd_una), b.end.min(self.snd_nxt));
            if b.is_empty() {
                continue;
            }
            let mut fresh = std::mem::take(&mut self.fresh);
            fresh.clear();
            self.insert_sacked(b, &mut fresh);
            for r in &fresh {
                out.new_sack = true;
                let Some(i) = self.find(r.start) else { continue };
                for s in self.segs.range_mut(i..) {
                    if s.seq >= r.end {
                        break;
                    }
                    // Only whole segments inside the range are SACKed (receivers SACK whole
                    // segments in this model).
                    if !s.sacked && s.seq >= b.start && s.end() <= b.end {
                        s.sacked = true;
                        self.sacked_bytes += s.len as u64;
                        if s.lost {
                            self.lost_bytes -= s.len as u64;
                        }
                        if s.rtx_inflight && !self.sacked_retransmissions_stay_counted {
                            s.rtx_inflight = false;
                            self.retrans_bytes -= s.len as u64;
                        }
                        note(s, &mut out, false);
                        on_delivered(s);
                    }
                }
                if self.track_skbs {
                    self.sack_skbs(i, r.end);
                }
            }
            self.fresh = fresh;
        }
        out.rtt_sent_at = newest.and_then(|(t, clean)| clean.then_some(t));
        self.high_delivered_tx = high_tx;
        self.rack = rack;
        out
    }

    /// RACK's loss check (Linux `tcp_rack_mark_lost` -> `tcp_rack_detect_loss`, RFC 8985 6.2):
    /// a copy not delivered and sent before the most recently sent delivered one is lost once
    /// `rack.rtt + reo_wnd` has passed since it was sent; the others wait, and the longest wait
    /// is returned for the reordering timer. Runs only when a delivery advanced RACK since the
    /// last check, unless `force` (the timer). Originals are walked in sequence order (their
    /// send order) from the first not yet resolved, skipping SACKed ranges; retransmissions
    /// in their send order.
    pub fn rack_detect_losses(&mut self, now: Time, reo_wnd: Dur, force: bool) -> RackOutcome {
        let mut out = RackOutcome::default();
        let Some(rack) = self.rack.as_mut() else { return out };
        if !std::mem::take(&mut rack.advanced) && !force {
            return out;
        }
        out.checked = true;
        let (rack_tx, deadline) = (rack.tx, rack.rtt + reo_wnd);
        let mut wait = Dur::ZERO;
        // originals
        let end = self.base_id + self.segs.len() as u64;
        let mut id = self.lost_hint.max(self.base_id);
        let mut resolved = true; // every segment below `id` is SACKed, lost or retransmitted
        while id < end {
            let i = self.idx(id);
            let s = &self.segs[i];
            if s.sacked {
                // skip the SACKed range holding it
                let k = self.sacked.partition_point(|r| r.end <= s.seq);
                let next = self.sacked.get(k).map_or(s.end(), |r| r.end);
                let next_id = self.find(next).map_or(end, |j| self.base_id + j as u64);
                if resolved {
                    self.lost_hint = next_id;
                }
                id = next_id.max(id + 1);
                continue;
            }
            if s.tx_count > 1 || s.lost {
                id += 1; // marked already, or retransmitted (its copy is walked below)
                if resolved {
                    self.lost_hint = id;
                }
                continue;
            }
            if s.tx_seq > rack_tx {
                break; // sent after the most recently sent delivered copy
            }
            let elapsed = now - s.sent_at;
            if elapsed >= deadline {
                let s = &mut self.segs[i];
                s.lost = true;
                self.lost_bytes += s.len as u64;
                out.newly_lost += s.len as u64;
                self.rtx.push(id);
                if resolved {
                    self.lost_hint = id + 1;
                }
            } else {
                resolved = false;
                wait = wait.max(deadline - elapsed);
            }
            id += 1;
        }
        // retransmissions, oldest first; entries of copies since delivered or resent go
        let mut k = 0;
        while k < self.rtx_order.len() {
            let (tx, id) = self.rtx_order[k];
            let live = id >= self.base_id && {
                let s = &self.segs[self.idx(id)];
                // the latest copy, not delivered, not waiting for a retransmission
                s.tx_seq == tx && !s.sacked && (s.rtx_inflight || !s.lost)
            };
            if !live {
                self.rtx_order.remove(k); // the front in the usual case: O(1)
                continue;
            }
            if tx > rack_tx {
                break;
            }
            let i = self.idx(id);
            let elapsed = now - self.segs[i].sent_at;
            if elapsed >= deadline {
                let s = &mut self.segs[i];
                if s.rtx_inflight {
                    s.rtx_inflight = false;
                    self.retrans_bytes -= s.len as u64;
                }
                if !s.lost {
                    s.lost = true;
                    self.lost_bytes += s.len as u64;
                }
                out.newly_lost += s.len as u64;
                self.rtx.push(id);
                self.rtx_order.remove(k);
            } else {
                wait = wait.max(deadline - elapsed);
                k += 1;
            }
        }
        out.wait = (wait > Dur::ZERO).then_some(wait);
        out
    }

    /// Lost-retransmission detection by send order (the principle of RACK, RFC 8985, with a
    /// reordering window counted in packets): a retransmission is lost when a copy sent more
    /// than `window` transmissions after it has been delivered. Its segment stays lost and
    /// becomes eligible for another retransmission. Returns the bytes found.
    pub fn detect_lost_retransmissions(&mut self, window: u64) -> u64 {
        let mut found = 0;
        while let Some(&(tx, id)) = self.rtx_order.front() {
            if tx + window > self.high_delivered_tx {
                break;
            }
            self.rtx_order.pop_front();
            if id < self.base_id {
                continue; // acknowledged since
            }
            let i = self.idx(id);
            let s = &mut self.segs[i];
            if s.rtx_inflight && s.tx_seq == tx && !s.sacked {
                s.rtx_inflight = false;
                self.retrans_bytes -= s.len as u64;
                found += s.len as u64;
                self.rtx.push(id);
            }
        }
        found
    }

    /// Merge `b` into the SACKed ranges; append the parts of `b` not covered before to `fresh`.
    fn insert_sacked(&mut self, b: Range, fresh: &mut Vec<Range>) {
        // Fast paths: the block repeats, or extends upwards, the highest SACKed range (the
        // receiver's first block usually does).
        if let Some(last) = self.sacked.back_mut() {
            if b.start >= last.start && b.start <= last.end {
                if b.end > last.end {
                    fresh.push(Range::new(last.end, b.end));
                    last.end = b.end;
                }
                return;
            }
        }
        // ranges overlapping or touching b
        let (lo, hi) = b.touching(&self.sacked);
        let mut cursor = b.start;
        for r in self.sacked.range(lo..hi) {
            if r.start > cursor {
                fresh.push(Range::new(cursor, r.start.min(b.end)));
            }
            cursor = cursor.max(r.end);
        }
        if cursor < b.end {
            fresh.push(Range::new(cursor, b.end));
        }
        if !fresh.is_empty() {
            if lo == hi {
                self.sacked.insert(lo, b);
            } else {
                let merged = Range::new(self.sacked[lo].start.min(b.start), self.sacked[hi - 1].end.max(b.end));
                self.sacked[lo] = merged;
                self.sacked.drain(lo + 1..hi);
            }
        }
    }

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

    /// Check the counters against a recount (tests and debug builds).
    pub fn check(&self) -> Result<(), String> {
        let (mut sacked, mut lost, mut rtx) = (0, 0, 0);
        let mut expect = self.snd_una;
        for s in &self.segs {
            if s.seq != expect {
                return Err(format!("gap in scoreboard at {}", s.seq));
            }
            expect = s.end();
            if s.sacked {
                sacked += s.len as u64;
                if s.rtx_inflight {
                    if !self.sacked_retransmissions_stay_counted {
                        return Err(format!("segment {} SACKed with a retransmission in flight", s.seq));
                    }
                    rtx += s.len as u64;
                }
            } else {
                if s.lost {
                    lost += s.len as u64;
                }
                if s.rtx_inflight {
                    rtx += s.len as u64;
                }
            }
        }
        if expect != self.snd_nxt {
            return Err("scoreboard does not end at snd_nxt".into());
        }
        // every whole segment inside a SACKed range is flagged SACKed, and no other is
        for s in &self.segs {
            let k = self.sacked.partition_point(|r| r.end <= s.seq);
            let inside = self.sacked.get(k).is_some_and(|r| r.start <= s.seq && s.end() <= r.end);
            if inside != s.sacked {
                return Err(format!("segment {} SACK flag {} but SACKed ranges say {inside}", s.seq, s.sacked));
            }
        }
        let starts = self.segs.iter().filter(|s| s.skb_start).count() as u64;
        if starts != self.skbs {
            return Err(format!("skb count {} but {starts} segments begin an skb", self.skbs));
        }
        if self.track_skbs && self.segs.front().is_some_and(|s| !s.skb_start) {
            return Err(format!("the head segment {} begins no skb", self.snd_una));
        }
        if (sacked, lost, rtx) != (self.sacked_bytes, self.lost_bytes, self.retrans_bytes) {
            return Err(format!(
                "counters {:?} != recount {:?}",
                (self.sacked_bytes, self.lost_bytes, self.retrans_bytes),
                (sacked, lost, rtx)
            ));
        }
        Ok(())
    }
}

/// Segment ids waiting for retransmission, lowest first: a deque for ids queued in ascending
/// order (the loss rule marks upwards, so it only appends) and a min-heap for the rest (lost
/// retransmissions, below the marked ones). An id may be queued twice; `next_lost` checks
/// validity at the head.
#[derive(Default)]
struct RtxQueue {
    ascending: VecDeque<u64>,
    other: BinaryHeap<Reverse<u64>>,
}

impl RtxQueue {
    fn push(&mut self, id: u64) {
        if self.ascending.back().is_none_or(|&b| b < id) {
            self.ascending.push_back(id);
        } else {
            self.other.push(Reverse(id));
        }
    }

    /// The lowest queued id.
    fn first(&self) -> Option<u64> {
        match (self.ascending.front(), self.other.peek()) {
            (Some(&a), Some(&Reverse(o))) => Some(a.min(o)),
            (a, o) => a.copied().or(o.map(|r| r.0)),
        }
    }

    fn pop_first(&mut self) {
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

    fn clear(&mut self) {
        self.ascending.clear();
        self.other.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push_new(SegRec::new(i * MSS as u64, MSS, Time(i)));
        }
        b
    }

    fn r(a: u64, b: u64) -> Range {
        Range::new(a * MSS as u64, b * MSS as u64)
    }

    /// Segments of the given lengths, back to back from 0.
    fn board_of(lens: &[u32]) -> Scoreboard {
        let mut b = Scoreboard::with_sacked_retransmissions(SackedRetransmission::StaysCounted);
        let mut seq = 0;
        for (i, &len) in lens.iter().enumerate() {
            b.push_new(SegRec::new(seq, len, Time(i as u64)));
            seq += len as u64;
        }
        b
    }

    fn lens(b: &Scoreboard) -> Vec<u32> {
        b.segs.iter().map(|s| s.len).collect()
    }

    /// ns-3's transmit buffer re-cuts a retransmission (`GetTransmittedSegment`): a lost
    /// 200-byte segment followed by lost full ones goes out as a full segment, the 200-byte
    /// rest moving up the lost run until it meets a segment in another state.
    #[test]
    fn a_short_lost_segment_is_resent_full_and_its_rest_moves_up_the_lost_run() {
        let mut b = board_of(&[200, MSS, MSS, MSS, MSS]);
        b.on_ack(0, &[Range::new(200 + 3 * MSS as u64, 200 + 4 * MSS as u64)], |_| {});
        b.on_ack(0, &[Range::new(200 + 2 * MSS as u64, 200 + 4 * MSS as u64)], |_| {});
        assert_eq!(b.mark_losses(1), 200 + MSS as u64 * 2);
        for expect in [vec![MSS, 200, MSS, MSS, MSS], vec![MSS, MSS, 200, MSS, MSS]] {
            let id = b.next_lost().unwrap();
            assert_eq!(b.resegment(id, MSS), MSS);
            b.on_retransmit(id, Time(10));
            assert_eq!(lens(&b), expect);
            b.check().unwrap();
        }
        // the rest now sits before a SACKed segment: it goes alone
        let id = b.next_lost().unwrap();
        assert_eq!((b.get(id).seq, b.resegment(id, MSS)), (2 * MSS as u64, 200));
        b.on_retransmit(id, Time(11));
        assert_eq!(b.next_lost(), None);
        assert_eq!((b.lost_bytes(), b.retrans_bytes()), (200 + 2 * MSS as u64, 200 + 2 * MSS as u64));
        b.check().unwrap();
        // a segment in flight (not marked lost) is not joined to a lost one either
        let mut c = board_of(&[200, MSS]);
        c.mark_head_lost(HeadRetransmission::Forgotten);
        assert_eq!(c.resegment(0, MSS), 200);
    }

    /// Two short lost segments that fit one MSS become one (the ids above move down), and a
    /// request shorter than the segment splits it (the ids above move up); the loss queue
    /// follows the renumbering.
    #[test]
    fn short_neighbours_merge_and_a_short_request_splits() {
        let mut b = board_of(&[200, 300, MSS, MSS, MSS, MSS]);
        b.on_ack(0, &[Range::new(500 + 3 * MSS as u64, 500 + 4 * MSS as u64)], |_| {});
        b.on_ack(0, &[Range::new(500 + 2 * MSS as u64, 500 + 4 * MSS as u64)], |_| {});
        b.on_ack(0, &[Range::new(500 + MSS as u64, 500 + 4 * MSS as u64)], |_| {});
        assert_eq!(b.mark_losses(3), 500 + MSS as u64);
        assert_eq!(b.resegment(0, MSS), 500);
        assert_eq!(lens(&b), vec![500, MSS, MSS, MSS, MSS]);
        b.on_retransmit(0, Time(10));
        assert_eq!(b.next_lost(), Some(1));
        assert_eq!(b.get(1).seq, 500);
        b.check().unwrap();
        assert_eq!(b.resegment(1, 600), 600);
        assert_eq!(lens(&b), vec![500, 600, MSS - 600, MSS, MSS, MSS]);
        b.on_retransmit(1, Time(11));
        assert_eq!(b.next_lost(), Some(2));
        b.check().unwrap();
        // a marked retransmission merged with an unmarked segment loses its mark (MergeItems)
        let mut c = board_of(&[200, MSS, MSS]);
        c.on_retransmit(1, Time(5));
        assert_eq!(c.retrans_bytes(), MSS as u64);
        assert_eq!(c.resegment(0, MSS), MSS);
        assert_eq!((lens(&c), c.retrans_bytes()), (vec![MSS, 200, MSS], 0));
        c.check().unwrap();
    }

    /// Linux's skbs over the outstanding data (`with_skbs`): two skbs of five segments sent;
    /// each SACK cuts what it partly covers, joins a SACKed skb before it and, filling a hole,
    /// the SACKed one after it; a cumulative ACK leaves the rest of an skb one skb.
    #[test]
    fn skbs_are_cut_by_sacks_joined_when_sacked_together_and_trimmed_by_acks() {
        let mut b = Scoreboard::new().with_skbs();
        for i in 0..10 {
            let mut s = SegRec::new(i * MSS as u64, MSS, Time(i));
            s.skb_start = i == 0 || i == 5;
            b.push_new(s);
        }
        let starts = |b: &Scoreboard| {
            b.segs.iter().filter(|s| s.skb_start).map(|s| s.seq / MSS as u64).collect::<Vec<_>>()
        };
        assert_eq!((b.skbs(), starts(&b)), (2, vec![0, 5]));
        b.on_ack(0, &[r(2, 3)], |_| {}); // tcp_fragment at both ends: [0,1] [2] [3,4] [5..9]
        assert_eq!(starts(&b), vec![0, 2, 3, 5]);
        b.on_ack(0, &[r(2, 4)], |_| {}); // 3 shifts into the SACKed 2: [0,1] [2,3] [4] [5..9]
        assert_eq!(starts(&b), vec![0, 2, 4, 5]);
        b.on_ack(0, &[r(2, 5)], |_| {});
        assert_eq!(starts(&b), vec![0, 2, 5]);
        b.on_ack(0, &[r(6, 7), r(2, 5)], |_| {});
        assert_eq!(starts(&b), vec![0, 2, 5, 6, 7]);
        // 5 fills the hole between two SACKed skbs: all three become one
        b.on_ack(0, &[r(2, 7)], |_| {});
        assert_eq!((b.skbs(), starts(&b)), (3, vec![0, 2, 7]));
        b.check().unwrap();
        // the ACK of segment 0 leaves 1, the rest of the first skb, as an skb of its own
        b.on_ack(MSS as u64, &[r(2, 7)], |_| {});
        assert_eq!(starts(&b), vec![1, 2, 7]);
        b.on_ack(8 * MSS as u64, &[], |_| {});
        assert_eq!((b.skbs(), starts(&b)), (1, vec![8]));
        b.check().unwrap();
        // without `with_skbs` nothing is counted
        let mut plain = board(3);
        plain.on_ack(0, &[r(1, 2)], |_| {});
        assert_eq!(plain.skbs(), 0);
        plain.check().unwrap();
    }

    #[test]
    fn first_unmarked_skips_sacked_lost_and_retransmitted_segments() {
        let mut b = board(10);
        assert_eq!(b.first_unmarked(), Some(0));
        // 0 and 1 lost (three SACKed above each), 2..6 SACKed, 6..10 in flight
        b.on_ack(0, &[r(2, 6)], |_| {});
        assert_eq!(b.mark_losses(3), 2000);
        assert_eq!(b.first_unmarked(), Some(6)); // NextSeg rule 3: not lost, not SACKed
        b.on_retransmit(6, Time(20)); // sent again by rule 3
        assert_eq!(b.first_unmarked(), Some(7));
        b.on_ack(0, &[r(2, 6), r(7, 9)], |_| {});
        assert_eq!(b.first_unmarked(), Some(9));
        b.on_retransmit(9, Time(21));
        assert_eq!(b.first_unmarked(), None);
        // an undo withdraws the loss marks: 0 and 1 are candidates again
        b.unmark_all_lost();
        assert_eq!(b.first_unmarked(), Some(0));
    }

    #[test]
    fn a_sacked_retransmission_stays_in_the_pipe_in_ns3_until_acknowledged() {
        for ns3 in [false, true] {
            let rule = if ns3 { SackedRetransmission::StaysCounted } else { SackedRetransmission::LeavesThePipe };
            let mut b = Scoreboard::with_sacked_retransmissions(rule);
            for i in 0..6u64 {
                b.push_new(SegRec::new(i * MSS as u64, MSS, Time(i)));
            }
            // 0 and 1 lost; 2..6 SACKed; both retransmitted; the retransmission of 0 is lost
            // again and that of 1 SACKed
            b.on_ack(0, &[r(2, 6)], |_| {});
            assert_eq!(b.mark_losses(3), 2000);
            b.on_retransmit(0, Time(10));
            b.on_retransmit(1, Time(10));
            b.on_ack(0, &[r(1, 2), r(2, 6)], |_| {});
            b.check().unwrap();
            // ns-3 BytesInFlight: 6 sent - 5 SACKed - 1 lost + 2 retransmitted = 2; RFC 6675 /
            // Linux: the retransmission of 0 only
            assert_eq!(b.pipe(), if ns3 { 2000 } else { 1000 }, "ns3 {ns3}");
            b.on_ack(6000, &[], |_| {});
            assert_eq!((b.pipe(), b.retrans_bytes()), (0, 0));
            b.check().unwrap();
        }
    }

    #[test]
    fn marking_a_retransmitted_head_lost_forgets_the_retransmission_in_ns3_only() {
        // The head (segment 0, in flight, not lost) was sent again by NextSeg rule 3; two
        // segments above it are SACKed, too few to mark it lost. Fast retransmit marks it lost:
        // ns-3's MarkHeadAsLost also clears m_retrans (BytesInFlight loses the segment until it
        // is retransmitted again), Linux's tcp_mark_skb_lost keeps the retransmission counted.
        for (rule, pipe) in [(HeadRetransmission::Forgotten, 7000), (HeadRetransmission::Kept, 8000)] {
            let forget = rule == HeadRetransmission::Forgotten;
            let mut b = board(10);
            b.on_ack(0, &[r(1, 3)], |_| {});
            b.on_retransmit(0, Time(20));
            assert_eq!(b.pipe(), 9000); // 10 outstanding + 1 retransmission - 2 SACKed
            b.mark_head_lost(rule);
            assert!(b.head_is_lost());
            assert_eq!((b.pipe(), b.retrans_bytes()), (pipe, if forget { 0 } else { 1000 }));
            b.check().unwrap();
        }
    }

    #[test]
    fn cumulative_ack_pops_segments_and_counts_delivered() {
        let mut b = board(10);
        let o = b.on_ack(3000, &[], |_| {});
        assert_eq!((o.cum_acked, o.cum_segments, o.delivered), (3000, 3, 3000));
        assert_eq!(b.snd_una, 3000);
        assert_eq!(b.pipe(), 7000);
        assert_eq!(o.rtt_sent_at, Some(Time(2)));
        b.check().unwrap();
    }

    #[test]
    fn sack_marks_segments_and_three_sacked_above_make_a_loss() {
        let mut b = board(10);
        // segment 0 lost; receiver SACKs 1..4 progressively
        let o = b.on_ack(0, &[r(1, 2)], |_| {});
        assert!(o.new_sack);
        assert_eq!(b.mark_losses(3), 0);
        b.on_ack(0, &[r(1, 3)], |_| {});
        assert_eq!(b.mark_losses(3), 0);
        let o = b.on_ack(0, &[r(1, 4)], |_| {});
        assert_eq!(o.delivered, 1000, "only the newly covered segment is delivered");
        assert_eq!(b.mark_losses(3), 1000);
        assert!(b.head_is_lost());
        // pipe = 10 outstanding - 3 sacked - 1 lost = 6 segments
        assert_eq!(b.pipe(), 6000);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time(100));
        assert_eq!(b.pipe(), 7000);
        assert_eq!(b.next_lost(), None);
        b.check().unwrap();
        // the retransmission fills the hole: cum ack to 4, sacked bytes drop out
        let o = b.on_ack(4000, &[], |_| {});
        assert_eq!(o.delivered, 1000);
        assert_eq!(o.rtt_sent_at, None, "retransmitted segment gives no RTT sample (Karn)");
        assert_eq!(b.sacked_bytes(), 0);
        assert_eq!(b.pipe(), 6000);
        b.check().unwrap();
    }

    /// ns-3 `TcpTxBuffer::IsLost(HighACK + MSS)`, as `DupAck` asks it: the mark of the
    /// segment after the first unacknowledged one. One hole at the head with three segments
    /// SACKed above: the head is lost, but the segment ns-3 asks about is SACKed, not lost.
    #[test]
    fn ns3_asks_the_segment_after_the_head() {
        let mut b = board(10);
        b.on_ack(0, &[r(1, 4)], |_| {});
        assert_eq!(b.mark_losses(3), 1000);
        assert!(b.head_is_lost());
        assert!(!b.lost_from(MSS as u64), "segment 1 is SACKed");
        // two holes (0 and 1) under three SACKed segments: both lost, ns-3 asks about 1
        let mut b = board(10);
        b.on_ack(0, &[r(2, 5)], |_| {});
        assert_eq!(b.mark_losses(3), 2000);
        assert!(b.lost_from(MSS as u64));
        assert!(!b.lost_from(20 * MSS as u64), "beyond the outstanding segments");
    }

    /// ns-3's RTT sample rule (EstimateRtt): only a cumulative ACK that covers the oldest
    /// outstanding segment, never retransmitted; Linux's candidate is the newest delivered one.
    #[test]
    fn front_of_the_cumulative_part_decides_the_ns3_rtt_sample() {
        let mut b = board(10);
        let o = b.on_ack(2000, &[], |_| {});
        assert_eq!((o.cum_front_clean, o.rtt_sent_at), (Some(Time(0)), Some(Time(1))));
        // SACK only: a Linux candidate, no ns-3 sample
        let o = b.on_ack(2000, &[r(3, 5)], |_| {});
        assert_eq!((o.cum_front_clean, o.rtt_sent_at), (None, Some(Time(4))));
        // the retransmitted front is covered together with a fresh segment: no sample in either
        // (Linux: the newest delivered is the retransmission)
        b.on_retransmit(2, Time(50));
        let o = b.on_ack(6000, &[], |_| {});
        assert_eq!((o.cum_front_clean, o.rtt_sent_at), (None, None));
        // a clean front with a retransmitted segment behind it: ns-3 samples, Linux does not
        b.on_retransmit(7, Time(60));
        let o = b.on_ack(9000, &[], |_| {});
        assert_eq!((o.cum_front_clean, o.rtt_sent_at), (Some(Time(6)), None));
        b.check().unwrap();
    }

    #[test]
    fn repeated_sack_blocks_are_not_walked_twice() {
        let mut b = board(100);
        let o = b.on_ack(0, &[r(1, 50)], |_| {});
        assert_eq!(o.delivered, 49_000);
        let o = b.on_ack(0, &[r(1, 51)], |_| {});
        assert_eq!(o.delivered, 1000);
        let o = b.on_ack(0, &[r(1, 51)], |_| {});
        assert!(!o.new_sack);
        assert_eq!(o.delivered, 0);
    }

    #[test]
    fn merging_blocks_fills_the_gap_between_them() {
        let mut b = board(10);
        b.on_ack(0, &[r(5, 6), r(2, 3)], |_| {});
        assert_eq!(b.sacked_bytes(), 2000);
        let o = b.on_ack(0, &[r(2, 6)], |_| {});
        assert_eq!(o.delivered, 2000); // segments 3 and 4
        assert_eq!(b.sacked_bytes(), 4000);
        b.check().unwrap();
    }

    #[test]
    fn multiple_holes_are_each_marked_lost() {
        let mut b = board(12);
        // holes at 0 and 4; SACKed: 1-3, 5-8
        b.on_ack(0, &[r(5, 9), r(1, 4)], |_| {});
        b.mark_losses(3);
        assert_eq!(b.lost_bytes(), 2000);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time(50));
        assert_eq!(b.next_lost(), Some(4));
        b.check().unwrap();
    }

    #[test]
    fn a_retransmission_overtaken_by_later_deliveries_is_lost_again() {
        let mut b = board(10);
        b.on_ack(0, &[r(1, 4)], |_| {});
        b.mark_losses(3);
        b.on_retransmit(0, Time(100)); // send order 11
        assert_eq!(b.next_lost(), None);
        // new data sent after the retransmission (send order 12..14) gets SACKed
        for i in 10..14 {
            b.push_new(SegRec::new(i * 1000, 1000, Time(i)));
        }
        b.on_ack(0, &[r(1, 4), r(10, 12)], |_| {});
        assert_eq!(b.detect_lost_retransmissions(3), 0, "only two later copies delivered");
        b.on_ack(0, &[r(1, 4), r(10, 14)], |_| {});
        assert_eq!(b.detect_lost_retransmissions(3), 1000);
        assert_eq!(b.next_lost(), Some(0));
        b.check().unwrap();
    }

    #[test]
    fn a_lost_retransmission_goes_before_higher_lost_segments() {
        let mut b = board(20);
        // holes at 0 and 5: both lost
        b.on_ack(0, &[r(6, 10), r(1, 5)], |_| {});
        b.mark_losses(3);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time(100)); // send order 21
        assert_eq!(b.next_lost(), Some(5));
        // new data 20..24 (send order 22..25) is SACKed: the retransmission of 0 was lost
        for i in 20..24 {
            b.push_new(SegRec::new(i * 1000, 1000, Time(i)));
        }
        b.on_ack(0, &[r(20, 24), r(6, 10), r(1, 5)], |_| {});
        assert_eq!(b.mark_losses(3), 10_000); // 10..20
        assert_eq!(b.detect_lost_retransmissions(3), 1000);
        // lowest first: segment 0 again, then 5, then the holes 10..20 below the new SACK
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time(200));
        assert_eq!(b.next_lost(), Some(5));
        b.on_retransmit(5, Time(201));
        assert_eq!(b.next_lost(), Some(10));
        // SACKing a queued candidate removes it from the queue
        b.on_ack(0, &[r(10, 11), r(20, 24), r(6, 10)], |_| {});
        assert_eq!(b.next_lost(), Some(11));
        b.check().unwrap();
        // once nothing is lost any more, the queue is empty
        b.on_ack(24_000, &[], |_| {});
        assert_eq!(b.next_lost(), None);
        b.check().unwrap();
    }

    #[test]
    fn a_block_covering_more_than_eight_gaps_sacks_every_segment() {
        // every other segment SACKed: 12 gaps; then one block covers them all
        let mut b = board(30);
        for i in (1..25).step_by(2) {
            b.on_ack(0, &[r(i, i + 1)], |_| {});
        }
        b.check().unwrap();
        let o = b.on_ack(0, &[r(1, 25)], |_| {});
        assert_eq!(o.delivered, 12_000, "the 12 gaps between 1 and 25 are newly SACKed (8 before the fix)");
        assert_eq!(b.sacked_bytes(), 24_000);
        assert_eq!(b.pipe(), 6_000);
        b.check().unwrap();
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut b = board(5);
        b.on_ack(0, &[r(2, 3)], |_| {});
        b.on_retransmit(0, Time(9));
        b.mark_all_lost();
        assert_eq!(b.lost_bytes(), 4000);
        assert_eq!(b.retrans_bytes(), 0);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(), Some(0));
        b.on_retransmit(0, Time(10));
        assert_eq!(b.next_lost(), Some(1));
        b.check().unwrap();
    }

    /// Ten segments sent 1 ms apart from t = 0 (RACK's boards).
    fn rack_board() -> Scoreboard {
        let mut b = Scoreboard::new().with_rack();
        for i in 0..10u64 {
            b.push_new(SegRec::new(i * MSS as u64, MSS, Time::from_millis(i)));
        }
        b
    }

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    #[test]
    fn rack_marks_every_earlier_sent_hole_once_one_later_segment_is_delivered() {
        // RFC 8985 6.2 with reo_wnd = 0 (in recovery): segment 5 SACKed at 25 ms (RTT 20 ms);
        // 0..4 were sent earlier and are overdue (20 + 0 <= 25 - i), 6..9 were sent later
        let mut b = rack_board();
        b.rack_clock(ms(25), Dur::from_millis(20), None);
        b.on_ack(0, &[r(5, 6)], |_| {});
        let found = b.rack_detect_losses(ms(25), Dur::ZERO, false);
        assert_eq!(found, RackOutcome { checked: true, newly_lost: 5000, wait: None });
        assert_eq!(b.lost_bytes(), 5000);
        // RFC 6675 would have needed three SACKed segments above
        let mut c = board(10);
        c.on_ack(0, &[r(5, 6)], |_| {});
        assert_eq!(c.mark_losses(3), 0);
        // nothing new delivered: no second scan
        assert!(!b.rack_detect_losses(ms(26), Dur::ZERO, false).checked);
    }

    #[test]
    fn rack_waits_out_the_reordering_window_and_reports_the_longest_wait() {
        // reo_wnd 5 ms: at 25 ms segment 4 (sent at 4 ms) is due at 4 + 20 + 5 = 29 ms and
        // segment 0 at 25 ms; the longest wait is 4 ms
        let mut b = rack_board();
        b.rack_clock(ms(25), Dur::from_millis(20), None);
        b.on_ack(0, &[r(5, 6)], |_| {});
        let found = b.rack_detect_losses(ms(25), Dur::from_millis(5), false);
        assert_eq!(found, RackOutcome { checked: true, newly_lost: 1000, wait: Some(Dur::from_millis(4)) });
        // the timer forces the scan: at 29 ms all five are lost
        let found = b.rack_detect_losses(ms(29), Dur::from_millis(5), true);
        assert_eq!((found.newly_lost, found.wait), (4000, None));
        assert_eq!(b.lost_bytes(), 5000);
    }

    #[test]
    fn rack_finds_a_lost_retransmission_by_its_send_time() {
        let mut b = rack_board();
        b.rack_clock(ms(25), Dur::from_millis(20), None);
        b.on_ack(0, &[r(1, 4)], |_| {});
        assert_eq!(b.rack_detect_losses(ms(25), Dur::ZERO, false).newly_lost, 1000);
        let head = b.next_lost().unwrap();
        b.on_retransmit(head, ms(25));
        // segments sent before the retransmission are delivered later: it is not overdue
        b.rack_clock(ms(30), Dur::from_millis(20), None);
        b.on_ack(0, &[r(1, 8)], |_| {});
        assert_eq!(b.rack_detect_losses(ms(30), Dur::ZERO, false).newly_lost, 0);
        // a segment sent after it is delivered 20 ms later: the retransmission is lost
        let id = b.push_new(SegRec::new(10_000, MSS, ms(26)));
        assert_eq!(id, 10);
        b.rack_clock(ms(46), Dur::from_millis(20), None);
        b.on_ack(0, &[r(1, 11)], |_| {});
        let found = b.rack_detect_losses(ms(46), Dur::ZERO, false);
        assert_eq!(found.newly_lost, 1000);
        assert_eq!(b.retrans_bytes(), 0);
        assert_eq!(b.next_lost(), Some(0), "eligible for another retransmission");
        b.check().unwrap();
    }

    #[test]
    fn rack_ignores_a_retransmission_whose_original_was_delivered() {
        // the head is retransmitted at 30 ms (a spurious timeout), then the original's ACK
        // arrives echoing its 0 ms timestamp: RACK stays at the original send times
        let mut b = rack_board();
        let head = b.head_id().unwrap();
        b.on_retransmit(head, ms(30));
        b.rack_clock(ms(40), Dur::from_millis(20), Some(ms(0)));
        b.on_ack(1000, &[], |_| {});
        // had RACK taken the 30 ms send, every segment sent before it would be overdue
        assert_eq!(b.rack_detect_losses(ms(40), Dur::ZERO, false).newly_lost, 0);
        // echoing the retransmission's timestamp, it counts
        let mut c = rack_board();
        c.on_retransmit(c.head_id().unwrap(), ms(30));
        c.rack_clock(ms(40), Dur::from_millis(5), Some(ms(30)));
        c.on_ack(1000, &[], |_| {});
        assert_eq!(c.rack_detect_losses(ms(40), Dur::ZERO, false).newly_lost, 9000);
    }
}
