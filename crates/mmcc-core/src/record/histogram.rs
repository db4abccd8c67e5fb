//! An exact-count log-linear histogram of durations.
//!
//! Every sample is counted (no sampling). Values are bucketed in microseconds: exactly below
//! 2048 us, and with 1024 sub-buckets per power of two above, so a bucket's width is at most
//! 1/1024 (0.1 %) of its value. Mean, min and max are exact (kept from the raw nanoseconds).

use crate::time::Dur;

const LINEAR: u64 = 2048;
const SUB_BITS: u32 = 10;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
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
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
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
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(i);
                let mid_ns = (lo + hi) * 500;
                return Some(Dur(mid_ns.clamp(self.min, self.max)));
            }
        }
        Some(Dur(self.max))
    }

    /// Non-empty buckets as (lower us, upper us, count).
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| {
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
}
