//! Stack profiles: a named bundle of TCP behaviours that reproduces one reference stack.
//!
//! Each knob's value per profile is declared with the knob ([`super::knobs`], which names the
//! ns-3 and Linux functions; docs/scenario-format.md's table is generated from it). The
//! behaviours below have no knob: the profile itself decides them ([`super::rules`], the
//! algorithms' variants in [`crate::cca`]).
//!
//! | behaviour | `ns3` (ns-3 3.35-3.37) | `linux` (Linux 6.x) | reference |
//! | --- | --- | --- | --- |
//! | growth per ACK | per ns-3 class | per Linux module | [`crate::cca`] algorithms are built for one [`Profile`] |
//! | ssthresh input | bytes in flight | cwnd | ns-3 `GetSsThresh(tcb, BytesInFlight())`; Linux `ca_ops->ssthresh(sk)` |
//! | retransmission size | one MSS from the lost byte: the outstanding segments are re-cut (a short lost segment joins the next lost one) | the segment as sent (`tcp_retrans_try_collapse` joins segments only when together they fit one MSS: not modelled) | ns-3 `TcpTxBuffer::GetTransmittedSegment`; Linux `__tcp_retransmit_skb` |
//! | application-limited mark | at the application's write: under a segment left from `m_nextTxSequence`, cwnd not full, every lost byte retransmitted | when the sender finds nothing to send with room in cwnd and in the send buffer | ns-3 `TcpRateLinux::CalculateAppLimited` (from `TcpSocketBase::Send`); Linux `tcp_rate_check_app_limited` |
//! | ssthresh on RTO | unless in Loss with the head already retransmitted | only at the start of a new episode | ns-3 `ReTxTimeout`; Linux `tcp_enter_loss` |
//!
//! Identical in both references, so no switch: SACK (its loss detection: the `rack` knob), PRR
//! (RFC 6937; ns-3 3.37 `TcpPrrRecovery`, Linux `tcp_cwnd_reduction`), limited transmit through
//! the pipe estimate, no fast retransmit until the cumulative ACK passes the recovery point
//! (RFC 6582 3.2; ns-3 `m_recover`, Linux `high_seq`), pacing only when the algorithm sets a
//! rate (BBR; CUBIC is unpaced without an fq qdisc in Linux and without EnablePacing in ns-3).

use super::TcpSettings;

pub use crate::stack::Profile;

/// Linux `TCP_MAX_QUICKACKS`: segments ACKed at once in quick-ACK mode.
pub const MAX_QUICKACKS: u32 = 16;

/// Bytes of the timestamp option (10, padded to 12) on every segment when timestamps are on.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

impl TcpSettings {
    /// TCP option bytes on every segment before padding (the timestamp option when on): Linux
    /// writes NOP, NOP, TS (12 bytes, `tcp_options_write`); ns-3 writes the 10-byte option and
    /// pads the header as a whole to a multiple of 4 (`TcpHeader::CalculateHeaderLength`), so
    /// with SACK blocks its ACKs are 4 bytes shorter. `Packet::wire_bytes` pads.
    pub fn option_bytes(&self) -> u32 {
        match (self.timestamps, self.profile) {
            (false, _) => 0,
            (true, Profile::Linux) => TIMESTAMP_OPTION_BYTES,
            (true, Profile::Ns3) => TIMESTAMP_OPTION_BYTES - 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcpConfig;
    use crate::time::Dur;
    use super::*;

    #[test]
    fn unset_keys_take_the_profile_value_and_set_keys_override_it() {
        let ns3 = TcpConfig::with_profile(Profile::Ns3).resolve();
        assert_eq!(
            (ns3.min_rto, ns3.delack_timeout, ns3.rcv_buf),
            (Dur::from_secs(1), Dur::from_millis(200), 131_072)
        );
        assert!(
            !ns3.detect_lost_retransmissions && !ns3.rack && !ns3.cwnd_validation && !ns3.quickack && !ns3.frto
        );
        let linux = TcpConfig::default().resolve();
        assert_eq!(linux.profile, Profile::Linux);
        assert_eq!(
            (linux.min_rto, linux.delack_timeout),
            (Dur::from_millis(200), Dur::from_millis(40))
        );
        assert!(
            linux.detect_lost_retransmissions
                && linux.rack
                && linux.cwnd_validation
                && linux.quickack
                && linux.frto
        );
        let mixed = TcpConfig {
            min_rto: Some(Dur::from_millis(300)),
            ..TcpConfig::with_profile(Profile::Ns3)
        }
        .resolve();
        assert_eq!(mixed.min_rto, Dur::from_millis(300));
        assert_eq!(mixed.delack_timeout, Dur::from_millis(200));
    }

    #[test]
    fn profile_names_parse() {
        let c: TcpConfig = serde_json::from_str(r#"{"profile": "ns3"}"#).unwrap();
        assert_eq!(c.profile, Profile::Ns3);
        assert!(serde_json::from_str::<TcpConfig>(r#"{"profile": "bsd"}"#).is_err());
    }
}
