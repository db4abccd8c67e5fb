//! RTT estimation and the retransmission timeout (RFC 6298).

use crate::time::Dur;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    latest: Option<Dur>,
    min: Option<Dur>,
    max: Option<Dur>,
    /// Exponential back-off exponent (RFC 6298 section 5.5); reset by a valid sample (Karn).
    backoff: u32,
    initial_rto: Dur,
    min_rto: Dur,
    max_rto: Dur,
    granularity: Dur,
    samples: u64,
    /// Smallest smoothed RTT so far (ns-3's `m_minRtt`, which takes the estimate, not samples).
    min_srtt: Option<Dur>,
    /// Largest smoothed RTT so far (the largest `rtt` an ns-3 class sees in `PktsAcked`).
    max_srtt: Option<Dur>,
}

impl RttEstimator {
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            latest: None,
            min: None,
            max: None,
            backoff: 0,
            initial_rto,
            min_rto,
            max_rto,
            granularity,
            samples: 0,
            min_srtt: None,
            max_srtt: None,
        }
    }

    /// Feed a valid sample (one from a segment that was never retransmitted: Karn's rule).
    pub fn sample(&mut self, r: Dur) {
        self.samples += 1;
        self.latest = Some(r);
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.max = Some(self.max.map_or(r, |m| m.max(r)));
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|, beta = 1/4;
                //                 SRTT <- (1 - alpha) SRTT + alpha R', alpha = 1/8.
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        self.min_srtt = self.srtt.map(|s| self.min_srtt.map_or(s, |m| m.min(s)));
        self.max_srtt = self.srtt.map(|s| self.max_srtt.map_or(s, |m| m.max(s)));
        // Karn: a valid sample after a back-off restores the computed RTO.
        self.backoff = 0;
    }

    /// Base RTO without back-off: RFC 6298 (2.2/2.3): SRTT + max(G, K*RTTVAR), K = 4,
    /// clamped to [min_rto, max_rto] (2.4, 2.5).
    fn base_rto(&self) -> Dur {
        match self.srtt {
            None => self.initial_rto,
            Some(srtt) => {
                let var = Dur(4 * self.rttvar.0).max(self.granularity);
                (srtt + var).max(self.min_rto).min(self.max_rto)
            }
        }
    }

    /// Current RTO including exponential back-off (RFC 6298 5.5), capped at max_rto.
    pub fn rto(&self) -> Dur {
        let b = self.base_rto();
        Dur(b.0.saturating_mul(1u64 << self.backoff.min(20))).min(self.max_rto.max(b))
    }

    /// RFC 6298 (5.5): the timer expired, double the RTO.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Forget the back-off without an RTT sample: ns-3's `TcpSocketBase::NewAck` recomputes
    /// `m_rto` from the estimator on every ACK that restarts the timer (Linux and RFC 6298 keep
    /// it until a valid sample, Karn's rule).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }
    pub fn latest(&self) -> Option<Dur> {
        self.latest
    }
    pub fn min(&self) -> Option<Dur> {
        self.min
    }
    pub fn max(&self) -> Option<Dur> {
        self.max
    }
    pub fn min_srtt(&self) -> Option<Dur> {
        self.min_srtt
    }
    pub fn max_srtt(&self) -> Option<Dur> {
        self.max_srtt
    }
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Dur::from_secs(1), Dur::from_millis(200), Dur::from_secs(60), Dur::from_millis(1))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rttvar(), Dur::from_millis(50));
        // 100 + 4 * 50 = 300 ms
        assert_eq!(e.rto(), Dur::from_millis(300));
    }

    #[test]
    fn second_sample_follows_rfc6298_gains() {
        let mut e = est();
        e.sample(Dur::from_millis(100));
        e.sample(Dur::from_millis(200));
        // rttvar = 3/4 * 50 + 1/4 * 100 = 62.5 ms; srtt = 7/8 * 100 + 1/8 * 200 = 112.5 ms
        assert_eq!(e.rttvar(), Dur(62_500_000));
        assert_eq!(e.srtt(), Some(Dur(112_500_000)));
    }

    #[test]
    fn min_rto_applies_and_backoff_doubles_until_a_valid_sample() {
        let mut e = est();
        e.sample(Dur::from_millis(10));
        assert_eq!(e.rto(), Dur::from_millis(200));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(400));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(800));
        e.sample(Dur::from_millis(10));
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    #[test]
    fn backoff_is_capped_at_max_rto() {
        let mut e = est();
        for _ in 0..30 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
    }
}
