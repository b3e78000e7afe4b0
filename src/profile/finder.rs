//! Stage: call tree → ranked function names. The fuzzy finder scores every distinct
//! name once with fuzzy-matcher's skim algorithm and keeps the matched character indices
//! for highlighting (as gitui's finder does).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::intern::NameId;
use super::tree::CallTree;

/// One ranked candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinderHit {
    /// The function.
    pub name: NameId,
    /// Skim score (higher is better).
    pub score: i64,
    /// Char indices of the name that matched the query.
    pub indices: Vec<usize>,
}

/// Ranks the names with a non-zero `weight` (indexed by `NameId`) against `query`:
/// best score first, then heavier, then alphabetical. An empty query lists every name,
/// heaviest first. At most `limit` hits are returned.
pub fn find(tree: &CallTree, weight: &[u64], query: &str, limit: usize) -> Vec<FinderHit> {
    let matcher = SkimMatcherV2::default().smart_case();
    let names = tree.names();
    let mut hits: Vec<(FinderHit, u64)> = names
        .iter()
        .filter(|(id, _)| weight.get(id.0 as usize).copied().unwrap_or(0) > 0)
        .filter_map(|(id, name)| {
            let w = weight[id.0 as usize];
            if query.is_empty() {
                return Some((
                    FinderHit {
                        name: id,
                        score: 0,
                        indices: Vec::new(),
                    },
                    w,
                ));
            }
            let (score, indices) = matcher.fuzzy_indices(name, query)?;
            Some((
                FinderHit {
                    name: id,
                    score,
                    indices,
                },
                w,
            ))
        })
        .collect();
    hits.sort_by(|(a, wa), (b, wb)| {
        b.score
            .cmp(&a.score)
            .then(wb.cmp(wa))
            .then_with(|| names.resolve(a.name).cmp(names.resolve(b.name)))
    });
    hits.truncate(limit);
    hits.into_iter().map(|(h, _)| h).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::functions::function_totals;

    #[test]
    fn ranks_by_score_and_weight() {
        let mut t = CallTree::new();
        t.insert(["main", "log_write_flush_to_disk_low", "fsync"], 31);
        t.insert(["main", "log_buffer_flush_to_disk"], 5);
        t.insert(["main", "JOIN::exec"], 64);
        t.finish();
        let w: Vec<u64> = function_totals(&t).iter().map(|f| f.total).collect();
        let hits = find(&t, &w, "lwfl", 10);
        assert_eq!(
            t.names().resolve(hits[0].name),
            "log_write_flush_to_disk_low"
        );
        assert_eq!(hits[0].indices.len(), 4);
        let all = find(&t, &w, "", 2);
        assert_eq!(t.names().resolve(all[0].name), "main");
        assert_eq!(t.names().resolve(all[1].name), "JOIN::exec");
        assert!(find(&t, &w, "zzzz", 10).is_empty());
        // The synthetic root is never a candidate.
        assert!(
            find(&t, &w, "all", 10)
                .iter()
                .all(|h| t.names().resolve(h.name) != "all")
        );
    }
}
