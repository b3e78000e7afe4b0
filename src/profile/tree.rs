//! Stage: call tree. An arena of nodes (`NodeId`) with interned names; stacks are
//! inserted root first in O(depth) lookups, and children are kept in a deterministic
//! order (alphabetical, like `FlameGraph`) once the tree is finished.
//!
//! Layout: one 32-byte record per node, everything included — name, parent, first child
//! and next sibling as `u32`, inclusive weight and sample count as `u64`. What a node
//! does not store is derived exactly: its own (self) weight and samples are its totals
//! minus its children's, its depth is the length of its parent chain. A family with more
//! than [`SCAN_CHILDREN`] children also has entries in a `(parent, name) → child` hash
//! map (few families are that big); smaller ones are scanned. A child is always created
//! after its parent, so `parent < child` for every node: one pass in id order visits
//! callers first.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::intern::{Interner, NameId};

/// Index of a node in a [`CallTree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The synthetic root every stack hangs from.
    pub const ROOT: NodeId = NodeId(0);

    fn index(self) -> usize {
        self.0 as usize
    }
}

/// No node (end of a sibling list, no child, the root's parent).
const NONE: u32 = u32::MAX;

/// The name under which a large family's index keeps its last child (appending stays
/// O(1) without a field per node).
const TAIL: NameId = NameId(u32::MAX);

/// One node as stored.
#[derive(Debug, Clone, Copy)]
struct Slot {
    total: u64,
    samples: u64,
    name: NameId,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
}

/// Bytes per node in a [`CallTree`] (the large families' index aside).
pub const NODE_BYTES: usize = std::mem::size_of::<Slot>();

/// One frame at one position in the tree, as read from the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// Frame name.
    pub name: NameId,
    /// Caller; `None` only for the root.
    pub parent: Option<NodeId>,
    /// Inclusive weight: this frame and everything it called.
    pub total: u64,
    /// Inclusive number of samples (stack occurrences), whatever their weight.
    pub samples: u64,
}

/// The callees of a node, in their stored order (alphabetical after
/// [`CallTree::finish`]).
#[derive(Debug, Clone)]
pub struct Children<'a> {
    slots: &'a [Slot],
    next: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.slots[id as usize].next_sibling;
        Some(NodeId(id))
    }
}

/// Parents with at most this many children find a child by scanning them.
const SCAN_CHILDREN: usize = 8;

/// Name of the synthetic root node, as in `FlameGraph`.
pub const ROOT_NAME: &str = "all";

/// An arena call tree.
#[derive(Debug, Clone)]
pub struct CallTree {
    names: Interner,
    slots: Vec<Slot>,
    /// `(parent, name) → child` (and `(parent, TAIL) → last child`) for the families
    /// marked in `indexed`.
    index: FxHashMap<(NodeId, NameId), NodeId>,
    /// One bit per node: its family is in `index`.
    indexed: Vec<u64>,
    /// Weights are stored as integers in units of 10^-scale (fractional folded counts).
    scale: u32,
    saturated: bool,
    /// The own weight of every node whose total reached `u64::MAX` (clamped): it can no
    /// longer be told from the node's total less its children's, so it is kept here from
    /// the moment the total is clamped on (a node's own weight of 5 beside a child of
    /// `2^64 - 2` read as 1). Empty unless a total reached `u64::MAX`.
    own: FxHashMap<NodeId, u64>,
    max_depth: u32,
    /// Nodes of the previous `insert_ids` path, by depth.
    last_path: Vec<NodeId>,
}

impl Default for CallTree {
    fn default() -> Self {
        Self::new()
    }
}

fn slot(name: NameId, parent: u32) -> Slot {
    Slot {
        total: 0,
        samples: 0,
        name,
        parent,
        first_child: NONE,
        next_sibling: NONE,
    }
}

impl CallTree {
    /// An empty tree holding only the root.
    pub fn new() -> Self {
        let mut names = Interner::default();
        let root = names.intern(ROOT_NAME);
        Self {
            names,
            slots: vec![slot(root, NONE)],
            index: FxHashMap::default(),
            indexed: Vec::new(),
            scale: 0,
            saturated: false,
            own: FxHashMap::default(),
            max_depth: 0,
            last_path: Vec::new(),
        }
    }

    /// An empty tree whose weights have `scale` decimals.
    pub fn with_scale(scale: u32) -> Self {
        let mut t = Self::new();
        t.scale = scale;
        t
    }

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

    fn is_indexed(&self, parent: NodeId) -> bool {
        let i = parent.index();
        self.indexed
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    fn mark_indexed(&mut self, parent: NodeId) {
        let i = parent.index();
        if self.indexed.len() <= i / 64 {
            self.indexed.resize(i / 64 + 1, 0);
        }
        self.indexed[i / 64] |= 1 << (i % 64);
    }

    /// The child of `parent` named `name`, if any.
    fn child(&self, parent: NodeId, name: NameId) -> Option<NodeId> {
        if self.is_indexed(parent) {
            self.index.get(&(parent, name)).copied()
        } else {
            self.children(parent)
                .find(|&c| self.slots[c.index()].name == name)
        }
    }

    fn child_or_insert(&mut self, parent: NodeId, name: NameId) -> NodeId {
        let indexed = self.is_indexed(parent);
        // The family's last child and its size, found by the same scan as the name.
        let (last, count) = if indexed {
            if let Some(&id) = self.index.get(&(parent, name)) {
                return id;
            }
            (self.index.get(&(parent, TAIL)).map_or(NONE, |t| t.0), 0)
        } else {
            let mut last = NONE;
            let mut count = 0;
            let mut c = self.slots[parent.index()].first_child;
            while c != NONE {
                let s = &self.slots[c as usize];
                if s.name == name {
                    return NodeId(c);
                }
                last = c;
                count += 1;
                c = s.next_sibling;
            }
            (last, count)
        };
        let id = NodeId(u32::try_from(self.slots.len()).unwrap_or(NONE - 1));
        self.slots.push(slot(name, parent.0));
        if last == NONE {
            self.slots[parent.index()].first_child = id.0;
        } else {
            self.slots[last as usize].next_sibling = id.0;
        }
        if indexed {
            self.index.insert((parent, name), id);
            self.index.insert((parent, TAIL), id);
        } else if count + 1 > SCAN_CHILDREN {
            // The family outgrew scanning: index all of it.
            let all: Vec<NodeId> = self.children(parent).collect();
            for c in all {
                let n = self.slots[c.index()].name;
                self.index.insert((parent, n), c);
            }
            self.index.insert((parent, TAIL), id);
            self.mark_indexed(parent);
        }
        id
    }

    /// Sorts every child list alphabetically (byte order of the names).
    pub fn finish(&mut self) {
        let names = &self.names;
        sort_children(&mut self.slots, &mut self.index, &self.indexed, |s| {
            names.resolve(s.name)
        });
    }

    /// Sorts every child list heaviest first, ties alphabetically ([`CallTree::finish`]
    /// restores the alphabetical order).
    pub fn sort_by_weight(&mut self) {
        let names = &self.names;
        sort_children(&mut self.slots, &mut self.index, &self.indexed, |s| {
            (std::cmp::Reverse(s.total), names.resolve(s.name))
        });
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
        let mut out = CallTree::with_scale(self.scale);
        out.names = self.names.clone();
        out.slots[0].name = self.slots[0].name;
        out.merge_renamed(self, |mine, _, id| {
            if mine.is_task(id) {
                id
            } else {
                mine.lookup(mine.resolve(id)).unwrap_or(id)
            }
        });
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

    /// Number of decimal places in the stored weights.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Records that a weight was clamped to `u64::MAX` before it reached the tree.
    pub fn mark_saturated(&mut self) {
        self.saturated = true;
    }

    /// True when a sum overflowed and was clamped to `u64::MAX`.
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    /// The node behind an id.
    ///
    /// # Panics
    /// When `id` is not a node of this tree.
    pub fn node(&self, id: NodeId) -> Node {
        let s = &self.slots[id.index()];
        Node {
            name: s.name,
            parent: (s.parent != NONE).then_some(NodeId(s.parent)),
            total: s.total,
            samples: s.samples,
        }
    }

    /// The node behind an id, if the id is in range.
    pub fn get(&self, id: NodeId) -> Option<Node> {
        (id.index() < self.slots.len()).then(|| self.node(id))
    }

    /// The callees of `id`, in their stored order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            slots: &self.slots,
            next: self.slots[id.index()].first_child,
        }
    }

