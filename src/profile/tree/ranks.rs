//! Ranks of names in the order of the folded text, shared by several trees: the walks and
//! merges of [`super::union_sorted_runs`] and [`crate::export`] then order frames by
//! comparing two integers instead of two strings. Each name has two ranks: of its text
//! alone (a stack ending in it) and of its text followed by `;` (the stacks below it),
//! which is exactly how the walk orders a family ([`super::walk`]); a text has the same
//! ranks in every tree, so equal ranks mean equal texts.

use super::CallTree;
use crate::profile::intern::NameId;
use crate::profile::threads::{Job, spawn_or_run};

/// The two ranks of a name: `[alone, followed by ';']`.
pub type Rank = [u32; 2];

/// The (tree, name id) pairs of one text.
type Members = Vec<(usize, u32)>;

/// The ranks of the names of some trees, by tree and [`NameId`], and each text once, in
/// rank order, in one buffer: an export that writes every frame of every stack reads the
/// names there, side by side in the order the stacks come, rather than from each tree's
/// names, each allocated apart (on a system-wide recording of 30,000 names written 2.5
/// million times, half of the copying time was waiting for memory).
#[derive(Debug, Clone, Default)]
pub struct TextRanks {
    trees: Vec<Vec<Rank>>,
    /// The texts, in rank order.
    text: Vec<u8>,
    /// Where each text ends in `text`, by its rank alone (`[0]`); the end of the one
    /// before (or 0) where it starts. A `;` rank has no text: it ends where the text
    /// ranked before it ends.
    ends: Vec<usize>,
}

impl TextRanks {
    /// Ranks the names of `trees` (each tree's names sorted on a thread of its own, then
    /// merged). The ranks are those of the texts `name` and `name;` among all of them,
    /// sorted bytewise; no name may hold a `;`.
    #[must_use]
    pub fn new(trees: &[&CallTree]) -> Self {
        let sorted: Vec<Vec<u32>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = trees
                .iter()
                .map(|t| spawn_or_run(scope, move || sorted_ids(t)))
                .collect();
            jobs.into_iter().map(Job::join).collect()
        });
        let mut ranks: Vec<Vec<Rank>> = trees
            .iter()
            .map(|t| vec![[0, 0]; t.names().len()])
            .collect();
        let text = |t: usize, id: u32| trees[t].names().resolve(NameId(id)).as_bytes();
        // The k-way merge of the sorted lists: (text, tree) least first.
        let mut heads = std::collections::BinaryHeap::new();
        let mut next = vec![0usize; trees.len()];
        for (t, ids) in sorted.iter().enumerate() {
            if let Some(&id) = ids.first() {
                heads.push(std::cmp::Reverse((text(t, id), t)));
                next[t] = 1;
            }
        }
        // Texts whose `text;` rank is still to come, each a prefix of the one after it,
        // with the (tree, id) pairs of that text.
        let mut open: Vec<(&[u8], Members)> = Vec::new();
        let mut rank = 0u32;
        let mut text_all: Vec<u8> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        let close = |members: &[(usize, u32)],
                     rank: &mut u32,
                     ranks: &mut Vec<Vec<Rank>>,
                     ends: &mut Vec<usize>,
                     end: usize| {
            for &(t, id) in members {
                ranks[t][id as usize][1] = *rank;
            }
            *rank += 1;
            ends.push(end);
        };
        while let Some(std::cmp::Reverse((s, _))) = heads.peek().copied() {
            // Every (tree, id) of this text.
            let mut members = Vec::new();
            while let Some(&std::cmp::Reverse((u, t))) = heads.peek() {
                if u != s {
                    break;
                }
                heads.pop();
                members.push((t, sorted[t][next[t] - 1]));
                if let Some(&id) = sorted[t].get(next[t]) {
                    heads.push(std::cmp::Reverse((text(t, id), t)));
                    next[t] += 1;
                }
            }
            // `p;` sorts before `s` unless `s` goes on from `p` with a byte below `;`.
            while let Some((p, _)) = open.last() {
                if s.starts_with(p) && s.get(p.len()).is_some_and(|&b| b < b';') {
                    break;
                }
                if let Some((_, m)) = open.pop() {
                    close(&m, &mut rank, &mut ranks, &mut ends, text_all.len());
                }
            }
            for &(t, id) in &members {
                ranks[t][id as usize][0] = rank;
            }
            rank += 1;
            text_all.extend_from_slice(s);
            ends.push(text_all.len());
            open.push((s, members));
        }
        while let Some((_, m)) = open.pop() {
            close(&m, &mut rank, &mut ranks, &mut ends, text_all.len());
        }
        Self {
            trees: ranks,
            text: text_all,
            ends,
        }
    }

    /// The text of the name ranked `rank` alone (its `[0]`), as the trees hold it.
    #[must_use]
    pub fn text(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        let start = r.checked_sub(1).and_then(|b| self.ends.get(b)).copied();
        let end = self.ends.get(r).copied();
        self.text
            .get(start.unwrap_or(0)..end.unwrap_or(0))
            .unwrap_or_default()
    }

    /// The ranks of tree `t`'s names (in the order the trees were given), by [`NameId`].
    #[must_use]
    pub fn of(&self, t: usize) -> &[Rank] {
        self.trees.get(t).map_or(&[], Vec::as_slice)
    }
}

