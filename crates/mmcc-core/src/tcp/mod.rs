//! The TCP stack: a sender (segmentation, SACK scoreboard, RFC 6675 loss recovery with PRR,
//! RFC 6298 RTO, pacing, congestion control hooks) and a receiver (in-order delivery, SACK
//! generation, delayed ACKs), split into small modules:
//!
//! - [`rtt`]: RTT estimator and RTO (RFC 6298);
//! - [`scoreboard`]: segments in flight, SACK processing, IsLost / NextSeg / pipe (RFC 6675);
//! - [`prr`]: Proportional Rate Reduction (RFC 6937);
//! - [`sndbuf`]: Linux's send-buffer memory (skb truesize, the writer's wake-up rule);
//! - [`rate`]: delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation);
//! - [`app`]: application models;
//! - [`profile`]: the `ns3` and `linux` stack profiles and the resolved settings;
//! - [`rules`]: the decisions the two reference stacks take differently, chosen once per sender;
//! - [`sender`] and [`receiver`]: the two endpoints.

pub mod app;
pub mod profile;
pub mod prr;
pub mod rate;
pub mod rcv_window;
pub mod receiver;
pub mod rtt;
pub mod rules;
pub mod scoreboard;
pub mod sndbuf;
pub mod sender;

use crate::net::Packet;
use crate::record::FlowRecorder;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

pub use profile::{Profile, ProfileDefaults, TcpSettings};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// TCP parameters of one flow as a scenario gives them. `profile` names the reference stack
/// (ns-3 3.35-3.37 or Linux 6.x) whose behaviour the flow follows; every key left unset takes
/// that profile's value ([`profile`] has the table with the reference for each), and every key
/// set overrides its profile value on its own. [`TcpConfig::resolve`] gives the concrete
/// [`TcpSettings`] the endpoints run with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// The reference stack: `linux` (default, what people deploy) or `ns3`.
    #[serde(default)]
    pub profile: Profile,
    /// Maximum segment size (payload bytes per segment).
    #[serde(default = "d_mss")]
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928: 10; ns-3 3.37 and Linux: 10).
    #[serde(default = "d_iw")]
    pub initial_cwnd: u32,
    /// Initial slow-start threshold in bytes (None: unlimited).
    #[serde(default)]
    pub initial_ssthresh: Option<u64>,
    /// RTO before the first RTT sample (RFC 6298 2.1: 1 s).
    #[serde(default)]
    pub initial_rto: Option<Dur>,
    /// Lower bound of the RTO (ns-3 MinRto: 1 s; Linux TCP_RTO_MIN: 200 ms).
    #[serde(default)]
    pub min_rto: Option<Dur>,
    /// Upper bound of the RTO (RFC 6298 2.5: at least 60 s; ns-3 60 s; Linux 120 s).
    #[serde(default)]
    pub max_rto: Option<Dur>,
    /// How the RTO follows the RTT (RFC 6298 as ns-3; Linux's `tcp_rtt_estimator`).
    #[serde(default)]
    pub rto_estimator: Option<rtt::RtoEstimator>,
    /// Clock granularity G of RFC 6298 (ns-3 ClockGranularity: 1 ms; Linux: 1 jiffy, 1-4 ms).
    #[serde(default = "d_granularity")]
    pub clock_granularity: Dur,
    /// Duplicate-ACK threshold (RFC 5681 / 6675 DupThresh: 3).
    #[serde(default = "d_dupthresh")]
    pub dupthresh: u32,
    /// Use SACK (RFC 2018) for loss recovery.
    #[serde(default = "d_true")]
    pub sack: bool,
    /// Delayed ACKs: ACK every `delack_count` full segments or after `delack_timeout`.
    #[serde(default = "d_delack_count")]
    pub delack_count: u32,
    /// Delayed-ACK timer (ns-3 DelAckTimeout: 200 ms; Linux TCP_DELACK_MIN: 40 ms).
    #[serde(default)]
    pub delack_timeout: Option<Dur>,
    /// Quick-ACK mode: ACK every segment at the start of the connection and after a hole is
    /// filled (Linux `tcp_enter_quickack_mode`; ns-3 has none).
    #[serde(default)]
    pub quickack: Option<bool>,
    /// Send buffer in bytes (bounds unacknowledged + unsent data). ns-3 SndBufSize: 131072;
    /// Linux: the autotuning ceiling tcp_wmem[2] = 4 MiB.
    #[serde(default)]
    pub snd_buf: Option<u64>,
    /// Receive buffer in bytes. ns-3 RcvBufSize: 131072, the advertised window; Linux: the
    /// autotuning ceiling tcp_rmem[2] = 32 MiB (Linux >= 6.16).
    #[serde(default)]
    pub rcv_buf: Option<u64>,
    /// Linux's receive window: opened per segment, grown by DRS, SACKs compressed
    /// ([`rcv_window`]); off: the whole `rcv_buf` is the window.
    #[serde(default)]
    pub rcv_autotune: Option<bool>,
    /// Linux tcp_rmem[1]: the receive buffer a connection starts with (131072).
    #[serde(default)]
    pub rcv_buf_initial: Option<u64>,
    /// Memory one received MTU-sized segment takes (Linux skb->truesize; 2304 on the testbed's
    /// TUN path): the window is memory x segment / truesize.
    #[serde(default)]
    pub rcv_truesize: Option<u32>,
    /// Linux's SACK compression for out-of-order data (with `rcv_autotune`).
    #[serde(default)]
    pub sack_compression: Option<bool>,
    /// Detect lost retransmissions by send order (the principle of RACK, RFC 8985, as Linux
    /// does) instead of waiting for the RTO (ns-3).
    #[serde(default)]
    pub detect_lost_retransmissions: Option<bool>,
    /// Detect losses by time with RACK (RFC 8985; Linux 6.18 marks losses only this way) instead
    /// of RFC 6675's count of SACKed segments above (ns-3). Covers lost retransmissions too.
    #[serde(default)]
    pub rack: Option<bool>,
    /// Linux's GSO skbs and `tcp_tso_should_defer` (Linux: on): unpaced senders wait for room
    /// for about 1 ms of their pacing rate, so they send in bursts (ns-3: off).
    #[serde(default)]
    pub tso_defer: Option<bool>,
    /// The send buffer counts memory as Linux's does (Linux: on): each skb's overhead besides its
    /// data (`sk_wmem_queued` in truesize), and a writer blocked by a full buffer resumes only
    /// when a third of it is free (`sk_stream_is_writeable`). Off: payload bytes (ns-3).
    #[serde(default)]
    pub send_buffer_truesize: Option<bool>,
    /// Congestion-window validation (RFC 7661, Linux `tcp_is_cwnd_limited`): grow cwnd only
    /// while the flow is cwnd-limited (Linux) instead of on every ACK (ns-3).
    #[serde(default)]
    pub cwnd_validation: Option<bool>,
    /// TCP timestamps (RFC 7323): 12 option bytes on every segment (ns-3 and Linux: on).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Detect spurious timeouts and undo their window reduction: F-RTO (RFC 5682, the
    /// SACK-enhanced form of Linux `tcp_process_loss`, sysctl tcp_frto = 2) and the timestamp
    /// check of `tcp_try_undo_loss` (Linux: on; ns-3 has neither: off).
    #[serde(default)]
    pub frto: Option<bool>,
    /// Open the connection with a SYN / SYN-ACK exchange before the first data segment
    /// (ns-3: on, `TcpSocketBase::Connect`; Linux profile: off, data from the flow's start).
    #[serde(default)]
    pub handshake: Option<bool>,
    /// Pace transmissions: at the algorithm's rate if it sets one, else at 2x cwnd/srtt in slow
    /// start and 1.2x in congestion avoidance (Linux `tcp_update_pacing_rate` with an fq-like
    /// pacer; ns-3 EnablePacing). Off in both profiles: algorithms that pace (BBR) set a rate.
    #[serde(default)]
    pub pacing: bool,
}

