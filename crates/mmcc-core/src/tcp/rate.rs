//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02): the sampler that
//! produces the [`RateSample`]s model-based algorithms such as BBR read.

use super::scoreboard::SegRec;
pub use crate::cca::RateSample;
use crate::time::{Dur, Time};

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// C.delivered: bytes delivered so far.
    pub delivered: u64,
    /// C.delivered_time.
    pub delivered_time: Time,
    /// C.first_sent_time.
    pub first_sent_time: Time,
    /// C.app_limited: end of the app-limited phase in delivered bytes (0 = not app-limited).
    pub app_limited: u64,
    // Per-ACK accumulation.
    prior_time: Option<Time>,
    prior_delivered: u64,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    newest_sent: Option<Time>,
    is_app_limited: bool,
}

impl RateSampler {
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
        if self.prior_time.is_none() || seg.delivered > self.prior_delivered
            || (seg.delivered == self.prior_delivered && self.newest_sent.is_none_or(|t| seg.sent_at > t))
        {
            self.prior_delivered = seg.delivered;
            self.prior_time = Some(seg.delivered_time);
            self.is_app_limited = seg.app_limited;
            self.send_elapsed = seg.sent_at - seg.first_sent_time;
            self.ack_elapsed = self.delivered_time - seg.delivered_time;
            self.first_sent_time = seg.sent_at;
            self.newest_sent = Some(seg.sent_at);
        }
    }

    /// Close the sample for this ACK (draft 3.3 GenerateRateSample).
    pub fn finish(&mut self, min_rtt: Option<Dur>) -> RateSample {
        let mut rs = RateSample::default();
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if let Some(_t) = self.prior_time.take() {
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
}
