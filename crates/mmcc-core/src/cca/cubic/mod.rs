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
//! The `linux` profile follows Linux's `tcp_cubic.c` (`bictcp_update`, [`Cubic::linux_update`]),
//! the kernel's integer form of the equations above: time in jiffies (CONFIG_HZ = 250, this
//! machine's and Debian's) plus the minimum RTT, in 1/1024 s; C = bic_scale 41 * 10 / 1024 and
//! beta = 717 / 1024 (from the `c` and `beta` parameters); the target in whole segments gives
//! `cnt = cwnd / (target - cwnd)` acknowledged segments per one-segment increase
//! (`tcp_cong_avoid_ai`), at most 20 before the first loss ("increase cwnd 5 % per RTT" while
//! the bandwidth is unknown), at least 2; the Reno-friendly window counts one segment per
//! `cwnd * beta_scale / 8` acknowledged segments (beta_scale = 8 (1 + beta) / 3 / (1 - beta))
//! and caps cnt when it is ahead; cnt is recomputed at most once per jiffy and, while cwnd is
//! unchanged, once per HZ / 32; W_max and ssthresh are whole segments; a timeout resets
//! everything (`bictcp_reset` at TCP_CA_Loss), the minimum RTT included. The `ns3` profile
//! follows ns-3 3.37's `TcpCubic` instead ([`Cubic::ns3_update`]): slow start adds one MSS per acknowledged segment without the
//! ssthresh cap; congestion avoidance counts acknowledged segments towards a one-segment
//! increase every `cnt = cwnd / (target - cwnd)` of them, with the target in whole segments and
//! no Reno-friendly region; ssthresh and W_max are whole segments; a timeout resets W_max to 0.
//!
//! HyStart leaves slow start (ssthresh = cwnd) once cwnd >= 16 segments and either an ACK
//! train of the round lasts min_rtt / 2, or the minimum RTT of the round's first 8 samples
//! exceeds the connection minimum by clamp(min_rtt / 8, 4 ms, 16 ms). The `ns3` profile runs
//! ns-3 3.37's variant ([`Cubic::ns3_hystart_update`]): on the smoothed RTT, a train longer
//! than the whole minimum delay, a delay threshold of clamp(delay_min, 4 ms, 1000 ms) (so twice
//! the minimum RTT), once per connection until a timeout.
//!
//! The variants' own state and arithmetic live in `linux.rs` (tcp_cubic.c) and `ns3.rs`
//! (TcpCubic); this file holds the model, the HyStart round both use and the hooks.

mod linux;
mod ns3;

use linux::{LinuxState, BETA_SCALE, LINUX_HZ, LINUX_JIFFY_NS};
use ns3::{Ns3State, NS3_CUBIC_DELTA};
use super::util::slow_start_abc;
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Profile};
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
        let c = Cubic::new(p.get("c"), p.get("beta"), p.get("hystart") != 0.0, p.get("fast_convergence") != 0.0);
        Box::new(Cubic { stack: p.profile, ..c })
    },
};

const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);

