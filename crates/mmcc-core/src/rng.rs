//! Seeded random streams.
//!
//! Every component that needs randomness owns a [`Rng`] derived from the run seed and a stable
//! stream name (for example `"link/3/ab/error"`). Streams are independent of each other, so adding
//! a random component never changes the numbers another component draws, and the result of a run
//! depends only on its configuration and seed, never on thread or worker count.
//!
//! The generator is xoshiro256** (Blackman & Vigna 2018), seeded through SplitMix64 from a
//! 64-bit FNV-1a hash of the stream name mixed with the run seed.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    /// The stream called `name` of the run seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        let mut st = seed ^ fnv1a(name).rotate_left(17);
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            *x = splitmix64(&mut st);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    /// Next 64 uniformly distributed bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        self.uniform() < p
    }

    /// Standard normal deviate (Box-Muller; one value per call, for simplicity and determinism).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = Rng::stream(7, "link/0/ab/error");
        let mut b = Rng::stream(7, "link/0/ab/error");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_names_give_different_streams() {
        let mut a = Rng::stream(7, "link/0/ab/error");
        let mut b = Rng::stream(7, "link/0/ba/error");
        let same = (0..64).filter(|_| a.next_u64() == b.next_u64()).count();
        assert_eq!(same, 0);
    }

    /// The generator is reimplemented outside Rust (the ns-3 runner's MmccStreamErrorModel draws
    /// mmcc's losses): these values are pinned there too (ns3/test/mmcc-tcp-test-suite.cc).
    #[test]
    fn stream_values_are_pinned_for_the_other_implementations() {
        let mut r = Rng::stream(1, "link/1/ab/error");
        assert_eq!(r.next_u64(), 0xa8a2_a36a_f04a_bc57);
        assert_eq!(r.next_u64(), 0xbb0c_aba1_2d45_9afa);
        assert_eq!(r.next_u64(), 0x5715_a359_f76d_5940);
        let mut r = Rng::stream(1, "link/1/ab/error");
        let lost: Vec<usize> = (0..5000usize).filter(|_| r.bernoulli(1e-3)).collect();
        assert_eq!(lost, [871, 921, 1269, 2123, 4107, 4474, 4958]);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::stream(1, "x");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "mean {m}");
    }

    #[test]
    fn normal_has_unit_variance() {
        let mut r = Rng::stream(3, "n");
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(m.abs() < 0.01 && (v - 1.0).abs() < 0.02, "mean {m} var {v}");
    }
}
