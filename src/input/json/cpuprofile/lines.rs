//! A `.cpuprofile`'s source lines. V8 counts, per node, how many of the node's own
//! samples it took at each line (`positionTicks: [{ "line": L (1-based), "ticks": N }]`,
//! their sum the node's `hitCount`); `callFrame.lineNumber` (0-based) is where the
//! function starts. The file is the script's URL as the profile names it (a `file://`
//! URL's path; `node:internal/…` whole).
//!
//! Ticks are counts and the tree's weights are nanoseconds (or samples, without
//! `timeDeltas`), which are never added: each node's own weight is shared out over its
//! lines in proportion to their ticks ([`apportion`]), so a node's lines' self adds up to
//! exactly its self. With an even sampling interval that is ticks × the average interval,
//! the time Chrome DevTools' line-level profile shows; without `timeDeltas` it is the ticks
//! themselves (when the samples at a node are its `hitCount`).
//!
//! The file says at which line a node's function was but not at which line its caller
//! called it, so only a node's own lines are known: a line's total is its self, and a
//! caller's lines hold nothing of its callees. V8 may tick a line of a function inlined
//! into the node under the node's own URL (a line past the end of its function, of
//! another file): it is kept as written, as DevTools shows it. Ticks are per node, not per
//! sample, so samples keep no stack of lines (a time range's Source screen says its
//! figures are the whole recording's). A tick that cannot be read — a line that is not a
//! whole number from 1 to ten million, a count that is not a whole number below 2^64 — is
//! left out with a note.

use serde::Deserialize;

use super::super::{line_number, source_path, to_ns};
use super::Node;
use crate::input::Collector;
use crate::profile::source::Line;
use crate::profile::{ForestEntry, NodeId};

/// An entry of a node's `positionTicks`.
#[derive(Debug, Deserialize)]
pub(super) struct PositionTick {
    #[serde(default)]
    line: Option<f64>,
    #[serde(default)]
    ticks: Option<f64>,
}

/// Records the lines of every node with `positionTicks`: node `i` is forest entry
/// `entry[i]` of `entries` (its own weight), whose node in `out`'s tree is `leaves[e]`.
pub(super) fn record(
    nodes: &[Node],
    entry: &[Option<u32>],
    entries: &[ForestEntry],
    leaves: &[NodeId],
    out: &mut Collector,
) {
    let mut ticks: Vec<(u32, u64)> = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let Some(e) = entry.get(i).copied().flatten().map(|e| e as usize) else {
            continue;
        };
        let (Some(own), Some(&leaf)) = (entries.get(e).map(|e| e.own), leaves.get(e)) else {
            continue;
        };
        let path = source_path(&n.call_frame.url);
        if path.is_empty() {
            continue;
        }
        let file = out.samples.lines_mut().file(&path);
        let f = out.tree.node(leaf).name;
        if let Some(start) = n.call_frame.line_number.and_then(|l| line_number(l + 1.0)) {
            let start = Line {
                file,
                number: start,
            };
            out.samples.lines_mut().set_start(f, start);
        }
        ticks.clear();
        for t in n.position_ticks.iter().flatten() {
            let line = t.line.and_then(line_number);
            let count = t
                .ticks
                .filter(|c| c.fract() == 0.0)
                .and_then(|c| to_ns(c, 1.0));
            if let (Some(line), Some(count)) = (line, count) {
                ticks.push((line, count));
            } else {
                let why = format!(
                    "node {}: line {:?}, ticks {:?}",
                    n.id,
                    t.line.unwrap_or(f64::NAN),
                    t.ticks.unwrap_or(f64::NAN)
                );
                let reason = "position tick left out: line or count unreadable";
                out.stats.note(0, reason, &why);
            }
        }
        counts.clear();
        counts.extend(ticks.iter().map(|t| t.1));
        for (&(number, _), weight) in ticks.iter().zip(apportion(own, &counts)) {
            if weight > 0 {
                // Only the node's own frame has a line: its self and total, nothing for
                // its callers, which have none. Recorded as a stack of that one frame (what
                // a walk from the node up would record, without the walk: a chain of
                // deep nodes with ticks stays linear).
                let frame = (leaf, f, Some(Line { file, number }));
                out.samples.lines_mut().record(&[frame], weight);
            }
        }
    }
}

