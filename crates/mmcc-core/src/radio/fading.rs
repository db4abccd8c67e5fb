//! Frequency-selective small-scale fading with the structure of ns3-mmwave's `MmWaveBeamforming`
//! channel (the channel of the thesis' scripts), generated rather than read from its files.
//!
//! The reference multiplies each chunk's received power by `|sum_p c_p e^{j 2 pi (f_D D_p t -
//! f_k tau_p)}|^2` (`MmWaveBeamforming::GetChannelGainVector`): 20 paths with fixed delays
//! `tau_p` and Doppler factors `D_p` (its `DelaySpread` and `DopplerShift` tables, which its
//! source notes are not based on measurements; used here as the model's parameters), the
//! maximum Doppler `f_D = speed * f_c / c` at the absolute simulation time `t`, and complex path
//! gains `c_p` = amplitude times the two beams' gains on the path (`GetLongTermFading`, see
//! `beams.rs`) that it replaces every `LongTermUpdatePeriod` (100 ms) by one of 100 stored
//! realisations of the NYU 28 GHz channel model. mmcc does not copy those realisations; it draws
//! each one from the model they come from (Akdeniz et al., "Millimeter wave channel modeling and
//! cellular capacity evaluation", IEEE JSAC 32(6), 2014, Table I at 28 GHz):
//! - K = max(1, Poisson(1.8)) clusters, cluster power fractions `U^(r_tau - 1) 10^(-0.1 Z)` with
//!   `r_tau` = 2.8 and `Z ~ N(0, 4 dB)` normalised to 1; the 20 paths shared evenly among the
//!   clusters in delay order with the cluster's power split equally (as the reference's stored
//!   power fractions are);
//! - per cluster a central azimuth of departure and of arrival, uniform over the circle, and rms
//!   angular spreads drawn exponentially with means 10.2 deg (gNB, horizontal), 0 (gNB,
//!   vertical), 15.5 deg (UE, horizontal) and 6.0 deg (UE, vertical); each path's angles are the
//!   cluster's centre plus a normal offset of that rms; the vertical centre is the LoS elevation;
//! - the gNB's and the UE's long-term beams are each side's principal eigenvector of the paths'
//!   spatial covariance (as the reference's stored beams are), and a path's gain is the product
//!   of the two beams' gains on it, relative to the ideal array gain N_gNB N_UE that the link
//!   budget carries.
//!
//! So a realisation's wide-band gain lies at or below the budget's ideal beamforming gain: close
//! to it when one narrow cluster dominates, several dB below when two clusters split the power
//! or a cluster is wide (the model's mean over realisations, -3 dB, and spread, 2.5 dB, are its
//! own output; the reference's 100 stored realisations give -2.8 dB and 2.1 dB).
//!
//! With the reference's delays (up to 50 ns) the channel decorrelates within tens of MHz, so
//! across a 1 GHz carrier of 72 chunks each chunk's gain is close to Rayleigh-distributed about
//! the realisation's mean, as in the reference's own realisations.

use super::beams::{self, cis, cmul, Array, C};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// Paths of the reference channel.
pub const PATHS: usize = 20;
/// Path delays in ns (`MmWaveBeamforming` `DelaySpread`).
const DELAY_NS: [f64; PATHS] = [
    0.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 7.0, 7.0, 17.0, 18.0, 20.0, 23.0, 24.0, 26.0, 38.0, 40.0, 42.0, 45.0, 50.0,
];
/// Doppler factors per path (`MmWaveBeamforming` `DopplerShift`): path p's phase turns at
/// `D_p * speed * f_c / c`.
const DOPPLER: [f64; PATHS] = [
    0.73, 0.78, 0.68, 0.71, 0.79, 0.69, 0.66, 0.70, 0.69, 0.44, 0.48, 0.43, 0.42, 0.47, 0.50, 0.53, 0.52, 0.49, 0.55,
    0.52,
];
/// NYU 28 GHz cluster model (Akdeniz et al. 2014, Table I): mean number of clusters, delay
/// scaling r_tau, per-cluster shadowing (dB).
const CLUSTERS_MEAN: f64 = 1.8;
const R_TAU: f64 = 2.8;
const CLUSTER_SHADOW_DB: f64 = 4.0;
/// Mean rms angular spreads (deg) of a cluster: gNB horizontal, UE horizontal, UE vertical (the
/// gNB's vertical spread is 0) (Akdeniz et al. 2014, Table I, 28 GHz).
const SPREAD_GNB_H_DEG: f64 = 10.2;
const SPREAD_UE_H_DEG: f64 = 15.5;
const SPREAD_UE_V_DEG: f64 = 6.0;

