//! Stage: state → the callers / callees view in the graph area: a title row and the callers
//! pane (the function at its bottom, callers above), then a title row and the callees pane
//! (the function on top, callees below). Cells are drawn like the graph's.

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::cells::{fill, put};
use crate::app::explorer::Explorer;
use crate::app::sandwich::state::Pane;
use crate::text::{sanitize, thousands};
use crate::view::CellKind;
use crate::view::color::{self, ColorMode, Hue};
use crate::view::names::NameStyle;
use crate::view::tooltip::ellipsize;

/// Draws both panes.
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let Some(s) = ex.tools.sandwich.as_deref() else {
        return;
    };
    let name = sanitize(ex.shown(s.name)).into_owned();
    for (i, pane) in s.panes.iter().enumerate() {
        let paths = pane.paths;
        let title = if i == 0 {
            format!(
                " ▲ Callers of {name} ({} call path{}, merged, callers above)",
                thousands(paths as u64),
                if paths == 1 { "" } else { "s" }
            )
        } else {
            format!(" ▼ Callees of {name} (merged over every call)")
        };
        let focused = i == s.focus;
        let mut style = color::chrome(colors);
        if focused {
            style = style.add_modifier(Modifier::BOLD);
        }
        let t = pane.title_area;
        if t.height > 0 {
            fill(buf, t.x, t.right(), t.y, " ", style);
            let mark = if focused { "▶" } else { " " };
            let text = format!("{mark}{title}");
            put(
                buf,
                t.x,
                t.y,
                &ellipsize(&text, usize::from(t.width)),
                usize::from(t.width),
                style,
            );
        }
        draw_pane(pane, (colors, ex.names.style()), focused, buf);
    }
}

fn draw_pane(
    pane: &Pane,
    (colors, style_of_names): (ColorMode, NameStyle),
    focused: bool,
    buf: &mut Buffer,
) {
    let a = pane.area;
    for row in pane.layout.rows.iter().skip(1) {
        let Some(y) = pane.screen_y(row.depth) else {
            continue;
        };
        for (i, cell) in row.cells.iter().enumerate() {
            let (lo, hi) = cell.interval(&pane.index);
            let offcpu = pane.index.is_offcpu(lo, hi);
            let (name, hue) = match cell.kind {
                CellKind::Frame(id) => {
                    let name = pane.tree.name(id);
                    (name, color::hue(name, offcpu))
                }
                CellKind::Group(_) => ("", Hue::Group),
            };
            let mut style = color::frame_style(colors, name, hue, false);
            if row.depth == 1 {
                style = style.add_modifier(Modifier::BOLD);
            }
            if focused && pane.selected_cell == Some((row.depth, i)) {
                style = color::selected(style);
            }
            let (x0, x1) = (a.x + cell.x0, a.x + cell.x1);
            // A pane's tree is its own: its few visible names are worked out as drawn.
            let name = style_of_names.apply(name);
            let blank = if name.is_empty() { "░" } else { " " };
            fill(buf, x0, x1, y, blank, style);
            let mut tx = x0;
            if colors == ColorMode::Mono && !name.is_empty() {
                fill(buf, x0, x0 + 1, y, "|", style);
                tx += 1;
            }
            let room = usize::from(x1.saturating_sub(tx));
            if room >= 3 && !name.is_empty() {
                put(buf, tx, y, &ellipsize(&sanitize(&name), room), room, style);
            }
        }
    }
}