/// `total` shared out in proportion to `parts`: each share is `total × part / Σ parts`
/// rounded down, and the units rounding down left over (fewer than there are parts) go
/// one each to the parts with the largest remainders, the first of equal ones (Hamilton's
/// largest-remainder method), so the shares add up to `total` exactly and each is within
/// one unit of its exact proportion. All zero when the parts are. Computed in 128 bits,
/// where `total × part` always fits.
pub(super) fn apportion(total: u64, parts: &[u64]) -> Vec<u64> {
    let sum = parts
        .iter()
        .fold(0u128, |s, &p| s.saturating_add(u128::from(p)));
    if sum == 0 {
        return vec![0; parts.len()];
    }
    let mut shares = Vec::with_capacity(parts.len());
    let mut remainders = Vec::with_capacity(parts.len());
    let mut given = 0u128;
    for (i, &p) in parts.iter().enumerate() {
        let exact = u128::from(total) * u128::from(p);
        let share = exact / sum;
        given += share;
        // At most `total`, since `p ≤ sum`.
        shares.push(u64::try_from(share).unwrap_or(u64::MAX));
        remainders.push((exact % sum, i));
    }
    let left = u128::from(total).saturating_sub(given);
    remainders.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in remainders
        .iter()
        .take(usize::try_from(left).unwrap_or(usize::MAX))
    {
        if let Some(s) = shares.get_mut(i) {
            *s = s.saturating_add(1);
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shares_follow_the_parts_and_add_up() {
        assert_eq!(apportion(10, &[1, 1, 1]), [4, 3, 3]);
        assert_eq!(apportion(515, &[488, 26]), [489, 26]);
        assert_eq!(apportion(514, &[488, 26]), [488, 26]);
        assert_eq!(apportion(7, &[0, 0]), [0, 0]);
        assert_eq!(apportion(7, &[]), Vec::<u64>::new());
        assert_eq!(apportion(0, &[3, 4]), [0, 0]);
        assert_eq!(
            apportion(u64::MAX, &[u64::MAX, u64::MAX])
                .iter()
                .sum::<u64>(),
            u64::MAX
        );
        assert_eq!(
            apportion(u64::MAX, &[1, 0, 1]),
            [u64::MAX / 2 + 1, 0, u64::MAX / 2]
        );
    }

    proptest! {
        #[test]
        fn shares_add_up_exactly_and_are_within_one_of_the_proportion(
            total in prop_oneof![any::<u64>(), 0u64..1000, Just(u64::MAX)],
            parts in prop::collection::vec(
                prop_oneof![any::<u64>(), 0u64..100, Just(u64::MAX), Just(0)],
                0..20,
            ),
        ) {
            let shares = apportion(total, &parts);
            prop_assert_eq!(shares.len(), parts.len());
            let sum: u128 = parts.iter().map(|&p| u128::from(p)).sum();
            let given: u128 = shares.iter().map(|&s| u128::from(s)).sum();
            prop_assert_eq!(given, if sum == 0 { 0 } else { u128::from(total) });
            // Each share is ⌊total × part / Σ parts⌋ or one more.
            for (&s, &p) in shares.iter().zip(&parts) {
                if let Some(floor) = (u128::from(total) * u128::from(p)).checked_div(sum) {
                    prop_assert!(u128::from(s) == floor || u128::from(s) == floor + 1);
                }
                if p == 0 {
                    prop_assert_eq!(s, 0);
                }
            }
        }
    }
}