pub struct Fading {
    /// e^{-j 2 pi f_k tau_p} per chunk (f_k: the chunk's offset from the band's lower edge). The
    /// reference's phase also has the band edge's term, a fixed phase per path; it is left out:
    /// it moves where across the band the paths add up, not how strongly.
    phasor: Vec<[C; PATHS]>,
    coef: [C; PATHS],
    arrays: [Array; 2],
    carrier_hz: f64,
    period: Dur,
    next_draw: Time,
    rng: Rng,
}

impl Fading {
    /// `antennas`: the gNB's and the UE's element counts.
    pub fn new(chunks: usize, bandwidth_hz: f64, carrier_ghz: f64, period: Dur, antennas: [u32; 2], rng: Rng) -> Fading {
        let width = bandwidth_hz / chunks.max(1) as f64;
        let phasor = (0..chunks.max(1))
            .map(|k| {
                let f = width * k as f64;
                std::array::from_fn(|p| cis(-2.0 * std::f64::consts::PI * f * DELAY_NS[p] * 1e-9))
            })
            .collect();
        Fading {
            phasor,
            coef: [(0.0, 0.0); PATHS],
            arrays: antennas.map(Array::new),
            carrier_hz: carrier_ghz * 1e9,
            period,
            next_draw: Time::ZERO,
            rng,
        }
    }

    /// Poisson(mean) by multiplication of uniforms (Knuth).
    fn poisson(&mut self, mean: f64) -> usize {
        let limit = (-mean).exp();
        let (mut k, mut p) = (0, self.rng.uniform());
        while p > limit {
            k += 1;
            p *= self.rng.uniform();
        }
        k
    }

