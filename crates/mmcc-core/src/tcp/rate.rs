//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02): the sampler that
//! produces the [`RateSample`]s model-based algorithms such as BBR read.
//!
//! Two references. Linux (`tcp_rate.c`, the draft): the sample is built afresh per ACK from the
//! newest packet it delivered. ns-3 3.37 (`TcpRateLinux`, the `ns3` profile), which differs in
//! ways that change BBR's model:
//! - the per-ACK sample fields persist from one ACK to the next (`m_rateSample` is a member):
//!   a packet updates them only if its delivered snapshot is above the stored one
//!   (`SkbDelivered`: `skbInfo.m_delivered > m_rateSample.m_priorDelivered`, no tie-break by
//!   send time), and an ACK that delivers nothing reuses the last ones;
//! - the ACK-elapsed time is taken against the *previous* sample's prior time (`m_ackElapsed =
//!   Now - m_priorTime` before `m_priorTime` is updated), from time zero after a reset;
//! - the rate itself persists: it is recomputed only for a sample that is valid and either not
//!   application-limited or at least the last recorded rate (`GenerateSample`: "record the
//!   last non-app-limited or the highest app-limited bw"), and an invalid sample keeps it;
//! - a sample shorter than the minimum RTT (ns-3's `m_minRtt`, the smallest smoothed RTT)
//!   resets the prior time to zero.

use super::profile::Profile;
use super::scoreboard::SegRec;
pub use crate::cca::RateSample;
use crate::time::{Bandwidth, Dur, Time};

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Follow ns-3's `TcpRateLinux` (see the module notes) instead of Linux.
    ns3: bool,
    /// C.delivered: bytes delivered so far.
    pub delivered: u64,
    /// C.delivered_time.
    pub delivered_time: Time,
    /// C.first_sent_time.
    pub first_sent_time: Time,
    /// C.app_limited: end of the app-limited phase in delivered bytes (0 = not app-limited).
    pub app_limited: u64,
    // Per-ACK accumulation (persistent in ns-3).
    prior_time: Option<Time>,
    prior_delivered: u64,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    newest_sent: Option<Time>,
    is_app_limited: bool,
    // ns-3: the last recorded sample (m_rateDelivered, m_rateInterval) and its rate.
    rate_delivered: u64,
    rate_interval: Dur,
    rate: Bandwidth,
}

impl RateSampler {
    /// A sampler following the reference stack of `profile`: ns-3's `TcpRateLinux` or Linux's
    /// `tcp_rate.c`.
    pub fn new(profile: Profile) -> RateSampler {
        RateSampler { ns3: profile == Profile::Ns3, ..RateSampler::default() }
    }

    /// Whether this sampler follows ns-3's `TcpRateLinux`.
    pub fn follows_ns3(&self) -> bool {
        self.ns3
    }

    /// Snapshot the connection state into a segment being (re)transmitted (draft 3.2).
    pub fn on_send(&mut self, seg: &mut SegRec, now: Time, nothing_in_flight: bool) {
        if nothing_in_flight {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        seg.first_sent_time = self.first_sent_time;
        seg.delivered_time = self.delivered_time;
        seg.delivered = self.delivered;
        seg.app_limited = self.app_limited != 0;
    }

    /// The sender ran out of application data with room in cwnd: mark the bubble (draft 3.4).
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// A segment was delivered (cumulatively acked or SACKed) at `now` (draft 3.3).
    pub fn on_delivered(&mut self, seg: &SegRec, now: Time) {
        self.delivered += seg.len as u64;
        self.delivered_time = now;
        let newer = if self.ns3 {
            // TcpRateLinux::SkbDelivered
            self.prior_delivered == 0 || seg.delivered > self.prior_delivered
        } else {
            // tcp_rate_skb_delivered: the first packet of this ACK, or a newer one
            self.prior_time.is_none() || seg.delivered > self.prior_delivered
                || (seg.delivered == self.prior_delivered && self.newest_sent.is_none_or(|t| seg.sent_at > t))
        };
        if newer {
            self.ack_elapsed = if self.ns3 {
                now - self.prior_time.unwrap_or(Time::ZERO) // before the prior time moves
            } else {
                now - seg.delivered_time
            };
            self.prior_delivered = seg.delivered;
            self.prior_time = Some(seg.delivered_time);
            self.is_app_limited = seg.app_limited;
            self.send_elapsed = seg.sent_at - seg.first_sent_time;
            self.first_sent_time = seg.sent_at;
            self.newest_sent = Some(seg.sent_at);
        }
    }

    /// Close the sample for this ACK (draft 3.3 GenerateRateSample; ns-3
    /// `TcpRateLinux::GenerateSample`). `min_rtt`: Linux the minimum RTT, ns-3 `m_minRtt`.
    pub fn finish(&mut self, min_rtt: Option<Dur>) -> RateSample {
        if self.ns3 {
            return self.finish_ns3(min_rtt);
        }
        let mut rs = RateSample::default();
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if let Some(_t) = self.prior_time.take() {
            rs.timed = true;
            rs.prior_delivered = self.prior_delivered;
            rs.is_app_limited = self.is_app_limited;
            rs.delivered = self.delivered - self.prior_delivered;
            rs.interval = self.send_elapsed.max(self.ack_elapsed);
            // A sample shorter than min_rtt is unreliable (ACK compression): drop it.
            rs.valid = rs.interval.0 > 0 && min_rtt.is_none_or(|m| rs.interval >= m);
        }
        self.newest_sent = None;
        rs
    }

    fn finish_ns3(&mut self, min_rtt: Option<Dur>) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let mut rs = RateSample {
            prior_delivered: self.prior_delivered,
            is_app_limited: self.is_app_limited,
            ns3_rate: Some(self.rate),
            ..RateSample::default()
        };
        if self.prior_time.is_none() {
            return rs; // m_delivered = -1: no timing information
        }
        rs.timed = true;
        rs.interval = self.send_elapsed.max(self.ack_elapsed);
        rs.delivered = self.delivered - self.prior_delivered;
        // m_minRtt is Time::Max until the first RTT measurement
        if min_rtt.is_none_or(|m| rs.interval < m) {
            self.prior_time = None;
            return rs;
        }
        rs.valid = true;
        if !rs.is_app_limited
            || rs.delivered as u128 * self.rate_interval.0 as u128 >= self.rate_delivered as u128 * rs.interval.0 as u128
        {
            self.rate_delivered = rs.delivered;
            self.rate_interval = rs.interval;
            // DataRate(delivered * 8.0 / interval.GetSeconds()): whole bits per second
            self.rate = Bandwidth((rs.delivered as f64 * 8.0 / rs.interval.secs_f64()) as u64);
            rs.ns3_rate = Some(self.rate);
        }
        rs
    }
}