fn d_mss() -> u32 {
    1448
}
fn d_iw() -> u32 {
    10
}
fn d_granularity() -> Dur {
    Dur::from_millis(1)
}
fn d_dupthresh() -> u32 {
    3
}
fn d_true() -> bool {
    true
}
fn d_delack_count() -> u32 {
    2
}

impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("defaults")
    }
}

impl TcpConfig {
    /// A configuration of `profile` with every other key at its profile value.
    pub fn with_profile(profile: Profile) -> TcpConfig {
        TcpConfig {
            profile,
            ..Default::default()
        }
    }

    /// The concrete settings: each unset key takes the profile's value.
    pub fn resolve(&self) -> TcpSettings {
        let p = ProfileDefaults::of(self.profile);
        TcpSettings {
            profile: self.profile,
            mss: self.mss,
            initial_cwnd: self.initial_cwnd,
            initial_ssthresh: self.initial_ssthresh,
            initial_rto: self.initial_rto.unwrap_or(p.initial_rto),
            min_rto: self.min_rto.unwrap_or(p.min_rto),
            max_rto: self.max_rto.unwrap_or(p.max_rto),
            rto_estimator: self.rto_estimator.unwrap_or(p.rto_estimator),
            clock_granularity: self.clock_granularity,
            dupthresh: self.dupthresh,
            sack: self.sack,
            delack_count: self.delack_count,
            delack_timeout: self.delack_timeout.unwrap_or(p.delack_timeout),
            quickack: self.quickack.unwrap_or(p.quickack),
            snd_buf: self.snd_buf.unwrap_or(p.snd_buf),
            rcv_buf: self.rcv_buf.unwrap_or(p.rcv_buf),
            rcv_autotune: self.rcv_autotune.unwrap_or(p.rcv_autotune),
            rcv_buf_initial: self.rcv_buf_initial.unwrap_or(p.rcv_buf_initial),
            rcv_truesize: self.rcv_truesize.unwrap_or(p.rcv_truesize),
            sack_compression: self.sack_compression.unwrap_or(p.sack_compression),
            detect_lost_retransmissions: self
                .detect_lost_retransmissions
                .unwrap_or(p.detect_lost_retransmissions),
            rack: self.rack.unwrap_or(p.rack),
            tso_defer: self.tso_defer.unwrap_or(p.tso_defer),
            send_buffer_truesize: self.send_buffer_truesize.unwrap_or(p.send_buffer_truesize),
            cwnd_validation: self.cwnd_validation.unwrap_or(p.cwnd_validation),
            timestamps: self.timestamps.unwrap_or(p.timestamps),
            frto: self.frto.unwrap_or(p.frto),
            handshake: self.handshake.unwrap_or(p.handshake),
            pacing: self.pacing,
        }
    }
}

/// Timers of an endpoint. The engine delivers `(flow, kind, generation)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Rto = 0,
    DelAck = 1,
    Pace = 2,
    App = 3,
    /// SYN retransmission.
    Syn = 4,
    /// RACK's reordering timer (Linux `ICSK_TIME_REO_TIMEOUT`).
    Reo = 5,
}

/// What an endpoint may touch while handling an event.
pub struct Ctx<'a> {
    pub now: Time,
    /// Packets to send, in order.
    pub out: &'a mut Vec<Packet>,
    /// Wake-ups to schedule: (kind, time, generation).
    pub timers: &'a mut Vec<(TimerKind, Time, u32)>,
    pub rec: &'a mut FlowRecorder,
}
