//! Stage: buffer — writing text and filling runs of cells, clipped to the buffer: what every
//! drawing module of the viewer (and the widget) writes with.

use ratatui::buffer::Buffer;
use ratatui::style::Style;

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
