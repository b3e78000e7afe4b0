//! Stage: `perf script` text → samples, with the semantics of `inferno-collapse-perf`
//! 0.12 defaults (see the README for the few deliberate deviations).
//!
//! ```text
//! sample      := event_line ( stack_line srcline_line? )* blank_line
//! event_line  := comm SP ids SP+ ( "[" cpu "]" SP+ )? ( time ":" SP* )? ( period SP+ )?
//!                event ( ":" modifiers )? ":" trailer
//! ids         := [pid "/"] tid                         (the first all-digit word)
//! event       := name | subsystem ":" tracepoint       (a tracepoint's trailer is its arguments)
//! stack_line  := WS* pc SP+ symbol ["+0x" hex] SP "(" dso ")"
//! srcline_line := "  " ( file ":" line | "??:0" | dso "[" hex "]" | … ) [" (inlined)"]
//! ```
//!
//! The process name is the root frame; the weight is the period, or 1 without one; only
//! the first event type seen is kept unless an event is named.
//!
//! Two deviations from inferno 0.12 (and stackcollapse-perf.pl), where both disagree with
//! `perf report`: frames whose symbol starts with `(` — C++'s `(anonymous namespace)::f` —
//! are kept (inferno drops them and charges their time to the caller), and a sample with
//! no stack line (no callchain recorded) is kept as a stack of its root frame alone, as
//! `perf report` counts it (inferno drops it).
//!
//! By seam: this file holds the options and the detection; `line` reads the lines (event
//! lines, stack lines, side records), `names` cleans up symbols into frame names as
//! inferno does, `cache` keeps each symbol's names once made, and `parser` turns the lines
//! into samples (`parser::srcline`: the source lines of `perf script -F +srcline`, which
//! perf prints under the frames, indented by two spaces; the frames are named as without
//! them).

mod cache;
mod line;
mod names;
mod parser;

pub use line::{EventLine, SCHED_SWITCH, StackLine, event_line, stack_line};
pub use names::{is_kernel, library_name};
pub use parser::{OFFCPU_TIME, PerfParser};

/// Options with the meaning they have in inferno-collapse-perf and stackcollapse-perf.pl.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerfOptions {
    /// Root frame `comm-PID`.
    pub include_pid: bool,
    /// Root frame `comm-PID/TID`.
    pub include_tid: bool,
    /// Suffix `_[k]` on kernel frames.
    pub annotate_kernel: bool,
    /// Suffix `_[j]` on JIT frames.
    pub annotate_jit: bool,
    /// Keep addresses of unknown frames: `[unknown <pc>]`.
    pub include_addrs: bool,
    /// Keep this event instead of the first one seen.
    pub event: Option<String>,
    /// `event` is the metric asked for (`--metric`), not `--event`: a recording without
    /// that event keeps all its events, so that the metrics it has can be listed.
    pub event_from_metric: bool,
    /// Keep no sample records (time, task): outputs of the whole profile do not need
    /// them, and they cost 24 bytes a sample.
    pub no_timeline: bool,
    /// A function is its name alone, without its library or whether it is inlined:
    /// exports to formats of names only (folded, SVG) then need no merge of the frames
    /// of one name in two libraries.
    pub names_only: bool,
}

/// The event of the first readable event line among `lines`, if any.
pub fn first_event(lines: &[&str]) -> Option<String> {
    lines
        .iter()
        .filter(|l| !l.starts_with('#') && !is_record(l))
        .find_map(|l| event_line(l.trim_end()))
        .map(|ev| ev.event.to_owned())
}

/// A line of a record between the samples (`--show-switch-events`,
/// `--show-lost-events`: `comm tid time: PERF_RECORD_SWITCH IN`), not a sample's.
fn is_record(line: &str) -> bool {
    !line.starts_with([' ', '\t']) && line::record_line(line).is_some()
}

/// Detection over the first lines: `Some(true)` for perf script, `Some(false)` when the
/// first meaningful line is not an event line, `None` when there is nothing to judge.
pub fn sniff(lines: &[&str]) -> Option<bool> {
    let mut meaningful = lines
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        // `perf script --show-switch-events` may begin with a switch record.
        .skip_while(|l| is_record(l));
    let first = meaningful.next()?;
    let Some(ev) = event_line(first) else {
        return Some(false);
    };
    // No perf event is named by digits alone: `Tue Dec  1 16:40 2026 Time and Allocation
    // Profiling Report` (a GHC `.prof` header) reads as comm, tid 1 and event `16:`.
    if ev.event.bytes().all(|b| b.is_ascii_digit()) {
        return Some(false);
    }
    if ev.inline_frame.is_some() {
        return Some(true);
    }
    // One unreadable line right after the event line must not hide a perf file.
    let mut next = meaningful.take(4).peekable();
    if next.peek().is_none() {
        return Some(true);
    }
    Some(next.any(|l| stack_line(l).is_some() || event_line(l).is_some()))
}
