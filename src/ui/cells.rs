//! Stage: buffer — writing text and filling runs of cells, clipped to the buffer: what every
//! drawing module of the viewer (and the widget) writes with.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use unicode_segmentation::UnicodeSegmentation;

use crate::text::sanitize;
use crate::view::color::ColorMode;
use crate::view::tooltip::display_width;

/// Writes text clipped to the buffer and to `max` columns; out-of-range rows are skipped.
pub(crate) fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, max: usize, style: Style) -> u16 {
    let area = buf.area;
    if y < area.y || y >= area.bottom() || x < area.x || x >= area.right() {
        return x;
    }
    buf.set_stringn(x, y, text, max, style).0
}

/// Fills a row segment with one symbol and style.
pub(crate) fn fill(buf: &mut Buffer, x0: u16, x1: u16, y: u16, symbol: &str, style: Style) {
    for x in x0..x1 {
        if let Some(cell) = buf.cell_mut((x, y)) {
            cell.set_symbol(symbol).set_style(style);
        }
    }
}

/// The style of matched characters.
pub(crate) fn mark(colors: ColorMode, base: Style) -> Style {
    let s = base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    match colors {
        ColorMode::Mono => s,
        _ => s.fg(Color::LightMagenta),
    }
}

/// Writes `name` in `room` columns, the graphemes holding a char of `indices` in `hit`
/// style, ending with `…` when cut.
pub(crate) fn highlighted(
    buf: &mut Buffer,
    (x, y): (u16, u16),
    room: usize,
    name: &str,
    indices: &[usize],
    (base, hit): (Style, Style),
) {
    let mut x = x;
    let mut used = 0;
    let mut at = 0;
    let mut next = indices.iter().copied().peekable();
    let full = display_width(&sanitize(name)) <= room;
    for g in name.graphemes(true) {
        let chars = g.chars().count();
        let mut matched = false;
        while next.peek().is_some_and(|&i| i < at + chars) {
            matched = true;
            next.next();
        }
        at += chars;
        let text = sanitize(g);
        let w = display_width(&text);
        if !full && used + w + 1 > room {
            put(buf, x, y, "…", 1, base);
            return;
        }
        x = put(buf, x, y, &text, w, if matched { hit } else { base });
        used += w;
    }
}
