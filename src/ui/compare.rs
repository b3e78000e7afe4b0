//! Stage: compare state → buffer. A header with both files and the view, then the view:
//! two panes (each a label, the side's own header line and graph) side by side, one graph
//! painted by change of share (differential), or the delta table; the status (both sides'
//! facts), search line and footer come from the driver's explorer. Only reads the state.

use std::fmt::Write as _;
use std::path::Path;

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::{delta_table, fill, flame, header, overlay, put, status};
use crate::app::App;
use crate::app::compare::{Compare, Side, View};
use crate::profile::significance;
use crate::text::{sanitize, thousands};
use crate::view::color::{self, ColorMode, Theme};
use crate::view::delta::Paint;
use crate::view::tooltip::{display_width, ellipsize};

/// Draws compare mode.
pub fn render(app: &App, cmp: &Compare, buf: &mut Buffer) {
    top_line(cmp, &cmp.applied().summary(), app.colors, buf);
    match cmp.view {
        View::SideBySide => {
            for side in Side::BOTH {
                pane(cmp, side, app.colors, Paint::Names, buf);
            }
            let d = cmp.areas.divider;
            for y in d.top()..d.bottom() {
                fill(buf, d.x, d.right(), y, "│", color::chrome(app.colors));
            }
        }
        View::Differential => pane(cmp, cmp.driver_side(), app.colors, cmp.paint(), buf),
        View::Table => delta_table::render(cmp, app.colors, buf),
    }
    status::render(cmp.driver(), app, buf);
    other_side_matches(cmp, buf);
    if let Some(hover) = &cmp.hover {
        let graph = cmp
            .panes()
            .into_iter()
            .map(|s| cmp.side(s).areas.graph)
            .find(|g| g.contains((hover.x, hover.y).into()));
        if let Some(graph) = graph {
            overlay::tooltip(hover, graph, buf);
        }
    }
    super::finder::render_compare(cmp, app.colors, buf);
}

fn file_name(source: &str) -> String {
    let name = Path::new(source)
        .file_name()
        .map_or_else(|| source.to_owned(), |f| f.to_string_lossy().into_owned());
    sanitize(&name).into_owned()
}

/// `BEFORE a → AFTER b` with both sides' sample counts (a warning first when a side has
/// too few), the transforms applied to both, the legend of the differential colours, and
/// the view.
fn top_line(cmp: &Compare, transforms: &str, colors: ColorMode, buf: &mut Buffer) {
    let area = cmp.areas.header;
    if area.height == 0 {
        return;
    }
    let style = color::chrome(colors);
    fill(buf, area.x, area.right(), area.y, " ", style);
    let n = View::ALL.iter().position(|&v| v == cmp.view).unwrap_or(0) + 1;
    let tab = if cmp.view == View::SideBySide {
        "Tab: pane · "
    } else {
        ""
    };
    let right = format!(" {tab}v: view {n}/3 {} ", cmp.view.title());
    let right_w = display_width(&right);
    let (b, a) = (&cmp.before.profile.source, &cmp.after.profile.source);
    let files = |each: usize| {
        if b == a {
            format!(
                "{}: BEFORE → AFTER counts",
                crate::view::tooltip::middle_cut(&file_name(b), each)
            )
        } else {
            format!(
                "{} → {}",
                crate::view::tooltip::middle_cut(&file_name(b), each),
                crate::view::tooltip::middle_cut(&file_name(a), each)
            )
        }
    };
    let room = usize::from(area.width).saturating_sub(right_w + 1);
    let legend = if colors == ColorMode::Mono {
        "+ grew, - shrank"
    } else {
        "red grew, blue shrank"
    };
    let other = cmp.driver_side().other().label();
    // Both sides' sample counts, and a warning ahead of everything for a small side: the
    // shares of a side of a few samples are noise (see `profile::significance`).
    let totals = [&cmp.before.profile, &cmp.after.profile].map(|p| significance::sample_total(p));
    let counts = format!(
        "{} → {} samples",
        thousands(totals[0]),
        thousands(totals[1])
    );
    let warn =
        significance::small_sides(totals)
            .iter()
            .fold(String::new(), |mut out, (side, n)| {
                let _ = write!(out, "⚠ {side} has only {} samples · ", thousands(*n));
                out
            });
    let crumbs = if transforms.is_empty() {
        String::new()
    } else {
        format!(" · {}", sanitize(transforms))
    };
    let fixed = |lead: &str| {
        display_width(lead) + display_width(&warn) + display_width(&counts) + display_width(&crumbs)
    };
    // The legend of the differential colours loses its key hint when the counts would not
    // fit beside it.
    let lead = match cmp.view {
        View::Differential => {
            let long = format!(" Δ share: {legend} · b: {other}'s shape │ ");
            if fixed(&long) <= room {
                long
            } else {
                format!(" Δ share: {legend} │ ")
            }
        }
        _ => " ".to_owned(),
    };
    // The warning, the breadcrumbs of the transforms and the counts are kept whole when
    // they fit: the file names give way first (the pane labels name the files too).
    let keep = room.saturating_sub(fixed(&lead) + 3);
    // Each name cut in its middle, so that both stay told apart (their ends differ).
    let each = (0..=keep).rev().find(|&n| display_width(&files(n)) <= keep);
    let files = match each {
        _ if display_width(&files(usize::MAX)) <= keep => format!("{} · ", files(usize::MAX)),
        Some(n) if n >= 9 => format!("{} · ", files(n)),
        _ => String::new(),
    };
    let left = format!("{lead}{warn}{files}{counts}{crumbs}");
    let bold = style.add_modifier(Modifier::BOLD);
    put(buf, area.x, area.y, &ellipsize(&left, room), room, bold);
    if !warn.is_empty() {
        let at = area.x + u16::try_from(display_width(&lead)).unwrap_or(0);
        let width = room.saturating_sub(display_width(&lead));
        let text = ellipsize(warn.trim_end_matches(" · "), width);
        put(
            buf,
            at,
            area.y,
            &text,
            width,
            bold.patch(color::error(colors)),
        );
    }
    let rx = area
        .right()
        .saturating_sub(u16::try_from(right_w).unwrap_or(0));
    put(buf, rx, area.y, &right, right_w, style);
}

