//! Stage: call tree → plain text. The `--top` table and the report printed when stdout
//! is not a terminal (header, top functions, indented call tree above a threshold).

mod annotate;
mod delta;
mod threads;
mod top;

use std::fmt::Write as _;

use crate::input::stap::{OFF_CPU, ON_CPU};
use crate::profile::Unit;
use crate::profile::{NodeId, Profile};
use crate::text::{percent, sanitize, share, thousands_str};

pub use annotate::annotate;
pub use delta::delta_table;
pub use threads::thread_table;
pub use top::{top_libraries, top_table};

/// How the figures of a text report are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Figures {
    /// For a person: times in human units (`9.75 s`, `398 ms`), counts with thousands
    /// separators.
    #[default]
    Human,
    /// For a script: every weight as an exact integer in the profile's unit (`--exact`).
    Exact,
}

/// Whether `profile`'s weights are times `figures` writes in human units.
fn human_time(profile: &Profile, figures: Figures) -> bool {
    figures == Figures::Human && profile.stats.unit == Unit::Nanoseconds
}

/// One weight of `profile` as `figures` writes it.
fn figure(profile: &Profile, v: u64, figures: Figures) -> String {
    if human_time(profile, figures) {
        crate::view::tooltip::time_text(v, profile.tree.scale())
    } else {
        thousands_str(&profile.tree.format_weight(v))
    }
}

/// What a total is counted in, after its figure: nothing for a time written in human
/// units (the figure says it), else the unit (`ns`, `samples`, an event).
fn unit_after(profile: &Profile, label: &str, figures: Figures) -> String {
    if human_time(profile, figures) {
        String::new()
    } else {
        format!(" {label}")
    }
}

/// A total with its unit, as `figures` writes it. A time in human units says what it
/// was taken over (`9.98 s CPU in 5.00 s on 2 CPUs`): sampled time is not the
/// recording's length.
fn total_figure(profile: &Profile, total: u64, label: &str, figures: Figures) -> String {
    if human_time(profile, figures) {
        use crate::view::totals::{Span, time_kind, time_total};
        return time_total(
            &figure(profile, total, figures),
            time_kind(profile),
            Span::of(profile, None),
        );
    }
    format!(
        "{}{}",
        figure(profile, total, figures),
        unit_after(profile, label, figures)
    )
}

/// The parts a table or tree is computed over: the whole profile, or each half of a
/// profile with on- and off-CPU stacks (their units differ, so shares are per half).
fn scopes(profile: &Profile) -> Vec<(String, NodeId)> {
    let tree = &profile.tree;
    let on = tree.child_named(NodeId::ROOT, ON_CPU);
    let off = tree.child_named(NodeId::ROOT, OFF_CPU);
    if profile.stats.unit == Unit::OnOffCpu {
        let mut v = Vec::new();
        if let Some(on) = on {
            v.push(("on-CPU, samples".to_owned(), on));
        }
        if let Some(off) = off {
            v.push(("off-CPU, script units (usually µs)".to_owned(), off));
        }
        return v;
    }
    // The unit may carry a perf event's name, as the input spells it.
    vec![(
        sanitize(&profile.stats.unit.to_string()).into_owned(),
        NodeId::ROOT,
    )]
}

/// What one record of the input is, counted: `1,298 samples` for perf script (one event
/// line each), `34 stacks` for folded lines and SystemTap blocks (each an aggregate of
/// many samples, or of whatever the script summed).
pub fn records(format: Option<crate::profile::Format>, n: u64) -> String {
    use crate::profile::Format;
    let what = match format {
        Some(
            Format::Perf
            | Format::Pprof
            | Format::PerfData
            | Format::Speedscope
            | Format::Cpuprofile,
        ) => "sample",
        _ => "stack",
    };
    let plural = if n == 1 { "" } else { "s" };
    format!("{} {what}{plural}", thousands_str(&n.to_string()))
}

