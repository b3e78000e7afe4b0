//! Stage: application state — the screens of the analysis tools in step with the explorer:
//! table and task rows and scroll, callers / callees panes, the mouse over them, and showing
//! a chosen function in the graph.

use super::explorer::Explorer;
use super::state::Screen;
use super::{Action, Mode};
use crate::profile::NameId;
use crate::view::Target;

/// Mouse in the table and the callers / callees view; ignored under the finder and the
/// prompt. True when the action was used here (the graph must not see it).
pub(crate) fn intercept(ex: &mut Explorer, mode: &mut Mode, action: &Action) -> bool {
    if !matches!(
        action,
        Action::Click(..)
            | Action::DoubleClick(..)
            | Action::Hover(..)
            | Action::Scroll(_)
            | Action::Drag(..)
            | Action::Release(..)
    ) {
        return false;
    }
    if matches!(*mode, Mode::Finder | Mode::Prompt) {
        return true;
    }
    let g = ex.areas.graph;
    match ex.tools.screen {
        Screen::Graph => false,
        Screen::Heat => {
            super::heat::mouse(ex, action);
            true
        }
        Screen::Tasks => {
            super::tasks::mouse(ex, action);
            true
        }
        Screen::Source => {
            if let (Action::Scroll(rows), Some(v)) = (action, ex.tools.source.as_mut()) {
                v.key(super::source::SourceKey::Step(*rows));
            }
            true
        }
        Screen::Table => {
            match *action {
                Action::Scroll(rows) => ex.tools.table.step(rows),
                Action::Click(_, y) | Action::DoubleClick(_, y) if y > g.y && y < g.bottom() => {
                    let t = &mut ex.tools.table;
                    t.selected =
                        (t.offset + usize::from(y - g.y - 1)).min(t.len().saturating_sub(1));
                    if matches!(action, Action::DoubleClick(..))
                        && let Some(name) = t.current()
                    {
                        ex.show_function(name);
                        *mode = Mode::Normal;
                    }
                }
                _ => {}
            }
            true
        }
        Screen::Sandwich => {
            if let (Action::Click(x, y) | Action::DoubleClick(x, y), Some(s)) =
                (action, ex.tools.sandwich.as_mut())
            {
                for (i, pane) in s.panes.iter_mut().enumerate() {
                    if let Some(t) = pane.hit(*x, *y) {
                        pane.selected = t;
                        s.focus = i;
                    }
                }
            }
            true
        }
    }
}

impl Explorer {
    /// Highlights every frame of function `name` (an exact-name search) and selects its
    /// heaviest frame, zooming if it is too narrow to see; back on the graph.
    pub(crate) fn show_function(&mut self, name: NameId) {
        // The search matches the names as shown.
        let text = self.shown(name).to_owned();
        self.search.query = format!("^{}$", regex::escape(&text));
        self.search.ignore_case = false;
        self.run_search();
        self.tools.enter(Screen::Graph);
        if let Some(id) = self.index.heaviest(name) {
            self.select(Target::Frame(id));
            self.reveal(id);
        }
    }

    /// Brings the tools' derived state in step before the screen is placed.
    pub(crate) fn sync_tools(&mut self) {
        match self.tools.screen {
            Screen::Table => self.sync_table(self.tools.generation),
            Screen::Tasks => {
                let original = std::sync::Arc::clone(self.original_shared());
                let range = self.tools.applied.slice.range;
                self.tools.tasks.sync(&original, range);
            }
            Screen::Graph | Screen::Sandwich | Screen::Heat | Screen::Source => {}
        }
    }

    /// Scrolls lists and lays out panes once the screen areas are known.
    pub(crate) fn place_tools(&mut self) {
        let g = self.areas.graph;
        match self.tools.screen {
            Screen::Table => self
                .tools
                .table
                .scroll_into_view(usize::from(g.height.saturating_sub(1))),
            Screen::Sandwich => self.place_sandwich(),
            Screen::Heat => self.place_heat(),
            Screen::Tasks => {
                let t = &mut self.tools.tasks;
                let rows = g.height.saturating_sub(t.chrome());
                t.place(usize::from(rows), self.tools.applied.group.describe());
            }
            Screen::Source => {
                if let Some(v) = self.tools.source.as_mut() {
                    // A title row above the lines.
                    v.height = usize::from(g.height.saturating_sub(1));
                    v.scroll_into_view();
                }
            }
            Screen::Graph => {}
        }
        let rows = super::finder::list_rows(self.areas.body());
        self.tools.finder.scroll_into_view(rows);
    }
}
