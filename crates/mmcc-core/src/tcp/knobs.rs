//! Every TCP knob, declared once: its field name, type, the key a scenario writes, the kind of
//! value the scenario reader parses, the value of each reference stack, the allowed range and
//! the meaning. From this one table come [`TcpConfig`] (what a scenario gives: every knob
//! optional), [`TcpSettings`] (what a flow runs with), [`TcpConfig::resolve`] (an unset knob
//! takes its profile's value), the range checks ([`TcpSettings::check_ranges`]) and the schema
//! ([`knobs`]) the Python layer builds its reader from (`_core.tcp_knobs()`) and
//! docs/scenario-format.md's table is generated from (`python -m mmcc.docs_tables --write`).
//!
//! A new knob is one entry here (and the code that reads `settings.<name>`). The kinds are the
//! scenario reader's: `count` (a whole number), `size` / `size32` (bytes with units, 64 / 32
//! bits), `time` (a duration with units, nanoseconds here), `bool`, `optional size` (a size, or
//! unset) and `choice:a,b` (one of the names).

use super::rtt::RtoEstimator;
use crate::stack::Profile;
use crate::text::Ranged;
use crate::time::Dur;
use serde::{Deserialize, Serialize};

/// One knob as the schema describes it.
#[derive(Clone, Debug, Serialize)]
pub struct Knob {
    /// Field name in [`TcpConfig`] / [`TcpSettings`] and in the core's JSON.
    pub name: &'static str,
    /// The key a scenario writes in `[tcp]` / `[flows.tcp]`.
    pub key: &'static str,
    /// What the scenario reader parses (module documentation).
    pub kind: &'static str,
    /// Each reference stack's value, as the core's JSON writes it.
    pub linux: serde_json::Value,
    pub ns3: serde_json::Value,
    /// Allowed range (inclusive, JSON values), if the knob has one besides its type's.
    pub range: Option<(serde_json::Value, serde_json::Value)>,
    /// Meaning, with the reference functions.
    pub doc: String,
}

macro_rules! tcp_knobs {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $ty:ty, key = $key:literal, kind = $kind:literal,
        linux = $linux:expr, ns3 = $ns3:expr $(, range = ($lo:expr, $hi:expr))?;
    )+) => {
        /// TCP parameters of one flow as a scenario gives them. `profile` names the reference
        /// stack (ns-3 3.35-3.37 or Linux 6.x) whose behaviour the flow follows; every knob left
        /// unset takes that profile's value and every knob set overrides it on its own.
        /// [`TcpConfig::resolve`] gives the concrete [`TcpSettings`].
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct TcpConfig {
            /// The reference stack: `linux` (default, what people deploy) or `ns3`.
            #[serde(default)]
            pub profile: Profile,
            $(
                $(#[doc = $doc])+
                #[serde(default)]
                pub $name: Option<$ty>,
            )+
        }

        /// The concrete settings a flow runs with ([`TcpConfig::resolve`]).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub struct TcpSettings {
            pub profile: Profile,
            $(
                $(#[doc = $doc])+
                pub $name: $ty,
            )+
        }

        impl TcpConfig {
            /// The concrete settings: each unset knob takes the profile's value.
            pub fn resolve(&self) -> TcpSettings {
                let ns3 = self.profile == Profile::Ns3;
                TcpSettings {
                    profile: self.profile,
                    $($name: self.$name.unwrap_or(if ns3 { $ns3 } else { $linux }),)+
                }
            }
        }

        impl TcpSettings {
            /// Each knob within its declared range (`tk`: the table's key, for the message).
            pub fn check_ranges(&self, tk: &str) -> Result<(), String> {
                $($(self.$name.within(&format!("{tk}.{}", $key), $lo, $hi, $kind)?;)?)+
                Ok(())
            }
        }

        /// The schema of every knob, in declaration order (`profile` first).
        pub fn knobs() -> Vec<Knob> {
            let mut out = vec![Knob {
                name: "profile",
                key: "profile",
                kind: "choice:linux,ns3",
                linux: to_json(&Profile::Linux),
                ns3: to_json(&Profile::Ns3),
                range: None,
                doc: "The reference stack the flow follows: `linux` (Linux 6.x, the default) or \
                      `ns3` (ns-3 3.35-3.37); sets every knob left unset (docs/tcp-profiles.md)."
                    .to_string(),
            }];
            $(
                let linux: $ty = $linux;
                let ns3: $ty = $ns3;
                out.push(Knob {
                    name: stringify!($name),
                    key: $key,
                    kind: $kind,
                    linux: to_json(&linux),
                    ns3: to_json(&ns3),
                    range: range_json::<$ty>(None $(.or(Some(($lo, $hi))))?),
                    doc: doc_text(&[$($doc),+]),
                });
            )+
            out
        }
    };
}