/// One header line: source, format, samples, total and unit, and what was skipped.
pub fn header(profile: &Profile, figures: Figures) -> String {
    let s = &profile.stats;
    let totals: Vec<String> = scopes(profile)
        .into_iter()
        .map(|(label, scope)| {
            total_figure(profile, profile.tree.node(scope).total, &label, figures)
        })
        .collect();
    let mut out = format!(
        "{}: {} — {}, total {}",
        sanitize(&profile.source),
        s.format.map_or_else(|| "?".to_owned(), |f| f.to_string()),
        // The off-CPU metric's samples are blocks.
        if s.event.as_deref() == Some(crate::profile::offcpu::METRIC) {
            format!(
                "{} block{}",
                thousands_str(&s.samples.to_string()),
                if s.samples == 1 { "" } else { "s" }
            )
        } else {
            records(s.format, s.samples)
        },
        totals.join("; "),
    );
    // A count of an event's periods names the event already.
    if let Some(e) = &s.event
        && s.unit != Unit::Events(e.clone())
    {
        let _ = write!(out, ", event {}", sanitize(e));
    }
    if let Some(m) = metric_text(s) {
        let _ = write!(out, ", {m}");
    }
    if s.filtered_samples > 0 {
        let _ = write!(
            out,
            " ({} samples of other events skipped)",
            thousands_str(&s.filtered_samples.to_string())
        );
    }
    if s.skipped_lines() > 0 {
        let _ = write!(out, ", {} lines skipped", s.skipped_lines());
    }
    out
}

/// pprof: the metric shown among the profile's, its duration and period:
/// `metric cpu (nanoseconds) of samples, cpu; duration 637.06 ms; period 10,000,000 nanoseconds`.
pub fn metric_text(s: &crate::profile::Stats) -> Option<String> {
    let info = s.pprof.as_ref()?;
    let mut out = format!(
        "metric {} of {}",
        sanitize(&s.unit.to_string()),
        sanitize(&info.metrics.join(", "))
    );
    if let Ok(ns) = u64::try_from(info.duration_nanos)
        && ns > 0
    {
        let _ = write!(out, "; duration {}", crate::view::tooltip::time_text(ns, 0));
    }
    if info.period > 0 {
        let unit = info.period_type.as_ref().map_or("", |(_, u)| u.as_str());
        let _ = write!(
            out,
            "; period {} {}",
            thousands_str(&info.period.to_string()),
            sanitize(unit)
        );
    }
    Some(out.trim_end().to_owned())
}

/// Where every input line went: the `--stats` summary.
pub fn line_accounting(profile: &Profile) -> String {
    let s = &profile.stats;
    let c = &s.line_counts;
    let n = |v: u64| thousands_str(&v.to_string());
    // A pprof profile has samples, not lines: each is one record here.
    let pprof = s.format == Some(crate::profile::Format::Pprof);
    // inferno's collapsers read the input's lines; what they write is folded stacks.
    let collapsed = s
        .format
        .is_some_and(|f| crate::input::inferno::Collapser::of(f).is_some());
    let (read, dropped) = if pprof {
        (
            "samples",
            "samples whose value of the metric is zero or negative",
        )
    } else if collapsed {
        ("folded lines", "")
    } else {
        ("lines", "lines of samples with no usable frame")
    };
    let mut out = format!(
        "{}: {} {}\n",
        sanitize(&profile.source),
        n(s.lines),
        if collapsed {
            "folded lines from inferno's collapser (which reads the input's own lines)".to_owned()
        } else {
            format!("{read} read")
        }
    );
    let rows = [
        ("in the tree", c.in_samples, String::new()),
        ("dropped", c.dropped, dropped.to_owned()),
        ("comments", c.comments, String::new()),
        ("blank", c.blank, String::new()),
    ];
    for (what, v, why) in rows {
        let row = format!("  {what:<12} {:>12}  {why}", n(v));
        let _ = writeln!(out, "{}", row.trim_end());
    }
    for (reason, v) in &s.skipped {
        let _ = writeln!(out, "  {:<12} {:>12}  {reason}", "skipped", n(*v));
    }
    let accounted = s.accounted_lines();
    let verdict = if accounted == s.lines {
        "every line accounted for"
    } else {
        "LINES UNACCOUNTED FOR"
    };
    let _ = writeln!(out, "  {:<12} {:>12}  {verdict}", "total", n(accounted));
    let _ = write!(out, "{} in the tree", records(s.format, s.samples));
    let others: u64 = s
        .events
        .iter()
        .filter(|(e, _)| Some(*e) != s.event.as_ref())
        .map(|(_, n)| *n)
        .sum::<u64>()
        .saturating_sub(s.filtered_samples);
    if others > 0 {
        let _ = write!(
            out,
            ", {} of other events in metrics of their own (--metric)",
            records(s.format, others)
        );
    }
    if s.filtered_samples > 0 {
        let _ = write!(
            out,
            ", {} of other events left out",
            records(s.format, s.filtered_samples)
        );
    }
    out.push('\n');
    out
}

