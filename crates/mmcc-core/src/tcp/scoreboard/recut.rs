//! ns-3's re-cut of the outstanding data for a retransmission (`TcpTxBuffer::
//! GetTransmittedSegment`, `GetPacketFromList`, `SplitItems`, `MergeItems`; the `ns3` profile).

use super::*;

impl Scoreboard {
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
    pub(super) fn insert_segment(&mut self, i: usize, rec: SegRec) {
        let id = self.base_id + i as u64;
        self.renumber(|x| if x >= id { x + 1 } else { x });
        self.segs.insert(i, rec);
        if rec.lost && !rec.sacked && !rec.rtx_inflight {
            self.rtx.push(id);
        }
    }

    /// Remove the segment at index `i` (merged into the one before): the ids above move down
    /// and the removed one's become its predecessor's.
    pub(super) fn remove_segment(&mut self, i: usize) {
        let id = self.base_id + i as u64;
        self.segs.remove(i);
        self.renumber(|x| if x >= id { x - 1 } else { x });
    }

    /// Apply `f` to every stored segment id (the rare re-cut of the outstanding data).
    pub(super) fn renumber(&mut self, f: impl Fn(u64) -> u64) {
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
}
