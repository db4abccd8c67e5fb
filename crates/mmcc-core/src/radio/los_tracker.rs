//! ns3-mmwave's obstacle channel (`pathloss = "buildings-obstacle"`): the path loss of
//! `BuildingsObstaclePropagationLossModel` with the LoS tracker the mmWave helper attaches to
//! it (`MmWaveLosTracker`), as in ns3-mmwave before June 2020 (the class was removed from
//! ns3-mmwave in commit b06eeb48, 2020-06-03; the thesis' simulator is built on it).
//!
//! What the reference does (reimplemented from its description, docs/radio.md):
//! - LoS loss `alpha + 20 log10(d)` (alpha 61.4 dB at 28 GHz, 69.8 at 73 GHz), d the 3D
//!   distance in metres; NLoS formula `72 + 29.2 log10(d)` (28 GHz) / `82.7 + 26.9 log10(d)`
//!   (73 GHz), used only while the tracker has no state; no shadowing, no blockage constant.
//! - The tracker counts, per gNB-UE pair, samples since the last LoS->NLoS change (`nlos`) and
//!   since the NLoS->LoS change (`los`). It advances once per call of
//!   `MmWaveEnbPhy::CallPathloss` (every 125 us from t = 0) and once per
//!   `MmWaveEnbPhy::UpdateUeSinrEstimate` (every `UpdateSinrEstimatePeriod`, 1600 us, from
//!   t = 0).
//! - In NLoS the loss is the LoS loss minus a measured blockage trace ("drop phase", 340
//!   samples, ~39 ms), then stays at its last sample ("flat phase"); back in LoS it follows a
//!   second measured trace up for 340 samples ("rise phase", skipping the part of it that
//!   matches an unfinished drop). A UE already in NLoS at t = 0 starts in the flat phase.
//!
//! The two measured traces are not copied: `DROP` and `RISE` are piecewise-linear envelopes
//! of them (knots chosen by Ramer-Douglas-Peucker with a 2.5 dB tolerance; mean absolute error
//! 0.53 / 0.55 dB, the last 40 samples of the drop average -33.4 dB against -33.1 dB in the
//! trace), with the end values the reference uses exactly (flat phase -35.96 dB; rise start
//! -44.63 dB).

use crate::time::{Dur, Time};

/// Samples in each phase of the reference's blockage traces (`g_nlosSamplesTrace`).
pub const PHASE_SAMPLES: u32 = 340;
/// `MmWaveEnbPhy::CallPathloss` period (one slot of the reference's frame).
pub const TICK_SLOT: Dur = Dur(125_000);
/// `MmWaveEnbPhy::UpdateSinrEstimatePeriod` default.
pub const TICK_SINR: Dur = Dur(1_600_000);

/// Drop phase: (sample index, gain relative to LoS in dB); sample n uses index n - 1.
const DROP: [(u16, f64); 18] = [
    (0, -0.1),
    (161, 1.1),
    (293, -22.8),
    (305, -30.6),
    (310, -29.5),
    (312, -32.6),
    (314, -40.8),
    (317, -32.6),
    (319, -31.8),
    (323, -44.2),
    (324, -37.3),
    (326, -32.0),
    (328, -32.4),
    (331, -42.5),
    (333, -32.4),
    (335, -29.1),
    (337, -30.0),
    (339, -35.96),
];

/// Rise phase: (sample index, gain relative to LoS in dB).
const RISE: [(u16, f64); 15] = [
    (0, -44.63),
    (2, -35.5),
    (4, -32.2),
    (6, -34.0),
    (8, -43.8),
    (11, -31.9),
    (14, -30.5),
    (18, -42.3),
    (21, -34.0),
    (25, -38.0),
    (30, -28.5),
    (57, -25.7),
    (71, -18.6),
    (142, 0.2),
    (339, 0.0),
];

fn envelope(knots: &[(u16, f64)], i: u32) -> f64 {
    let i = i.min(PHASE_SAMPLES - 1) as f64;
    for w in knots.windows(2) {
        let ((a, ya), (b, yb)) = (w[0], w[1]);
        if i <= b as f64 {
            return ya + (yb - ya) * (i - a as f64) / (b as f64 - a as f64);
        }
    }
    knots[knots.len() - 1].1
}