/// The name ids of `tree` in the bytewise order of their text.
fn sorted_ids(tree: &CallTree) -> Vec<u32> {
    let names = tree.names();
    let mut ids: Vec<u32> = (0..u32::try_from(names.len()).unwrap_or(u32::MAX)).collect();
    ids.sort_unstable_by(|&a, &b| {
        names
            .resolve(NameId(a))
            .as_bytes()
            .cmp(names.resolve(NameId(b)).as_bytes())
    });
    ids
}

/// The order of two paths (each with its tree's ranks) as their folded texts sort: at
/// the first frame where they differ, the frames' texts, each followed by `;` when its
/// path goes on; else the shorter path first.
pub fn path_order(a: &[NameId], ra: &[Rank], b: &[NameId], rb: &[Rank]) -> std::cmp::Ordering {
    let rank = |r: &[Rank], id: NameId, below: bool| r[id.0 as usize][usize::from(below)];
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if rank(ra, x, false) != rank(rb, y, false) {
            return rank(ra, x, i + 1 < a.len()).cmp(&rank(rb, y, i + 1 < b.len()));
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_the_text_order_of_names_and_names_followed_by_a_semicolon() {
        let a = CallTree::from_stacks(&[("x;x2", 1), ("x:y", 1), ("b", 1), ("x", 1)]);
        let b = CallTree::from_stacks(&[("x", 1), ("xa;x0", 1), ("a", 1)]);
        let ranks = TextRanks::new(&[&a, &b]);
        let mut keys: Vec<(String, u32)> = Vec::new();
        for (t, tree) in [&a, &b].into_iter().enumerate() {
            for (id, text) in tree.names().iter() {
                let r = ranks.of(t)[id.0 as usize];
                keys.push((text.to_owned(), r[0]));
                keys.push((format!("{text};"), r[1]));
                assert_eq!(ranks.text(r[0]), text.as_bytes());
                assert_eq!(ranks.text(r[1]), b"");
            }
        }
        let mut by_text = keys.clone();
        by_text.sort();
        by_text.dedup();
        let mut by_rank = keys;
        by_rank.sort_by_key(|k| k.1);
        by_rank.dedup();
        assert_eq!(by_rank, by_text);
        // One text, one rank, in every tree.
        let x = |t: &CallTree| t.names().lookup("x").map(|id| id.0 as usize);
        assert_eq!(
            ranks.of(0)[x(&a).unwrap_or(0)],
            ranks.of(1)[x(&b).unwrap_or(0)]
        );
    }
}
