//! Proportional Rate Reduction (RFC 6937), with the Slow Start Reduction Bound (PRR-SSRB).
//!
//! The two reference stacks differ in two details, which the sender chooses by profile:
//! - RecoverFS: the data outstanding at the start of recovery (RFC 6937, ns-3
//!   `TcpPrrRecovery::EnterRecovery`'s unAckDataCount) or the cwnd before it (Linux
//!   `tcp_cwnd_reduction` divides by `prior_cwnd`);
//! - the SSRB's extra segment: Linux always allows `max(prr_delivered - prr_out,
//!   DeliveredData)`, plus one segment when the ACK advanced snd_una and marked nothing newly
//!   lost; ns-3 allows `max(...) + MSS` only when the ACK acknowledged retransmitted data
//!   (`m_isRetransDataAcked`), else just DeliveredData.

/// The slow-start reduction bound's rule of a reference stack, with this ACK's facts.
#[derive(Clone, Copy, Debug)]
pub enum Ssrb {
    /// Linux `tcp_cwnd_reduction`: + 1 segment if the ACK advanced snd_una and nothing was
    /// newly marked lost.
    Linux { una_advanced_no_new_loss: bool },
    /// ns-3 `TcpPrrRecovery::DoRecovery` (SSRB mode): the bound + MSS if retransmitted data was
    /// acknowledged, else DeliveredData.
    Ns3 { retransmitted_data_acked: bool },
}

#[derive(Clone, Debug, Default)]
pub struct Prr {
    /// RecoverFS: bytes outstanding when recovery started.
    recover_fs: u64,
    /// prr_delivered: bytes delivered to the receiver since recovery started.
    delivered: u64,
    /// prr_out: bytes sent since recovery started.
    out: u64,
}

impl Prr {
    /// RFC 6937 section 3, on entering recovery: RecoverFS = snd.nxt - snd.una.
    pub fn start(&mut self, recover_fs: u64) {
        *self = Prr { recover_fs: recover_fs.max(1), delivered: 0, out: 0 };
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// On every ACK in recovery: returns the new cwnd = pipe + sndcnt. `ssrb` is the profile's
    /// rule for the slow-start reduction bound (see the module comment).
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, ssthresh: u64, mss: u64, ssrb: Ssrb) -> u64 {
        self.delivered += delivered_data;
        let sndcnt = if pipe > ssthresh {
            // RFC 6937: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let target = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128) as u64;
            target.saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS;
            //           sndcnt = MIN(ssthresh - pipe, limit)
            let bound = self.delivered.saturating_sub(self.out).max(delivered_data);
            let limit = match ssrb {
                Ssrb::Linux { una_advanced_no_new_loss } => bound + if una_advanced_no_new_loss { mss } else { 0 },
                Ssrb::Ns3 { retransmitted_data_acked: true } => bound + mss,
                Ssrb::Ns3 { retransmitted_data_acked: false } => delivered_data,
            };
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_sends_half_as_much_as_delivered_when_ssthresh_is_half() {
        // RFC 6937 example: cwnd 20, ssthresh 10 segments; each ACK delivers one segment.
        let mss = 1000;
        let mut p = Prr::default();
        p.start(20 * mss);
        let mut sent = 0;
        for i in 1..=10u64 {
            let pipe = 20 * mss - i * mss + sent; // delivered segments leave, sent ones join
            let cwnd = p.on_ack(mss, pipe, 10 * mss, mss, Ssrb::Linux { una_advanced_no_new_loss: true });
            let can = cwnd.saturating_sub(pipe);
            p.on_sent(can);
            sent += can;
        }
        // ten deliveries -> five segments sent (ceil(10 * 10 / 20) = 5)
        assert_eq!(sent, 5 * mss);
    }

    #[test]
    fn ssrb_grows_back_towards_ssthresh_when_pipe_is_below() {
        let mss = 1000;
        let mut p = Prr::default();
        p.start(20 * mss);
        // pipe collapsed to 2 segments (many losses); ssthresh 10: send delivered + 1 MSS
        let bonus = Ssrb::Linux { una_advanced_no_new_loss: true };
        assert_eq!(p.on_ack(mss, 2 * mss, 10 * mss, mss, bonus), 2 * mss + 2 * mss);
    }

    #[test]
    fn ssrb_extra_segment_follows_each_stacks_condition() {
        let mss = 1000;
        let cwnd = |ssrb| {
            let mut p = Prr::default();
            p.start(20 * mss);
            p.on_ack(mss, 2 * mss, 10 * mss, mss, ssrb)
        };
        // Linux: without the snd_una advance (or with a new loss) only max(prr_delivered -
        // prr_out, DeliveredData) = 1 segment
        assert_eq!(cwnd(Ssrb::Linux { una_advanced_no_new_loss: false }), 3 * mss);
        // ns-3: MSS more only when retransmitted data was acknowledged, else DeliveredData
        assert_eq!(cwnd(Ssrb::Ns3 { retransmitted_data_acked: true }), 4 * mss);
        assert_eq!(cwnd(Ssrb::Ns3 { retransmitted_data_acked: false }), 3 * mss);
    }
}