    /// The caller of `id`; `None` for the root.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.slots[id.index()].parent;
        (p != NONE).then_some(NodeId(p))
    }

    /// The first callee of `id`, if any.
    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        let c = self.slots[id.index()].first_child;
        (c != NONE).then_some(NodeId(c))
    }

    /// True when `id` called nothing.
    pub fn is_leaf(&self, id: NodeId) -> bool {
        self.slots[id.index()].first_child == NONE
    }

    /// Pushes the callees of `id` onto `stack` last first, so that popping visits them
    /// in their stored order (the depth-first walks use this).
    pub fn push_children_rev(&self, id: NodeId, stack: &mut Vec<NodeId>) {
        let at = stack.len();
        stack.extend(self.children(id));
        stack[at..].reverse();
    }

    /// Weight and samples of the stacks that end in `id`: its totals less its callees'.
    ///
    /// A node whose total is clamped to `u64::MAX` has its own weight kept apart (the
    /// difference would lose it).
    pub fn self_counts(&self, id: NodeId) -> (u64, u64) {
        let s = &self.slots[id.index()];
        let (mut w, mut n) = (0u64, 0u64);
        for c in self.children(id) {
            let k = &self.slots[c.index()];
            w = w.saturating_add(k.total);
            n = n.saturating_add(k.samples);
        }
        let own = (s.total == u64::MAX)
            .then(|| self.own.get(&id).copied())
            .flatten();
        (
            own.unwrap_or_else(|| s.total.saturating_sub(w)),
            s.samples.saturating_sub(n),
        )
    }

    /// Weight of the stacks that end in `id`.
    pub fn self_weight(&self, id: NodeId) -> u64 {
        self.self_counts(id).0
    }

    /// Number of samples that end in `id`.
    pub fn self_samples(&self, id: NodeId) -> u64 {
        self.self_counts(id).1
    }

    /// Distance of `id` from the root (the root is 0).
    pub fn depth(&self, id: NodeId) -> u32 {
        let mut depth = 0;
        let mut at = self.slots[id.index()].parent;
        while at != NONE {
            depth += 1;
            at = self.slots[at as usize].parent;
        }
        depth
    }

    /// The depth of every node, by id, in one pass.
    pub fn depths(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.slots.len()];
        for i in 1..self.slots.len() {
            out[i] = out[self.slots[i].parent as usize] + 1;
        }
        out
    }

    /// The name of a node.
    pub fn name(&self, id: NodeId) -> &str {
        self.names.resolve(self.slots[id.index()].name)
    }

    /// The interned names.
    pub fn names(&self) -> &Interner {
        &self.names
    }

    /// The interner, to record what the input says about names (their libraries).
    pub fn names_mut(&mut self) -> &mut Interner {
        &mut self.names
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when no stack was inserted.
    pub fn is_empty(&self) -> bool {
        self.slots.len() == 1
    }

    /// Total weight of all samples.
    pub fn total(&self) -> u64 {
        self.slots[0].total
    }

    /// Deepest frame depth (the root is 0).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Bytes held by the nodes and the large families' index (names aside).
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<((NodeId, NameId), NodeId)>() + 1;
        self.slots.capacity() * NODE_BYTES
            + self.index.capacity() * entry
            + self.indexed.capacity() * 8
            + self.own.capacity() * (std::mem::size_of::<(NodeId, u64)>() + 1)
    }

    /// All node ids.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..u32::try_from(self.slots.len()).unwrap_or(u32::MAX)).map(NodeId)
    }

    /// The child of `parent` called `name`, if any: a function's (of any library, the
    /// heaviest when several), else a task's.
    pub fn child_named(&self, parent: NodeId, name: &str) -> Option<NodeId> {
        let mut best: Option<NodeId> = None;
        for id in self.names.lookup_all(name) {
            if let Some(c) = self.child(parent, id)
                && best.is_none_or(|b| self.node(c).total > self.node(b).total)
            {
                best = Some(c);
            }
        }
        best.or_else(|| {
            self.names
                .lookup_task(name)
                .and_then(|id| self.child(parent, id))
        })
    }

    /// Ids from the root's first child down to `id` (the root itself excluded).
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = Vec::new();
        let mut at = id;
        while let Some(parent) = self.node(at).parent {
            path.push(at);
            at = parent;
        }
        path.reverse();
        path
    }

    /// Frame names joined with `;` from the root's child down to `id`.
    pub fn path_string(&self, id: NodeId) -> String {
        let mut out = String::new();
        for (i, n) in self.path(id).into_iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            out.push_str(self.name(n));
        }
        out
    }

    /// Node ids in depth-first pre-order (children in their stored order), without recursion.
    pub fn preorder(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.slots.len());
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            out.push(id);
            self.push_children_rev(id, &mut stack);
        }
        out
    }

    /// Every distinct stack that samples ended in, as `(path, self weight)`, in
    /// pre-order. Stacks that occurred only with weight 0 are included; the root's own
    /// weight (stacks whose every frame was hidden) has no frame to write and is left out.
    pub fn stacks(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut line = String::new();
        self.for_each_stack(|path, weight, _| {
            if path.is_empty() {
                return;
            }
            line.clear();
            for (i, &name) in path.iter().enumerate() {
                if i > 0 {
                    line.push(';');
                }
                line.push_str(self.names.resolve(name));
            }
            out.push((line.clone(), weight));
        });
        out
    }

    /// Calls `f(frames root first, self weight)` for every stack that samples ended in, in
    /// the bytewise order of the stacks' folded text (`a;b;c`), without building or sorting
    /// that text: each family is ordered by the name alone for a frame's own stack and by
    /// the name followed by `;` for the stacks below it, which is exactly where those
    /// strings sort (`x` < `x2…` < `x;…`). The root's own weight has no frames and is left
    /// out.
    pub fn for_each_stack_sorted(&self, mut f: impl FnMut(&[NameId], u64)) {
        let mut walk = self.sorted_walk();
        while let Some(weight) = walk.advance() {
            f(walk.path(), weight);
        }
    }

    /// The walk of [`CallTree::for_each_stack_sorted`], one stack at a time.
    #[must_use]
    pub fn sorted_walk(&self) -> SortedWalk<'_> {
        SortedWalk::new(self, Vec::new(), Some(NodeId::ROOT), None)
    }

    /// The sorted walk of [`CallTree::for_each_stack_sorted`] cut into consecutive runs,
    /// each holding about `samples_per_run` samples or less where the tree allows it (a
    /// run is one node's own stack or all the stacks below one node). Walking the runs in
    /// order with [`CallTree::for_each_stack_in`] gives exactly the stacks of the whole
    /// walk, in the same order, so that runs can be formatted in parallel.
    #[must_use]
    pub fn sorted_runs(&self, samples_per_run: u64) -> Vec<StackRun> {
        union_sorted_runs(&[self], samples_per_run)
            .into_iter()
            .filter_map(|u| u.runs.into_iter().next().flatten())
            .collect()
    }

    /// Calls `f(frames root first, self weight)` for the stacks of one run of
    /// [`CallTree::sorted_runs`], in their sorted order.
    pub fn for_each_stack_in(&self, run: &StackRun, mut f: impl FnMut(&[NameId], u64)) {
        let mut walk = self.walk_run(run);
        while let Some(weight) = walk.advance() {
            f(walk.path(), weight);
        }
    }

    /// The stacks of one run of [`CallTree::sorted_runs`] as a [`SortedWalk`], which
    /// holds one path and one family list per level: memory in the depth, not in the
    /// stacks.
    #[must_use]
    pub fn walk_run(&self, run: &StackRun) -> SortedWalk<'_> {
        let mut path = Vec::with_capacity(run.prefix.len() + 1);
        path.extend_from_slice(&run.prefix);
        path.push(self.slots[run.node.index()].name);
        if run.below {
            SortedWalk::new(self, path, Some(run.node), None)
        } else {
            let (w, n) = self.self_counts(run.node);
            SortedWalk::new(self, path, None, (n > 0 || w > 0).then_some(w))
        }
    }

    /// The samples of a run of [`CallTree::sorted_runs`], or more (an estimate of its
    /// stacks: an own stack is counted with those below it).
    #[must_use]
    pub fn run_samples(&self, run: &StackRun) -> u64 {
        self.slots[run.node.index()].samples
    }

    /// The entries of one family in the order of their folded text: the stacks below a
    /// child, or its own stack with its weight.
    fn sorted_entries(&self, id: NodeId) -> Vec<Entry> {
        let mut v = Vec::new();
        self.sorted_entries_into(id, &mut v);
        v
    }

    /// [`CallTree::sorted_entries`] into `v` (cleared first), with each own stack's
    /// weight.
    fn sorted_entries_into(&self, id: NodeId, v: &mut Vec<Entry>) {
        self.entries_into(id, v, false);
    }

    /// [`CallTree::sorted_entries_into`]; with `every_own`, every child gets an own entry,
    /// its weight left at 0 for the walk of its run to compute (and to leave out when
    /// empty): the cut into runs then reads no grandchildren.
    fn entries_into(&self, id: NodeId, v: &mut Vec<Entry>, every_own: bool) {
        v.clear();
        for c in self.children(id) {
            let (w, n) = if every_own {
                (0, 1)
            } else {
                self.self_counts(c)
            };
            if n > 0 || w > 0 {
                v.push(Entry {
                    node: c,
                    below: false,
                    weight: w,
                });
            }
            if !self.is_leaf(c) {
                v.push(Entry {
                    node: c,
                    below: true,
                    weight: 0,
                });
            }
        }
        // Children are mostly in name order already: a run-detecting stable sort
        // costs about one comparison each.
        if v.len() > 1 {
            v.sort_by(|a, b| {
                entry_order(
                    self.name(a.node).as_bytes(),
                    a.below,
                    self.name(b.node).as_bytes(),
                    b.below,
                )
            });
        }
    }

    /// Calls `f(frames root first, self weight, self samples)` for every stack that samples
    /// ended in, in pre-order, without recursion (export, transforms and the sandwich
    /// views all walk stacks this way). The root's own weight, if any, comes first with no
    /// frames.
    pub fn for_each_stack(&self, mut f: impl FnMut(&[NameId], u64, u64)) {
        let mut path: Vec<NameId> = Vec::new();
        let mut todo: Vec<(NodeId, bool)> = vec![(NodeId::ROOT, false)];
        while let Some((id, leaving)) = todo.pop() {
            if leaving {
                path.pop();
                continue;
            }
            if id != NodeId::ROOT {
                path.push(self.slots[id.index()].name);
                todo.push((id, true));
            }
            let (w, n) = self.self_counts(id);
            if n > 0 || w > 0 {
                f(&path, w, n);
            }
            let at = todo.len();
            todo.extend(self.children(id).map(|c| (c, false)));
            todo[at..].reverse();
        }
    }

    /// Formats a weight of this tree as a decimal number (exact; no trailing zeros).
    pub fn format_weight(&self, weight: u64) -> String {
        format_scaled(weight, self.scale)
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

/// The counters of a node, as [`CallTree::pruned_with`] takes them (a node's own part is
/// derived from these and its children's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Inclusive weight.
    pub total: u64,
    /// Inclusive number of samples.
    pub samples: u64,
}

