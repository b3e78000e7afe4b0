//! Stage: application state — moving the selection, zooming, scrolling and jumping between
//! search matches. Moves work on the laid-out cells, so group cells are as reachable as
//! frames; a match hidden in a group is revealed by zooming.

use super::Dir;
use super::explorer::{Explorer, Hover};
use crate::profile::NodeId;
use crate::view::{CellKind, Target, Viewport, layout};

impl Explorer {
    /// Moves the selection one step on screen.
    pub(crate) fn move_selection(&mut self, dir: Dir) {
        self.ensure_visible(self.selected.depth(&self.index));
        self.relayout();
        let toward_root = matches!((dir, self.flame), (Dir::Up, false) | (Dir::Down, true));
        let next = match dir {
            Dir::Left => self.neighbour(-1),
            Dir::Right => self.neighbour(1),
            _ if toward_root => self.parent(),
            _ => self.child(),
        };
        if let Some(t) = next {
            self.select(t);
        }
    }

    /// Selects a target and scrolls to it.
    pub(crate) fn select(&mut self, target: Target) {
        self.selected = target;
        self.ensure_visible(target.depth(&self.index));
    }

    fn neighbour(&self, step: isize) -> Option<Target> {
        let (depth, i) = self.layout.locate(&self.index, &self.selected)?;
        let j = i.checked_add_signed(step)?;
        Some(self.layout.row(depth)?.cells.get(j)?.target(depth))
    }

    fn parent(&self) -> Option<Target> {
        match self.selected {
            Target::Frame(id) => self.profile.tree.node(id).parent.map(Target::Frame),
            Target::Span { depth, .. } => {
                let up = depth.checked_sub(1)?;
                let x = self.cell_column(depth)?;
                let (_, cell) = self.layout.cell_at(up, x)?;
                Some(cell.target(up))
            }
        }
    }

    fn child(&self) -> Option<Target> {
        match self.selected {
            Target::Frame(id) => {
                let vp = &self.zoom;
                let clipped = |c: NodeId| {
                    let (s, e) = (self.index.start(c), self.index.end(c));
                    e.min(vp.hi).saturating_sub(s.max(vp.lo))
                };
                let kids = self.profile.tree.children(id);
                let best = kids.filter(|&c| clipped(c) > 0).fold(
                    None,
                    |best: Option<NodeId>, c| match best {
                        Some(b) if clipped(b) >= clipped(c) => Some(b),
                        _ => Some(c),
                    },
                );
                best.map(Target::Frame)
            }
            Target::Span { depth, .. } => {
                let x = self.cell_column(depth)?;
                let (_, cell) = self.layout.cell_at(depth + 1, x)?;
                Some(cell.target(depth + 1))
            }
        }
    }

    /// First column of the selected cell, when it is in row `depth`.
    fn cell_column(&self, depth: u32) -> Option<u16> {
        let (d, i) = self.layout.locate(&self.index, &self.selected)?;
        (d == depth).then_some(())?;
        Some(self.layout.row(d)?.cells.get(i)?.x0)
    }

    /// Zooms into the selection.
    pub(crate) fn zoom_in(&mut self) {
        let vp = match self.selected {
            Target::Frame(id) => Viewport::frame(&self.index, id),
            Target::Span { depth, lo, hi } => {
                Viewport::span(&self.profile.tree, &self.index, depth, lo, hi)
            }
        };
        self.zoom_to(vp);
    }

    /// Zooms to a viewport, remembering the current one for back.
    pub(crate) fn zoom_to(&mut self, vp: Viewport) {
        if vp == self.zoom || vp.weight() == 0 {
            return;
        }
        self.back.push(self.zoom);
        self.forward.clear();
        self.show(vp);
    }

    /// Goes back to the previous zoom.
    pub(crate) fn back(&mut self) {
        if let Some(vp) = self.back.pop() {
            self.forward.push(self.zoom);
            self.show(vp);
        }
    }

    /// Undoes a back.
    pub(crate) fn forward(&mut self) {
        if let Some(vp) = self.forward.pop() {
            self.back.push(self.zoom);
            self.show(vp);
        }
    }

    /// Shows the whole graph.
    pub(crate) fn reset(&mut self) {
        self.zoom_to(Viewport::whole(&self.index));
    }

