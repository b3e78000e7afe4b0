//! Stage: call tree → per-frame geometry facts the view reads in O(1): where each frame
//! starts (in weight units from the left edge of the whole graph) and how deep its
//! subtree goes, its name, and the pre-order of the frames. Built once per profile in
//! O(nodes); layout then only visits what it draws, and search reads these arrays rather
//! than the nodes.

use crate::profile::{CallTree, NameId, NodeId};

/// Name of the SystemTap group frame whose subtree is drawn in blue.
pub use crate::profile::scope::OFF_CPU;

/// A frame in [`TreeIndex::preorder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    /// The frame.
    pub id: NodeId,
    /// Its function.
    pub name: NameId,
    /// Its depth (the root is 0).
    pub depth: u32,
}

/// Offsets and subtree heights of every node of one tree.
#[derive(Debug, Clone, Default)]
pub struct TreeIndex {
    start: Vec<u64>,
    height: Vec<u32>,
    depth: Vec<u32>,
    total: Vec<u64>,
    preorder: Vec<Visit>,
    offcpu: Option<(u64, u64)>,
}

impl TreeIndex {
    /// Indexes `tree`: children are laid out left to right in their stored order.
    pub fn new(tree: &CallTree) -> Self {
        let n = tree.len();
        let mut start = vec![0u64; n];
        let mut height = vec![0u32; n];
        let mut depth = vec![0u32; n];
        let total: Vec<u64> = tree.ids().map(|id| tree.node(id).total).collect();
        let mut preorder = Vec::with_capacity(n);
        // One depth-first pass: a frame's entry places its children (left edges, depth)
        // and records its visit; its exit raises its parent's height. (frame, parent,
        // leaving)
        let mut stack: Vec<(NodeId, NodeId, bool)> = vec![(NodeId::ROOT, NodeId::ROOT, false)];
        let mut kids: Vec<NodeId> = Vec::new();
        while let Some((id, parent, leaving)) = stack.pop() {
            let i = ix(id);
            if leaving {
                if id != NodeId::ROOT {
                    let h = height[i].saturating_add(1);
                    let p = &mut height[ix(parent)];
                    *p = (*p).max(h);
                }
                continue;
            }
            let d = depth[i];
            preorder.push(Visit {
                id,
                name: tree.node(id).name,
                depth: d,
            });
            stack.push((id, parent, true));
            let mut offset = start[i];
            kids.clear();
            for c in tree.children(id) {
                start[ix(c)] = offset;
                depth[ix(c)] = d + 1;
                offset = offset.saturating_add(total[ix(c)]);
                kids.push(c);
            }
            stack.extend(kids.iter().rev().map(|&c| (c, id, false)));
        }
        let mut index = Self {
            start,
            height,
            depth,
            total,
            preorder,
            offcpu: None,
        };
        index.offcpu = tree
            .child_named(NodeId::ROOT, OFF_CPU)
            .map(|id| (index.start(id), index.end(id)));
        index
    }

    /// Weight offset of the frame's left edge.
    pub fn start(&self, id: NodeId) -> u64 {
        self.start.get(ix(id)).copied().unwrap_or(0)
    }

    /// Weight offset of the frame's right edge (exclusive).
    pub fn end(&self, id: NodeId) -> u64 {
        self.start(id).saturating_add(self.total(id))
    }

    /// Inclusive weight of the frame.
    pub fn total(&self, id: NodeId) -> u64 {
        self.total.get(ix(id)).copied().unwrap_or(0)
    }

    /// Depth of the frame (the root is 0).
    pub fn depth(&self, id: NodeId) -> u32 {
        self.depth.get(ix(id)).copied().unwrap_or(0)
    }

    /// Every frame, callers before callees and left to right (the root first), with its
    /// name and depth: one sequential array for passes over the whole tree.
    pub fn preorder(&self) -> &[Visit] {
        &self.preorder
    }

    /// Levels below the frame (0 for a leaf).
    pub fn height(&self, id: NodeId) -> u32 {
        self.height.get(ix(id)).copied().unwrap_or(0)
    }

    /// Depth of the deepest frame in the subtree of `id`.
    pub fn deepest(&self, id: NodeId) -> u32 {
        self.depth(id).saturating_add(self.height(id))
    }

