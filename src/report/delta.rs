//! Two profiles as plain text: the functions whose share of the total changed most.

use std::fmt::Write as _;

use super::top::functions;
use super::{Figures, figure, header};
use crate::profile::Profile;
use crate::text::sanitize;

/// Two profiles as plain text: both headers, then the `n` functions whose share of the
/// total changed most (|Δ| in percentage points), with both shares and weights.
pub fn delta_table(before: &Profile, after: &Profile, n: usize, figures: Figures) -> String {
    let rows = crate::profile::diff::function_deltas(&before.tree, &after.tree);
    let rows = &rows[..n.min(rows.len())];
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
        "BEFORE {}\nAFTER  {}\n\nTop {} by change of total share (Δ in percentage points)\n",
        header(before, figures),
        header(after, figures),
        functions(rows.len())
    );
    let _ = writeln!(
        out,
        "{:>8} {:>8} {:>8} {:>bw$} {:>aw$}  function",
        "Δ pp", "before%", "after%", "BEFORE", "AFTER"
    );
    for r in rows {
        let d = &r.delta;
        let _ = writeln!(
            out,
            "{:>+8.2} {:>7.2}% {:>7.2}% {:>bw$} {:>aw$}  {}",
            d.change(),
            d.before_share,
            d.after_share,
            wb(d.before),
            wa(d.after),
            sanitize(&r.label()),
        );
    }
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
        assert!(text.contains("Top 2 functions"), "{text}");
        // commit and flush both lose 31.23 pp (sorted by name on ties); insert gains 11.23.
        assert_eq!(
            lines[5], "  -31.23   31.23%    0.00%  3,123     0  commit",
            "{text}"
        );
        assert!(lines[6].ends_with("  flush"), "{text}");
        assert_eq!(lines.len(), 7, "{text}");
    }
}
