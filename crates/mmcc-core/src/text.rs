//! How values appear in error messages.

use crate::time::Dur;
use std::fmt::Display;

/// A number as a user would write it: Rust prints an `f64` in full positional form (1e300 as
/// 301 digits), so a value longer than any integer type's (21 characters) is shown in
/// scientific notation instead.
pub fn number<T: Display>(v: T) -> String {
    let s = v.to_string();
    match s.parse::<f64>() {
        Ok(x) if s.len() > 21 => format!("{x:e}"),
        _ => s,
    }
}

/// `key: v is out of range; allowed: lo..hi` unless lo <= v <= hi (NaN is out of every range),
/// each value written by `shown`.
fn in_range<T: PartialOrd>(key: &str, v: T, lo: T, hi: T, shown: impl Fn(&T) -> String) -> Result<(), String> {
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err(format!("{key}: {} is out of range; allowed: {}..{}", shown(&v), shown(&lo), shown(&hi)))
    }
}

/// [`in_range`] for a number with its unit.
pub fn within<T: PartialOrd + Display>(key: &str, v: T, lo: T, hi: T, unit: &str) -> Result<(), String> {
    in_range(key, v, lo, hi, |x| format!("{}{unit}", number(x)))
}

/// A duration as a scenario writes it: the largest unit that divides it.
pub fn show(d: Dur) -> String {
    let ns = d.0;
    match ns {
        0 => "0s".into(),
        _ if ns.is_multiple_of(1_000_000_000) => format!("{}s", ns / 1_000_000_000),
        _ if ns.is_multiple_of(1_000_000) => format!("{}ms", ns / 1_000_000),
        _ if ns.is_multiple_of(1_000) => format!("{}us", ns / 1_000),
        _ => format!("{ns}ns"),
    }
}

/// [`in_range`] for a duration.
pub fn within_dur(key: &str, d: Dur, lo: Dur, hi: Dur) -> Result<(), String> {
    in_range(key, d, lo, hi, |x| show(*x))
}

/// A value with a declared range (the TCP knobs, `tcp::knobs`): `key: v is out of range;
/// allowed: lo..hi` in the value's own units (`kind` names them: sizes in bytes).
pub trait Ranged: Sized {
    fn within(&self, key: &str, lo: Self, hi: Self, kind: &str) -> Result<(), String>;
}

impl Ranged for u32 {
    fn within(&self, key: &str, lo: u32, hi: u32, kind: &str) -> Result<(), String> {
        within(key, *self, lo, hi, if kind.starts_with("size") { "B" } else { "" })
    }
}

impl Ranged for Dur {
    fn within(&self, key: &str, lo: Dur, hi: Dur, _kind: &str) -> Result<(), String> {
        within_dur(key, *self, lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn huge_and_tiny_floats_are_short_and_integers_exact() {
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(-1e300), "-1e300");
        assert_eq!(number(1e-300), "1e-300");
        assert_eq!(number(0.001), "0.001");
        assert_eq!(number(u64::MAX), "18446744073709551615");
        assert_eq!(number(2.5), "2.5");
    }
}