/// The stacks of one run ([`CallTree::walk_run`]) in sorted order, one at a time: a
/// lending iterator, since each stack's path is borrowed from the walk.
#[derive(Debug)]
pub struct SortedWalk<'t> {
    tree: &'t CallTree,
    /// The frames of the stack last given (or above the run's families).
    path: Vec<NameId>,
    /// The path's length at the run's node.
    depth: usize,
    /// Sorted families being walked, and the next entry of each.
    todo: Vec<(Vec<Entry>, usize)>,
    /// Lists of finished families, reused (most families are one child long).
    pool: Vec<Vec<Entry>>,
    /// A run of one node's own stack: its weight, until given.
    own: Option<u64>,
    /// The last stack given pushed a frame that the next step pops.
    yielded: bool,
}

impl<'t> SortedWalk<'t> {
    /// A walk from the frames in `path`: of the stacks below `below`, or of one own stack
    /// weighing `own`.
    fn new(tree: &'t CallTree, path: Vec<NameId>, below: Option<NodeId>, own: Option<u64>) -> Self {
        Self {
            tree,
            depth: path.len(),
            path,
            todo: below
                .map(|id| (tree.sorted_entries(id), 0))
                .into_iter()
                .collect(),
            pool: Vec::new(),
            own,
            yielded: false,
        }
    }

