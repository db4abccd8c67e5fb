//! Proportional Rate Reduction (RFC 6937), with the Slow Start Reduction Bound (PRR-SSRB).
//!
//! The two reference stacks differ in two details, which the sender chooses by profile:
//! - RecoverFS: the data outstanding at the start of recovery (RFC 6937, ns-3
//!   `TcpPrrRecovery::EnterRecovery`'s unAckDataCount) or the cwnd before it (Linux
//!   `tcp_cwnd_reduction` divides by `prior_cwnd`);
//! - the SSRB's extra segment: Linux always allows `max(prr_delivered - prr_out,
//!   DeliveredData)`, plus one segment when the ACK advanced snd_una and marked nothing newly
//!   lost; ns-3 allows `max(...) + MSS` only when the ACK acknowledged retransmitted data
//!   (`m_isRetransDataAcked`), else just DeliveredData;
//! - ns-3 3.37's `TcpPrrRecovery::DoRecovery` computes in 32-bit unsigned integers, and two of
//!   its expressions wrap (fixed upstream in 2026, ns-3 issue #1282, commit 25f76649): the
//!   product `m_prrDelivered * m_ssThresh` of the proportional part wraps modulo 2^32 as soon
//!   as it exceeds 4 GiB (e.g. 1,100 bytes delivered at a 4 MB ssthresh), and when prr_out
//!   exceeds prr_delivered, `max(m_prrDelivered - m_prrOut, DeliveredData) + MSS` wraps to
//!   `prr_delivered - prr_out + MSS` (signed), which sends nothing once prr_out is more than a
//!   segment ahead, where RFC 6937 sends DeliveredData + MSS. The `ns3` profile reproduces both
//!   (`Prr::ns3_send_count`); Linux's `tcp_cwnd_reduction` computes in 64 bits and clamps.

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
        if let Ssrb::Ns3 { retransmitted_data_acked } = ssrb {
            return pipe + self.ns3_send_count(delivered_data, pipe, ssthresh, mss, retransmitted_data_acked);
        }
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

    /// sndcnt as ns-3 3.37's `TcpPrrRecovery::DoRecovery` (SSRB mode, its default) computes it,
    /// in its integer types: `uint32_t` counters and window, an `int` send count.
    fn ns3_send_count(&self, delivered_data: u64, pipe: u64, ssthresh: u64, mss: u64, retx_acked: bool) -> u64 {
        let (prr_delivered, prr_out, recover_fs) = (self.delivered as u32, self.out as u32, self.recover_fs as u32);
        let (pipe, ssthresh, mss, delivered_data) = (pipe as u32, ssthresh as u32, mss as u32, delivered_data as u32);
        let send_count: i32 = if pipe > ssthresh {
            // std::ceil(m_prrDelivered * m_ssThresh * 1.0 / m_recoveryFlightSize) - m_prrOut:
            // the uint32 product wraps before the conversion to double
            let product = prr_delivered.wrapping_mul(ssthresh);
            ((product as f64 / recover_fs as f64).ceil() - prr_out as f64) as i32
        } else {
            let limit = if retx_acked {
                // std::max(m_prrDelivered - m_prrOut, deliveredBytes) + m_segmentSize, in uint32,
                // stored in an int
                prr_delivered.wrapping_sub(prr_out).max(delivered_data).wrapping_add(mss) as i32
            } else {
                delivered_data as i32
            };
            limit.min(ssthresh.wrapping_sub(pipe) as i32)
        };
        // "Force a fast retransmit upon entering fast recovery"
        let floor = if prr_out > 0 { 0 } else { mss as i32 };
        send_count.max(floor) as u64
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

    #[test]
    fn ns3_ssrb_sends_nothing_once_prr_out_is_a_segment_ahead() {
        // ns-3 3.37 DoRecovery: with prr_out > prr_delivered the uint32 difference wraps and the
        // bound becomes prr_delivered - prr_out + MSS (signed). Values of a partial ACK in the
        // ns-3 log of the D-TCP validation case (t = 1.0139 s): prr_out 2 segments ahead.
        let mss = 1400;
        let mut p = Prr::default();
        p.start(5_000_000);
        p.on_sent(12 * mss);
        let pipe = 2_674_000;
        let ns3 = p.clone().on_ack(10 * mss, pipe, 4_009_382, mss, Ssrb::Ns3 { retransmitted_data_acked: true });
        assert_eq!(ns3, pipe, "10 delivered, 12 sent: -2 + 1 segments -> nothing");
        // RFC 6937 (and Linux) clamp the difference at DeliveredData: + 1 MSS
        let rfc = p.clone().on_ack(10 * mss, pipe, 4_009_382, mss, Ssrb::Linux { una_advanced_no_new_loss: true });
        assert_eq!(rfc, pipe + 11 * mss);
        // one segment ahead: the wrapped sum is exactly 0 -> still nothing
        let mut q = Prr::default();
        q.start(5_000_000);
        q.on_sent(11 * mss);
        assert_eq!(q.on_ack(10 * mss, pipe, 4_009_382, mss, Ssrb::Ns3 { retransmitted_data_acked: true }), pipe);
        // prr_out behind: as RFC 6937, max(prr_delivered - prr_out, DeliveredData) + MSS
        let mut r = Prr::default();
        r.start(5_000_000);
        r.on_sent(9 * mss);
        assert_eq!(r.on_ack(10 * mss, pipe, 4_009_382, mss, Ssrb::Ns3 { retransmitted_data_acked: true }), pipe + 11 * mss);
    }

    #[test]
    fn ns3_proportional_part_wraps_its_uint32_product() {
        // ns-3 3.37: ceil(m_prrDelivered * m_ssThresh * 1.0 / RecoverFS) - m_prrOut with the
        // product in uint32. 2000 bytes delivered x 4,000,000 ssthresh = 8e9 -> 8e9 - 2^32 =
        // 3,705,032,704; / 8,000,000 -> ceil 463.13 = 464; minus 0 sent.
        let mut p = Prr::default();
        p.start(8_000_000);
        p.on_sent(1); // past the first-retransmission floor
        let pipe = 7_000_000;
        let cwnd = p.clone().on_ack(2000, pipe, 4_000_000, 1400, Ssrb::Ns3 { retransmitted_data_acked: false });
        assert_eq!(cwnd, pipe + 464 - 1);
        // unwrapped (RFC 6937, Linux): ceil(2000 * 4e6 / 8e6) - 1 = 999
        let linux = p.on_ack(2000, pipe, 4_000_000, 1400, Ssrb::Linux { una_advanced_no_new_loss: false });
        assert_eq!(linux, pipe + 999);
    }
}
