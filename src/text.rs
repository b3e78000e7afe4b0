//! Text helpers shared by reports, tables and the TUI: untrusted names made safe for each
//! place they go (one function per sink: the screen, the clipboard, XML, a terminal),
//! thousands separators, percentages.
//!
//! A name is whatever bytes a profile holds. Every sink replaces the characters it must not
//! receive by the same visible escapes (`\x1b`, `\u{202e}`), so a name reads alike wherever
//! it shows up; a raw name reaches none of them.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The screen's sink: makes untrusted text safe to print on a terminal. Control characters
/// (C0 and C1, ESC, BEL, CR, backspace, DEL), bidi controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029)
/// become visible escapes such as `\x1b` or `\u{202e}`.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    escape(s, is_unsafe)
}

/// The clipboard's sink (the OSC 52 payload). The rule is the screen's — this calls
/// [`sanitize`] — because pasting is typing into a terminal: a pasted ESC can end a
/// bracketed paste early (`ESC [201~`) and a pasted CR then runs what follows, and a bidi
/// override makes the pasted text read otherwise than it runs.
pub fn for_clipboard(s: &str) -> Cow<'_, str> {
    sanitize(s)
}

/// The sink of text written to a terminal by the command line (folded stacks on a tty).
/// The rule is the screen's — this calls [`sanitize`]: the terminal would obey the same
/// controls. Text written to a file or a pipe is data and takes no sink.
pub fn for_terminal(s: &str) -> Cow<'_, str> {
    sanitize(s)
}

/// The XML sink (SVG export), for text and attribute values before they reach the XML
/// writer: the screen's rule plus the two noncharacters XML 1.0 forbids, U+FFFE and
/// U+FFFF. The result holds only XML 1.0 `Char`s (`#x9 | #xA | #xD | [#x20-#xD7FF] |
/// [#xE000-#xFFFD] | [#x10000-#x10FFFF]`) and no tab, LF or CR either, which an attribute
/// value would fold into spaces. `<`, `&` and quotes stay: the writer escapes them.
pub fn for_xml(s: &str) -> Cow<'_, str> {
    escape(s, |c| is_unsafe(c) || matches!(c, '\u{fffe}' | '\u{ffff}'))
}

/// `s` with every character for which `unsafe_char` holds replaced by `\xNN` (below
/// U+0100) or `\u{N}`; borrowed when there is none.
fn escape(s: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&unsafe_char) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
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

/// What a terminal must not receive raw: controls (`Cc`), the bidi controls, the line and
/// paragraph separators.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
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

/// `part` as a percentage of `whole` (0 when `whole` is 0), as a float: for thresholds,
/// sorting and colours. Text shows a [`Share`] instead, which rounds exactly.
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        // Both operands are converted once; the quotient is the nearest double to the
        // exact ratio up to two roundings.
        part as f64 * 100.0 / whole as f64
    }
}

/// `part` as a percentage of `whole`, for display. Every percentage flametui prints goes
/// through this one `Display`: the exact ratio of the two integers is rounded once to the
/// formatter's precision (2 decimals by default), ties to even as `printf("%.2f")` does
/// for exact binary ties. No float is involved, so `1/408` prints `0.25` and `2/199`
/// prints `1.01`, as `perf report` says. The `%` sign is not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// The part.
    pub part: u64,
    /// What it is a part of (0 prints as 0).
    pub whole: u64,
}

/// A [`Share`] of `part` in `whole`.
pub fn share(part: u64, whole: u64) -> Share {
    Share { part, whole }
}

impl Share {
    /// The share as a float percentage (see [`percent`]).
    pub fn percent(self) -> f64 {
        percent(self.part, self.whole)
    }

    /// The share in units of 10^-`decimals` percent, rounded once, ties to even.
    /// `decimals` is at most [`Share::MAX_DECIMALS`] so the product fits in a u128.
    pub fn scaled(self, decimals: u32) -> u128 {
        let decimals = decimals.min(Self::MAX_DECIMALS);
        if self.whole == 0 {
            return 0;
        }
        let num = u128::from(self.part) * 100 * 10u128.pow(decimals);
        round_div(num, u128::from(self.whole))
    }

    /// The most decimals a share is printed with.
    pub const MAX_DECIMALS: u32 = 12;
}

/// `num / den` rounded to the nearest integer, ties to even.
fn round_div(num: u128, den: u128) -> u128 {
    let (q, r) = (num / den, num % den);
    // r > den/2, or r == den/2 exactly with q odd, rounds up; `r*2` is written as
    // `r > den - r` so it cannot overflow.
    match r.cmp(&(den - r)) {
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal if q % 2 == 1 => q + 1,
        _ => q,
    }
}

/// Writes `units` (in 10^-`decimals`) as a decimal number, honouring width and alignment.
fn write_fixed(
    f: &mut std::fmt::Formatter<'_>,
    negative: bool,
    units: u128,
    decimals: u32,
) -> std::fmt::Result {
    let scale = 10u128.pow(decimals);
    let mut text = String::with_capacity(24);
    if negative {
        text.push('-');
    } else if f.sign_plus() {
        text.push('+');
    }
    let _ = write!(text, "{}", units / scale);
    if decimals > 0 {
        let _ = write!(text, ".{:0w$}", units % scale, w = decimals as usize);
    }
    match (f.width(), f.align()) {
        (Some(w), Some(std::fmt::Alignment::Left)) => write!(f, "{text:<w$}"),
        (Some(w), Some(std::fmt::Alignment::Center)) => write!(f, "{text:^w$}"),
        (Some(w), _) => write!(f, "{text:>w$}"),
        (None, _) => f.write_str(&text),
    }
}

