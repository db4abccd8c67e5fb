//! BBR v1 (Cardwell et al., "BBR: congestion-based congestion control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), following Linux `tcp_bbr.c` where the draft
//! leaves room.
//!
//! - BtlBw: windowed maximum of delivery-rate samples over 10 round trips (app-limited samples
//!   only when they raise the maximum). RTprop: minimum RTT over 10 s.
//! - Startup: pacing and cwnd gain 2/ln 2 = 2.885; leaves when BtlBw has not grown by 25 % in
//!   3 consecutive rounds (the pipe is full). Drain: pacing gain ln 2 / 2 until in-flight <=
//!   BDP. ProbeBW: pacing gains cycle [1.25, 0.75, 1, 1, 1, 1, 1, 1], one phase per RTprop,
//!   cwnd gain 2. ProbeRTT: when RTprop is 10 s old, cwnd = 4 segments for 200 ms and one round.
//! - cwnd target = cwnd_gain * BtlBw * RTprop + 3 send quanta (Linux `bbr_quantization_budget`:
//!   a quantum is 1 ms at the pacing rate, 2 to 44 segments as `bbr_tso_segs_goal`), + 2
//!   segments in the probing phase; grows by the acknowledged bytes up to the target; at least
//!   4 segments. In the first round of recovery,
//!   packet conservation (cwnd >= in flight + acknowledged); the cwnd saved once when the
//!   episode began is restored after it (`bbr_save_cwnd`, `bbr_set_cwnd_to_recover_or_restore`).
//! - ProbeRTT asks the stack to mark the flight application-limited on entry and on every ACK
//!   in it (Linux `bbr_update_min_rtt` sets `tp->app_limited`), so its low-rate samples do not
//!   displace the bandwidth estimate: at short RTTs 200 ms of ProbeRTT spans the whole
//!   10-round window.
//! - Pacing rate = pacing_gain * BtlBw * 0.99; before the first sample, 2.885 * cwnd / SRTT.
//! - ProbeBW starts in a random phase of the gain cycle, drawn from the flow's seeded stream:
//!   `bbr_reset_probe_bw_mode` any phase but the probing one (index 7 - U{0..6}: 1..7).
//!
//! This is the `linux` profile's BBR. The `ns3` profile runs ns-3 3.37's `TcpBbr` instead
//! ([`super::ns3`]), whose filter, rate samples, recovery and ProbeRTT differ.

use super::{Deadline, Mode, ProbeRttTimer};
use crate::cca::{AckEvent, CaState, CcState, CongestionControl, RateSample};
use crate::time::{Bandwidth, Dur, Time};
use std::collections::VecDeque;


/// 2 / ln 2: the smallest gain that doubles the delivery rate each round (draft 4.3.2).
pub const HIGH_GAIN: f64 = 2.885;
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const BTLBW_ROUNDS: u64 = 10;
const RTPROP_WINDOW: Dur = Dur::from_secs(10);
const MIN_CWND_SEGMENTS: u64 = 4;
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
const PACING_MARGIN: f64 = 0.99;


/// Windowed maximum over the last `window` rounds (monotonic deque: exact).
#[derive(Default)]
struct MaxFilter {
    q: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    fn update(&mut self, round: u64, v: f64, window: u64) {
        while self.q.back().is_some_and(|&(_, x)| x <= v) {
            self.q.pop_back();
        }
        self.q.push_back((round, v));
        while self.q.front().is_some_and(|&(r, _)| r + window <= round) {
            self.q.pop_front();
        }
    }
    fn get(&self) -> f64 {
        self.q.front().map_or(0.0, |&(_, v)| v)
    }
}

pub struct Bbr {
    mode: Mode,
    btlbw: MaxFilter,
    rt_prop: Option<Dur>,
    rt_prop_stamp: Time,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw: f64,
    full_bw_cnt: u32,
    filled_pipe: bool,
    cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt: ProbeRttTimer,
    prior_cwnd: u64,
    last_cwnd: u64,
    packet_conservation: bool,
    entering_recovery: bool,
    restore_cwnd: bool,
    /// Mark the ProbeRTT flight application-limited (Linux `bbr_update_min_rtt`); off
    /// reproduces ns-3 3.37's TcpBbr (the `probe_rtt_app_limited` parameter).
    pub(super) probe_rtt_app_limited: bool,
}

