//! Stage: state → the function table in the graph area: a header row naming the sort
//! column, then one row per function — self and total weight, each with its share of the
//! scope (the zoomed frame) — the selection in reverse video. Only visible rows are drawn.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::cells::{fill, put};
use crate::app::explorer::Explorer;
use crate::app::table::state::SortKey;
use crate::profile::functions::table_label;
use crate::profile::{NameId, NodeId, Profile};
use crate::text::{sanitize, share, thousands, thousands_str};
use crate::view::color::{self, ColorMode};
use crate::view::tooltip::{display_width, ellipsize, time_text};

/// Width of a weight column.
const AMOUNT: usize = 10;
/// Width of a percentage column.
const SHARE: usize = 8;

/// Draws the table over the graph area: functions, or libraries (`L`).
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    render_in(ex, ex.areas.graph, colors, buf);
}

/// Draws the function table of `ex` in `area` (the library's table widget gives its own).
pub fn render_in(ex: &Explorer, area: ratatui::layout::Rect, colors: ColorMode, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let t = &ex.tools.table;
    let arrow = |k: SortKey| if t.sort == k { "▼" } else { " " };
    let scope = if t.scope == NodeId::ROOT {
        String::new()
    } else {
        format!(" under {}", sanitize(ex.shown_frame(t.scope)))
    };
    let tree = &ex.profile.tree;
    // (self, total, name) of the rows from the first shown on.
    let (title, rows): (String, Vec<(u64, u64, Cow<'_, str>)>) = if t.by_library {
        let title = format!(
            "Library{} ({}{scope} · Enter collapses)",
            arrow(SortKey::Name).trim(),
            thousands(t.libraries.len() as u64),
        );
        let rows = t.libraries.iter().skip(t.offset).map(|r| {
            let name = crate::profile::libraries::library_label(tree, r.lib);
            (r.self_weight, r.total, Cow::Borrowed(name))
        });
        (title, rows.take(usize::from(area.height)).collect())
    } else {
        let n = t.rows.len();
        let title = format!(
            "Function{} ({} function{}{scope})",
            arrow(SortKey::Name).trim(),
            thousands(n as u64),
            if n == 1 { "" } else { "s" }
        );
        let rows = t.rows.iter().skip(t.offset);
        let weighed = |o: NameId| ex.functions.get(o.0 as usize).is_some_and(|f| f.total > 0);
        let rows = rows.map(|f| {
            let label = table_label(tree.names(), f.name, ex.shown(f.name), weighed);
            (f.self_weight, f.total, label)
        });
        (title, rows.take(usize::from(area.height)).collect())
    };
    let width = usize::from(area.width);
    // On a narrow screen the weight columns go, so that the names keep some room.
    let amount_w = if width < 60 { 0 } else { AMOUNT };
    let name_w = width.saturating_sub(2 * (amount_w + SHARE) + 2);
    let head = head_line(&title, amount_w, name_w, &arrow);
    let head_style = color::chrome(colors).add_modifier(Modifier::BOLD);
    fill(buf, area.x, area.right(), area.y, " ", head_style);
    put(buf, area.x, area.y, &head, width, head_style);
    let p = &ex.profile;
    for ((i, (self_weight, total, name)), y) in (t.offset..)
        .zip(rows.iter().map(|(s, t, n)| (*s, *t, &**n)))
        .zip(area.y + 1..area.bottom())
    {
        let name = ellipsize(&sanitize(name), name_w);
        let self_share = format!("{:.2}%", share(self_weight, t.scope_total));
        let total_share = format!("{:.2}%", share(total, t.scope_total));
        let line = if amount_w == 0 {
            format!("{self_share:>SHARE$}{total_share:>SHARE$}  {name}")
        } else {
            format!(
                "{:>a$}{self_share:>s$}{:>a$}{total_share:>s$}  {name}",
                amount(p, self_weight),
                amount(p, total),
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
    if t.is_empty() && !t.by_library && area.height > 1 {
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

/// The column titles, the sort column marked by `arrow`.
fn head_line(
    title: &str,
    amount_w: usize,
    name_w: usize,
    arrow: &impl Fn(SortKey) -> &'static str,
) -> String {
    if amount_w == 0 {
        format!(
            "{:>s$}{:>s$}  {}",
            format!("Self%{}", arrow(SortKey::SelfWeight)),
            format!("Total%{}", arrow(SortKey::Total)),
            ellipsize(title, name_w),
            s = SHARE,
        )
    } else {
        format!(
            "{:>a$}{:>s$}{:>a$}{:>s$}  {}",
            format!("Self{}", arrow(SortKey::SelfWeight)),
            "%",
            format!("Total{}", arrow(SortKey::Total)),
            "%",
            ellipsize(title, name_w),
            a = AMOUNT,
            s = SHARE,
        )
    }
}

/// A weight in the table: time for clock events, else the number.
pub(super) fn amount(p: &Profile, w: u64) -> String {
    let text = if p.stats.unit.is_time() {
        time_text(w, p.tree.scale())
    } else {
        thousands_str(&p.format_weight(w))
    };
    if display_width(&text) > AMOUNT - 1 {
        ellipsize(&text, AMOUNT - 1)
    } else {
        text
    }
}
