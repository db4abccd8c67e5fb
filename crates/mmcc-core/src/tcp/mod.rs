//! The TCP stack: a sender (segmentation, SACK scoreboard, RFC 6675 loss recovery with PRR,
//! RFC 6298 RTO, pacing, congestion control hooks) and a receiver (in-order delivery, SACK
//! generation, delayed ACKs), split into small modules:
//!
//! - [`rtt`]: RTT estimator and RTO (RFC 6298);
//! - [`scoreboard`]: segments in flight, SACK processing, IsLost / NextSeg / pipe (RFC 6675);
//! - [`prr`]: Proportional Rate Reduction (RFC 6937);
//! - [`rate`]: delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation);
//! - [`app`]: application models;
//! - [`sender`] and [`receiver`]: the two endpoints.

pub mod app;
pub mod prr;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

use crate::net::Packet;
use crate::record::FlowRecorder;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// TCP parameters of one flow. Defaults follow ns-3 (`TcpSocket`, `TcpSocketBase`) where it
/// differs from Linux, since the publications used ns-3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Maximum segment size (payload bytes per segment).
    #[serde(default = "d_mss")]
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928: 10).
    #[serde(default = "d_iw")]
    pub initial_cwnd: u32,
    /// Initial slow-start threshold in bytes (None: unlimited).
    #[serde(default)]
    pub initial_ssthresh: Option<u64>,
    /// RTO before the first RTT sample (RFC 6298 2.1: 1 s).
    #[serde(default = "d_initial_rto")]
    pub initial_rto: Dur,
    /// Lower bound of the RTO (ns-3 MinRto: 1 s; Linux: 200 ms).
    #[serde(default = "d_min_rto")]
    pub min_rto: Dur,
    /// Upper bound of the RTO (RFC 6298 2.5: at least 60 s).
    #[serde(default = "d_max_rto")]
    pub max_rto: Dur,
    /// Clock granularity G of RFC 6298 (ns-3 ClockGranularity: 1 ms).
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
    /// Delayed-ACK timer (ns-3 DelAckTimeout: 200 ms; Linux 40 ms minimum).
    #[serde(default = "d_delack_timeout")]
    pub delack_timeout: Dur,
    /// Send buffer in bytes (bounds unacknowledged + unsent data). ns-3 SndBufSize: 131072.
    #[serde(default = "d_buf")]
    pub snd_buf: u64,
    /// Receive buffer in bytes (bounds the advertised window). ns-3 RcvBufSize: 131072.
    #[serde(default = "d_buf")]
    pub rcv_buf: u64,
    /// Detect lost retransmissions by send order (the principle of RACK, RFC 8985, as Linux
    /// does) instead of waiting for the RTO (ns-3's behaviour: set false for ns-3 fidelity).
    #[serde(default = "d_true")]
    pub detect_lost_retransmissions: bool,
    /// Pace transmissions: at the algorithm's rate if it sets one, else at 2x cwnd/srtt in slow
    /// start and 1.2x in congestion avoidance (Linux `tcp_update_pacing_rate`).
    #[serde(default)]
    pub pacing: bool,
}

fn d_mss() -> u32 {
    1448
}
fn d_iw() -> u32 {
    10
}
fn d_initial_rto() -> Dur {
    Dur::from_secs(1)
}
fn d_min_rto() -> Dur {
    Dur::from_secs(1)
}
fn d_max_rto() -> Dur {
    Dur::from_secs(60)
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
fn d_delack_timeout() -> Dur {
    Dur::from_millis(200)
}
fn d_buf() -> u64 {
    131_072
}

impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("defaults")
    }
}

/// Timers of an endpoint. The engine delivers `(flow, kind, generation)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Rto = 0,
    DelAck = 1,
    Pace = 2,
    App = 3,
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
