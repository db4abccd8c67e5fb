//! RTT estimation and the retransmission timeout (RFC 6298).

use crate::time::Dur;
use serde::{Deserialize, Serialize};

/// How the RTO follows the RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoEstimator {
    /// RFC 6298: SRTT + max(G, 4 RTTVAR), at least min_rto (ns-3 `RttMeanDeviation` with
    /// `TcpSocketBase::MinRto`).
    #[default]
    Rfc6298,
    /// Linux `tcp_rtt_estimator` / `__tcp_set_rto`: SRTT + rttvar, where rttvar is the largest
    /// mean deviation of the last window of data but never below `TCP_RTO_MIN` (so the RTO is
    /// at least SRTT + min_rto), decaying by a quarter per window; a falling RTT moves the mean
    /// deviation with gain 1/32 (`m >>= 3`).
    Linux,
}

/// Linux's deviation state (`tcp_sock` fields), in nanoseconds; SRTT is the estimator's own
/// (the same 7/8 + 1/8 update as `srtt_us`).
#[derive(Clone, Debug, Default)]
struct LinuxRtt {
    /// 4 x mean deviation (`mdev_us`).
    mdev4: i64,
    /// Largest `mdev4` in the current window, at least min_rto (`mdev_max_us`).
    mdev_max: i64,
    /// The deviation term of the RTO (`rttvar_us`).
    rttvar: i64,
    /// The window ends when snd_una passes this (`rtt_seq`).
    rtt_seq: u64,
}

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
    /// Linux's estimator, when the RTO follows it.
    linux: Option<LinuxRtt>,
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
            linux: None,
        }
    }

    /// The same, with the RTO computed as `rule` says.
    pub fn with_rule(rule: RtoEstimator, initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> Self {
        let mut e = Self::new(initial_rto, min_rto, max_rto, granularity);
        if rule == RtoEstimator::Linux {
            e.linux = Some(LinuxRtt::default());
        }
        e
    }

    /// Feed a valid sample taken on an ACK that left `snd_una` and `snd_nxt` where they are
    /// (Linux's estimator ends its window of data when snd_una passes the snd_nxt of the
    /// window's first sample).
    pub fn sample_at(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        let prior_srtt = self.srtt;
        self.sample(r);
        let rto_min = self.min_rto.0 as i64;
        let Some(l) = self.linux.as_mut() else {
            return;
        };
        let m = r.0 as i64;
        match prior_srtt {
            None => {
                // tcp_rtt_estimator, no previous measure: mdev = 2m ("rto = 3 rtt"),
                // rttvar = max(mdev, TCP_RTO_MIN)
                l.mdev4 = m << 1;
                l.rttvar = l.mdev4.max(rto_min);
                l.mdev_max = l.rttvar;
                l.rtt_seq = snd_nxt;
            }
            Some(srtt) => {
                let mut m = m - srtt.0 as i64; // error of the estimate before this sample
                if m < 0 {
                    m = -m - (l.mdev4 >> 2);
                    if m > 0 {
                        m >>= 3; // a falling RTT: gain 1/32 (Eifel-like)
                    }
                } else {
                    m -= l.mdev4 >> 2;
                }
                l.mdev4 += m; // mdev = 3/4 mdev + 1/4 |err|
                if l.mdev4 > l.mdev_max {
                    l.mdev_max = l.mdev4;
                    l.rttvar = l.rttvar.max(l.mdev_max);
                }
                if snd_una > l.rtt_seq {
                    // a window of data ended: rttvar decays a quarter toward its largest deviation
                    if l.mdev_max < l.rttvar {
                        l.rttvar -= (l.rttvar - l.mdev_max) >> 2;
                    }
                    l.rtt_seq = snd_nxt;
                    l.mdev_max = rto_min;
                }
            }
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
    /// clamped to [min_rto, max_rto] (2.4, 2.5); or Linux's (see [`RtoEstimator::Linux`]).
    fn base_rto(&self) -> Dur {
        match (self.srtt, &self.linux) {
            (None, _) => self.initial_rto,
            // __tcp_set_rto: srtt + rttvar (rttvar >= TCP_RTO_MIN), tcp_bound_rto: <= TCP_RTO_MAX
            (Some(srtt), Some(l)) => Dur(srtt.0 + l.rttvar as u64).min(self.max_rto),
            (Some(srtt), None) => {
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

    fn linux_est() -> RttEstimator {
        RttEstimator::with_rule(
            RtoEstimator::Linux,
            Dur::from_secs(1),
            Dur::from_millis(200),
            Dur::from_secs(120),
            Dur::from_millis(1),
        )
    }

    #[test]
    fn linux_rto_is_srtt_plus_at_least_rto_min() {
        // first sample 48 ms: mdev = 96 ms < 200 ms, so rttvar = 200 ms and RTO = 248 ms
        // (RFC 6298 would give max(200, 48 + 4 * 24) = 200 ms)
        let mut e = linux_est();
        e.sample_at(Dur::from_millis(48), 0, 100);
        assert_eq!(e.rto(), Dur::from_millis(248));
        // a steady RTT over later windows: rttvar stays at its floor, RTO = srtt + 200 ms
        for w in 1..20u64 {
            e.sample_at(Dur::from_millis(48), 100 * w + 1, 100 * (w + 1));
        }
        assert_eq!(e.rto(), Dur::from_millis(248));
        let mut r = est();
        r.sample(Dur::from_millis(48));
        assert_eq!(r.rto(), Dur::from_millis(200));
    }

    #[test]
    fn linux_rttvar_jumps_with_a_rising_rtt_and_decays_a_quarter_per_window() {
        let mut e = linux_est();
        e.sample_at(Dur::from_millis(100), 0, 10);
        // 100 ms -> 500 ms: err = 400 ms, srtt = 150 ms; mdev4 = 200 + (400 - 50) = 550 ms
        // > rttvar 200 ms: rttvar = 550 ms at once, RTO = 700 ms
        e.sample_at(Dur::from_millis(500), 5, 20);
        assert_eq!(e.rto(), Dur::from_millis(700));
        // the first window ends (snd_una 21 > 10); its largest deviation was 550 ms: no decay
        e.sample_at(Dur::from_millis(150), 21, 40);
        assert_eq!(e.rto(), Dur::from_millis(700));
        // the second window (largest deviation 309.375 ms) ends: rttvar loses a quarter of
        // the gap, 550 - (550 - 309.375) / 4 = 489.84375 ms
        e.sample_at(Dur::from_millis(150), 41, 60);
        assert_eq!(e.rto(), Dur(150_000_000 + 489_843_750));
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
