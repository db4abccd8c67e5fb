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
//! - [`knobs`]: every TCP knob declared once (scenario key, each profile's value, range);
//! - [`profile`]: the `ns3` and `linux` stack profiles;
//! - [`rules`]: the decisions the two reference stacks take differently, chosen once per sender;
//! - [`sender`] and [`receiver`]: the two endpoints.

pub mod app;
pub mod knobs;
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
use crate::time::Time;

pub use knobs::{TcpConfig, TcpSettings};
pub use profile::Profile;
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

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
