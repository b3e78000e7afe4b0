//! Stage: application state — the delta table: every function of either profile, sorted by
//! the change of its total share (|Δ pp|, largest first), filtered by the search regex, with
//! a selected row and the first row on screen.

use ratatui::layout::Rect;
use regex::RegexBuilder;

use crate::app::list;
use crate::profile::diff::FunctionDelta;

/// Rows, filter, selection and scroll of the delta table.
#[derive(Debug, Clone, Default)]
pub struct DeltaTable {
    /// Every function, sorted by |Δ| (from `function_deltas`).
    pub rows: Vec<FunctionDelta>,
    /// Indices into `rows` of the rows shown (all, or those matching the search).
    pub shown: Vec<usize>,
    /// Position of the selected row in `shown`.
    pub selected: usize,
    /// Position in `shown` of the first row on screen.
    pub offset: usize,
    /// The filter applied last: query and case-insensitivity.
    applied: Option<(String, bool)>,
}

impl DeltaTable {
    /// All rows shown, the first selected.
    pub fn new(rows: Vec<FunctionDelta>) -> Self {
        Self {
            shown: (0..rows.len()).collect(),
            rows,
            ..Self::default()
        }
    }

    /// The selected row.
    pub fn current(&self) -> Option<&FunctionDelta> {
        self.shown
            .get(self.selected)
            .and_then(|&i| self.rows.get(i))
    }

    /// The rows on screen, `height` of them from the first one shown.
    pub fn visible(&self, height: usize) -> impl Iterator<Item = (usize, &FunctionDelta)> {
        self.shown
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(height)
            .filter_map(|(pos, &i)| Some((pos, self.rows.get(i)?)))
    }

    /// Keeps the rows whose name matches `query` (all of them when it is empty or not a
    /// valid regex; the search line tells the error). The selection stays on its function
    /// when it is still shown.
    pub fn filter(&mut self, query: &str, ignore_case: bool) {
        let key = (query.to_owned(), ignore_case);
        if self.applied.as_ref() == Some(&key) {
            return;
        }
        let keep = self.shown.get(self.selected).copied();
        let re = RegexBuilder::new(query)
            .case_insensitive(ignore_case)
            .build()
            .ok()
            .filter(|_| !query.is_empty());
        self.shown = match re {
            Some(re) => (0..self.rows.len())
                .filter(|&i| re.is_match(&self.rows[i].name))
                .collect(),
            None => (0..self.rows.len()).collect(),
        };
        self.selected = keep
            .and_then(|k| self.shown.iter().position(|&i| i == k))
            .unwrap_or(0);
        self.applied = Some(key);
    }

    /// Moves the selection by `by` rows, stopping at the ends.
    pub fn step(&mut self, by: isize) {
        self.selected = list::step(self.selected, by, self.shown.len());
    }

    /// Scrolls so that the selection is among the `rows` rows on screen.
    pub fn scroll_to_selection(&mut self, rows: usize) {
        let rows = rows.max(1);
        self.offset = list::scroll(self.selected, self.offset, rows);
        let max = self.shown.len().saturating_sub(rows);
        self.offset = self.offset.min(max);
    }

    /// Selects the row drawn at screen row `y` of a table drawn in `area` (a title row,
    /// then the rows); false when `y` is not on a row.
    pub fn click(&mut self, area: Rect, y: u16) -> bool {
        if y <= area.y || y >= area.bottom() {
            return false;
        }
        let pos = self.offset + usize::from(y - area.y - 1);
        if pos < self.shown.len() {
            self.selected = pos;
            true
        } else {
            false
        }
    }
}
