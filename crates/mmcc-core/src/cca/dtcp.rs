//! NexGen D-TCP (Kanagarathinam et al., "NexGen D-TCP: next generation dynamic TCP congestion
//! control algorithm", IEEE Access 8:164482, 2020).
//!
//! Per update epoch (one RTT, a Vegas-style round):
//! - bandwidth sample `B_i = d_i / (t_i - t_{i-1})` (bytes acknowledged in the epoch over its
//!   duration) (paper eq. 5); `d_i` is the cumulative ACK's advance, which the paper's "bytes
//!   acknowledged" says literally and an ns-3 class or Linux module can compute alike;
//! - Tustin-style filter, kappa = 0.9: `B_I = 0.9 B_{I,prev} + 0.1 B_i` (eq. 6);
//! - cross-layer normalisation `norm = (B_i - B_I) + (SINR_i - SINR_avg)`, `BW_E = B_I + g norm`,
//!   g = 0.5 (eq. 8-9). The paper adds the SINR deviation to a bandwidth deviation without
//!   stating units; a term in dB added to one in Mb/s changes nothing measurable (a 20 dB drop
//!   moved BW_E by 10 Mb/s of 2 Gb/s). The sum is a bandwidth when the SINR deviation is the
//!   bandwidth change it implies: the capacity scales with the Shannon spectral efficiency
//!   `SE(x) = log2(1 + 10^(x/10))`, so `SINR_i - SINR_avg` enters as
//!   `B_I (SE(SINR_i) / SE(SINR_avg) - 1)` (this project's reading, docs/algorithms.md).
//!   `SINR_avg` is an EWMA in dB with kappa (eq. 6's filter); without a SINR feed (real kernels,
//!   ns-3 without cross-layer) the term is 0.
//! - congestion control factor (eq. 12, normative):
//!   `N_{i+1} = max(1, N_i + 1 - (BW_E - BW_C) / (alpha BW_E) W_i)`, alpha = 0.2, `BW_C` the
//!   current sample B_i, W_i the window in segments.
//!
//! Window: per ACK `cwnd += N / cwnd` (N segments per RTT); per loss `cwnd = cwnd (1 - y)` with
//! `y = eta / ((2 eta - 1) N + 1)`, eta = 2 (so y = 2 / (3N + 1)), and `ssthresh = cwnd`.
//! Timeout: `cwnd = 2 IW`, N = 1. Initial window 2 IW, ssthresh unlimited (standard slow start
//! until the first loss). In the `ns3` profile the 2 IW after a timeout takes effect at the first
//! ACK after it, as in the ns-3 port (`ns3/model/tcp-dtcp.cc`): ns-3 sets cwnd to one segment
//! after telling the class of the timeout, so a `TcpCongestionOps` cannot do it earlier.

use super::util::{add_segments, slow_start_then_ca, FracAcc, RoundRate};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, CongestionKind, ParamSpec, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "dtcp",
    aliases: &["d-tcp", "nexgen-dtcp", "nexgen-d-tcp"],
    source: "Kanagarathinam et al., IEEE Access 8:164482 (2020)",
    params: &[
        ParamSpec { name: "kappa", default: 0.9, min: 0.0, max: 1.0, help: "bandwidth filter gain (eq. 6)" },
        ParamSpec { name: "g", default: 0.5, min: 0.0, max: 10.0, help: "normalisation gain (eq. 9)" },
        ParamSpec { name: "alpha", default: 0.2, min: 0.001, max: 100.0, help: "congestion control factor gain (eq. 12)" },
        ParamSpec { name: "eta", default: 2.0, min: 0.5, max: 100.0, help: "decrease parameter: y = eta / ((2 eta - 1) N + 1)" },
    ],
    build: |p: &Params| Box::new(Dtcp { stack: p.profile, ..Dtcp::new(p.get("kappa"), p.get("g"), p.get("alpha"), p.get("eta")) }),
};

pub struct Dtcp {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    kappa: f64,
    g: f64,
    alpha: f64,
    eta: f64,
    n: f64,
    b_filtered: Option<f64>,
    sinr_avg: Option<f64>,
    rate: RoundRate,
    acc: FracAcc,
    /// ns3 profile: 2 IW is due at the next ACK (after a timeout).
    restore_after_timeout: bool,
}

