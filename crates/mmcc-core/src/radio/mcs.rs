//! Link adaptation: how an SINR estimate becomes a spectral efficiency, the channel quality a
//! block sees, and ns3-mmwave's MCS table with its downlink CQI round trip.

use serde::{Deserialize, Serialize};

/// How link adaptation turns the SINR estimate into a spectral efficiency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkAdaptation {
    /// Attenuated Shannon bound `0.6 log2(1 + SINR)` (3GPP TR 36.942 A.1 style), capped at
    /// `se_cap`, 0 below `outage_sinr_db`.
    Shannon,
    /// ns3-mmwave's adaptive modulation and coding (`MmWaveAmc`, `AmcModel = MiErrorModel`, before
    /// 2020-06): the highest of MCS 0-28 whose transport-block error rate is at most 10 % at the
    /// estimated SINR under its mutual-information error model; no MCS below MCS 0's threshold.
    Ns3MmwaveMcs,
}

/// The channel quality of one direction at one update: the SINR averaged over the chunks
/// (linear mean, in dB; what a UE reports as its wide-band SINR) and, per modulation of
/// [`mi::MODULATIONS`], the effective SINR that link adaptation and the block error rate use.
/// Without fading all four are the flat SINR.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quality {
    pub mean_db: f64,
    pub eff_db: [f64; 3],
}

impl Quality {
    pub fn flat(db: f64) -> Quality {
        Quality { mean_db: db, eff_db: [db; 3] }
    }

    /// The SINR a block of modulation `m` (None: no MCS table) experiences.
    pub fn for_modulation(&self, m: Option<usize>) -> f64 {
        m.map_or(self.mean_db, |m| self.eff_db[m])
    }
}

/// ns3-mmwave's MCS table: (SINR in dB at which the MI error model gives 10 % TB error rate,
/// bits per resource element = modulation order x effective code rate of `McsEcrTable`).
/// The thresholds were computed by running the reference's MI error model (`MmWaveMiErrorModel`
/// with its MI maps and BLER curve tables, a flat channel over all 72 chunks, the transport
/// block of 22 data symbols of 2592 data subcarriers) and bisecting for 10 % TB error; they
/// move by < 0.4 dB for 2- to 22-symbol blocks (docs/radio.md).
pub const NS3_MMWAVE_MCS: [(f64, f64); 29] = [
    (-7.24, 0.16),
    (-6.25, 0.20),
    (-5.83, 0.22),
    (-4.47, 0.30),
    (-3.36, 0.38),
    (-2.33, 0.48),
    (-1.37, 0.60),
    (-0.34, 0.74),
    (0.72, 0.88),
    (1.62, 1.02),
    (3.88, 1.20),
    (3.92, 1.32),
    (4.70, 1.48),
    (5.70, 1.68),
    (6.56, 1.92),
    (7.52, 2.16),
    (8.51, 2.40),
    (10.05, 2.58),
    (10.48, 2.70),
    (11.36, 3.00),
    (12.37, 3.30),
    (13.44, 3.60),
    (14.40, 3.90),
    (15.21, 4.20),
    (16.19, 4.50),
    (17.17, 4.80),
    (18.11, 5.10),
    (19.16, 5.34),
    (20.08, 5.52),
];

/// The downlink MCS ns3-mmwave's scheduler uses for each MCS the UE's error model allows: the
/// UE reports the allowed MCS as a wide-band CQI, the highest CQI whose efficiency does not
/// exceed the MCS's (`MmWaveAmc::CreateCqiFeedbackWbTdma`, MCS 28 -> CQI 15), and the gNB's
/// `MmWaveFlexTtiMacScheduler` takes back the highest MCS whose efficiency does not exceed the
/// CQI's (`MmWaveAmc::GetMcsFromCqi`); the uplink uses the allowed MCS itself. Both lookups use
/// the efficiencies of 3GPP TS 36.213 (Table 7.2.3-1 for the CQIs, the MCS table's for the MCSs,
/// two decimals), so an odd MCS below 28 becomes the even one below it (ns3-mmwave's downlink
/// transport blocks carry even MCSs: in the stored 60 s thesis-edge NewReno run of
/// validation/mmwave-runs, 40,796 of the 41,397 milliseconds whose blocks share one MCS).
pub fn ns3_mmwave_dl_mcs(allowed: usize) -> usize {
    const CQI_SE: [f64; 16] =
        [0.0, 0.15, 0.23, 0.38, 0.6, 0.88, 1.18, 1.48, 1.91, 2.41, 2.73, 3.32, 3.9, 4.52, 5.12, 5.55];
    const MCS_SE: [f64; 29] = [
        0.15, 0.19, 0.23, 0.31, 0.38, 0.49, 0.6, 0.74, 0.88, 1.03, 1.18, 1.33, 1.48, 1.7, 1.91, 2.16, 2.41,
        2.57, 2.73, 3.03, 3.32, 3.61, 3.9, 4.21, 4.52, 4.82, 5.12, 5.33, 5.55,
    ];
    if allowed >= 28 {
        return 28;
    }
    let cqi = (1..16).take_while(|&c| CQI_SE[c] <= MCS_SE[allowed]).last().unwrap_or(0);
    (1..29).take_while(|&m| MCS_SE[m] <= CQI_SE[cqi]).last().unwrap_or(0)
}