    /// Sets the zoom, scrolled so that a few ancestors stay visible above the zoomed frame.
    fn show(&mut self, vp: Viewport) {
        self.zoom = vp;
        let root_depth = self.index.depth(vp.root);
        self.scroll = root_depth.saturating_sub(self.graph_rows() / 3);
        let (lo, hi) = self.selected.interval(&self.index);
        if !vp.overlaps(lo, hi) {
            self.selected = Target::Frame(vp.root);
        }
        self.ensure_visible(self.selected.depth(&self.index));
        self.relayout();
    }

    /// Scrolls by rows on screen (negative is up).
    pub(crate) fn scroll_rows(&mut self, rows: i32) {
        let deeper = if self.flame { -rows } else { rows };
        self.scroll = self.scroll.saturating_add_signed(deeper);
        let max = self.layout.total_rows().saturating_sub(self.graph_rows());
        self.scroll = self.scroll.min(max);
        self.scrolled = true;
    }

    /// Scrolls a page up or down the screen.
    pub(crate) fn page(&mut self, down: bool) {
        let page = i32::try_from(self.graph_rows().saturating_sub(1).max(1)).unwrap_or(1);
        self.scroll_rows(if down { page } else { -page });
    }

    /// Scrolls to the top or bottom of the screen.
    pub(crate) fn scroll_edge(&mut self, top: bool) {
        self.scroll_rows(if top { i32::MIN / 2 } else { i32::MAX / 2 });
    }

    /// Selects the cell under the mouse.
    pub(crate) fn click(&mut self, x: u16, y: u16) -> bool {
        match self.hit(x, y) {
            Some(t) => {
                self.selected = t;
                true
            }
            None => false,
        }
    }

    /// Shows the tooltip of the cell under the mouse.
    pub(crate) fn hover_at(&mut self, x: u16, y: u16) {
        self.hover = self.hit(x, y).map(|target| Hover {
            x,
            y,
            tip: self.describe(&target),
            target,
        });
    }

    /// Selects the next (or previous) search match, zooming if it is hidden.
    pub(crate) fn jump(&mut self, forward: bool) {
        let Some(m) = self.search.matches.as_ref() else {
            return;
        };
        let (start, _) = self.selected.interval(&self.index);
        let depth = self.selected.depth(&self.index);
        let hit = if forward {
            m.next_after(&self.index, start, depth)
        } else {
            m.prev_before(&self.index, start, depth)
        };
        if let Some(hit) = hit {
            self.select(Target::Frame(hit.id));
            self.reveal(hit.id);
        }
    }

    /// Zooms, if needed, so that the frame is drawn as its own cell: the current zoom when
    /// it shows it, else the widest ancestor that does, else the frame itself.
    pub(crate) fn reveal(&mut self, id: NodeId) {
        let width = self.areas.graph.width;
        let (s, e) = (self.index.start(id), self.index.end(id));
        let inside = self.zoom.lo <= s && e <= self.zoom.hi;
        if inside && self.shows(&self.zoom, id) {
            self.ensure_visible(self.index.depth(id));
            return;
        }
        let floor = if inside {
            self.index.depth(self.zoom.root)
        } else {
            0
        };
        let mut path = vec![NodeId::ROOT];
        path.extend(self.profile.tree.path(id));
        let total = self.index.total(id);
        let vp = path
            .into_iter()
            .filter(|&a| self.index.depth(a) >= floor)
            .filter(|&a| {
                u128::from(total) * u128::from(width) >= 2 * u128::from(self.index.total(a))
            })
            .map(|a| Viewport::frame(&self.index, a))
            .find(|vp| self.shows(vp, id))
            .unwrap_or_else(|| Viewport::frame(&self.index, id));
        self.zoom_to(vp);
        self.ensure_visible(self.index.depth(id));
    }

    /// True when `id` gets a cell of its own, at least two columns wide, in viewport `vp`.
    fn shows(&self, vp: &Viewport, id: NodeId) -> bool {
        let depth = self.index.depth(id);
        let l = layout(
            &self.profile.tree,
            &self.index,
            vp,
            self.areas.graph.width,
            depth + 1,
        );
        l.locate(&self.index, &Target::Frame(id))
            .and_then(|(d, i)| l.row(d)?.cells.get(i).copied())
            .is_some_and(|c| c.kind == CellKind::Frame(id) && c.width() >= 2)
    }
}
