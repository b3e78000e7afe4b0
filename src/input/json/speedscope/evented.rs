//! An evented profile loaded: its open and close events replayed into a trie of stack
//! states, each charged with the time spent in it (and each span's frames' source lines).

use rustc_hash::FxHashMap;

use super::{Ctx, EventKind, Measure, SpeedscopeProfile, skip_record};
use crate::input::Collector;
use crate::profile::{ForestEntry, NameId, NodeId};

/// The stack states of an evented profile: a trie of open frames whose entries weigh the
/// time spent with exactly that stack open, and the intervals for the sample table.
#[derive(Default)]
struct States {
    entries: Vec<ForestEntry>,
    /// Each entry's frame index.
    frames: Vec<u32>,
    /// (parent entry + 1, or 0 at the root; frame index) → entry.
    children: FxHashMap<(u32, u32), u32>,
    /// (start time, entry, weight) of each interval.
    intervals: Vec<(Option<u64>, u32, u64)>,
}

impl States {
    fn open(&mut self, at: Option<u32>, frame: u32, name: NameId) -> u32 {
        let key = (at.map_or(0, |a| a + 1), frame);
        if let Some(&e) = self.children.get(&key) {
            return e;
        }
        let e = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        self.entries.push(ForestEntry {
            parent: at,
            name,
            own: 0,
            own_samples: 0,
        });
        self.frames.push(frame);
        self.children.insert(key, e);
        e
    }

    /// Charges the stack `state` with the time from `from` to `to`.
    /// The frame indices of the stack `e`, root first, into `out`.
    fn stack(&self, e: u32, out: &mut Vec<u32>) {
        out.clear();
        let mut at = Some(e);
        while let Some(e) = at {
            let Some((entry, &frame)) = self
                .entries
                .get(e as usize)
                .zip(self.frames.get(e as usize))
            else {
                break;
            };
            out.push(frame);
            at = entry.parent;
        }
        out.reverse();
    }

    fn charge(&mut self, state: Option<u32>, from: f64, to: f64, measure: Measure) -> bool {
        let mut saturated = false;
        let Some(e) = state else { return false };
        let weight = measure.weight(to - from).unwrap_or(0);
        if weight == 0 {
            return false;
        }
        if let Some(entry) = self.entries.get_mut(e as usize) {
            saturated = entry.own.checked_add(weight).is_none();
            entry.own = entry.own.saturating_add(weight);
            entry.own_samples += 1;
            self.intervals.push((measure.time(from), e, weight));
        }
        saturated
    }
}

/// Loads an evented profile; whether it was.
pub(super) fn evented(ctx: &Ctx<'_>, p: SpeedscopeProfile, out: &mut Collector) -> bool {
    let events = p.events.unwrap_or_default();
    let mut states = States::default();
    // The open frames, innermost last: (frame index, its state).
    let mut open: Vec<(u32, u32)> = Vec::new();
    let mut last = p
        .start_value
        .or_else(|| events.first().map(|e| e.at))
        .unwrap_or(0.0);
    for (j, ev) in events.iter().enumerate() {
        let Some(&name) = ctx.names.get(ev.frame as usize) else {
            let why = format!("event {j} names frame {} of {}", ev.frame, ctx.names.len());
            skip_record(
                out,
                ctx.number,
                "event skipped: frame index out of range",
                &why,
            );
            continue;
        };
        // An event before the one ahead of it (or not a number) happens at the same time.
        let at = if ev.at >= last { ev.at } else { last };
        if ev.at < last || ev.at.is_nan() {
            let why = format!("event {j} at {} comes after one at {last}", ev.at);
            out.stats.note(
                ctx.number,
                "event out of order, taken as simultaneous",
                &why,
            );
        }
        if states.charge(open.last().map(|o| o.1), last, at, ctx.measure) {
            out.tree.mark_saturated();
        }
        last = at;
        match ev.kind {
            EventKind::Open => {
                let state = states.open(open.last().map(|o| o.1), ev.frame, name);
                open.push((ev.frame, state));
            }
            EventKind::Close => {
                let Some(k) = open.iter().rposition(|o| o.0 == ev.frame) else {
                    let why = format!("event {j} closes frame {}", ev.frame);
                    skip_record(
                        out,
                        ctx.number,
                        "event skipped: closes a frame that is not open",
                        &why,
                    );
                    continue;
                };
                if k + 1 != open.len() {
                    let why = format!(
                        "event {j} closes frame {} with frames open inside it",
                        ev.frame
                    );
                    out.stats
                        .note(ctx.number, "frames closed with their caller", &why);
                }
                open.truncate(k);
            }
        }
        out.stats.line_counts.in_samples += 1;
    }
    if !open.is_empty() {
        let end = p.end_value.filter(|&e| e > last).unwrap_or(last);
        if states.charge(open.last().map(|o| o.1), last, end, ctx.measure) {
            out.tree.mark_saturated();
        }
        let why = format!("{} frames still open, closed at {end}", open.len());
        out.stats
            .note(ctx.number, "frames left open at the end", &why);
    }
    let nodes = out.tree.insert_forest(&states.entries);
    let line_stacks = record_lines(ctx, &states, &nodes, events.len(), out);
    for &(time, e, weight) in &states.intervals {
        if let Some(&leaf) = nodes.get(e as usize) {
            if ctx.records {
                out.samples.push(time, ctx.task, leaf, weight);
                let stack = line_stacks.get(e as usize).copied().unwrap_or(0);
                out.samples.set_line_stack(stack);
            }
            out.stats.samples += 1;
        }
    }
    true
}

/// Records the source lines of each stack state once, with all the time spent in it (as
/// recording each of its spans would: they have one stack); returns each state's stack of
/// lines (empty: none). The frames walked, each state's depth, stay within a budget linear
/// in the events (64 an event, plus 16 M): a profile past it (a million nested frames) is
/// left without lines, with a note, so its lines are never part of a profile's.
fn record_lines(
    ctx: &Ctx<'_>,
    states: &States,
    nodes: &[NodeId],
    events: usize,
    out: &mut Collector,
) -> Vec<u32> {
    if ctx.lines.is_none() {
        return Vec::new();
    }
    // A state's parent comes before it.
    let mut depth: Vec<u64> = Vec::with_capacity(states.entries.len());
    let mut cost = 0u64;
    for entry in &states.entries {
        let d = entry
            .parent
            .and_then(|p| depth.get(p as usize))
            .map_or(1, |d| d + 1);
        depth.push(d);
        if entry.own > 0 {
            cost = cost.saturating_add(d);
        }
    }
    let budget = (events as u64).saturating_mul(64).saturating_add(1 << 24);
    if cost > budget {
        let why = format!("{cost} frames to walk, more than {budget}");
        out.stats
            .note(ctx.number, "source lines left out: stacks too deep", &why);
        return Vec::new();
    }
    let mut stacks = vec![0; states.entries.len()];
    let mut stack = Vec::new();
    for (e, entry) in states.entries.iter().enumerate() {
        if let (true, Some(&leaf)) = (entry.own > 0, nodes.get(e)) {
            states.stack(e as u32, &mut stack);
            stacks[e] = ctx.record_lines(&stack, leaf, entry.own, out);
        }
    }
    stacks
}
