//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use ratatui::layout::Rect;

use crate::app::mode::Dir;
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
