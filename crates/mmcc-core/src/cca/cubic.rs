//! CUBIC (RFC 9438) with HyStart (Ha & Rhee, "Taming the elephants: new TCP slow start",
//! Computer Networks 55(9), 2011), as ns-3's `TcpCubic` and Linux `tcp_cubic.c`.
//!
//! In segments, with C = 0.4 and beta_cubic = 0.7:
//! - `W_cubic(t) = C (t - K)^3 + W_max` (RFC 9438 eq. 1), `K = cbrt((W_max - cwnd_epoch) / C)`
//!   (eq. 2), t from the start of the congestion-avoidance epoch;
//! - per ACK: `target = W_cubic(t + RTT)` clamped to [cwnd, 1.5 cwnd] (section 4.2) and
//!   `cwnd += (target - cwnd) / cwnd`; RTT is the connection's minimum RTT (as ns-3/Linux);
//! - Reno-friendly region: `W_est += alpha_cubic * segments_acked / cwnd`,
//!   `alpha_cubic = 3 (1 - beta) / (1 + beta)` (eq. 4); if `W_cubic(t) < W_est`, cwnd = W_est;
//! - loss: fast convergence `W_max = cwnd (1 + beta) / 2` if cwnd < W_max, else `W_max = cwnd`
//!   (section 4.7); `ssthresh = max(beta cwnd, 2)` (eq. 5/section 4.6); the epoch restarts.
//!
//! The `linux` profile follows the RFC as above (per acknowledged segment, as
//! `tcp_cong_avoid_ai`). The `ns3` profile follows ns-3 3.37's `TcpCubic` instead
//! ([`Cubic::ns3_update`]): slow start adds one MSS per acknowledged segment without the
//! ssthresh cap; congestion avoidance counts acknowledged segments towards a one-segment
//! increase every `cnt = cwnd / (target - cwnd)` of them, with the target in whole segments and
//! no Reno-friendly region; ssthresh and W_max are whole segments; a timeout resets W_max to 0.
//!
//! HyStart leaves slow start (ssthresh = cwnd) once cwnd >= 16 segments and either an ACK
//! train of the round lasts min_rtt / 2, or the minimum RTT of the round's first 8 samples
//! exceeds the connection minimum by clamp(min_rtt / 8, 4 ms, 16 ms).

use super::util::{add_segments, slow_start_abc, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params};
use crate::time::{Dur, Time};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cubic",
    aliases: &["tcp-cubic"],
    source: "RFC 9438; HyStart (Ha & Rhee 2011) (ns-3 TcpCubic, Linux tcp_cubic.c)",
    params: &[
        ParamSpec { name: "c", default: 0.4, min: 0.001, max: 100.0, help: "cubic scaling constant C (RFC 9438)" },
        ParamSpec { name: "beta", default: 0.7, min: 0.0, max: 1.0, help: "multiplicative decrease beta_cubic" },
        ParamSpec { name: "hystart", default: 1.0, min: 0.0, max: 1.0, help: "1: HyStart on, 0: off" },
        ParamSpec { name: "fast_convergence", default: 1.0, min: 0.0, max: 1.0, help: "1: on, 0: off" },
    ],
    build: |p: &Params| {
        Box::new(Cubic::new(p.get("c"), p.get("beta"), p.get("hystart") != 0.0, p.get("fast_convergence") != 0.0))
    },
};

const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);

pub struct Cubic {
    c: f64,
    beta: f64,
    hystart: bool,
    fast_convergence: bool,
    w_max: f64,
    k: f64,
    epoch_start: Option<Time>,
    origin: f64,
    w_est: f64,
    acc: FracAcc,
    // HyStart round state
    round_end: u64,
    round_start: Time,
    last_ack: Time,
    curr_rtt: Option<Dur>,
    samples: u32,
    round_started: bool,
    /// ns-3 TcpCubic's per-ACK counter towards the next one-segment increase (m_cWndCnt).
    cwnd_cnt: u64,
}

