//! Building: stacks inserted root first (by text or by interned ids, one sample or
//! many), forests whose inclusive weights are summed once from the leaves, and own
//! weights added to nodes made beforehand. Every addition clamps at `u64::MAX`, keeping
//! apart the own weight of a clamped node, which its total can no longer tell.

use rustc_hash::FxHashMap;

use super::{CallTree, NONE, NodeId, slot};
use crate::profile::intern::NameId;

impl CallTree {
    /// Adds one sample: `frames` from the root to the leaf, with `weight` in the tree's
    /// units (see [`CallTree::scale`]). Returns the leaf node.
    pub fn insert<I, S>(&mut self, frames: I, weight: u64) -> NodeId
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.insert_counted(frames, weight, 1)
    }

    /// The id of `name` in this tree's interner, adding it on first sight.
    pub fn intern(&mut self, name: &str) -> NameId {
        self.names.intern(name)
    }

    /// The id of task (process or thread) name `name`, adding it on first sight.
    pub fn intern_task(&mut self, name: &str) -> NameId {
        self.names.intern_task(name)
    }

    /// An empty tree with this tree's names and scale, for rebuilding it stack by stack
    /// with [`CallTree::insert_ids_counted`] (names keep their ids and kinds).
    #[must_use]
    pub fn empty_like(&self) -> CallTree {
        let mut out = CallTree::with_scale(self.scale);
        out.names = self.names.clone();
        out
    }

    /// Drops every node but the root (its counts too), keeping the names under the same
    /// ids and the scale: a parser that holds ids of names goes on filling the tree
    /// (a streamed input's snapshots move the workers' nodes elsewhere this way).
    pub fn clear_nodes(&mut self) {
        // The buffers are kept for the nodes to come (the worker fills them again).
        let root = self.slots[0].name;
        self.slots.truncate(1);
        self.slots[0] = slot(root, NONE);
        self.index.clear();
        self.indexed.clear();
        self.saturated = false;
        self.own.clear();
        self.max_depth = 0;
        self.last_path.clear();
    }

    /// Takes a copy of `other`'s names, for a tree whose nodes were inserted with ids
    /// interned in `other` (the trees of several events of one input, filled together).
    pub fn adopt_names(&mut self, other: &CallTree) {
        self.names = other.names.clone();
    }

    /// As [`CallTree::insert`], with frames already interned in this tree.
    ///
    /// Consecutive samples usually share most of their root side, so the path of the
    /// previous sample is tried before the child lookup.
    pub fn insert_ids<I: IntoIterator<Item = NameId>>(&mut self, frames: I, weight: u64) -> NodeId {
        self.insert_ids_counted(frames, weight, 1)
    }

    /// As [`CallTree::insert_ids`], for `samples` samples of one stack weighing `weight`
    /// in all. No frames at all charge the root's own weight.
    pub fn insert_ids_counted<I: IntoIterator<Item = NameId>>(
        &mut self,
        frames: I,
        weight: u64,
        samples: u64,
    ) -> NodeId {
        let mut at = NodeId::ROOT;
        self.add_weight(at, weight, samples);
        let mut last = std::mem::take(&mut self.last_path);
        let mut depth = 0;
        for name in frames {
            let same = last.get(depth).copied().filter(|&n| {
                let s = &self.slots[n.index()];
                s.name == name && s.parent == at.0
            });
            at = match same {
                Some(n) => n,
                None => self.child_or_insert(at, name),
            };
            if depth < last.len() {
                last[depth] = at;
            } else {
                last.push(at);
            }
            depth += 1;
            self.add_weight(at, weight, samples);
        }
        self.add_own(at, weight);
        last.truncate(depth);
        self.last_path = last;
        self.note_depth(depth);
        at
    }

    /// Adds a forest given parents first: entry `i` is a frame named `name` under entry
    /// `parent` (`None`: under the root), weighing `own` itself in `own_samples` samples.
    /// Returns the node of each entry (entries of one path and name share a node).
    ///
    /// For loaders whose input is a tree already (a `.cpuprofile`'s nodes, the stack states
    /// of an evented profile): inclusive weights are summed once from the leaves up, so the
    /// cost is one child lookup and one addition per entry, however deep the forest (a path
    /// inserted per entry would cost its depth each time). An entry whose parent is not
    /// before it is put under the root.
    pub fn insert_forest(&mut self, entries: &[ForestEntry]) -> Vec<NodeId> {
        let mut nodes = Vec::with_capacity(entries.len());
        let mut depths: Vec<u32> = Vec::with_capacity(entries.len());
        let mut totals: Vec<(u64, u64)> = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let parent = e.parent.map(|p| p as usize).filter(|&p| p < i);
            let (at, depth) = parent.map_or((NodeId::ROOT, 0), |p| (nodes[p], depths[p]));
            nodes.push(self.child_or_insert(at, e.name));
            depths.push(depth.saturating_add(1));
            totals.push((e.own, e.own_samples));
        }
        let mut root = (0u64, 0u64);
        for i in (0..entries.len()).rev() {
            let (w, n) = totals[i];
            let sum = match entries[i].parent.map(|p| p as usize).filter(|&p| p < i) {
                Some(p) => &mut totals[p],
                None => &mut root,
            };
            if let Some(t) = sum.0.checked_add(w) {
                sum.0 = t;
            } else {
                sum.0 = u64::MAX;
                self.saturated = true;
            }
            sum.1 = sum.1.saturating_add(n);
        }
        // Every node is at most the root: unless the root's total reaches u64::MAX, no
        // node's total is clamped and own weights are the totals' differences.
        let clamps = self.slots[0]
            .total
            .checked_add(root.0)
            .is_none_or(|t| t == u64::MAX);
        let own_before = clamps.then(|| self.own_weights(&nodes));
        for (&node, &(w, n)) in nodes.iter().zip(&totals) {
            self.add_weight(node, w, n);
        }
        self.add_weight(NodeId::ROOT, root.0, root.1);
        if let Some(mut own) = own_before {
            for (e, node) in entries.iter().zip(&nodes) {
                if let Some(w) = own.get_mut(node) {
                    *w = w.saturating_add(e.own);
                }
            }
            for (node, w) in own {
                if self.slots[node.index()].total == u64::MAX {
                    self.own.insert(node, w);
                }
            }
        }
        if let Some(&d) = depths.iter().max() {
            self.note_depth(d as usize);
        }
        nodes
    }

    /// The own weight of each of `nodes` and of the root.
    fn own_weights(&self, nodes: &[NodeId]) -> FxHashMap<NodeId, u64> {
        std::iter::once(NodeId::ROOT)
            .chain(nodes.iter().copied())
            .map(|n| (n, self.self_weight(n)))
            .collect()
    }

    fn note_depth(&mut self, depth: usize) {
        self.max_depth = self.max_depth.max(u32::try_from(depth).unwrap_or(u32::MAX));
    }

    /// Adds `samples` samples of one stack with `weight` in all (used by transforms).
    pub fn insert_counted<I, S>(&mut self, frames: I, weight: u64, samples: u64) -> NodeId
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut at = NodeId::ROOT;
        self.add_weight(at, weight, samples);
        let mut depth = 0;
        for frame in frames {
            let name = self.names.intern(frame.as_ref());
            at = self.child_or_insert(at, name);
            self.add_weight(at, weight, samples);
            depth += 1;
        }
        self.add_own(at, weight);
        self.note_depth(depth);
        at
    }

    /// The child of `parent` named `name`, added without weight when it is not there yet
    /// (weights come later, from [`CallTree::add_own_weights`]).
    pub fn child_or_add(&mut self, parent: NodeId, name: NameId) -> NodeId {
        self.child_or_insert(parent, name)
    }

    /// Adds to each node `i` (by index) the own weight and samples `own[i]`, and to each
    /// of its callers the same: one pass over the nodes from the last to the first, as a
    /// node is always after its parent in a tree only added to ([`CallTree::child_or_add`],
    /// the inserts). Its cost is one addition per node, where [`CallTree::add_to_stack`]
    /// per weighted node costs its depth each. Totals that would pass `u64` are added
    /// stack by stack instead, so the tree clamps and marks them as it always does.
    pub fn add_own_weights(&mut self, own: &[(u64, u64)]) {
        let n = own.len().min(self.slots.len());
        if n == 0 {
            return;
        }
        let fits = own[..n]
            .iter()
            .try_fold(self.slots[0].total, |sum, &(w, _)| sum.checked_add(w))
            .is_some_and(|t| t < u64::MAX);
        let ordered = (1..n).all(|i| (self.slots[i].parent as usize) < i);
        if !fits || !ordered {
            for (i, &(w, k)) in own[..n].iter().enumerate() {
                if w > 0 || k > 0 {
                    let id = NodeId(i as u32);
                    self.add_to_stack(id, w, k);
                    self.note_depth(self.depth(id) as usize);
                }
            }
            return;
        }
        let mut depth = vec![0u32; n];
        for i in 1..n {
            depth[i] = depth[self.slots[i].parent as usize] + 1;
        }
        if let Some(&d) = depth.iter().max() {
            self.note_depth(d as usize);
        }
        let mut sums = own[..n].to_vec();
        for i in (1..n).rev() {
            let (w, k) = sums[i];
            let parent = self.slots[i].parent as usize;
            // No overflow: every sum is at most the root's, checked above.
            sums[parent].0 += w;
            sums[parent].1 = sums[parent].1.saturating_add(k);
            let slot = &mut self.slots[i];
            slot.total += w;
            slot.samples = slot.samples.saturating_add(k);
        }
        let root = &mut self.slots[0];
        root.total += sums[0].0;
        root.samples = root.samples.saturating_add(sums[0].1);
    }

    /// Adds `samples` samples weighing `weight` to the stack that ends at `leaf` (a node
    /// of this tree): the leaf and each of its callers up to the root.
    pub fn add_to_stack(&mut self, leaf: NodeId, weight: u64, samples: u64) {
        // From the root down, as an insert adds: a caller whose total clamps keeps as
        // its own weight its total less its callees' before they grow.
        self.add_weight(NodeId::ROOT, weight, samples);
        for id in self.path(leaf) {
            self.add_weight(id, weight, samples);
        }
        self.add_own(leaf, weight);
    }

    /// Adds to a node's totals (not to its own weight: see [`CallTree::add_own`]).
    fn add_weight(&mut self, id: NodeId, weight: u64, samples: u64) {
        let node = &mut self.slots[id.index()];
        node.samples = node.samples.saturating_add(samples);
        let before = node.total;
        match before.checked_add(weight) {
            Some(t) if t < u64::MAX => node.total = t,
            t => {
                node.total = u64::MAX;
                self.saturated |= t.is_none();
                if before < u64::MAX {
                    // Its own weight until now, from exact totals, before they are lost.
                    let own = before.saturating_sub(self.children_total(id));
                    self.own.insert(id, own);
                }
            }
        }
    }

    /// Adds `weight` to the own weight of `id`, the leaf of a stack just added, when its
    /// total is clamped (otherwise its own weight is its total less its children's).
    fn add_own(&mut self, id: NodeId, weight: u64) {
        if self.slots[id.index()].total == u64::MAX {
            let own = self.own.entry(id).or_insert(0);
            *own = own.saturating_add(weight);
        }
    }

    /// The sum of the totals of the children of `id`.
    fn children_total(&self, id: NodeId) -> u64 {
        self.children(id)
            .fold(0u64, |w, c| w.saturating_add(self.slots[c.index()].total))
    }
}

/// One frame of a forest for [`CallTree::insert_forest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForestEntry {
    /// The entry it is called from (an earlier index), or `None` at the root.
    pub parent: Option<u32>,
    /// Its name.
    pub name: NameId,
    /// Its own weight (not its callees').
    pub own: u64,
    /// Its own samples.
    pub own_samples: u64,
}
