//! Stage: keymap → the `?` help overlay. Rows come from the same table as key handling and
//! the footer; the sections flow into two columns of about equal height when the screen is
//! wide enough, and the box scrolls when the screen is too small for it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::app::keymap::{HELP_TWO_COLUMNS, help_sections_in, help_split};
use crate::view::tooltip::{display_width, ellipsize};

/// Widest column of the help.
const COLUMN: u16 = 56;

/// Draws the help box over `area` (with the compare keys when `comparing`), scrolled down
/// `scroll` rows when it does not fit.
pub fn render(area: Rect, comparing: bool, scroll: u16, buf: &mut Buffer) {
    let two = area.width >= HELP_TWO_COLUMNS;
    let col_w = if two {
        (area.width.saturating_sub(3) / 2).min(COLUMN)
    } else {
        area.width.saturating_sub(2).min(COLUMN)
    };
    let blocks = sections(comparing, usize::from(col_w));
    let heights: Vec<usize> = blocks.iter().map(Vec::len).collect();
    let split = if two {
        help_split(&heights)
    } else {
        blocks.len()
    };
    let (left, right) = columns(blocks, split);
    let lines = left.len().max(right.len());
    // Columns narrower than they want to be: the box takes the whole width (an odd width
    // would leave a column of the screen beside it uncovered).
    let want_w = match (two, col_w < COLUMN) {
        (_, true) => area.width,
        (true, false) => col_w * 2 + 3,
        (false, false) => col_w + 2,
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
    let left_area = Rect::new(inner.x, inner.y, col_w.min(inner.width), inner.height);
    Paragraph::new(left).scroll(scroll).render(left_area, buf);
    if two {
        let x = inner.x + col_w + 1;
        let right_area = Rect::new(x, inner.y, inner.right().saturating_sub(x), inner.height);
        Paragraph::new(right).scroll(scroll).render(right_area, buf);
    }
}

/// Each keymap section as lines: an underlined title, then `keys  help` rows cut to `width`.
fn sections(comparing: bool, width: usize) -> Vec<Vec<Line<'static>>> {
    let sections = help_sections_in(comparing);
    let key_w = sections
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| display_width(k)))
        .max()
        .unwrap_or(8)
        + 2;
    let title = Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    let key = Style::new().add_modifier(Modifier::BOLD);
    sections
        .into_iter()
        .map(|(name, rows)| {
            let mut lines = vec![Line::styled(name, title)];
            lines.extend(rows.into_iter().map(|(k, h)| {
                let pad = " ".repeat(key_w.saturating_sub(display_width(k)));
                let help = ellipsize(h, width.saturating_sub(key_w));
                Line::from(vec![
                    Span::styled(format!("{k}{pad}"), key),
                    Span::raw(help),
                ])
            }));
            lines
        })
        .collect()
}

/// The first `split` sections in the left column, the rest in the right, a blank line
/// between sections.
fn columns(
    blocks: Vec<Vec<Line<'static>>>,
    split: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let join = |bs: Vec<Vec<Line<'static>>>| {
        let mut out: Vec<Line<'static>> = Vec::new();
        for b in bs {
            if !out.is_empty() {
                out.push(Line::raw(""));
            }
            out.extend(b);
        }
        out
    };
    let mut left = blocks;
    let right = left.split_off(split.min(left.len()));
    (join(left), join(right))
}