impl std::fmt::Display for Share {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let decimals = precision(f);
        write_fixed(f, false, self.scaled(decimals), decimals)
    }
}

fn precision(f: &std::fmt::Formatter<'_>) -> u32 {
    f.precision()
        .map_or(2, |p| u32::try_from(p).unwrap_or(Share::MAX_DECIMALS))
        .min(Share::MAX_DECIMALS)
}

/// The change from one share to another in percentage points (`to − from`), for display:
/// rounded once from the exact shares (each taken to 10^-12 of a point first, so only a
/// difference within 10^-12 of a rounding tie can print one unit off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Points {
    /// The earlier share.
    pub from: Share,
    /// The later share.
    pub to: Share,
}

impl Points {
    /// The change as a float (for sorting and colours).
    pub fn value(self) -> f64 {
        self.to.percent() - self.from.percent()
    }
}

impl std::fmt::Display for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let decimals = precision(f);
        let fine = Share::MAX_DECIMALS;
        let (to, from) = (self.to.scaled(fine), self.from.scaled(fine));
        let (negative, diff) = if to >= from {
            (false, to - from)
        } else {
            (true, from - to)
        };
        let units = round_div(diff, 10u128.pow(fine - decimals));
        write_fixed(f, negative && units > 0, units, decimals)
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
    fn sanitize_escapes_the_arabic_mark_and_the_separators() {
        assert_eq!(sanitize("a\u{061c}b"), "a\\u{61c}b");
        assert_eq!(sanitize("a\u{2028}b"), "a\\u{2028}b");
        assert_eq!(sanitize("a\u{2029}b"), "a\\u{2029}b");
        assert_eq!(
            sanitize("\u{200e}\u{200f}\u{2066}"),
            "\\u{200e}\\u{200f}\\u{2066}"
        );
        assert_eq!(sanitize("\x7f\u{85}"), "\\x7f\\x85");
    }

    #[test]
    fn the_clipboard_and_the_terminal_follow_the_screen() {
        let hostile = "innocent\x1b[201~\rtouch pwned\r\u{202e}\u{2028}";
        assert_eq!(for_clipboard(hostile), sanitize(hostile));
        assert_eq!(for_terminal(hostile), sanitize(hostile));
        assert_eq!(
            for_clipboard(hostile),
            "innocent\\x1b[201~\\x0dtouch pwned\\x0d\\u{202e}\\u{2028}"
        );
        assert!(matches!(for_clipboard("plain;name"), Cow::Borrowed(_)));
    }

    /// Every code point: what `for_xml` returns is made of XML 1.0 `Char`s other than
    /// tab, LF and CR, and it keeps what XML allows and the screen shows.
    #[test]
    fn for_xml_leaves_only_xml_chars() {
        let is_xml_char = |c: char| {
            matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
                || c >= '\u{10000}'
        };
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let s = c.to_string();
            let out = for_xml(&s);
            assert!(
                out.chars()
                    .all(|o| is_xml_char(o) && !matches!(o, '\t' | '\n' | '\r')),
                "{:x} gave {out:?}",
                c as u32
            );
            if is_xml_char(c) && !is_unsafe(c) {
                assert_eq!(out, s);
            }
        }
        assert_eq!(
            for_xml("a\x07b\x00\x0b\u{fffe}"),
            "a\\x07b\\x00\\x0b\\u{fffe}"
        );
        assert_eq!(for_xml("<a href=\"&\">'"), "<a href=\"&\">'");
    }

    #[test]
    fn number_formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands_str("31234.25"), "31,234.25");
        assert!((percent(1, 3) - 33.333_333_333).abs() < 1e-9);
        assert!(percent(5, 0).abs() < f64::EPSILON);
    }

    #[test]
    fn shares_round_once() {
        // Both were printed 0.24% and 1.00% when the share was truncated to 4 decimals
        // and then rounded again.
        assert_eq!(share(1, 408).to_string(), "0.25");
        assert_eq!(share(2, 199).to_string(), "1.01");
        assert_eq!(format!("{:>7.2}%", share(1, 3)), "  33.33%");
        assert_eq!(format!("{:.1}", share(2, 3)), "66.7");
        assert_eq!(share(7, 0).to_string(), "0.00");
        assert_eq!(share(u64::MAX, u64::MAX).to_string(), "100.00");
        // An exact tie goes to even, as printf does: 1/800 = 0.125%, 3/800 = 0.375%.
        assert_eq!(share(1, 800).to_string(), "0.12");
        assert_eq!(share(3, 800).to_string(), "0.38");
        let pp = |a, b, c, d| Points {
            from: share(a, b),
            to: share(c, d),
        };
        assert_eq!(format!("{:+.2}", pp(3123, 10_000, 0, 5)), "-31.23");
        assert_eq!(format!("{:+.2}", pp(0, 5, 1, 408)), "+0.25");
        assert_eq!(format!("{:+.2}", pp(1, 3, 1, 3)), "+0.00");
        assert_eq!(format!("{:+.2}", pp(1, 1_000_000, 0, 1)), "+0.00");
    }
}
