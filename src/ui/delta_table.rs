//! Stage: delta table state → buffer. A title row, then one row per function on screen:
//! Δ share in percentage points (painted like the differential graph), share in BEFORE and
//! AFTER, weight in BEFORE and AFTER, name. The selected row is in reverse video.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::{fill, put};
use crate::app::compare::Compare;
use crate::profile::Profile;
use crate::profile::diff::FunctionDelta;
use crate::text::{sanitize, thousands, thousands_str};
use crate::view::color::ColorMode;
use crate::view::delta::{self, Change};
use crate::view::names::NameStyle;
use crate::view::tooltip::{display_width, ellipsize, time_text};

/// Columns of the Δ cell.
const DELTA_W: usize = 9;

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
    let title = if narrow {
        format!(
            "{:>DELTA_W$} {:>8} {:>8}  function ({count})",
            "Δ pp", "before", "after"
        )
    } else {
        format!(
            "{:>DELTA_W$} {:>8} {:>8} {:>wb$} {:>wa$}  function ({count})",
            "Δ pp", "before", "after", "BEFORE", "AFTER"
        )
    };
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
        let text = row_text(row, (b, a), (wb, wa), cmp.before.names.style());
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

/// One row: `Δ before% after% BEFORE AFTER name`.
fn row_text(
    row: &FunctionDelta,
    (b, a): (&Profile, &Profile),
    (wb, wa): (usize, usize),
    names: NameStyle,
) -> String {
    let label = row.label_with(|n| names.apply(n));
    let d = &row.delta;
    let points = match delta::change(d.points()) {
        Change::Same => "0.00".to_owned(),
        _ => format!("{:+.2}", d.change()),
    };
    if wb + wa == 0 {
        return format!(
            "{points:>DELTA_W$} {:>7.2}% {:>7.2}%  {}",
            d.before_share,
            d.after_share,
            sanitize(&label)
        );
    }
    format!(
        "{points:>DELTA_W$} {:>7.2}% {:>7.2}% {:>wb$} {:>wa$}  {}",
        d.before_share,
        d.after_share,
        weight(b, d.before),
        weight(a, d.after),
        sanitize(&label)
    )
}
