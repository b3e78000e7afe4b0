//! Stage: state → boxes drawn over the screen: the hover tooltip, the loading progress
//! while input still streams in, and the "terminal too small" message.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::{MIN_HEIGHT, MIN_WIDTH};
use crate::app::explorer::Hover;
use crate::app::{App, Progress};
use crate::text::{Share, sanitize, share};
use crate::view::tooltip::{display_width, ellipsize};

/// Widest hover tooltip.
const TIP_WIDTH: u16 = 64;

/// The tooltip of the cell under the mouse, beside the pointer and inside the graph.
pub fn tooltip(hover: &Hover, graph: Rect, buf: &mut Buffer) {
    let inner_w = graph.width.saturating_sub(4).min(TIP_WIDTH - 2);
    if inner_w < 10 || graph.height < 4 {
        return;
    }
    let max_lines = usize::from(graph.height.saturating_sub(2));
    let lines = hover.tip.lines(usize::from(inner_w), max_lines);
    let text_w = lines
        .iter()
        .map(|l| display_width(&l.text))
        .max()
        .unwrap_or(0);
    let w = u16::try_from(text_w).unwrap_or(inner_w).min(inner_w) + 2;
    let h = u16::try_from(lines.len()).unwrap_or(0) + 2;
    let x = if hover.x + 2 + w <= graph.right() {
        hover.x + 2
    } else {
        hover.x.saturating_sub(w + 1).max(graph.x)
    };
    let y = if hover.y + 1 + h <= graph.bottom() {
        hover.y + 1
    } else {
        hover.y.saturating_sub(h).max(graph.y)
    };
    let rect = Rect::new(x, y, w, h).intersection(graph);
    Clear.render(rect, buf);
    let text: Vec<Line<'_>> = lines
        .iter()
        .map(|l| {
            let style = if l.title {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Line::styled(l.text.as_str(), style)
        })
        .collect();
    Paragraph::new(text)
        .block(Block::bordered())
        .render(rect, buf);
}

/// The loading screen: what is read, how much, how fast.
pub fn loading(app: &App, p: &Progress, area: Rect, buf: &mut Buffer) {
    let secs = p.elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        format!(" · {}/s", bytes(p.bytes as f64 / secs))
    } else {
        String::new()
    };
    let amount = match p.total {
        Some(t) if t > 0 => {
            let left = t.saturating_sub(p.bytes) as f64;
            let eta = if secs > 0.0 && p.bytes > 0 {
                format!(" · about {:.0} s left", left / (p.bytes as f64 / secs))
            } else {
                String::new()
            };
            format!(
                "{:.0}% of {}{rate}{eta}",
                p.bytes as f64 * 100.0 / t as f64,
                bytes(t as f64)
            )
        }
        // `top` counts no bytes: its first refresh is what it waits for.
        _ if app.top.is_some() => "waiting for perf's first refresh…".to_owned(),
        _ => format!("{} read{rate}", bytes(p.bytes as f64)),
    };
    let mut lines = vec![
        Line::styled(
            format!("Reading {}…", sanitize(&app.source)),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::raw(amount),
    ];
    if let Some(t) = p.total.filter(|&t| t > 0) {
        let width = usize::from(area.width.saturating_sub(10)).min(50);
        let done = (u128::from(p.bytes.min(t)) * width as u128 / u128::from(t)) as usize;
        lines.push(Line::raw(format!(
            "{}{}",
            "█".repeat(done),
            "░".repeat(width - done)
        )));
    }
    if let Some(why) = p
        .silence()
        .filter(|_| app.top.is_none() && app.recording.is_none())
    {
        lines.push(Line::raw(""));
        for piece in textwrap_words(&why, usize::from(area.width.saturating_sub(4)).max(20)) {
            lines.push(Line::raw(piece));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::raw("q quits"));
    let h = u16::try_from(lines.len()).unwrap_or(0);
    let top = area.y + area.height.saturating_sub(h) / 2;
    let rect = Rect::new(area.x, top, area.width, h.min(area.height));
    Paragraph::new(lines)
        .alignment(ratatui::layout::Alignment::Center)
        .render(rect, buf);
}

/// While a change of the view is computed in the background: a badge at the right of the
/// header's first row (left of `right`) with what, for how long, and how to give it up.
pub fn job_badge(app: &App, area: Rect, right: u16, buf: &mut Buffer) {
    let Some(p) = &app.jobs.pending else {
        return;
    };
    let secs = p.elapsed.as_secs_f64();
    let room = usize::from(right.saturating_sub(area.x));
    let tail = format!("… {secs:.1} s · Esc cancels ");
    let label = ellipsize(
        &p.label,
        room.saturating_sub(display_width(&tail) + 3).max(8),
    );
    let text = format!(" ⟳ {label}{tail}");
    let width = u16::try_from(display_width(&text))
        .unwrap_or(u16::MAX)
        .min(right.saturating_sub(area.x));
    buf.set_stringn(
        right.saturating_sub(width),
        area.y,
        &text,
        usize::from(width),
        Style::new().add_modifier(Modifier::REVERSED),
    );
}

/// While the input still streams in (or updates are frozen): a badge at the right of the
/// header with how much was read and how fast, or that the view is frozen. Returns the
/// column where it starts (the right edge when there is none).
pub fn live_badge(app: &App, area: Rect, buf: &mut Buffer) -> u16 {
    let text = match (&app.streaming, app.frozen) {
        _ if app.top.is_some() => top_badge(app, area.width),
        (_, true) if app.pending.is_some() => {
            " ❚❚ frozen, newer data waiting · z resumes ".to_owned()
        }
        (_, true) => " ❚❚ frozen · z resumes ".to_owned(),
        (Some(p), false) => {
            let secs = p.elapsed.as_secs_f64();
            let rate = if secs > 0.0 {
                format!(" · {}/s", bytes(p.bytes as f64 / secs))
            } else {
                String::new()
            };
            // A preview of a big streamed tree leaves its lightest frames for the end.
            let preview = app.explorer().and_then(|e| {
                let total = e.profile.tree.node(crate::profile::NodeId::ROOT).total;
                let min = e.profile.stats.preview_min?;
                (total > 0).then(|| short_percent(share(min, total)))
            });
            let read = bytes(p.bytes as f64);
            if let Some(rec) = app.recording.as_ref().filter(|r| r.running) {
                let what = crate::text::sanitize(&rec.what);
                let what = crate::view::tooltip::ellipsize(&what, usize::from(area.width / 4));
                format!(" ⟳ recording {what}: {read}{rate} · Ctrl-C stops ")
            } else {
                match preview {
                    _ if p.silence().is_some() => format!(
                        " ⟳ live: {read} · nothing new for {} s: perf record --no-buffering? · z freezes ",
                        p.idle.as_secs()
                    ),
                    Some(pct) if area.width >= 120 => format!(
                        " ⟳ live: {read} read{rate} · frames under {pct} come at the end · z freezes "
                    ),
                    Some(pct) => format!(" ⟳ live: {read} · frames ≥ {pct} · z freezes "),
                    None => format!(" ⟳ live: {read} read{rate} · z freezes "),
                }
            }
        }
        (None, false) if app.recording.as_ref().is_some_and(|r| r.running) => {
            // perf has not written yet (or the first profile is on its way).
            " ⟳ recording · Ctrl-C stops ".to_owned()
        }
        (None, false) => return area.right(),
    };
    let width = u16::try_from(text.chars().count())
        .unwrap_or(u16::MAX)
        .min(area.width);
    let x = area.right().saturating_sub(width);
    buf.set_stringn(
        x,
        area.y,
        &text,
        usize::from(width),
        Style::new().add_modifier(Modifier::REVERSED),
    );
    x
}

/// `flametui top`'s badge: the mode, samples per second, samples lost, the age of the
/// newest refresh and flametui's own CPU use; or that the screen is frozen.
fn top_badge(app: &App, width: u16) -> String {
    let Some(top) = &app.top else {
        return String::new();
    };
    if app.frozen {
        return match top.pending {
            0 => " ❚❚ frozen · z resumes ".to_owned(),
            1 => " ❚❚ frozen · 1 update pending · z resumes ".to_owned(),
            n => format!(" ❚❚ frozen · {n} updates pending · z resumes "),
        };
    }
    let ago = top.now.saturating_sub(top.last.at).as_secs_f64();
    let cpu = top
        .last
        .cpu
        .map(|c| format!(" · cpu {:.1}%", c * 100.0))
        .unwrap_or_default();
    let rate = crate::text::thousands(top.rate);
    let lost = crate::text::thousands(top.lost);
    let mode = top.mode_short();
    let fits = |t: &String| t.chars().count() <= usize::from(width / 2);
    let full = format!(
        " ⟳ {mode} · {rate} samples/s · lost {lost} · {ago:.1} s ago{} · z freezes ",
        cpu.replace(" · cpu", " · flametui CPU")
    );
    let medium = format!(" ⟳ {mode} · {rate}/s · lost {lost} · {ago:.1} s{cpu} ");
    if fits(&full) {
        full
    } else if fits(&medium) {
        medium
    } else {
        format!(" ⟳ {rate}/s · lost {lost} · {ago:.0} s{cpu} ")
    }
}

/// A share with two significant digits (`0.0042%`, `0.31%`, `12%`), printed as every
/// percentage is ([`Share`]'s exact rounding).
fn short_percent(s: Share) -> String {
    // Digits after the point: none from 10% up, 1 from 1%, 2 from 0.1%, … (at most 9).
    let pct = s.percent();
    let digits = if pct >= 10.0 {
        0
    } else {
        (1..=9usize)
            .find(|&d| pct >= 10f64.powi(1 - i32::try_from(d).unwrap_or(9)))
            .unwrap_or(9)
    };
    format!("{s:.digits$}%")
}

/// Says the terminal is too small instead of drawing a broken screen.
pub fn too_small(area: Rect, buf: &mut Buffer) {
    let text = format!(
        "Terminal too small ({}×{}); flametui needs {MIN_WIDTH}×{MIN_HEIGHT}. q quits.",
        area.width, area.height
    );
    Paragraph::new(text)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

/// Bytes as `12.3 MB`.
fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    let digits = usize::from(unit != 0);
    format!("{v:.digits$} {}", UNITS.get(unit).copied().unwrap_or("B"))
}

/// `text` cut at spaces into lines of at most `width` columns (a word longer than that
/// alone on its line).
fn textwrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().map_or(0, |l| display_width(l));
        if line > 0 && line + 1 + display_width(word) > width {
            lines.push(String::new());
        }
        if let Some(l) = lines.last_mut() {
            if !l.is_empty() {
                l.push(' ');
            }
            l.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_threshold_is_shown_with_two_significant_digits() {
        assert_eq!(short_percent(share(7, 1_000_000)), "0.00070%");
        assert_eq!(short_percent(share(42, 10_000)), "0.42%");
        assert_eq!(short_percent(share(1, 3)), "33%");
        assert_eq!(short_percent(share(1, 40)), "2.5%");
    }
}
