//! Stage: call tree → search matches. The regex runs once per distinct name; one pass over
//! the nodes in pre-order (left to right, callers before callees) then lists the matching
//! frames per depth (for group cells) and sums the weight they cover, each stack counted
//! once even when several of its frames match, as FlameGraph does.

use regex::Regex;

use super::index::TreeIndex;
use crate::profile::{CallTree, NameId, NameSource, NodeId};

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

/// Everything a search found: which names match, how many frames, and the weight they
/// cover. The matching frames are listed only per depth, as node ids (4 bytes a match), for
/// group cells; `n`, `N` and the selection's rank scan the index's pre-order array from the
/// selection instead.
#[derive(Debug, Clone, Default)]
pub struct Matches {
    names: Vec<bool>,
    count: usize,
    /// Per depth, the matching frames in pre-order. The frames of one depth never overlap
    /// and come in pre-order left to right, so both their starts and their ends are sorted
    /// (one of zero weight is an empty interval in its place): [`Matches::any_in`] is a
    /// binary search.
    by_depth: Vec<Vec<NodeId>>,
    /// Weight of the stacks with at least one matching frame.
    pub weight: u64,
    /// The part of `weight` in the off-CPU half of SystemTap input (another unit: it is
    /// shown apart, never added to the on-CPU part).
    pub offcpu_weight: u64,
}

/// Runs `re` over the names of `tree` (the root excluded).
pub fn find(tree: &CallTree, index: &TreeIndex, re: &Regex) -> Matches {
    find_in(index, re, tree.names())
}

/// As [`find`], with the names of the tree spelt as `shown` spells them (the screen's).
pub fn find_in<N: NameSource>(index: &TreeIndex, re: &Regex, shown: &N) -> Matches {
    let names: Vec<bool> = (0..shown.count())
        .map(|i| re.is_match(shown.text(NameId(u32::try_from(i).unwrap_or(u32::MAX)))))
        .collect();
    if !names.iter().any(|&m| m) {
        return Matches {
            names,
            ..Matches::default()
        };
    }
    // One sequential pass over the index's pre-order array. Only the outermost matching
    // caller matters: a frame inside its subtree is covered (counted once, FlameGraph's
    // rule); leaving that subtree is a depth at or above its own.
    let mut lists = vec![List::default(); index.deepest(NodeId::ROOT) as usize + 1];
    let mut cover = Cover::new(index);
    let mut outer = u32::MAX;
    for visit in index.preorder().iter().skip(1) {
        let depth = visit.depth;
        if depth <= outer {
            outer = u32::MAX;
        }
        let hit = names.get(visit.name.0 as usize).copied().unwrap_or(false);
        if let Some(list) = lists.get_mut(depth as usize) {
            list.offer(visit.id, hit);
        }
        if hit && outer == u32::MAX {
            outer = depth;
            cover.add(visit.id);
        }
    }
    cover.flush();
    let by_depth: Vec<Vec<NodeId>> = lists.into_iter().map(List::into_vec).collect();
    Matches {
        names,
        count: by_depth.iter().map(Vec::len).sum(),
        by_depth,
        weight: cover.weight,
        offcpu_weight: cover.offcpu,
    }
}

/// The matching frames of one depth, being listed.
#[derive(Debug, Clone, Default)]
struct List {
    ids: Vec<NodeId>,
    kept: usize,
}

impl List {
    /// Writes `id` to the next slot, which only a match keeps: no branch on whether it
    /// matches, which with about half of the frames matching was mispredicted at every
    /// other frame (a third of the pass).
    fn offer(&mut self, id: NodeId, keep: bool) {
        if self.kept == self.ids.len() {
            self.ids.resize(self.ids.len() * 2 + 64, NodeId::ROOT);
        }
        if let Some(slot) = self.ids.get_mut(self.kept) {
            *slot = id;
        }
        self.kept += usize::from(keep);
    }

    fn into_vec(self) -> Vec<NodeId> {
        let mut ids = self.ids;
        ids.truncate(self.kept);
        ids.shrink_to_fit();
        ids
    }
}

/// Outermost matches weighed at a time (see [`Cover`]).
const BATCH: usize = 1024;