impl Cubic {
    pub fn new(c: f64, beta: f64, hystart: bool, fast_convergence: bool) -> Self {
        Cubic {
            c,
            beta,
            hystart,
            fast_convergence,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            origin: 0.0,
            w_est: 0.0,
            acc: FracAcc::default(),
            round_end: 0,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: None,
            samples: 0,
            round_started: false,
            cwnd_cnt: 0,
        }
    }

    /// ns-3 3.37 `TcpCubic::Update` (the `ns3` profile): the number of acknowledged segments
    /// per one-segment increase, from the cubic target in whole segments (BIC-style, integer
    /// arithmetic), with no Reno-friendly region (RFC 9438 section 4.3 is not in ns-3 3.37):
    /// target = origin +- floor(C |t - K|^3), t = now + min RTT - epoch start;
    /// cnt = cwnd / (target - cwnd), or 100 cwnd at or above the target; at least 2; at most
    /// 20 before the first loss (m_cntClamp).
    fn ns3_update(&mut self, cc: &CcState) -> u64 {
        let seg = cc.cwnd / cc.mss;
        if self.epoch_start.is_none() {
            // a new epoch (RFC 9438 eq. 2 with W_max from the last loss)
            self.epoch_start = Some(cc.now);
            if self.w_max <= seg as f64 {
                self.k = 0.0;
                self.origin = seg as f64;
            } else {
                self.k = ((self.w_max - seg as f64) / self.c).cbrt();
                self.origin = self.w_max;
            }
        }
        let epoch = self.epoch_start.unwrap_or(cc.now);
        let delay_min = cc.min_rtt.map_or(0.0, |d| d.secs_f64());
        let t = (cc.now - epoch).secs_f64() + delay_min;
        let delta = (self.c * (t - self.k).abs().powi(3)) as u64; // uint32 in ns-3
        let origin = self.origin as u64;
        let target = if t < self.k { origin.saturating_sub(delta) } else { origin + delta };
        let mut cnt = if target > seg { seg / (target - seg) } else { 100 * seg };
        if self.w_max == 0.0 && cnt > 20 {
            cnt = 20;
        }
        cnt.max(2)
    }

    /// RFC 9438 eq. (2): K = cbrt((W_max - cwnd_epoch) / C), for a window of `w` segments.
    pub fn k_for(&self, w_max: f64, w: f64) -> f64 {
        if w >= w_max {
            0.0
        } else {
            ((w_max - w) / self.c).cbrt()
        }
    }

