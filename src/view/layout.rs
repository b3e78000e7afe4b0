//! Stage: call tree + viewport → rows of cells in integer columns. Pure, and the home of
//! hit-testing (column → cell, frame → cell).
//!
//! Each frame covers the weight interval `[start, start + total)`. A viewport `[lo, hi)` is
//! stretched over `width` columns and a position maps to `(pos - lo) * width / (hi - lo)`,
//! rounded down: *cumulative rounding*. Neighbours share their boundary column, so bars never
//! leave gaps or overlap, and a parent's children stay inside it.
//!
//! A frame whose rounded span is empty (narrower than a column, or cut off by its parent's
//! drawn columns) is not dropped: it joins a [`Group`] cell of one column under its parent
//! with its narrow neighbours. The group takes that column from the frame that would have started there; a
//! frame left with no column joins the group too. The column stays a group in the rows below
//! while the members have descendants, so everything under it is reachable: select the group
//! and zoom into its interval. A group of one frame and nothing else is drawn as that frame.
//!
//! Work is proportional to the cells drawn plus the children of drawn frames: children
//! outside the viewport are skipped with a binary search, and the subtrees of grouped frames
//! are never visited.

use super::index::TreeIndex;
pub use super::viewport::{Target, Viewport};
use crate::profile::{CallTree, NodeId};

/// Frames narrower than a column, drawn as one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// Left edge of the frames' interval.
    pub lo: u64,
    /// Right edge (exclusive).
    pub hi: u64,
    /// Frames of this row counted into the group (0 when it only continues a group above).
    pub frames: u32,
    /// Depth of the deepest descendant of the frames.
    pub deepest: u32,
}

/// What a cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// One frame.
    Frame(NodeId),
    /// Several narrow frames.
    Group(Group),
}

/// A run of columns `[x0, x1)` in one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// First column.
    pub x0: u16,
    /// One past the last column.
    pub x1: u16,
    /// What is drawn there.
    pub kind: CellKind,
}

impl Cell {
    /// Number of columns.
    pub fn width(&self) -> u16 {
        self.x1.saturating_sub(self.x0)
    }

    /// What selecting this cell selects.
    pub fn target(&self, depth: u32) -> Target {
        match self.kind {
            CellKind::Frame(id) => Target::Frame(id),
            CellKind::Group(g) => Target::Span {
                depth,
                lo: g.lo,
                hi: g.hi,
            },
        }
    }

    /// Weight interval covered (not clamped to the viewport).
    pub fn interval(&self, index: &TreeIndex) -> (u64, u64) {
        match self.kind {
            CellKind::Frame(id) => (index.start(id), index.end(id)),
            CellKind::Group(g) => (g.lo, g.hi),
        }
    }

    fn deepest(&self, index: &TreeIndex) -> u32 {
        match self.kind {
            CellKind::Frame(id) => index.deepest(id),
            CellKind::Group(g) => g.deepest,
        }
    }
}

/// The cells of one depth, left to right.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    /// Depth (the root is 0).
    pub depth: u32,
    /// Cells sorted by column, never overlapping.
    pub cells: Vec<Cell>,
}

/// The laid-out graph: rows indexed by depth, from the root down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameLayout {
    /// Columns across.
    pub width: u16,
    /// What fills the width.
    pub viewport: Viewport,
    /// Rows `0..rows.len()`; only as many as were asked for.
    pub rows: Vec<Row>,
    /// Deepest depth that has something to draw (beyond the computed rows too).
    pub deepest: u32,
}

/// Lays out `viewport` over `width` columns, rows `0..max_rows` (fewer when the graph ends).
pub fn layout(
    tree: &CallTree,
    index: &TreeIndex,
    viewport: &Viewport,
    width: u16,
    max_rows: u32,
) -> FrameLayout {
    let mut out = FrameLayout {
        width,
        viewport: *viewport,
        rows: Vec::new(),
        deepest: 0,
    };
    if width == 0 || viewport.weight() == 0 || max_rows == 0 {
        return out;
    }
    out.push(
        Row {
            depth: 0,
            cells: vec![Cell {
                x0: 0,
                x1: width,
                kind: CellKind::Frame(NodeId::ROOT),
            }],
        },
        index,
    );
    extend(&mut out, tree, index, max_rows);
    out
}