/// The weight of the stacks through the outermost matches. Their totals are read at
/// random; in a loop of their own, a batch at a time, the reads overlap (one at a time
/// inside the pass, they were half of its time when half of the names match).
struct Cover<'a> {
    index: &'a TreeIndex,
    pending: Vec<NodeId>,
    weight: u64,
    /// The part of `weight` in the off-CPU subtree.
    offcpu: u64,
}

impl<'a> Cover<'a> {
    fn new(index: &'a TreeIndex) -> Self {
        Self {
            index,
            pending: Vec::with_capacity(BATCH),
            weight: 0,
            offcpu: 0,
        }
    }

    /// Adds a matching frame with no matching caller.
    fn add(&mut self, id: NodeId) {
        self.pending.push(id);
        if self.pending.len() == BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        // The index's array of totals, not the nodes: a smaller stride to read at random.
        let index = self.index;
        for &id in &self.pending {
            self.weight = self.weight.saturating_add(index.total(id));
        }
        if index.has_offcpu() {
            for &id in &self.pending {
                if index.is_offcpu(index.start(id), index.end(id)) {
                    self.offcpu = self.offcpu.saturating_add(index.total(id));
                }
            }
        }
        self.pending.clear();
    }
}

impl Matches {
    /// Number of matching frames.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no frame matched.
    pub fn is_empty(&self) -> bool {
        self.count == 0
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

    /// True when a matching frame of some weight at `depth` overlaps `[lo, hi)` (for group
    /// cells): a binary search in the depth's list for the first match that ends after
    /// `lo`, then a look at whether it starts before `hi` (past frames of zero weight, which
    /// cover nothing). The tree is not read; the parameter keeps the callers' form.
    pub fn any_in(
        &self,
        _tree: &CallTree,
        index: &TreeIndex,
        depth: u32,
        lo: u64,
        hi: u64,
    ) -> bool {
        let Some(v) = self.by_depth.get(depth as usize) else {
            return false;
        };
        let from = v.partition_point(|&id| index.end(id) <= lo);
        v[from..]
            .iter()
            .take_while(|&&id| index.start(id) < hi)
            .any(|&id| index.total(id) > 0)
    }

    /// The matching frame at pre-order position `at`, if it matches.
    fn hit_at(&self, index: &TreeIndex, at: usize) -> Option<Hit> {
        let v = index
            .preorder()
            .get(at)
            .filter(|v| at > 0 && self.name_matches(v.name))?;
        Some(Hit {
            start: index.start(v.id),
            depth: v.depth,
            id: v.id,
        })
    }

    /// The first match after position `(start, depth)` in pre-order, wrapping around.
    pub fn next_after(&self, index: &TreeIndex, start: u64, depth: u32) -> Option<Hit> {
        if self.is_empty() {
            return None;
        }
        let from = boundary(index, (start, depth), true);
        let n = index.preorder().len();
        (from..n)
            .chain(1..from)
            .find_map(|at| self.hit_at(index, at))
    }

    /// The last match before position `(start, depth)` in pre-order, wrapping around.
    pub fn prev_before(&self, index: &TreeIndex, start: u64, depth: u32) -> Option<Hit> {
        if self.is_empty() {
            return None;
        }
        let to = boundary(index, (start, depth), false);
        let n = index.preorder().len();
        (1..to)
            .rev()
            .chain((to..n).rev())
            .find_map(|at| self.hit_at(index, at))
    }

    /// 1-based position of a frame among the matches (a count over the pre-order array up
    /// to it).
    pub fn position(&self, index: &TreeIndex, start: u64, depth: u32) -> Option<usize> {
        let at = boundary(index, (start, depth), false);
        let hit = self.hit_at(index, at)?;
        if (hit.start, hit.depth) != (start, depth) {
            return None;
        }
        let before = index.preorder()[1..at]
            .iter()
            .filter(|v| self.name_matches(v.name))
            .count();
        Some(before + 1)
    }

    /// Every matching frame in pre-order (for tests and small trees: it lists them all).
    pub fn hits(&self, index: &TreeIndex) -> Vec<Hit> {
        (1..index.preorder().len())
            .filter_map(|at| self.hit_at(index, at))
            .collect()
    }
}

/// The first pre-order position whose `(start, depth)` is after `key` (`after`), or not
/// before it. Pre-order is sorted by `(start, depth)` (a callee starts where its caller
/// does, one level down); frames of zero weight may stand out of that order, which only
/// moves where a scan begins.
fn boundary(index: &TreeIndex, key: (u64, u32), after: bool) -> usize {
    let pre = index.preorder();
    let k = |v: &super::index::Visit| (index.start(v.id), v.depth);
    if after {
        pre.partition_point(|v| k(v) <= key)
    } else {
        pre.partition_point(|v| k(v) < key)
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
        let main = t.child_named(NodeId::ROOT, "main").unwrap();
        assert!(!m.frame_matches(&t, main));
        assert!(m.any_in(&t, &ix, 2, 0, 10));
        assert!(!m.any_in(&t, &ix, 2, 0, 5));
        assert!(m.any_in(&t, &ix, 3, 5, 6));
    }

    #[test]
    fn next_and_previous_wrap_in_preorder() {
        let (t, ix) = setup();
        let m = find(&t, &ix, &Regex::new("parse").unwrap());
        let order: Vec<(u64, u32)> = m.hits(&ix).iter().map(|h| (h.start, h.depth)).collect();
        assert_eq!(order, [(5, 2), (5, 3), (9, 2)]);
        assert_eq!(m.next_after(&ix, 0, 0).map(|h| h.depth), Some(2));
        assert_eq!(m.next_after(&ix, 5, 2).map(|h| h.depth), Some(3));
        assert_eq!(m.next_after(&ix, 9, 2).map(|h| h.start), Some(5));
        assert_eq!(m.prev_before(&ix, 5, 2).map(|h| h.start), Some(9));
        assert_eq!(m.prev_before(&ix, 9, 2).map(|h| h.depth), Some(3));
        assert_eq!(m.position(&ix, 5, 3), Some(2));
        assert_eq!(m.position(&ix, 6, 3), None);
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
            let (mut weight, mut keys) = (0, Vec::new());
            for id in t.ids().filter(|&id| matches(id)) {
                let mut up = t.node(id).parent;
                let mut covered = false;
                while let Some(p) = up {
                    covered |= matches(p);
                    up = t.node(p).parent;
                }
                if !covered {
                    weight += t.node(id).total;
                }
                keys.push((ix.start(id), ix.depth(id)));
            }
            keys.sort_unstable();
            let mut found: Vec<(u64, u32)> = m.hits(&ix).iter().map(|h| (h.start, h.depth)).collect();
            found.sort_unstable();
            proptest::prop_assert_eq!(m.len(), found.len());
            proptest::prop_assert_eq!(found, keys);
            proptest::prop_assert_eq!(m.weight, weight);
        }
    }

    proptest::proptest! {
        /// Against a check of every frame, on random trees with zero-weight stacks and
        /// random intervals (empty and reversed ones too).
        #[test]
        fn any_in_equals_a_check_of_every_frame(
            stacks in proptest::collection::vec(
                (proptest::collection::vec(0u8..4, 1..6), 0u64..3), 1..40),
            pick in 0u8..4,
            queries in proptest::collection::vec((0u32..7, 0u64..90, 0u64..90), 1..20),
        ) {
            let mut t = CallTree::new();
            for (frames, w) in &stacks {
                t.insert(frames.iter().map(|f| format!("f{f}")), *w);
            }
            t.finish();
            let ix = TreeIndex::new(&t);
            let m = find(&t, &ix, &Regex::new(&format!("^f{pick}$")).unwrap());
            for (depth, lo, hi) in queries {
                let want = t.ids().any(|id| {
                    m.frame_matches(&t, id)
                        && ix.depth(id) == depth
                        && ix.total(id) > 0
                        && ix.start(id) < hi
                        && ix.end(id) > lo
                });
                proptest::prop_assert_eq!(m.any_in(&t, &ix, depth, lo, hi), want, "{} {} {}", depth, lo, hi);
            }
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
