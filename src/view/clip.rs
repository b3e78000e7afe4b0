//! Stage: call tree + viewport → call tree. What a zoom shows, as a tree of its own: the
//! stacks whose samples lie inside the viewport's weight interval, root first (the zoomed
//! frame's callers included, as the view draws them above it). Exporting the current view
//! writes this tree.

use super::index::TreeIndex;
use super::viewport::Viewport;
use crate::profile::{CallTree, NodeId};

/// The part of `tree` inside `vp`: every stack whose own samples are drawn in the
/// viewport, with the weight drawn there.
pub fn clip(tree: &CallTree, index: &TreeIndex, vp: &Viewport) -> CallTree {
    let mut out = CallTree::with_scale(tree.scale());
    let names = tree.names();
    let floor = index.depth(vp.root);
    let mut path: Vec<&str> = Vec::new();
    let mut todo: Vec<(NodeId, bool)> = vec![(NodeId::ROOT, false)];
    while let Some((id, leaving)) = todo.pop() {
        if leaving {
            path.pop();
            continue;
        }
        let node = tree.node(id);
        if id != NodeId::ROOT {
            path.push(names.resolve(node.name));
            todo.push((id, true));
        }
        let (start, end) = (index.start(id), index.end(id));
        let (self_weight, self_samples) = tree.self_counts(id);
        if index.depth(id) >= floor && (self_samples > 0 || self_weight > 0) {
            // A frame's own samples are drawn after its children: [end - self, end).
            let lo = end.saturating_sub(self_weight).max(vp.lo);
            let hi = end.min(vp.hi);
            let inside = if self_weight == 0 {
                start >= vp.lo && end <= vp.hi
            } else {
                lo < hi
            };
            if inside && !path.is_empty() {
                let w = if self_weight == 0 { 0 } else { hi - lo };
                out.insert_counted(path.iter(), w, self_samples);
            }
        }
        let at = todo.len();
        todo.extend(
            tree.children(id)
                .filter(|&c| {
                    let (s, e) = (index.start(c), index.end(c));
                    (s < vp.hi && e > vp.lo) || (s == e && s >= vp.lo && s <= vp.hi)
                })
                .map(|c| (c, false)),
        );
        todo[at..].reverse();
    }
    out.finish();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::folded_lines;

    fn setup() -> (CallTree, TreeIndex) {
        let mut t = CallTree::new();
        t.insert(["a", "b"], 3);
        t.insert(["a", "c"], 5);
        t.insert(["a"], 1);
        t.insert(["d", "e"], 2);
        t.finish();
        let ix = TreeIndex::new(&t);
        (t, ix)
    }

    #[test]
    fn whole_view_is_the_whole_tree() {
        let (t, ix) = setup();
        let out = clip(&t, &ix, &Viewport::whole(&ix));
        assert_eq!(folded_lines(&out), folded_lines(&t));
        assert_eq!(out.total(), 11);
    }

    #[test]
    fn frame_zoom_keeps_its_callers_and_drops_the_rest() {
        let (t, ix) = setup();
        let a = t.child_named(NodeId::ROOT, "a").unwrap();
        let c = t.child_named(a, "c").unwrap();
        let out = clip(&t, &ix, &Viewport::frame(&ix, c));
        assert_eq!(folded_lines(&out), ["a;c 5"]);
        let out = clip(&t, &ix, &Viewport::frame(&ix, a));
        assert_eq!(folded_lines(&out), ["a 1", "a;b 3", "a;c 5"]);
    }

    #[test]
    fn span_zoom_keeps_the_frames_of_the_span_only() {
        let (t, ix) = setup();
        // b and c at depth 2: [0, 8); a's own sample sits at [8, 9), outside.
        let vp = Viewport::span(&t, &ix, 2, 0, 8);
        let out = clip(&t, &ix, &vp);
        assert_eq!(folded_lines(&out), ["a;b 3", "a;c 5"]);
    }
}
