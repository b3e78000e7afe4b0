//! Stage: call tree + zoom → what fills the width. A [`Viewport`] is a weight interval of
//! the whole graph (a frame, or a group of narrow frames, zoomed to full width); a
//! [`Target`] is what the user points at (one frame, or the frames of a group cell).

use super::index::TreeIndex;
use crate::profile::{CallTree, NodeId};

/// The part of the graph that fills the width: the weight interval `[lo, hi)` of the whole
/// graph. `root` is the deepest frame containing it (the zoomed frame, for a frame zoom).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// Deepest frame containing the interval.
    pub root: NodeId,
    /// Left edge, in weight units of the whole graph.
    pub lo: u64,
    /// Right edge (exclusive).
    pub hi: u64,
}

impl Viewport {
    /// The whole graph.
    pub fn whole(index: &TreeIndex) -> Self {
        Self::frame(index, NodeId::ROOT)
    }

    /// One frame filling the width.
    pub fn frame(index: &TreeIndex, id: NodeId) -> Self {
        Self {
            root: id,
            lo: index.start(id),
            hi: index.end(id),
        }
    }

    /// The interval `[lo, hi)` of frames at `depth` (a group): its root is the deepest frame
    /// above `depth` that contains it.
    pub fn span(tree: &CallTree, index: &TreeIndex, depth: u32, lo: u64, hi: u64) -> Self {
        let mut root = NodeId::ROOT;
        loop {
            let next = tree.children(root).find(|&c| index.end(c) > lo);
            match next {
                Some(c) if index.depth(c) < depth && index.start(c) <= lo && index.end(c) >= hi => {
                    root = c;
                }
                _ => break,
            }
        }
        if index.start(root) == lo && index.end(root) == hi {
            return Self::frame(index, root);
        }
        Self { root, lo, hi }
    }

    /// True when the viewport is exactly its root frame (not a part of it).
    pub fn is_frame(&self, index: &TreeIndex) -> bool {
        self.lo == index.start(self.root) && self.hi == index.end(self.root)
    }

    /// Weight across the width.
    pub fn weight(&self) -> u64 {
        self.hi.saturating_sub(self.lo)
    }

    /// Column of a weight position (clamped to the viewport), by cumulative rounding.
    pub fn column(&self, pos: u64, width: u16) -> u16 {
        let span = self.weight();
        if span == 0 {
            return 0;
        }
        let rel = u128::from(pos.clamp(self.lo, self.hi) - self.lo);
        let col = rel * u128::from(width) / u128::from(span);
        u16::try_from(col).unwrap_or(width)
    }

    /// True when `[lo, hi)` intersects the viewport.
    pub fn overlaps(&self, lo: u64, hi: u64) -> bool {
        lo < self.hi && hi > self.lo
    }
}

/// What the user points at: one frame, or the frames of a group cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// One frame.
    Frame(NodeId),
    /// The frames at `depth` within `[lo, hi)`.
    Span {
        /// Row of the frames.
        depth: u32,
        /// Left edge of the interval.
        lo: u64,
        /// Right edge (exclusive).
        hi: u64,
    },
}

impl Target {
    /// Row of the target.
    pub fn depth(&self, index: &TreeIndex) -> u32 {
        match *self {
            Target::Frame(id) => index.depth(id),
            Target::Span { depth, .. } => depth,
        }
    }

    /// Weight interval of the target.
    pub fn interval(&self, index: &TreeIndex) -> (u64, u64) {
        match *self {
            Target::Frame(id) => (index.start(id), index.end(id)),
            Target::Span { lo, hi, .. } => (lo, hi),
        }
    }
}
