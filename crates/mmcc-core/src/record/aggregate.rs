//! Series for many flows: one row per time bin for all flows together, and the spread across
//! flows (quantiles of the per-flow throughput and window, Jain's fairness index) instead of a
//! row per flow and bin.
//!
//! A recorder in this mode keeps only its current bin; each bin it leaves is handed here
//! ([`Aggregate::absorb`]) and added into the run's bins, together with that flow's throughput
//! and window in the bin (kept as `f32` per flow and bin, 8 bytes, for the quantiles). A flow
//! silent for some bins counts in them with no delivery and its last window, as in the
//! per-flow series, from its start time until its stop time (or its last bin, when its flight
//! drains after the stop); before its first window its window is left out of the quantiles.

use super::Bin;
use crate::time::Dur;

/// Flows above which `series = "auto"` records the aggregate.
pub const AUTO_PER_FLOW_MAX: usize = 100;

/// How the `series` table is recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeriesMode {
    /// Per flow up to [`AUTO_PER_FLOW_MAX`] flows, the aggregate above.
    #[default]
    Auto,
    PerFlow,
    Aggregate,
}

impl SeriesMode {
    pub fn aggregates(self, flows: usize) -> bool {
        match self {
            SeriesMode::Auto => flows > AUTO_PER_FLOW_MAX,
            SeriesMode::PerFlow => false,
            SeriesMode::Aggregate => true,
        }
    }
}

/// One bin of all flows.
#[derive(Clone, Debug, Default)]
pub struct AggBin {
    /// The flows' bins added up (`cwnd`, `ssthresh` and `inflight` unused).
    pub sum: Bin,
    /// Sums over the flows counted in the bin of their last window, in bytes and in segments,
    /// and of their last in-flight bytes.
    pub cwnd_bytes: u64,
    pub cwnd_segments: f64,
    pub inflight_bytes: u64,
    /// Per counted flow: bytes delivered in the bin, and the window in segments (NaN before the
    /// flow's first window).
    pub delivered: Vec<f32>,
    pub cwnd: Vec<f32>,
}

/// What the aggregate remembers of a flow between its bins.
#[derive(Clone, Copy, Debug, Default)]
struct Carry {
    /// The next bin of this flow not yet counted.
    next: usize,
    cwnd: Option<u64>,
    inflight: u64,
}

pub struct Aggregate {
    width: Dur,
    pub bins: Vec<AggBin>,
    carry: Vec<Carry>,
}

impl Aggregate {
    /// For flows starting in bins `starts`, `nbins` bins of `width`.
    pub fn new(starts: &[usize], width: Dur, nbins: usize) -> Aggregate {
        let carry = starts.iter().map(|&s| Carry { next: s.min(nbins), ..Default::default() }).collect();
        Aggregate { width, bins: vec![AggBin::default(); nbins], carry }
    }

    pub fn width(&self) -> Dur {
        self.width
    }

    /// Add flow `flow`'s finished bins (ascending, each `(index, bin)`); `mss` turns its window
    /// into segments. Bins past the run's last are dropped.
    pub fn absorb(&mut self, flow: usize, mss: u64, done: &mut Vec<(usize, Bin)>) {
        for (i, b) in done.drain(..) {
            if i >= self.bins.len() {
                continue;
            }
            self.fill(flow, mss, i);
            let c = &mut self.carry[flow];
            if b.cwnd.is_some() {
                c.cwnd = b.cwnd;
                c.inflight = b.inflight;
            }
            let carry = *c;
            let a = &mut self.bins[i];
            add(&mut a.sum, &b);
            if i + 1 < c.next {
                continue; // an earlier bin again (time does not go back in a run): sums only
            }
            if c.next == i + 1 {
                // the bin just counted, handed again: its delivery is added, its window kept
                if let Some(d) = a.delivered.last_mut() {
                    *d += b.delivered_bytes as f32;
                }
                continue;
            }
            Self::count(a, carry, mss, b.delivered_bytes);
            self.carry[flow].next = i + 1;
        }
    }

    /// Count `flow` with no delivery and its last window in its bins before `upto`.
    pub fn fill(&mut self, flow: usize, mss: u64, upto: usize) {
        let c = self.carry[flow];
        let upto = upto.min(self.bins.len());
        for i in c.next..upto {
            Self::count(&mut self.bins[i], c, mss, 0);
        }
        self.carry[flow].next = c.next.max(upto);
    }