impl Default for Bbr {
    fn default() -> Self {
        Self::new()
    }
}

impl Bbr {
    pub fn new() -> Self {
        Bbr {
            mode: Mode::Startup,
            btlbw: MaxFilter::default(),
            rt_prop: None,
            rt_prop_stamp: Time::ZERO,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: 0.0,
            full_bw_cnt: 0,
            filled_pipe: false,
            cycle_index: 2,
            cycle_stamp: Time::ZERO,
            probe_rtt: ProbeRttTimer::default(),
            prior_cwnd: 0,
            last_cwnd: 0,
            packet_conservation: false,
            entering_recovery: false,
            restore_cwnd: false,
            probe_rtt_app_limited: true,
        }
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// BtlBw in bytes per second.
    pub fn btlbw(&self) -> f64 {
        self.btlbw.get()
    }
    pub fn rt_prop(&self) -> Option<Dur> {
        self.rt_prop
    }
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// BDP times `gain`, bytes (draft 4.2.3.2); the initial window when no model exists yet.
    fn inflight(&self, cc: &CcState, gain: f64) -> u64 {
        match self.rt_prop {
            Some(rt) if self.btlbw() > 0.0 => (gain * self.btlbw() * rt.secs_f64()) as u64,
            _ => cc.initial_cwnd,
        }
    }

    fn enter_probe_bw(&mut self, cc: &mut CcState) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = 2.0;
        // CYCLE_LEN - 1 - get_random_u32_below(bbr_cycle_rand = 7)
        self.cycle_index = CYCLE.len() - 1 - cc.rng.below(7) as usize;
        self.cycle_stamp = cc.now;
        self.pacing_gain = CYCLE[self.cycle_index];
    }

    fn update_round(&mut self, cc: &CcState, rs: &RateSample) {
        self.round_start = false;
        if rs.acked_sacked > 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = cc.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
    }

    fn update_btlbw(&mut self, rs: &RateSample) {
        if !rs.valid {
            return;
        }
        let bw = rs.delivery_rate().as_bps() as f64 / 8.0;
        if !rs.is_app_limited || bw >= self.btlbw() {
            self.btlbw.update(self.round_count, bw, BTLBW_ROUNDS);
        }
    }

    fn update_cycle_phase(&mut self, cc: &CcState, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.rt_prop.is_some_and(|rt| cc.now - self.cycle_stamp > rt);
        let advance = if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (rs.newly_lost > 0 || rs.prior_in_flight >= self.inflight(cc, self.pacing_gain))
        } else {
            full_length || rs.prior_in_flight <= self.inflight(cc, 1.0)
        };
        if advance {
            self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
            self.cycle_stamp = cc.now;
            self.pacing_gain = CYCLE[self.cycle_index];
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.btlbw() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.btlbw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        if self.full_bw_cnt >= FULL_BW_ROUNDS {
            self.filled_pipe = true;
        }
    }

