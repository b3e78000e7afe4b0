//! Stage: application state — the other side follows the driver by stack path. A node maps
//! to the node with the same names from the root in the other tree, or, when that path does
//! not exist there, to its deepest existing ancestor (and the selection is marked missing).

use super::{Compare, Side};
use crate::app::explorer::Explorer;
use crate::profile::{CallTree, NodeId};
use crate::view::{Target, TreeIndex, Viewport};

/// The node of `to` at the path of `id` in `from`, or its deepest existing ancestor; `true`
/// when the whole path exists.
pub fn twin(from: &CallTree, id: NodeId, to: &CallTree) -> (NodeId, bool) {
    let mut at = NodeId::ROOT;
    for n in from.path(id) {
        match to.child_named(at, from.name(n)) {
            Some(c) => at = c,
            None => return (at, false),
        }
    }
    (at, true)
}

/// The frame a target stands for: itself, or for a group of narrow frames the deepest frame
/// containing them.
fn anchor(ex: &Explorer, target: Target) -> NodeId {
    match target {
        Target::Frame(id) => id,
        Target::Span { depth, lo, hi } => {
            Viewport::span(&ex.profile.tree, &ex.index, depth, lo, hi).root
        }
    }
}

/// A zoom of `src` as a zoom of `dst`: the frame at the same path (or the deepest existing
/// ancestor with some weight).
fn map_zoom(src: &Explorer, dst_tree: &CallTree, dst_index: &TreeIndex, vp: &Viewport) -> Viewport {
    let (mut at, _) = twin(&src.profile.tree, vp.root, dst_tree);
    while dst_index.total(at) == 0 {
        match dst_tree.node(at).parent {
            Some(p) => at = p,
            None => break,
        }
    }
    Viewport::frame(dst_index, at)
}

impl Compare {
    /// The side where the driver's selected path does not exist, if any.
    pub(super) fn missing_side(&self) -> Option<Side> {
        let d = self.driver_side();
        let src = self.side(d);
        let Target::Frame(id) = src.selected else {
            return None;
        };
        let (_, exact) = twin(&src.profile.tree, id, &self.side(d.other()).profile.tree);
        (!exact).then_some(d.other())
    }

    /// Brings the other side in step with the driver: orientation, scroll, zoom and its
    /// history, selection and search, all matched by path.
    pub(super) fn follow(&mut self) {
        let d = self.driver_side();
        let (src, dst) = match d {
            Side::Before => (&self.before, &mut self.after),
            Side::After => (&self.after, &mut self.before),
        };
        dst.flame = src.flame;
        dst.scroll = src.scroll;
        dst.hover = None;
        let map = |vp: &Viewport| map_zoom(src, &dst.profile.tree, &dst.index, vp);
        let zoom = map(&src.zoom);
        let back: Vec<Viewport> = src.back.iter().map(map).collect();
        let forward: Vec<Viewport> = src.forward.iter().map(map).collect();
        dst.zoom = zoom;
        dst.back = back;
        dst.forward = forward;
        let (sel, _) = twin(
            &src.profile.tree,
            anchor(src, src.selected),
            &dst.profile.tree,
        );
        dst.selected = Target::Frame(sel);
        let s = &src.search;
        if dst.search.query != s.query || dst.search.ignore_case != s.ignore_case {
            dst.search.query.clone_from(&s.query);
            dst.search.ignore_case = s.ignore_case;
            dst.run_search();
        }
    }
}
