//! Stage: application state — the fuzzy finder while comparing. It ranks the functions of
//! both profiles (the delta table's rows, so a function that vanished or appeared is found
//! too) against the query, ties broken by the larger change; Enter shows the chosen one in
//! the graph as the delta table's Enter does, switching to the side that has it.

use super::Compare;
use crate::app::Mode;
use crate::app::action::ToolAction;
use crate::app::finder::state::{FinderState, LIMIT};
use crate::app::text_input::{self, Inserted};
use crate::profile::finder::find_in;
use crate::profile::{Interner, NameId, NameSource};

/// The finder's names and state; row `i` of the delta table is name `NameId(i)`.
#[derive(Debug, Clone, Default)]
pub struct CompareFinder {
    /// The delta table's function names, in row order.
    pub names: Interner,
    /// The same, as the screen shows them: what the query is matched against.
    pub shown: ShownLabels,
    /// Query, hits and selection (weights: the change of share, for ties).
    pub state: FinderState,
    /// The mode to go back to on Esc.
    back: Mode,
}

impl Compare {
    /// Opens the finder with an empty query (every function, largest change first).
    pub(crate) fn open_finder(&mut self, mode: &mut Mode) {
        let mut names = Interner::default();
        let mut shown = ShownLabels::default();
        let style = self.before.names.style();
        let mut weights = Vec::with_capacity(self.table.rows.len());
        for row in &self.table.rows {
            // The row's label, so that a function with a row in each half (on/off-CPU)
            // has two distinct candidates.
            names.intern(&row.label());
            shown
                .0
                .push(row.label_with(|n| style.apply(n)).into_boxed_str());
            // Hundredths of a point of change, plus one so that every row is a candidate.
            let points = row.delta.points().abs();
            #[allow(clippy::cast_sign_loss)] // an absolute value
            weights.push(1 + (points * 100.0).round() as u64);
        }
        let state = FinderState {
            candidates: weights.len(),
            weights,
            ..FinderState::default()
        };
        let mut f = CompareFinder {
            names,
            shown,
            state,
            back: *mode,
        };
        f.rank();
        self.finder = Some(f);
        *mode = Mode::Finder;
    }

    /// A key of the finder; `rows` is how many hits the popup shows.
    pub(crate) fn finder_key(&mut self, action: &ToolAction, mode: &mut Mode, rows: usize) {
        let Some(f) = self.finder.as_mut() else {
            *mode = Mode::Normal;
            return;
        };
        let page = i32::try_from(rows.max(1)).unwrap_or(1);
        let s = &mut f.state;
        let mut cut = None;
        match action {
            &ToolAction::Step(n) => s.step(n),
            &ToolAction::Page(down) => s.step(if down { page } else { -page }),
            &ToolAction::Edge(last) => s.edge(last),
            &ToolAction::Type(c) => {
                if text_input::type_char(&mut s.query, c) == Inserted::Cut {
                    cut = Some(false);
                } else {
                    f.rank();
                }
            }
            ToolAction::Paste(text) => {
                if text_input::paste(&mut s.query, text) == Inserted::Cut {
                    cut = Some(true);
                }
                f.rank();
            }
            ToolAction::Backspace => {
                s.query.pop();
                f.rank();
            }
            ToolAction::ClearLine => {
                s.query.clear();
                f.rank();
            }
            ToolAction::Close => {
                *mode = f.back;
                self.finder = None;
                return;
            }
            ToolAction::Accept => {
                let row = s.hits.get(s.selected).map(|h| h.name.0 as usize);
                let chosen = row
                    .and_then(|r| self.table.rows.get(r))
                    .map(|r| r.name.clone());
                if let Some(name) = chosen {
                    self.finder = None;
                    self.show_function(&name, mode);
                }
                return;
            }
            _ => {}
        }
        f.state.scroll_into_view(rows);
        self.driver_mut().tools.message =
            cut.map(|pasted| text_input::cut_message("Finder text", pasted));
    }
}

/// The finder's labels as shown, by row (`NameId(i)` is row `i`).
#[derive(Debug, Clone, Default)]
pub struct ShownLabels(pub Vec<Box<str>>);

impl NameSource for ShownLabels {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn text(&self, id: NameId) -> &str {
        self.0.get(id.0 as usize).map_or("", |s| s)
    }
}

impl CompareFinder {
    fn rank(&mut self) {
        let s = &mut self.state;
        s.hits = find_in(&self.shown, &s.weights, &s.query, LIMIT, &mut s.narrowing);
        s.selected = 0;
        s.offset = 0;
        s.runs += 1;
    }
}

/// Hits the popup over the compare region lists.
pub fn list_rows(cmp: &Compare) -> usize {
    crate::app::finder::state::list_rows(cmp.areas.body)
}
