//! Stage: application state — where compare mode puts things: the top line, the status
//! (a fixed number of lines, so panes do not jump), the search line and footer, and the
//! panes of the view — left and right from [`WIDE`] columns, else top and bottom, each a
//! title line (label, "not in …" note, the side's own header) over its graph.

use ratatui::layout::Rect;

use super::{Compare, CompareAreas, LABEL_WIDTH, NOTE_WIDTH, STATUS_LINES, Side, View, WIDE};
use crate::app::explorer::Areas;
use crate::app::{Mode, Size};

impl Compare {
    /// Computes the status lines and every area; returns each side's explorer areas.
    pub(super) fn place(&mut self, mode: Mode) -> [Areas; 2] {
        let Size {
            width: w,
            height: h,
        } = self.size;
        self.missing = self.missing_side();
        // A fixed height, so that panes do not jump (and lose the selection) as it changes.
        let status_h = STATUS_LINES.min((h / 3).max(2));
        self.status = self
            .status_tooltip()
            .lines(usize::from(w), usize::from(status_h));
        // The search line also carries messages (copied, not available while comparing).
        let ex = self.driver();
        let search_h =
            u16::from(mode == Mode::Search || ex.search.is_active() || ex.tools.message.is_some());
        let footer = Rect::new(0, h.saturating_sub(1), w, h.min(1));
        let search = Rect::new(0, footer.y.saturating_sub(search_h), w, search_h);
        let status = Rect::new(0, search.y.saturating_sub(status_h), w, status_h);
        let header = Rect::new(0, 0, w, h.min(1));
        let region = Rect::new(
            0,
            header.bottom(),
            w,
            status.y.saturating_sub(header.bottom()),
        );
        self.areas = CompareAreas {
            header,
            region,
            body: Rect::new(
                0,
                header.bottom(),
                w,
                footer.y.saturating_sub(header.bottom()),
            ),
            ..CompareAreas::default()
        };
        let mut panes = [Rect::default(); 2];
        match self.view {
            View::SideBySide if w >= WIDE => {
                let pw = (w - 1) / 2;
                panes = [
                    Rect::new(0, region.y, pw, region.height),
                    Rect::new(pw + 1, region.y, pw, region.height),
                ];
                self.areas.divider = Rect::new(pw, region.y, 1, region.height);
            }
            View::SideBySide => {
                // An odd row goes to the pane keys go to, rather than to nothing.
                let half = region.height / 2;
                let top = match self.driver_side() {
                    Side::Before => region.height - half,
                    Side::After => half,
                };
                panes = [
                    Rect::new(0, region.y, w, top),
                    Rect::new(0, region.y + top, w, region.height - top),
                ];
            }
            View::Differential => panes[self.driver_side().index()] = region,
            View::Table => self.areas.table = region,
        }
        let mut out = [Areas::default(); 2];
        for side in Side::BOTH {
            let i = side.index();
            out[i] = self.pane_areas(side, panes[i]);
        }
        let d = self.driver_side().index();
        out[d].status = status;
        out[d].search = search;
        out[d].footer = footer;
        out
    }

    /// A pane: a title line (label, note, the explorer's own header) over the graph.
    fn pane_areas(&mut self, side: Side, pane: Rect) -> Areas {
        let i = side.index();
        if pane.is_empty() {
            return Areas::default();
        }
        let title_h = pane.height.min(1);
        let label = Rect::new(pane.x, pane.y, LABEL_WIDTH.min(pane.width), title_h);
        let note_w = if self.missing == Some(side) && self.view == View::SideBySide {
            NOTE_WIDTH.min(pane.right() - label.right())
        } else {
            0
        };
        let note = Rect::new(label.right(), pane.y, note_w, title_h);
        self.areas.labels[i] = label;
        self.areas.notes[i] = note;
        Areas {
            header: Rect::new(note.right(), pane.y, pane.right() - note.right(), title_h),
            graph: Rect::new(pane.x, pane.y + title_h, pane.width, pane.height - title_h),
            ..Areas::default()
        }
    }
}

/// The areas of the driver `d` and of the other side, in that order.
pub(super) fn pick(areas: &[Areas; 2], d: Side) -> [Areas; 2] {
    [areas[d.index()], areas[d.other().index()]]
}