impl TcpConfig {
    /// A configuration of `profile` with every knob at its profile value.
    pub fn with_profile(profile: Profile) -> TcpConfig {
        TcpConfig { profile, ..Default::default() }
    }
}

fn to_json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("knob values serialize")
}

/// A declared range as the schema writes it.
fn range_json<T: Serialize>(range: Option<(T, T)>) -> Option<(serde_json::Value, serde_json::Value)> {
    range.map(|(lo, hi)| (to_json(&lo), to_json(&hi)))
}

/// A knob's doc comment as one paragraph.
fn doc_text(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
}

const MS: Dur = Dur::from_millis(1);

tcp_knobs! {
    /// Maximum segment size: payload bytes per segment. With 40 bytes of IP and TCP headers
    /// (and 12 of timestamps) it must fit every link's MTU.
    mss: u32, key = "segment_size", kind = "size32", linux = 1448, ns3 = 1448, range = (1, 65_000);
    /// Initial congestion window in segments (RFC 6928; ns-3 3.37 and Linux: 10).
    initial_cwnd: u32, key = "initial_cwnd", kind = "count", linux = 10, ns3 = 10, range = (1, 100_000);
    /// Initial slow-start threshold in bytes; unset: unlimited.
    initial_ssthresh: Option<u64>, key = "initial_ssthresh", kind = "optional size", linux = None, ns3 = None;
    // The RTO bounds run from 1 ms (a zero timer would re-fire at the same instant forever) to
    // an hour.
    /// RTO before the first RTT sample (RFC 6298 2.1; ns-3 `RttEstimator::InitialEstimation`,
    /// Linux `TCP_TIMEOUT_INIT`).
    initial_rto: Dur, key = "initial_rto", kind = "time", linux = Dur::from_secs(1), ns3 = Dur::from_secs(1),
        range = (MS, Dur::from_secs(3600));
    /// Lower bound of the RTO (Linux `TCP_RTO_MIN`; ns-3 `TcpSocketBase::MinRto`).
    min_rto: Dur, key = "min_rto", kind = "time", linux = Dur::from_millis(200), ns3 = Dur::from_secs(1),
        range = (MS, Dur::from_secs(3600));
    /// Upper bound of the RTO (RFC 6298 2.5: at least 60 s; Linux `TCP_RTO_MAX`; ns-3
    /// `TcpSocketBase::ReTxTimeout`); at least `min_rto`.
    max_rto: Dur, key = "max_rto", kind = "time", linux = Dur::from_secs(120), ns3 = Dur::from_secs(60),
        range = (MS, Dur::from_secs(3600));
    /// How the RTO follows the RTT: `rfc6298` (SRTT + max(G, 4 RTTVAR), at least `min_rto`; ns-3
    /// `RttMeanDeviation`) or `linux` (`tcp_rtt_estimator` / `__tcp_set_rto`: SRTT + a deviation
    /// never below `min_rto`). Both profiles use `rfc6298`: Linux's suppresses the timeout the
    /// kernel takes on the stall of tests/test_testbed.py (docs/tcp-profiles.md).
    rto_estimator: RtoEstimator, key = "rto_estimator", kind = "choice:rfc6298,linux",
        linux = RtoEstimator::Rfc6298, ns3 = RtoEstimator::Rfc6298;
    /// Clock granularity G of RFC 6298 (ns-3 `ClockGranularity`: 1 ms; Linux: 1 jiffy).
    clock_granularity: Dur, key = "clock_granularity", kind = "time", linux = MS, ns3 = MS;
    /// Duplicate-ACK threshold (RFC 5681 / 6675 DupThresh).
    dupthresh: u32, key = "dupthresh", kind = "count", linux = 3, ns3 = 3, range = (1, 1000);
    /// Use SACK (RFC 2018) for loss recovery.
    sack: bool, key = "sack", kind = "bool", linux = true, ns3 = true;
    /// Delayed ACKs: ACK every this many in-order segments ...
    delack_count: u32, key = "delayed_ack_count", kind = "count", linux = 2, ns3 = 2, range = (1, 64);
    /// ... or after this (Linux `TCP_DELACK_MIN`; ns-3 `TcpSocket::DelAckTimeout`).
    delack_timeout: Dur, key = "delayed_ack_timeout", kind = "time", linux = Dur::from_millis(40),
        ns3 = Dur::from_millis(200);
    /// Quick-ACK mode: ACK every segment for the first 16 and after a hole is filled (Linux
    /// `tcp_enter_quickack_mode`, `TCP_MAX_QUICKACKS`; ns-3 has none).
    quickack: bool, key = "quickack", kind = "bool", linux = true, ns3 = false;
    /// Send buffer: bounds unacknowledged plus unsent data (Linux: the autotuning ceiling
    /// `tcp_wmem[2]`; ns-3 `TcpSocket::SndBufSize`).
    snd_buf: u64, key = "send_buffer", kind = "size", linux = 4 << 20, ns3 = 131_072;
    /// Receive buffer. `linux`: the most it may grow to (`tcp_rmem[2]`, 32 MiB since Linux 6.16);
    /// `ns3`: the advertised window (`TcpSocket::RcvBufSize`).
    rcv_buf: u64, key = "recv_buffer", kind = "size", linux = 32 << 20, ns3 = 131_072;
    /// Linux's receive window (`tcp_grow_window`, `tcp_rcv_space_adjust`,
    /// `__tcp_select_window`; `tcp/rcv_window.rs`): it opens segment by segment from half of
    /// `recv_buffer_initial`, dynamic right-sizing grows the buffer once per RTT, segments that
    /// open it are ACKed at once. Off: the whole `recv_buffer` is the window (ns-3).
    rcv_autotune: bool, key = "recv_autotune", kind = "bool", linux = true, ns3 = false;
    /// The receive buffer a connection starts with, with `recv_autotune` (Linux `tcp_rmem[1]`).
    rcv_buf_initial: u64, key = "recv_buffer_initial", kind = "size", linux = 131_072, ns3 = 131_072;
    // memory per received segment: a buffer of a page or a few
    /// Memory one received MTU-sized segment takes (Linux `skb->truesize`: 2304 on the testbed's
    /// TUN path; NIC drivers differ): the window is memory x segment / truesize.
    rcv_truesize: u32, key = "recv_truesize", kind = "size32", linux = 2304, ns3 = 2304, range = (1, 65_536);
    /// With `recv_autotune`: Linux's SACK compression (after three immediate duplicate ACKs per
    /// hole, one SACK per min(1 ms, RTT / 20) or 44 segments, sent at once whenever a range would
    /// drop below second place in the receiver's list; `tcp_comp_sack_*`,
    /// `tcp_sack_new_ofo_skb`).
    sack_compression: bool, key = "sack_compression", kind = "bool", linux = true, ns3 = false;
    /// Find lost retransmissions by send order (the principle of RACK, RFC 8985, Linux
    /// `tcp_rack_detect_loss`); off: only the RTO repairs them (ns-3).
    detect_lost_retransmissions: bool, key = "detect_lost_retransmissions", kind = "bool",
        linux = true, ns3 = false;
    /// Detect losses by time with RACK (RFC 8985; Linux 6.18 marks losses only this way, with its
    /// reordering window and timer: `tcp_rack_mark_lost`, `tcp_rack_reo_wnd`); off: RFC 6675's
    /// three SACKed segments above (ns-3). With it RACK also finds lost retransmissions.
    rack: bool, key = "rack", kind = "bool", linux = true, ns3 = false;
    /// Linux's GSO skbs and `tcp_tso_should_defer`: an unpaced sender waits until about 1 ms of
    /// its pacing rate fits the windows (or 1 ms has passed since it last sent, a third of the
    /// window is free, or the next ACK is not due within min_rtt / 2), so it sends in bursts as
    /// the kernel does; off: a segment whenever one fits (ns-3).
    tso_defer: bool, key = "tso_defer", kind = "bool", linux = true, ns3 = false;
    /// The send buffer counts memory as Linux's does: each skb costs 1,280 bytes besides its data
    /// (`sk_wmem_queued`, `tcp_stream_alloc_skb`), so data cut by SACK holes fills it sooner, and a
    /// writer that found it full resumes when a third is free (`sk_stream_is_writeable`); off:
    /// payload bytes (ns-3).
    send_buffer_truesize: bool, key = "send_buffer_truesize", kind = "bool", linux = true, ns3 = false;
    /// Congestion-window validation (RFC 7661, Linux `tcp_is_cwnd_limited`): grow cwnd only
    /// while the flow is cwnd-limited; off: on every ACK (ns-3).
    cwnd_validation: bool, key = "cwnd_validation", kind = "bool", linux = true, ns3 = false;
    /// TCP timestamps (RFC 7323): 12 option bytes on every segment (ns-3
    /// `TcpSocketBase::Timestamp`, Linux `tcp_timestamps=1`).
    timestamps: bool, key = "timestamps", kind = "bool", linux = true, ns3 = true;
    /// Detect a spurious timeout and undo its window reduction: F-RTO (RFC 5682, the
    /// SACK-enhanced form of Linux `tcp_process_loss`) and the timestamp check of
    /// `tcp_try_undo_loss`; ns-3 has neither.
    frto: bool, key = "frto", kind = "bool", linux = true, ns3 = false;
    /// Open the connection with a SYN / SYN-ACK exchange before the first data segment (ns-3
    /// `TcpSocketBase::Connect`, Linux `tcp_connect`); the handshake's packets are never
    /// randomly lost.
    handshake: bool, key = "handshake", kind = "bool", linux = true, ns3 = true;
    /// Pace transmissions at the algorithm's rate if it sets one, else at 2x cwnd / srtt in slow
    /// start and 1.2x after (Linux `tcp_update_pacing_rate` with an fq-like pacer; ns-3
    /// `EnablePacing`). Off in both: algorithms that pace (BBR) set a rate themselves.
    pacing: bool, key = "pacing", kind = "bool", linux = false, ns3 = false;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_has_a_key_a_kind_and_both_values() {
        let ks = knobs();
        assert_eq!(ks[0].name, "profile");
        let mut keys: Vec<&str> = ks.iter().map(|k| k.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), ks.len(), "keys are unique");
        let cfg = serde_json::to_value(TcpConfig::default()).unwrap();
        for k in &ks {
            assert!(cfg.get(k.name).is_some(), "{} is a field", k.name);
            assert!(!k.doc.is_empty() && !k.kind.is_empty());
        }
        let mss = ks.iter().find(|k| k.key == "segment_size").unwrap();
        assert_eq!((mss.name, mss.linux.clone(), mss.range.clone()), ("mss", 1448.into(), Some((1.into(), 65_000.into()))));
        let min_rto = ks.iter().find(|k| k.name == "min_rto").unwrap();
        assert_eq!((min_rto.linux.clone(), min_rto.ns3.clone()), (200_000_000u64.into(), 1_000_000_000u64.into()));
    }

    #[test]
    fn ranges_name_the_key() {
        let t = TcpConfig { dupthresh: Some(0), ..Default::default() }.resolve();
        assert_eq!(t.check_ranges("tcp").unwrap_err(), "tcp.dupthresh: 0 is out of range; allowed: 1..1000");
        let t = TcpConfig { min_rto: Some(Dur(0)), ..Default::default() }.resolve();
        assert_eq!(t.check_ranges("tcp").unwrap_err(), "tcp.min_rto: 0s is out of range; allowed: 1ms..3600s");
        let t = TcpConfig { mss: Some(70_000), ..Default::default() }.resolve();
        assert_eq!(t.check_ranges("tcp").unwrap_err(), "tcp.segment_size: 70000B is out of range; allowed: 1B..65000B");
        assert!(TcpConfig::default().resolve().check_ranges("tcp").is_ok());
    }
}
