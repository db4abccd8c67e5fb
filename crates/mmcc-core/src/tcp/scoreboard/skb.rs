//! Linux's skb boundaries over the outstanding data, for the memory the send buffer charges
//! (`tcp.send_buffer_truesize`; `tcp_fragment`, `tcp_shift_skb_data`, `tcp_trim_head`).

use super::*;

impl Scoreboard {
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

    pub(super) fn set_skb_start(&mut self, i: usize, start: bool) {
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
    pub(super) fn sack_skbs(&mut self, i0: usize, end: u64) {
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
}
