//! Stage: call tree → search matches. The regex runs once per distinct name; one pass over
//! the nodes then collects the matching frames, ordered as in pre-order (left to right,
//! callers before callees), and the weight they cover, each stack counted once even when
//! several of its frames match, as FlameGraph does.

use regex::Regex;

use super::index::TreeIndex;
use crate::profile::{CallTree, NodeId};

/// One matching frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Left edge of the frame.
    pub start: u64,
    /// Depth of the frame.
    pub depth: u32,
    /// The frame.
    pub id: NodeId,
}

/// Everything a search found.
#[derive(Debug, Clone, Default)]
pub struct Matches {
    names: Vec<bool>,
    hits: Vec<Hit>,
    by_depth: Vec<Vec<(u64, u64)>>,
    /// Weight of the stacks with at least one matching frame.
    pub weight: u64,
    /// The part of `weight` in the off-CPU half of SystemTap input (another unit: it is
    /// shown apart, never added to the on-CPU part).
    pub offcpu_weight: u64,
    /// Samples of those stacks.
    pub samples: u64,
}

/// Runs `re` over the names of `tree` (the root excluded).
pub fn find(tree: &CallTree, index: &TreeIndex, re: &Regex) -> Matches {
    let names: Vec<bool> = tree.names().iter().map(|(_, n)| re.is_match(n)).collect();
    let mut out = Matches {
        names,
        ..Matches::default()
    };
    if !out.names.iter().any(|&m| m) {
        return out;
    }
    // One pass in pre-order over the index's arrays: hits come out in (start, depth)
    // order, and `open` holds the depths of the matching frames above the current one,
    // so a frame under a match is not counted again.
    let mut open: Vec<u32> = Vec::new();
    for visit in index.preorder().iter().skip(1) {
        let depth = visit.depth;
        while open.last().is_some_and(|&d| d >= depth) {
            open.pop();
        }
        if out.name_matches(visit.name) {
            out.record(tree, index, visit.id, !open.is_empty());
            open.push(depth);
        }
    }
    // Frames of zero weight can break the (start, depth) order of pre-order.
    if !out.hits.is_sorted_by_key(|h| (h.start, h.depth)) {
        out.hits.sort_by_key(|h| (h.start, h.depth));
    }
    for v in &mut out.by_depth {
        if !v.is_sorted() {
            v.sort_unstable();
        }
    }
    out
}

impl Matches {
    fn record(&mut self, tree: &CallTree, index: &TreeIndex, id: NodeId, covered: bool) {
        let depth = index.depth(id) as usize;
        if self.by_depth.len() <= depth {
            self.by_depth.resize_with(depth + 1, Vec::new);
        }
        let start = index.start(id);
        if let Some(v) = self.by_depth.get_mut(depth) {
            v.push((start, index.end(id)));
        }
        self.hits.push(Hit {
            start,
            depth: index.depth(id),
            id,
        });
        if !covered {
            let node = tree.node(id);
            self.weight = self.weight.saturating_add(node.total);
            if index.is_offcpu(start, index.end(id)) {
                self.offcpu_weight = self.offcpu_weight.saturating_add(node.total);
            }
            self.samples = self.samples.saturating_add(node.samples);
        }
    }

    /// Number of matching frames.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// True when no frame matched.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// True when the name matched (names are indexed by `NameId`).
    pub fn name_matches(&self, name: crate::profile::NameId) -> bool {
        self.names.get(name.0 as usize).copied().unwrap_or(false)
    }

    /// True when the frame's name matched.
    pub fn frame_matches(&self, tree: &CallTree, id: NodeId) -> bool {
        let name = tree.node(id).name.0 as usize;
        id != NodeId::ROOT && self.names.get(name).copied().unwrap_or(false)
    }

    /// True when a matching frame at `depth` overlaps `[lo, hi)` (for group cells).
    pub fn any_in(&self, depth: u32, lo: u64, hi: u64) -> bool {
        let Some(v) = self.by_depth.get(depth as usize) else {
            return false;
        };
        let i = v.partition_point(|&(_, e)| e <= lo);
        v.get(i).is_some_and(|&(s, _)| s < hi)
    }

    /// The first match after position `(start, depth)` in pre-order, wrapping around.
    pub fn next_after(&self, start: u64, depth: u32) -> Option<Hit> {
        let i = self
            .hits
            .partition_point(|h| (h.start, h.depth) <= (start, depth));
        self.hits.get(i).or(self.hits.first()).copied()
    }

