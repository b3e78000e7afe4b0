//! Stage: bytes → call tree, for speedscope's file format
//! (<https://www.speedscope.app/file-format-schema.json>), which py-spy writes with
//! `--format speedscope` and other profilers export for the speedscope viewer:
//!
//! ```text
//! { "$schema": "https://www.speedscope.app/file-format-schema.json",
//!   "shared": { "frames": [ { "name": N, "file": F?, "line": L?, "col": C? }, … ] },
//!   "profiles": [
//!     { "type": "sampled", "name": P, "unit": U, "startValue": S, "endValue": E,
//!       "samples": [ [frame index, … root first], … ], "weights": [ W, … ] },
//!     { "type": "evented", "name": P, "unit": U, "startValue": S, "endValue": E,
//!       "events": [ { "type": "O" | "C", "at": T, "frame": frame index }, … ] } ] }
//! ```
//!
//! A frame is named `name (file:line)` as py-spy's raw output names it (`name (file)`
//! without a line, `name` without a file); its file is its library (`--top-by library`).
//! Every profile (py-spy writes one per thread, `Thread 1234 "MainThread"`) is a task of
//! the sample table, named as the profile is, and its stacks go into one tree (threads
//! apart: the viewer's task list, or grouping by thread). A sampled profile's sample
//! weighs its weight; an evented profile's stack weighs the time between the events that
//! open and close it, nested frames counted in their callers too, as speedscope draws
//! them. Times: a sampled profile's samples are at `startValue` plus the weights before
//! them (py-spy's weights are the sampling interval), an evented profile's stacks at the
//! event that starts them; both only when the unit is a time, so the heat map works.
//!
//! Units: `nanoseconds`, `microseconds`, `milliseconds`, `seconds` are times, kept as
//! nanoseconds (rounded); `bytes` and `none` are not. Different kinds are never added up:
//! the first profile's kind is kept and a profile in another is skipped with a note
//! naming it. A note's number is the profile's (1-based). A sample naming a frame that is
//! not in `shared.frames`, or with a negative weight, is skipped and counted; an event
//! that closes a frame not open is skipped, one that closes an outer frame closes the
//! frames inside it too, frames left open are closed at `endValue` (all with a note).
//!
//! Source lines: a frame with a `file` and a `line` (1-based) is at that line of that file
//! (the path as the file gives it, a `file://` URL's path). Each sample (an evented
//! profile's stack, for the time it was open) is recorded as pprof's are: its leaf frame's
//! line gets its weight as self, every line on its stack as total, in the tree's unit. A
//! line that is not a whole number from 1 to ten million is left out with a note. Each
//! sample keeps its stack of lines, so a time range's lines are its samples' own. An
//! evented profile whose stacks are too deep to walk in time linear in its events is left
//! without lines, with a note (see `evented`).

mod evented;
mod stacks;

use serde::Deserialize;

use super::{Document, file_name, line_number, source_path, to_ns};
use crate::input::Collector;
use crate::profile::source::Line;
use crate::profile::{NameId, NodeId, TaskId, Unit};
use evented::evented;
use stacks::Stacks;

/// `shared`: what the profiles share.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Shared {
    #[serde(default)]
    frames: Vec<Frame>,
}

/// A frame of `shared.frames`.
#[derive(Debug, Deserialize)]
struct Frame {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<f64>,
}

/// One profile of `profiles`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpeedscopeProfile {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    start_value: Option<f64>,
    #[serde(default)]
    end_value: Option<f64>,
    #[serde(default)]
    samples: Option<Stacks>,
    #[serde(default)]
    weights: Option<Vec<f64>>,
    #[serde(default)]
    events: Option<Vec<Event>>,
}

/// An event of an evented profile.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: EventKind,
    at: f64,
    frame: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
enum EventKind {
    #[serde(rename = "O")]
    Open,
    #[serde(rename = "C")]
    Close,
}

/// What a profile's values measure.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measure {
    /// A time: nanoseconds per unit.
    Time(f64),
    /// Bytes.
    Bytes,
    /// Unitless counts.
    Count,
}

impl Measure {
    fn parse(unit: &str) -> Option<Measure> {
        Some(match unit {
            "nanoseconds" => Measure::Time(1.0),
            "microseconds" => Measure::Time(1e3),
            "milliseconds" => Measure::Time(1e6),
            "seconds" => Measure::Time(1e9),
            "bytes" => Measure::Bytes,
            "none" => Measure::Count,
            _ => return None,
        })
    }

