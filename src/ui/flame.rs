//! Stage: layout → buffer. Each cell of the visible rows becomes a coloured bar with its
//! (sanitized) name cut with `…` to the bar; group cells are shaded; ancestors of the zoomed
//! frame are dimmed; matches and the selection are marked.

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::cells::{fill, put};
use crate::app::explorer::Explorer;
use crate::text::sanitize;
use crate::view::color::{self, ColorMode, Hue, Theme};
use crate::view::delta::{self, Paint};
use crate::view::tooltip::ellipsize;
use crate::view::{Cell, CellKind};

/// Shortest bar that gets a name.
const MIN_LABEL: u16 = 3;

/// Draws the graph area with frames coloured by `paint` (by name, or by change in compare
/// mode's differential view, with a `+`/`-` marker instead of the edge without colour).
pub fn render_with(
    ex: &Explorer,
    (colors, theme): (ColorMode, &Theme),
    paint: Paint<'_>,
    buf: &mut Buffer,
) {
    let root_depth = ex.index.depth(ex.zoom.root);
    let partial = !ex.zoom.is_frame(&ex.index);
    for row in &ex.layout.rows {
        let Some(y) = ex.screen_y(row.depth) else {
            continue;
        };
        let dim = row.depth < root_depth || (partial && row.depth == root_depth);
        for (i, cell) in row.cells.iter().enumerate() {
            let selected = ex.selected_cell == Some((row.depth, i));
            draw_cell(
                ex,
                (colors, theme, paint),
                cell,
                (row.depth, y),
                (dim, selected),
                buf,
            );
        }
    }
}

fn draw_cell(
    ex: &Explorer,
    (colors, theme, paint): (ColorMode, &Theme, Paint<'_>),
    cell: &Cell,
    (depth, y): (u32, u16),
    (dim, selected): (bool, bool),
    buf: &mut Buffer,
) {
    let tree = &ex.profile.tree;
    let (lo, hi) = cell.interval(&ex.index);
    let offcpu = ex.index.is_offcpu(lo, hi);
    let names = tree.names();
    // The label is the name as shown; the colour follows it, or its library's name (`C`).
    let (name, paint_name, hue) = match cell.kind {
        CellKind::Frame(id) => {
            let name = ex.shown_frame(id);
            let lib = names
                .library(tree.node(id).name)
                .map(|l| names.library_name(l));
            match lib {
                Some(lib) if ex.library_colors => (name, lib, Hue::Library),
                _ => {
                    let hue = match color::hue(tree.name(id), offcpu) {
                        // Kernel frames by their library, also without `--kernel`'s `_[k]`.
                        Hue::Hot
                            if lib.is_some_and(crate::profile::libraries::is_kernel_library) =>
                        {
                            Hue::Kernel
                        }
                        // Inlined frames (perf's `(inlined)`) as inferno's `_[i]`.
                        Hue::Hot if names.is_inlined(tree.node(id).name) => Hue::Inline,
                        hue => hue,
                    };
                    (name, name, hue)
                }
            }
        }
        CellKind::Group(_) => ("", "", Hue::Group),
    };
    let points = match cell.kind {
        CellKind::Frame(id) => paint.points(id),
        CellKind::Group(_) => None,
    };
    let mut style = match points {
        Some(p) => paint.style(colors, p, dim),
        None => color::frame_style(colors, paint_name, hue, dim),
    };
    let matched = ex.search.matches.as_ref().is_some_and(|m| match cell.kind {
        CellKind::Frame(id) => m.frame_matches(tree, id),
        CellKind::Group(g) => m.any_in(tree, &ex.index, depth, g.lo, g.hi),
    });
    if matched {
        // On a graph painted by change, the red / blue says more than a match colour
        // would: matches are marked bold and underlined over it instead.
        style = if points.is_some() {
            style
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
                .remove_modifier(Modifier::DIM)
        } else {
            theme.mark(colors, style)
        };
    }
    if selected {
        style = theme.select(style);
    }
    let x0 = ex.areas.graph.x + cell.x0;
    let x1 = ex.areas.graph.x + cell.x1;
    let mono_edge = colors == ColorMode::Mono && matches!(cell.kind, CellKind::Frame(_));
    let blank = if matches!(cell.kind, CellKind::Group(_)) {
        "░"
    } else {
        " "
    };
    fill(buf, x0, x1, y, blank, style);
    let mut text_x = x0;
    if mono_edge {
        fill(buf, x0, x0 + 1, y, points.map_or("|", delta::marker), style);
        text_x += 1;
    }
    let room = x1.saturating_sub(text_x);
    if room >= MIN_LABEL && !name.is_empty() {
        let label = ellipsize(&sanitize(name), usize::from(room));
        put(buf, text_x, y, &label, usize::from(room), style);
    }
}
