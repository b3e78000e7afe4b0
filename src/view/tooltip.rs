//! Stage: call tree → the facts shown about one frame (or group of narrow frames), for the
//! status area and the hover tooltip, and their wrapping to a width. Names are sanitized.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use super::index::TreeIndex;
use super::layout::{Target, Viewport};
use crate::input::stap::{OFF_CPU, ON_CPU};
use crate::profile::functions::FunctionTotals;
use crate::profile::sandwich::total_under;
use crate::profile::{CallTree, NodeId, Profile, Unit};
use crate::text::{percent, sanitize, thousands, thousands_str};

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
    let total = tree.total();
    let offcpu = cx.index.is_offcpu(cx.index.start(id), cx.index.end(id));
    let mixed = id == NodeId::ROOT && cx.profile.stats.unit == Unit::OnOffCpu;
    let w = |v| {
        if mixed {
            format!(
                "{} (on-CPU samples + off-CPU units)",
                thousands_str(&cx.profile.format_weight(v))
            )
        } else {
            weight_text(cx.profile, v, offcpu)
        }
    };
    // perf samples are counted one by one; SystemTap and folded input are already
    // aggregated, one record per distinct stack.
    let mut facts = vec![match cx.profile.stats.unit {
        Unit::Samples => w(node.total),
        Unit::OnOffCpu => format!(
            "{} in {} stack{}",
            w(node.total),
            thousands(node.samples),
            if node.samples == 1 { "" } else { "s" }
        ),
        Unit::Nanoseconds | Unit::Events(_) => format!(
            "{} in {} sample{}",
            w(node.total),
            thousands(node.samples),
            if node.samples == 1 { "" } else { "s" }
        ),
    }];
    facts.push(format!("{:.2}% of total", percent(node.total, total)));
    if cx.viewport.weight() != total {
        let zoom = node.total.min(cx.viewport.weight());
        facts.push(format!(
            "{:.2}% of zoom",
            percent(zoom, cx.viewport.weight())
        ));
    }
    if let Some(p) = node.parent.filter(|&p| p != NodeId::ROOT) {
        let pt = tree.node(p).total;
        facts.push(format!("{:.2}% of parent", percent(node.total, pt)));
    }
    if id != NodeId::ROOT {
        facts.push(format!(
            "self {} ({:.2}%)",
            w(node.self_weight),
            percent(node.self_weight, total)
        ));
        if cx.profile.stats.unit == Unit::OnOffCpu {
            facts.extend(on_off_facts(cx, id));
        } else if let Some(f) = cx.functions.get(node.name.0 as usize) {
            facts.push(format!(
                "all frames of this function: {} ({:.2}%)",
                w(f.total),
                percent(f.total, total)
            ));
        }
    }
    Tooltip {
        title: sanitize(tree.name(id)).into_owned(),
        facts,
    }
}

/// On- and off-CPU weights have different units, so shares are given within each half:
/// this frame's share of its half, and the function's total (counted once per stack) in
/// each half — the seed study's "x% of on-CPU, y% of off-CPU".
fn on_off_facts(cx: &Context<'_>, id: NodeId) -> Vec<String> {
    let tree = &cx.profile.tree;
    let node = tree.node(id);
    let mut facts = Vec::new();
    let label = |half: NodeId| {
        if tree.name(half) == OFF_CPU {
            "off-CPU"
        } else {
            "on-CPU"
        }
    };
    if let Some(&half) = tree.path(id).first().filter(|&&h| h != id) {
        facts.push(format!(
            "{:.2}% of {}",
            percent(node.total, tree.node(half).total),
            label(half)
        ));
    }
    let halves: Vec<String> = [ON_CPU, OFF_CPU]
        .into_iter()
        .filter_map(|name| {
            let h = tree.child_named(NodeId::ROOT, name)?;
            let w = total_under(tree, h, node.name);
            let amount = if name == OFF_CPU {
                format!("{} units", thousands_str(&cx.profile.format_weight(w)))
            } else {
                weight_text(cx.profile, w, false)
            };
            Some(format!(
                "{}: {amount} ({:.2}%)",
                label(h),
                percent(w, tree.node(h).total)
            ))
        })
        .collect();
    facts.push(format!(
        "all frames of this function: {}",
        halves.join(", ")
    ));
    facts
}

fn describe_span(cx: &Context<'_>, depth: u32, lo: u64, hi: u64) -> Tooltip {
    let tree = &cx.profile.tree;
    let (count, weight) = frames_in(tree, cx.index, depth, lo, hi);
    let offcpu = cx.index.is_offcpu(lo, hi);
    let plural = if count == 1 { "" } else { "s" };
    let more = if count >= COUNT_CAP { "+" } else { "" };
    let mut facts = vec![
        weight_text(cx.profile, weight, offcpu),
        format!("{:.2}% of total", percent(weight, tree.total())),
    ];
    if cx.viewport.weight() != tree.total() {
        facts.push(format!(
            "{:.2}% of zoom",
            percent(weight, cx.viewport.weight())
        ));
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

/// Frames at `depth` within `[lo, hi)`, and the weight they cover there (counting stops at
/// [`COUNT_CAP`]).
fn frames_in(tree: &CallTree, index: &TreeIndex, depth: u32, lo: u64, hi: u64) -> (u64, u64) {
    let (mut count, mut weight) = (0u64, 0u64);
    let mut todo = vec![NodeId::ROOT];
    while let Some(id) = todo.pop() {
        if index.depth(id) == depth {
            count += 1;
            let overlap = index
                .end(id)
                .min(hi)
                .saturating_sub(index.start(id).max(lo));
            weight = weight.saturating_add(overlap);
            if count >= COUNT_CAP {
                break;
            }
            continue;
        }
        let kids = &tree.node(id).children;
        let first = kids.partition_point(|&c| index.end(c) <= lo);
        for &c in kids.iter().skip(first) {
            if index.start(c) >= hi {
                break;
            }
            if index.total(c) > 0 {
                todo.push(c);
            }
        }
    }
    (count, weight)
}

/// A weight with its unit: samples, time for clock events, or the event's name.
pub fn weight_text(profile: &Profile, weight: u64, offcpu: bool) -> String {
    let n = thousands_str(&profile.format_weight(weight));
    match &profile.stats.unit {
        Unit::Nanoseconds => time_text(weight, profile.tree.scale()),
        Unit::Events(e) => format!("{n} {}", sanitize(e)),
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

/// Display width of text.
pub fn display_width(text: &str) -> usize {
    text.graphemes(true).map(UnicodeWidthStr::width).sum()
}

/// Text cut to `width` columns, ending with `…` when cut.
pub fn ellipsize(text: &str, width: usize) -> String {
    if display_width(text) <= width {
        return text.to_owned();
    }
    // Whole grapheme clusters only: a base letter keeps its combining marks, an emoji
    // sequence is never split, and wide (CJK) characters count two columns.
    let mut out = String::new();
    let mut used = 0;
    for g in text.graphemes(true) {
        let w = g.width();
        if used + w + 1 > width {
            break;
        }
        out.push_str(g);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[path = "tooltip_tests.rs"]
mod tests;
