//! Copies and merges: a tree pruned to its heavy frames (or to the counters of a slice of
//! its samples), nested under a new frame, rescaled to more decimals, merged with another
//! tree (node by node, with the map of where each node went) or by the text of its
//! names. Weights add with saturation; a clamped node keeps its own weight.

use super::{CallTree, NONE, NodeId};
use crate::profile::intern::{Interner, NameId};

impl CallTree {
    /// The least power of two such that at most `n` nodes (the root aside) weigh that
    /// much or more: with it, [`CallTree::pruned`] keeps at most `n` of them. One pass
    /// counting the nodes by the bit length of their weight.
    #[must_use]
    pub fn lightest_of_heaviest(&self, n: usize) -> u64 {
        let mut by_bits = [0usize; 65];
        for s in &self.slots[1..] {
            by_bits[(u64::BITS - s.total.leading_zeros()) as usize] += 1;
        }
        // Nodes of bit length b weigh at least 2^(b-1); from the heaviest down.
        let mut heavier = 0;
        for bits in (1..=64).rev() {
            heavier += by_bits[bits];
            if heavier > n {
                return 1u64 << bits.min(63);
            }
        }
        1
    }

    /// A copy of the nodes whose subtree weighs at least `min_total` (and the root),
    /// each with its exact counts; the weight of what is left out stays in its nearest
    /// kept ancestor, as its own (a preview, as flamegraph.pl's `--minwidth` leaves out
    /// frames too thin to see). Also where each node of this tree went (itself or that
    /// ancestor), to map samples. Needs parents before children in id order, as trees
    /// are built by inserting and merging.
    #[must_use]
    pub fn pruned(&self, min_total: u64) -> (CallTree, Vec<NodeId>) {
        let mut out = CallTree {
            names: self.names.clone(),
            slots: vec![self.slots[0]],
            scale: self.scale,
            saturated: self.saturated,
            ..CallTree::new()
        };
        out.slots[0].first_child = NONE;
        let mut map = vec![NodeId::ROOT; self.slots.len()];
        let mut kept = vec![true; self.slots.len()];
        // Depth of each node of `out`.
        let mut depth: Vec<u32> = vec![0];
        for (i, s) in self.slots.iter().enumerate().skip(1) {
            let p = s.parent as usize;
            debug_assert!(p < i, "a parent after its child");
            if kept[p] && s.total >= min_total {
                let id = out.child_or_insert(map[p], s.name);
                let n = &mut out.slots[id.index()];
                n.total = s.total;
                n.samples = s.samples;
                let d = depth[map[p].index()] + 1;
                depth.push(d);
                out.max_depth = out.max_depth.max(d);
                map[i] = id;
            } else {
                kept[i] = false;
                map[i] = map[p];
            }
        }
        // A clamped node's own weight: its own here and what was left out below it.
        for i in (0..self.slots.len()).filter(|&i| kept[i] && self.slots[i].total == u64::MAX) {
            let id = NodeId(u32::try_from(i).unwrap_or(NONE));
            let left_out = self
                .children(id)
                .filter(|c| !kept[c.index()])
                .fold(0u64, |w, c| w.saturating_add(self.slots[c.index()].total));
            let own = self.self_weight(id).saturating_add(left_out);
            out.own.insert(map[i], own);
        }
        (out, map)
    }

    /// A copy of this tree with every stack moved one level down, under a new
    /// frame `name` (used when `SystemTap` input turns out to have off-CPU stacks).
    #[must_use]
    pub fn nest_under(&self, name: &str) -> CallTree {
        let mut out = CallTree::new();
        out.scale = self.scale;
        out.saturated = self.saturated;
        let root = self.slots[0];
        out.slots[0].total = root.total;
        out.slots[0].samples = root.samples;
        if self.is_empty() {
            return out;
        }
        let group_name = out.names.intern(name);
        let group = out.child_or_insert(NodeId::ROOT, group_name);
        out.slots[group.index()].total = root.total;
        out.slots[group.index()].samples = root.samples;
        let mut map = vec![NodeId::ROOT; self.slots.len()];
        map[0] = group;
        for id in self.preorder().into_iter().skip(1) {
            let old = self.slots[id.index()];
            let parent = map[old.parent as usize];
            let new_name = out.names.intern_like(&self.names, old.name);
            let new = out.child_or_insert(parent, new_name);
            let n = &mut out.slots[new.index()];
            n.total = old.total;
            n.samples = old.samples;
            map[id.index()] = new;
        }
        // Clamped nodes keep their own weights (the root's goes to the new frame).
        for (&id, &w) in &self.own {
            out.own.insert(map[id.index()], w);
        }
        out.max_depth = self.max_depth + 1;
        out
    }

