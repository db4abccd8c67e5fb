//! FB-TCP, crisp-threshold version (Poorzare & Calveras Auge, "FB-TCP: a 5G mmWave friendly
//! fuzzy-based congestion control algorithm", IEEE Access 9:82812, 2021).
//!
//! The paper's fuzzy design is not public; the authors' public ns-3 code uses crisp thresholds,
//! and that is what this implements, under the name "fbtcp" (docs/algorithms.md).
//! Once per RTT (a Vegas-style round with more than 2 RTT samples; otherwise NewReno):
//! - `r = rtt_base / rtt_min_round` (connection minimum over the round's minimum),
//!   `diff = cwnd - floor(cwnd r)` segments, `q = r` (the public code's second indicator is the
//!   same ratio);
//! - cap `W* = running max of 1.05 throughput rtt_base / MSS` segments, taken at each round's
//!   end. The authors' class is given the application throughput measured at the receiver every
//!   100 ms by their script (`CalculateThroughput` on the packet sink -> `setThreshold`); a flow
//!   with `receiver_feed = "100ms"` gets exactly that (`cc.receiver_rate`; the thesis presets
//!   set it). Without a feed (a real kernel, the ns-3 port `ns3/model/tcp-fbtcp.cc`) the same
//!   quantity is measured at the sender from the cumulative ACK (the bytes delivered in order)
//!   over 100 ms intervals, one ACK path later;
//! - convergence (cwnd <= W*) and divergence (cwnd > W*) tables below, where "then" means the
//!   same band in consecutive rounds;
//! - after each per-RTT update `ssthresh = max(ssthresh, 0.75 cwnd)`.
//!
//! Slow start doubles cwnd per RTT below 900 segments (initial ssthresh 900 segments). Loss:
//! `ssthresh = max(min(ssthresh, cwnd - 1), 2)`.

use super::util::{reno_ca, set_cwnd_segments, slow_start, FracAcc, IntervalThroughput, RoundRate};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};
use crate::time::Dur;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "fbtcp",
    aliases: &["fb-tcp", "fbtcp-crisp"],
    source: "Poorzare & Calveras Auge, IEEE Access 9:82812 (2021), authors' public crisp-threshold version",
    params: &[],
    build: |p: &Params| Box::new(FbTcp { stack: p.profile, ..FbTcp::default() }),
};

const SS_LIMIT_SEGMENTS: u64 = 900;
const HOLD_ROUNDS: u32 = 30;
/// The authors' script measures the receiver's throughput every 100 ms.
const THROUGHPUT_INTERVAL: Dur = Dur::from_millis(100);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Band {
    Top,
    High,
    Mid,
    Hold,
    Low,
    Floor,
}

pub struct FbTcp {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    base_rtt: Option<Dur>,
    round: RoundRate,
    throughput: IntervalThroughput,
    w_star: f64,
    band: Option<(Band, bool)>,
    streak: u32,
    acc: FracAcc,
}

impl Default for FbTcp {
    fn default() -> Self {
        FbTcp {
            stack: Profile::Linux,
            base_rtt: None,
            round: RoundRate::default(),
            throughput: IntervalThroughput::new(THROUGHPUT_INTERVAL),
            w_star: 0.0,
            band: None,
            streak: 0,
            acc: FracAcc::default(),
        }
    }
}

impl FbTcp {
    /// One per-RTT update with ratio r (and q = r); returns nothing, sets cwnd.
    pub fn update(&mut self, cc: &mut CcState, r: f64) {
        let q = r;
        let w = (cc.cwnd / cc.mss) as f64;
        let diff = w - (w * r).floor();
        let converging = w <= self.w_star || self.w_star == 0.0;
        let band = match r {
            x if x >= 0.98 => Band::Top,
            x if x >= 0.95 => Band::High,
            x if x >= 0.7 => Band::Mid,
            x if x >= 0.3 => Band::Hold,
            x if x >= 0.05 => Band::Low,
            _ => Band::Floor,
        };
        if self.band == Some((band, converging)) {
            self.streak += 1;
        } else {
            self.band = Some((band, converging));
            self.streak = 1;
        }
        let s = self.streak;
        let mut nw = w;
        if converging {
            match band {
                Band::Top => {
                    nw += match diff {
                        d if d <= 10.0 => 120.0,
                        d if d <= 15.0 => 100.0,
                        d if d <= 20.0 => 70.0,
                        d if d <= 30.0 => 60.0,
                        _ => 50.0,
                    }
                }
                Band::High => nw += if q >= 0.95 { 40.0 } else { 30.0 },
                Band::Mid => nw += if q >= 0.95 { 25.0 } else { 20.0 },
                Band::Hold => {
                    if s > HOLD_ROUNDS {
                        nw *= 0.9;
                        self.w_star *= 0.9;
                        self.streak = 0;
                    }
                }
                Band::Low => {
                    if q >= 0.95 {
                        nw -= if s <= 2 { 10.0 } else { 20.0 };
                    } else {
                        nw -= if s <= 1 { 25.0 } else { 50.0 };
                    }
                }
                Band::Floor => {
                    if q >= 0.95 {
                        nw *= if s <= 1 { 0.75 } else { 0.5 };
                    } else {
                        nw *= if s <= 1 { 0.4 } else { 1.0 / 3.0 };
                    }
                }
            }
        } else {
            match band {
                _ if r >= 0.99 || (r >= 0.7 && q >= 0.95) => nw += 1.0,
                Band::Low => nw *= if s <= 1 { 0.75 } else { 0.5 },
                Band::Floor => nw *= if s <= 1 { 0.5 } else { 0.25 },
                _ => {
                    if s > HOLD_ROUNDS {
                        nw *= 0.9;
                        self.streak = 0;
                    }
                }
            }
        }
        set_cwnd_segments(cc, nw, 2.0);
        cc.ssthresh = cc.ssthresh.max(cc.cwnd * 3 / 4); // ssthresh = max(ssthresh, 0.75 cwnd)
    }
}

