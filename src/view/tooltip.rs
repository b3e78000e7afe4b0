//! Stage: call tree → the facts shown about one frame (or group of narrow frames), for the
//! status area and the hover tooltip, and their wrapping to a width. Names are sanitized.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

pub use super::width::{display_width, ellipsize, middle_cut};

use super::index::TreeIndex;
use super::layout::{Target, Viewport};
use super::names::NameTable;
use crate::profile::functions::FunctionTotals;
use crate::profile::sandwich::total_under;
use crate::profile::scope::{OFF_CPU, is_halved, scope_label, scope_of, unit_scopes};
use crate::profile::{CallTree, NodeId, Profile, Unit};
use crate::text::{sanitize, share, thousands, thousands_str};

/// Title (a full frame name) and facts of one target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tooltip {
    /// The frame's full name, sanitized.
    pub title: String,
    /// Short facts, joined with ` · ` when shown.
    pub facts: Vec<String>,
}

/// One wrapped line of a tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TipLine {
    /// The text.
    pub text: String,
    /// True for lines of the title.
    pub title: bool,
}

/// What describing a target needs.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The profile.
    pub profile: &'a Profile,
    /// Its index.
    pub index: &'a TreeIndex,
    /// Per-name totals (`function_totals`).
    pub functions: &'a [FunctionTotals],
    /// The current zoom.
    pub viewport: &'a Viewport,
    /// The names as shown.
    pub names: &'a NameTable,
}

impl Context<'_> {
    /// The shown name of frame `id`.
    fn name(&self, id: NodeId) -> &str {
        let tree = &self.profile.tree;
        self.names.resolve(tree.names(), tree.node(id).name)
    }
}

/// Most frames counted when describing a group.
const COUNT_CAP: u64 = 100_000;

/// The tooltip of a target.
pub fn describe(cx: &Context<'_>, target: &Target) -> Tooltip {
    match *target {
        Target::Frame(id) => describe_frame(cx, id),
        Target::Span { depth, lo, hi } => describe_span(cx, depth, lo, hi),
    }
}

fn describe_frame(cx: &Context<'_>, id: NodeId) -> Tooltip {
    let tree = &cx.profile.tree;
    let node = tree.node(id);
    let halved = is_halved(tree);
    // Shares are of the total of the frame's unit scope: its half for on/off-CPU input.
    let scope = scope_of(tree, id);
    let base = tree.node(scope).total;
    let of = match scope_label(tree, scope) {
        "" => "total",
        label => label,
    };
    let offcpu = cx.index.is_offcpu(cx.index.start(id), cx.index.end(id));
    let w = |v| weight_text(cx.profile, v, offcpu);
    let count =
        |n: u64, what: &str| format!("{} {what}{}", thousands(n), if n == 1 { "" } else { "s" });
    let mut facts = Vec::new();
    if id == NodeId::ROOT && halved {
        // The root of on/off-CPU input adds two units: each half is given on its own.
        facts.push(halves_text(cx, |h| tree.node(h).total));
    } else {
        // perf samples are counted one by one; SystemTap and folded input are already
        // aggregated, one record per distinct stack.
        facts.push(match cx.profile.stats.unit {
            Unit::Samples => w(node.total),
            Unit::OnOffCpu => format!("{} in {}", w(node.total), count(node.samples, "stack")),
            Unit::Nanoseconds | Unit::Events(_) | Unit::Metric { .. } => {
                // The off-CPU metric's samples are blocks; a folded file's records are
                // stacks (lines), whatever their counts are (`--countname`).
                let folded = matches!(
                    cx.profile.stats.format,
                    Some(crate::profile::Format::Folded | crate::profile::Format::DiffFolded)
                );
                let what =
                    if cx.profile.stats.event.as_deref() == Some(crate::profile::offcpu::METRIC) {
                        "block"
                    } else if folded {
                        "stack"
                    } else {
                        "sample"
                    };
                format!("{} in {}", w(node.total), count(node.samples, what))
            }
        });
        facts.push(format!("{:.2}% of {of}", share(node.total, base)));
    }
    // Of the zoom only for frames inside it: an ancestor of the zoomed frame has its own
    // share of the total above, not 100% of the zoom.
    if zoom_is_inside(cx, id, scope) && cx.viewport.weight() != base {
        facts.push(format!(
            "{:.2}% of zoom",
            share(node.total, cx.viewport.weight())
        ));
    }
    if let Some(p) = node.parent.filter(|&p| p != NodeId::ROOT) {
        let pt = tree.node(p).total;
        facts.push(format!("{:.2}% of parent", share(node.total, pt)));
    }
    if id != NodeId::ROOT && !(halved && scope == id) {
        facts.push(format!(
            "self {} ({:.2}%)",
            w(tree.self_weight(id)),
            share(tree.self_weight(id), base)
        ));
        let names = tree.names();
        if names.is_inlined(node.name) {
            facts.push("inlined into its caller: no symbol of its own".to_owned());
        }
        if let Some(lib) = names.library(node.name) {
            facts.push(format!("in {}", sanitize(names.library_name(lib))));
        }
        if names.is_task(node.name) {
            facts.push("a process or thread, not a function".to_owned());
        } else if halved {
            facts.push(format!(
                "all frames of this function: {}",
                halves_text(cx, |h| total_under(tree, h, node.name))
            ));
        } else if let Some(f) = cx.functions.get(node.name.0 as usize) {
            facts.push(format!(
                "all frames of this function: {} ({:.2}%)",
                w(f.total),
                share(f.total, base)
            ));
        }
    }
    Tooltip {
        title: sanitize(cx.name(id)).into_owned(),
        facts,
    }
}

