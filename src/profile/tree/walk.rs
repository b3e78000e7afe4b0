//! Walking: the nodes in pre-order and the stacks that samples ended in, in pre-order
//! or in the bytewise order of their folded text (`a;b;c`), the latter without building
//! that text: [`SortedWalk`] orders each family as its stacks' text sorts and gives one
//! stack at a time, holding one path and one family list per level.

use super::ranks::Rank;
use super::{CallTree, NONE, NodeId};
use crate::profile::intern::NameId;

impl CallTree {
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
        SortedWalk::new(self, Vec::new(), Some(NodeId::ROOT), None, None)
    }

    /// [`CallTree::sorted_walk`] ordering families by `ranks` (this tree's in a
    /// [`super::TextRanks`]) instead of by comparing texts: the same order.
    #[must_use]
    pub fn sorted_walk_ranked<'t>(&'t self, ranks: &'t [Rank]) -> SortedWalk<'t> {
        SortedWalk::new(self, Vec::new(), Some(NodeId::ROOT), None, Some(ranks))
    }

    /// The entries of one family in the order of their folded text: the stacks below a
    /// child, or its own stack.
    /// With `ranks`, they are ordered by them (the same order).
    fn sorted_entries(&self, id: NodeId, ranks: Option<&[Rank]>) -> Vec<Entry> {
        let mut v = Vec::new();
        self.entries_into(id, &mut v, ranks);
        v
    }

    /// [`CallTree::sorted_entries`] into `v` (cleared first). Every child gets an own
    /// entry, whose weight is read where it is used, and left out there when empty (the
    /// walk reads a caller's own weight just before it reads its children for the stacks
    /// below, then in cache; the cut into runs reads no grandchildren).
    pub(super) fn entries_into(&self, id: NodeId, v: &mut Vec<Entry>, ranks: Option<&[Rank]>) {
        v.clear();
        for c in self.children(id) {
            let s = &self.slots[c.index()];
            // A child's ranks are read once, here, and kept with its entries: the
            // table of ranks is as big as the names, and is read in no order.
            let rank = ranks
                .and_then(|r| r.get(s.name.0 as usize).copied())
                .unwrap_or_default();
            v.push(Entry {
                node: c,
                below: false,
                rank: rank[0],
            });
            if s.first_child != NONE {
                v.push(Entry {
                    node: c,
                    below: true,
                    rank: rank[1],
                });
            }
        }
        // Children are mostly in name order already: a run-detecting stable sort
        // costs about one comparison each.
        if v.len() < 2 {
            return;
        }
        if ranks.is_some() {
            if !v.is_sorted_by_key(|e| e.rank) {
                v.sort_by_key(|e| e.rank);
            }
        } else {
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
    /// The tree's name ranks, to order families by, if given.
    ranks: Option<&'t [Rank]>,
}

impl<'t> SortedWalk<'t> {
    /// A walk from the frames in `path`: of the stacks below `below`, or of one own stack
    /// weighing `own`.
    pub(super) fn new(
        tree: &'t CallTree,
        path: Vec<NameId>,
        below: Option<NodeId>,
        own: Option<u64>,
        ranks: Option<&'t [Rank]>,
    ) -> Self {
        Self {
            tree,
            depth: path.len(),
            path,
            todo: below
                .map(|id| (tree.sorted_entries(id, ranks), 0))
                .into_iter()
                .collect(),
            pool: Vec::new(),
            own,
            yielded: false,
            ranks,
        }
    }

    /// Makes this walk one from `prefix` and `name`, as [`SortedWalk::new`] with that
    /// path, reusing its lists.
    pub(super) fn restart(
        &mut self,
        prefix: &[NameId],
        name: NameId,
        below: Option<NodeId>,
        own: Option<u64>,
    ) {
        self.path.clear();
        self.path.extend_from_slice(prefix);
        self.path.push(name);
        self.depth = self.path.len();
        while let Some((list, _)) = self.todo.pop() {
            self.pool.push(list);
        }
        if let Some(id) = below {
            let mut list = self.pool.pop().unwrap_or_default();
            self.tree.entries_into(id, &mut list, self.ranks);
            self.todo.push((list, 0));
        }
        self.own = own;
        self.yielded = false;
    }

    /// Ends the walk: [`SortedWalk::advance`] gives nothing more.
    pub fn stop(&mut self) {
        while let Some((list, _)) = self.todo.pop() {
            self.pool.push(list);
        }
        self.own = None;
        self.yielded = false;
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
            let weight = if e.below {
                0
            } else {
                match self.tree.self_counts(e.node) {
                    (0, 0) => continue,
                    (w, _) => w,
                }
            };
            self.path.push(self.tree.slots[e.node.index()].name);
            if e.below {
                let mut list = self.pool.pop().unwrap_or_default();
                self.tree.entries_into(e.node, &mut list, self.ranks);
                self.todo.push((list, 0));
            } else {
                self.yielded = true;
                return Some(weight);
            }
        }
    }

    /// The frames of the stack [`SortedWalk::advance`] last gave, root first.
    pub fn path(&self) -> &[NameId] {
        &self.path
    }

    /// The tree walked.
    pub fn tree(&self) -> &'t CallTree {
        self.tree
    }

    /// The name ranks the walk orders families by, if it was given some.
    pub fn ranks(&self) -> Option<&'t [Rank]> {
        self.ranks
    }
}

/// One entry of a family in the sorted walk: a child's own stack or the stacks below it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) node: NodeId,
    pub(super) below: bool,
    /// Its rank (the name's, alone or followed by `;`) when the family was ordered by
    /// ranks, else 0.
    pub(super) rank: u32,
}

/// The order of `a` (followed by `;` when `a_below`) and `b` (likewise) as byte strings:
/// one `memcmp` of the common part, then the short tails.
pub(super) fn entry_order(a: &[u8], a_below: bool, b: &[u8], b_below: bool) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| {
        let semi = |below: bool| -> &'static [u8] { if below { b";" } else { b"" } };
        a[n..]
            .iter()
            .chain(semi(a_below))
            .cmp(b[n..].iter().chain(semi(b_below)))
    })
}