    /// Moves to the next stack and gives its self weight, or `None` at the end.
    pub fn advance(&mut self) -> Option<u64> {
        if self.yielded {
            self.path.pop();
            self.yielded = false;
        }
        if let Some(w) = self.own.take() {
            return Some(w);
        }
        loop {
            let (list, next) = self.todo.last_mut()?;
            let Some(&e) = list.get(*next) else {
                if let Some((list, _)) = self.todo.pop() {
                    self.pool.push(list);
                }
                // Leaving a family leaves its frame (the first family's is the node's).
                if self.path.len() > self.depth {
                    self.path.pop();
                }
                continue;
            };
            *next += 1;
            self.path.push(self.tree.slots[e.node.index()].name);
            if e.below {
                let mut list = self.pool.pop().unwrap_or_default();
                self.tree.sorted_entries_into(e.node, &mut list);
                self.todo.push((list, 0));
            } else {
                self.yielded = true;
                return Some(e.weight);
            }
        }
    }

    /// The frames of the stack [`SortedWalk::advance`] last gave, root first.
    pub fn path(&self) -> &[NameId] {
        &self.path
    }

    /// The tree walked.
    pub fn tree(&self) -> &CallTree {
        self.tree
    }
}

/// One entry of a family in the sorted walk: a child's own stack (with its weight) or
/// the stacks below it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    node: NodeId,
    below: bool,
    weight: u64,
}

/// One piece of the sorted walk over a tree's stacks ([`CallTree::sorted_runs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackRun {
    /// The frames above `node`, root first (shared by the runs of one family).
    prefix: std::sync::Arc<[NameId]>,
    node: NodeId,
    /// All the stacks below `node` (else its own stack alone).
    below: bool,
}

/// One piece of the sorted walk over the union of several trees' stacks
/// ([`union_sorted_runs`]): each tree's run at the same path, where it has stacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionRun {
    /// By tree, in the order the trees were given.
    pub runs: Vec<Option<StackRun>>,
    /// The samples of the runs, or more (as [`CallTree::run_samples`]).
    pub samples: u64,
}

/// The sorted walks of `trees` (pieces of one input) cut into consecutive runs over the
/// union of their stacks, as [`CallTree::sorted_runs`] cuts one tree's: each family is
/// the union of the trees' families at its path, ordered by text (a frame of the same
/// text in several trees is one entry), and a run holds each tree's stacks below (or at)
/// one path. Walking every run's pieces and merging them by text gives the union's
/// stacks in order when texts sort as the walk does (no name holds a `;`, and no two
/// siblings have the same text); one tree's runs are always its walk's
/// ([`CallTree::sorted_runs`]).
///
/// The cut goes no deeper than [`MAX_CUT_DEPTH`] frames: the families below are one run
/// each, so that the runs' prefixes (shared by the runs of a family) weigh at most that
/// depth per family cut, whatever the tree's depth — a chain of 50,000 frames is cut at
/// that depth, not into 50,000 runs of growing prefixes (which was quadratic).
#[must_use]
pub fn union_sorted_runs(trees: &[&CallTree], samples_per_run: u64) -> Vec<UnionRun> {
    /// An entry of the union of some families: each tree's node, if it has one.
    struct Union {
        nodes: Vec<Option<NodeId>>,
        below: bool,
        samples: u64,
    }
    let entries = |nodes: &[Option<NodeId>]| -> Vec<Union> {
        let mut all: Vec<(usize, Entry)> = Vec::new();
        let mut v = Vec::new();
        for (t, (tree, node)) in trees.iter().zip(nodes).enumerate() {
            if let Some(node) = node {
                tree.entries_into(*node, &mut v, true);
                all.extend(v.iter().map(|&e| (t, e)));
            }
        }
        let text = |&(t, e): &(usize, Entry)| (trees[t].name(e.node).as_bytes(), e.below);
        let order = |a: &(usize, Entry), b: &(usize, Entry)| {
            let ((x, xb), (y, yb)) = (text(a), text(b));
            entry_order(x, xb, y, yb)
        };
        all.sort_by(order);
        let mut out: Vec<Union> = Vec::new();
        for (i, &(t, e)) in all.iter().enumerate() {
            // Only different trees' entries join (siblings of one text stay apart).
            let joins = i > 0
                && order(&all[i - 1], &(t, e)) == std::cmp::Ordering::Equal
                && out.last().is_some_and(|u| u.nodes[t].is_none());
            if !joins {
                out.push(Union {
                    nodes: vec![None; trees.len()],
                    below: e.below,
                    samples: 0,
                });
            }
            if let Some(u) = out.last_mut() {
                u.nodes[t] = Some(e.node);
                u.samples = u
                    .samples
                    .saturating_add(trees[t].slots[e.node.index()].samples);
            }
        }
        out
    };
    let mut runs = Vec::new();
    let empty: std::sync::Arc<[NameId]> = std::sync::Arc::from(Vec::new());
    // (entries, next, each tree's frames above them)
    let mut todo = vec![(
        entries(&vec![Some(NodeId::ROOT); trees.len()]),
        0usize,
        vec![empty; trees.len()],
    )];
    loop {
        let level = todo.len();
        let Some((list, next, prefixes)) = todo.last_mut() else {
            break;
        };
        let Some(e) = list.get(*next) else {
            todo.pop();
            continue;
        };
        *next += 1;
        if e.below && e.samples > samples_per_run && level <= MAX_CUT_DEPTH {
            let deeper = prefixes
                .iter()
                .zip(&e.nodes)
                .zip(trees)
                .map(|((prefix, node), tree)| match node {
                    Some(n) => {
                        let mut p = prefix.to_vec();
                        p.push(tree.slots[n.index()].name);
                        std::sync::Arc::from(p)
                    }
                    None => prefix.clone(),
                })
                .collect();
            let below = entries(&e.nodes);
            todo.push((below, 0, deeper));
        } else {
            let pieces = e
                .nodes
                .iter()
                .zip(prefixes.iter())
                .map(|(node, prefix)| {
                    node.map(|node| StackRun {
                        prefix: prefix.clone(),
                        node,
                        below: e.below,
                    })
                })
                .collect();
            runs.push(UnionRun {
                runs: pieces,
                samples: e.samples,
            });
        }
    }
    runs
}