    fn check_drain(&mut self, cc: &mut CcState) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == Mode::Drain && cc.bytes_in_flight <= self.inflight(cc, 1.0) {
            self.enter_probe_bw(cc);
        }
    }

    fn update_min_rtt(&mut self, cc: &mut CcState, rs: &RateSample) {
        let expired = cc.now > self.rt_prop_stamp + RTPROP_WINDOW;
        if let Some(rtt) = rs.rtt {
            if self.rt_prop.is_none_or(|m| rtt < m) || expired {
                self.rt_prop = Some(rtt);
                self.rt_prop_stamp = cc.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.rt_prop.is_some() {
            self.save_cwnd(cc.state, cc.cwnd);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt.reset();
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low rate samples during this mode (Linux: tp->app_limited = ...; ns-3
            // 3.37 writes TcpBbr::m_appLimited, which its rate sampler never reads).
            cc.request_app_limited = self.probe_rtt_app_limited;
            let drained = cc.bytes_in_flight <= MIN_CWND_SEGMENTS * cc.mss;
            let (round, delivered) = (self.round_start, cc.delivered);
            if self.probe_rtt.on_ack(cc.now, drained, round, delivered, &mut self.next_round_delivered, Deadline::AtOrAfter) {
                self.rt_prop_stamp = cc.now;
                cc.cwnd = cc.cwnd.max(self.prior_cwnd);
                self.prior_cwnd = 0;
                if self.filled_pipe {
                    self.enter_probe_bw(cc);
                } else {
                    self.mode = Mode::Startup;
                    self.pacing_gain = HIGH_GAIN;
                    self.cwnd_gain = HIGH_GAIN;
                }
            }
        }
    }

    fn set_pacing_rate(&mut self, cc: &mut CcState) {
        let bw = self.btlbw();
        let rate = if bw > 0.0 {
            // 1 % below the estimate (bbr_pacing_margin_percent)
            self.pacing_gain * bw * PACING_MARGIN
        } else {
            let srtt = cc.srtt.map_or(1e-3, |d| d.secs_f64().max(1e-6));
            HIGH_GAIN * cc.cwnd as f64 / srtt
        };
        let r = Bandwidth((rate * 8.0) as u64);
        if self.filled_pipe || cc.pacing_rate.is_none_or(|cur| r > cur) {
            cc.pacing_rate = Some(r);
        }
    }

    /// Linux `bbr_save_cwnd`: the window to restore after recovery or ProbeRTT, taken once at
    /// the start of the episode (later calls in it only raise it).
    /// `state` is the congestion state before the episode, `cwnd` the window then.
    fn save_cwnd(&mut self, state: CaState, cwnd: u64) {
        if state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// Linux `bbr_tso_segs_goal`: one send quantum, 1 ms at the pacing rate, in bytes: at least
    /// 2 segments (1 below 1.2 Mb/s), at most 64 KB.
    fn send_quantum(cc: &CcState) -> u64 {
        let rate_bytes = cc.pacing_rate.map_or(0, |r| r.as_bps() / 8);
        let min_segs = if rate_bytes * 8 >= 1_200_000 { 2 } else { 1 };
        let bytes = (rate_bytes >> 10).min(65_536 - 1 - 320); // sk_pacing_shift = 10
        (bytes / cc.mss).clamp(min_segs, 127) * cc.mss
    }

    fn set_cwnd(&mut self, cc: &mut CcState, rs: &RateSample) {
        let acked = rs.acked_sacked;
        let mss = cc.mss;
        if self.entering_recovery {
            // packet conservation for the first round of recovery
            self.entering_recovery = false;
            self.packet_conservation = true;
            self.next_round_delivered = cc.delivered;
            cc.cwnd = rs.in_flight + acked;
        } else if self.restore_cwnd {
            self.restore_cwnd = false;
            cc.cwnd = cc.cwnd.max(self.prior_cwnd);
        }
        if self.packet_conservation {
            cc.cwnd = cc.cwnd.max(rs.in_flight + acked);
        } else if acked > 0 {
            let mut target = self.inflight(cc, self.cwnd_gain) + 3 * Self::send_quantum(cc);
            if self.mode == Mode::ProbeBw && self.pacing_gain > 1.0 {
                target += 2 * mss; // bbr_quantization_budget: probe a little harder
            }
            if self.filled_pipe {
                cc.cwnd = (cc.cwnd + acked).min(target);
            } else if cc.cwnd < target || cc.delivered < cc.initial_cwnd {
                cc.cwnd += acked;
            }
        }
        cc.cwnd = cc.cwnd.max(MIN_CWND_SEGMENTS * mss);
        if self.mode == Mode::ProbeRtt {
            cc.cwnd = cc.cwnd.min(MIN_CWND_SEGMENTS * mss);
        }
        self.last_cwnd = cc.cwnd;
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn init(&mut self, cc: &mut CcState) {
        self.rt_prop_stamp = cc.now;
        self.last_cwnd = cc.cwnd;
        self.set_pacing_rate(cc);
    }
    fn increase_window(&mut self, _cc: &mut CcState, _ack: &AckEvent) {}
    fn ssthresh(&self, cc: &CcState) -> u64 {
        cc.ssthresh // BBR does not use ssthresh (Linux bbr_ssthresh keeps it)
    }
    fn on_state_change(&mut self, cc: &mut CcState, from: CaState) {
        let to = cc.state;
        if to >= CaState::Recovery && from < CaState::Recovery {
            // save the window to restore after the episode (Linux bbr_ssthresh -> bbr_save_cwnd,
            // with the state before the episode)
            self.save_cwnd(from, self.last_cwnd);
            if to == CaState::Recovery {
                self.entering_recovery = true;
            } else {
                // timeout: the model says the pipe may be empty; restart the round
                self.full_bw = 0.0;
                self.round_start = true;
            }
        } else if from >= CaState::Recovery && to < CaState::Recovery {
            self.restore_cwnd = true;
            self.packet_conservation = false;
        }
    }
    fn on_rate_sample(&mut self, cc: &mut CcState, rs: &RateSample) {
        self.update_round(cc, rs);
        self.update_btlbw(rs);
        self.update_cycle_phase(cc, rs);
        self.check_full_pipe(rs);
        self.check_drain(cc);
        self.update_min_rtt(cc, rs);
        self.set_pacing_rate(cc);
        self.set_cwnd(cc, rs);
    }
    fn controls_window(&self) -> bool {
        true
    }
    /// Linux `bbr_undo_cwnd`: the pipe may not be full after all (full_bw and its count start
    /// over); cwnd itself is BBR's and stays.
    fn undo_cwnd(&mut self, cc: &mut CcState, _prior_cwnd: u64) -> u64 {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        cc.cwnd
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("probe_rtt_app_limited", if self.probe_rtt_app_limited { 1.0 } else { 0.0 })]
    }
}

#[cfg(test)]
mod tests {
    use crate::cca::testing::state;
    use super::*;

    /// The ProbeBW start phase is drawn from the flow's stream: any of 1..7 (never the
    /// probing phase 0); one seed, one phase.
    #[test]
    fn probe_bw_starts_in_a_seeded_random_phase() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut cc = state(1448, 100, 1000);
            cc.rng = crate::rng::Rng::stream(seed, "flow/0/cca");
            let mut b = Bbr::new();
            b.enter_probe_bw(&mut cc);
            seen.insert(b.cycle_index);
            let mut again = Bbr::new();
            cc.rng = crate::rng::Rng::stream(seed, "flow/0/cca");
            again.enter_probe_bw(&mut cc);
            assert_eq!(again.cycle_index, b.cycle_index);
            assert_eq!(b.pacing_gain, CYCLE[b.cycle_index]);
        }
        assert_eq!(seen, (1..=7usize).collect());
    }

    /// A fake path: every call is one round trip delivering `bw` bytes/s for `rtt`.
    struct Driver {
        cc: CcState,
        bbr: Bbr,
    }

    impl Driver {
        fn new() -> Self {
            let mut cc = state(1000, 10, u64::MAX / 1000);
            cc.ssthresh = u64::MAX;
            let mut bbr = Bbr::new();
            bbr.init(&mut cc);
            Driver { cc, bbr }
        }
        fn round(&mut self, bw: f64, rtt_ms: u64, inflight: u64) {
            let rtt = Dur::from_millis(rtt_ms);
            let delivered = (bw * rtt.secs_f64()) as u64;
            let rs = RateSample {
                delivered,
                interval: rtt,
                prior_delivered: self.cc.delivered,
                is_app_limited: false,
                rtt: Some(rtt),
                acked_sacked: delivered,
                newly_lost: 0,
                prior_in_flight: inflight,
                in_flight: inflight,
                valid: true,
                timed: true,
                ns3_rate: None,
            };
            self.cc.now += rtt;
            self.cc.delivered += delivered;
            self.cc.bytes_in_flight = inflight;
            self.bbr.on_rate_sample(&mut self.cc, &rs);
        }
    }

    #[test]
    fn startup_exits_after_three_rounds_without_25_percent_growth() {
        let mut d = Driver::new();
        // bandwidth doubles for 4 rounds, then stays at 12.5 MB/s
        for bw in [1e6, 2e6, 4e6, 8e6, 12.5e6] {
            d.round(bw, 20, 10_000);
            assert_eq!(d.bbr.mode(), Mode::Startup);
        }
        d.round(12.5e6, 20, 10_000_000); // 1st round without growth
        d.round(12.5e6, 20, 10_000_000); // 2nd
        assert_eq!(d.bbr.mode(), Mode::Startup);
        d.round(12.5e6, 20, 10_000_000); // 3rd: pipe full -> Drain (in-flight above BDP)
        assert!(d.bbr.filled_pipe());
        assert_eq!(d.bbr.mode(), Mode::Drain);
        // in-flight drops to the BDP (12.5 MB/s * 20 ms = 250 kB): ProbeBW
        d.round(12.5e6, 20, 250_000);
        assert_eq!(d.bbr.mode(), Mode::ProbeBw);
    }

    #[test]
    fn probe_rtt_every_10_s_for_200_ms_at_4_packets() {
        let mut d = Driver::new();
        d.round(1e6, 20, 250_000);
        let start = d.cc.now; // RTprop (20 ms) measured now; never lower afterwards
        for bw in [2e6, 4e6, 8e6, 12.5e6, 12.5e6, 12.5e6, 12.5e6] {
            d.round(bw, 20, 250_000);
        }
        assert_eq!(d.bbr.mode(), Mode::ProbeBw);
        // RTT samples stay above RTprop (a standing queue): after 10 s RTprop expires
        while d.bbr.mode() != Mode::ProbeRtt {
            d.round(12.5e6, 25, 250_000);
            assert!(d.cc.now - start < Dur::from_millis(10_100), "no ProbeRTT after 10 s");
        }
        let entered = d.cc.now;
        assert!(entered - start >= Dur::from_secs(10), "{}", entered - start);
        d.round(12.5e6, 20, 3_000); // in-flight drained to <= 4 packets
        assert_eq!(d.cc.cwnd, 4 * 1000);
        let mut t = d.cc.now;
        while d.bbr.mode() == Mode::ProbeRtt {
            d.round(12.5e6, 20, 3_000);
            assert_eq!(d.cc.cwnd.min(4000), 4000);
            t = d.cc.now;
            assert!(t - entered < Dur::from_millis(300));
        }
        // left after 200 ms (plus a round), back to ProbeBW with the saved window
        assert!(t - entered >= Dur::from_millis(200));
        assert_eq!(d.bbr.mode(), Mode::ProbeBw);
        assert!(d.cc.cwnd > 4 * 1000);
    }

    #[test]
    fn probe_bw_cycles_its_gains() {
        let mut d = Driver::new();
        for bw in [1e6, 2e6, 4e6, 8e6, 12.5e6, 12.5e6, 12.5e6, 12.5e6, 12.5e6] {
            d.round(bw, 20, 250_000);
        }
        let mut gains = vec![];
        for _ in 0..16 {
            // the path answers the pacing gain: in-flight = gain * BDP (250 kB)
            let inflight = (d.bbr.pacing_gain * 250_000.0) as u64;
            d.round(12.5e6, 21, inflight);
            gains.push(d.bbr.pacing_gain);
        }
        // one full cycle: 6 cruising phases, a probe at 1.25, a drain at 0.75, one RTprop each
        assert!(gains.contains(&1.25) && gains.contains(&0.75), "{gains:?}");
        let probe = gains.iter().position(|&g| g == 1.25).unwrap();
        assert_eq!(gains[probe + 1], 0.75, "{gains:?}");
    }
}
