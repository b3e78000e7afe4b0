//! Stage: application state — the callers / callees view of one function (speedscope's
//! "sandwich"): two panes, each a call tree from `profile::sandwich` laid out with
//! `view::layout`. The callers pane is drawn root at the bottom (the function next to the
//! middle of the screen, its callers above); the callees pane root on top.

use ratatui::layout::Rect;

use super::Dir;
use super::explorer::Explorer;
use crate::profile::sandwich::{callees_below, callers_below};
use crate::profile::{CallTree, NameId, NodeId};
use crate::view::{FrameLayout, Target, TreeIndex, Viewport, layout};

/// One tree of the sandwich on screen.
#[derive(Debug, Clone)]
pub struct Pane {
    /// The merged tree (the function is the root's only child).
    pub tree: CallTree,
    /// Its offsets.
    pub index: TreeIndex,
    /// Cells of the visible rows.
    pub layout: FrameLayout,
    /// Root at the bottom of the pane.
    pub flame: bool,
    /// Where the pane is drawn (without its title row).
    pub area: Rect,
    /// Title row above the pane.
    pub title_area: Rect,
    /// Selected frame or group.
    pub selected: Target,
    /// The cell showing the selection, as (depth, index in row).
    pub selected_cell: Option<(u32, usize)>,
    /// Rows scrolled past, below depth 1 (the function).
    pub scroll: u32,
    /// Distinct stacks of the tree (call paths).
    pub paths: usize,
}

/// The callers and callees of one function.
#[derive(Debug, Clone)]
pub struct Sandwich {
    /// The function, in the explorer's tree.
    pub name: NameId,
    /// Callers (inverted) then callees.
    pub panes: [Pane; 2],
    /// Pane the keys go to.
    pub focus: usize,
}

impl Pane {
    fn new(tree: CallTree, flame: bool) -> Self {
        let index = TreeIndex::new(&tree);
        let vp = Viewport::whole(&index);
        let first = tree.first_child(NodeId::ROOT);
        let paths = tree
            .ids()
            .filter(|&id| id != NodeId::ROOT && tree.self_samples(id) > 0)
            .count();
        Self {
            paths,
            layout: layout(&tree, &index, &vp, 0, 0),
            index,
            tree,
            flame,
            area: Rect::default(),
            title_area: Rect::default(),
            selected: Target::Frame(first.unwrap_or(NodeId::ROOT)),
            selected_cell: None,
            scroll: 0,
        }
    }

    /// Lays the pane out over `area` (depth 0, the synthetic root, is not drawn).
    pub fn place(&mut self, title_area: Rect, area: Rect) {
        self.title_area = title_area;
        self.area = area;
        let h = u32::from(area.height).max(1);
        let depth = self.selected.depth(&self.index).max(1);
        if depth < self.scroll + 1 {
            self.scroll = depth - 1;
        } else if depth >= self.scroll + 1 + h {
            self.scroll = depth - h;
        }
        let vp = Viewport::whole(&self.index);
        let rows = self.scroll + h + 2;
        self.layout = layout(&self.tree, &self.index, &vp, area.width, rows);
        self.selected_cell = self.layout.locate(&self.index, &self.selected);
    }

    /// Screen row of a depth (≥ 1), if shown.
    pub fn screen_y(&self, depth: u32) -> Option<u16> {
        let off = depth.checked_sub(1 + self.scroll)?;
        let off = u16::try_from(off).ok().filter(|&o| o < self.area.height)?;
        Some(if self.flame {
            self.area.bottom() - 1 - off
        } else {
            self.area.y + off
        })
    }

    /// Moves the selection one step on screen.
    pub fn step(&mut self, dir: Dir) {
        let Some((depth, i)) = self.layout.locate(&self.index, &self.selected) else {
            return;
        };
        let row_cell = |d: u32, j: usize| self.layout.row(d)?.cells.get(j).map(|c| c.target(d));
        let column = self
            .layout
            .row(depth)
            .and_then(|r| r.cells.get(i))
            .map(|c| c.x0);
        let below = |d: u32| {
            let x = column?;
            let (_, c) = self.layout.cell_at(d, x)?;
            Some(c.target(d))
        };
        let deeper = matches!((dir, self.flame), (Dir::Up, true) | (Dir::Down, false));
        let next = match dir {
            Dir::Left => i.checked_sub(1).and_then(|j| row_cell(depth, j)),
            Dir::Right => row_cell(depth, i + 1),
            _ if deeper => match self.selected {
                Target::Frame(id) => self
                    .tree
                    .children(id)
                    .max_by_key(|&c| (self.tree.node(c).total, std::cmp::Reverse(c)))
                    .map(Target::Frame),
                Target::Span { .. } => below(depth + 1),
            },
            _ if depth > 1 => match self.selected {
                Target::Frame(id) => self.tree.node(id).parent.map(Target::Frame),
                Target::Span { .. } => below(depth - 1),
            },
            _ => None,
        };
        if let Some(t) = next {
            self.selected = t;
        }
    }