/// How deep [`union_sorted_runs`] cuts the walk at most (frames).
pub const MAX_CUT_DEPTH: usize = 128;

// Building a tree from counters computed elsewhere (a slice of the samples).
impl CallTree {
    /// A tree of the nodes that `counts` (indexed by this tree's `NodeId`s) gives at least
    /// one sample, with those counters instead of this tree's: names (ids and kinds),
    /// scale and each family's order are kept (alphabetical when this tree is finished),
    /// nodes without a sample are left out with everything below them. The root is always
    /// there. A missing entry counts as no sample.
    #[must_use]
    pub fn pruned_with(&self, counts: &[Counters]) -> CallTree {
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
                todo.push((c, new, depth + 1));
            }
        }
        out.max_depth = deepest;
        out
    }

    fn set_counters(&mut self, id: NodeId, k: Counters) {
        let n = &mut self.slots[id.index()];
        n.total = k.total;
        n.samples = k.samples;
    }
}

/// The order of `a` (followed by `;` when `a_below`) and `b` (likewise) as byte strings:
/// one `memcmp` of the common part, then the short tails.
fn entry_order(a: &[u8], a_below: bool, b: &[u8], b_below: bool) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| {
        let semi = |below: bool| -> &'static [u8] { if below { b";" } else { b"" } };
        a[n..]
            .iter()
            .chain(semi(a_below))
            .cmp(b[n..].iter().chain(semi(b_below)))
    })
}

