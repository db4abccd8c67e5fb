//! BIC-TCP (Xu, Harfoush & Rhee, "Binary increase congestion control for fast, long distance
//! networks", INFOCOM 2004), as ns-3's `TcpBic` (beta 0.8, max increment 16, low window 14,
//! smooth part 5, binary search coefficient B = 4, fast convergence).
//!
//! Per ACK the window grows by 1/cnt segment, cnt chosen by the distance to `last_max`:
//! below it, binary search (`dist = (last_max - cwnd) / B`; `cnt = cwnd / dist`, at most
//! `max_incr` per RTT, `cwnd * smooth / B` when within one segment); above it, slow max probing,
//! then linear at `max_incr`. Windows below `low_window` use Reno. Loss: `last_max =
//! beta * cwnd` with fast convergence when cwnd < last_max, else cwnd;
//! ssthresh = max(beta * cwnd, 2) (cwnd/2 below low_window).
//!
//! The `ns3` profile follows `TcpBic` to the integer: cnt is computed in whole segments with
//! integer divisions (`TcpBic::Update`), the acknowledged segments are counted and one segment
//! is added when the count exceeds cnt (then the count restarts from 0), and W_max and
//! ssthresh are whole segments. The `linux` profile keeps the fractional form.

use super::util::{add_segments, half_flight, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bic",
    aliases: &["bic-tcp", "tcp-bic"],
    source: "Xu, Harfoush & Rhee, INFOCOM 2004 (ns-3 TcpBic)",
    params: &[
        ParamSpec { name: "beta", default: 0.8, min: 0.0, max: 1.0, help: "multiplicative decrease factor" },
        ParamSpec { name: "max_incr", default: 16.0, min: 1.0, max: 1000000.0, help: "largest increase per RTT (segments)" },
        ParamSpec { name: "low_window", default: 14.0, min: 0.0, max: 1000000.0, help: "below this, Reno (segments)" },
        ParamSpec { name: "smooth_part", default: 5.0, min: 1.0, max: 1000000.0, help: "smoothing near last_max" },
        ParamSpec { name: "b", default: 4.0, min: 1.0, max: 1000.0, help: "binary search coefficient" },
    ],
    build: |p: &Params| {
        Box::new(Bic {
            stack: p.profile,
            beta: p.get("beta"),
            max_incr: p.get("max_incr"),
            low_window: p.get("low_window"),
            smooth_part: p.get("smooth_part"),
            b: p.get("b").max(1.0),
            last_max: 0.0,
            acc: FracAcc::default(),
            cwnd_cnt: 0,
        })
    },
};

pub struct Bic {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    beta: f64,
    max_incr: f64,
    low_window: f64,
    smooth_part: f64,
    b: f64,
    last_max: f64,
    acc: FracAcc,
    /// ns-3 m_cWndCnt.
    cwnd_cnt: u64,
}

impl Bic {
    /// Segments acknowledged per one-segment increase (ns-3 `TcpBic::Update`).
    pub fn cnt(&self, w: f64) -> f64 {
        let cnt = if w < self.low_window {
            w
        } else if w < self.last_max {
            let dist = (self.last_max - w) / self.b; // binary search
            if dist > self.max_incr {
                w / self.max_incr
            } else if dist <= 1.0 {
                w * self.smooth_part / self.b
            } else {
                w / dist
            }
        } else if w < self.last_max + self.b {
            w * self.smooth_part / self.b // slow start of max probing
        } else if w < self.last_max + self.max_incr * (self.b - 1.0) {
            w * (self.b - 1.0) / (w - self.last_max)
        } else {
            w / self.max_incr // linear
        };
        let cnt = if self.last_max == 0.0 { cnt.min(20.0) } else { cnt };
        cnt.max(1.0)
    }
}

