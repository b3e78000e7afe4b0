//! Stage: application state → ratatui buffer. `draw(&App)` only reads: layout, areas and
//! status text were prepared by `update`, so rendering is a walk over visible cells.
//!
//! ```text
//! App ─▶ header (file, format, total, breadcrumbs) ─▶ flame (cells of FrameLayout)
//!     ─▶ status (selection facts, search result, footer hints or prompt)
//!     ─▶ overlays (hover tooltip, help, loading, terminal too small)
//! ```

mod cells;
mod compare;
mod delta_table;
mod finder;
pub(crate) mod flame;
mod header;
pub mod heatmap;
mod help;
mod overlay;
pub(crate) mod sandwich;
mod source;
mod status;
pub(crate) mod table;
pub(crate) mod tasks;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use crate::app::{App, Mode, Phase, Screen};
use crate::widget::FlameGraph;
use cells::{fill, put};

/// Smallest terminal the explorer draws in.
pub const MIN_WIDTH: u16 = 30;
/// Smallest terminal height the explorer draws in.
pub const MIN_HEIGHT: u16 = 8;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    frame.render_widget(app, frame.area());
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            overlay::too_small(area, buf);
            return;
        }
        match &self.phase {
            Phase::Loading(progress) => overlay::loading(self, progress, area, buf),
            Phase::Ready(ex) => {
                header::render(ex, self.colors, buf);
                heatmap::strip(
                    &ex.tools.strip,
                    ex.tools.applied.slice.range,
                    self.colors,
                    ex.areas.strip,
                    buf,
                );
                match ex.tools.screen {
                    // The graph screen is the library's widget.
                    Screen::Graph => FlameGraph::default()
                        .colors(self.colors)
                        .render_placed(ex, buf),
                    Screen::Table => table::render(ex, self.colors, buf),
                    Screen::Sandwich => sandwich::render(ex, self.colors, buf),
                    Screen::Tasks => tasks::render(ex, self.mode, self.colors, buf),
                    Screen::Source => source::render(ex, self.colors, buf),
                    Screen::Heat => {
                        if let Some(heat) = &ex.tools.heat
                            && let Some(grid) = &heat.grid
                        {
                            let marks = heatmap::Marks {
                                cursor: heat.cursor,
                                range: heat.shown_range(),
                                matches: heat.matches.as_deref(),
                                info: &heat.info,
                            };
                            heatmap::render(grid, &marks, self.colors, ex.areas.graph, buf);
                        }
                    }
                }
                status::render(ex, self, buf);
                if let Some(hover) = &ex.hover {
                    overlay::tooltip(hover, ex.areas.graph, buf);
                }
                if self.mode == Mode::Finder {
                    finder::render(ex, self.colors, buf);
                }
                let right = overlay::live_badge(self, area, buf);
                overlay::job_badge(self, area, right, buf);
                if self.mode == Mode::Help {
                    help::render(area, false, self.help_scroll, buf);
                }
            }
            Phase::Compare(cmp) => {
                compare::render(self, cmp, buf);
                // `top`'s diff mode is a comparison: its badge (rate, frozen) stays.
                let right = if self.top.is_some() {
                    overlay::live_badge(self, area, buf)
                } else {
                    area.right()
                };
                overlay::job_badge(self, area, right, buf);
                if self.mode == Mode::Help {
                    help::render(area, true, self.help_scroll, buf);
                }
            }
        }
    }
}

/// The open prompt in the footer from column `x`: its label, the text typed (its end, when
/// long) and a cursor. Returns where the hints may start.
fn prompt(
    ex: &crate::app::Explorer,
    (x, area): (u16, Rect),
    style: Style,
    buf: &mut Buffer,
) -> u16 {
    let Some(p) = &ex.tools.prompt else {
        return x;
    };
    let bold = style.add_modifier(ratatui::style::Modifier::BOLD);
    let label = p.kind.label();
    let x = put(buf, x, area.y, label, usize::from(area.width), bold);
    let room = usize::from(area.right().saturating_sub(x))
        .saturating_sub(16)
        .max(8);
    let text = crate::text::sanitize(&p.text);
    let shown = tail_that_fits(&text, room);
    // A suggestion is dimmed until it is edited: typing replaces it.
    let text_style = if p.suggested {
        style.add_modifier(ratatui::style::Modifier::DIM | ratatui::style::Modifier::ITALIC)
    } else {
        style
    };
    let x = put(buf, x, area.y, &shown, room, text_style);
    let cursor = style.add_modifier(ratatui::style::Modifier::REVERSED);
    put(buf, x, area.y, " ", 1, cursor) + 2
}

/// The end of `text` that fits in `room` columns with one to spare for the cursor, after
/// a `…` when its start is cut. One pass from the end over what is shown: drawing a prompt
/// of 4 KiB costs what fits on the line, not the prompt's length squared.
fn tail_that_fits(text: &str, room: usize) -> std::borrow::Cow<'_, str> {
    use unicode_segmentation::UnicodeSegmentation as _;
    let width = crate::view::tooltip::display_width;
    // Whole when it fits: a prompt is at most 4 KiB, so this one pass is bounded too.
    if text.is_empty() || width(text) < room {
        return text.into();
    }
    let mut used = 2; // the `…` and the cursor
    let mut start = text.len();
    for (i, g) in text.grapheme_indices(true).rev() {
        used += width(g);
        if used > room {
            break;
        }
        start = i;
    }
    format!("…{}", &text[start..]).into()
}

#[cfg(test)]
mod tests {
    use super::tail_that_fits;
    use crate::view::tooltip::display_width;

    /// What the prompt showed before: the start cut one character at a time until the rest
    /// fits (quadratic, kept here as the oracle).
    fn cut_one_by_one(text: &str, room: usize) -> String {
        let chars: Vec<char> = text.chars().collect();
        let mut shown = text.to_owned();
        let mut skip = 0;
        while display_width(&shown) + 1 > room && skip < chars.len() {
            skip += 1;
            shown = std::iter::once('…')
                .chain(chars[skip..].iter().copied())
                .collect();
        }
        shown
    }

    #[test]
    fn a_long_prompt_shows_its_end() {
        assert_eq!(tail_that_fits("abc", 4), "abc");
        assert_eq!(tail_that_fits("abcd", 4), "…cd");
        assert_eq!(tail_that_fits("日本語", 5), "…語");
        let long = format!("{}end", "x".repeat(4093));
        let shown = tail_that_fits(&long, 60);
        assert!(shown.starts_with('…') && shown.ends_with("xend"), "{shown}");
        assert_eq!(display_width(&shown) + 1, 60);
        for text in [
            "",
            "a",
            "path/to/a/file.svg",
            "日本語のファイル.svg",
            "a日b本c語d",
        ] {
            for room in 0..24 {
                assert_eq!(
                    tail_that_fits(text, room),
                    cut_one_by_one(text, room),
                    "{text:?} in {room}"
                );
            }
        }
    }
}