    /// Whether values of `self` and `other` may be added (times in any unit may).
    fn same_kind(self, other: Measure) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }

    /// A value as a weight of the tree (nanoseconds for times); `None` when negative or
    /// unreadable.
    fn weight(self, value: f64) -> Option<u64> {
        match self {
            Measure::Time(per) => to_ns(value, per),
            Measure::Bytes | Measure::Count => to_ns(value, 1.0),
        }
    }

    /// A point in time in nanoseconds, when the unit is a time.
    fn time(self, value: f64) -> Option<u64> {
        match self {
            Measure::Time(per) => to_ns(value, per),
            Measure::Bytes | Measure::Count => None,
        }
    }

    fn unit(self) -> Unit {
        match self {
            Measure::Time(_) => Unit::Nanoseconds,
            Measure::Bytes => Unit::Metric {
                name: "weight".to_owned(),
                unit: "bytes".to_owned(),
            },
            Measure::Count => Unit::Samples,
        }
    }
}

/// The name a frame is shown with: `name (file:line)`, `name (file)` or `name`.
fn frame_name(f: &Frame) -> String {
    let name = f
        .name
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or("[unknown]");
    match (f.file.as_deref().filter(|f| !f.is_empty()), f.line) {
        (Some(file), Some(line)) => format!("{name} ({file}:{line})"),
        (Some(file), None) => format!("{name} ({file})"),
        (None, _) => name.to_owned(),
    }
}

/// Loads every profile of a speedscope document into `out`, with a record per sample when
/// `keep`.
///
/// # Errors
/// A document without `profiles`.
pub(crate) fn build(doc: Document, keep: bool, out: &mut Collector) -> Result<(), String> {
    let profiles = doc
        .profiles
        .ok_or("a speedscope file needs `profiles`, and this one has none")?;
    let frames = doc.shared.unwrap_or_default().frames;
    let names: Vec<NameId> = frames
        .iter()
        .map(|f| {
            let lib = f.file.as_deref().filter(|f| !f.is_empty()).map(file_name);
            out.tree.names_mut().intern_in(&frame_name(f), lib)
        })
        .collect();
    let lines = frame_lines(&frames, out);
    drop(frames);
    let mut kept: Option<(Measure, String)> = None;
    for (i, p) in profiles.into_iter().enumerate() {
        let number = i as u64 + 1;
        let name = p
            .name
            .clone()
            .unwrap_or_else(|| format!("profile {number}"));
        let records =
            p.samples.as_ref().map_or(0, Stacks::len) + p.events.as_ref().map_or(0, Vec::len);
        out.stats.lines += records as u64;
        let unit = p.unit.as_deref().unwrap_or("none");
        let Some(measure) = Measure::parse(unit) else {
            let why = format!("profile {number} {name:?}: unknown unit {unit:?}");
            skip_profile(out, number, "profile skipped: unknown unit", &why, records);
            continue;
        };
        if let Some((first, first_name)) = &kept
            && !first.same_kind(measure)
        {
            let why = format!(
                "profile {number} {name:?} is in {unit}, profile {first_name} in another unit"
            );
            skip_profile(
                out,
                number,
                "profile skipped: in another unit than the first",
                &why,
                records,
            );
            continue;
        }
        let task = out.samples.task(&name, None, None);
        let ctx = Ctx {
            number,
            measure,
            task,
            names: &names,
            lines: lines.as_deref(),
            records: keep,
        };
        // The records of the other type (a sampled profile's `events`) are not read.
        let (samples, events) = (
            p.samples.as_ref().map_or(0, Stacks::len) as u64,
            p.events.as_ref().map_or(0, Vec::len) as u64,
        );
        let used = match p.kind.as_str() {
            "sampled" => {
                out.stats.line_counts.dropped += events;
                sampled(&ctx, p, out)
            }
            "evented" => {
                out.stats.line_counts.dropped += samples;
                evented(&ctx, p, out)
            }
            other => {
                let why = format!("profile {number} {name:?} is of type {other:?}");
                skip_profile(
                    out,
                    number,
                    "profile skipped: neither sampled nor evented",
                    &why,
                    records,
                );
                false
            }
        };
        if used && kept.is_none() {
            kept = Some((measure, format!("{number} {name:?}")));
        }
    }
    out.stats.unit = kept.map_or(Unit::Samples, |(m, _)| m.unit());
    Ok(())
}