/// One side's pane: label (reversed when keys go there), the note that the selection is not
/// in this profile, the side's own header line, and its graph.
fn pane(cmp: &Compare, side: Side, colors: ColorMode, paint: Paint<'_>, buf: &mut Buffer) {
    let ex = cmp.side(side);
    let i = usize::from(side == Side::After);
    let label = cmp.areas.labels[i];
    if label.height > 0 {
        let chrome = color::chrome(colors);
        let active = side == cmp.driver_side() && cmp.view == View::SideBySide;
        let style = if active {
            chrome.add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            chrome.add_modifier(Modifier::BOLD)
        };
        // The pane keys go to is marked in words too (reverse video alone is lost on a
        // monochrome or reversed chrome).
        let text = match cmp.view {
            View::Differential => format!("Δ {}", side.label()),
            _ if active => format!("▶ {}", side.label()),
            _ => format!("  {}", side.label()),
        };
        fill(buf, label.x, label.right(), label.y, " ", style);
        let w = usize::from(label.width);
        put(buf, label.x, label.y, &format!(" {text:<w$}"), w, style);
        let note = cmp.areas.notes[i];
        if note.width > 0 {
            fill(buf, note.x, note.right(), note.y, " ", chrome);
            let text = format!(" ✗ not in {} ", side.label());
            let style = chrome.patch(color::error(colors));
            put(buf, note.x, note.y, &text, usize::from(note.width), style);
        }
    }
    header::render(ex, colors, buf);
    flame::render_with(ex, (colors, &Theme::default()), paint, buf);
}

/// When the search finds nothing on the driver's side but does on the other, says so.
fn other_side_matches(cmp: &Compare, buf: &mut Buffer) {
    let area = cmp.driver().areas.search;
    if area.height == 0 || !cmp.only_other_matches() {
        return;
    }
    let d = cmp.driver_side();
    let n = cmp
        .side(d.other())
        .search
        .matches
        .as_ref()
        .map_or(0, crate::view::search::Matches::len);
    let text = format!(
        "No frame matches /{}/ in {} · {} in {} (n goes there)",
        sanitize(&cmp.driver().search.query),
        d.label(),
        crate::text::thousands(n as u64),
        d.other().label(),
    );
    fill(
        buf,
        area.x,
        area.right(),
        area.y,
        " ",
        ratatui::style::Style::new(),
    );
    put(
        buf,
        area.x,
        area.y,
        &text,
        usize::from(area.width),
        ratatui::style::Style::new(),
    );
}