    /// Adds every sample of `other` to this tree (trees parsed from pieces of one input).
    pub fn merge_from(&mut self, other: &CallTree) {
        let _ = self.merge_from_mapped(other);
    }

    /// As [`CallTree::merge_from`], returning where each node of `other` went: the id
    /// in this tree of `other`'s node `i` is at index `i` (sample tables of `other` are
    /// remapped with it).
    pub fn merge_from_mapped(&mut self, other: &CallTree) -> Vec<NodeId> {
        // Each of `other`'s names is interned here once, not once per node (with distinct
        // stacks, nodes outnumber names a hundred to one).
        let mut names: Vec<Option<NameId>> = vec![None; other.names.len()];
        self.merge_renamed(other, |mine, theirs, id| {
            *names[id.0 as usize].get_or_insert_with(|| mine.intern_like(theirs, id))
        })
    }

    /// True when two children of one node have the same text (a function's name in two
    /// libraries, or inlined in one place and called in another).
    pub fn has_same_text_siblings(&self) -> bool {
        if !self.names.has_same_text() {
            return false;
        }
        let ambiguous = self.names.ambiguous_ids();
        self.ids().skip(1).any(|id| {
            let n = self.slots[id.index()];
            ambiguous[n.name.0 as usize]
                && self
                    .names
                    .lookup_all(self.names.resolve(n.name))
                    .any(|o| o != n.name && self.child(NodeId(n.parent), o).is_some())
        })
    }

    /// This tree with the children of each node that have the same text merged into one
    /// (of the first function of that text), weights summed: the tree of the text, for
    /// the formats that have only names (folded stacks, SVG). `None` when no two
    /// siblings have the same text (the tree is its own text tree).
    #[must_use]
    pub fn merged_by_text(&self) -> Option<CallTree> {
        if !self.has_same_text_siblings() {
            return None;
        }
        // Each name's first function of its text, worked out once per name (not per node):
        // only a name another function shares is renamed.
        let names = &self.names;
        let ambiguous = names.ambiguous_ids();
        let first: Vec<NameId> = names
            .iter()
            .map(|(id, text)| {
                if ambiguous[id.0 as usize] {
                    names.lookup(text).unwrap_or(id)
                } else {
                    id
                }
            })
            .collect();
        let mut out = CallTree::with_scale(self.scale);
        out.names = self.names.clone();
        out.slots[0].name = self.slots[0].name;
        out.merge_renamed(self, |_, _, id| first[id.0 as usize]);
        out.finish();
        Some(out)
    }

    /// Adds every sample of `other` to this tree, each node under the name
    /// `name(self's names, other's names, its name)`.
    fn merge_renamed(
        &mut self,
        other: &CallTree,
        mut name: impl FnMut(&mut Interner, &Interner, NameId) -> NameId,
    ) -> Vec<NodeId> {
        if other.scale > self.scale {
            self.rescale(other.scale - self.scale);
        }
        let factor = 10u64.saturating_pow(self.scale - other.scale);
        self.saturated |= other.saturated;
        self.max_depth = self.max_depth.max(other.max_depth);
        let mut map = vec![NodeId::ROOT; other.slots.len()];
        // At most every node of `other` is new here: one exact reservation instead of the
        // doubling growth, whose slack is most of the peak memory with distinct stacks.
        self.slots.reserve_exact(other.slots.len());
        // Parents come before their children in id order.
        for (i, old) in other.slots.iter().enumerate() {
            let new = if old.parent == NONE {
                NodeId::ROOT
            } else {
                let name = name(&mut self.names, &other.names, old.name);
                self.child_or_insert(map[old.parent as usize], name)
            };
            map[i] = new;
            let mut sat = self.saturated;
            let total = add_sat(
                self.slots[new.index()].total,
                mul_sat(old.total, factor, &mut sat),
                &mut sat,
            );
            if total == u64::MAX {
                // Both own weights, before this node's children here change (they come
                // after it in `other`'s order).
                let theirs = other.self_weight(NodeId(u32::try_from(i).unwrap_or(NONE)));
                let own = add_sat(
                    self.self_weight(new),
                    mul_sat(theirs, factor, &mut sat),
                    &mut sat,
                );
                self.own.insert(new, own);
            }
            let n = &mut self.slots[new.index()];
            n.total = total;
            n.samples = n.samples.saturating_add(old.samples);
            self.saturated = sat;
        }
        map
    }