/// LoS and NLoS path loss of the reference at `fc_ghz` (28 or 73 GHz), d the 3D distance.
pub fn path_loss(los: bool, d: f64, fc_ghz: f64) -> f64 {
    let lg = d.log10();
    let is28 = (fc_ghz - 28.0).abs() < 1e-9;
    match (los, is28) {
        (true, true) => 61.4 + 20.0 * lg,
        (true, false) => 69.8 + 20.0 * lg,
        (false, true) => 72.0 + 29.2 * lg,
        (false, false) => 82.7 + 26.9 * lg,
    }
}

/// Carriers the reference supports (it stops with a fatal error on others).
pub fn carrier_supported(fc_ghz: f64) -> bool {
    (fc_ghz - 28.0).abs() < 1e-9 || (fc_ghz - 73.0).abs() < 1e-9
}

/// The per-pair state of `MmWaveLosTracker`.
#[derive(Clone, Debug, Default)]
pub struct LosTracker {
    nlos: u32,
    los: u32,
    /// Time of the last tick processed (None: no tick yet).
    last: Option<Time>,
}

impl LosTracker {
    /// Ticks of the reference in (after, upto]; all ticks at or before `upto` when `after` is
    /// None (two at t = 0: both timers start there).
    fn ticks(after: Option<Time>, upto: Time) -> u64 {
        let n = |t: Time, p: Dur| t.0 / p.0 + 1; // ticks in [0, t]
        let total = |t: Time| n(t, TICK_SLOT) + n(t, TICK_SINR);
        match after {
            None => total(upto),
            Some(a) => total(upto) - total(a),
        }
    }

    /// One `UpdateLosNlosState` call at time `t` with the geometric condition `los`.
    fn step(&mut self, los: bool, t: Time) {
        let n = PHASE_SAMPLES;
        if !los && self.nlos < n {
            // drop phase; a UE in NLoS at the very start is taken as being in the flat phase
            self.nlos = if t == Time::ZERO { n } else { self.nlos + 1 };
        } else if !los {
            // flat phase: nothing changes (the LoS counter keeps its value)
        } else if self.los < n && self.nlos > 0 {
            self.los += 1; // rise phase
        } else if self.los == n {
            // the rise phase is over: back to plain LoS
            self.los = 0;
            self.nlos = 0;
        }
    }

    /// The path loss at `now` for the condition `los` at 3D distance `d` (the channel update):
    /// the tracker advances, then `GetLoss`'s choice: the LoS loss less the trace's gain while
    /// the tracker has state, else the plain LoS / NLoS formula; never below 0 dB.
    pub fn loss_db(&mut self, now: Time, los: bool, d: f64, fc_ghz: f64) -> f64 {
        self.advance(now, los);
        match self.offset_db(los) {
            Some(g) => path_loss(true, d, fc_ghz) - g,
            None => path_loss(los, d, fc_ghz),
        }
        .max(0.0)
    }

    /// Advance to `now` with the condition seen at `now` (mmcc evaluates geometry once per
    /// channel update; the reference's ticks in between see that condition).
    fn advance(&mut self, now: Time, los: bool) {
        let k = Self::ticks(self.last, now);
        for i in 0..k {
            // only the t = 0 rule depends on a tick's own time
            let t = if self.last.is_none() && i < 2 && now == Time::ZERO {
                Time::ZERO
            } else {
                now
            };
            self.step(los, t);
        }
        if k > 0 {
            self.last = Some(now);
        }
    }

    /// Gain relative to the LoS loss in dB (<= about 0; subtract it from the LoS loss), as
    /// `BuildingsObstaclePropagationLossModel::GetLoss` picks it; None: plain LoS.
    fn offset_db(&self, los: bool) -> Option<f64> {
        let n = PHASE_SAMPLES;
        self.last?; // no tick yet: the reference's tracker has no state for the pair
        if !los {
            // drop phase (sample nlos uses index nlos - 1), then the flat phase at its last sample
            return Some(envelope(&DROP, self.nlos.clamp(1, n) - 1));
        }
        if self.los > 0 && self.los < n && self.nlos > 0 {
            // rise phase; an unfinished drop skips the start of the rise trace
            let i = if self.nlos < n {
                n - self.nlos + self.los - 1
            } else {
                self.los - 1
            };
            return Some(envelope(&RISE, i));
        }
        None
    }

