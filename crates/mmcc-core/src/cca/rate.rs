//! A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-02), the input of
//! model-based algorithms such as BBR; the stack's `tcp::rate` produces them.

use crate::time::{Bandwidth, Dur};

/// One rate sample, produced per ACK that delivered data. The rate itself is computed on
/// demand ([`RateSample::delivery_rate`]): most algorithms never ask.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Data delivered over the sample interval, in bytes.
    pub delivered: u64,
    /// The sample interval: max(send elapsed, ack elapsed) (draft section 3.3).
    pub interval: Dur,
    /// The connection's delivered count when the newest acknowledged packet was sent.
    pub prior_delivered: u64,
    /// The newest acknowledged packet was sent while the sender was application-limited.
    pub is_app_limited: bool,
    /// RTT of the newest acknowledged packet (if it was not retransmitted).
    pub rtt: Option<Dur>,
    /// Bytes newly acknowledged or SACKed by this ACK.
    pub acked_sacked: u64,
    /// Bytes newly marked lost while processing this ACK.
    pub newly_lost: u64,
    /// Bytes in flight before this ACK.
    pub prior_in_flight: u64,
    /// Bytes in flight after this ACK (Linux `tcp_packets_in_flight` in `bbr_set_cwnd`).
    pub in_flight: u64,
    /// The sample is valid (interval known and at least the minimum RTT).
    pub valid: bool,
    /// The sample has timing information (a packet with a send-time snapshot was delivered;
    /// ns-3's `m_delivered >= 0`).
    pub timed: bool,
    /// The rate ns-3's sampler reports, its persistent `m_deliveryRate` (see `tcp::rate`); None
    /// for Linux's, whose rate is delivered / interval, computed on demand.
    pub ns3_rate: Option<Bandwidth>,
}

impl RateSample {
    /// The sampler's delivery rate (Linux: delivered / interval, zero when the sample is
    /// invalid; ns-3: the last recorded rate).
    pub fn delivery_rate(&self) -> Bandwidth {
        match self.ns3_rate {
            Some(r) => r,
            None if self.valid => Bandwidth::from_bytes_per(self.delivered, self.interval),
            None => Bandwidth(0),
        }
    }
}

