//! Stage: call tree. An arena of nodes (`NodeId`) with interned names; stacks are
//! inserted root first in O(depth) hash lookups, and children are kept in a
//! deterministic order (alphabetical, like `FlameGraph`) once the tree is finished.

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

/// The callees of a node.
pub type Children = smallvec::SmallVec<[NodeId; 4]>;

/// One frame at one position in the tree.
#[derive(Debug, Clone)]
pub struct Node {
    /// Frame name.
    pub name: NameId,
    /// Caller; `None` only for the root.
    pub parent: Option<NodeId>,
    /// Callees, alphabetical after [`CallTree::finish`]; up to four are stored inline (most
    /// frames of a profile have few callees, and a heap block each cost more than the node).
    pub children: Children,
    /// Inclusive weight: this frame and everything it called.
    pub total: u64,
    /// Weight of the stacks that end in this frame.
    pub self_weight: u64,
    /// Inclusive number of samples (stack occurrences), whatever their weight.
    pub samples: u64,
    /// Samples that end in this frame.
    pub self_samples: u64,
    /// Distance from the root (the root is 0).
    pub depth: u32,
}

/// Parents with at most this many children find a child by scanning them.
const SCAN_CHILDREN: usize = 8;

/// Name of the synthetic root node, as in `FlameGraph`.
pub const ROOT_NAME: &str = "all";

/// An arena call tree.
#[derive(Debug, Clone)]
pub struct CallTree {
    names: Interner,
    nodes: Vec<Node>,
    /// `(parent, name) → child` for parents with more than [`SCAN_CHILDREN`] children;
    /// smaller families are scanned (most nodes of a profile with distinct stacks have
    /// one child, and an entry per node here cost more than the node).
    index: FxHashMap<(NodeId, NameId), NodeId>,
    /// Weights are stored as integers in units of 10^-scale (fractional folded counts).
    scale: u32,
    saturated: bool,
    max_depth: u32,
    /// Nodes of the previous `insert_ids` path, by depth.
    last_path: Vec<NodeId>,
}

impl Default for CallTree {
    fn default() -> Self {
        Self::new()
    }
}

impl CallTree {
    /// An empty tree holding only the root.
    pub fn new() -> Self {
        let mut names = Interner::default();
        let root = names.intern(ROOT_NAME);
        Self {
            names,
            nodes: vec![Node {
                name: root,
                parent: None,
                children: Children::new(),
                total: 0,
                self_weight: 0,
                samples: 0,
                self_samples: 0,
                depth: 0,
            }],
            index: FxHashMap::default(),
            scale: 0,
            saturated: false,
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

    /// As [`CallTree::insert`], with frames already interned in this tree.
    ///
    /// Consecutive samples usually share most of their root side, so the path of the
    /// previous sample is tried before the hash index.
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
                self.nodes[n.index()].name == name && self.nodes[n.index()].parent == Some(at)
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
        last.truncate(depth);
        self.last_path = last;
        self.add_self(at, weight, samples);
        at
    }

    fn add_self(&mut self, at: NodeId, weight: u64, samples: u64) {
        let leaf = &mut self.nodes[at.index()];
        leaf.self_weight = leaf.self_weight.checked_add(weight).unwrap_or_else(|| {
            self.saturated = true;
            u64::MAX
        });
        leaf.self_samples = leaf.self_samples.saturating_add(samples);
    }

    /// Adds `samples` samples of one stack with `weight` in all (used by transforms).
    pub fn insert_counted<I, S>(&mut self, frames: I, weight: u64, samples: u64) -> NodeId
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut at = NodeId::ROOT;
        self.add_weight(at, weight, samples);
        for frame in frames {
            let name = self.names.intern(frame.as_ref());
            at = self.child_or_insert(at, name);
            self.add_weight(at, weight, samples);
        }
        self.add_self(at, weight, samples);
        at
    }

    fn add_weight(&mut self, id: NodeId, weight: u64, samples: u64) {
        let node = &mut self.nodes[id.index()];
        node.samples = node.samples.saturating_add(samples);
        if let Some(t) = node.total.checked_add(weight) {
            node.total = t;
        } else {
            node.total = u64::MAX;
            self.saturated = true;
        }
    }

    /// The child of `parent` named `name`, if any.
    fn child(&self, parent: NodeId, name: NameId) -> Option<NodeId> {
        let kids = &self.nodes[parent.index()].children;
        if kids.len() <= SCAN_CHILDREN {
            kids.iter()
                .copied()
                .find(|&c| self.nodes[c.index()].name == name)
        } else {
            self.index.get(&(parent, name)).copied()
        }
    }

