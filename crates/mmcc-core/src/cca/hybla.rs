//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! Int. J. Satellite Communications and Networking 22, 2004).
//!
//! `rho = max(RTT / RTT0, 1)`, with RTT the connection's minimum RTT (ns-3
//! `TcpHybla::PktsAcked`). Slow start: cwnd += 2^rho - 1, not beyond ssthresh; congestion
//! avoidance: cwnd += rho^2 / cwnd. Loss: Reno (ssthresh = max(flight/2, 2 MSS)).
//!
//! Per profile, as the references differ:
//! - `ns3` (`TcpHybla`): RTT0 = 50 ms (attribute `RRTT`); the slow-start increment once per
//!   ACK (`SlowStart` returns after one), the congestion-avoidance one per acknowledged segment,
//!   added to cwnd in whole segments;
//! - `linux` (`tcp_hybla.c`): RTT0 = 25 ms (`rtt0`, the paper's value); both increments once
//!   per ACK (`hybla_cong_avoid` does not look at the acknowledged count).
//!
//! A given `rtt0_ms` overrides the profile's.

use super::util::{add_segments, half_flight, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "hybla",
    aliases: &["tcp-hybla"],
    source: "Caini & Firrincieli, IJSCN 22 (2004) (ns-3 TcpHybla)",
    params: &[ParamSpec {
        name: "rtt0_ms",
        default: 25.0,
        min: 0.001, max: 10000.0, help: "reference RTT RTT0 in ms; default 25 (Linux, the paper), 50 in the ns3 profile (ns-3 RRTT)",
    }],
    build: |p: &Params| Box::new(Hybla { stack: p.profile, rtt0_s: p.given("rtt0_ms").map(|v| v.max(1e-3) / 1e3), rho: 1.0, acc: FracAcc::default(), cnt: 0.0 }),
};

pub struct Hybla {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    /// None: the profile's RTT0.
    rtt0_s: Option<f64>,
    rho: f64,
    acc: FracAcc,
    /// ns-3 m_cWndCnt: fractional segments of congestion-avoidance growth not yet applied.
    cnt: f64,
}

impl Hybla {
    pub fn new(rtt0_ms: f64) -> Self {
        Hybla { stack: Profile::Linux, rtt0_s: Some(rtt0_ms.max(1e-3) / 1e3), rho: 1.0, acc: FracAcc::default(), cnt: 0.0 }
    }
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }
    fn on_ack(&mut self, cc: &mut CcState, _ack: &AckEvent) {
        let rtt0 = self.rtt0_s.unwrap_or(if self.stack.is_ns3() { 0.050 } else { 0.025 });
        if let Some(m) = cc.min_rtt {
            self.rho = (m.secs_f64() / rtt0).max(1.0); // rho = RTT / RTT0, at least 1
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let mut segs = ack.segments_acked;
        if segs == 0 {
            return;
        }
        if cc.in_slow_start() {
            // SS: cwnd += 2^rho - 1 once per ACK, not beyond ssthresh
            let inc = 2f64.powf(self.rho) - 1.0;
            if self.stack.is_ns3() {
                cc.cwnd = (cc.cwnd + (inc * cc.mss as f64) as u64).min(cc.ssthresh.max(cc.mss));
                segs -= 1; // TcpHybla::SlowStart returns segmentsAcked - 1
            } else {
                add_segments(&mut self.acc, cc, inc);
                cc.cwnd = cc.cwnd.min(cc.ssthresh.max(cc.mss));
                return;
            }
        }
        if cc.in_slow_start() || segs == 0 {
            return;
        }
        if self.stack.is_ns3() {
            // CA: rho^2 / cwnd per acknowledged segment, applied in whole segments
            for _ in 0..segs {
                self.cnt += self.rho * self.rho / (cc.cwnd / cc.mss).max(1) as f64;
            }
            if self.cnt >= 1.0 {
                let inc = self.cnt.floor();
                self.cnt -= inc;
                cc.cwnd += inc as u64 * cc.mss;
            }
        } else {
            let w = cc.cwnd_segments();
            add_segments(&mut self.acc, cc, self.rho * self.rho / w); // CA: rho^2 / cwnd per ACK
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        half_flight(self.stack, cc)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;
    use crate::time::Dur;

    #[test]
    fn rho_scales_growth_by_rtt() {
        let mut h = Hybla::new(25.0);
        let mut cc = state(1000, 10, 1000);
        cc.min_rtt = Some(Dur::from_millis(50));
        h.on_ack(&mut cc, &ack(1, 1000, Some(50)));
        assert_eq!(h.rho(), 2.0);
        h.increase_window(&mut cc, &ack(1, 1000, Some(50)));
        assert_eq!(cc.cwnd, 10_000 + 3000); // 2^2 - 1 = 3 segments
        let mut cc = state(1000, 100, 10);
        h.increase_window(&mut cc, &ack(1, 1000, None));
        assert_eq!(cc.cwnd, 100_000 + 40); // rho^2 / cwnd = 4 / 100 segment
    }

    #[test]
    fn ns3_profile_uses_rtt0_50ms_and_whole_segments() {
        let mut h = Hybla { stack: crate::cca::Profile::Ns3, rtt0_s: None, rho: 1.0, acc: FracAcc::default(), cnt: 0.0 };
        let mut cc = state(1000, 10, 1000);
        cc.min_rtt = Some(Dur::from_millis(100));
        h.on_ack(&mut cc, &ack(2, 1000, Some(100)));
        assert_eq!(h.rho(), 2.0); // 100 ms / 50 ms
        h.increase_window(&mut cc, &ack(2, 1000, Some(100)));
        assert_eq!(cc.cwnd, 13_000, "2^2 - 1 = 3 segments once per ACK");
        // CA at 100 segments: 4/100 per segment, a whole segment after 25 segments
        let mut cc = state(1000, 100, 10);
        for _ in 0..12 {
            h.increase_window(&mut cc, &ack(2, 1000, None));
        }
        assert_eq!(cc.cwnd, 100_000);
        h.increase_window(&mut cc, &ack(2, 1000, None));
        assert_eq!(cc.cwnd, 101_000);
    }

    #[test]
    fn short_rtts_behave_like_reno() {
        let mut h = Hybla::new(25.0);
        let mut cc = state(1000, 100, 10);
        cc.min_rtt = Some(Dur::from_millis(5));
        h.on_ack(&mut cc, &ack(1, 1000, Some(5)));
        assert_eq!(h.rho(), 1.0);
    }
}