    fn count(a: &mut AggBin, c: Carry, mss: u64, delivered: u64) {
        a.delivered.push(delivered as f32);
        match c.cwnd {
            Some(w) => {
                a.cwnd_bytes += w;
                a.cwnd_segments += w as f64 / mss.max(1) as f64;
                a.inflight_bytes += c.inflight;
                a.cwnd.push((w as f64 / mss.max(1) as f64) as f32);
            }
            None => a.cwnd.push(f32::NAN),
        }
    }
}

fn add(a: &mut Bin, b: &Bin) {
    a.delivered_bytes += b.delivered_bytes;
    a.sent_bytes += b.sent_bytes;
    a.retx_bytes += b.retx_bytes;
    a.rtt_sum_ns += b.rtt_sum_ns;
    a.rtt_n += b.rtt_n;
    a.owd_sum_ns += b.owd_sum_ns;
    a.owd_n += b.owd_n;
    a.acks += b.acks;
    a.dupacks += b.dupacks;
}

/// The `q`-quantile (0..=1) of `v` (sorted, no NaN) by the nearest-rank method (the
/// ceil(q n)-th smallest, the first for q = 0); NaN when empty.
pub fn quantile(v: &[f32], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1] as f64
}

/// Jain's fairness index of `v` (Jain, Chiu and Hawe, DEC-TR-301, 1984, eq. (1)):
/// (sum x)^2 / (n sum x^2), 1 when all are equal, 1/n when one has everything; NaN when
/// nothing was delivered.
pub fn jain(v: &[f32]) -> f64 {
    let (s, s2) = v.iter().fold((0.0f64, 0.0f64), |(s, s2), &x| (s + x as f64, s2 + (x as f64) * (x as f64)));
    if s2 == 0.0 {
        f64::NAN
    } else {
        s * s / (v.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(delivered: u64, cwnd: Option<u64>) -> Bin {
        Bin { delivered_bytes: delivered, cwnd, inflight: cwnd.unwrap_or(0) / 2, acks: 1, ..Default::default() }
    }

    #[test]
    fn silent_bins_count_with_no_delivery_and_the_last_window() {
        let mut a = Aggregate::new(&[1, 2], Dur::from_millis(100), 6);
        a.absorb(0, 1000, &mut vec![(1, bin(5000, Some(10_000))), (4, bin(7000, None))]);
        a.absorb(1, 1000, &mut vec![(2, bin(3000, Some(20_000)))]);
        // flow 0 starts in bin 1, flow 1 in bin 2; flow 0's bins 2 and 3 carry its window
        let d: Vec<Vec<f32>> = a.bins.iter().map(|b| b.delivered.clone()).collect();
        assert_eq!(d, [vec![], vec![5000.0], vec![0.0, 3000.0], vec![0.0], vec![7000.0], vec![]]);
        assert_eq!(a.bins[3].cwnd, [10.0]);
        assert_eq!(a.bins[2].cwnd_bytes, 30_000);
        assert_eq!(a.bins[2].inflight_bytes, 15_000);
        assert_eq!(a.bins[4].sum.delivered_bytes, 7000);
        a.fill(1, 1000, 6);
        assert_eq!(a.bins[5].delivered, [0.0]);
        assert_eq!(a.bins[5].cwnd, [20.0]);
    }

    #[test]
    fn a_flow_counts_from_its_start_with_no_window_before_its_first() {
        let mut a = Aggregate::new(&[0], Dur::from_millis(100), 4);
        a.absorb(0, 1000, &mut vec![(2, bin(800, Some(3000)))]);
        a.fill(0, 1000, 4);
        assert_eq!(a.bins.iter().map(|b| b.delivered.len()).collect::<Vec<_>>(), [1, 1, 1, 1]);
        assert!(a.bins[0].cwnd[0].is_nan() && a.bins[1].cwnd[0].is_nan());
        assert_eq!((a.bins[2].cwnd[0], a.bins[3].cwnd[0]), (3.0, 3.0));
        assert_eq!(a.bins[1].cwnd_bytes, 0);
    }

    #[test]
    fn a_bin_handed_twice_adds_its_delivery_once_counted() {
        let mut a = Aggregate::new(&[0], Dur::from_millis(100), 3);
        a.absorb(0, 1000, &mut vec![(0, bin(1000, Some(4000)))]);
        a.absorb(0, 1000, &mut vec![(0, bin(500, None))]);
        assert_eq!(a.bins[0].delivered, [1500.0]);
        assert_eq!(a.bins[0].sum.delivered_bytes, 1500);
        assert_eq!(a.bins[0].sum.acks, 2);
    }

    #[test]
    fn quantiles_and_jains_index() {
        let v = [1.0f32, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert_eq!(quantile(&v, 0.9), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(jain(&[5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), 0.25);
        assert!(jain(&[0.0, 0.0]).is_nan());
    }
}