impl CongestionControl for FbTcp {
    fn name(&self) -> &'static str {
        "fbtcp"
    }
    fn init(&mut self, cc: &mut CcState) {
        cc.ssthresh = cc.ssthresh.min(SS_LIMIT_SEGMENTS * cc.mss);
    }
    fn on_ack(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
        self.throughput.on_ack(cc.now, cc.snd_una);
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let closed = self.round.on_ack(cc, ack.rtt, cc.snd_una);
        // the receiver's application throughput when the run feeds it (as the authors' script
        // does), else the same quantity measured here from the cumulative ACK
        let rate = cc.receiver_rate.or(self.throughput.last);
        if let (Some(_), Some(rate), Some(base)) = (closed, rate, self.base_rtt) {
            // W* = running max of 1.05 throughput rtt_base / MSS
            self.w_star = self
                .w_star
                .max(1.05 * rate * base.secs_f64() / cc.mss as f64);
        }
        if cc.in_slow_start() {
            slow_start(self.stack, cc, ack.segments_acked);
            return;
        }
        // once per round: the crisp tables with more than 2 RTT samples, else NewReno
        if let Some(c) = closed {
            match (c.min_rtt, self.base_rtt) {
                (Some(m), Some(b)) if c.samples > 2 && m.0 > 0 => {
                    self.update(cc, b.0 as f64 / m.0 as f64)
                }
                _ => reno_ca(&mut self.acc, cc),
            }
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // max(min(ssthresh, cwnd - 1), 2) segments
        cc.ssthresh
            .min(cc.cwnd.saturating_sub(cc.mss))
            .max(cc.min_ssthresh())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;

    fn fb(w_star: f64) -> FbTcp {
        FbTcp {
            w_star,
            ..Default::default()
        }
    }

    #[test]
    fn no_queue_grows_by_the_top_rows() {
        let mut f = fb(10_000.0);
        let mut cc = state(1000, 100, 10);
        f.update(&mut cc, 1.0); // diff 0 <= 10: +120
        assert_eq!(cc.cwnd, 220_000);
        let mut cc = state(1000, 1000, 10);
        f.update(&mut cc, 0.985); // diff = 1000 - 985 = 15: +100
        assert_eq!(cc.cwnd, 1_100_000);
    }

    #[test]
    fn low_ratio_cuts_then_cuts_harder() {
        let mut f = fb(10_000.0);
        let mut cc = state(1000, 1000, 10);
        f.update(&mut cc, 0.2); // [0.05, 0.3), q < 0.95: -25
        assert_eq!(cc.cwnd, 975_000);
        f.update(&mut cc, 0.2); // then -50
        assert_eq!(cc.cwnd, 925_000);
        f.update(&mut cc, 0.01); // [0, 0.05): *0.4
        assert_eq!(cc.cwnd, 370_000);
    }

    /// W* after two ACKs 100 ms apart (20 ms RTT samples) between which 500,000 bytes were
    /// delivered in order (5 MB/s at the sender); the second ACK also ends the first round.
    fn w_star_after_100ms(receiver_rate: Option<f64>) -> f64 {
        use crate::time::Time;
        let mut f = FbTcp::default();
        let mut cc = state(1000, 100, 1_000_000);
        cc.high_tx = 100_000;
        let a = ack(1, 1000, Some(20));
        f.on_ack(&mut cc, &a); // the 100 ms interval starts: una 0
        f.increase_window(&mut cc, &a); // the round starts: end 100000
        cc.receiver_rate = receiver_rate;
        cc.now = Time::ZERO + Dur::from_millis(100);
        cc.snd_una = 500_000;
        cc.high_tx = 600_000;
        f.on_ack(&mut cc, &a);
        f.increase_window(&mut cc, &a);
        f.w_star
    }

    #[test]
    fn cap_is_the_100ms_throughput_times_base_rtt() {
        // W* = 1.05 * 5e6 B/s * 0.02 s / 1000 B = 105 segments
        let w = w_star_after_100ms(None);
        assert!((w - 105.0).abs() < 1e-9, "{w}");
    }

    #[test]
    fn a_receiver_feed_replaces_the_senders_measurement() {
        // the receiver's application got 2 MB/s over the last 100 ms; the cumulative ACK says 5:
        // W* = 1.05 * 2e6 B/s * 0.02 s / 1000 B = 42 segments
        let w = w_star_after_100ms(Some(2e6));
        assert!((w - 42.0).abs() < 1e-9, "{w}");
    }

    #[test]
    fn above_the_cap_it_creeps_by_one() {
        let mut f = fb(500.0);
        let mut cc = state(1000, 1000, 10);
        f.update(&mut cc, 1.0);
        assert_eq!(cc.cwnd, 1_001_000);
        assert_eq!(cc.ssthresh, 750_750);
    }
}
