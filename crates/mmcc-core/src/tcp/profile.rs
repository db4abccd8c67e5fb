//! Stack profiles: a named bundle of TCP behaviours that reproduces one reference stack.
//!
//! | switch | `ns3` (ns-3 3.35-3.37) | `linux` (Linux 6.x) | reference |
//! | --- | --- | --- | --- |
//! | `initial_rto` | 1 s | 1 s | ns-3 `RttEstimator::InitialEstimation`; Linux `TCP_TIMEOUT_INIT` |
//! | `min_rto` | 1 s | 200 ms | ns-3 `TcpSocketBase::MinRto`; Linux `TCP_RTO_MIN` |
//! | `max_rto` | 60 s | 120 s | ns-3 `TcpSocketBase::ReTxTimeout`; Linux `TCP_RTO_MAX` |
//! | `rto_estimator` | rfc6298 | rfc6298 (Linux's own as `linux`, not the default: see docs/tcp-profiles.md) | ns-3 `RttMeanDeviation`; Linux `tcp_rtt_estimator`, `__tcp_set_rto` |
//! | `delack_timeout` | 200 ms | 40 ms | ns-3 `TcpSocket::DelAckTimeout`; Linux `TCP_DELACK_MIN` |
//! | `quickack` | off | on (16 segments) | Linux `tcp_enter_quickack_mode`, `TCP_MAX_QUICKACKS` |
//! | `snd_buf` / `rcv_buf` | 128 KiB | 4 MiB / 32 MiB | ns-3 `TcpSocket::SndBufSize/RcvBufSize`; Linux `tcp_wmem[2]`/`tcp_rmem[2]` (32 MiB since Linux 6.16) |
//! | `rcv_autotune` | off (the whole buffer is the window) | on: the window opens per segment, DRS grows the buffer, SACK compression | Linux `tcp_grow_window`, `tcp_rcv_space_adjust`, `__tcp_select_window`, `__tcp_ack_snd_check` ([`super::rcv_window`]) |
//! | `sack_compression` | off | on (with four remembered blocks; the pending SACK goes out before a range would drop below second place) | Linux `tcp_comp_sack_*`, `tcp_sack_new_ofo_skb` |
//! | `rcv_buf_initial` / `rcv_truesize` | (unused) | 128 KiB / 2304 B | Linux `tcp_rmem[1]`; the memory a received MTU-sized segment charges (`skb->truesize`; measured on the testbed's TUN path) |
//! | `detect_lost_retransmissions` | off (RTO repairs) | on (RACK-style; with `rack` RACK itself does it) | Linux `tcp_rack_detect_loss` |
//! | `rack` | off (RFC 6675 IsLost: three SACKed segments above) | on (RACK-TLP's loss detection by time, without the tail loss probe) | RFC 8985; Linux `tcp_rack_mark_lost`, `tcp_rack_reo_wnd`, `tcp_rack_reo_timeout` |
//! | `tso_defer` | off (no TSO) | on: GSO skbs of ~1 ms of the pacing rate wait for room (`tcp_tso_should_defer`) | Linux `tcp_tso_autosize`, `tcp_tso_should_defer` |
//! | `send_buffer_truesize` | off (payload bytes) | on: the send buffer charges each skb's overhead (1,280 bytes, `SKB_TRUESIZE` of the `MAX_TCP_HEADER` head) besides its data, and a blocked writer resumes at a third free | Linux `tcp_stream_alloc_skb`, `sk_stream_memory_free`, `sk_stream_is_writeable`, `tcp_fragment`, `tcp_shift_skb_data` |
//! | `cwnd_validation` | off | on | Linux `tcp_is_cwnd_limited` (RFC 7661) |
//! | `frto` | off | on | spurious-timeout detection and undo: Linux `tcp_process_loss` (F-RTO, RFC 5682 SACK-enhanced) and `tcp_try_undo_loss` (timestamps, RFC 4015 Eifel) |
//! | `timestamps` | on | on | ns-3 `TcpSocketBase::Timestamp`; Linux `tcp_timestamps=1` |
//! | growth per ACK | per ns-3 class | per Linux module | [`crate::cca`] algorithms read [`Profile`] |
//! | ssthresh input | bytes in flight | cwnd | ns-3 `GetSsThresh(tcb, BytesInFlight())`; Linux `ca_ops->ssthresh(sk)` |
//! | retransmission size | one MSS from the lost byte: the outstanding segments are re-cut (a short lost segment joins the next lost one) | the segment as sent (`tcp_retrans_try_collapse` joins segments only when together they fit one MSS: not modelled) | ns-3 `TcpTxBuffer::GetTransmittedSegment`; Linux `__tcp_retransmit_skb` |
//! | application-limited mark | at the application's write: under a segment left from `m_nextTxSequence`, cwnd not full, every lost byte retransmitted | when the sender finds nothing to send with room in cwnd and in the send buffer | ns-3 `TcpRateLinux::CalculateAppLimited` (from `TcpSocketBase::Send`); Linux `tcp_rate_check_app_limited` |
//! | ssthresh on RTO | unless in Loss with the head already retransmitted | only at the start of a new episode | ns-3 `ReTxTimeout`; Linux `tcp_enter_loss` |
//!
//! Identical in both references, so no switch: SACK (loss detection: `rack` above), PRR
//! (RFC 6937; ns-3 3.37 `TcpPrrRecovery`, Linux `tcp_cwnd_reduction`), limited transmit through
//! the pipe estimate, no fast retransmit until the cumulative ACK passes the recovery point
//! (RFC 6582 3.2; ns-3 `m_recover`, Linux `high_seq`), pacing only when the algorithm sets a
//! rate (BBR; CUBIC is unpaced without an fq qdisc in Linux and without EnablePacing in ns-3).

