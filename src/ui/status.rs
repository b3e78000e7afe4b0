//! Stage: state → the bottom of the screen: facts about the selection (wrapped, title
//! bold), the search result line (`Matched: X% (N of M)` or the regex error), and the footer:
//! key hints from the keymap, or the search prompt.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::{fill, put};
use crate::app::keymap::{self, Hint};
use crate::app::{App, Explorer, Mode};
use crate::profile::Unit;
use crate::profile::scope::{OFF_CPU, is_halved, scope_label, unit_scopes};
use crate::text::{sanitize, share, thousands, thousands_str};
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
                .position(&ex.index, start, ex.selected.depth(&ex.index))
                .map(|i| format!(" · selection is #{}", thousands(i as u64)))
                .unwrap_or_default();
            let frames = match m.len() {
                1 => "1 frame".to_owned(),
                n => format!("{} frames", thousands(n as u64)),
            };
            if is_halved(&p.tree) {
                // On- and off-CPU weights have different units: each half on its own.
                let parts = |amounts: bool| -> String {
                    let each: Vec<String> = unit_scopes(&p.tree)
                        .into_iter()
                        .map(|h| {
                            let off = p.tree.name(h) == OFF_CPU;
                            let w = if off {
                                m.offcpu_weight
                            } else {
                                m.weight - m.offcpu_weight
                            };
                            let whole = p.tree.node(h).total;
                            let mut part =
                                format!("{} {:.2}%", scope_label(&p.tree, h), share(w, whole));
                            if amounts {
                                let _ = write!(
                                    part,
                                    " ({} of {})",
                                    thousands_str(&p.format_weight(w)),
                                    thousands_str(&p.format_weight(whole))
                                );
                            }
                            part
                        })
                        .collect();
                    format!("Matched: {} · {frames}{at}{case}", each.join(" · "))
                };
                // The amounts go first when the line would not fit.
                let long = parts(true);
                if display_width(&long) <= width {
                    long
                } else {
                    parts(false)
                }
            } else {
                let amount = match p.stats.unit {
                    Unit::Samples => format!(
                        "{} of {} samples",
                        thousands_str(&p.format_weight(m.weight)),
                        thousands_str(&p.format_weight(total))
                    ),
                    _ => format!(
                        "{} of {}",
                        weight_text(p, m.weight, false),
                        weight_text(p, total, false)
                    ),
                };
                format!(
                    "Matched: {:.2}% ({amount}) · {frames}{at}{case}",
                    share(m.weight, total),
                )
            }
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
        // A query put back by `/` or ↑/↓ shows selected: typing replaces it.
        let shown = if ex.search.suggested {
            style.add_modifier(Modifier::UNDERLINED)
        } else {
            style
        };
        x = put(buf, x, area.y, &query, usize::from(area.width) / 2, shown);
        let cursor = style.add_modifier(Modifier::REVERSED);
        x = put(buf, x, area.y, " ", 1, cursor) + 2;
    }
    if app.mode == Mode::Prompt {
        x = super::prompt(ex, (x, area), style, buf);
    }
    let hints: Vec<Hint> = keymap::hints_in(app.mode, app.comparing()).collect();
    let room = usize::from(area.right().saturating_sub(x));
    for hint in fit_hints(&hints, room) {
        let (keys, word) = (hint.keys, hint.word);
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

/// Columns a hint takes in the footer: a space, the keys, a space, the word, a space.
fn hint_width(h: &Hint) -> usize {
    display_width(h.keys) + display_width(h.word) + 3
}

/// The hints that fit in `room` columns: first the essential ones (help, quit), then the
/// main ones (move, zoom, search, table, finder, callers / callees), then the others in
/// order while they fit. They are shown in keymap order, the essential ones last.
fn fit_hints(hints: &[Hint], room: usize) -> Vec<Hint> {
    let mut left = room;
    let mut kept = vec![false; hints.len()];
    let passes: [&dyn Fn(&Hint) -> bool; 2] = [&|h| h.essential, &|h| h.main && !h.essential];
    let mut all_main = true;
    for (n, pass) in passes.into_iter().enumerate() {
        for (i, h) in hints.iter().enumerate().filter(|(_, h)| pass(h)) {
            if hint_width(h) <= left {
                left -= hint_width(h);
                kept[i] = true;
            } else if n == 1 {
                all_main = false;
            }
        }
    }
    for (i, h) in hints.iter().enumerate() {
        if !all_main {
            break;
        }
        if h.essential || h.main {
            continue;
        }
        if hint_width(h) > left {
            break;
        }
        left -= hint_width(h);
        kept[i] = true;
    }
    let chosen = |essential: bool| {
        hints
            .iter()
            .zip(&kept)
            .filter(move |(h, k)| **k && h.essential == essential)
            .map(|(h, _)| *h)
    };
    chosen(false).chain(chosen(true)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_footers_keep_help_and_quit() {
        let hints: Vec<Hint> = keymap::hints(Mode::Normal).collect();
        let words =
            |room| -> Vec<&str> { fit_hints(&hints, room).iter().map(|h| h.word).collect() };
        let all = words(1000);
        assert_eq!(all.len(), hints.len());
        assert!(
            all.ends_with(&["find", "callers", "source", "help", "quit"]),
            "{all:?}"
        );
        let narrow = words(60);
        assert!(narrow.starts_with(&["move", "zoom"]), "{narrow:?}");
        assert!(
            narrow.contains(&"help") && narrow.contains(&"quit"),
            "{narrow:?}"
        );
        assert!(!narrow.contains(&"callers"), "{narrow:?}");
        // At 80 columns the tools a newcomer needs stay: table, finder, callers.
        let eighty = words(80);
        for w in [
            "move", "zoom", "search", "table", "find", "callers", "help", "quit",
        ] {
            assert!(eighty.contains(&w), "{w}: {eighty:?}");
        }
        // Never wider than the room; no other hint before every main one; essential last.
        for room in 0..120 {
            let fit = fit_hints(&hints, room);
            assert!(fit.iter().map(hint_width).sum::<usize>() <= room, "{room}");
            let mains = hints.iter().filter(|h| h.main && !h.essential).count();
            let kept_mains = fit.iter().filter(|h| h.main && !h.essential).count();
            if fit.iter().any(|h| !h.main && !h.essential) {
                assert_eq!(kept_mains, mains, "{room}");
            }
            let others = fit.iter().filter(|h| !h.essential).count();
            assert!(fit.iter().skip(others).all(|h| h.essential), "{room}");
        }
        assert!(words(10).is_empty() || words(10).iter().all(|w| ["help", "quit"].contains(w)));
    }
}
