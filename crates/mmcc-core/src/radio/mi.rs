//! Mutual-information effective SINR (MIESM) over the chunks of a frequency-selective channel.
//!
//! ns3-mmwave's error model (`MmWaveMiErrorModel`) and its link adaptation (`MmWaveAmc` with
//! `AmcModel = MiErrorModel`) judge a transport block by the mean, over the chunks it occupies,
//! of the mutual information each chunk's SINR gives the block's modulation, not by the mean
//! SINR. This module computes that mapping from first principles: the bit-interleaved coded
//! modulation (BICM) capacity of Gray-mapped QPSK, 16-QAM and 64-QAM over an AWGN channel
//! (Caire, Taricco & Biglieri, "Bit-interleaved coded modulation", IEEE Trans. IT 44(3), 1998,
//! eq. 13), tabulated once. The effective SINR of a set of chunk SINRs is the flat SINR with the
//! same mean mutual information; on a flat channel it is that SINR, so the flat-channel MCS
//! thresholds (`NS3_MMWAVE_MCS`) apply to it unchanged.

use std::sync::OnceLock;

/// Modulations of ns3-mmwave's MCS table by bits per symbol: MCS 0-9 QPSK, 10-16 16-QAM, 17-28
/// 64-QAM (3GPP TS 36.213 Table 7.1.7.1-1, which `MmWaveAmc`'s tables follow).
pub const MODULATIONS: [u32; 3] = [2, 4, 6];

/// The modulation (index into [`MODULATIONS`]) of ns3-mmwave's MCS `m`.
pub fn modulation_of_mcs(m: usize) -> usize {
    match m {
        0..=9 => 0,
        10..=16 => 1,
        _ => 2,
    }
}

const GRID_LO_DB: f64 = -20.0;
const GRID_STEP_DB: f64 = 0.1;
const GRID_N: usize = 601; // -20 .. 40 dB

/// Mutual information per coded bit (0..1) on the SINR grid, per modulation.
fn table() -> &'static [[f64; GRID_N]; 3] {
    static T: OnceLock<[[f64; GRID_N]; 3]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[0.0; GRID_N]; 3];
        for (mi, &bits) in MODULATIONS.iter().enumerate() {
            for (i, v) in t[mi].iter_mut().enumerate() {
                let snr = 10f64.powf((GRID_LO_DB + GRID_STEP_DB * i as f64) / 10.0);
                *v = bicm_per_bit(bits, snr);
            }
            // numerical noise of the quadrature must not break monotonicity (for the inverse)
            for i in 1..GRID_N {
                if t[mi][i] < t[mi][i - 1] {
                    t[mi][i] = t[mi][i - 1];
                }
            }
        }
        t
    })
}

/// BICM capacity per bit of square 2^bits-QAM with Gray labels at SNR `snr` (Es/N0, linear):
/// the I and Q rails are independent Gray-labelled sqrt(M)-PAMs, so the per-bit mutual
/// information is that of one PAM rail with half the symbol energy and noise N0/2, averaged
/// over its bits. The expectation over the noise is a midpoint rule over +-8 standard
/// deviations (deterministic, no random numbers).
fn bicm_per_bit(bits: u32, snr: f64) -> f64 {
    let levels = 1usize << (bits / 2);
    let l = levels as f64;
    // PAM points +-d, +-3d, ... with E[a^2] = 1/2 (half of the unit symbol energy)
    let d = (1.5 / (l * l - 1.0)).sqrt();
    let pts: Vec<f64> = (0..levels).map(|i| (2.0 * i as f64 - (l - 1.0)) * d).collect();
    let gray: Vec<usize> = (0..levels).map(|i| i ^ (i >> 1)).collect();
    let sigma2 = 0.5 / snr; // noise variance per real dimension
    let sigma = sigma2.sqrt();
    const STEPS: usize = 160;
    let span = 8.0 * sigma;
    let h = 2.0 * span / STEPS as f64;
    let rail_bits = bits / 2;
    let mut loss = 0.0; // E[log2(sum over all / sum over same bit)] summed over bits
    for (xi, &x) in pts.iter().enumerate() {
        for s in 0..STEPS {
            let n = -span + (s as f64 + 0.5) * h;
            let w = (-n * n / (2.0 * sigma2)).exp() * h / (2.0 * std::f64::consts::PI * sigma2).sqrt();
            let y = x + n;
            // likelihoods relative to the transmitted point (avoids underflow at high SNR)
            let lik: Vec<f64> = pts.iter().map(|&p| (-((y - p).powi(2) - n * n) / (2.0 * sigma2)).exp()).collect();
            let all: f64 = lik.iter().sum();
            for b in 0..rail_bits {
                let bit = (gray[xi] >> b) & 1;
                let same: f64 = lik.iter().zip(&gray).filter(|(_, g)| (*g >> b) & 1 == bit).map(|(v, _)| v).sum();
                loss += w * (all / same).log2();
            }
        }
    }
    (1.0 - loss / (levels as f64 * rail_bits as f64)).clamp(0.0, 1.0)
}

