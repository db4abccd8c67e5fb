//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004), as ns-3's `TcpHtcp`.
//!
//! - `Delta` = time since the last congestion event; `Delta_L` = 1 s.
//!   `alpha(Delta) = 1` for Delta <= Delta_L, else `1 + 10 (Delta - Delta_L) + ((Delta - Delta_L)/2)^2`
//!   (Leith & Shorten eq. 3), scaled as `alpha = 2 (1 - beta) alpha` for fairness (eq. 4),
//!   at least 1. Per ACK: cwnd += alpha / cwnd.
//! - Adaptive backoff: `beta = rtt_min / rtt_max` clamped to [0.5, 0.8], but 0.5 when the
//!   throughput changed by more than 20 % since the previous congestion epoch (ns-3
//!   `ThroughputRatio`). Loss: ssthresh = max(beta cwnd, 2 MSS).

use super::util::{add_segments, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params};
use crate::time::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "htcp",
    aliases: &["h-tcp", "tcp-htcp"],
    source: "Leith & Shorten, PFLDnet 2004 (ns-3 TcpHtcp)",
    params: &[
        ParamSpec { name: "delta_l_s", default: 1.0, help: "low-speed regime duration Delta_L (s)" },
        ParamSpec { name: "default_backoff", default: 0.5, help: "beta when throughput changed" },
        ParamSpec { name: "throughput_ratio", default: 0.2, help: "throughput change that resets beta" },
    ],
    build: |p: &Params| Box::new(Htcp::new(p.get("delta_l_s"), p.get("default_backoff"), p.get("throughput_ratio"))),
};

pub struct Htcp {
    delta_l: f64,
    default_backoff: f64,
    throughput_ratio: f64,
    last_con: Time,
    beta: f64,
    alpha: f64,
    min_rtt: Option<Dur>,
    max_rtt: Option<Dur>,
    delivered_at_con: u64,
    last_throughput: f64,
    acc: FracAcc,
}

impl Htcp {
    pub fn new(delta_l: f64, default_backoff: f64, throughput_ratio: f64) -> Self {
        Htcp {
            delta_l,
            default_backoff,
            throughput_ratio,
            last_con: Time::ZERO,
            beta: default_backoff,
            alpha: 1.0,
            min_rtt: None,
            max_rtt: None,
            delivered_at_con: 0,
            last_throughput: 0.0,
            acc: FracAcc::default(),
        }
    }

    /// alpha for `delta` seconds since the last congestion event (eq. 3 and 4).
    pub fn alpha_for(&self, delta: f64) -> f64 {
        let a = if delta <= self.delta_l {
            1.0
        } else {
            let d = delta - self.delta_l;
            1.0 + 10.0 * d + (d / 2.0) * (d / 2.0) // eq. 3
        };
        (2.0 * (1.0 - self.beta) * a).max(1.0) // eq. 4
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }
    fn on_ack(&mut self, _cc: &mut CcState, ack: &AckEvent) {
        if let Some(r) = ack.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.max_rtt = Some(self.max_rtt.map_or(r, |m| m.max(r)));
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if slow_start_then_ca(cc, ack.segments_acked) {
            self.alpha = self.alpha_for((cc.now - self.last_con).secs_f64());
            let w = cc.cwnd_segments();
            add_segments(&mut self.acc, cc, self.alpha / w); // cwnd += alpha / cwnd
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        ((cc.cwnd as f64 * self.beta) as u64).max(cc.min_ssthresh())
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, _ev: &CongestionEvent) {
        // adaptive backoff for the next epoch: beta = rtt_min / rtt_max in [0.5, 0.8], reset to
        // the default when throughput moved by more than throughput_ratio
        let dt = (cc.now - self.last_con).secs_f64();
        let tput = if dt > 0.0 { (cc.delivered - self.delivered_at_con) as f64 / dt } else { 0.0 };
        let changed = self.last_throughput > 0.0
            && ((tput - self.last_throughput).abs() / self.last_throughput) > self.throughput_ratio;
        self.beta = match (self.min_rtt, self.max_rtt) {
            (Some(mn), Some(mx)) if !changed && mx.0 > 0 => (mn.secs_f64() / mx.secs_f64()).clamp(0.5, 0.8),
            _ => self.default_backoff,
        };
        self.last_throughput = tput;
        self.delivered_at_con = cc.delivered;
        self.last_con = cc.now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_is_one_for_a_second_then_grows_quadratically() {
        let h = Htcp::new(1.0, 0.5, 0.2);
        assert_eq!(h.alpha_for(0.5), 1.0);
        // Delta = 3 s: 1 + 10*2 + (2/2)^2 = 22; times 2 (1 - 0.5) = 22
        assert_eq!(h.alpha_for(3.0), 22.0);
    }
}
