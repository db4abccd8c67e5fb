//! The radio channel: 3GPP TR 38.901 UMi-Street Canyon path loss (default) or the NYU 28 GHz
//! model, spatially correlated shadow fading (Gudmundson), blockage and foliage losses,
//! beamforming gain, thermal noise and SINR (docs/radio.md).

use super::geometry::{dist, dist2d, Vec3, Visibility};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

const C: f64 = 299_792_458.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathLossModel {
    /// 3GPP TR 38.901 Table 7.4.1-1, UMi-Street Canyon.
    UmiStreetCanyon,
    /// The same with the table's optional NLoS formula (ns3-mmwave's
    /// `MmWave3gppPropagationLossModel::OptionalNlos = true`).
    UmiStreetCanyonOptionalNlos,
    /// Akdeniz et al., IEEE JSAC 2014, 28 GHz.
    Nyu,
    /// ns3-mmwave's `BuildingsObstaclePropagationLossModel` with its LoS tracker
    /// (`los_tracker.rs`): the thesis' channel.
    BuildingsObstacle,
}

/// Path loss in dB and shadow-fading sigma for a condition.
pub fn path_loss(model: PathLossModel, los: bool, gnb: Vec3, ue: Vec3, fc_ghz: f64) -> (f64, f64) {
    let d3 = dist(gnb, ue).max(1.0);
    match model {
        PathLossModel::UmiStreetCanyon | PathLossModel::UmiStreetCanyonOptionalNlos => {
            let (h_bs, h_ut) = (gnb[2], ue[2]);
            let d2 = dist2d(gnb, ue);
            // d'BP = 4 (hBS - 1)(hUT - 1) fc / c (TR 38.901 note 1 of Table 7.4.1-1)
            let d_bp = 4.0 * (h_bs - 1.0) * (h_ut - 1.0) * fc_ghz * 1e9 / C;
            let pl1 = 32.4 + 21.0 * d3.log10() + 20.0 * fc_ghz.log10();
            let pl_los = if d2 <= d_bp {
                pl1
            } else {
                32.4 + 40.0 * d3.log10() + 20.0 * fc_ghz.log10()
                    - 9.5 * (d_bp * d_bp + (h_bs - h_ut).powi(2)).log10()
            };
            if los {
                (pl_los, 4.0)
            } else if model == PathLossModel::UmiStreetCanyonOptionalNlos {
                // optional PL = 32.4 + 20 log10(fc) + 31.9 log10(d3D), sigma 8.2 dB (no LoS floor)
                (32.4 + 20.0 * fc_ghz.log10() + 31.9 * d3.log10(), 8.2)
            } else {
                // PL'_NLOS = 35.3 log10(d3D) + 22.4 + 21.3 log10(fc) - 0.3 (hUT - 1.5)
                let pl_nlos = 35.3 * d3.log10() + 22.4 + 21.3 * fc_ghz.log10() - 0.3 * (h_ut - 1.5);
                (pl_los.max(pl_nlos), 7.82)
            }
        }
        // no shadowing; in NLoS the tracker normally replaces the formula (los_tracker.rs)
        PathLossModel::BuildingsObstacle => (
            super::los_tracker::path_loss(los, dist(gnb, ue), fc_ghz),
            0.0,
        ),
        PathLossModel::Nyu => {
            // PL = alpha + 10 beta log10(d)
            if los {
                (61.4 + 20.0 * d3.log10(), 5.8)
            } else {
                (72.0 + 29.2 * d3.log10(), 8.7)
            }
        }
    }
}

/// Weissberger's foliage loss in dB over `d` metres at `f_ghz`.
pub fn weissberger_db(f_ghz: f64, d: f64) -> f64 {
    if d <= 0.0 {
        0.0
    } else if d < 14.0 {
        0.45 * f_ghz.powf(0.284) * d
    } else {
        1.33 * f_ghz.powf(0.284) * d.min(400.0).powf(0.588)
    }
}

/// Thermal noise in dBm over `bandwidth_hz` with noise figure `nf_db`.
pub fn noise_dbm(bandwidth_hz: f64, nf_db: f64) -> f64 {
    -174.0 + 10.0 * bandwidth_hz.log10() + nf_db
}

/// Log-normal shadowing correlated along the path (Gudmundson): one process per condition.
#[derive(Clone, Debug)]
pub struct Shadowing {
    rng: Rng,
    value: [f64; 2],
    started: [bool; 2],
    last_pos: [Option<Vec3>; 2],
    enabled: bool,
}

impl Shadowing {
    pub fn new(rng: Rng, enabled: bool) -> Self {
        Shadowing {
            rng,
            value: [0.0; 2],
            started: [false; 2],
            last_pos: [None; 2],
            enabled,
        }
    }

    /// Shadow fading in dB at `pos` for the condition (0 = LoS, 1 = NLoS), sigma in dB.
    pub fn sample(&mut self, pos: Vec3, los: bool, sigma: f64) -> f64 {
        if !self.enabled {
            return 0.0;
        }
        let k = usize::from(!los);
        let d_corr = if los { 10.0 } else { 13.0 };
        let n = self.rng.normal();
        if !self.started[k] {
            self.started[k] = true;
            self.value[k] = sigma * n;
        } else {
            let moved = self.last_pos[k].map_or(0.0, |p| dist(p, pos));
            // rho = exp(-delta_d / d_corr); SF' = rho SF + sqrt(1 - rho^2) sigma N(0, 1)
            let rho = (-moved / d_corr).exp();
            self.value[k] = rho * self.value[k] + (1.0 - rho * rho).sqrt() * sigma * n;
        }
        self.last_pos[k] = Some(pos);
        self.value[k]
    }
}