/// Mutual information per bit of modulation `m` (index into [`MODULATIONS`]) at `sinr_db`.
pub fn mi(m: usize, sinr_db: f64) -> f64 {
    let t = &table()[m];
    let x = (sinr_db - GRID_LO_DB) / GRID_STEP_DB;
    if x <= 0.0 {
        return t[0] * 10f64.powf(sinr_db / 10.0) / 10f64.powf(GRID_LO_DB / 10.0); // ~ linear at low SNR
    }
    if x >= (GRID_N - 1) as f64 {
        return t[GRID_N - 1];
    }
    let i = x as usize;
    let f = x - i as f64;
    t[i] + f * (t[i + 1] - t[i])
}

/// The lowest SINR (dB) whose mutual information per bit is `v` under modulation `m` (the
/// inverse of [`mi`] on its grid). Where a modulation saturates (QPSK above ~13 dB, 64-QAM above
/// ~25 dB, far above its MCSs' thresholds) the information no longer tells SINRs apart, and the
/// start of the plateau is returned.
pub fn sinr_for_mi(m: usize, v: f64) -> f64 {
    let t = &table()[m];
    if v <= t[0] {
        return GRID_LO_DB + 10.0 * (v.max(1e-12) / t[0]).log10();
    }
    let i = t.partition_point(|&x| x < v); // first grid point with at least v
    if i >= GRID_N {
        return GRID_LO_DB + GRID_STEP_DB * (GRID_N - 1) as f64;
    }
    let span = t[i] - t[i - 1];
    let f = if span > 0.0 { (v - t[i - 1]) / span } else { 1.0 };
    GRID_LO_DB + GRID_STEP_DB * ((i - 1) as f64 + f)
}

/// The last linear SINR of ns3-mmwave's mutual-information map of each modulation (the final
/// entries of `MI_map_qpsk_axis`, `MI_map_16qam_axis` and `MI_map_64qam_axis` in
/// `mmwave-mi-error-model.h`: 5.05, 10.00 and 21.99 dB). `MmWaveMiErrorModel::Mib` gives a chunk
/// above it the full information, 1 bit per bit, where the map's last entry is 0.862, 0.765
/// and 0.985 (the BICM capacity there 0.862, 0.791 and 0.985).
pub const NS3_MMWAVE_MI_MAP_END: [f64; 3] = [3.197, 9.993, 157.96];

/// A chunk's mutual information per bit as ns3-mmwave's error model counts it
/// (`MmWaveMiErrorModel::Mib`): the BICM capacity up to the end of its map, full above.
pub fn chunk_mi(m: usize, sinr_db: f64) -> f64 {
    chunk_mi_below(m, sinr_db, map_end_db(m))
}

/// The end of modulation `m`'s map in dB.
fn map_end_db(m: usize) -> f64 {
    10.0 * NS3_MMWAVE_MI_MAP_END[m].log10()
}

