//! How values appear in error messages.

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