impl Bic {
    /// ns-3 3.37 `TcpBic::Update` in its integer arithmetic (uint32 windows and parameters).
    pub fn cnt_ns3(&self, seg: u64) -> u64 {
        let (b, max_incr, smooth) = (self.b as u64, self.max_incr as u64, self.smooth_part as u64);
        let last_max = self.last_max as u64;
        let mut cnt = if seg < self.low_window as u64 {
            seg
        } else if seg < last_max {
            let dist = ((last_max - seg) / b) as f64; // integer division, then double
            if dist > max_incr as f64 {
                seg / max_incr
            } else if dist <= 1.0 {
                seg * smooth / b
            } else {
                (seg as f64 / dist) as u64
            }
        } else if seg < last_max + b {
            seg * smooth / b
        } else if seg < last_max + max_incr * (b - 1) {
            seg * (b - 1) / (seg - last_max)
        } else {
            seg / max_incr
        };
        if last_max == 0 && cnt > 20 {
            cnt = 20;
        }
        cnt.max(1)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if self.stack.is_ns3() {
            // ns-3 3.37 TcpBic::IncreaseWindow, in its uint32 arithmetic: below ssthresh one
            // segment per call whatever was acknowledged (also for the ACK that leaves CA_LOSS
            // with nothing above the recovery point, segmentsAcked 0, which then wraps)
            let mut segs = ack.segments_acked;
            if cc.cwnd < cc.ssthresh {
                cc.cwnd += cc.mss;
                segs = segs.wrapping_sub(1);
            }
            if cc.cwnd >= cc.ssthresh && segs > 0 {
                // one segment once the count exceeds cnt
                self.cwnd_cnt = (self.cwnd_cnt as u32).wrapping_add(segs) as u64;
                if self.cwnd_cnt > self.cnt_ns3(cc.cwnd / cc.mss) {
                    cc.cwnd += cc.mss;
                    self.cwnd_cnt = 0;
                }
            }
            return;
        }
        if slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            let cnt = self.cnt(cc.cwnd_segments());
            add_segments(&mut self.acc, cc, ack.segments_acked as f64 / cnt);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        let w = cc.cwnd_segments();
        if w < self.low_window {
            return half_flight(self.stack, cc);
        }
        if self.stack.is_ns3() {
            // TcpBic::GetSsThresh: max(segCwnd * beta, 2) segments, truncated to bytes
            return (((cc.cwnd / cc.mss) as f64 * self.beta).max(2.0) * cc.mss as f64) as u64;
        }
        ((cc.cwnd as f64 * self.beta) as u64).max(cc.min_ssthresh())
    }
    fn on_congestion_event(&mut self, cc: &mut CcState, ev: &CongestionEvent) {
        let w = ev.prior_cwnd as f64 / cc.mss as f64; // the window before the event
        if self.stack.is_ns3() {
            // TcpBic::GetSsThresh: whole segments (uint32 m_lastMaxCwnd)
            let w = w.floor();
            self.last_max = if w < self.last_max { (self.beta * w).floor() } else { w };
            return;
        }
        // fast convergence (ns-3): release bandwidth to new flows
        self.last_max = if w < self.last_max { self.beta * w } else { w };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bic(last_max: f64) -> Bic {
        Bic { stack: Profile::Linux, beta: 0.8, max_incr: 16.0, low_window: 14.0, smooth_part: 5.0, b: 4.0, last_max, acc: FracAcc::default(), cwnd_cnt: 0 }
    }

    #[test]
    fn ns3_cnt_uses_integer_arithmetic() {
        let b = bic(1000.0);
        // dist = (1000 - 990) / 4 = 2 (integer), cnt = 990 / 2 = 495
        assert_eq!(b.cnt_ns3(990), 495);
        // dist = (1000 - 997) / 4 = 0 -> smooth: 997 * 5 / 4 = 1246
        assert_eq!(b.cnt_ns3(997), 1246);
        // far below: 500 / 16 = 31
        assert_eq!(b.cnt_ns3(500), 31);
        // before any loss: at most 20
        assert_eq!(bic(0.0).cnt_ns3(500), 20);
        // one segment after cnt + 1 acknowledged segments, the count restarts
        let mut x = bic(1000.0);
        let mut cc = crate::cca::testing::state(1000, 500, 10);
        x.stack = crate::cca::Profile::Ns3;
        for i in 0..32 {
            x.increase_window(&mut cc, &crate::cca::testing::ack(1, 1000, None));
            assert_eq!(cc.cwnd, if i < 31 { 500_000 } else { 501_000 }, "ack {i}");
        }
    }

    #[test]
    fn binary_search_steps_towards_last_max() {
        let b = bic(1000.0);
        // far below: dist = (1000 - 500)/4 = 125 > 16 -> linear at 16 per RTT
        assert_eq!(b.cnt(500.0), 500.0 / 16.0);
        // closer: dist = (1000 - 960)/4 = 10 -> cnt = 96 (10 segments per RTT)
        assert_eq!(b.cnt(960.0), 96.0);
        // within one: smooth
        assert_eq!(b.cnt(998.0), 998.0 * 5.0 / 4.0);
        // just above: max probing starts slowly
        assert_eq!(b.cnt(1002.0), 1002.0 * 5.0 / 4.0);
    }
}
