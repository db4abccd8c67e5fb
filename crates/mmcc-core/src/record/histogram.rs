//! An exact-count log-linear histogram of durations.
//!
//! Every sample is counted (no sampling). Values are bucketed in microseconds: exactly below
//! 2048 us, and with 1024 sub-buckets per power of two above, so a bucket's width is at most
//! 1/1024 (0.1 %) of its value. Mean, min and max are exact (kept from the raw nanoseconds).
//!
//! The counts are kept in pages of [`PAGE`] buckets allocated when a sample first falls in one:
//! a flow's round-trip times fill a few dozen buckets spread over thousands, so a dense array
//! (55 KB for times near 50 ms) would hold mostly zeros, once per flow and histogram.

use crate::time::Dur;

const LINEAR: u64 = 2048;
const SUB_BITS: u32 = 10;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets per page of counts.
const PAGE: usize = 64;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// Page `p` counts buckets `p * PAGE ..`; `None` where none has a sample.
    pages: Vec<Option<Box<[u64; PAGE]>>>,
    n: u64,
    sum_ns: u128,
    min: u64,
    max: u64,
}

fn bucket(us: u64) -> usize {
    if us < LINEAR {
        return us as usize;
    }
    let e = 63 - us.leading_zeros(); // >= 11
    let sub = (us >> (e - SUB_BITS)) & (SUB - 1);
    (LINEAR + (e as u64 - 11) * SUB + sub) as usize
}

/// [lower, upper) bounds of bucket `i`, in microseconds.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < LINEAR {
        return (i, i + 1);
    }
    let k = i - LINEAR;
    let e = k / SUB + 11;
    let sub = k % SUB;
    let width = 1u64 << (e - SUB_BITS as u64);
    let lo = (1u64 << e) + sub * width;
    (lo, lo + width)
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn record(&mut self, d: Dur) {
        let b = bucket(d.0 / 1000);
        let p = b / PAGE;
        if p >= self.pages.len() {
            self.pages.resize(p + 1, None);
        }
        self.pages[p].get_or_insert_with(|| Box::new([0; PAGE]))[b % PAGE] += 1;
        if self.n == 0 || d.0 < self.min {
            self.min = d.0;
        }
        self.max = self.max.max(d.0);
        self.n += 1;
        self.sum_ns += d.0 as u128;
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    /// Sum of all samples, ns.
    pub fn sum_ns(&self) -> u128 {
        self.sum_ns
    }
    pub fn mean(&self) -> Option<Dur> {
        (self.n > 0).then(|| Dur((self.sum_ns / self.n as u128) as u64))
    }
    pub fn min(&self) -> Option<Dur> {
        (self.n > 0).then_some(Dur(self.min))
    }
    pub fn max(&self) -> Option<Dur> {
        (self.n > 0).then_some(Dur(self.max))
    }

    /// The q-quantile (0..=1): the midpoint of the bucket holding the ceil(q n)-th sample,
    /// clamped to [min, max].
    pub fn quantile(&self, q: f64) -> Option<Dur> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.counts() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                let mid_ns = (lo + hi) * 500;
                return Some(Dur(mid_ns.clamp(self.min, self.max)));
            }
        }
        Some(Dur(self.max))
    }

    /// Non-empty buckets as (index, count), ascending.
    fn counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.pages.iter().enumerate().filter_map(|(p, page)| page.as_ref().map(|c| (p, c))).flat_map(|(p, c)| {
            c.iter().enumerate().filter(|(_, &n)| n > 0).map(move |(i, &n)| (p * PAGE + i, n))
        })
    }

    /// Non-empty buckets as (lower us, upper us, count).
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts().map(|(i, c)| {
            let (lo, hi) = bounds(i);
            (lo, hi, c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_tight() {
        let mut prev_hi = 0;
        for i in 0..(LINEAR as usize + 5 * SUB as usize) {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(hi - 1), i);
            assert!((hi - lo) as f64 <= (lo as f64 / 1024.0).max(1.0));
            prev_hi = hi;
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        let mut h = Histogram::new();
        for ms in 1..=100u64 {
            h.record(Dur::from_millis(ms));
        }
        assert_eq!(h.count(), 100);
        assert_eq!(h.mean(), Some(Dur(50_500_000)));
        let p50 = h.quantile(0.5).unwrap().millis_f64();
        let p99 = h.quantile(0.99).unwrap().millis_f64();
        assert!((p50 - 50.0).abs() < 0.05, "{p50}");
        assert!((p99 - 99.0).abs() < 0.1, "{p99}");
        assert_eq!(h.quantile(1.0), Some(Dur::from_millis(100)));
    }

    #[test]
    fn pages_hold_only_the_buckets_used() {
        let mut h = Histogram::new();
        for us in [20_000u64, 20_001, 50_000, 50_000, 3, 1_000_000_000] {
            h.record(Dur(us * 1000));
        }
        assert_eq!(h.pages.iter().filter(|p| p.is_some()).count(), 4);
        let b: Vec<_> = h.buckets().map(|(lo, _, n)| (lo, n)).collect();
        assert_eq!(b, [(3, 1), (20_000, 2), (49_984, 2), (999_817_216, 1)]);
        assert_eq!(h.quantile(0.5), Some(Dur(20_008_000)));
    }
}