impl Dtcp {
    pub fn new(kappa: f64, g: f64, alpha: f64, eta: f64) -> Self {
        Dtcp {
            stack: Profile::Linux,
            kappa,
            g,
            alpha,
            eta,
            n: 1.0,
            b_filtered: None,
            sinr_avg: None,
            rate: RoundRate::default(),
            acc: FracAcc::default(),
            restore_after_timeout: false,
        }
    }
    pub fn n(&self) -> f64 {
        self.n
    }
    /// y = eta / ((2 eta - 1) N + 1)
    pub fn decrease(&self) -> f64 {
        self.eta / ((2.0 * self.eta - 1.0) * self.n + 1.0)
    }

    /// One epoch with bandwidth sample `b_i` (Mb/s), SINR (dB, if fed) and window `w`.
    pub fn epoch(&mut self, b_i: f64, sinr: Option<f64>, w: f64) {
        let b_prev = self.b_filtered.unwrap_or(b_i);
        let b_f = self.kappa * b_prev + (1.0 - self.kappa) * b_i; // eq. 6
        self.b_filtered = Some(b_f);
        let sinr_term = match sinr {
            Some(s) => {
                let avg = self.sinr_avg.map_or(s, |a| self.kappa * a + (1.0 - self.kappa) * s);
                self.sinr_avg = Some(avg);
                // eq. 8's SINR_i - SINR_avg as the bandwidth change it implies (module docs)
                b_f * (shannon_se(s) / shannon_se(avg) - 1.0)
            }
            None => 0.0,
        };
        let norm = (b_i - b_f) + sinr_term; // eq. 8
        let bw_e = b_f + self.g * norm; // eq. 9
        if bw_e > 0.0 {
            // eq. 12: N_{i+1} = max(1, N_i + 1 - (BW_E - BW_C) / (alpha BW_E) W_i)
            self.n = (self.n + 1.0 - (bw_e - b_i) / (self.alpha * bw_e) * w).max(1.0);
        }
    }
}

/// Shannon spectral efficiency (b/s/Hz) at an SINR in dB: log2(1 + 10^(x/10)), never below
/// 1e-6 (so a ratio of two stays finite at very low SINR).
pub fn shannon_se(sinr_db: f64) -> f64 {
    (1.0 + 10f64.powf(sinr_db / 10.0)).log2().max(1e-6)
}