    #[cfg(test)]
    fn phase(&self, los: bool) -> &'static str {
        match (los, self.nlos, self.los) {
            (false, n, _) if n < PHASE_SAMPLES => "drop",
            (false, _, _) => "flat",
            (true, n, l) if n > 0 && l > 0 && l < PHASE_SAMPLES => "rise",
            _ => "los",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_formulas_at_28_and_73_ghz() {
        assert!((path_loss(true, 100.0, 28.0) - 101.4).abs() < 1e-12);
        assert!((path_loss(false, 100.0, 28.0) - (72.0 + 58.4)).abs() < 1e-12);
        assert!((path_loss(true, 10.0, 73.0) - 89.8).abs() < 1e-12);
        assert!((path_loss(false, 10.0, 73.0) - 109.6).abs() < 1e-12);
        assert!(carrier_supported(28.0) && carrier_supported(73.0) && !carrier_supported(60.0));
    }

    #[test]
    fn tick_grid_is_every_125_us_plus_every_1600_us() {
        assert_eq!(LosTracker::ticks(None, Time::ZERO), 2);
        // (0, 1.6 ms]: slot ticks at 125 .. 1500 us (12) and the SINR tick at 1600 us
        assert_eq!(LosTracker::ticks(Some(Time::ZERO), Time(1_600_000)), 13);
        // one second: 8000 + 625 ticks
        assert_eq!(
            LosTracker::ticks(Some(Time::ZERO), Time(1_000_000_000)),
            8625
        );
    }

    /// Drive the tracker every 1 ms like the radio model does.
    fn run(tr: &mut LosTracker, from_ms: u64, to_ms: u64, los: bool) -> Vec<f64> {
        (from_ms..=to_ms)
            .map(|ms| {
                tr.advance(Time(ms * 1_000_000), los);
                tr.offset_db(los).unwrap_or(0.0)
            })
            .collect()
    }

    #[test]
    fn drop_flat_and_rise_phases() {
        let mut tr = LosTracker::default();
        let los = run(&mut tr, 0, 100, true);
        assert!(los.iter().all(|&x| x == 0.0));
        // blocked from 101 ms: ~8.6 samples per ms, the drop lasts 340 / 8.625 = 39.4 ms
        let nlos = run(&mut tr, 101, 200, false);
        assert_eq!(tr.phase(false), "flat");
        assert!(
            nlos[5].abs() < 2.0,
            "the first ~19 ms stay near the LoS level: {}",
            nlos[5]
        );
        assert!(nlos[30] < -15.0 && nlos[30] > -30.0, "{}", nlos[30]);
        let flat = *nlos.last().unwrap();
        assert!((flat + 35.96).abs() < 1e-9, "{flat}");
        // the drop ends between 39 and 40 ms after the change
        let first_flat = nlos.iter().position(|&x| x == flat).unwrap();
        assert!((38..=40).contains(&first_flat), "{first_flat}");
        // back in LoS: the rise starts ~44.6 dB down and reaches the LoS level within ~17 ms
        let rise = run(&mut tr, 201, 260, true);
        assert!(rise[0] < -30.0, "{}", rise[0]);
        assert!(rise[17].abs() < 1.0, "{}", rise[17]);
        assert_eq!(*rise.last().unwrap(), 0.0);
        assert_eq!(tr.phase(true), "los");
    }

    #[test]
    fn ue_in_nlos_at_the_start_is_in_the_flat_phase() {
        let mut tr = LosTracker::default();
        let v = run(&mut tr, 0, 3, false);
        assert!(v.iter().all(|&x| (x + 35.96).abs() < 1e-9), "{v:?}");
    }

    #[test]
    fn a_short_blockage_rises_from_where_the_drop_stopped() {
        let mut tr = LosTracker::default();
        run(&mut tr, 0, 10, true);
        // 5 ms of NLoS: ~43 samples into the drop, still near the LoS level
        let d = run(&mut tr, 11, 15, false);
        assert!(d[4].abs() < 2.0);
        // the rise skips the first 340 - 43 samples of its trace: already near LoS
        let r = run(&mut tr, 16, 20, true);
        assert!(r[0].abs() < 2.0, "{}", r[0]);
    }
}