/// Lays out more rows of `layout`, until it has `max_rows` (or the graph ends): what a
/// taller graph area or a scroll down needs, without laying out again the rows above,
/// whose cost can be the whole of it (a row of thousands of narrow frames).
pub fn extend(layout: &mut FrameLayout, tree: &CallTree, index: &TreeIndex, max_rows: u32) {
    let vp = layout.viewport;
    let geo = Geometry {
        tree,
        index,
        vp: &vp,
        width: layout.width,
    };
    while layout.rows.len() < max_rows as usize {
        let Some(next) = layout.rows.last().map(|row| geo.next_row(row)) else {
            return;
        };
        if next.cells.is_empty() {
            return;
        }
        layout.push(next, index);
    }
}

struct Geometry<'a> {
    tree: &'a CallTree,
    index: &'a TreeIndex,
    vp: &'a Viewport,
    width: u16,
}

impl Geometry<'_> {
    fn next_row(&self, prev: &Row) -> Row {
        let depth = prev.depth + 1;
        let mut b = RowBuilder {
            index: self.index,
            width: self.width,
            cells: Vec::new(),
            sole: Vec::new(),
        };
        for cell in &prev.cells {
            match cell.kind {
                CellKind::Group(g) if g.deepest >= depth => b.group(
                    cell.x0,
                    Part {
                        lo: g.lo,
                        hi: g.hi,
                        member: None,
                        deepest: g.deepest,
                    },
                ),
                CellKind::Group(_) => {}
                CellKind::Frame(p) => self.children(p, cell.x0, cell.x1, &mut b),
            }
        }
        Row {
            depth,
            cells: b.finish(),
        }
    }

    /// Lays out the children of frame `p`, drawn over columns `[p0, p1)`.
    fn children(&self, p: NodeId, p0: u16, p1: u16, b: &mut RowBuilder<'_>) {
        let (vp, index) = (self.vp, self.index);
        // Siblings are in layout order: skip those left of the viewport.
        let kids = self.tree.children(p).skip_while(|&c| index.end(c) <= vp.lo);
        for c in kids {
            let (s, e) = (index.start(c), index.end(c));
            if s >= vp.hi {
                break;
            }
            if e == s {
                continue;
            }
            let (s, e) = (s.max(vp.lo), e.min(vp.hi));
            let part = Part {
                lo: s,
                hi: e,
                member: Some(c),
                deepest: index.deepest(c),
            };
            let cx0 = vp.column(s, self.width);
            let (x0, x1) = (cx0.max(p0), vp.column(e, self.width).min(p1));
            if x0 >= x1 {
                // Kept under the parent: a group never floats below another frame.
                b.group(cx0.clamp(p0, p1.saturating_sub(1)), part);
            } else {
                b.frame(c, x0, x1, part);
            }
        }
    }
}

/// One frame (or a group continued from the row above) being placed.
#[derive(Clone, Copy)]
struct Part {
    lo: u64,
    hi: u64,
    member: Option<NodeId>,
    deepest: u32,
}

struct RowBuilder<'a> {
    index: &'a TreeIndex,
    width: u16,
    cells: Vec<Cell>,
    /// Per cell: the only frame of a group that holds nothing else.
    sole: Vec<Option<NodeId>>,
}