impl CongestionControl for Dtcp {
    fn name(&self) -> &'static str {
        "dtcp"
    }
    fn init(&mut self, cc: &mut CcState) {
        cc.cwnd = 2 * cc.initial_cwnd; // initial window 2 IW
    }
    fn on_ack(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if std::mem::take(&mut self.restore_after_timeout) {
            cc.cwnd = cc.cwnd.max(2 * cc.initial_cwnd); // ns3: the timeout's 2 IW, one ACK later
        }
        // eq. 5: bytes acknowledged in the epoch / its duration, in Mb/s
        if let Some(bytes_per_s) = self.rate.on_ack(cc, ack.rtt, cc.snd_una).and_then(|r| r.rate) {
            self.epoch(bytes_per_s * 8.0 / 1e6, cc.sinr_db, cc.cwnd_segments());
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            let w = cc.cwnd_segments();
            add_segments(&mut self.acc, cc, self.n / w); // cwnd += N / cwnd per ACK
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // cwnd (1 - y), y = 2 / (3N + 1); then ssthresh = cwnd
        ((cc.cwnd as f64 * (1.0 - self.decrease())) as u64).max(cc.min_ssthresh())
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, ev: &CongestionEvent) {
        if ev.kind == CongestionKind::Timeout {
            // timeout: cwnd = 2 IW, N = 1
            if self.stack.is_ns3() {
                self.restore_after_timeout = true;
            } else {
                cc.cwnd = 2 * cc.initial_cwnd;
            }
            self.n = 1.0;
        }
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("kappa", self.kappa), ("g", self.g), ("alpha", self.alpha), ("eta", self.eta)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;

    #[test]
    fn decrease_is_two_over_3n_plus_1() {
        let mut d = Dtcp::new(0.9, 0.5, 0.2, 2.0);
        assert_eq!(d.decrease(), 0.5);
        d.n = 3.0;
        assert_eq!(d.decrease(), 0.2);
        let cc = state(1000, 100, 10);
        assert_eq!(d.ssthresh(&cc), 80_000);
    }

    #[test]
    fn timeout_restores_two_initial_windows_at_once_or_at_the_next_ack_in_ns3() {
        use crate::cca::{testing::loss, CongestionKind, Profile};
        for profile in [Profile::Linux, Profile::Ns3] {
            let mut d = Dtcp::new(0.9, 0.5, 0.2, 2.0);
            d.n = 5.0;
            let mut cc = state(1000, 100, 50);
            d.stack = profile;
            let ev = loss(CongestionKind::Timeout, &cc);
            cc.cwnd = 1000; // the stack's one segment after an RTO
            d.on_congestion_event(&mut cc, &ev);
            assert_eq!(d.n(), 1.0);
            let expect_now = if profile == Profile::Ns3 { 1000 } else { 20_000 };
            assert_eq!(cc.cwnd, expect_now, "{profile:?}");
            d.on_ack(&mut cc, &crate::cca::testing::ack(1, 1000, None));
            assert_eq!(cc.cwnd, 20_000, "{profile:?}: 2 IW after the first ACK at the latest");
        }
    }

    #[test]
    fn steady_bandwidth_grows_n_by_one_per_epoch() {
        let mut d = Dtcp::new(0.9, 0.5, 0.2, 2.0);
        for _ in 0..5 {
            d.epoch(100.0, None, 50.0);
        }
        assert_eq!(d.n(), 6.0);
    }

    #[test]
    fn a_bandwidth_drop_collapses_n_to_one() {
        let mut d = Dtcp::new(0.9, 0.5, 0.2, 2.0);
        for _ in 0..5 {
            d.epoch(100.0, None, 50.0);
        }
        // sample 90 after 100: B_I = 99, BW_E = 99 + 0.5 (90 - 99) = 94.5;
        // N = 6 + 1 - (94.5 - 90) / (0.2 * 94.5) * 50 = 7 - 11.9 -> 1
        d.epoch(90.0, None, 50.0);
        assert_eq!(d.n(), 1.0);
    }

    #[test]
    fn the_sinr_term_is_the_bandwidth_change_its_spectral_efficiency_implies() {
        // SE(0 dB) = log2(2) = 1; SE(20 dB) = log2(101) = 6.658211...; SE(18 dB) = log2(1 +
        // 63.0957...) = 6.001878...
        assert!((shannon_se(0.0) - 1.0).abs() < 1e-12);
        assert!((shannon_se(20.0) - 101f64.log2()).abs() < 1e-12);
        let mut d = Dtcp::new(0.9, 0.5, 0.2, 2.0);
        // first epoch: B_I = 100, SINR_avg = 20 dB, no deviation: BW_E = 100, N = 1 + 1 = 2
        d.epoch(100.0, Some(20.0), 10.0);
        assert_eq!(d.n(), 2.0);
        // the SINR falls to 0 dB, the bandwidth sample not yet: SINR_avg = 0.9 * 20 = 18 dB,
        // term = 100 (1 / 6.001878 - 1) = -83.338...; BW_E = 100 + 0.5 term = 58.331...;
        // N = 2 + 1 - (58.331 - 100) / (0.2 * 58.331) * 10 = 38.72...
        d.epoch(100.0, Some(0.0), 10.0);
        let se18 = (1.0 + 10f64.powf(1.8)).log2();
        let bw_e = 100.0 + 0.5 * 100.0 * (1.0 / se18 - 1.0);
        let n = 3.0 - (bw_e - 100.0) / (0.2 * bw_e) * 10.0;
        assert!((d.n() - n).abs() < 1e-9 && (d.n() - 38.72).abs() < 0.01, "{}", d.n());
        // without the feed the same samples leave N at 3 (dB added to Mb/s gave 7.95)
        let mut plain = Dtcp::new(0.9, 0.5, 0.2, 2.0);
        plain.epoch(100.0, None, 10.0);
        plain.epoch(100.0, None, 10.0);
        assert_eq!(plain.n(), 3.0);
    }
}
