//! Stage: keymap → the `?` help overlay. Rows come from the same table as key handling and
//! the footer; the sections flow into two columns when the screen is wide enough.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use crate::app::keymap::help_sections;
use crate::view::tooltip::display_width;

/// Width of one column of the help.
const COLUMN: u16 = 38;
/// Screen width from which the help uses two columns.
const TWO_COLUMNS: u16 = 70;

/// Draws the help box over `area`.
pub fn render(area: Rect, buf: &mut Buffer) {
    let two = area.width >= TWO_COLUMNS;
    let (left, right) = columns(sections(), two);
    let want_w = if two { COLUMN * 2 + 3 } else { COLUMN + 8 };
    let want_h = u16::try_from(left.len().max(right.len()) + 2).unwrap_or(u16::MAX);
    let (w, h) = (area.width.min(want_w), area.height.min(want_h));
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    Clear.render(rect, buf);
    let block = Block::bordered().title(" Keys — Esc closes ");
    let inner = block.inner(rect);
    block.render(rect, buf);
    let wrap = Wrap { trim: false };
    let left_w = if two { inner.width / 2 } else { inner.width };
    let left_area = Rect::new(inner.x, inner.y, left_w, inner.height);
    Paragraph::new(left).wrap(wrap).render(left_area, buf);
    if two {
        let right_w = inner.width.saturating_sub(left_w + 1);
        let right_area = Rect::new(inner.x + left_w + 1, inner.y, right_w, inner.height);
        Paragraph::new(right).wrap(wrap).render(right_area, buf);
    }
}

/// Each keymap section as lines: an underlined title, then `keys  help` rows.
fn sections() -> Vec<Vec<Line<'static>>> {
    let sections = help_sections();
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
                Line::from(vec![Span::styled(format!("{k}{pad}"), key), Span::raw(h)])
            }));
            lines
        })
        .collect()
}

/// Two columns (the first section, then the rest), or everything in one.
fn columns(blocks: Vec<Vec<Line<'static>>>, two: bool) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let spaced = |b: Vec<Line<'static>>| b.into_iter().chain([Line::raw("")]);
    let mut it = blocks.into_iter();
    if two {
        let first = it.next().unwrap_or_default();
        (first, it.flat_map(spaced).collect())
    } else {
        (it.flat_map(spaced).collect(), Vec::new())
    }
}