/// How far (dB) above an MCS's 10 % threshold ns3-mmwave's transport blocks fail only 1 % of
/// the time: its MI error model's block error falls that steeply (a code block's error is a
/// Gaussian function of its mutual information, and a block of many code blocks fails if one
/// does). Measured like [`NS3_MMWAVE_MCS`]'s thresholds, by running the reference's error model
/// on a flat channel for the 22-symbol block (`ns3/mmwave-oracle/mmcc-mi-error-probe.cc`, whose
/// 10 % points are that table's thresholds); its one-symbol blocks' curves are 0.14-0.45 dB
/// wide. mmcc's generic curve ([`generic_bler`]) takes 1.2 dB.
pub const NS3_MMWAVE_BLER_WIDTH_DB: [f64; 29] = [
    0.091, 0.073, 0.131, 0.096, 0.112, 0.088, 0.094, 0.093, 0.087, 0.106, 0.140, 0.105, 0.102, 0.115,
    0.104, 0.114, 0.115, 0.177, 0.160, 0.131, 0.104, 0.122, 0.130, 0.108, 0.151, 0.155, 0.152, 0.184,
    0.218,
];

/// The generic block error rate for an estimation error `delta` (dB):
/// 1 / (1 + exp(2 (delta + 1.1))), 10 % at 0.
pub fn generic_bler(delta_db: f64) -> f64 {
    1.0 / (1.0 + (2.0 * (delta_db + 1.1)).exp())
}

/// ns3-mmwave's block error rate for a block of MCS `mcs` whose SINR is `delta` dB above the
/// MCS's 10 % threshold: a logistic curve through its 10 % and 1 % points,
/// 1 / (1 + 9 * 11^(delta / w)), w from [`NS3_MMWAVE_BLER_WIDTH_DB`].
pub fn ns3_mmwave_bler(delta_db: f64, mcs: usize) -> f64 {
    1.0 / (1.0 + 9.0 * 11f64.powf(delta_db / NS3_MMWAVE_BLER_WIDTH_DB[mcs]))
}

/// A transport block's size in bytes as a function of its data symbols.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TbSize {
    /// `full` bytes in all `symbols` data symbols, shared evenly (spectral efficiency x bandwidth
    /// x eta x slot, `RadioLink::tbs`).
    Linear { full: u64, symbols: u32 },
    /// ns3-mmwave's `MmWaveAmc::GetTbSizeFromMcsSymbols` at MCS `mcs` with `re` data resource
    /// elements per symbol (its frame: 2592).
    Ns3Mmwave { re: u64, mcs: usize },
}

/// ns3-mmwave's transport block CRC and its largest code block (`MmWaveAmc`, TS 36.212 5.1.2).
const CRC_BITS: i64 = 24;
const CODE_BLOCK_BITS: i64 = 6144;

impl TbSize {
    /// The bytes a block of `n` data symbols carries. ns3-mmwave: the resource elements times
    /// the MCS's bits per element, less the block's CRC, truncated to whole bits; beyond one code
    /// block less one CRC per code block; whole bytes (the scheduler divides by 8).
    pub fn bytes(&self, n: u32) -> u64 {
        match *self {
            TbSize::Linear { full, symbols } => full * n as u64 / symbols.max(1) as u64,
            TbSize::Ns3Mmwave { re, mcs } => {
                let mut bits = ((re * n as u64) as f64 * NS3_MMWAVE_MCS[mcs].1 - CRC_BITS as f64) as i64;
                if bits > CODE_BLOCK_BITS {
                    bits -= (bits as f64 / CODE_BLOCK_BITS as f64).ceil() as i64 * CRC_BITS;
                }
                (bits.max(0) / 8) as u64
            }
        }
    }