/// [`chunk_mi`] with the map's end in dB given (once per block, not per chunk).
fn chunk_mi_below(m: usize, sinr_db: f64, end_db: f64) -> f64 {
    if sinr_db > end_db {
        1.0
    } else {
        mi(m, sinr_db)
    }
}

/// Effective SINR (dB) for modulation `m` of chunks whose SINRs are `base_db` plus each of
/// `gains_db` (the chunks' fading gains, in dB): the flat SINR with their mean mutual information
/// ([`chunk_mi`], `MmWaveMiErrorModel::Mib`). Chunks above the map's end raise the mean beyond
/// what their SINR would give, so on a faded channel the block gets a higher effective SINR than
/// the BICM capacity alone allows (0.2-0.8 MCS at mean SINRs of 3-11 dB on Rayleigh chunks,
/// as ns3-mmwave's `MmWaveAmc` chooses); a flat channel below the map's end keeps its SINR.
pub fn effective_sinr_db(m: usize, base_db: f64, gains_db: &[f64]) -> f64 {
    let end_db = map_end_db(m);
    let mean = gains_db.iter().map(|&g| chunk_mi_below(m, base_db + g, end_db)).sum::<f64>() / gains_db.len().max(1) as f64;
    sinr_for_mi(m, mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BICM capacity per bit at known points: every modulation saturates at 1 bit per bit, a
    /// denser constellation needs more SINR for the same information, and QPSK at Es/N0 = 0 dB
    /// is two BPSK rails at 0 dB each, 0.486 bit (the BPSK-input AWGN capacity at SNR 1).
    #[test]
    fn mutual_information_is_monotone_saturating_and_ordered() {
        for m in 0..3 {
            assert!(mi(m, -20.0) < 0.02 && mi(m, 40.0) > 0.999, "modulation {m}");
            let mut last = -1.0;
            for i in 0..600 {
                let v = mi(m, -20.0 + 0.1 * i as f64);
                assert!(v >= last);
                last = v;
            }
        }
        assert!((mi(0, 0.0) - 0.486).abs() < 0.01, "{}", mi(0, 0.0));
        assert!(mi(0, 10.0) > mi(1, 10.0) && mi(1, 10.0) > mi(2, 10.0));
    }

    #[test]
    fn effective_sinr_of_a_flat_channel_is_its_sinr_and_fading_lowers_it() {
        // up to the end of ns3-mmwave's maps (above its MCSs' thresholds: 1.6, 8.5, 20.1 dB)
        for (m, top) in [(0, 5.0), (1, 9.9), (2, 21.9)] {
            for db in [-5.0, 0.0, 0.5 * top, top] {
                let lin = 10f64.powf(db / 10.0);
                assert!((effective_sinr_db(m, db, &[0.0; 72]) - db).abs() < 0.02, "m {m} at {db} dB");
                // half the chunks 6 dB up, half 6 dB down: below the mean SINR, above the minimum
                let factor = |k: usize| if k.is_multiple_of(2) { 4.0 } else { 0.25 };
                let gains: Vec<f64> = (0..72).map(|k| 10.0 * f64::log10(factor(k))).collect();
                let mean_db = 10.0 * ((0..72).map(|k| lin * factor(k)).sum::<f64>() / 72.0).log10();
                let eff = effective_sinr_db(m, db, &gains);
                assert!(eff < mean_db && eff > db - 6.0, "m {m} at {db} dB: {eff} vs mean {mean_db}");
            }
        }
    }

    /// `MmWaveMiErrorModel::Mib`: a chunk past the end of the modulation's map counts 1 bit per
    /// bit, so one strong chunk among weak ones raises the block's effective SINR beyond the
    /// BICM capacity's (the maps' last entries, 0.862, 0.765 and 0.985, are within 0.03 of the
    /// capacity there).
    #[test]
    fn chunks_past_the_maps_end_count_full_information() {
        // (64-QAM's capacity is within 0.015 of full above its map's end: a small gain)
        for (m, last, gain) in [(0, 0.862, 0.1), (1, 0.765, 0.1), (2, 0.985, 0.0)] {
            let end_db = 10.0 * NS3_MMWAVE_MI_MAP_END[m].log10();
            assert!((chunk_mi(m, end_db - 1e-9) - last).abs() < 0.03, "m {m}: {}", chunk_mi(m, end_db - 1e-9));
            assert_eq!(chunk_mi(m, end_db + 1e-9), 1.0);
            // half the chunks 3 dB above the end, half 3 dB below
            let gains: Vec<f64> = (0..72).map(|k| if k % 2 == 0 { 3.0 } else { -3.0 }).collect();
            let capacity = sinr_for_mi(m, (mi(m, end_db + 3.0) + mi(m, end_db - 3.0)) / 2.0);
            let eff = effective_sinr_db(m, end_db, &gains);
            assert!(eff > capacity + gain, "m {m}: {eff} vs {capacity}");
        }
    }

    /// splitmix64, as `ns3/mmwave-oracle/mmcc-mi-error-probe.cc --faded` draws its chunks.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Against ns3-mmwave itself: the MCS `MmWaveAmc::CreateCqiFeedbackWbTdma` chose for 170
    /// sets of 72 Rayleigh chunks (the probe's `--faded` output, the same in both oracle builds)
    /// and the MCS mmcc allows for the same chunks agree within 0.25 on average at every mean
    /// SINR (0 to -0.2) and within 0.1 over all; with the BICM capacity alone (no map end) mmcc
    /// chose up to 0.5 lower from 6 dB on.
    #[test]
    fn the_faded_mcs_follows_ns3_mmwaves_link_adaptation() {
        use crate::radio::mcs::NS3_MMWAVE_MCS;
        let text = include_str!("../../../../validation/mmwave-probes/mi-faded-mcs.csv");
        let mut per_mean = std::collections::BTreeMap::<i64, (f64, f64)>::new();
        let (mut total, mut n) = (0.0, 0.0);
        for line in text.lines().skip(1) {
            let v: Vec<i64> = line.split(',').map(|x| x.parse().expect("integer")).collect();
            let (mean_db, draw, ns3) = (v[0], v[1], v[2] as f64);
            let mut state = (1 + 1000 * (mean_db + 2) + draw) as u64;
            let gains: Vec<f64> = (0..72)
                .map(|_| {
                    let u = (splitmix(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
                    10.0 * (-(1.0 - u).ln()).log10()
                })
                .collect();
            let eff: [f64; 3] = std::array::from_fn(|m| effective_sinr_db(m, mean_db as f64, &gains));
            // the highest MCS allowed, 0 when none is (MmWaveAmc keeps MCS 0, CQI 0)
            let ours = NS3_MMWAVE_MCS.iter().enumerate().rposition(|(m, t)| t.0 <= eff[modulation_of_mcs(m)]);
            let diff = ours.unwrap_or(0) as f64 - ns3;
            let e = per_mean.entry(mean_db).or_default();
            e.0 += diff;
            e.1 += 1.0;
            total += diff;
            n += 1.0;
        }
        assert_eq!(n, 170.0);
        for (mean_db, (sum, k)) in per_mean {
            assert!((sum / k).abs() <= 0.25, "{mean_db} dB: mmcc - ns3-mmwave = {}", sum / k);
        }
        assert!((total / n).abs() <= 0.1, "over all: {}", total / n);
    }

    #[test]
    fn the_inverse_inverts() {
        for (m, top) in [(0, 8.0), (1, 14.0), (2, 22.0)] {
            for db in [-10.0, -1.3, 4.44, top] {
                assert!((sinr_for_mi(m, mi(m, db)) - db).abs() < 0.01, "m {m} at {db} dB: {}", sinr_for_mi(m, mi(m, db)));
            }
        }
    }
}
