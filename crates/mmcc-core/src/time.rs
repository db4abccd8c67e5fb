//! Simulated time and bandwidth.
//!
//! Time is an integer count of nanoseconds (`Time` for instants, `Dur` for spans). It is never a
//! floating-point number: events at the same instant compare equal exactly, and a 60 s run has
//! no rounding drift. `Bandwidth` is bits per second; `Bandwidth x Dur` gives bytes and
//! `bytes / Bandwidth` gives the serialization time.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Dur(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    /// Seconds as f64, for reporting only (never for scheduling).
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time elapsed since `earlier` (saturating at zero).
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn millis_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    /// From seconds as f64 (rounded to the nearest nanosecond); for algorithm formulas only.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s <= 0.0 || !s.is_finite() {
            return Dur::ZERO;
        }
        Dur((s * 1e9).round().min(u64::MAX as f64) as u64)
    }
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    fn sub(self, o: Time) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, o: Dur) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.millis_f64())
    }
}

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bandwidth(pub u64);

impl Bandwidth {
    pub const fn bps(b: u64) -> Bandwidth {
        Bandwidth(b)
    }
    pub const fn mbps(m: u64) -> Bandwidth {
        Bandwidth(m * 1_000_000)
    }
    pub const fn gbps(g: u64) -> Bandwidth {
        Bandwidth(g * 1_000_000_000)
    }
    pub fn as_bps(self) -> u64 {
        self.0
    }
    pub fn mbps_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    /// `bytes` at this rate in ns, `bias / rate` ns added before the integer division (the
    /// rounding of the variants below); `Dur::MAX` at rate 0.
    #[inline]
    fn tx_ns(self, bytes: u64, bias: u128) -> Dur {
        if self.0 == 0 {
            return Dur::MAX;
        }
        Dur(((bytes as u128 * 8 * 1_000_000_000u128 + bias) / self.0 as u128) as u64)
    }
    /// Time to serialize `bytes` at this rate, rounded up to a whole nanosecond.
    pub fn tx_time(self, bytes: u64) -> Dur {
        self.tx_ns(bytes, (self.0 as u128).saturating_sub(1))
    }
    /// Time to serialize `bytes` at this rate, rounded to the nearest nanosecond (halves up):
    /// ns-3's `DataRate::CalculateBytesTxTime` (`Seconds(bits / bps)`, an int64x64 value that
    /// `Time` rounds to the nearest ns), which its point-to-point links and its pacing use.
    pub fn tx_time_nearest(self, bytes: u64) -> Dur {
        self.tx_ns(bytes, self.0 as u128 / 2)
    }
    /// Time to send `bytes` at this rate, rounded down to a nanosecond (Linux
    /// `tcp_update_skb_after_send`: `div64_ul(len * NSEC_PER_SEC, rate)`).
    pub fn tx_time_floor(self, bytes: u64) -> Dur {
        self.tx_ns(bytes, 0)
    }
    /// Bytes carried in `d` at this rate (rounded down).
    pub fn bytes_in(self, d: Dur) -> u64 {
        ((self.0 as u128 * d.0 as u128) / 8_000_000_000u128) as u64
    }
    /// Rate that carries `bytes` in `d` (rounded down); zero for an empty interval.
    pub fn from_bytes_per(bytes: u64, d: Dur) -> Bandwidth {
        if d.0 == 0 {
            return Bandwidth(0);
        }
        Bandwidth(((bytes as u128 * 8_000_000_000u128) / d.0 as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_time_is_exact_for_round_rates() {
        // 1500 bytes at 1 Gb/s = 12 us exactly.
        assert_eq!(Bandwidth::gbps(1).tx_time(1500), Dur(12_000));
        // 1 byte at 3 b/s = 2.666.. s, rounded up.
        assert_eq!(Bandwidth::bps(3).tx_time(1), Dur(2_666_666_667));
        // 1454 bytes at 100 Gb/s = 116.32 ns: ns-3 116, Linux pacing 116, ceil 117
        assert_eq!(Bandwidth::gbps(100).tx_time(1454), Dur(117));
        assert_eq!(Bandwidth::gbps(100).tx_time_nearest(1454), Dur(116));
        assert_eq!(Bandwidth::gbps(100).tx_time_floor(1454), Dur(116));
        assert_eq!(Bandwidth::bps(16).tx_time_nearest(1), Dur(500_000_000));
        assert_eq!(Bandwidth::bps(3).tx_time_nearest(1), Dur(2_666_666_667));
        assert_eq!(Bandwidth::bps(3).tx_time_floor(1), Dur(2_666_666_666));
    }

    #[test]
    fn bandwidth_times_duration_is_bytes() {
        assert_eq!(Bandwidth::gbps(1).bytes_in(Dur::from_millis(20)), 2_500_000);
        assert_eq!(Bandwidth::from_bytes_per(2_500_000, Dur::from_millis(20)), Bandwidth::gbps(1));
    }

    #[test]
    fn time_arithmetic_saturates() {
        assert_eq!(Time(5) - Time(9), Dur(0));
        assert_eq!(Time::MAX + Dur(1), Time::MAX);
    }
}