    /// The symbols a block asking for `bytes` gets, at most `high`. Linear: the fewest that
    /// hold them (at least one). ns3-mmwave: `MmWaveFlexTtiMacScheduler::CalcMinTbSizeNumSym`'s
    /// bisection between 0 and `high` (the subframe's 24 symbols), which returns the fewest
    /// symbols holding the bytes, or a block that holds exactly them.
    pub fn min_symbols(&self, bytes: u64, high: u32) -> u32 {
        match *self {
            TbSize::Linear { full, symbols } => {
                if full == 0 {
                    return high;
                }
                (bytes * symbols as u64).div_ceil(full).clamp(1, high as u64) as u32
            }
            TbSize::Ns3Mmwave { .. } => {
                let (mut lo, mut hi) = (0u32, high);
                let mut tb = self.bytes(hi);
                while tb > bytes {
                    let diff = (hi - lo) / 2;
                    if diff == 0 {
                        return hi;
                    }
                    tb = self.bytes(hi - diff);
                    if tb >= bytes {
                        hi -= diff;
                    }
                    if tb == bytes {
                        return hi;
                    }
                    while tb < bytes {
                        let diff = (hi - lo) / 2;
                        if diff == 0 {
                            return hi;
                        }
                        tb = self.bytes(lo + diff);
                        if tb <= bytes {
                            lo += diff;
                        }
                        if tb == bytes {
                            return lo;
                        }
                    }
                }
                hi
            }
        }
    }
}

/// ns3-mmwave's MAC subheader before each RLC PDU (`MacSubheader::GetSize`): 3 bytes for a PDU
/// of more than 127 bytes, else 2. The RLC's opportunity is the scheduled size less it
/// (`MmWaveEnbMac::DoSubframeIndication`).
pub fn ns3_mmwave_mac_subheader(size: u64) -> u64 {
    if size > 127 {
        3
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's RLC trace (NewReno, 0.25 MiB, seed 1, the first slow-start round): three
    /// full 22-symbol blocks at MCS 0 each give the RLC 1,128 bytes (a 1,131-byte block less a
    /// 3-byte subheader), and a block asked for 11,236 bytes gives it 11,233.
    #[test]
    fn transport_blocks_have_ns3_mmwaves_sizes() {
        let mcs0 = TbSize::Ns3Mmwave { re: 2592, mcs: 0 };
        // 57,024 elements x 0.16 bits - 24 = 9,099 bits, two code blocks: 9,051 bits
        assert_eq!(mcs0.bytes(22), 1_131);
        assert_eq!(1_131 - ns3_mmwave_mac_subheader(1_131), 1_128);
        assert_eq!(ns3_mmwave_mac_subheader(100), 2);
        // one symbol: 414 bits less the CRC, one code block
        assert_eq!(mcs0.bytes(1), (2592.0f64 * 0.16 - 24.0) as u64 / 8);
        // a request the whole subframe cannot hold gets all 24 symbols; one it can, the fewest
        assert_eq!(mcs0.min_symbols(14_611, 24), 24);
        for m in [8, 16, 28] {
            let tb = TbSize::Ns3Mmwave { re: 2592, mcs: m };
            for want in [60, 1_500, 11_236, 20_000] {
                let n = tb.min_symbols(want, 24);
                assert!(tb.bytes(n) >= want || n == 24, "MCS {m}, {want} bytes: {n} symbols");
                assert!(n == 1 || tb.bytes(n - 1) < want, "MCS {m}, {want} bytes: {n} symbols");
            }
        }
        let lin = TbSize::Linear { full: 2_200, symbols: 22 };
        assert_eq!((lin.bytes(11), lin.min_symbols(101, 22), lin.min_symbols(0, 22)), (1_100, 2, 1));
    }

    /// ns3-mmwave's curve passes 10 % at the threshold and 1 % at its width, and is far steeper
    /// than the generic one: half a dB above MCS 28's threshold its blocks fail about 0.05 % of
    /// the time, the generic curve's 5 %.
    #[test]
    fn ns3_mmwave_blocks_fail_ten_times_less_at_a_fraction_of_a_db() {
        for (m, &w) in NS3_MMWAVE_BLER_WIDTH_DB.iter().enumerate() {
            assert!((ns3_mmwave_bler(0.0, m) - 0.1).abs() < 1e-12, "MCS {m}");
            assert!((ns3_mmwave_bler(w, m) - 0.01).abs() < 1e-3, "MCS {m}");
        }
        assert!(ns3_mmwave_bler(0.5, 28) < 1e-3);
        assert!(generic_bler(0.5) > 0.03);
        assert!(ns3_mmwave_bler(-1.0, 0) > 0.99);
    }

    /// The generic curve: 10 % at zero estimation error.
    #[test]
    fn the_generic_bler_is_ten_percent_at_zero_error() {
        assert!((generic_bler(0.0) - 0.0998).abs() < 1e-3);
        assert!(generic_bler(-10.0) > 0.999);
        assert!(generic_bler(5.0) < 1e-5);
    }
}