    fn child_or_insert(&mut self, parent: NodeId, name: NameId) -> NodeId {
        if let Some(id) = self.child(parent, name) {
            return id;
        }
        let id = NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        let depth = self.nodes[parent.index()].depth + 1;
        self.max_depth = self.max_depth.max(depth);
        self.nodes.push(Node {
            name,
            parent: Some(parent),
            children: Children::new(),
            total: 0,
            self_weight: 0,
            samples: 0,
            self_samples: 0,
            depth,
        });
        let kids = &mut self.nodes[parent.index()].children;
        kids.push(id);
        if kids.len() > SCAN_CHILDREN {
            if kids.len() == SCAN_CHILDREN + 1 {
                // The family outgrew scanning: index all of it.
                let all = kids.clone();
                for c in all {
                    let n = self.nodes[c.index()].name;
                    self.index.insert((parent, n), c);
                }
            } else {
                self.index.insert((parent, name), id);
            }
        }
        id
    }

    /// Sorts every child list alphabetically (byte order of the names).
    pub fn finish(&mut self) {
        let names = &self.names;
        let keys: Vec<NameId> = self.nodes.iter().map(|n| n.name).collect();
        for node in &mut self.nodes {
            node.children.sort_by(|a, b| {
                names
                    .resolve(keys[a.index()])
                    .cmp(names.resolve(keys[b.index()]))
            });
        }
    }

    /// Sorts every child list heaviest first, ties alphabetically ([`CallTree::finish`]
    /// restores the alphabetical order).
    pub fn sort_by_weight(&mut self) {
        let names = &self.names;
        let keys: Vec<(u64, NameId)> = self.nodes.iter().map(|n| (n.total, n.name)).collect();
        for node in &mut self.nodes {
            node.children.sort_by(|a, b| {
                let (ka, kb) = (keys[a.index()], keys[b.index()]);
                kb.0.cmp(&ka.0)
                    .then_with(|| names.resolve(ka.1).cmp(names.resolve(kb.1)))
            });
        }
    }

    /// A copy of this tree with every stack moved one level down, under a new
    /// frame `name` (used when `SystemTap` input turns out to have off-CPU stacks).
    #[must_use]
    pub fn nest_under(&self, name: &str) -> CallTree {
        let mut out = CallTree::new();
        out.scale = self.scale;
        out.saturated = self.saturated;
        let root = &self.nodes[0];
        out.nodes[0].total = root.total;
        out.nodes[0].samples = root.samples;
        if self.is_empty() {
            return out;
        }
        let group_name = out.names.intern(name);
        let group = out.child_or_insert(NodeId::ROOT, group_name);
        out.nodes[group.index()].total = root.total;
        out.nodes[group.index()].samples = root.samples;
        out.nodes[group.index()].self_weight = root.self_weight;
        out.nodes[group.index()].self_samples = root.self_samples;
        let mut map = vec![NodeId::ROOT; self.nodes.len()];
        map[0] = group;
        for id in self.preorder().into_iter().skip(1) {
            let old = self.node(id);
            let parent = map[old.parent.map_or(0, NodeId::index)];
            let new_name = out.names.intern_like(&self.names, old.name);
            let new = out.child_or_insert(parent, new_name);
            let n = &mut out.nodes[new.index()];
            n.total = old.total;
            n.self_weight = old.self_weight;
            n.samples = old.samples;
            n.self_samples = old.self_samples;
            map[id.index()] = new;
        }
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
        if other.scale > self.scale {
            self.rescale(other.scale - self.scale);
        }
        let factor = 10u64.saturating_pow(self.scale - other.scale);
        self.saturated |= other.saturated;
        let mut map = vec![NodeId::ROOT; other.nodes.len()];
        // At most every node of `other` is new here: one exact reservation instead of the
        // doubling growth, whose slack is most of the peak memory with distinct stacks.
        self.nodes.reserve_exact(other.nodes.len());
        // Each of `other`'s names is interned here once, not once per node (with distinct
        // stacks, nodes outnumber names a hundred to one).
        let mut names: Vec<Option<NameId>> = vec![None; other.names.len()];
        // A node is always created after its parent, so id order visits parents first.
        for (i, old) in other.nodes.iter().enumerate() {
            let new = match old.parent {
                None => NodeId::ROOT,
                Some(p) => {
                    let slot = &mut names[old.name.0 as usize];
                    let name =
                        *slot.get_or_insert_with(|| self.names.intern_like(&other.names, old.name));
                    self.child_or_insert(map[p.index()], name)
                }
            };
            map[i] = new;
            let mut sat = self.saturated;
            let n = &mut self.nodes[new.index()];
            n.total = add_sat(n.total, mul_sat(old.total, factor, &mut sat), &mut sat);
            n.self_weight = add_sat(
                n.self_weight,
                mul_sat(old.self_weight, factor, &mut sat),
                &mut sat,
            );
            n.samples = n.samples.saturating_add(old.samples);
            n.self_samples = n.self_samples.saturating_add(old.self_samples);
            self.saturated = sat;
        }
        map
    }