/// True when the graph is zoomed (not the whole of `scope`, the frame's unit scope), the
/// zoom lies within `scope` (so its weight has the frame's unit) and frame `id` lies
/// within the zoom.
fn zoom_is_inside(cx: &Context<'_>, id: NodeId, scope: NodeId) -> bool {
    let (lo, hi) = (cx.viewport.lo, cx.viewport.hi);
    let within = |a: u64, b: u64, outer: (u64, u64)| a >= outer.0 && b <= outer.1;
    let scope_span = (cx.index.start(scope), cx.index.end(scope));
    cx.viewport.weight() != cx.profile.tree.total()
        && within(lo, hi, scope_span)
        && within(cx.index.start(id), cx.index.end(id), (lo, hi))
}

/// `on-CPU: 123 samples (4.10%), off-CPU: 3,000 units (42.86%)`: a weight in each half
/// (`weight(half)`), with its share of that half, never summed.
fn halves_text(cx: &Context<'_>, weight: impl Fn(NodeId) -> u64) -> String {
    let tree = &cx.profile.tree;
    let parts: Vec<String> = unit_scopes(tree)
        .into_iter()
        .map(|h| {
            let w = weight(h);
            // A perf profile's halves are both nanoseconds: times, as everywhere.
            let amount = if tree.name(h) == OFF_CPU && cx.profile.stats.unit != Unit::Nanoseconds {
                format!("{} units", thousands_str(&cx.profile.format_weight(w)))
            } else {
                weight_text(cx.profile, w, false)
            };
            format!(
                "{}: {amount} ({:.2}%)",
                scope_label(tree, h),
                share(w, tree.node(h).total)
            )
        })
        .collect();
    parts.join(", ")
}