    /// The last match before position `(start, depth)` in pre-order, wrapping around.
    pub fn prev_before(&self, start: u64, depth: u32) -> Option<Hit> {
        let i = self
            .hits
            .partition_point(|h| (h.start, h.depth) < (start, depth));
        i.checked_sub(1)
            .and_then(|i| self.hits.get(i))
            .or(self.hits.last())
            .copied()
    }

    /// 1-based position of a frame among the matches.
    pub fn position(&self, start: u64, depth: u32) -> Option<usize> {
        let i = self
            .hits
            .partition_point(|h| (h.start, h.depth) < (start, depth));
        self.hits
            .get(i)
            .filter(|h| (h.start, h.depth) == (start, depth))
            .map(|_| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (CallTree, TreeIndex) {
        let mut t = CallTree::new();
        t.insert(["main", "parse", "parse", "lex"], 4);
        t.insert(["main", "eval"], 5);
        t.insert(["other", "parse"], 1);
        t.finish();
        let ix = TreeIndex::new(&t);
        (t, ix)
    }

    #[test]
    fn nested_matches_count_once() {
        let (t, ix) = setup();
        let m = find(&t, &ix, &Regex::new("^parse$").unwrap());
        assert_eq!(m.len(), 3);
        assert_eq!(m.weight, 5);
        assert_eq!(m.samples, 2);
        let main = t.child_named(NodeId::ROOT, "main").unwrap();
        assert!(!m.frame_matches(&t, main));
        assert!(m.any_in(2, 0, 10));
        assert!(!m.any_in(2, 0, 5));
        assert!(m.any_in(3, 5, 6));
    }

    #[test]
    fn next_and_previous_wrap_in_preorder() {
        let (t, ix) = setup();
        let m = find(&t, &ix, &Regex::new("parse").unwrap());
        let order: Vec<(u64, u32)> = m.hits.iter().map(|h| (h.start, h.depth)).collect();
        assert_eq!(order, [(5, 2), (5, 3), (9, 2)]);
        assert_eq!(m.next_after(0, 0).map(|h| h.depth), Some(2));
        assert_eq!(m.next_after(5, 2).map(|h| h.depth), Some(3));
        assert_eq!(m.next_after(9, 2).map(|h| h.start), Some(5));
        assert_eq!(m.prev_before(5, 2).map(|h| h.start), Some(9));
        assert_eq!(m.prev_before(9, 2).map(|h| h.depth), Some(3));
        assert_eq!(m.position(5, 3), Some(2));
        assert_eq!(m.position(6, 3), None);
    }

    proptest::proptest! {
        /// Against a brute force over ancestors, on random trees with zero-weight stacks.
        #[test]
        fn equals_a_walk_over_ancestors(
            stacks in proptest::collection::vec(
                (proptest::collection::vec(0u8..4, 1..6), 0u64..3), 1..40),
            pick in 0u8..4,
        ) {
            let mut t = CallTree::new();
            for (frames, w) in &stacks {
                t.insert(frames.iter().map(|f| format!("f{f}")), *w);
            }
            t.finish();
            let ix = TreeIndex::new(&t);
            let m = find(&t, &ix, &Regex::new(&format!("^f{pick}$")).unwrap());
            let matches = |id: NodeId| id != NodeId::ROOT && t.name(id) == format!("f{pick}");
            let (mut weight, mut samples, mut keys) = (0, 0, Vec::new());
            for id in t.ids().filter(|&id| matches(id)) {
                let mut up = t.node(id).parent;
                let mut covered = false;
                while let Some(p) = up {
                    covered |= matches(p);
                    up = t.node(p).parent;
                }
                if !covered {
                    weight += t.node(id).total;
                    samples += t.node(id).samples;
                }
                keys.push((ix.start(id), ix.depth(id)));
            }
            keys.sort_unstable();
            let found: Vec<(u64, u32)> = m.hits.iter().map(|h| (h.start, h.depth)).collect();
            proptest::prop_assert_eq!(found, keys);
            proptest::prop_assert_eq!((m.weight, m.samples), (weight, samples));
        }
    }

    #[test]
    fn root_never_matches() {
        let (t, ix) = setup();
        let m = find(&t, &ix, &Regex::new("all").unwrap());
        assert!(m.is_empty());
        assert!(!m.frame_matches(&t, NodeId::ROOT));
    }
}