    /// Exponential deviate with the given mean.
    fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.rng.uniform()).ln()
    }

    /// A new realisation of the path gains (the cluster model above) for a UE seen from the gNB
    /// at elevation `elev` (radians, positive when the gNB is higher).
    fn draw(&mut self, elev: f64) {
        let k = self.poisson(CLUSTERS_MEAN).clamp(1, PATHS);
        let mut power: Vec<f64> = (0..k)
            .map(|_| {
                let u = 1.0 - self.rng.uniform(); // (0, 1]
                u.powf(R_TAU - 1.0) * 10f64.powf(-0.1 * CLUSTER_SHADOW_DB * self.rng.normal())
            })
            .collect();
        let total: f64 = power.iter().sum();
        power.iter_mut().for_each(|x| *x /= total);
        // cluster centres and spreads: (departure az, arrival az, spreads gNB h, UE h, UE v)
        let tau = 2.0 * std::f64::consts::PI;
        let clusters: Vec<[f64; 5]> = (0..k)
            .map(|_| {
                [
                    tau * self.rng.uniform(),
                    tau * self.rng.uniform(),
                    self.exponential(SPREAD_GNB_H_DEG).to_radians(),
                    self.exponential(SPREAD_UE_H_DEG).to_radians(),
                    self.exponential(SPREAD_UE_V_DEG).to_radians(),
                ]
            })
            .collect();
        let mut share = [0.0; PATHS];
        let mut resp: [Vec<Vec<C>>; 2] = [Vec::with_capacity(PATHS), Vec::with_capacity(PATHS)];
        for (p, sh) in share.iter_mut().enumerate() {
            let cluster = p * k / PATHS; // contiguous, even shares in delay order
            let size = (0..PATHS).filter(|&q| q * k / PATHS == cluster).count();
            *sh = power[cluster] / size as f64;
            let [dep, arr, s_g, s_uh, s_uv] = clusters[cluster];
            // the gNB looks down at -elev, the UE up at +elev
            let gnb = self.arrays[0].response(dep + s_g * self.rng.normal(), -elev);
            resp[0].push(gnb);
            let (az, el) = (arr + s_uh * self.rng.normal(), elev + s_uv * self.rng.normal());
            resp[1].push(self.arrays[1].response(az, el));
        }
        let w = [beams::principal_beam(&resp[0], &share), beams::principal_beam(&resp[1], &share)];
        let ideal = (self.arrays[0].elements() * self.arrays[1].elements()) as f64;
        for (p, c) in self.coef.iter_mut().enumerate() {
            let g = cmul(beams::gain(&w[0], &resp[0][p]), beams::gain(&w[1], &resp[1][p]));
            let amp = (share[p] / ideal).sqrt();
            *c = (amp * g.0, amp * g.1);
        }
    }

    /// The power gain of every chunk at `now` for a UE moving at `speed` m/s, seen at elevation
    /// `elev` (a new realisation every period), relative to the ideal beamforming gain.
    pub fn gains(&mut self, now: Time, speed: f64, elev: f64, out: &mut Vec<f64>) {
        while now >= self.next_draw {
            self.draw(elev);
            self.next_draw += self.period;
        }
        let fd = speed * self.carrier_hz / 299_792_458.0;
        let t = now.secs_f64();
        let a: [C; PATHS] =
            std::array::from_fn(|p| cmul(self.coef[p], cis(2.0 * std::f64::consts::PI * t * fd * DOPPLER[p])));
        out.clear();
        out.extend(self.phasor.iter().map(|row| {
            let h = row.iter().zip(&a).fold((0.0, 0.0), |s, (&e, &c)| {
                let x = cmul(c, e);
                (s.0 + x.0, s.1 + x.1)
            });
            h.0 * h.0 + h.1 * h.1
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn realisations(n: usize) -> Vec<Vec<f64>> {
        let mut f = Fading::new(72, 1e9, 28.0, Dur::from_millis(100), [64, 16], Rng::stream(1, "fading-test"));
        let mut g = Vec::new();
        (0..n)
            .map(|i| {
                f.gains(Time(i as u64 * 100_000_000), 0.0, 0.25, &mut g);
                g.clone()
            })
            .collect()
    }

    /// A realisation's wide-band gain lies below the ideal beamforming gain by what the cluster
    /// mix costs the two long-term beams: a few dB on average with a spread of a few dB (the
    /// cluster model's own output, -3.1 / 2.5 dB; ns3-mmwave's stored realisations: -2.8 /
    /// 2.1 dB); each chunk close to Rayleigh about its realisation's mean (an exponential power:
    /// 5th percentile -12.9 dB, median -1.6 dB).
    #[test]
    fn beams_cost_gain_and_chunks_are_rayleigh_like() {
        let r = realisations(2000);
        let wide: Vec<f64> = r.iter().map(|g| g.iter().sum::<f64>() / g.len() as f64).collect();
        let mean_db = 10.0 * (wide.iter().sum::<f64>() / wide.len() as f64).log10();
        let db: Vec<f64> = wide.iter().map(|x| 10.0 * x.log10()).collect();
        let m = db.iter().sum::<f64>() / db.len() as f64;
        let sd = (db.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / db.len() as f64).sqrt();
        assert!((-4.5..-1.5).contains(&mean_db) && (1.5..3.5).contains(&sd), "mean {mean_db} dB, sd {sd} dB");
        let mut rel: Vec<f64> = r
            .iter()
            .flat_map(|g| {
                let m = g.iter().sum::<f64>() / g.len() as f64;
                g.iter().map(move |x| 10.0 * (x / m).log10())
            })
            .collect();
        rel.sort_by(|a, b| a.total_cmp(b));
        let pct = |q: f64| rel[(q * (rel.len() - 1) as f64) as usize];
        assert!((pct(0.05) + 12.9).abs() < 2.5 && (pct(0.5) + 1.6).abs() < 1.0, "{} {}", pct(0.05), pct(0.5));
    }

    /// Still UE: constant within a realisation; moving UE: the chunks change within it.
    #[test]
    fn doppler_moves_the_chunks_only_when_the_ue_moves() {
        let mut f = Fading::new(72, 1e9, 28.0, Dur::from_millis(100), [64, 16], Rng::stream(3, "fading-test"));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        f.gains(Time(10_000_000), 0.0, 0.25, &mut a);
        f.gains(Time(15_000_000), 0.0, 0.25, &mut b);
        assert_eq!(a, b);
        f.gains(Time(15_000_000), 1.5, 0.25, &mut b);
        assert_ne!(a, b);
    }
}
