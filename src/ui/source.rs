//! Stage: state → the Source screen in the graph area: a header row, then per file a title
//! row and its lines — self and total weight of the frame's samples at each (or their
//! shares of the frame, `%`), the line's number and text. Lines without samples are dim,
//! the selection in reverse video. Only visible rows are drawn; text is sanitised.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::cells::{fill, put};
use super::table::amount;
use crate::app::explorer::Explorer;
use crate::app::source::state::{SourceRowRef, SourceView};
use crate::text::{sanitize, share};
use crate::view::color::{self, ColorMode};
use crate::view::tooltip::ellipsize;

/// Width of a weight column.
const AMOUNT: usize = 10;
/// Width of the line number column.
const NUMBER: usize = 7;

/// Draws the Source screen of `ex` over its graph area.
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let area = ex.areas.graph;
    let Some(v) = ex.tools.source.as_deref() else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let head_style = color::chrome(colors).add_modifier(Modifier::BOLD);
    let (self_head, total_head) = if v.shares {
        ("Self%", "Total%")
    } else {
        ("Self", "Total")
    };
    // Instructions by offset when no listing has source lines.
    let number_head = if v.listings.iter().all(|l| l.code) {
        "Offset"
    } else {
        "Line"
    };
    let head = format!(
        "{self_head:>AMOUNT$}{total_head:>w$}{:>NUMBER$}  {}",
        number_head,
        sanitize(&v.title),
        w = AMOUNT + 1
    );
    fill(buf, area.x, area.right(), area.y, " ", head_style);
    put(
        buf,
        area.x,
        area.y,
        &ellipsize(&head, width),
        width,
        head_style,
    );
    let p = &ex.original();
    let figure = |w: u64| {
        if w == 0 {
            ".".to_owned()
        } else if v.shares {
            format!("{:.2}%", share(w, v.total))
        } else {
            amount(p, w)
        }
    };
    for (i, y) in (v.offset..v.rows.len()).zip(area.y + 1..area.bottom()) {
        let selected = i == v.selected;
        let (line, style) = match v.rows[i] {
            SourceRowRef::File(f) => (file_title(v, f), Style::new().add_modifier(Modifier::BOLD)),
            SourceRowRef::Line { listing, row } => {
                let l = &v.listings[listing];
                let r = &l.rows[row];
                let text = r.text.as_deref().map(sanitize).unwrap_or_default();
                let line = format!(
                    "{:>AMOUNT$} {:>AMOUNT$}{:>NUMBER$}  {text}",
                    figure(r.cost.self_weight),
                    figure(r.cost.total),
                    l.number(r),
                );
                let style = if r.cost.total == 0 {
                    Style::new().add_modifier(Modifier::DIM)
                } else {
                    Style::new()
                };
                (line, style)
            }
        };
        let style = if selected {
            color::selected(style)
        } else {
            style
        };
        if selected {
            fill(buf, area.x, area.right(), y, " ", style);
        }
        put(buf, area.x, y, &line, width, style);
    }
}

/// The title row of listing `f`: its file, and where it was looked for when missing.
fn file_title(v: &SourceView, f: usize) -> String {
    let (path, missing) = &v.files[f];
    let path = sanitize(path);
    match missing {
        None if v.listings.get(f).is_some_and(|l| l.code) => {
            format!("── {path} (no source lines: instructions, by offset)")
        }
        None => format!("── {path}"),
        Some(_) => format!("── {path} (not found: --source-path DIR says where it is)"),
    }
}
