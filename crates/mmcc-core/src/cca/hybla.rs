//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! Int. J. Satellite Communications and Networking 22, 2004).
//!
//! `rho = max(RTT / RTT0, 1)`, RTT0 = 25 ms, with RTT the connection's minimum RTT (ns-3
//! `TcpHybla::PktsAcked`). Slow start: cwnd += 2^rho - 1 per acknowledged segment; congestion
//! avoidance: cwnd += rho^2 / cwnd per acknowledged segment (ns-3 applies both per segment, and
//! benchmarks behave as ns-3). Loss: Reno (ssthresh = max(flight/2, 2 MSS)).

use super::util::{add_segments, half_flight, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "hybla",
    aliases: &["tcp-hybla"],
    source: "Caini & Firrincieli, IJSCN 22 (2004) (ns-3 TcpHybla)",
    params: &[ParamSpec { name: "rtt0_ms", default: 25.0, help: "reference RTT RTT0 in ms" }],
    build: |p: &Params| Box::new(Hybla::new(p.get("rtt0_ms"))),
};

pub struct Hybla {
    rtt0_s: f64,
    rho: f64,
    acc: FracAcc,
}

impl Hybla {
    pub fn new(rtt0_ms: f64) -> Self {
        Hybla { rtt0_s: rtt0_ms.max(1e-3) / 1e3, rho: 1.0, acc: FracAcc::default() }
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
        if let Some(m) = cc.min_rtt {
            self.rho = (m.secs_f64() / self.rtt0_s).max(1.0); // rho = RTT / RTT0, at least 1
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        for _ in 0..ack.segments_acked {
            if cc.in_slow_start() {
                // SS: cwnd += 2^rho - 1 per segment, not beyond ssthresh
                let inc = 2f64.powf(self.rho) - 1.0;
                add_segments(&mut self.acc, cc, inc);
                cc.cwnd = cc.cwnd.min(cc.ssthresh.max(cc.mss));
            } else {
                let w = cc.cwnd_segments();
                add_segments(&mut self.acc, cc, self.rho * self.rho / w); // CA: rho^2 / cwnd
            }
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        half_flight(cc)
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
    fn short_rtts_behave_like_reno() {
        let mut h = Hybla::new(25.0);
        let mut cc = state(1000, 100, 10);
        cc.min_rtt = Some(Dur::from_millis(5));
        h.on_ack(&mut cc, &ack(1, 1000, Some(5)));
        assert_eq!(h.rho(), 1.0);
    }
}
