//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use ratatui::layout::Rect;

use crate::app::list;
use crate::profile::finder::{FinderHit, Narrowing};

/// Most candidates listed.
pub const LIMIT: usize = 500;

/// Query, ranked hits and selection.
#[derive(Debug, Clone, Default)]
pub struct FinderState {
    /// What was typed.
    pub query: String,
    /// Best first, at most [`LIMIT`].
    pub hits: Vec<FinderHit>,
    /// Selected hit.
    pub selected: usize,
    /// First hit shown.
    pub offset: usize,
    /// Functions that can be found (with any weight).
    pub candidates: usize,
    /// Total weight of each name (counted once per stack), indexed by `NameId`.
    pub weights: Vec<u64>,
    /// The previous query's matches, to narrow while typing.
    pub narrowing: Narrowing,
    /// How often the names were ranked: once per edit (a paste is one edit).
    pub runs: u64,
}

/// Where the popup goes over `graph` (the screen between header and footer): centred, at
/// most 100 × 22, with a margin once the screen is large enough to spare it (never smaller
/// on a larger screen).
pub fn popup_area(graph: Rect) -> Rect {
    let w = graph
        .width
        .saturating_sub(4)
        .max(graph.width.min(40))
        .min(100);
    let h = graph
        .height
        .saturating_sub(2)
        .max(graph.height.min(12))
        .min(22);
    Rect::new(
        graph.x + (graph.width - w) / 2,
        graph.y + (graph.height - h) / 2,
        w,
        h,
    )
}

/// Hits the popup over `graph` lists (borders and the input line take three rows).
pub fn list_rows(graph: Rect) -> usize {
    usize::from(popup_area(graph).height.saturating_sub(3))
}

impl FinderState {
    /// Moves the selection by `rows` (clamped).
    pub fn step(&mut self, rows: i32) {
        let by = isize::try_from(rows).unwrap_or(0);
        self.selected = list::step(self.selected, by, self.hits.len());
    }

    /// First or last hit.
    pub fn edge(&mut self, last: bool) {
        self.selected = list::edge(self.hits.len(), last);
    }

    /// Keeps the selection on screen in `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset = list::scroll(self.selected, self.offset, height);
    }
}
