//! Stage: application state — the callers / callees view of one function (speedscope's
//! "sandwich"): two panes, each a call tree from `profile::sandwich` laid out with
//! `view::layout`. The callers pane is drawn root at the bottom (the function next to the
//! middle of the screen, its callers above); the callees pane root on top.

use ratatui::layout::Rect;

use super::explorer::Explorer;
use crate::profile::NodeId;

pub use state::*;

pub(crate) mod keys;
pub mod state;

impl Explorer {
    /// Lays the panes out over the graph area: a title row and the callers above, a title
    /// row and the callees below. A pane whose tree is shallow gets only the rows it needs.
    pub(crate) fn place_sandwich(&mut self) {
        self.place_sandwich_in(self.areas.graph);
    }

    /// Lays the callers and callees panes out in `g` (the library's widget gives its own).
    pub(crate) fn place_sandwich_in(&mut self, g: Rect) {
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
    use crate::app::Dir;
    use crate::profile::CallTree;
    use crate::view::TreeIndex;

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
