//! Stage: state → header line: file name, format, total weight with its unit, and the zoom
//! path as breadcrumbs (cut from the left when long), with the view's orientation.

use std::fmt::Write as _;
use std::path::Path;

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::{fill, put};
use crate::app::Explorer;
use crate::input::stap::{OFF_CPU, ON_CPU};
use crate::profile::{NodeId, Unit};
use crate::text::{sanitize, thousands_str};
use crate::view::color::{self, ColorMode};
use crate::view::tooltip::{display_width, ellipsize};
use crate::view::totals::{Span, total_text, with_event};

/// Separator between breadcrumbs.
const CRUMB: &str = " › ";
/// Separator between the summary and the breadcrumbs.
const BAR: &str = " │ ";

/// Draws the header.
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let area = ex.areas.header;
    if area.height == 0 {
        return;
    }
    let style = color::chrome(colors);
    fill(buf, area.x, area.right(), area.y, " ", style);
    let orientation = if ex.flame { " flame " } else { " icicle " };
    // Transforms and view toggles, newest last, cut from the left to a third of the line.
    let mut view = ex.tools.applied.crumbs_named(&ex.original().samples);
    view.extend(ex.tools.applied.flags().into_iter().map(str::to_owned));
    let right = if view.is_empty() {
        orientation.to_owned()
    } else {
        let max = usize::from(area.width / 3).max(8);
        format!(" {} │{orientation}", last_crumbs(&view, max))
    };
    let right = right.as_str();
    let right_w = display_width(right);
    let room = usize::from(area.width).saturating_sub(right_w);
    // The breadcrumbs may take up to half the line; the summary gets the rest.
    let crumbs_w = display_width(&breadcrumbs(ex, room.saturating_sub(3).div_ceil(2)));
    let left = ellipsize(
        &summary(ex),
        room.saturating_sub(crumbs_w + 3).max(room / 2),
    );
    let bold = style.add_modifier(Modifier::BOLD);
    let x = put(buf, area.x, area.y, &left, room, bold);
    let used = usize::from(x - area.x);
    let crumbs = breadcrumbs(ex, room.saturating_sub(used + 3));
    if !crumbs.is_empty() && used + 3 < room {
        put(buf, x, area.y, BAR, 3, style);
        put(buf, x + 3, area.y, &crumbs, room - used - 3, style);
    }
    let rx = area
        .right()
        .saturating_sub(u16::try_from(right_w).unwrap_or(0));
    put(buf, rx, area.y, right, right_w, style);
}

/// The last crumbs that fit in `max` columns, `… › ` first when some were left out; the
/// newest alone is cut at its end.
fn last_crumbs(crumbs: &[String], max: usize) -> String {
    let all = crumbs.join(CRUMB);
    if display_width(&all) <= max || crumbs.len() < 2 {
        return ellipsize(&all, max);
    }
    let tail = |first: usize| format!("…{CRUMB}{}", crumbs[first..].join(CRUMB));
    let mut first = 1;
    while first + 1 < crumbs.len() && display_width(&tail(first)) > max {
        first += 1;
    }
    ellipsize(&tail(first), max)
}

/// `file · format · total (event)`, and skipped lines if any: a total of CPU time with
/// the span it was taken over (`9.98 s CPU in 5.00 s on 2 CPUs (cpu-clock)`).
fn summary(ex: &Explorer) -> String {
    let p = &ex.profile;
    let file = Path::new(&p.source)
        .file_name()
        .map_or_else(|| p.source.clone(), |f| f.to_string_lossy().into_owned());
    let format = p
        .stats
        .format
        .map_or_else(|| "?".to_owned(), |f| f.to_string());
    let total = match p.stats.unit {
        Unit::OnOffCpu
            if p.tree.child_named(NodeId::ROOT, ON_CPU).is_some()
                || p.tree.child_named(NodeId::ROOT, OFF_CPU).is_some() =>
        {
            let half = |name| {
                p.tree
                    .child_named(NodeId::ROOT, name)
                    .map_or(0, |id| p.tree.node(id).total)
            };
            // Two figures, never summed: their units differ.
            format!(
                "{} on-CPU samples, {} off-CPU units",
                thousands_str(&p.format_weight(half(ON_CPU))),
                thousands_str(&p.format_weight(half(OFF_CPU)))
            )
        }
        // A transform (focus, bottom-up) moved the halves: on- and off-CPU weights mixed.
        Unit::OnOffCpu => format!(
            "{} (on-CPU samples + off-CPU units)",
            thousands_str(&p.format_weight(p.tree.total()))
        ),
        _ => total_text(
            p,
            p.tree.total(),
            Span::of(ex.original(), ex.tools.applied.slice.range),
        ),
    };
    let total = with_event(&total, p.stats.event.as_deref());
    let mut out = format!(" {} · {format} · {total}", sanitize(&file));
    if let Some(m) = crate::report::metric_text(&p.stats) {
        let _ = write!(out, " · {m}");
    }
    if let Some(m) = &p.stats.metric {
        // The event and pprof's metric are named already.
        let named = p.stats.event.as_ref() == Some(&m.name) || p.stats.pprof.is_some();
        let name = if named {
            String::new()
        } else {
            format!(" {}", sanitize(&m.name))
        };
        let _ = write!(out, " · metric {}/{}{name} (m)", m.index + 1, m.count);
    }
    let skipped = p.stats.skipped_lines();
    if skipped > 0 {
        let _ = write!(out, " · {skipped} lines skipped");
    }
    out
}

/// The zoom path `all › a › b`, cut from the left to `max` columns.
fn breadcrumbs(ex: &Explorer, max: usize) -> String {
    let tree = &ex.profile.tree;
    let mut names: Vec<String> = std::iter::once(NodeId::ROOT)
        .chain(tree.path(ex.zoom.root))
        .map(|id| sanitize(ex.shown_frame(id)).into_owned())
        .collect();
    if !ex.zoom.is_frame(&ex.index) {
        names.push("[part]".to_owned());
    }
    // The deepest names that fit after `… › `, counted from the end: a zoom 100,000
    // frames deep costs one pass, not one join per name left out.
    let sep = display_width(CRUMB);
    let widths: Vec<usize> = names.iter().map(|n| display_width(n)).collect();
    let whole = widths.iter().sum::<usize>() + sep * names.len().saturating_sub(1);
    let out = if whole <= max || names.len() < 2 {
        names.join(CRUMB)
    } else {
        let mut first = names.len().saturating_sub(1);
        let mut used = 1 + sep + widths.last().copied().unwrap_or(0);
        while first > 1 && used + widths[first - 1] + sep <= max {
            first -= 1;
            used += widths[first] + sep;
        }
        format!("…{CRUMB}{}", names[first..].join(CRUMB))
    };
    if display_width(&out) > max {
        ellipsize(&out, max)
    } else {
        out
    }
}
