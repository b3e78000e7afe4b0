//! Stage: call tree. An arena of nodes (`NodeId`) with interned names; stacks are
//! inserted root first in O(depth) lookups, and children are kept in a deterministic
//! order (alphabetical, like `FlameGraph`) once the tree is finished.
//!
//! Layout: one 32-byte record per node, everything included — name, parent, first child
//! and next sibling as `u32`, inclusive weight and sample count as `u64`. What a node
//! does not store is derived exactly: its own (self) weight and samples are its totals
//! minus its children's, its depth is the length of its parent chain. A family with more
//! than `SCAN_CHILDREN` children also has entries in a `(parent, name) → child` hash
//! map (few families are that big); smaller ones are scanned. A child is always created
//! after its parent, so `parent < child` for every node: one pass in id order visits
//! callers first.
//!
//! The tree's code by seam: this file holds the arena (nodes, the struct, its reading
//! accessors); `build` adds stacks and weights, `family` finds, adds and orders a
//! node's children, `walk` visits the nodes and stacks, `runs` cuts the sorted walk
//! into runs for parallel export, and `merge` makes copies (pruned, nested, rescaled)
//! and merges trees.

mod build;
mod family;
mod merge;
mod ranks;
mod runs;
mod walk;

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::intern::{Interner, NameId};

pub use build::ForestEntry;
pub use merge::Counters;
pub use ranks::{Rank, TextRanks, path_order};
pub use runs::{MAX_CUT_DEPTH, StackRun, UnionRun, union_sorted_runs};
pub use walk::SortedWalk;

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

/// Parents with at most this many children find a child by scanning them. Each step of
/// a scan waits for a child's record to find the next: with distinct stacks, whose
/// families lie far apart in the arena, every step is a cache miss, where the index
/// costs about two (8 gave 13% of a one-thread parse of distinct stacks under one root
/// to the scans; 4 gave 5% less time, for 5% more memory on those inputs).
const SCAN_CHILDREN: usize = 4;

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

    /// Formats a weight of this tree as a decimal number (exact; no trailing zeros).
    pub fn format_weight(&self, weight: u64) -> String {
        format_scaled(weight, self.scale)
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

#[cfg(test)]
mod clamp_tests;
#[cfg(test)]
mod tests;
