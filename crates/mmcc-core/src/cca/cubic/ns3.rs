//! The `ns3` profile's CUBIC: ns-3 3.37's `TcpCubic` (`Update`, its HyStart on the smoothed RTT;
//! see the parent module).

use super::*;

/// ns-3 TcpCubic: HyStartDelayMax and CubicDelta (delay samples within it of an epoch's start
/// are discarded).
pub(super) const NS3_HYSTART_DELAY_MAX: Dur = Dur::from_millis(1000);
pub(super) const NS3_CUBIC_DELTA: Dur = Dur::from_millis(10);

/// ns-3 3.37 `TcpCubic`'s minimum delay and HyStart flag (the `ns3` profile; its HyStart round
/// is the shared one of [`Cubic`]), fed by `PktsAcked` with the smoothed RTT.
#[derive(Clone, Debug, Default)]
pub(super) struct Ns3State {
    /// m_delayMin: the minimum of the smoothed RTTs, reset by a timeout.
    pub(super) delay_min: Option<Dur>,
    /// m_found: HyStart has ended a slow start; it does not run again before a timeout.
    pub(super) found: bool,
}

impl Cubic {
    /// ns-3 3.37 `TcpCubic::Update` (the `ns3` profile): the number of acknowledged segments
    /// per one-segment increase, from the cubic target in whole segments (BIC-style, integer
    /// arithmetic), with no Reno-friendly region (RFC 9438 section 4.3 is not in ns-3 3.37):
    /// target = origin +- floor(C |t - K|^3), t = now + min RTT - epoch start;
    /// cnt = cwnd / (target - cwnd), or 100 cwnd at or above the target; at least 2; at most
    /// 20 before the first loss (m_cntClamp).
    pub(super) fn ns3_update(&mut self, cc: &CcState) -> u64 {
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
        let delay_min = self.ns.delay_min.map_or(0.0, |d| d.secs_f64()); // m_delayMin
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

    /// ns-3 `TcpCubic::HystartUpdate` with the smoothed RTT `delay`: an ACK train longer than
    /// m_delayMin (not half of it), or a round whose first 8 delays exceed m_delayMin by
    /// clamp(m_delayMin, 4 ms, 1000 ms) (`HystartDelayThresh` clamps the delay itself, not an
    /// eighth of it), ends slow start; once found, never again before a timeout.
    pub(super) fn ns3_hystart_update(&mut self, cc: &mut CcState, delay: Dur) {
        if self.ns.found {
            return;
        }
        let delay_min = self.ns.delay_min.unwrap_or(delay);
        let train = self.train_lasted(cc.now, delay_min, true);
        let thresh = delay_min.max(HYSTART_DELAY_MIN).min(NS3_HYSTART_DELAY_MAX);
        if self.delay_increased(delay, delay_min, thresh) || train {
            self.ns.found = true;
            cc.ssthresh = cc.cwnd;
        }
    }
}