    /// RFC 9438 eq. (1): W_cubic(t) = C (t - K)^3 + W_max (segments, t in seconds).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.origin
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn hystart_update(&mut self, cc: &mut CcState, rtt: Option<Dur>) {
        if !self.round_started || cc.snd_una > self.round_end {
            self.round_started = true;
            self.round_end = cc.snd_nxt;
            self.round_start = cc.now;
            self.last_ack = cc.now;
            self.curr_rtt = None;
            self.samples = 0;
        }
        let Some(min_rtt) = cc.min_rtt else { return };
        if cc.cwnd_segments() < HYSTART_LOW_WINDOW {
            return;
        }
        let mut found = false;
        // ACK train: closely spaced ACKs spanning half the minimum RTT
        if cc.now - self.last_ack <= HYSTART_ACK_DELTA {
            self.last_ack = cc.now;
            if cc.now - self.round_start >= Dur(min_rtt.0 / 2) {
                found = true;
            }
        }
        // Delay increase over the round's first samples
        if let Some(r) = rtt {
            if self.samples < HYSTART_MIN_SAMPLES {
                self.curr_rtt = Some(self.curr_rtt.map_or(r, |c| c.min(r)));
                self.samples += 1;
            } else if let Some(curr) = self.curr_rtt {
                let thresh = Dur(min_rtt.0 / 8).max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX);
                if curr > min_rtt + thresh {
                    found = true;
                }
            }
        }
        if found {
            cc.ssthresh = cc.cwnd; // leave slow start
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let mut segs = ack.segments_acked;
        if cc.in_slow_start() {
            if self.hystart {
                self.hystart_update(cc, ack.rtt);
            }
            segs = slow_start_abc(cc, segs);
        }
        if segs == 0 || cc.in_slow_start() {
            return;
        }
        if cc.ns3() {
            // ns-3 TcpCubic::IncreaseWindow: m_cWndCnt += segmentsAcked; one segment per cnt
            self.cwnd_cnt += segs as u64;
            let cnt = self.ns3_update(cc);
            if self.cwnd_cnt >= cnt {
                cc.cwnd += cc.mss;
                self.cwnd_cnt -= cnt;
            }
            return;
        }
        let w = cc.cwnd_segments();
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                // RFC 9438 section 4.2: a new congestion-avoidance epoch
                self.epoch_start = Some(cc.now);
                self.k = self.k_for(self.w_max, w);
                self.origin = self.w_max.max(w);
                self.w_est = w;
                cc.now
            }
        };
        let rtt = cc.min_rtt.map_or(0.0, |d| d.secs_f64());
        let t = (cc.now - epoch).secs_f64();
        // target = W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd]
        let target = self.w_cubic(t + rtt).clamp(w, 1.5 * w);
        // Reno-friendly estimate (eq. 4)
        let alpha = 3.0 * (1.0 - self.beta) / (1.0 + self.beta);
        self.w_est += alpha * segs as f64 / w;
        if self.w_cubic(t) < self.w_est {
            if self.w_est > w {
                add_segments(&mut self.acc, cc, self.w_est - w); // cwnd = W_est
            }
        } else {
            // cwnd += (target - cwnd)/cwnd per acknowledged segment (ns-3 TcpCubic m_cWndCnt
            // and Linux tcp_cong_avoid_ai both count segments)
            add_segments(&mut self.acc, cc, segs as f64 * (target - w) / w);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        if cc.ns3() {
            // ns-3 TcpCubic::GetSsThresh: max(floor(segCwnd * beta), 2) whole segments
            return ((((cc.cwnd / cc.mss) as f64 * self.beta) as u64).max(2)) * cc.mss;
        }
        ((cc.cwnd as f64 * self.beta) as u64).max(cc.min_ssthresh()) // ssthresh = beta cwnd
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, ev: &CongestionEvent) {
        let mut w = ev.prior_cwnd as f64 / cc.mss as f64; // the window before the event
        if cc.ns3() {
            w = w.floor(); // ns-3 keeps W_max in whole segments (uint32 m_lastMaxCwnd)
            if ev.kind == crate::cca::CongestionKind::Timeout {
                // ns-3 CongestionStateSet(CA_LOSS) -> CubicReset: W_max = 0, a fresh start
                self.w_max = 0.0;
                self.epoch_start = None;
                self.origin = 0.0;
                self.w_est = 0.0;
                return;
            }
        }
        // section 4.7 fast convergence
        self.w_max = if self.fast_convergence && w < self.w_max { w * (1.0 + self.beta) / 2.0 } else { w };
        if cc.ns3() {
            self.w_max = self.w_max.floor();
        }
        self.epoch_start = None;
        self.origin = 0.0;
        self.w_est = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, loss, state};
    use crate::cca::CongestionKind;
    use super::*;

    #[test]
    fn k_and_w_cubic_follow_rfc9438() {
        let mut c = Cubic::new(0.4, 0.7, false, true);
        // W_max = 100, cwnd after loss = 70: K = cbrt(30 / 0.4) = cbrt(75) = 4.2172 s
        c.w_max = 100.0;
        c.k = c.k_for(100.0, 70.0);
        c.origin = 100.0;
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9); // starts at cwnd
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-12); // plateau at W_max
        // t = K + 1: 0.4 * 1 + 100
        assert!((c.w_cubic(c.k + 1.0) - 100.4).abs() < 1e-9);
    }

    #[test]
    fn loss_sets_w_max_with_fast_convergence() {
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 10);
        assert_eq!(c.ssthresh(&cc), 70_000);
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        c.on_congestion_event(&mut cc, &ev);
        assert_eq!(c.w_max(), 100.0);
        let mut cc = state(1000, 80, 10);
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        c.on_congestion_event(&mut cc, &ev);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9); // 68
    }

    #[test]
    fn a_timeout_sets_w_max_from_the_window_before_it() {
        // the stack has already set cwnd = 1 MSS when the timeout event arrives; W_max must
        // come from the event's prior window (100 segments), not from cwnd
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 1, 10);
        let ev = CongestionEvent { kind: CongestionKind::Timeout, prior_cwnd: 100_000, bytes_in_flight: 90_000 };
        c.on_congestion_event(&mut cc, &ev);
        assert_eq!(c.w_max(), 100.0);
    }

    #[test]
    fn ns3_profile_follows_ns3_tcp_cubic_update() {
        // W_max = 100 after a loss at 100 segments; cwnd 70, min RTT 10 ms. At the epoch start
        // t = 0.01 s, K = cbrt(30 / 0.4) = 4.217 s: delta = floor(0.4 * 4.207^3) = 29,
        // target = 100 - 29 = 71, cnt = 70 / (71 - 70) = 70 segments per increase.
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 10);
        cc.profile = crate::cca::Profile::Ns3;
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        assert_eq!(c.ssthresh(&cc), 70_000);
        c.on_congestion_event(&mut cc, &ev);
        cc.cwnd = 70_000;
        cc.ssthresh = 70_000;
        cc.min_rtt = Some(Dur::from_millis(10));
        assert_eq!(c.ns3_update(&cc), 70);
        for i in 0..35 {
            c.increase_window(&mut cc, &ack(2, 1000, Some(10)));
            assert_eq!(cc.cwnd, if i < 34 { 70_000 } else { 71_000 }, "ack {i}");
        }
        // at or above the target: 100 cwnd per increase
        cc.cwnd = 75_000;
        assert_eq!(c.ns3_update(&cc), 7500);
        // a timeout resets W_max (ns-3 CubicReset on CA_LOSS)
        let ev = CongestionEvent { kind: CongestionKind::Timeout, prior_cwnd: 80_000, bytes_in_flight: 0 };
        c.on_congestion_event(&mut cc, &ev);
        assert_eq!(c.w_max(), 0.0);
    }

    #[test]
    fn congestion_avoidance_counts_acknowledged_segments() {
        // ns-3 TcpCubic (m_cWndCnt += segmentsAcked) and Linux both count segments: one ACK of
        // two segments grows the window as two ACKs of one
        let run = |acks: &[u32]| {
            let mut c = Cubic::new(0.4, 0.7, false, true);
            let mut cc = state(1000, 100, 10);
            cc.min_rtt = Some(Dur::from_millis(10));
            let ev = loss(CongestionKind::FastRetransmit, &cc);
            c.on_congestion_event(&mut cc, &ev);
            cc.cwnd = 70_000;
            cc.now = Time::from_millis(500);
            for &a in acks {
                c.increase_window(&mut cc, &ack(a, 1000, Some(10)));
            }
            cc.cwnd
        };
        let (two, ones) = (run(&[2; 10]), run(&[1; 20]));
        assert!(two > 70_000 && two.abs_diff(ones) <= 2, "{two} vs {ones}");
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 10);
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        c.on_congestion_event(&mut cc, &ev);
        cc.cwnd = 70_000;
        cc.ssthresh = 70_000;
        cc.min_rtt = Some(Dur::from_millis(10));
        // feed ACKs every 10 ms for K seconds: the window approaches W_max = 100 from below
        let k = 75f64.cbrt();
        let mut t = 0u64;
        while (t as f64) / 1000.0 < k {
            cc.now = Time::from_millis(t);
            for _ in 0..10 {
                c.increase_window(&mut cc, &ack(1, 1000, Some(10)));
            }
            t += 10;
        }
        let w = cc.cwnd_segments();
        assert!((97.0..=101.0).contains(&w), "cwnd {w} after K");
    }
}
