//! Cumulative and selective acknowledgements: RFC 2018 SACK blocks merged into the SACKed
//! ranges, RFC 6675 `Update()`, and the per-segment delivery accounting the rate estimator and
//! RACK need.

use super::*;

impl Scoreboard {
    /// Apply a cumulative ACK and SACK blocks. Calls `on_delivered` for every segment newly
    /// delivered (cumulatively acked without an earlier SACK, or newly SACKed).
    pub fn on_ack(&mut self, ack: u64, blocks: &[Range], mut on_delivered: impl FnMut(&SegRec)) -> AckOutcome {
        let mut out = AckOutcome::default();
        let mut d = Deliveries {
            newest: None,
            high_tx: self.high_delivered_tx,
            rack: self.rack,
            fack: self.sacked.back().map_or(0, |r| r.end),
        };
        self.ack_cumulative(ack, &mut d, &mut out, &mut on_delivered);
        self.ack_sack_blocks(blocks, &mut d, &mut out, &mut on_delivered);
        out.rtt_sent_at = d.newest.and_then(|(t, clean)| clean.then_some(t));
        self.high_delivered_tx = d.high_tx;
        self.rack = d.rack;
        out
    }

    /// The cumulative part: pop the segments wholly below `ack`.
    fn ack_cumulative(
        &mut self,
        ack: u64,
        d: &mut Deliveries,
        out: &mut AckOutcome,
        on_delivered: &mut impl FnMut(&SegRec),
    ) {
        let ack = ack.min(self.snd_nxt);
        if ack <= self.snd_una {
            return;
        }
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
            } else {
                d.note(&s, out, true);
                on_delivered(&s);
                if s.lost {
                    self.lost_bytes -= s.len as u64;
                }
            }
            if s.rtx_inflight {
                self.retrans_bytes -= s.len as u64;
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

    /// The SACK part: only the bytes not covered by earlier SACKs are walked; blocks repeated
    /// from the previous ACK are skipped outright.
    fn ack_sack_blocks(
        &mut self,
        blocks: &[Range],
        d: &mut Deliveries,
        out: &mut AckOutcome,
        on_delivered: &mut impl FnMut(&SegRec),
    ) {
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
                        d.note(s, out, false);
                        on_delivered(s);
                    }
                }
                if self.track_skbs {
                    self.sack_skbs(i, r.end);
                }
            }
            self.fresh = fresh;
        }
    }

    /// Merge `b` into the SACKed ranges; append the parts of `b` not covered before to `fresh`.
    pub(super) fn insert_sacked(&mut self, b: Range, fresh: &mut Vec<Range>) {
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
}

/// What one ACK's newly delivered segments tell: the latest send time among them (and whether
/// that copy was never retransmitted, for the RTT sample), the highest send order, and RACK's
/// advance.
struct Deliveries {
    newest: Option<(Time, bool)>,
    high_tx: u64,
    rack: Option<Rack>,
    /// The highest SACKed sequence before this ACK (`tcp_check_sack_reordering`).
    fack: u64,
}

impl Deliveries {
    /// Account one newly delivered segment (`cum`: cumulatively acknowledged, not SACKed).
    fn note(&mut self, s: &SegRec, out: &mut AckOutcome, cum: bool) {
        self.high_tx = self.high_tx.max(s.tx_seq);
        if let Some(r) = &mut self.rack {
            // tcp_rack_advance: a retransmitted copy delivered sooner than the minimum RTT
            // may be the original's delivery; it does not advance RACK. Cumulatively
            // acknowledged, neither does one whose ACK echoes a timestamp older than the
            // retransmission (tcp_clean_rtx_queue: tcp_skb_spurious_retrans; whole ms)
            let rtt = r.now - s.sent_at;
            let spurious = cum && s.tx_count > 1 && r.echo.is_some_and(|e| e.0 / 1_000_000 < s.sent_at.0 / 1_000_000);
            let ambiguous = s.tx_count > 1 && rtt < r.min_rtt;
            if !ambiguous && !spurious {
                r.advanced = true;
                r.rtt = rtt;
                r.tx = r.tx.max(s.tx_seq);
            }
            // tcp_check_sack_reordering: an original delivered below the highest SACK
            r.reord_seen |= s.tx_count == 1 && s.seq < self.fack;
        }
        out.delivered += s.len as u64;
        if s.tx_count == 1 {
            out.orig_min_end = Some(out.orig_min_end.map_or(s.end(), |e| e.min(s.end())));
        }
        if self.newest.is_none_or(|(t, _)| s.sent_at >= t) {
            self.newest = Some((s.sent_at, s.tx_count == 1));
        }
    }
}
