//! Stage: call tree → ranked function names. The fuzzy finder scores every distinct
//! name once with the skim v2 algorithm ([`super::skim`], equal to the score fuzzy-matcher's
//! `SkimMatcherV2::fuzzy_indices` returns) and asks fuzzy-matcher for the matched character
//! indices of the hits it keeps, for highlighting (as gitui's finder does).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::intern::{NameId, NameSource};
use super::skim::Scorer;
use super::threads::{Job, spawn_or_run};
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
    find_narrowing(tree, weight, query, limit, &mut Narrowing::default())
}

/// What the recent queries matched, so that typing one more character re-scores only the
/// names the shorter query matched (whatever matches `log` also matches `lo`, with smart
/// case too, since a case-sensitive match is also a case-insensitive one), and erasing one
/// goes back to the matches of the query before.
#[derive(Debug, Clone, Default)]
pub struct Narrowing {
    /// (query, the names it matched), each query a prefix of the next.
    levels: Vec<(String, Vec<NameId>)>,
}

/// Queries remembered at most (a level holds up to one id per name).
const LEVELS: usize = 16;

/// As [`find`], remembering the matches in `memo` for the next, longer query.
pub fn find_narrowing(
    tree: &CallTree,
    weight: &[u64],
    query: &str,
    limit: usize,
    memo: &mut Narrowing,
) -> Vec<FinderHit> {
    find_in(tree.names(), weight, query, limit, memo)
}

/// As [`find_narrowing`], over any set of names (compare mode ranks the functions of both
/// profiles; the viewer ranks the names as shown).
pub fn find_in<N: NameSource>(
    names: &N,
    weight: &[u64],
    query: &str,
    limit: usize,
    memo: &mut Narrowing,
) -> Vec<FinderHit> {
    let heavy = |id: NameId| weight.get(id.0 as usize).copied().unwrap_or(0) > 0;
    // The longest remembered query that this one extends (or equals) gives the candidates.
    memo.levels
        .retain(|(q, _)| !q.is_empty() && query.starts_with(q.as_str()));
    let all: Vec<NameId>;
    let candidates: &[NameId] = if let Some((_, matched)) = memo.levels.last() {
        matched
    } else {
        all = (0..names.count())
            .map(|i| NameId(u32::try_from(i).unwrap_or(u32::MAX)))
            .filter(|&id| heavy(id))
            .collect();
        &all
    };
    // Score every candidate, rank, and compute the highlight indices only for the hits
    // that are kept.
    let score = |part: &[NameId]| -> Vec<(NameId, i64, u64)> {
        let mut scorer = Scorer::new(query);
        part.iter()
            .filter_map(|&id| {
                let score = scorer.score(names.text(id))?;
                Some((id, score, weight[id.0 as usize]))
            })
            .collect()
    };
    // Large lists are scored on all cores (in order, so the result does not change).
    let threads = super::worker_threads();
    let mut hits: Vec<(NameId, i64, u64)> = if candidates.len() < 20_000 || threads < 2 {
        score(candidates)
    } else {
        let per = candidates.len().div_ceil(threads);
        std::thread::scope(|s| {
            let parts: Vec<_> = candidates
                .chunks(per)
                .map(|c| spawn_or_run(s, move || score(c)))
                .collect();
            parts.into_iter().flat_map(Job::join).collect()
        })
    };
    if !query.is_empty() && memo.levels.last().is_none_or(|(q, _)| q != query) {
        if memo.levels.len() == LEVELS {
            memo.levels.remove(0);
        }
        memo.levels
            .push((query.to_owned(), hits.iter().map(|h| h.0).collect()));
    }
    let order = |a: &(NameId, i64, u64), b: &(NameId, i64, u64)| {
        b.1.cmp(&a.1)
            .then(b.2.cmp(&a.2))
            .then_with(|| names.text(a.0).cmp(names.text(b.0)))
    };
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    hits.into_iter()
        .map(|(name, score, _)| FinderHit {
            name,
            score,
            indices: if query.is_empty() {
                Vec::new()
            } else {
                // A new matcher for each: a reused one carries state between names.
                SkimMatcherV2::default()
                    .smart_case()
                    .fuzzy_indices(names.text(name), query)
                    .map(|(_, i)| i)
                    .unwrap_or_default()
            },
        })
        .collect()
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
        // Narrowing while typing gives what a fresh search gives.
        let mut memo = Narrowing::default();
        for q in [
            "l", "lo", "lw", "lwf", "lwfl", "lwf", "lw", "lwz", "lw", "J", "JO", "J", "", "x",
        ] {
            let narrowed = find_narrowing(&t, &w, q, 10, &mut memo);
            assert_eq!(narrowed, find(&t, &w, q, 10), "{q}");
        }
        // The synthetic root is never a candidate.
        assert!(
            find(&t, &w, "all", 10)
                .iter()
                .all(|h| t.names().resolve(h.name) != "all")
        );
    }
}
