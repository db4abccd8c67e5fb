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
//!
//! The layers, one file each: `sack` (ACKs and SACK blocks), `loss` (RFC 6675's loss rule and
//! the retransmission queue), `rack` (loss by time, RFC 8985), `recut` (ns-3's re-cut of
//! retransmitted data) and `skb` (Linux's skb boundaries for the send buffer's memory).

use crate::net::Range;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

mod loss;
mod rack;
mod recut;
mod sack;
mod skb;
#[cfg(test)]
mod tests;

use loss::RtxQueue;

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