impl RowBuilder<'_> {
    fn frame(&mut self, id: NodeId, x0: u16, x1: u16, part: Part) {
        let x0 = self.cells.last().map_or(x0, |last| x0.max(last.x1));
        if x0 >= x1 {
            // Every column of the frame was taken by a group: it joins that group.
            self.group(x1.saturating_sub(1), part);
        } else {
            self.cells.push(Cell {
                x0,
                x1,
                kind: CellKind::Frame(id),
            });
            self.sole.push(None);
        }
    }

    fn group(&mut self, col: u16, part: Part) {
        let mut col = col;
        if let Some(last) = self.cells.last_mut()
            && last.x1 > col
        {
            match last.kind {
                CellKind::Group(_) => return self.merge_last(part),
                CellKind::Frame(_) if last.x0 < col => last.x1 = col,
                CellKind::Frame(id) => {
                    // A one-column frame gives its column up and becomes a group member.
                    let own = Part {
                        lo: self.index.start(id),
                        hi: self.index.end(id),
                        member: Some(id),
                        deepest: self.index.deepest(id),
                    };
                    last.kind = CellKind::Group(Group {
                        lo: own.lo,
                        hi: own.hi,
                        frames: 1,
                        deepest: own.deepest,
                    });
                    return self.merge_last(part);
                }
            }
            col = col.max(last.x1);
        }
        if col >= self.width {
            return;
        }
        self.cells.push(Cell {
            x0: col,
            x1: col + 1,
            kind: CellKind::Group(Group {
                lo: part.lo,
                hi: part.hi,
                frames: u32::from(part.member.is_some()),
                deepest: part.deepest,
            }),
        });
        self.sole.push(part.member);
    }

    fn merge_last(&mut self, part: Part) {
        if let Some(Cell {
            kind: CellKind::Group(g),
            ..
        }) = self.cells.last_mut()
        {
            g.lo = g.lo.min(part.lo);
            g.hi = g.hi.max(part.hi);
            g.frames += u32::from(part.member.is_some());
            g.deepest = g.deepest.max(part.deepest);
        }
        if let Some(s) = self.sole.last_mut() {
            *s = None;
        }
    }

    fn finish(self) -> Vec<Cell> {
        let mut cells = self.cells;
        for (cell, sole) in cells.iter_mut().zip(self.sole) {
            if let Some(id) = sole {
                cell.kind = CellKind::Frame(id);
            }
        }
        cells
    }
}

impl FrameLayout {
    /// Adds the next row; the deepest frame below it is the deepest of the graph (every
    /// path to it crosses every row above).
    fn push(&mut self, row: Row, index: &TreeIndex) {
        self.deepest = row
            .cells
            .iter()
            .map(|c| c.deepest(index))
            .max()
            .unwrap_or(row.depth);
        self.rows.push(row);
    }

    /// The row at `depth`, if it was laid out.
    pub fn row(&self, depth: u32) -> Option<&Row> {
        self.rows.get(depth as usize)
    }

    /// Rows the graph has at this zoom (laid out or not).
    pub fn total_rows(&self) -> u32 {
        if self.rows.is_empty() {
            0
        } else {
            self.deepest + 1
        }
    }

    /// Hit-testing: the cell at column `x` of row `depth`, with its index in the row.
    pub fn cell_at(&self, depth: u32, x: u16) -> Option<(usize, &Cell)> {
        let cells = &self.row(depth)?.cells;
        let i = cells.partition_point(|c| c.x1 <= x);
        cells.get(i).filter(|c| c.x0 <= x).map(|c| (i, c))
    }

    /// The cell showing `target`: its own frame cell, or the group it was merged into.
    pub fn locate(&self, index: &TreeIndex, target: &Target) -> Option<(u32, usize)> {
        let depth = target.depth(index);
        let (lo, hi) = target.interval(index);
        if !self.viewport.overlaps(lo, hi) {
            return None;
        }
        let pos = lo.max(self.viewport.lo);
        let cells = &self.row(depth)?.cells;
        let i = cells.partition_point(|c| c.interval(index).1 <= pos);
        let cell = cells.get(i)?;
        (cell.interval(index).0 <= pos).then_some((depth, i))
    }
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
