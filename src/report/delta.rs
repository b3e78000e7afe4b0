//! Two profiles as plain text: the functions whose share of the total changed most, each
//! change with its significance mark and the samples it was measured on.

use std::fmt::Write as _;

use super::top::functions;
use super::{Figures, figure, header};
use crate::profile::Profile;
use crate::profile::significance::{self, ALPHA, FINDING_MARK, NOISE_MARK, SMALL_SIDE};
use crate::text::{sanitize, thousands};

/// Two profiles as plain text: both headers with their sample counts (and a warning for a
/// side of fewer than [`SMALL_SIDE`] samples), then the `n` functions whose share of the
/// total changed most (|Δ| in percentage points) with its significance mark, both shares,
/// weights and samples, and the legend of the marks.
pub fn delta_table(before: &Profile, after: &Profile, n: usize, figures: Figures) -> String {
    let rows = crate::profile::diff::function_deltas(&before.tree, &after.tree);
    let rows = &rows[..n.min(rows.len())];
    let totals = [before, after].map(significance::sample_total);
    let counts: Vec<([u64; 2], char)> = rows
        .iter()
        .map(|r| {
            let (hits, _) = significance::row_counts(before, after, r);
            let mark = significance::judge_row(before, after, r).evidence.mark();
            (hits, mark)
        })
        .collect();
    let nw = |i: usize, title: usize| {
        counts
            .iter()
            .map(|(h, _)| thousands(h[i]).len())
            .chain([title])
            .max()
            .unwrap_or(title)
    };
    let (nb, na) = (nw(0, 7), nw(1, 6));
    let wb = |v: u64| figure(before, v, figures);
    let wa = |v: u64| figure(after, v, figures);
    let bw = rows
        .iter()
        .map(|r| wb(r.delta.before).len())
        .chain([6])
        .max()
        .unwrap_or(6);
    let aw = rows
        .iter()
        .map(|r| wa(r.delta.after).len())
        .chain([5])
        .max()
        .unwrap_or(5);
    let mut out = format!(
        "BEFORE {}\nAFTER  {}\nSamples: BEFORE {}, AFTER {}\n",
        header(before, figures),
        header(after, figures),
        thousands(totals[0]),
        thousands(totals[1]),
    );
    for (side, n) in significance::small_sides(totals) {
        let _ = writeln!(
            out,
            "Warning: {side} has only {} samples (under {SMALL_SIDE}): its shares are noise",
            thousands(n)
        );
    }
    let _ = writeln!(
        out,
        "\nTop {} by change of total share (Δ in percentage points)",
        functions(rows.len())
    );
    let _ = writeln!(
        out,
        "{:>8}  {:>8} {:>8} {:>bw$} {:>aw$} {:>nb$} {:>na$}  function",
        "Δ pp", "before%", "after%", "BEFORE", "AFTER", "#before", "#after"
    );
    for (r, (hits, mark)) in rows.iter().zip(&counts) {
        let d = &r.delta;
        let _ = writeln!(
            out,
            "{:>+8.2}{mark} {:>7.2}% {:>7.2}% {:>bw$} {:>aw$} {:>nb$} {:>na$}  {}",
            d.change(),
            d.before_share,
            d.after_share,
            wb(d.before),
            wa(d.after),
            thousands(hits[0]),
            thousands(hits[1]),
            sanitize(&r.label()),
        );
    }
    let _ = writeln!(
        out,
        "\n{FINDING_MARK} p < {ALPHA} (two-proportion z-test on the sample counts #before, \
         #after); {NOISE_MARK} not told from noise"
    );
    out
}

#[cfg(test)]
mod delta_table_tests {
    use std::io::Cursor;

    use super::*;
    use crate::input::{LoadOptions, load_reader};

    fn profile(name: &str, text: &str) -> Profile {
        load_reader(Cursor::new(text), name, &LoadOptions::default())
            .unwrap()
            .main()
            .clone()
    }

    #[test]
    fn delta_table_sorts_by_change_of_share() {
        let before = profile("b0e1", "mysqld;commit;flush 3123\nmysqld;insert 6877\n");
        let after = profile("b0e0", "mysqld;insert 400\nmysqld;parse 100\n");
        let text = delta_table(&before, &after, 2, Figures::Exact);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("BEFORE b0e1: folded"), "{text}");
        assert!(lines[1].starts_with("AFTER  b0e0: folded"), "{text}");
        assert_eq!(lines[2], "Samples: BEFORE 10,000, AFTER 500", "{text}");
        assert!(text.contains("Top 2 functions"), "{text}");
        // commit and flush both lose 31.23 pp (sorted by name on ties); insert gains 11.23.
        assert_eq!(
            lines[6], "  -31.23*   31.23%    0.00%  3,123     0   3,123      0  commit",
            "{text}"
        );
        assert!(lines[7].ends_with("  flush"), "{text}");
        assert!(lines[9].starts_with("* p < 0.01 (two-proportion"), "{text}");
        assert_eq!(lines.len(), 10, "{text}");
    }

    #[test]
    fn delta_table_warns_of_a_small_side_and_marks_its_noise() {
        let before = profile("b", "m;f 1114\nm;g 8886\n");
        let after = profile("a", "m;f 4\nm;g 2\n");
        let text = delta_table(&before, &after, 2, Figures::Exact);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "Samples: BEFORE 10,000, AFTER 6", "{text}");
        assert_eq!(
            lines[3], "Warning: AFTER has only 6 samples (under 100): its shares are noise",
            "{text}"
        );
        // f: 11.14% → 66.67% of 6 samples, a large change and still noise.
        assert!(lines[7].starts_with("  +55.53~"), "{text}");
        assert!(lines[7].ends_with("  f"), "{text}");
    }
}