/// Link-budget parameters of one direction.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub tx_power_dbm: f64,
    pub bf_gain_db: f64,
    pub noise_dbm: f64,
    pub blockage_db: f64,
    pub interference_db: f64,
}

/// SINR = P_tx + G_bf - PL - SF - L_block - L_foliage - N (- interference margin).
pub fn sinr_db(b: &Budget, pl: f64, sf: f64, vis: Visibility, f_ghz: f64) -> f64 {
    let block = if vis.nlos { b.blockage_db } else { 0.0 };
    b.tx_power_dbm + b.bf_gain_db
        - pl
        - sf
        - block
        - weissberger_db(f_ghz, vis.foliage_m)
        - b.noise_dbm
        - b.interference_db
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn umi_los_free_space_like_below_breakpoint() {
        // gNB 15 m, UE 1.5 m, 52 m apart in 2D, 28 GHz
        let gnb = [0.0, 0.0, 15.0];
        let ue = [52.0, 0.0, 1.5];
        let d3: f64 = (52.0f64 * 52.0 + 13.5 * 13.5).sqrt();
        let (pl, sigma) = path_loss(PathLossModel::UmiStreetCanyon, true, gnb, ue, 28.0);
        let expect = 32.4 + 21.0 * d3.log10() + 20.0 * 28f64.log10();
        assert!((pl - expect).abs() < 1e-9);
        assert_eq!(sigma, 4.0);
        assert!((pl - 97.68).abs() < 0.01, "{pl}"); // d3D = 53.72 m
    }

    #[test]
    fn umi_nlos_checkpoint_and_floor() {
        let gnb = [0.0, 0.0, 15.0];
        let ue = [100.0, 0.0, 1.5];
        let d3: f64 = (100.0f64 * 100.0 + 13.5 * 13.5).sqrt();
        let (pl, sigma) = path_loss(PathLossModel::UmiStreetCanyon, false, gnb, ue, 28.0);
        let nlos = 35.3 * d3.log10() + 22.4 + 21.3 * 28f64.log10();
        assert!((pl - nlos).abs() < 1e-9);
        assert_eq!(sigma, 7.82);
        // NLoS is never below LoS
        let (los, _) = path_loss(PathLossModel::UmiStreetCanyon, true, gnb, ue, 28.0);
        assert!(pl >= los);
    }

    #[test]
    fn umi_los_beyond_breakpoint_uses_pl2() {
        // d'BP = 4 * 14 * 0.5 * 28e9 / c = 2615 m
        let gnb = [0.0, 0.0, 15.0];
        let ue = [3000.0, 0.0, 1.5];
        let (pl, _) = path_loss(PathLossModel::UmiStreetCanyon, true, gnb, ue, 28.0);
        let d3: f64 = (3000.0f64 * 3000.0 + 13.5 * 13.5).sqrt();
        let dbp = 4.0 * 14.0 * 0.5 * 28e9 / C;
        let pl2 = 32.4 + 40.0 * d3.log10() + 20.0 * 28f64.log10()
            - 9.5 * (dbp * dbp + 13.5 * 13.5).log10();
        assert!((pl - pl2).abs() < 1e-9);
    }

    #[test]
    fn umi_optional_nlos() {
        let gnb = [6.0, 10.0, 4.0];
        let ue = [6.0, 0.0, 1.6];
        let d3: f64 = (100.0f64 + 2.4 * 2.4).sqrt();
        let (pl, sigma) = path_loss(
            PathLossModel::UmiStreetCanyonOptionalNlos,
            false,
            gnb,
            ue,
            28.0,
        );
        assert!((pl - (32.4 + 20.0 * 28f64.log10() + 31.9 * d3.log10())).abs() < 1e-9);
        assert_eq!(sigma, 8.2);
        // LoS is the standard formula
        assert_eq!(
            path_loss(
                PathLossModel::UmiStreetCanyonOptionalNlos,
                true,
                gnb,
                ue,
                28.0
            ),
            path_loss(PathLossModel::UmiStreetCanyon, true, gnb, ue, 28.0)
        );
    }

    #[test]
    fn nyu_model_at_100_m() {
        let (pl, _) = path_loss(
            PathLossModel::Nyu,
            true,
            [0.0, 0.0, 0.0],
            [100.0, 0.0, 0.0],
            28.0,
        );
        assert!((pl - (61.4 + 40.0)).abs() < 1e-9);
        let (pl, _) = path_loss(
            PathLossModel::Nyu,
            false,
            [0.0, 0.0, 0.0],
            [100.0, 0.0, 0.0],
            28.0,
        );
        assert!((pl - (72.0 + 58.4)).abs() < 1e-9);
    }

    #[test]
    fn weissberger_and_noise() {
        assert!((weissberger_db(28.0, 10.0) - 0.45 * 28f64.powf(0.284) * 10.0).abs() < 1e-12);
        assert!(
            (weissberger_db(28.0, 20.0) - 1.33 * 28f64.powf(0.284) * 20f64.powf(0.588)).abs()
                < 1e-12
        );
        // 1 GHz, NF 7 dB: -174 + 90 + 7 = -77 dBm
        assert!((noise_dbm(1e9, 7.0) + 77.0).abs() < 1e-9);
    }

    #[test]
    fn shadowing_is_constant_when_the_ue_stands_still() {
        let mut s = Shadowing::new(Rng::stream(1, "sf"), true);
        let a = s.sample([1.0, 0.0, 0.0], true, 4.0);
        let b = s.sample([1.0, 0.0, 0.0], true, 4.0);
        assert_eq!(a, b);
        // far away: decorrelated (different)
        let c = s.sample([500.0, 0.0, 0.0], true, 4.0);
        assert_ne!(b, c);
    }
}
