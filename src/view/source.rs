//! Stage: view model — a function's source lines with their cost, as the Source screen and
//! `--annotate` list them: per file, the lines from the function's start (when the input
//! says it) or 5 before its first line with samples, to 5 after its last, as `go tool
//! pprof -list` does; each with its self and total weight and its text when the file was
//! found.

use crate::profile::source::{Cost, FileId, Line};
use crate::source_files::SourceText;

/// Lines shown around the lines with samples.
pub const CONTEXT: u32 = 5;

/// The most lines a listing spans whole: past it (a huge function, or a hostile input's
/// lines 1 and 4,000,000,000), only the lines around those with samples are listed.
pub const MOST_SPAN: u32 = 500;

/// The most columns of a line's text kept (the screen has no sideways scrolling, and
/// `--annotate` would print a minified file's one line whole once per function listed):
/// past it the text ends with `…`.
pub const MOST_COLUMNS: usize = 1024;

/// One line of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// Its number in the file, from 1.
    pub number: u32,
    /// What the samples at it weigh (zero: none was).
    pub cost: Cost,
    /// Its text, tabs expanded, when the file was read (unsanitised: the drawing does).
    pub text: Option<String>,
}

/// The lines of one function in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The file, as the profile names it.
    pub file: FileId,
    /// The rows, in file order.
    pub rows: Vec<SourceRow>,
    /// Sums of the rows' self and total weights.
    pub sum: Cost,
    /// The file is a function's machine code: rows are its instructions, numbered by
    /// their offset from its start ([`crate::view::disasm`]).
    pub code: bool,
}

impl Listing {
    /// A row's number as the listing shows it: a line's number, or an instruction's
    /// offset from the function's start (`+1a`).
    pub fn number(&self, row: &SourceRow) -> String {
        if self.code {
            format!("+{:x}", row.number)
        } else {
            row.number.to_string()
        }
    }

    /// The row with the most total weight (the first of equals), where a view of the
    /// function scrolls to first.
    pub fn hottest(&self) -> Option<usize> {
        let max = self.rows.iter().map(|r| r.cost.total).max()?;
        (max > 0).then(|| self.rows.iter().position(|r| r.cost.total == max))?
    }
}

/// Tabs to the next multiple of 8 columns, the text cut at [`MOST_COLUMNS`] (a line of
/// 16 MiB of tabs was 128 MiB once expanded).
pub fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MOST_COLUMNS));
    let mut col = 0;
    for c in text.chars() {
        let n = if c == '\t' { 8 - col % 8 } else { 1 };
        if col + n > MOST_COLUMNS {
            out.push('…');
            break;
        }
        if c == '\t' {
            out.extend(std::iter::repeat_n(' ', n));
        } else {
            out.push(c);
        }
        col += n;
    }
    out
}

