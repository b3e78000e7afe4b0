//! Text helpers shared by reports, tables and the TUI: untrusted names made safe for a
//! terminal, thousands separators, percentages.

use std::fmt::Write as _;

/// Makes untrusted text safe to print on a terminal: control characters (ESC, BEL, CR,
/// backspace, …) and bidi overrides become visible escapes such as `\x1b` or `\u{202e}`.
pub fn sanitize(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            if (c as u32) < 0x100 {
                let _ = write!(out, "\\x{:02x}", c as u32);
            } else {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        } else {
            out.push(c);
        }
    }
    out.into()
}

fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Thousands separators on the integer part of a decimal string (`31234.5` → `31,234.5`).
pub fn thousands_str(s: &str) -> String {
    let (int, frac) = s.split_once('.').map_or((s, None), |(i, f)| (i, Some(f)));
    let mut out = int
        .parse::<u64>()
        .map_or_else(|_| int.to_owned(), thousands);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        // u128 keeps the product exact before the division.
        (u128::from(part) * 1_000_000 / u128::from(whole)) as f64 / 10_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_escapes_terminal_controls() {
        assert_eq!(sanitize("plain::name"), "plain::name");
        assert_eq!(sanitize("a\x1b]52;c;Zm9v\x07b"), "a\\x1b]52;c;Zm9v\\x07b");
        assert_eq!(sanitize("x\u{202e}y\r"), "x\\u{202e}y\\x0d");
    }

    #[test]
    fn number_formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands_str("31234.25"), "31,234.25");
        assert!((percent(1, 3) - 33.3333).abs() < 1e-9);
        assert!(percent(5, 0).abs() < f64::EPSILON);
    }
}
