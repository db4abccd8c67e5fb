//! RACK loss detection by time (RFC 8985; Linux 6.18 `net/ipv4/tcp_recovery.c`) and Linux's
//! lost-retransmission check (`tcp_mark_lost_retrans`'s role).

use super::*;

impl Scoreboard {
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
        self.rack_originals(now, rack_tx, deadline, &mut out, &mut wait);
        self.rack_retransmissions(now, rack_tx, deadline, &mut out, &mut wait);
        out.wait = (wait > Dur::ZERO).then_some(wait);
        out
    }

    /// RACK over the segments never retransmitted, from the loss hint up to the first sent
    /// after the most recently sent delivered copy (`rack_tx`).
    fn rack_originals(&mut self, now: Time, rack_tx: u64, deadline: Dur, out: &mut RackOutcome, wait: &mut Dur) {
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
                *wait = (*wait).max(deadline - elapsed);
            }
            id += 1;
        }
    }

    /// RACK over the retransmissions in flight, oldest first; entries of copies since delivered
    /// or resent go.
    fn rack_retransmissions(&mut self, now: Time, rack_tx: u64, deadline: Dur, out: &mut RackOutcome, wait: &mut Dur) {
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
                *wait = (*wait).max(deadline - elapsed);
                k += 1;
            }
        }
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
}