fn describe_span(cx: &Context<'_>, depth: u32, lo: u64, hi: u64) -> Tooltip {
    let tree = &cx.profile.tree;
    let Frames {
        count,
        heaviest,
        weight,
    } = frames_in(tree, cx.index, depth, lo, hi);
    let plural = if count == 1 { "" } else { "s" };
    let more = if count >= COUNT_CAP { "+" } else { "" };
    let mut facts = Vec::new();
    // A group can straddle the on/off-CPU boundary: each half's part is given on its own.
    for scope in unit_scopes(tree) {
        let (s_lo, s_hi) = (cx.index.start(scope), cx.index.end(scope));
        let (a, b) = (lo.max(s_lo), hi.min(s_hi));
        if a >= b {
            continue;
        }
        let weight = frames_in(tree, cx.index, depth, a, b).weight;
        let of = match scope_label(tree, scope) {
            "" => "total",
            label => label,
        };
        facts.push(weight_text(cx.profile, weight, cx.index.is_offcpu(a, b)));
        facts.push(format!(
            "{:.2}% of {of}",
            share(weight, tree.node(scope).total)
        ));
        let zoomed = cx.viewport.weight() != tree.total();
        if zoomed
            && lo >= cx.viewport.lo
            && hi <= cx.viewport.hi
            && cx.viewport.weight() != tree.node(scope).total
        {
            facts.push(format!(
                "{:.2}% of zoom",
                share(weight, cx.viewport.weight())
            ));
        }
    }
    if count > 1 {
        facts.push(heaviest_text(cx, &heaviest, weight));
    }
    facts.push("Enter zooms in".to_owned());
    Tooltip {
        title: format!(
            "{}{more} frame{plural} narrower than a column",
            thousands(count)
        ),
        facts,
    }
}

/// The heaviest frames of a group named in its status line.
const HEAVIEST: usize = 3;

/// Columns the line naming a group's heaviest frames takes at most: it fits the status
/// line of an 80-column screen.
const HEAVIEST_WIDTH: usize = 80;

/// The prefix of that line.
const HEAVIEST_PREFIX: &str = "heaviest in it: ";

/// `heaviest in it: a 48.78%, b 36.59%, c 9.76%`: the group's heaviest frames, each with its
/// share of the group's weight (its share of the total is below a column's by definition:
/// the same few hundredths for all). Names are cut to fit [`HEAVIEST_WIDTH`] columns, a
/// short name leaving its room to the others.
fn heaviest_text(cx: &Context<'_>, heaviest: &[(NodeId, u64)], group: u64) -> String {
    let shares: Vec<String> = heaviest
        .iter()
        .map(|&(_, w)| format!("{:.2}%", share(w, group)))
        .collect();
    let names: Vec<String> = heaviest
        .iter()
        .map(|&(id, _)| sanitize(cx.name(id)).into_owned())
        .collect();
    let fixed = HEAVIEST_PREFIX.len()
        + shares.iter().map(|s| s.len() + 1).sum::<usize>()
        + 2 * heaviest.len().saturating_sub(1);
    let mut room = HEAVIEST_WIDTH.saturating_sub(fixed);
    // The narrowest names first: each takes at most an equal part of what is left.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| display_width(&names[i]));
    let mut widths = vec![0; names.len()];
    for (k, &i) in order.iter().enumerate() {
        let part = room / (names.len() - k);
        widths[i] = display_width(&names[i]).min(part).max(1);
        room = room.saturating_sub(widths[i]);
    }
    let parts: Vec<String> = names
        .iter()
        .zip(&shares)
        .zip(&widths)
        .map(|((n, s), &w)| format!("{} {s}", ellipsize(n, w)))
        .collect();
    format!("{HEAVIEST_PREFIX}{}", parts.join(", "))
}

/// The frames of a group.
struct Frames {
    /// How many (at most [`COUNT_CAP`]).
    count: u64,
    /// The weight they cover in the group's interval.
    weight: u64,
    /// The heaviest few, heaviest first, with the weight each covers there.
    heaviest: Vec<(NodeId, u64)>,
}