/// The listings of `lines` (one function's or one frame's, sorted by file then number),
/// `start` its first line when known, `text` the source of a file.
pub fn listings<'a>(
    lines: &[(Line, Cost)],
    start: Option<Line>,
    mut text: impl FnMut(FileId) -> &'a SourceText,
) -> Vec<Listing> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let file = lines[i].0.file;
        let n = lines[i..]
            .iter()
            .take_while(|(l, _)| l.file == file)
            .count();
        let here = &lines[i..i + n];
        i += n;
        let first = here[0].0.number;
        let last = here[n - 1].0.number;
        let lo = match start {
            Some(s) if s.file == file && s.number <= first => s.number,
            _ => first.saturating_sub(CONTEXT).max(1),
        };
        let source = text(file);
        let mut hi = last.saturating_add(CONTEXT);
        if let SourceText::Found { lines, .. } = source {
            let end = u32::try_from(lines.len()).unwrap_or(u32::MAX);
            hi = hi.min(end.max(last));
        }
        // Every line of the span, or (past MOST_SPAN) those near a line with samples.
        let numbers: Vec<u32> = if hi - lo <= MOST_SPAN {
            (lo..=hi).collect()
        } else {
            let mut near: Vec<u32> = here
                .iter()
                .flat_map(|(l, _)| {
                    let n = l.number;
                    n.saturating_sub(CONTEXT).max(1)..=n.saturating_add(CONTEXT).min(hi)
                })
                .collect();
            near.sort_unstable();
            near.dedup();
            near
        };
        let mut rows = Vec::with_capacity(numbers.len());
        let mut sum = Cost::default();
        let mut at = here.iter().peekable();
        for number in numbers {
            let mut cost = Cost::default();
            while let Some((l, c)) = at.next_if(|(l, _)| l.number == number) {
                debug_assert_eq!(l.number, number);
                cost.self_weight = cost.self_weight.saturating_add(c.self_weight);
                cost.total = cost.total.saturating_add(c.total);
            }
            sum.self_weight = sum.self_weight.saturating_add(cost.self_weight);
            sum.total = sum.total.saturating_add(cost.total);
            rows.push(SourceRow {
                number,
                cost,
                text: source.line(number).map(expand_tabs),
            });
        }
        out.push(Listing {
            file,
            rows,
            sum,
            code: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::source::SourceLines;

    fn cost(self_weight: u64, total: u64) -> Cost {
        Cost { self_weight, total }
    }

    #[test]
    fn a_listing_spans_five_lines_around_the_samples_or_from_the_start() {
        let mut s = SourceLines::default();
        let file = s.file("m.go");
        let l = |number| Line { file, number };
        let lines = [(l(10), cost(1, 2)), (l(12), cost(3, 3))];
        let missing = SourceText::Missing(Vec::new());
        let out = listings(&lines, None, |_| &missing);
        assert_eq!(out.len(), 1);
        let rows = &out[0].rows;
        assert_eq!((rows[0].number, rows.last().unwrap().number), (5, 17));
        assert_eq!(out[0].sum, cost(4, 5));
        assert_eq!(rows[7].cost, cost(3, 3));
        assert_eq!(out[0].hottest(), Some(7));
        // From the function's start, and no further than the file's end.
        let text = SourceText::Found {
            path: "m.go".into(),
            lines: std::sync::Arc::new(crate::source_files::FileLines::new(
                (1..=14)
                    .map(|i| format!("\tline {i}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )),
        };
        let out = listings(&lines, Some(l(8)), |_| &text);
        let rows = &out[0].rows;
        assert_eq!((rows[0].number, rows.last().unwrap().number), (8, 14));
        assert_eq!(rows[0].text.as_deref(), Some("        line 8"));
    }

    #[test]
    fn far_apart_lines_list_only_their_neighbourhoods() {
        let mut s = SourceLines::default();
        let file = s.file("m.go");
        let l = |number| Line { file, number };
        let lines = [(l(1), cost(1, 1)), (l(4_000_000_000), cost(2, 2))];
        let missing = SourceText::Missing(Vec::new());
        let out = listings(&lines, None, |_| &missing);
        let numbers: Vec<u32> = out[0].rows.iter().map(|r| r.number).collect();
        assert_eq!(numbers.len(), 6 + 11);
        assert_eq!(numbers[..6], [1, 2, 3, 4, 5, 6]);
        assert_eq!(numbers[6], 3_999_999_995);
        assert_eq!(out[0].sum, cost(3, 3));
    }

    #[test]
    fn tabs_expand_to_eight_columns() {
        assert_eq!(expand_tabs("a\tb\t\tc"), "a       b               c");
        // A line past MOST_COLUMNS is cut there, tabs or not.
        let tabs = expand_tabs(&"\t".repeat(1 << 20));
        assert_eq!(tabs, format!("{}…", " ".repeat(MOST_COLUMNS)));
        let long = expand_tabs(&"é".repeat(MOST_COLUMNS + 1));
        assert_eq!(long.chars().count(), MOST_COLUMNS + 1);
        assert!(long.ends_with("é…"));
        assert_eq!(
            expand_tabs(&"x".repeat(MOST_COLUMNS)),
            "x".repeat(MOST_COLUMNS)
        );
    }
}
