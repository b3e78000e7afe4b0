//! Stage: delta table state → buffer. A title row, then one row per function on screen:
//! Δ share in percentage points (painted like the differential graph) and its significance
//! mark (`*` a finding, `~` noise: [`crate::profile::significance`]), share in BEFORE and
//! AFTER, weight in BEFORE and AFTER, on a wide screen the samples in BEFORE and AFTER when
//! the weights are not sample counts, name. The selected row is in reverse video.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::{fill, put};
use crate::app::compare::Compare;
use crate::profile::Profile;
use crate::profile::diff::FunctionDelta;
use crate::profile::significance;
use crate::text::{sanitize, thousands, thousands_str};
use crate::view::color::ColorMode;
use crate::view::delta::{self, Change};
use crate::view::names::NameStyle;
use crate::view::tooltip::{display_width, ellipsize, time_text};

/// Columns of the Δ cell.
const DELTA_W: usize = 9;

/// Screen width from which the sample columns are shown (when the weights are not sample
/// counts), so that the names keep some room.
const SAMPLES_FROM: u16 = 100;

/// Widths of the optional columns: weights and samples, BEFORE and AFTER (0: not shown).
#[derive(Clone, Copy)]
struct Widths {
    weights: [usize; 2],
    samples: [usize; 2],
}

/// Draws the table.
pub fn render(cmp: &Compare, colors: ColorMode, buf: &mut Buffer) {
    let area = cmp.areas.table;
    if area.height == 0 || area.width == 0 {
        return;
    }
    let (b, a) = (&cmp.before.profile, &cmp.after.profile);
    // On a narrow screen the weight columns go, so that the names keep some room.
    let narrow = area.width < 72;
    let wb = if narrow { 0 } else { weight_width(b) };
    let wa = if narrow { 0 } else { weight_width(a) };
    // The weight columns are the sample counts when every weight counts samples.
    let counted = [b, a]
        .iter()
        .all(|p| significance::weights_count_samples(p, None));
    let samples = if counted || area.width < SAMPLES_FROM {
        [0, 0]
    } else {
        [b, a].map(|p| display_width(&thousands(significance::sample_total(p))).max(7))
    };
    let widths = Widths {
        weights: [wb, wa],
        samples,
    };
    let t = &cmp.table;
    let count = if t.shown.len() == t.rows.len() {
        format!("{} functions, by |Δ|", thousands(t.rows.len() as u64))
    } else {
        format!(
            "{} of {} functions match",
            thousands(t.shown.len() as u64),
            thousands(t.rows.len() as u64)
        )
    };
    let title = format!(
        "{:>DELTA_W$}  {:>8} {:>8}{}  function ({count})",
        "Δ pp",
        "before",
        "after",
        optional(
            widths,
            ["BEFORE", "AFTER", "#before", "#after"].map(str::to_owned)
        ),
    );
    let width = usize::from(area.width);
    let bold = Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    put(buf, area.x, area.y, &ellipsize(&title, width), width, bold);
    if t.shown.is_empty() {
        let text = "No function matches the filter (Esc clears it)";
        put(buf, area.x, area.y + 1, text, width, Style::new());
    }
    let rows = usize::from(area.height - 1);
    for ((pos, row), y) in t.visible(rows).zip(area.y + 1..area.bottom()) {
        let selected = pos == t.selected;
        let text = row_text(row, (b, a), widths, cmp.before.names.style());
        let mut style = Style::new();
        if selected {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        fill(buf, area.x, area.right(), y, " ", style);
        put(buf, area.x, y, &ellipsize(&text, width), width, style);
        let points = row.delta.points();
        let mut cell = delta::style(colors, points, cmp.max_points, false);
        if selected {
            cell = cell.add_modifier(Modifier::BOLD);
        }
        if colors != ColorMode::Mono {
            let x1 = area.x + u16::try_from(DELTA_W.min(width)).unwrap_or(0);
            for x in area.x..x1 {
                if let Some(c) = buf.cell_mut((x, y)) {
                    c.set_style(cell);
                }
            }
        }
    }
}

/// A weight as the table shows it: a time for clock events, else the number.
fn weight(p: &Profile, w: u64) -> String {
    if p.stats.unit.is_time() {
        time_text(w, p.tree.scale())
    } else {
        thousands_str(&p.format_weight(w))
    }
}

/// Columns of a weight column: the widest number (the total), or of a time (`999.9 ms`).
fn weight_width(p: &Profile) -> usize {
    if p.stats.unit.is_time() {
        8
    } else {
        display_width(&weight(p, p.tree.total())).max(6)
    }
}

/// The optional columns `[weight before, weight after, samples before, samples after]`,
/// each after a space, those of width 0 left out.
fn optional(w: Widths, cells: [String; 4]) -> String {
    let widths = [w.weights[0], w.weights[1], w.samples[0], w.samples[1]];
    widths
        .iter()
        .zip(cells)
        .filter(|(w, _)| **w > 0)
        .fold(String::new(), |mut out, (w, c)| {
            let _ = write!(out, " {c:>w$}");
            out
        })
}

/// One row: `Δ mark before% after% [BEFORE AFTER] [#before #after] name`.
fn row_text(
    row: &FunctionDelta,
    (b, a): (&Profile, &Profile),
    widths: Widths,
    names: NameStyle,
) -> String {
    let label = row.label_with(|n| names.apply(n));
    let d = &row.delta;
    let points = match delta::change(d.points()) {
        Change::Same => "0.00".to_owned(),
        _ => format!("{:+.2}", d.change()),
    };
    let (hits, _) = significance::row_counts(b, a, row);
    let mark = significance::judge_row(b, a, row).evidence.mark();
    let cells = [
        weight(b, d.before),
        weight(a, d.after),
        thousands(hits[0]),
        thousands(hits[1]),
    ];
    format!(
        "{points:>DELTA_W$}{mark} {:>7.2}% {:>7.2}%{}  {}",
        d.before_share,
        d.after_share,
        optional(widths, cells),
        sanitize(&label)
    )
}