/// Frames at `depth` within `[lo, hi)`, the weight they cover there and the heaviest
/// [`HEAVIEST`] of them (counting stops at [`COUNT_CAP`]).
fn frames_in(tree: &CallTree, index: &TreeIndex, depth: u32, lo: u64, hi: u64) -> Frames {
    let (mut count, mut weight) = (0u64, 0u64);
    let mut heaviest: Vec<(NodeId, u64)> = Vec::with_capacity(HEAVIEST + 1);
    let mut todo = vec![NodeId::ROOT];
    while let Some(id) = todo.pop() {
        if index.depth(id) == depth {
            count += 1;
            let overlap = index
                .end(id)
                .min(hi)
                .saturating_sub(index.start(id).max(lo));
            weight = weight.saturating_add(overlap);
            if heaviest.len() < HEAVIEST || heaviest.last().is_some_and(|l| l.1 < overlap) {
                let at = heaviest.partition_point(|h| h.1 >= overlap);
                heaviest.insert(at, (id, overlap));
                heaviest.truncate(HEAVIEST);
            }
            if count >= COUNT_CAP {
                break;
            }
            continue;
        }
        for c in tree.children(id).skip_while(|&c| index.end(c) <= lo) {
            if index.start(c) >= hi {
                break;
            }
            if index.total(c) > 0 {
                todo.push(c);
            }
        }
    }
    Frames {
        count,
        weight,
        heaviest,
    }
}

/// A weight with its unit: samples, time for clock events, or the event's name.
pub fn weight_text(profile: &Profile, weight: u64, offcpu: bool) -> String {
    let n = thousands_str(&profile.format_weight(weight));
    match &profile.stats.unit {
        Unit::Nanoseconds => time_text(weight, profile.tree.scale()),
        Unit::Events(e) => format!("{n} {}", sanitize(e)),
        Unit::Metric { unit, .. } if unit == "nanoseconds" => {
            time_text(weight, profile.tree.scale())
        }
        Unit::Metric { name, unit } if unit == "count" => format!("{n} {}", sanitize(name)),
        Unit::Metric { unit, .. } => format!("{n} {}", sanitize(unit)),
        Unit::OnOffCpu if offcpu => format!("{n} off-CPU units"),
        Unit::Samples | Unit::OnOffCpu if n == "1" => "1 sample".to_owned(),
        Unit::Samples | Unit::OnOffCpu => format!("{n} samples"),
    }
}

/// Nanoseconds (with `scale` decimals) as a readable time: `1.23 s`, `45.6 ms`.
pub fn time_text(ns: u64, scale: u32) -> String {
    let v = ns as f64 / 10f64.powi(i32::try_from(scale).unwrap_or(0));
    let (value, unit) = if v >= 1e9 {
        (v / 1e9, "s")
    } else if v >= 1e6 {
        (v / 1e6, "ms")
    } else if v >= 1e3 {
        (v / 1e3, "µs")
    } else {
        return format!("{v:.0} ns");
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {unit}")
}

impl Tooltip {
    /// Wraps to `width` columns in at most `max_lines` lines: the facts first get the lines
    /// they need, the title the rest (never less than one line); a title that still does not
    /// fit ends with `…`.
    pub fn lines(&self, width: usize, max_lines: usize) -> Vec<TipLine> {
        let width = width.max(1);
        let facts = pack(&self.facts, width);
        let room = max_lines.saturating_sub(facts.len()).max(1);
        let mut title = chop(&self.title, width);
        if title.len() > room {
            title.truncate(room);
            if let Some(last) = title.last_mut() {
                *last = ellipsize(&format!("{last}…"), width);
            }
        }
        let title = title.into_iter().map(|text| TipLine { text, title: true });
        let facts = facts.into_iter().map(|text| TipLine { text, title: false });
        title.chain(facts).take(max_lines.max(1)).collect()
    }
}

/// Splits text into lines of at most `width` display columns.
pub fn chop(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut used = 0;
    for g in text.graphemes(true) {
        let w = g.width();
        if used + w > width && used > 0 {
            out.push(String::new());
            used = 0;
        }
        if let Some(line) = out.last_mut() {
            line.push_str(g);
        }
        used += w;
    }
    out
}

/// Packs pieces into lines joined with ` · `, breaking long pieces.
fn pack(pieces: &[String], width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for p in pieces {
        let pw = display_width(p);
        if !line.is_empty() && display_width(&line) + 3 + pw <= width {
            line.push_str(" · ");
            line.push_str(p);
            continue;
        }
        if !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        let mut parts = chop(p, width);
        line = parts.pop().unwrap_or_default();
        out.extend(parts);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
#[path = "tooltip_tests.rs"]
mod tests;