pub struct Cubic {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    c: f64,
    beta: f64,
    hystart: bool,
    fast_convergence: bool,
    w_max: f64,
    k: f64,
    epoch_start: Option<Time>,
    origin: f64,
    /// The `linux` profile's state (tcp_cubic.c).
    lx: LinuxState,
    /// The `ns3` profile's delay and HyStart state (tcp-cubic.cc).
    ns: Ns3State,
    // HyStart round state (both profiles)
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
            stack: Profile::Linux,
            c,
            beta,
            hystart,
            fast_convergence,
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            origin: 0.0,
            lx: LinuxState::default(),
            ns: Ns3State::default(),
            round_end: 0,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: None,
            samples: 0,
            round_started: false,
            cwnd_cnt: 0,
        }
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// A new HyStart round (Linux `bictcp_hystart_reset`, ns-3 `TcpCubic::HystartReset`): it
    /// ends once the cumulative ACK passes what has been sent now (ns-3 `m_highTxMark`).
    fn hystart_reset(&mut self, cc: &CcState) {
        self.round_started = true;
        self.round_end = cc.snd_nxt;
        self.round_start = cc.now;
        self.last_ack = cc.now;
        self.curr_rtt = None;
        self.samples = 0;
    }

    /// The ACK-train rule: ACKs at most 2 ms apart whose train has lasted `span` (`strictly`
    /// longer, as ns-3 compares).
    fn train_lasted(&mut self, now: Time, span: Dur, strictly: bool) -> bool {
        if now - self.last_ack > HYSTART_ACK_DELTA {
            return false;
        }
        self.last_ack = now;
        let len = now - self.round_start;
        if strictly {
            len > span
        } else {
            len >= span
        }
    }

    /// The delay rule: the minimum of the round's first 8 delays, then whether it exceeds
    /// `base + thresh`.
    fn delay_increased(&mut self, delay: Dur, base: Dur, thresh: Dur) -> bool {
        if self.samples < HYSTART_MIN_SAMPLES {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            self.samples += 1;
            return false;
        }
        self.curr_rtt.is_some_and(|c| c > base + thresh)
    }

    fn hystart_update(&mut self, cc: &mut CcState, rtt: Option<Dur>) {
        if !self.round_started || cc.snd_una > self.round_end {
            self.hystart_reset(cc);
        }
        let Some(min_rtt) = cc.min_rtt else { return };
        if cc.cwnd_segments() < HYSTART_LOW_WINDOW {
            return;
        }
        // ACK train: closely spaced ACKs spanning half the minimum RTT
        let mut found = self.train_lasted(cc.now, Dur(min_rtt.0 / 2), false);
        // Delay increase over the round's first samples
        if let Some(r) = rtt {
            let thresh = Dur(min_rtt.0 / 8).max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX);
            found |= self.delay_increased(r, min_rtt, thresh);
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
    fn on_ack(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if self.stack.is_ns3() {
            // ns-3 TcpCubic::PktsAcked (rtt = the smoothed estimate): nothing within CubicDelta
            // of an epoch's start; the minimum delay; HyStart while in slow start from 16 segments
            if self.epoch_start.is_some_and(|e| cc.now - e < NS3_CUBIC_DELTA) {
                return;
            }
            let Some(r) = ack.rtt else { return };
            self.ns.delay_min = Some(self.ns.delay_min.map_or(r, |d| d.min(r)));
            if self.hystart && cc.cwnd <= cc.ssthresh && cc.cwnd_segments() >= HYSTART_LOW_WINDOW {
                self.ns3_hystart_update(cc, r);
            }
            return;
        }
        // Linux cubictcp_acked (the `linux` profile): the minimum RTT sample, on every ACK with one,
        // except during the first second of an epoch (samples right after a recovery)
        let Some(r) = ack.rtt else { return };
        let now_j = cc.now.0 / LINUX_JIFFY_NS;
        if self.lx.epoch_start.is_some_and(|e| now_j.saturating_sub(e) < LINUX_HZ) {
            return;
        }
        let us = (r.0 / 1000).max(1);
        if self.lx.delay_min_us == 0 || self.lx.delay_min_us > us {
            self.lx.delay_min_us = us;
        }
    }

    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let mut segs = ack.segments_acked;
        if cc.in_slow_start() {
            if self.hystart && self.stack.is_ns3() {
                // ns-3 TcpCubic::IncreaseWindow: a new HyStart round once the cumulative ACK
                // passes the round's end (after PktsAcked has seen this ACK)
                if cc.snd_una > self.round_end {
                    self.hystart_reset(cc);
                }
            } else if self.hystart {
                self.hystart_update(cc, ack.rtt);
            }
            segs = slow_start_abc(self.stack, cc, segs);
        }
        if segs == 0 || cc.in_slow_start() {
            return;
        }
        if self.stack.is_ns3() {
            // ns-3 TcpCubic::IncreaseWindow: m_cWndCnt += segmentsAcked; one segment per cnt
            self.cwnd_cnt += segs as u64;
            let cnt = self.ns3_update(cc);
            if self.cwnd_cnt >= cnt {
                cc.cwnd += cc.mss;
                self.cwnd_cnt -= cnt;
            }
            return;
        }
        // Linux cubictcp_cong_avoid: bictcp_update, then tcp_cong_avoid_ai(tp, ca->cnt, acked)
        let seg = cc.cwnd / cc.mss;
        let cnt = self.linux_update(cc.now, seg, segs as u64);
        let mut w = seg;
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt = 0;
            w += 1;
        }
        self.cwnd_cnt += segs as u64;
        if self.cwnd_cnt >= cnt {
            let d = self.cwnd_cnt / cnt;
            self.cwnd_cnt -= d * cnt;
            w += d;
        }
        cc.cwnd += (w - seg) * cc.mss;
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        if self.stack.is_ns3() {
            // ns-3 TcpCubic::GetSsThresh: max(floor(segCwnd * beta), 2) whole segments
            return ((((cc.cwnd / cc.mss) as f64 * self.beta) as u64).max(2)) * cc.mss;
        }
        // Linux bictcp_recalc_ssthresh: max(cwnd * beta / 1024, 2) whole segments
        let (_, beta, _) = self.linux_constants();
        ((cc.cwnd / cc.mss * beta / BETA_SCALE).max(2)) * cc.mss
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, ev: &CongestionEvent) {
        if !self.stack.is_ns3() {
            // Linux bictcp_recalc_ssthresh (section 4.7 fast convergence, whole segments), then
            // on a timeout bictcp_reset (TCP_CA_Loss): everything back to zero
            let (_, beta, _) = self.linux_constants();
            let w = ev.prior_cwnd / cc.mss;
            self.cwnd_cnt = 0; // tcp_init_cwnd_reduction / tcp_enter_loss: snd_cwnd_cnt = 0
            if ev.kind == crate::cca::CongestionKind::Timeout {
                self.lx = LinuxState::default();
            } else {
                self.lx.epoch_start = None;
                self.lx.last_max_cwnd = if self.fast_convergence && w < self.lx.last_max_cwnd {
                    w * (BETA_SCALE + beta) / (2 * BETA_SCALE)
                } else {
                    w
                };
            }
            self.w_max = self.lx.last_max_cwnd as f64;
            return;
        }
        let w = (ev.prior_cwnd / cc.mss) as f64; // ns-3 keeps W_max in whole segments
        if ev.kind == crate::cca::CongestionKind::Timeout {
            // ns-3 CongestionStateSet(CA_LOSS) -> CubicReset (W_max = 0, m_delayMin and
            // m_found cleared) and HystartReset: a fresh start
            self.w_max = 0.0;
            self.epoch_start = None;
            self.origin = 0.0;
            self.ns.delay_min = None;
            self.ns.found = false;
            self.hystart_reset(cc);
            return;
        }
        // section 4.7 fast convergence
        self.w_max = if self.fast_convergence && w < self.w_max { w * (1.0 + self.beta) / 2.0 } else { w };
        self.w_max = self.w_max.floor();
        self.epoch_start = None;
        self.origin = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, loss, state};
    use crate::cca::CongestionKind;
    use super::*;

    #[test]
    fn linux_grows_five_percent_per_rtt_before_the_first_loss() {
        // tcp_cubic.c: with no loss yet (last_max_cwnd = 0) cnt is clamped to 20 acknowledged
        // segments per increase: 20 ACKs of one segment add one segment to 100
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 100);
        cc.min_rtt = Some(Dur::from_millis(10));
        for i in 0..20 {
            c.increase_window(&mut cc, &ack(1, 1000, Some(10)));
            assert_eq!(cc.cwnd, if i < 19 { 100_000 } else { 101_000 }, "ack {i}");
        }
        assert_eq!(c.lx.cnt, 20);
    }

    #[test]
    fn linux_update_matches_tcp_cubic_integers() {
        // W_max = 100 after a loss, cwnd 70, minimum RTT 10 ms. cube_factor = 2^40 / 410 =
        // 2681735677, K = floor(cbrt(cube_factor * 30)) = 4316 (1/1024 s, 4.215 s); at the epoch
        // start t = 10 ms = 10/1024 s: offs = 4306, delta = (410 * 4306^3) >> 40 = 29,
        // target = 71, cnt = 70 / (71 - 70) = 70
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 10);
        assert_eq!(c.ssthresh(&cc), 70_000); // 100 * 717 / 1024 = 70
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        c.on_congestion_event(&mut cc, &ev);
        assert_eq!(c.w_max(), 100.0);
        c.lx.delay_min_us = 10_000;
        assert_eq!(c.linux_update(Time::ZERO, 70, 1), 70);
        assert_eq!(c.lx.k, 4316);
        // within HZ / 32 jiffies with the same cwnd, cnt is not recomputed
        assert_eq!(c.linux_update(Time::from_millis(20), 70, 1), 70);
        // at or above the target: 100 cwnd, unless Reno would be ahead (not yet: ack_cnt small)
        c.lx.last_max_cwnd = 0;
        c.lx.epoch_start = None;
        c.lx.last_cwnd = 0;
        assert_eq!(c.linux_update(Time::from_millis(40), 75, 1), 20); // clamped: no W_max
    }

    #[test]
    fn linux_minimum_rtt_comes_from_every_ack_but_the_first_second_of_an_epoch() {
        // cubictcp_acked: in slow start too; not within HZ jiffies of an epoch's start
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 10, 100); // slow start
        c.on_ack(&mut cc, &ack(1, 1000, Some(30)));
        c.on_ack(&mut cc, &ack(1, 1000, Some(20)));
        c.on_ack(&mut cc, &ack(1, 1000, None));
        assert_eq!(c.lx.delay_min_us, 20_000);
        c.lx.epoch_start = Some(0);
        cc.now = Time::from_millis(999);
        c.on_ack(&mut cc, &ack(1, 1000, Some(10)));
        assert_eq!(c.lx.delay_min_us, 20_000); // right after the epoch began: discarded
        cc.now = Time::from_millis(1000);
        c.on_ack(&mut cc, &ack(1, 1000, Some(10)));
        assert_eq!(c.lx.delay_min_us, 10_000);
    }

    #[test]
    fn linux_reno_friendly_window_caps_cnt() {
        // on the plateau (cwnd = W_max, K = 0) the cubic target equals cwnd: cnt = 100 cwnd.
        // The Reno estimate leads after cwnd * 15 / 8 acknowledged segments (beta_scale = 15 for
        // beta = 717/1024): one segment ahead, cnt <= cwnd / (tcp_cwnd - cwnd)
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let w = 40;
        c.lx.last_max_cwnd = w;
        c.lx.delay_min_us = 10_000;
        assert_eq!(c.linux_update(Time::ZERO, w, 1), 100 * w);
        let delta = (w * 15) >> 3; // 75
        c.lx.last_cwnd = 0; // force the recomputation
        c.linux_update(Time::from_millis(8), w, delta);
        assert_eq!(c.lx.tcp_cwnd, w + 1);
        assert_eq!(c.lx.cnt, w); // cwnd / 1
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
    fn a_timeout_resets_w_max_in_both_profiles() {
        // Linux bictcp_reset at TCP_CA_Loss and ns-3 CubicReset at CA_LOSS: a fresh start
        for profile in [crate::cca::Profile::Linux, crate::cca::Profile::Ns3] {
            let mut c = Cubic::new(0.4, 0.7, false, true);
            let mut cc = state(1000, 100, 10);
            c.stack = profile;
            let ev = loss(CongestionKind::FastRetransmit, &cc);
            c.on_congestion_event(&mut cc, &ev);
            assert_eq!(c.w_max(), 100.0);
            let ev = CongestionEvent { kind: CongestionKind::Timeout, prior_cwnd: 100_000, bytes_in_flight: 90_000 };
            c.on_congestion_event(&mut cc, &ev);
            assert_eq!(c.w_max(), 0.0, "{profile:?}");
        }
    }

    #[test]
    fn ns3_profile_follows_ns3_tcp_cubic_update() {
        // W_max = 100 after a loss at 100 segments; cwnd 70, min RTT 10 ms. At the epoch start
        // t = 0.01 s, K = cbrt(30 / 0.4) = 4.217 s: delta = floor(0.4 * 4.207^3) = 29,
        // target = 100 - 29 = 71, cnt = 70 / (71 - 70) = 70 segments per increase.
        let mut c = Cubic::new(0.4, 0.7, false, true);
        let mut cc = state(1000, 100, 10);
        c.stack = crate::cca::Profile::Ns3;
        let ev = loss(CongestionKind::FastRetransmit, &cc);
        assert_eq!(c.ssthresh(&cc), 70_000);
        c.on_congestion_event(&mut cc, &ev);
        cc.cwnd = 70_000;
        cc.ssthresh = 70_000;
        c.on_ack(&mut cc, &ack(1, 1000, Some(10))); // PktsAcked: m_delayMin = 10 ms
        assert_eq!(c.ns.delay_min, Some(Dur::from_millis(10)));
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

    /// ns-3 TcpCubic's HyStart: the delay threshold is clamp(m_delayMin, 4 ms, 1000 ms), so with
    /// a 20 ms minimum slow start ends only when a round's first 8 smoothed RTTs all exceed
    /// 40 ms (Linux's 20 + clamp(20 / 8) = 24 ms would have ended it at 30 ms); once found, a
    /// later slow start (after a fast retransmit) is not cut short again.
    #[test]
    fn ns3_hystart_needs_twice_the_minimum_delay() {
        let mut c = Cubic::new(0.4, 0.7, true, true);
        let mut cc = state(1000, 20, u64::MAX / 1000);
        c.stack = crate::cca::Profile::Ns3;
        let send = |c: &mut Cubic, cc: &mut CcState, rtt_ms: u64| {
            cc.now += Dur::from_millis(5); // ACKs 5 ms apart: no ACK train
            cc.snd_una += 1000;
            cc.snd_nxt = cc.snd_una + cc.cwnd;
            let a = ack(1, 1000, Some(rtt_ms));
            c.on_ack(cc, &a);
            c.increase_window(cc, &a);
        };
        send(&mut c, &mut cc, 20); // the first round begins; m_delayMin = 20 ms
        for _ in 0..20 {
            send(&mut c, &mut cc, 30);
        }
        assert!(cc.in_slow_start(), "30 ms is below 20 + 20 ms");
        // the ACK that passes the round's end still counts in the old round (PktsAcked before
        // IncreaseWindow); the new round's first 8 delays are 41 ms, the 9th sample finds it
        cc.snd_una = cc.snd_nxt;
        for i in 0..10 {
            assert!(cc.in_slow_start(), "sample {i}");
            send(&mut c, &mut cc, 41);
        }
        assert!(!cc.in_slow_start());
        assert!(c.ns.found);
        // after a fast retransmit the next slow start is not cut by HyStart (m_found stays)
        cc.ssthresh = u64::MAX / 1000;
        cc.snd_una = cc.snd_nxt;
        for _ in 0..20 {
            send(&mut c, &mut cc, 60);
        }
        assert!(cc.in_slow_start());
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
            c.increase_window(&mut cc, &ack(1, 1000, Some(10))); // the epoch starts at 0
            cc.now = Time::from_millis(4300); // near K: the cubic target is well above cwnd
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