    /// The frame of function `name` with the largest total, the first of equals in
    /// pre-order (never the root): one pass over the pre-order array.
    pub fn heaviest(&self, name: NameId) -> Option<NodeId> {
        let mut best: Option<(NodeId, u64)> = None;
        for v in self.preorder.iter().skip(1).filter(|v| v.name == name) {
            let total = self.total(v.id);
            if best.is_none_or(|(_, b)| total > b) {
                best = Some((v.id, total));
            }
        }
        best.map(|(id, _)| id)
    }

    /// The frames of function `name` with no caller of the same name (the root excluded),
    /// in pre-order — every stack through the function passes exactly one of them — and
    /// how many frames their subtrees hold in all (what merging them costs).
    pub fn outermost(&self, name: NameId) -> (Vec<NodeId>, usize) {
        let mut out = Vec::new();
        let mut below = 0usize;
        // Depth of the outermost frame whose subtree the walk is in.
        let mut inside: Option<u32> = None;
        for v in self.preorder.iter().skip(1) {
            if inside.is_some_and(|d| v.depth > d) {
                below += 1;
            } else if v.name == name {
                out.push(v.id);
                inside = Some(v.depth);
                below += 1;
            } else {
                inside = None;
            }
        }
        (out, below)
    }

    /// True when the tree has an `[off-cpu]` subtree.
    pub fn has_offcpu(&self) -> bool {
        self.offcpu.is_some()
    }

    /// True when the weight interval lies in the `[off-cpu]` subtree.
    pub fn is_offcpu(&self, lo: u64, hi: u64) -> bool {
        self.offcpu
            .is_some_and(|(a, b)| lo >= a && hi <= b && lo < b)
    }
}

fn ix(id: NodeId) -> usize {
    id.0 as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::many_single_char_names)] // one letter per frame of the example tree
    fn offsets_and_heights() {
        let mut t = CallTree::new();
        t.insert(["a", "b", "c"], 3);
        t.insert(["a", "d"], 5);
        t.insert(["e"], 2);
        t.finish();
        let ix = TreeIndex::new(&t);
        let a = t.child_named(NodeId::ROOT, "a").unwrap();
        let b = t.child_named(a, "b").unwrap();
        let d = t.child_named(a, "d").unwrap();
        let e = t.child_named(NodeId::ROOT, "e").unwrap();
        assert_eq!((ix.start(a), ix.end(a)), (0, 8));
        assert_eq!((ix.start(b), ix.start(d), ix.start(e)), (0, 3, 8));
        assert_eq!(ix.height(NodeId::ROOT), 3);
        assert_eq!(ix.height(a), 2);
        assert_eq!(ix.height(e), 0);
        assert_eq!(ix.deepest(b), 3);
        assert!(!ix.is_offcpu(0, 1));
    }

    #[test]
    fn heaviest_and_outermost_frames() {
        let mut t = CallTree::new();
        t.insert(["a", "f", "b", "f", "c"], 3);
        t.insert(["a", "g", "f"], 5);
        t.insert(["f"], 1);
        t.finish();
        let ix = TreeIndex::new(&t);
        let f = t.names().lookup("f").unwrap();
        let paths = |ids: &[NodeId]| ids.iter().map(|&id| t.path_string(id)).collect::<Vec<_>>();
        let (outer, below) = ix.outermost(f);
        assert_eq!(paths(&outer), ["a;f", "a;g;f", "f"]);
        assert_eq!(below, 4 + 1 + 1);
        assert_eq!(paths(&[ix.heaviest(f).unwrap()]), ["a;g;f"]);
        assert_eq!(ix.heaviest(t.names().lookup("all").unwrap()), None);
        assert_eq!(ix.outermost(t.names().lookup("all").unwrap()).0, []);
    }

    #[test]
    fn offcpu_interval() {
        let mut t = CallTree::new();
        t.insert(["[on-cpu]", "x"], 4);
        t.insert([OFF_CPU, "y"], 6);
        t.finish();
        let ix = TreeIndex::new(&t);
        let off = t.child_named(NodeId::ROOT, OFF_CPU).unwrap();
        let on = t.child_named(NodeId::ROOT, "[on-cpu]").unwrap();
        assert!(ix.is_offcpu(ix.start(off), ix.end(off)));
        assert!(ix.is_offcpu(ix.start(off) + 1, ix.start(off) + 2));
        assert!(!ix.is_offcpu(ix.start(on), ix.end(on)));
    }
}
