//! Stage: keymap → the `?` help overlay. Rows come from the same table as key handling and
//! the footer; the sections flow into two or three columns of about equal height when the
//! screen is wide enough, and the box scrolls when the screen is too small for it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::app::keymap::{
    HELP_COLUMN as COLUMN, help_grid, help_key_width, help_sections_in, help_split, help_wrap,
};
use crate::view::tooltip::display_width;

/// Draws the help box over `area` (with the compare keys when `comparing`), scrolled down
/// `scroll` rows when it does not fit.
pub fn render(area: Rect, comparing: bool, scroll: u16, buf: &mut Buffer) {
    let (n, col_w) = help_grid(area.width);
    let gaps = u16::try_from(n + 1).unwrap_or(2);
    let per = u16::try_from(n).unwrap_or(1);
    let blocks = sections(comparing, usize::from(col_w));
    let heights: Vec<usize> = blocks.iter().map(Vec::len).collect();
    let cols = columns(blocks, &help_split(&heights, n));
    let lines = cols.iter().map(Vec::len).max().unwrap_or(0);
    // Columns narrower than they want to be: the box takes the whole width (an odd width
    // would leave a column of the screen beside it uncovered).
    let want_w = if col_w < COLUMN {
        area.width
    } else {
        col_w * per + gaps
    };
    let want_h = u16::try_from(lines + 2).unwrap_or(u16::MAX);
    let (w, h) = (area.width.min(want_w), area.height.min(want_h));
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Clear.render(rect, buf);
    let max_scroll = want_h.saturating_sub(h);
    let title = if max_scroll > 0 {
        " Keys — ↑↓ scroll, Esc closes "
    } else {
        " Keys — Esc closes "
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(rect);
    block.render(rect, buf);
    let scroll = (scroll.min(max_scroll), 0);
    let mut x = inner.x;
    for col in cols {
        let width = col_w.min(inner.right().saturating_sub(x));
        Paragraph::new(col)
            .scroll(scroll)
            .render(Rect::new(x, inner.y, width, inner.height), buf);
        x = x.saturating_add(col_w + 1);
    }
}

/// Each keymap section as lines: an underlined title, then `keys  help` rows, the help
/// wrapped (under itself) when it is wider than the column.
fn sections(comparing: bool, width: usize) -> Vec<Vec<Line<'static>>> {
    let sections = help_sections_in(comparing);
    let key_w = help_key_width(&sections);
    let title = Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    let key = Style::new().add_modifier(Modifier::BOLD);
    sections
        .into_iter()
        .map(|(name, rows)| {
            let mut lines = vec![Line::styled(name, title)];
            for (k, h) in rows {
                let wrapped = help_wrap(h, width.saturating_sub(key_w));
                for (i, part) in wrapped.into_iter().enumerate() {
                    let k = if i == 0 { k } else { "" };
                    let pad = " ".repeat(key_w.saturating_sub(display_width(k)));
                    lines.push(Line::from(vec![
                        Span::styled(format!("{k}{pad}"), key),
                        Span::raw(part),
                    ]));
                }
            }
            lines
        })
        .collect()
}

/// The sections in columns, `split` of them in each, a blank line between sections.
fn columns(blocks: Vec<Vec<Line<'static>>>, split: &[usize]) -> Vec<Vec<Line<'static>>> {
    let mut out = Vec::new();
    let mut blocks = blocks.into_iter();
    for &n in split {
        let mut col: Vec<Line<'static>> = Vec::new();
        for b in blocks.by_ref().take(n) {
            if !col.is_empty() {
                col.push(Line::raw(""));
            }
            col.extend(b);
        }
        out.push(col);
    }
    out
}
