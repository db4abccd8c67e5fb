//! Random packet error models, with an explicit unit.
//!
//! - `Bit`: each bit is corrupted with probability p; a packet of n bytes is lost with
//!   probability 1 - (1 - p)^(8n).
//! - `Byte`: each byte with probability p: 1 - (1 - p)^n (ns-3 RateErrorModel, unit BYTE,
//!   the default the thesis used on its server link).
//! - `Packet`: each packet with probability p.
//!
//! The size counted is the packet's size on the wire (headers included), as ns-3 sees it at the
//! device where the model is attached.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorUnit {
    Bit,
    Byte,
    Packet,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorModelConfig {
    pub unit: ErrorUnit,
    pub rate: f64,
}

pub struct ErrorModel {
    unit: ErrorUnit,
    rate: f64,
    /// ln(1 - rate), cached for the per-bit / per-byte formula.
    ln_keep: f64,
    rng: Rng,
}

impl ErrorModel {
    pub fn new(cfg: &ErrorModelConfig, rng: Rng) -> ErrorModel {
        let rate = cfg.rate.clamp(0.0, 1.0);
        ErrorModel { unit: cfg.unit, rate, ln_keep: (1.0 - rate).ln(), rng }
    }

    /// Probability that a packet of `wire_bytes` is corrupted.
    pub fn packet_error_probability(&self, wire_bytes: u32) -> f64 {
        let units = match self.unit {
            ErrorUnit::Packet => return self.rate,
            ErrorUnit::Byte => wire_bytes as f64,
            ErrorUnit::Bit => 8.0 * wire_bytes as f64,
        };
        if self.rate >= 1.0 {
            return 1.0;
        }
        // 1 - (1 - p)^n, computed as -expm1(n ln(1-p)) to stay exact for tiny p (1e-9 per byte).
        -(units * self.ln_keep).exp_m1()
    }

    /// Draw: is this packet corrupted?
    #[inline]
    pub fn corrupts(&mut self, wire_bytes: u32) -> bool {
        if self.rate <= 0.0 {
            return false;
        }
        let p = self.packet_error_probability(wire_bytes);
        self.rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(unit: ErrorUnit, rate: f64) -> ErrorModel {
        ErrorModel::new(&ErrorModelConfig { unit, rate }, Rng::stream(1, "t"))
    }

    #[test]
    fn per_byte_probability_matches_ns3_formula() {
        let m = model(ErrorUnit::Byte, 1e-7);
        let p = m.packet_error_probability(1440);
        let expect = 1.0 - (1.0f64 - 1e-7).powi(1440);
        assert!((p - expect).abs() < 1e-15, "{p} vs {expect}");
        assert!((p - 1.44e-4).abs() < 1e-7);
    }

    #[test]
    fn per_bit_is_eight_times_per_byte_for_small_rates() {
        let b = model(ErrorUnit::Bit, 1e-9).packet_error_probability(1000);
        assert!((b - 8e-6).abs() < 1e-10);
    }

    #[test]
    fn per_packet_drop_frequency_matches_rate() {
        let mut m = model(ErrorUnit::Packet, 0.01);
        let n = 200_000;
        let lost = (0..n).filter(|_| m.corrupts(1500)).count() as f64;
        assert!((lost / n as f64 - 0.01).abs() < 0.001);
    }

    #[test]
    fn zero_rate_never_drops() {
        let mut m = model(ErrorUnit::Byte, 0.0);
        assert!((0..1000).all(|_| !m.corrupts(1500)));
    }
}