    /// Multiplies every weight by 10^`extra` so that weights with more decimals fit.
    pub fn rescale(&mut self, extra: u32) {
        let factor = 10u64.saturating_pow(extra);
        for node in &mut self.nodes {
            node.total = mul_sat(node.total, factor, &mut self.saturated);
            node.self_weight = mul_sat(node.self_weight, factor, &mut self.saturated);
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
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The node behind an id, if the id is in range.
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    /// The name of a node.
    pub fn name(&self, id: NodeId) -> &str {
        self.names.resolve(self.node(id).name)
    }

    /// The interned names.
    pub fn names(&self) -> &Interner {
        &self.names
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no stack was inserted.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// Total weight of all samples.
    pub fn total(&self) -> u64 {
        self.nodes[0].total
    }

    /// Deepest frame depth (the root is 0).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// All node ids.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..u32::try_from(self.nodes.len()).unwrap_or(u32::MAX)).map(NodeId)
    }

    /// The child of `parent` called `name`, if any.
    pub fn child_named(&self, parent: NodeId, name: &str) -> Option<NodeId> {
        let child = |id: Option<NameId>| id.and_then(|id| self.child(parent, id));
        child(self.names.lookup(name)).or_else(|| child(self.names.lookup_task(name)))
    }

    /// Ids from the root's first child down to `id` (the root itself excluded).
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = Vec::with_capacity(self.node(id).depth as usize);
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
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            out.push(id);
            stack.extend(self.node(id).children.iter().rev());
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
        // (child, true for the stacks below it, false for its own stack)
        let entries = |id: NodeId| -> Vec<(NodeId, bool)> {
            let mut v = Vec::with_capacity(2 * self.nodes[id.index()].children.len());
            for &c in &self.nodes[id.index()].children {
                let n = &self.nodes[c.index()];
                if n.self_samples > 0 || n.self_weight > 0 {
                    v.push((c, false));
                }
                if !n.children.is_empty() {
                    v.push((c, true));
                }
            }
            let key = |&(c, below): &(NodeId, bool)| {
                let name = self.names.resolve(self.nodes[c.index()].name).as_bytes();
                name.iter().copied().chain(below.then_some(b';'))
            };
            v.sort_by(|a, b| key(a).cmp(key(b)));
            v
        };
        let mut path: Vec<NameId> = Vec::new();
        let mut todo = vec![(entries(NodeId::ROOT), 0usize)];
        while let Some((list, next)) = todo.last_mut() {
            let Some(&(c, below)) = list.get(*next) else {
                todo.pop();
                path.pop();
                continue;
            };
            *next += 1;
            path.push(self.nodes[c.index()].name);
            if below {
                todo.push((entries(c), 0));
            } else {
                f(&path, self.nodes[c.index()].self_weight);
                path.pop();
            }
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
            let node = self.node(id);
            if id != NodeId::ROOT {
                path.push(node.name);
                todo.push((id, true));
            }
            if node.self_samples > 0 || node.self_weight > 0 {
                f(&path, node.self_weight, node.self_samples);
            }
            todo.extend(node.children.iter().rev().map(|&c| (c, false)));
        }
    }

    /// Formats a weight of this tree as a decimal number (exact; no trailing zeros).
    pub fn format_weight(&self, weight: u64) -> String {
        format_scaled(weight, self.scale)
    }
}

/// The four counters of a node, as [`CallTree::pruned_with`] takes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Inclusive weight.
    pub total: u64,
    /// Weight of the samples that ended in the node.
    pub self_weight: u64,
    /// Inclusive number of samples.
    pub samples: u64,
    /// Samples that ended in the node.
    pub self_samples: u64,
}

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
        let mut todo = vec![(NodeId::ROOT, NodeId::ROOT)];
        while let Some((id, copy)) = todo.pop() {
            for &c in &self.nodes[id.index()].children {
                let k = count(c);
                if k.samples == 0 {
                    continue;
                }
                let new = out.child_or_insert(copy, self.nodes[c.index()].name);
                out.set_counters(new, k);
                todo.push((c, new));
            }
        }
        out
    }

    fn set_counters(&mut self, id: NodeId, k: Counters) {
        let n = &mut self.nodes[id.index()];
        n.total = k.total;
        n.self_weight = k.self_weight;
        n.samples = k.samples;
        n.self_samples = k.self_samples;
    }
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
    use super::*;

    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        CallTree::from_stacks(stacks)
    }

    #[test]
    fn weights_add_up() {
        let t = tree(&[("a;b;c", 3), ("a;b", 2), ("a;d", 5)]);
        assert_eq!(t.total(), 10);
        let a = t.child_named(NodeId::ROOT, "a").unwrap();
        assert_eq!(t.node(a).total, 10);
        assert_eq!(t.node(a).self_weight, 0);
        let b = t.child_named(a, "b").unwrap();
        assert_eq!((t.node(b).total, t.node(b).self_weight), (5, 2));
        assert_eq!(t.node(b).samples, 2);
        assert_eq!(t.path_string(t.child_named(b, "c").unwrap()), "a;b;c");
        assert_eq!(t.max_depth(), 3);
    }

    #[test]
    fn children_sorted_alphabetically() {
        let t = tree(&[("z", 1), ("a", 1), ("M", 1)]);
        let names: Vec<_> = t
            .node(NodeId::ROOT)
            .children
            .iter()
            .map(|&c| t.name(c))
            .collect();
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
            assert_eq!(
                t.node(main).children.len(),
                3 * SCAN_CHILDREN,
                "round {round}"
            );
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
