//! Stage: application state — the fuzzy finder popup. Each keystroke ranks the distinct
//! function names once with `profile::finder::find` (skim algorithm); per-name weights are
//! computed once when the popup opens, so no key press walks the tree.

use crate::text::share;

use super::explorer::Explorer;
use crate::profile::finder::find_in;

pub use state::*;

pub(crate) mod keys;
pub mod state;

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