/// Puts the children of every node in the order of `key` by relinking the sibling lists
/// (node ids do not change). Big trees are checked and sorted on all cores, each thread
/// taking a range of parents, and relinked on this one.
fn sort_children<K: Ord + Send>(
    slots: &mut [Slot],
    index: &mut FxHashMap<(NodeId, NameId), NodeId>,
    indexed: &[u64],
    key: impl Fn(&Slot) -> K + Sync,
) {
    let n = slots.len();
    let threads = if n < 200_000 {
        1
    } else {
        super::worker_threads()
    };
    let shared: &[Slot] = slots;
    let key = &key;
    let orders: Vec<Vec<(usize, Vec<u32>)>> = if threads == 1 {
        vec![sorted_families(shared, 0..n, key)]
    } else {
        // Families are handed out in blocks, small at first and growing as the square of
        // their number: the wide families sit at low ids (made by the first samples), so
        // equal shares of the ids left one thread with most of the work.
        let blocks = threads * 64;
        let bound = |b: usize| (n as u128 * (b * b) as u128 / (blocks * blocks) as u128) as usize;
        let next = std::sync::atomic::AtomicUsize::new(0);
        let next = &next;
        std::thread::scope(|scope| {
            let parts: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(move || {
                        let mut out = Vec::new();
                        loop {
                            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if b >= blocks {
                                break out;
                            }
                            let range = bound(b)..bound(b + 1);
                            out.append(&mut sorted_families(shared, range, key));
                        }
                    })
                })
                .collect();
            parts
                .into_iter()
                .map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    for (p, order) in orders.into_iter().flatten() {
        let (Some(&first), Some(&tail)) = (order.first(), order.last()) else {
            continue;
        };
        slots[p].first_child = first;
        for w in order.windows(2) {
            slots[w[0] as usize].next_sibling = w[1];
        }
        slots[tail as usize].next_sibling = NONE;
        if indexed.get(p / 64).is_some_and(|w| w >> (p % 64) & 1 == 1) {
            let parent = NodeId(u32::try_from(p).unwrap_or(NONE));
            index.insert((parent, TAIL), NodeId(tail));
        }
    }
}

/// The new child order of every parent in `parents` whose children are not in the order
/// of `key` already.
fn sorted_families<K: Ord>(
    slots: &[Slot],
    parents: std::ops::Range<usize>,
    key: &impl Fn(&Slot) -> K,
) -> Vec<(usize, Vec<u32>)> {
    let mut out = Vec::new();
    let mut keyed: Vec<(K, u32)> = Vec::new();
    for p in parents {
        let first = slots[p].first_child;
        if first == NONE || slots[first as usize].next_sibling == NONE {
            continue;
        }
        keyed.clear();
        let mut c = first;
        while c != NONE {
            keyed.push((key(&slots[c as usize]), c));
            c = slots[c as usize].next_sibling;
        }
        if keyed.is_sorted_by(|a, b| a.0 <= b.0) {
            continue;
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        out.push((p, keyed.iter().map(|k| k.1).collect()));
    }
    out
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

#[cfg(test)]
impl CallTree {
    /// A finished tree from `(a;b;c, weight)` pairs, for tests.
    pub(crate) fn from_stacks(stacks: &[(&str, u64)]) -> Self {
        let mut t = Self::new();
        for (s, w) in stacks {
            t.insert(s.split(';'), *w);
        }
        t.finish();
        t
    }
}

/// `value / 10^scale` as exact decimal text without trailing zeros.
pub fn format_scaled(value: u64, scale: u32) -> String {
    if scale == 0 {
        return value.to_string();
    }
    let digits = format!("{value:0>width$}", width = scale as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - scale as usize);
    let frac = frac.trim_end_matches('0');
    let mut out = String::with_capacity(digits.len() + 1);
    out.push_str(int);
    if !frac.is_empty() {
        let _ = write!(out, ".{frac}");
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        CallTree::from_stacks(stacks)
    }

    proptest! {
        #[test]
        fn own_weights_added_once_are_stacks_inserted_one_by_one(
            stacks in prop::collection::vec(
                (prop::collection::vec(0u8..4, 0..6), prop_oneof![0u64..100, Just(u64::MAX / 3)]),
                0..30,
            )
        ) {
            let mut one = CallTree::new();
            let mut all = CallTree::new();
            let mut own: Vec<(u64, u64)> = Vec::new();
            for (frames, weight) in &stacks {
                let names: Vec<String> = frames.iter().map(|f| format!("f{f}")).collect();
                one.insert_counted(&names, *weight, 1);
                let mut at = NodeId::ROOT;
                for n in &names {
                    let name = all.intern(n);
                    at = all.child_or_add(at, name);
                }
                if own.len() <= at.index() {
                    own.resize(at.index() + 1, (0, 0));
                }
                // Sums past u64 are left to the tree (added stack by stack).
                let (w, k) = &mut own[at.index()];
                *w = w.saturating_add(*weight);
                *k += 1;
            }
            all.add_own_weights(&own);
            one.finish();
            all.finish();
            prop_assert_eq!(one.stacks(), all.stacks());
            prop_assert_eq!(one.max_depth(), all.max_depth());
            prop_assert_eq!(one.node(NodeId::ROOT), all.node(NodeId::ROOT));
            prop_assert_eq!(one.saturated(), all.saturated());
        }
    }

    #[test]
    fn a_pruned_copy_keeps_the_heavy_frames_exactly_and_the_rest_in_their_callers() {
        let mut t = CallTree::new();
        for (s, w) in [("a;b;c", 5), ("a;b;d", 1), ("a;e", 1), ("f", 2), ("a;b", 1)] {
            t.insert(s.split(';'), w);
        }
        let (p, map) = t.pruned(2);
        let mut p = p;
        p.finish();
        // `d`, `e` (1 each) go: their weight is `b`'s and `a`'s own.
        assert_eq!(
            p.stacks(),
            vec![
                ("a".to_owned(), 1),
                ("a;b".to_owned(), 2),
                ("a;b;c".to_owned(), 5),
                ("f".to_owned(), 2),
            ]
        );
        assert_eq!((p.total(), p.node(NodeId::ROOT).samples), (10, 5));
        assert_eq!(p.max_depth(), 3);
        // Every node of `t` maps to itself or its nearest kept ancestor in `p`.
        let path =
            |tree: &CallTree, id: NodeId| crate::profile::diff::path_names(tree, id).join(";");
        for id in t.ids() {
            let want = match path(&t, id).as_str() {
                "a;b;d" => "a;b".to_owned(),
                "a;e" => "a".to_owned(),
                other => other.to_owned(),
            };
            assert_eq!(path(&p, map[id.index()]), want);
        }
        // The least power of two that keeps at most n frames: a alone weighs 8 or more,
        // a, b, c 4 or more, with f 2 or more.
        assert_eq!(t.lightest_of_heaviest(2), 8);
        assert_eq!(t.lightest_of_heaviest(4), 2);
        assert_eq!(t.lightest_of_heaviest(100), 1);
        assert!(t.pruned(t.lightest_of_heaviest(3)).0.len() <= 3 + 1);
    }

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn frames_of_one_name_in_two_libraries_are_two_nodes_and_one_text_stack() {
        // A binary's `_start` and ld.so's under one process, each with a callee of one
        // name: two nodes apart in the tree, one stack of text.
        let mut t = CallTree::new();
        let p = t.intern_task("true");
        let names = t.names_mut();
        let (bin, ld) = (Some("true"), Some("ld-linux-x86-64.so.2"));
        let (start_bin, start_ld) = (
            names.intern_in("_start", bin),
            names.intern_in("_start", ld),
        );
        let (main, f, g) = (
            names.intern_in("main", bin),
            names.intern_in("f", ld),
            names.intern("g"),
        );
        t.insert_ids([p, start_bin, main], 5);
        t.insert_ids([p, start_ld, f], 2);
        t.insert_ids([p, start_ld, main], 1);
        t.insert_ids([p, start_bin], 1);
        t.insert_ids([p, g], 1);
        t.finish();
        let proc_node = t.child_named(NodeId::ROOT, "true").unwrap();
        assert_eq!(t.children(proc_node).count(), 3);
        assert!(t.has_same_text_siblings());
        // `child_named` finds the heavier of the two.
        let start = t.child_named(proc_node, "_start").unwrap();
        assert_eq!(t.node(start).name, start_bin);
        let merged = t.merged_by_text().unwrap();
        assert!(!merged.has_same_text_siblings());
        assert_eq!(
            merged.stacks(),
            vec![
                ("true;_start".to_owned(), 1),
                ("true;_start;f".to_owned(), 2),
                ("true;_start;main".to_owned(), 6),
                ("true;g".to_owned(), 1),
            ]
        );
        assert_eq!(merged.total(), t.total());
        assert_eq!(merged.node(NodeId::ROOT).samples, 5);
        assert_eq!(merged.max_depth(), t.max_depth());
        // One name in two libraries under different callers needs no merge.
        let mut u = CallTree::new();
        let (a, b) = (u.intern("a"), u.intern("b"));
        let names = u.names_mut();
        let (s1, s2) = (
            names.intern_in("s", Some("x")),
            names.intern_in("s", Some("y")),
        );
        u.insert_ids([a, s1], 1);
        u.insert_ids([b, s2], 1);
        u.finish();
        assert!(!u.has_same_text_siblings() && u.merged_by_text().is_none());
    }

    #[test]
    fn clearing_the_nodes_keeps_the_names_and_their_ids() {
        let mut t = tree(&[("a;b", 3)]);
        let b = t.names().lookup("b").unwrap();
        t.clear_nodes();
        assert_eq!((t.len(), t.total()), (1, 0));
        assert_eq!(t.names().lookup("b"), Some(b));
        t.insert_ids([b], 2);
        assert_eq!(t.stacks(), vec![("b".to_owned(), 2)]);
    }

    #[test]
    fn weights_add_up() {
        let t = tree(&[("a;b;c", 3), ("a;b", 2), ("a;d", 5)]);
        assert_eq!(t.total(), 10);
        let a = t.child_named(NodeId::ROOT, "a").unwrap();
        assert_eq!(t.node(a).total, 10);
        assert_eq!(t.self_weight(a), 0);
        let b = t.child_named(a, "b").unwrap();
        assert_eq!((t.node(b).total, t.self_weight(b)), (5, 2));
        assert_eq!(t.node(b).samples, 2);
        assert_eq!(t.path_string(t.child_named(b, "c").unwrap()), "a;b;c");
        assert_eq!(t.max_depth(), 3);
    }

    #[test]
    fn a_forest_adds_up_as_its_paths_would() {
        let mut forest = CallTree::new();
        let (fa, fb, fc) = (forest.intern("a"), forest.intern("b"), forest.intern("c"));
        let entry = |parent, name, own| ForestEntry {
            parent,
            name,
            own,
            own_samples: u64::from(own > 0),
        };
        // a(1) → b(2) → c(3); a → b again (merged, 4); c at the root (5).
        let nodes = forest.insert_forest(&[
            entry(None, fa, 1),
            entry(Some(0), fb, 2),
            entry(Some(1), fc, 3),
            entry(Some(0), fb, 4),
            entry(None, fc, 5),
        ]);
        let mut want = tree(&[("a", 1), ("a;b", 2), ("a;b;c", 3), ("a;b", 4), ("c", 5)]);
        want.finish();
        forest.finish();
        assert_eq!(forest.stacks(), want.stacks());
        assert_eq!(forest.total(), 15);
        assert_eq!(nodes[1], nodes[3]);
        assert_eq!(forest.path_string(nodes[2]), "a;b;c");
        assert_eq!(forest.max_depth(), 3);
        // A chain of 100,000 costs one step a frame.
        let mut deep = CallTree::new();
        let x = deep.intern("x");
        let chain: Vec<ForestEntry> = (0..100_000u32)
            .map(|i| entry(i.checked_sub(1), x, u64::from(i == 99_999)))
            .collect();
        deep.insert_forest(&chain);
        assert_eq!(
            (deep.total(), deep.max_depth(), deep.len()),
            (1, 100_000, 100_001)
        );
    }

    #[test]
    fn children_sorted_alphabetically() {
        let t = tree(&[("z", 1), ("a", 1), ("M", 1)]);
        let names: Vec<_> = t.children(NodeId::ROOT).map(|c| t.name(c)).collect();
        assert_eq!(names, ["M", "a", "z"]);
    }

    #[test]
    fn families_large_and_small_find_their_children() {
        // Crossing the scan limit moves a family into the index; nothing is duplicated.
        let mut t = CallTree::new();
        for round in 0..2 {
            for i in 0..(3 * SCAN_CHILDREN) {
                t.insert(["main", &format!("f{i}"), "leaf"], 1);
            }
            let main = t.child_named(NodeId::ROOT, "main").unwrap();
            assert_eq!(t.children(main).count(), 3 * SCAN_CHILDREN, "round {round}");
        }
        t.finish();
        let main = t.child_named(NodeId::ROOT, "main").unwrap();
        for i in 0..(3 * SCAN_CHILDREN) {
            let f = t.child_named(main, &format!("f{i}")).unwrap();
            assert_eq!(t.node(f).total, 2);
            assert!(t.child_named(f, "leaf").is_some());
        }
        assert!(t.child_named(main, "nope").is_none());
        assert_eq!(t.len(), 2 + 2 * 3 * SCAN_CHILDREN);
    }

    #[test]
    fn sorted_walk_is_the_bytewise_order_of_the_folded_text() {
        // `b2` sorts between `b` and `b;x` (the digit is below `;`), `B` before `a`.
        let t = tree(&[
            ("a;b;x", 1),
            ("a;b", 2),
            ("a;b2", 3),
            ("a;b!;y", 4),
            ("a", 5),
            ("B;c", 6),
            ("a;b;x;z", 7),
        ]);
        let mut walked = Vec::new();
        t.for_each_stack_sorted(|path, w| {
            let names: Vec<&str> = path.iter().map(|&n| t.names().resolve(n)).collect();
            walked.push((names.join(";"), w));
        });
        let mut sorted = t.stacks();
        sorted.sort();
        assert_eq!(walked, sorted);
    }

    #[test]
    fn stacks_round_trip() {
        let t = tree(&[("a;b;c", 3), ("a;b", 2), ("a;d", 5), ("a;b;c", 1)]);
        assert_eq!(
            t.stacks(),
            vec![("a;b".into(), 2), ("a;b;c".into(), 4), ("a;d".into(), 5)]
        );
    }

    #[test]
    fn nest_under_moves_everything_down() {
        let t = tree(&[("a;b", 3), ("c", 2)]);
        let n = t.nest_under("[on-cpu]");
        assert_eq!(n.total(), 5);
        assert_eq!(n.max_depth(), 3);
        let stacks = n.stacks();
        assert_eq!(
            stacks,
            vec![("[on-cpu];a;b".into(), 3), ("[on-cpu];c".into(), 2)]
        );
    }

    #[test]
    fn merge_equals_inserting_everything_in_one_tree() {
        let mut a = tree(&[("a;b", 3), ("c", 2)]);
        let mut b = CallTree::new();
        b.rescale(1);
        b.insert(["a", "b"], 15);
        b.insert(["d"], 10);
        b.finish();
        a.merge_from(&b);
        a.finish();
        assert_eq!(a.scale(), 1);
        assert_eq!(
            a.stacks(),
            vec![("a;b".into(), 45), ("c".into(), 20), ("d".into(), 10)]
        );
        assert_eq!(a.node(a.child_named(NodeId::ROOT, "a").unwrap()).samples, 2);
    }

    /// `i64::MAX`, the largest pprof sample value: two on one path clamp its callers.
    const BIG: u64 = i64::MAX as u64;

    /// Every own weight of a tree, by stack.
    fn own(t: &CallTree) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        t.for_each_stack(|path, w, _| {
            let names: Vec<&str> = path.iter().map(|&n| t.names().resolve(n)).collect();
            out.insert(names.join(";"), w);
        });
        out
    }

    /// The own weights of the stacks `main;a` (2 × [`BIG`], clamping `main` and the root
    /// at `u64::MAX`), `main` (5), `main;b` (5) and, past the clamp, `main` again (2).
    fn clamped_own() -> BTreeMap<String, u64> {
        BTreeMap::from([
            (String::new(), 0),
            ("main".to_owned(), 7),
            ("main;a".to_owned(), 2 * BIG),
            ("main;b".to_owned(), 5),
        ])
    }

    const CLAMPED: [(&str, u64); 5] = [
        ("main;a", BIG),
        ("main", 5),
        ("main;a", BIG),
        ("main;b", 5),
        ("main", 2),
    ];

    #[test]
    fn a_clamped_total_keeps_its_own_weight_and_its_siblings() {
        let mut t = CallTree::new();
        for (s, w) in CLAMPED {
            t.insert(s.split(';'), w);
        }
        assert!(t.saturated());
        assert_eq!(t.total(), u64::MAX);
        // `main`'s own was its total less its children's: u64::MAX - (2^64 - 2 + 5) = 0.
        let mut want = clamped_own();
        want.remove("");
        assert_eq!(own(&t), want);
        // With interned ids, as the pprof loader inserts.
        let mut u = CallTree::new();
        for (s, w) in CLAMPED {
            let ids: Vec<NameId> = s.split(';').map(|f| u.intern(f)).collect();
            u.insert_ids(ids, w);
        }
        assert_eq!(own(&u), want);
    }

    #[test]
    fn clamped_own_weights_survive_merging_rescaling_pruning_and_nesting() {
        let mut want = clamped_own();
        want.remove("");
        // Each stack in a tree of its own, merged.
        let mut merged = CallTree::new();
        for (s, w) in CLAMPED {
            let mut part = CallTree::new();
            part.insert(s.split(';'), w);
            merged.merge_from(&part);
        }
        assert_eq!(own(&merged), want);
        // Rescaled: ten times `main;a` still fits, ten times `main` does not.
        let mut scaled = tree(&[("main;a", BIG / 5), ("main", 5), ("main;b", 5)]);
        scaled.rescale(1);
        let own_scaled = own(&scaled);
        assert_eq!(own_scaled["main;a"], BIG / 5 * 10);
        assert_eq!(own_scaled["main;b"], 50);
        assert_eq!(own_scaled["main"], 50);
        // Pruned: `b` (5) goes, into `main`'s own.
        let (pruned, _) = merged.pruned(6);
        let mut pruned_want = want.clone();
        pruned_want.remove("main;b");
        pruned_want.insert("main".to_owned(), 12);
        assert_eq!(own(&pruned), pruned_want);
        // Nested under a new frame.
        let nested = merged.nest_under("on");
        let nested_want: BTreeMap<String, u64> =
            want.iter().map(|(k, &w)| (format!("on;{k}"), w)).collect();
        assert_eq!(own(&nested), nested_want);
    }

    #[test]
    fn a_forest_past_u64_max_keeps_every_own_weight() {
        let mut t = CallTree::new();
        let (main, a, b) = (t.intern("main"), t.intern("a"), t.intern("b"));
        let e = |parent, name, own| ForestEntry {
            parent,
            name,
            own,
            own_samples: 1,
        };
        t.insert_forest(&[e(None, main, 5), e(Some(0), a, BIG), e(Some(0), b, 5)]);
        t.insert_forest(&[e(None, main, 2), e(Some(0), a, BIG)]);
        let mut want = clamped_own();
        want.remove("");
        assert_eq!(own(&t), want);
    }

    #[test]
    fn a_node_costs_32_bytes() {
        assert_eq!(NODE_BYTES, 32);
        let t = tree(&[("a;b;c", 1), ("a;d", 1)]);
        assert!(t.heap_bytes() >= t.len() * NODE_BYTES);
    }

    /// Stacks of a small alphabet: shared prefixes, families past the scan limit, weight 0.
    fn random_stacks() -> impl Strategy<Value = Vec<(Vec<u8>, u64)>> {
        prop::collection::vec((prop::collection::vec(0u8..24, 0..6), 0u64..5), 0..120)
    }

    fn model(stacks: &[(Vec<u8>, u64)]) -> BTreeMap<String, (u64, u64)> {
        let mut m = BTreeMap::new();
        for (frames, w) in stacks {
            let key: Vec<String> = frames.iter().map(|f| format!("f{f}")).collect();
            let e = m.entry(key.join(";")).or_insert((0, 0));
            e.0 += w;
            e.1 += 1;
        }
        m
    }

    fn build(stacks: &[(Vec<u8>, u64)]) -> CallTree {
        let mut t = CallTree::new();
        for (frames, w) in stacks {
            t.insert(frames.iter().map(|f| format!("f{f}")), *w);
        }
        t
    }

    #[test]
    fn big_trees_are_sorted_on_all_cores_as_small_ones() {
        // Above the size where several threads sort the families.
        let mut t = CallTree::new();
        let mut x: u64 = 3;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % m
        };
        while t.len() < 250_000 {
            let depth = 1 + next(12) as usize;
            let frames: Vec<String> = (0..depth).map(|_| format!("n{}", next(40))).collect();
            t.insert(frames, 1 + next(5));
        }
        let mut before = t.stacks();
        before.sort();
        t.finish();
        let mut after = t.stacks();
        after.sort();
        assert_eq!(before, after);
        for id in t.ids() {
            let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
            assert!(kids.is_sorted(), "{kids:?}");
            for c in t.children(id) {
                assert_eq!(t.child_named(id, t.name(c)), Some(c));
            }
        }
        // Heaviest first, then back.
        t.sort_by_weight();
        for id in t.ids() {
            let w: Vec<u64> = t.children(id).map(|c| t.node(c).total).collect();
            assert!(w.is_sorted_by(|a, b| a >= b), "{w:?}");
        }
        t.finish();
        let mut again = t.stacks();
        again.sort();
        assert_eq!(before, again);
    }

    proptest! {
        #[test]
        fn tree_holds_exactly_the_inserted_stacks(
            stacks in random_stacks(),
            split in 0usize..120,
        ) {
            // Built in two pieces and merged, as the parallel parser does.
            let split = split.min(stacks.len());
            let mut t = build(&stacks[..split]);
            t.merge_from(&build(&stacks[split..]));
            t.finish();
            for id in t.ids() {
                let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
                prop_assert!(kids.is_sorted(), "{:?}", kids);
            }
            let want = model(&stacks);
            let mut got = BTreeMap::new();
            t.for_each_stack(|path, w, n| {
                let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
                got.insert(names.join(";"), (w, n));
            });
            prop_assert_eq!(&got, &want);
            let mut sorted = Vec::new();
            t.for_each_stack_sorted(|path, _| {
                let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
                sorted.push(names.join(";"));
            });
            let framed: Vec<String> = want.keys().filter(|k| !k.is_empty()).cloned().collect();
            prop_assert_eq!(sorted, framed);
            // The walk cut into runs (as the parallel export does) is the same walk.
            for per_run in [1, 2, 5, u64::MAX] {
                let mut pieces = Vec::new();
                for run in t.sorted_runs(per_run) {
                    t.for_each_stack_in(&run, |path, w| {
                        let names: Vec<&str> = path.iter().map(|&p| t.names().resolve(p)).collect();
                        pieces.push((names.join(";"), w));
                    });
                }
                let whole: Vec<(String, u64)> = want
                    .iter()
                    .filter(|(k, _)| !k.is_empty())
                    .map(|(k, &(w, _))| (k.clone(), w))
                    .collect();
                prop_assert_eq!(pieces, whole, "{} samples a run", per_run);
            }
            let depths = t.depths();
            for id in t.ids() {
                prop_assert_eq!(depths[id.0 as usize] as usize, t.path(id).len());
                prop_assert_eq!(t.depth(id), depths[id.0 as usize]);
                let kids: Vec<&str> = t.children(id).map(|c| t.name(c)).collect();
                prop_assert!(kids.is_sorted(), "{:?}", kids);
                for c in t.children(id) {
                    prop_assert_eq!(t.child_named(id, t.name(c)), Some(c));
                    prop_assert_eq!(t.node(c).parent, Some(id));
                }
            }
            let deepest = want.keys().map(|k| if k.is_empty() { 0 } else { k.split(';').count() });
            prop_assert_eq!(t.max_depth() as usize, deepest.max().unwrap_or(0));
        }
    }

    #[test]
    fn overflow_saturates() {
        let t = tree(&[("a", u64::MAX), ("a", 1)]);
        assert!(t.saturated());
        assert_eq!(t.total(), u64::MAX);
    }

    #[test]
    fn scaled_formatting() {
        assert_eq!(format_scaled(3123, 2), "31.23");
        assert_eq!(format_scaled(600, 2), "6");
        assert_eq!(format_scaled(5, 3), "0.005");
        assert_eq!(format_scaled(0, 1), "0");
        assert_eq!(format_scaled(42, 0), "42");
    }

    #[test]
    fn deep_stack_no_recursion() {
        let frames: Vec<String> = (0..100_000).map(|i| format!("f{}", i % 7)).collect();
        let mut t = CallTree::new();
        t.insert(frames.iter(), 1);
        t.finish();
        assert_eq!(t.max_depth(), 100_000);
        assert_eq!(t.stacks().len(), 1);
        assert_eq!(t.preorder().len(), 100_001);
    }
}
