//! Stage: application state — the fuzzy finder popup. Each keystroke ranks the distinct
//! function names once with `profile::finder::find` (skim algorithm); per-name weights are
//! computed once when the popup opens, so no key press walks the tree.

use crate::text::share;
use ratatui::layout::Rect;

use super::explorer::Explorer;
use super::list;
use crate::profile::finder::{FinderHit, Narrowing, find_in};

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

impl Explorer {
    /// Opens the finder with an empty query (every function, heaviest first).
    pub(crate) fn open_finder(&mut self) {
        let weights: Vec<u64> = if self.half_functions.is_empty() {
            self.functions.iter().map(|f| f.total).collect()
        } else {
            // On/off-CPU: rank by the larger of the function's shares of each half (in
            // 1/10000 of a percent, plus one so that any presence counts), never by a sum
            // of two units.
            let tree = &self.profile.tree;
            (0..self.functions.len())
                .map(|i| {
                    self.half_functions
                        .iter()
                        .filter(|(_, f)| f[i].total > 0)
                        .map(|(h, f)| {
                            let s = share(f[i].total, tree.node(*h).total).scaled(4);
                            1 + u64::try_from(s).unwrap_or(u64::MAX)
                        })
                        .max()
                        .unwrap_or(0)
                })
                .collect()
        };
        let f = &mut self.tools.finder;
        f.candidates = weights.iter().filter(|&&w| w > 0).count();
        f.weights = weights;
        f.query.clear();
        self.run_finder();
    }

    /// Ranks the names against the query.
    pub(crate) fn run_finder(&mut self) {
        let f = &mut self.tools.finder;
        f.hits = find_in(
            &self.names.over(self.profile.tree.names()),
            &f.weights,
            &f.query,
            LIMIT,
            &mut f.narrowing,
        );
        f.selected = 0;
        f.offset = 0;
        f.runs += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::finder::FinderHit;
    use crate::profile::{CallTree, NameId, Profile};

    fn hit(i: u32) -> FinderHit {
        FinderHit {
            name: NameId(i),
            score: 0,
            indices: Vec::new(),
        }
    }

    #[test]
    fn moves_stay_in_range() {
        let mut f = FinderState {
            hits: (0..5).map(hit).collect(),
            ..FinderState::default()
        };
        f.step(-1);
        assert_eq!(f.selected, 0);
        f.step(3);
        f.scroll_into_view(2);
        assert_eq!((f.selected, f.offset), (3, 2));
        f.step(9);
        assert_eq!(f.selected, 4);
        f.edge(false);
        f.scroll_into_view(2);
        assert_eq!((f.selected, f.offset), (0, 0));
    }

    #[test]
    fn typing_narrows_and_ranks() {
        let mut t = CallTree::new();
        t.insert(["main", "log_write_flush_to_disk_low"], 3);
        t.insert(["main", "lock_wait"], 5);
        t.finish();
        let mut ex = Explorer::new(Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: std::sync::Arc::default(),
            source: "t".into(),
            tree: t,
            stats: crate::profile::Stats::default(),
        });
        ex.open_finder();
        assert_eq!(ex.tools.finder.candidates, 3);
        assert_eq!(ex.tools.finder.hits.len(), 3);
        ex.tools.finder.query.push_str("lwf");
        ex.run_finder();
        let hits = &ex.tools.finder.hits;
        assert_eq!(hits.len(), 1);
        assert_eq!(
            ex.profile.tree.names().resolve(hits[0].name),
            "log_write_flush_to_disk_low"
        );
    }
}