    /// Multiplies every weight by 10^`extra` so that weights with more decimals fit.
    pub fn rescale(&mut self, extra: u32) {
        let factor = 10u64.saturating_pow(extra);
        // The own weights of the nodes whose totals this clamps, while they can be told.
        let clamped: Vec<(NodeId, u64)> = self
            .ids()
            .filter(|id| {
                self.slots[id.index()]
                    .total
                    .checked_mul(factor)
                    .is_none_or(|t| t == u64::MAX)
            })
            .map(|id| (id, self.self_weight(id)))
            .collect();
        for node in &mut self.slots {
            node.total = mul_sat(node.total, factor, &mut self.saturated);
        }
        for (id, own) in clamped {
            self.own
                .insert(id, mul_sat(own, factor, &mut self.saturated));
        }
        self.scale += extra;
    }
}

// Building a tree from counters computed elsewhere (a slice of the samples).
impl CallTree {
    /// A tree of the nodes that `counts` (indexed by this tree's `NodeId`s) gives at least
    /// one sample, with those counters instead of this tree's: names (ids and kinds),
    /// scale and each family's order are kept (alphabetical when this tree is finished),
    /// nodes without a sample are left out with everything below them. The root is always
    /// there. A missing entry counts as no sample. With it, where each node went (index:
    /// this tree's id; the root for a node left out).
    #[must_use]
    pub fn pruned_with(&self, counts: &[Counters]) -> (CallTree, Vec<NodeId>) {
        let mut map = vec![NodeId::ROOT; self.slots.len()];
        let mut out = self.empty_like();
        let count = |id: NodeId| counts.get(id.index()).copied().unwrap_or_default();
        out.set_counters(NodeId::ROOT, count(NodeId::ROOT));
        // (node here, its copy there): a family is copied whole, in its order, before
        // any of its members' families.
        let mut todo = vec![(NodeId::ROOT, NodeId::ROOT, 0u32)];
        let mut deepest = 0;
        while let Some((id, copy, depth)) = todo.pop() {
            deepest = deepest.max(depth);
            for c in self.children(id) {
                let k = count(c);
                if k.samples == 0 {
                    continue;
                }
                let new = out.child_or_insert(copy, self.slots[c.index()].name);
                out.set_counters(new, k);
                map[c.index()] = new;
                todo.push((c, new, depth + 1));
            }
        }
        out.max_depth = deepest;
        (out, map)
    }

    fn set_counters(&mut self, id: NodeId, k: Counters) {
        let n = &mut self.slots[id.index()];
        n.total = k.total;
        n.samples = k.samples;
    }
}

/// The counters of a node, as [`CallTree::pruned_with`] takes them (a node's own part is
/// derived from these and its children's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Inclusive weight.
    pub total: u64,
    /// Inclusive number of samples.
    pub samples: u64,
}

fn add_sat(a: u64, b: u64, saturated: &mut bool) -> u64 {
    a.checked_add(b).unwrap_or_else(|| {
        *saturated = true;
        u64::MAX
    })
}

fn mul_sat(v: u64, f: u64, saturated: &mut bool) -> u64 {
    v.checked_mul(f).unwrap_or_else(|| {
        *saturated = true;
        u64::MAX
    })
}