    /// The frame or group drawn at a screen position.
    pub fn hit(&self, x: u16, y: u16) -> Option<Target> {
        let a = self.area;
        if x < a.x || x >= a.right() || y < a.y || y >= a.bottom() {
            return None;
        }
        let off = if self.flame {
            a.bottom() - 1 - y
        } else {
            y - a.y
        };
        let depth = 1 + self.scroll + u32::from(off);
        let (_, cell) = self.layout.cell_at(depth, x - a.x)?;
        Some(cell.target(depth))
    }

    /// The selected frame's name, when one frame (not a group) is selected.
    pub fn selected_name(&self) -> Option<&str> {
        match self.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(self.tree.name(id)),
            _ => None,
        }
    }
}

impl Sandwich {
    /// The callers and callees of `name` in `tree` (indexed by `index`): the work is in
    /// the subtrees of the function's outermost frames, not the whole tree.
    pub fn new(tree: &CallTree, index: &TreeIndex, name: NameId) -> Self {
        Self::below(tree, name, &index.outermost(name).0)
    }

    /// As [`Sandwich::new`], given the function's outermost frames
    /// ([`TreeIndex::outermost`]).
    pub fn below(tree: &CallTree, name: NameId, outermost: &[NodeId]) -> Self {
        Self {
            name,
            panes: [
                Pane::new(callers_below(tree, name, outermost), true),
                Pane::new(callees_below(tree, name, outermost), false),
            ],
            focus: 0,
        }
    }

    /// The pane keys go to.
    pub fn focused(&mut self) -> &mut Pane {
        &mut self.panes[self.focus.min(1)]
    }
}

impl Explorer {
    /// Lays the panes out over the graph area: a title row and the callers above, a title
    /// row and the callees below. A pane whose tree is shallow gets only the rows it needs.
    pub(crate) fn place_sandwich(&mut self) {
        let g = self.areas.graph;
        let Some(s) = self.tools.sandwich.as_mut() else {
            return;
        };
        let body = g.height.saturating_sub(2);
        let need = |p: &Pane| u16::try_from(p.index.height(NodeId::ROOT)).unwrap_or(u16::MAX);
        let top = split(body, need(&s.panes[0]), need(&s.panes[1]));
        let row = |y: u16, h: u16| Rect::new(g.x, y, g.width, h);
        s.panes[0].place(row(g.y, g.height.min(1)), row(g.y + 1, top));
        let y = g.y + 1 + top;
        s.panes[1].place(row(y, 1.min(g.height)), row(y + 1, body - top));
    }
}

/// Rows of the callers pane out of `body`, when the panes need `up` and `down` rows.
fn split(body: u16, up: u16, down: u16) -> u16 {
    let half = body / 2;
    if up.saturating_add(down) <= body || down < half {
        body.saturating_sub(down.min(body))
    } else if up < half {
        up
    } else {
        half
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> CallTree {
        let mut t = CallTree::new();
        t.insert(["main", "commit", "fsync"], 6);
        t.insert(["main", "flush", "fsync", "io"], 3);
        t.insert(["main", "select"], 1);
        t.finish();
        t
    }

    #[test]
    fn shallow_panes_give_their_rows_away() {
        assert_eq!(split(20, 3, 2), 18);
        assert_eq!(split(20, 30, 2), 18);
        assert_eq!(split(20, 3, 30), 3);
        assert_eq!(split(20, 30, 30), 10);
        assert_eq!(split(0, 3, 3), 0);
    }

    #[test]
    fn panes_hold_callers_and_callees() {
        let t = seed();
        let mut s = Sandwich::new(&t, &TreeIndex::new(&t), t.names().lookup("fsync").unwrap());
        let [up, down] = &s.panes;
        assert_eq!(up.tree.total(), 9);
        assert_eq!(up.selected_name(), Some("fsync"));
        assert_eq!(down.selected_name(), Some("fsync"));
        s.panes[0].place(Rect::new(0, 0, 40, 1), Rect::new(0, 1, 40, 5));
        s.panes[1].place(Rect::new(0, 6, 40, 1), Rect::new(0, 7, 40, 5));
        // Callers pane: root at the bottom, so up is towards the callers.
        assert_eq!(s.panes[0].screen_y(1), Some(5));
        assert_eq!(s.panes[1].screen_y(1), Some(7));
        s.focused().step(Dir::Up);
        assert_eq!(s.panes[0].selected_name(), Some("commit"));
        s.focused().step(Dir::Right);
        assert_eq!(s.panes[0].selected_name(), Some("flush"));
        s.focused().step(Dir::Down);
        s.focused().step(Dir::Down);
        assert_eq!(s.panes[0].selected_name(), Some("fsync"));
        s.focus = 1;
        s.focused().step(Dir::Down);
        assert_eq!(s.panes[1].selected_name(), Some("io"));
    }
}
