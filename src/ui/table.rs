//! Stage: state → the function table in the graph area: a header row naming the sort
//! column, then one row per function — self and total weight, each with its share of the
//! scope (the zoomed frame) — the selection in reverse video. Only visible rows are drawn.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::{fill, put};
use crate::app::Explorer;
use crate::app::table::SortKey;
use crate::profile::{NodeId, Profile, Unit};
use crate::text::{sanitize, share, thousands, thousands_str};
use crate::view::color::{self, ColorMode};
use crate::view::tooltip::{display_width, ellipsize, time_text};

/// Width of a weight column.
const AMOUNT: usize = 10;
/// Width of a percentage column.
const SHARE: usize = 8;

/// Draws the table over the graph area.
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let area = ex.areas.graph;
    if area.height == 0 {
        return;
    }
    let t = &ex.tools.table;
    if t.by_library {
        return render_libraries(ex, colors, buf);
    }
    let width = usize::from(area.width);
    // On a narrow screen the weight columns go, so that the names keep some room.
    let amount_w = if width < 60 { 0 } else { AMOUNT };
    let name_w = width.saturating_sub(2 * (amount_w + SHARE) + 2);
    let arrow = |k: SortKey| if t.sort == k { "▼" } else { " " };
    let scope = if t.scope == NodeId::ROOT {
        String::new()
    } else {
        format!(" under {}", sanitize(ex.shown_frame(t.scope)))
    };
    let title = format!(
        "Function{} ({} function{}{scope})",
        arrow(SortKey::Name).trim(),
        thousands(t.rows.len() as u64),
        if t.rows.len() == 1 { "" } else { "s" }
    );
    let head = if amount_w == 0 {
        format!(
            "{:>s$}{:>s$}  {}",
            format!("Self%{}", arrow(SortKey::SelfWeight)),
            format!("Total%{}", arrow(SortKey::Total)),
            ellipsize(&title, name_w),
            s = SHARE,
        )
    } else {
        format!(
            "{:>a$}{:>s$}{:>a$}{:>s$}  {}",
            format!("Self{}", arrow(SortKey::SelfWeight)),
            "%",
            format!("Total{}", arrow(SortKey::Total)),
            "%",
            ellipsize(&title, name_w),
            a = AMOUNT,
            s = SHARE,
        )
    };
    let head_style = color::chrome(colors).add_modifier(Modifier::BOLD);
    fill(buf, area.x, area.right(), area.y, " ", head_style);
    put(buf, area.x, area.y, &head, width, head_style);
    let p = &ex.profile;
    let rows = t.rows.iter().enumerate().skip(t.offset);
    for ((i, f), y) in rows.zip(area.y + 1..area.bottom()) {
        let name = ellipsize(&sanitize(ex.shown(f.name)), name_w);
        let self_share = format!("{:.2}%", share(f.self_weight, t.scope_total));
        let total_share = format!("{:.2}%", share(f.total, t.scope_total));
        let line = if amount_w == 0 {
            format!("{self_share:>SHARE$}{total_share:>SHARE$}  {name}")
        } else {
            format!(
                "{:>a$}{self_share:>s$}{:>a$}{total_share:>s$}  {name}",
                amount(p, f.self_weight),
                amount(p, f.total),
                a = AMOUNT,
                s = SHARE,
            )
        };
        let style = if i == t.selected {
            color::selected(Style::new())
        } else {
            Style::new()
        };
        if i == t.selected {
            fill(buf, area.x, area.right(), y, " ", style);
        }
        put(buf, area.x, y, &line, width, style);
    }
    if t.rows.is_empty() && area.height > 1 {
        let text = "No function matches the search (/ edits it, Esc in the prompt clears it)";
        put(
            buf,
            area.x + 2,
            area.y + 1,
            text,
            width.saturating_sub(2),
            Style::new(),
        );
    }
}

/// The table by library (`L`): self and total of each library, the sort column marked.
fn render_libraries(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let area = ex.areas.graph;
    let t = &ex.tools.table;
    let width = usize::from(area.width);
    let amount_w = if width < 60 { 0 } else { AMOUNT };
    let name_w = width.saturating_sub(2 * (amount_w + SHARE) + 2);
    let arrow = |k: SortKey| if t.sort == k { "▼" } else { " " };
    let scope = if t.scope == NodeId::ROOT {
        String::new()
    } else {
        format!(" under {}", sanitize(ex.shown_frame(t.scope)))
    };
    let n = t.libraries.len();
    let title = format!(
        "Library{} ({}{scope} · Enter collapses)",
        arrow(SortKey::Name).trim(),
        thousands(n as u64),
    );
    let head = if amount_w == 0 {
        format!(
            "{:>s$}{:>s$}  {}",
            format!("Self%{}", arrow(SortKey::SelfWeight)),
            format!("Total%{}", arrow(SortKey::Total)),
            ellipsize(&title, name_w),
            s = SHARE,
        )
    } else {
        format!(
            "{:>a$}{:>s$}{:>a$}{:>s$}  {}",
            format!("Self{}", arrow(SortKey::SelfWeight)),
            "%",
            format!("Total{}", arrow(SortKey::Total)),
            "%",
            ellipsize(&title, name_w),
            a = AMOUNT,
            s = SHARE,
        )
    };
    let head_style = color::chrome(colors).add_modifier(Modifier::BOLD);
    fill(buf, area.x, area.right(), area.y, " ", head_style);
    put(buf, area.x, area.y, &head, width, head_style);
    let p = &ex.profile;
    let rows = t.libraries.iter().enumerate().skip(t.offset);
    for ((i, r), y) in rows.zip(area.y + 1..area.bottom()) {
        let label = crate::profile::libraries::library_label(&p.tree, r.lib);
        let name = ellipsize(&sanitize(label), name_w);
        let self_share = format!("{:.2}%", share(r.self_weight, t.scope_total));
        let total_share = format!("{:.2}%", share(r.total, t.scope_total));
        let line = if amount_w == 0 {
            format!("{self_share:>SHARE$}{total_share:>SHARE$}  {name}")
        } else {
            format!(
                "{:>a$}{self_share:>s$}{:>a$}{total_share:>s$}  {name}",
                amount(p, r.self_weight),
                amount(p, r.total),
                a = AMOUNT,
                s = SHARE,
            )
        };
        let style = if i == t.selected {
            color::selected(Style::new())
        } else {
            Style::new()
        };
        if i == t.selected {
            fill(buf, area.x, area.right(), y, " ", style);
        }
        put(buf, area.x, y, &line, width, style);
    }
}

/// A weight in the table: time for clock events, else the number.
pub(super) fn amount(p: &Profile, w: u64) -> String {
    let text = match p.stats.unit {
        Unit::Nanoseconds => time_text(w, p.tree.scale()),
        _ => thousands_str(&p.format_weight(w)),
    };
    if display_width(&text) > AMOUNT - 1 {
        ellipsize(&text, AMOUNT - 1)
    } else {
        text
    }
}
