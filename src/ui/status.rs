//! Stage: state → the bottom of the screen: facts about the selection (wrapped, title
//! bold), the search result line (`Matched: X% (N of M)` or the regex error), and the footer:
//! key hints from the keymap, or the search prompt.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::{fill, put};
use crate::app::{App, Explorer, Mode, keymap};
use crate::profile::Unit;
use crate::text::{percent, sanitize, thousands, thousands_str};
use crate::view::color;
use crate::view::tooltip::{display_width, weight_text};

/// Draws status, search line and footer.
pub fn render(ex: &Explorer, app: &App, buf: &mut Buffer) {
    let area = ex.areas.status;
    for (line, y) in ex.status.iter().zip(area.y..area.bottom()) {
        let style = if line.title {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        put(buf, area.x, y, &line.text, usize::from(area.width), style);
    }
    search_line(ex, app, buf);
    footer(ex, app, buf);
}

fn search_line(ex: &Explorer, app: &App, buf: &mut Buffer) {
    let area = ex.areas.search;
    if area.height == 0 {
        return;
    }
    let s = &ex.search;
    let width = usize::from(area.width);
    if let Some(message) = &ex.tools.message {
        put(buf, area.x, area.y, &sanitize(message), width, Style::new());
        return;
    }
    if let Some(err) = &s.error {
        let text = format!("✗ invalid regex: {err}");
        put(buf, area.x, area.y, &text, width, color::error(app.colors));
        return;
    }
    let case = if s.ignore_case {
        " · case-insensitive"
    } else {
        ""
    };
    let text = match &s.matches {
        None => format!("Type a regex; matching frames light up as you type{case}"),
        Some(m) if m.is_empty() => format!("No frame matches /{}/{case}", sanitize(&s.query)),
        Some(m) => {
            let p = &ex.profile;
            let total = p.tree.total();
            let (start, _) = ex.selected.interval(&ex.index);
            let at = m
                .position(start, ex.selected.depth(&ex.index))
                .map(|i| format!(" · selection is #{}", thousands(i as u64)))
                .unwrap_or_default();
            let share = match p.stats.unit {
                // On- and off-CPU weights have different units: no unit name for the sum.
                Unit::Samples | Unit::OnOffCpu => format!(
                    "{} of {}{}",
                    thousands_str(&p.format_weight(m.weight)),
                    thousands_str(&p.format_weight(total)),
                    if p.stats.unit == Unit::Samples {
                        " samples"
                    } else {
                        ""
                    }
                ),
                _ => format!(
                    "{} of {}",
                    weight_text(p, m.weight, false),
                    weight_text(p, total, false)
                ),
            };
            format!(
                "Matched: {:.2}% ({share}) · {} frames{at}{case}",
                percent(m.weight, total),
                thousands(m.len() as u64),
            )
        }
    };
    put(buf, area.x, area.y, &text, width, Style::new());
}

fn footer(ex: &Explorer, app: &App, buf: &mut Buffer) {
    let area = ex.areas.footer;
    if area.height == 0 {
        return;
    }
    let style = color::chrome(app.colors);
    fill(buf, area.x, area.right(), area.y, " ", style);
    let mut x = area.x;
    if app.mode == Mode::Search {
        x = put(buf, x, area.y, "/", 1, style.add_modifier(Modifier::BOLD));
        let query = sanitize(&ex.search.query);
        x = put(buf, x, area.y, &query, usize::from(area.width) / 2, style);
        let cursor = style.add_modifier(Modifier::REVERSED);
        x = put(buf, x, area.y, " ", 1, cursor) + 2;
    }
    if app.mode == Mode::Prompt {
        x = super::prompt(ex, (x, area), style, buf);
    }
    for (keys, word) in keymap::hints_in(app.mode, app.comparing()) {
        let need = display_width(keys) + display_width(word) + 3;
        if usize::from(area.right().saturating_sub(x)) < need {
            break;
        }
        x = put(
            buf,
            x + 1,
            area.y,
            keys,
            display_width(keys),
            style.add_modifier(Modifier::BOLD),
        );
        x = put(buf, x + 1, area.y, word, display_width(word), style) + 1;
    }
}