use super::rtt::RtoEstimator;
use crate::time::Dur;
use serde::{Deserialize, Serialize};

pub use crate::stack::Profile;

/// The values a profile gives the keys a scenario leaves unset.
#[derive(Clone, Copy, Debug)]
pub struct ProfileDefaults {
    pub initial_rto: Dur,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub rto_estimator: RtoEstimator,
    pub delack_timeout: Dur,
    pub quickack: bool,
    pub snd_buf: u64,
    pub rcv_buf: u64,
    pub rcv_autotune: bool,
    pub rcv_buf_initial: u64,
    pub rcv_truesize: u32,
    pub sack_compression: bool,
    pub detect_lost_retransmissions: bool,
    pub rack: bool,
    pub tso_defer: bool,
    pub send_buffer_truesize: bool,
    pub cwnd_validation: bool,
    pub timestamps: bool,
    pub frto: bool,
    pub handshake: bool,
}

impl ProfileDefaults {
    pub fn of(p: Profile) -> ProfileDefaults {
        match p {
            Profile::Ns3 => ProfileDefaults {
                initial_rto: Dur::from_secs(1),
                min_rto: Dur::from_secs(1),
                max_rto: Dur::from_secs(60),
                rto_estimator: RtoEstimator::Rfc6298,
                delack_timeout: Dur::from_millis(200),
                quickack: false,
                snd_buf: 131_072,
                rcv_buf: 131_072,
                rcv_autotune: false,
                rcv_buf_initial: 131_072,
                rcv_truesize: 2304,
                sack_compression: false,
                detect_lost_retransmissions: false,
                rack: false,
                tso_defer: false,
                send_buffer_truesize: false,
                cwnd_validation: false,
                timestamps: true,
                frto: false,
                handshake: true,
            },
            Profile::Linux => ProfileDefaults {
                initial_rto: Dur::from_secs(1),
                min_rto: Dur::from_millis(200),
                max_rto: Dur::from_secs(120),
                // Linux's own estimator is `RtoEstimator::Linux`: not the default, because on
                // the stall of tests/test_testbed.py it suppresses the timeout the kernel
                // takes (docs/tcp-profiles.md)
                rto_estimator: RtoEstimator::Rfc6298,
                delack_timeout: Dur::from_millis(40),
                quickack: true,
                snd_buf: 4 << 20,
                rcv_buf: 32 << 20,
                rcv_autotune: true,
                rcv_buf_initial: 131_072,
                rcv_truesize: 2304,
                // Linux compresses SACKs (tcp_comp_sack_*), flushing the pending SACK before a
                // range would drop below second place (tcp_sack_new_ofo_skb); both kernel
                // matrices and the dumbbell agree better with it (docs/validation.md)
                sack_compression: true,
                detect_lost_retransmissions: true,
                rack: true,
                tso_defer: true,
                send_buffer_truesize: true,
                cwnd_validation: true,
                timestamps: true,
                frto: true,
                handshake: true,
            },
        }
    }
}

/// Linux `TCP_MAX_QUICKACKS`: segments ACKed at once in quick-ACK mode.
pub const MAX_QUICKACKS: u32 = 16;

/// Bytes of the timestamp option (10, padded to 12) on every segment when timestamps are on.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

/// The concrete settings a flow runs with ([`super::TcpConfig::resolve`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpSettings {
    pub profile: Profile,
    pub mss: u32,
    pub initial_cwnd: u32,
    pub initial_ssthresh: Option<u64>,
    pub initial_rto: Dur,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub rto_estimator: RtoEstimator,
    pub clock_granularity: Dur,
    pub dupthresh: u32,
    pub sack: bool,
    pub delack_count: u32,
    pub delack_timeout: Dur,
    pub quickack: bool,
    pub snd_buf: u64,
    pub rcv_buf: u64,
    pub rcv_autotune: bool,
    pub rcv_buf_initial: u64,
    pub rcv_truesize: u32,
    pub sack_compression: bool,
    pub detect_lost_retransmissions: bool,
    pub rack: bool,
    pub tso_defer: bool,
    pub send_buffer_truesize: bool,
    pub cwnd_validation: bool,
    pub timestamps: bool,
    pub frto: bool,
    pub handshake: bool,
    pub pacing: bool,
}

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