/// What every record of one profile needs.
struct Ctx<'a> {
    number: u64,
    measure: Measure,
    task: TaskId,
    names: &'a [NameId],
    /// Each frame's source line, when some frame has one.
    lines: Option<&'a [Option<Line>]>,
    /// Whether to keep a record per sample (not for the text outputs of a whole profile).
    records: bool,
}

/// Each frame's source line (its `file` and `line`), files interned in `out`'s lines;
/// `None` when no frame has one.
fn frame_lines(frames: &[Frame], out: &mut Collector) -> Option<Vec<Option<Line>>> {
    let mut any = false;
    let lines = frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let path = f
                .file
                .as_deref()
                .map(source_path)
                .filter(|p| !p.is_empty())?;
            let line = f.line?;
            let Some(number) = line_number(line) else {
                let why = format!("frame {i} is at line {line:?}");
                out.stats
                    .note(0, "frame's line left out: not 1 to 10,000,000", &why);
                return None;
            };
            any = true;
            let file = out.samples.lines_mut().file(&path);
            Some(Line { file, number })
        })
        .collect();
    any.then_some(lines)
}

impl Ctx<'_> {
    /// Records the lines of a sample of `frames` (frame indices, root first) whose leaf is
    /// node `leaf` of `out`'s tree, weighing `weight`; returns its stack of lines (0: none).
    fn record_lines(&self, frames: &[u32], leaf: NodeId, weight: u64, out: &mut Collector) -> u32 {
        let Some(lines) = self.lines.filter(|_| weight > 0) else {
            return 0;
        };
        let at = frames
            .iter()
            .rev()
            .map(|&f| lines.get(f as usize).copied().flatten());
        let table = out.samples.lines_mut();
        table.record_from_leaf(&out.tree, leaf, at, Some(frames.len()), weight)
    }
}

/// Counts a whole profile's records as skipped, with a note.
fn skip_profile(out: &mut Collector, number: u64, reason: &'static str, why: &str, records: usize) {
    *out.stats.skipped.entry(reason).or_insert(0) += records as u64;
    out.stats.note(number, reason, why);
}

/// Counts one record as skipped (a note for the first few).
fn skip_record(out: &mut Collector, number: u64, reason: &'static str, why: &str) {
    out.stats.skip(number, reason, why);
}

/// Loads a sampled profile; whether it was (its unit then counts as the file's).
fn sampled(ctx: &Ctx<'_>, p: SpeedscopeProfile, out: &mut Collector) -> bool {
    let samples = p.samples.unwrap_or_default();
    if let Some(w) = &p.weights
        && w.len() != samples.len()
    {
        let why = format!(
            "profile {}: {} samples but {} weights",
            ctx.number,
            samples.len(),
            w.len()
        );
        skip_profile(
            out,
            ctx.number,
            "profile skipped: samples and weights differ in number",
            &why,
            samples.len(),
        );
        return false;
    }
    let mut at = p.start_value.unwrap_or(0.0);
    let mut stack: Vec<NameId> = Vec::new();
    for (j, frames) in samples.iter().enumerate() {
        let value = p.weights.as_ref().map_or(Some(1.0), |w| w.get(j).copied());
        let start = at;
        at += value.unwrap_or(0.0);
        let Some(weight) = value.and_then(|v| ctx.measure.weight(v)) else {
            let why = format!("sample {j} weighs {value:?}");
            skip_record(
                out,
                ctx.number,
                "sample skipped: negative or unreadable weight",
                &why,
            );
            continue;
        };
        stack.clear();
        let bad = frames.iter().find(|&&f| {
            ctx.names
                .get(f as usize)
                .map(|&id| stack.push(id))
                .is_none()
        });
        if let Some(f) = bad {
            let why = format!("sample {j} names frame {f} of {}", ctx.names.len());
            skip_record(
                out,
                ctx.number,
                "sample skipped: frame index out of range",
                &why,
            );
            continue;
        }
        let leaf = out.tree.insert_ids(stack.iter().copied(), weight);
        let line_stack = ctx.record_lines(frames, leaf, weight, out);
        out.samples
            .push(ctx.measure.time(start), ctx.task, leaf, weight);
        out.samples.set_line_stack(line_stack);
        out.stats.samples += 1;
        out.stats.line_counts.in_samples += 1;
    }
    true
}