/// Deepest indentation of the printed tree; deeper frames show their depth instead.
const MAX_INDENT: usize = 48;

/// The call tree as indented text, frames below `min_percent` of the total (of their
/// half, for on/off-CPU profiles) left out.
pub fn tree_text(profile: &Profile, min_percent: f64, figures: Figures) -> String {
    scopes(profile)
        .into_iter()
        .map(|(_, scope)| tree_text_in(profile, scope, min_percent, figures))
        .collect()
}

fn tree_text_in(profile: &Profile, scope: NodeId, min_percent: f64, figures: Figures) -> String {
    let tree = &profile.tree;
    let total = tree.node(scope).total;
    let mut out = String::new();
    if scope != NodeId::ROOT {
        let _ = writeln!(
            out,
            "{:>6.2}% {:>14}  {}",
            100.0,
            figure(profile, total, figures),
            tree.name(scope)
        );
    }
    // Each frame's depth below the root's children travels with it in the walk: looking
    // it up from the parents on every line made a deep stack quadratic (a stack 100,000
    // frames deep took seconds, a million half an hour).
    let mut todo: Vec<(NodeId, usize)> = Vec::new();
    let push_children = |todo: &mut Vec<(NodeId, usize)>, id: NodeId, depth: usize| {
        let at = todo.len();
        todo.extend(tree.children(id).map(|c| (c, depth)));
        todo[at..].reverse();
    };
    push_children(&mut todo, scope, tree.depth(scope) as usize);
    while let Some((id, depth)) = todo.pop() {
        let node = tree.node(id);
        if percent(node.total, total) < min_percent {
            continue;
        }
        // Indentation is capped so a pathological depth stays linear in output size.
        let indent = if depth <= MAX_INDENT {
            "  ".repeat(depth)
        } else {
            format!("{}[{depth}] ", "  ".repeat(MAX_INDENT))
        };
        let _ = writeln!(
            out,
            "{:>6.2}% {:>14}  {indent}{}",
            share(node.total, total),
            figure(profile, node.total, figures),
            sanitize(tree.name(id))
        );
        push_children(&mut todo, id, depth + 1);
    }
    out
}

/// The whole plain-text report (with the off-CPU metric, its threads' blocks).
pub fn report(profile: &Profile, top: usize, min_percent: f64, figures: Figures) -> String {
    let threads = thread_table(profile, top).map_or_else(String::new, |t| format!("\n{t}"));
    format!(
        "{}\n\n{}{threads}\nCall tree (frames ≥ {min_percent}% of the total)\n{:>7} {:>14}  frame\n{}",
        header(profile, figures),
        top_table(profile, top, figures),
        "total%",
        "total",
        tree_text(profile, min_percent, figures)
    )
}

/// What the off-CPU conversion met that a reader of its figures should know, on one line;
/// `None` when every block had both edges.
pub fn off_cpu_notes(n: &crate::profile::offcpu::OffCpuNotes) -> Option<String> {
    let mut parts = Vec::new();
    if n.incomplete > 0 {
        parts.push(format!(
            "{} still open at the end, counted up to the last event ({} ms, under {})",
            blocks(n.incomplete),
            n.incomplete_ns / 1_000_000,
            crate::profile::offcpu::INCOMPLETE
        ));
    }
    if n.unmatched > 0 {
        parts.push(format!(
            "{} switch-in{} of threads blocked before the recording began (no stack: not counted)",
            n.unmatched,
            if n.unmatched == 1 { "" } else { "s" }
        ));
    }
    if n.bounded > 0 {
        parts.push(format!(
            "{} without a recorded switch-in, ended at the thread's next sample: an upper bound (under {}; a per-process recording misses switch-ins: perf record --switch-events and perf script --show-switch-events give them)",
            blocks(n.bounded),
            crate::profile::offcpu::UPPER_BOUND
        ));
    }
    if n.skipped > 0 {
        parts.push(format!("{} skipped (negative duration)", blocks(n.skipped)));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "off-CPU time of {} complete: {}",
            blocks(n.complete),
            parts.join("; ")
        )
    })
}

fn blocks(n: u64) -> String {
    format!("{n} block{}", if n == 1 { "" } else { "s" })
}
