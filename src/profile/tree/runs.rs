//! Runs: the sorted walk of one tree, or of the union of several trees' stacks (pieces
//! of one input), cut into consecutive runs of about a given number of samples, so that
//! the runs can be formatted in parallel and joined in order. A run is one node's own
//! stack or all the stacks below one node.

use super::ranks::{Rank, TextRanks};
use super::walk::{Entry, SortedWalk, entry_order};
use super::{CallTree, NodeId};
use crate::profile::intern::NameId;

impl CallTree {
    /// The sorted walk of [`CallTree::for_each_stack_sorted`] cut into consecutive runs,
    /// each holding about `samples_per_run` samples or less where the tree allows it (a
    /// run is one node's own stack or all the stacks below one node). Walking the runs in
    /// order with [`CallTree::for_each_stack_in`] gives exactly the stacks of the whole
    /// walk, in the same order, so that runs can be formatted in parallel.
    #[must_use]
    pub fn sorted_runs(&self, samples_per_run: u64) -> Vec<StackRun> {
        union_sorted_runs(&[self], None, samples_per_run)
            .into_iter()
            .filter_map(|u| u.runs.into_iter().next().flatten())
            .collect()
    }

    /// Calls `f(frames root first, self weight)` for the stacks of one run of
    /// [`CallTree::sorted_runs`], in their sorted order.
    pub fn for_each_stack_in(&self, run: &StackRun, mut f: impl FnMut(&[NameId], u64)) {
        let mut walk = self.walk_run(run);
        while let Some(weight) = walk.advance() {
            f(walk.path(), weight);
        }
    }

    /// The stacks of one run of [`CallTree::sorted_runs`] as a [`SortedWalk`], which
    /// holds one path and one family list per level: memory in the depth, not in the
    /// stacks.
    #[must_use]
    pub fn walk_run(&self, run: &StackRun) -> SortedWalk<'_> {
        self.walk_run_ranked(run, None)
    }

    /// [`CallTree::walk_run`], ordering families by `ranks` (this tree's in a
    /// [`TextRanks`]) when given: the same order.
    #[must_use]
    pub fn walk_run_ranked<'t>(
        &'t self,
        run: &StackRun,
        ranks: Option<&'t [Rank]>,
    ) -> SortedWalk<'t> {
        let mut path = Vec::with_capacity(run.prefix.len() + 1);
        path.extend_from_slice(&run.prefix);
        path.push(self.slots[run.node.index()].name);
        if run.below {
            SortedWalk::new(self, path, Some(run.node), None, ranks)
        } else {
            let (w, n) = self.self_counts(run.node);
            SortedWalk::new(self, path, None, (n > 0 || w > 0).then_some(w), ranks)
        }
    }

    /// A ranked walk of nothing, to be pointed at runs ([`SortedWalk::restart_run`]).
    #[must_use]
    pub fn idle_walk<'t>(&'t self, ranks: Option<&'t [Rank]>) -> SortedWalk<'t> {
        SortedWalk::new(self, Vec::new(), None, None, ranks)
    }

    /// The samples of a run of [`CallTree::sorted_runs`], or more (an estimate of its
    /// stacks: an own stack is counted with those below it).
    #[must_use]
    pub fn run_samples(&self, run: &StackRun) -> u64 {
        self.slots[run.node.index()].samples
    }
}

impl SortedWalk<'_> {
    /// Makes this walk [`CallTree::walk_run_ranked`]'s of `run` (of its tree), reusing
    /// its lists.
    pub fn restart_run(&mut self, run: &StackRun) {
        let tree = self.tree();
        let name = tree.slots[run.node.index()].name;
        if run.below {
            self.restart(&run.prefix, name, Some(run.node), None);
        } else {
            let (w, n) = tree.self_counts(run.node);
            self.restart(&run.prefix, name, None, (n > 0 || w > 0).then_some(w));
        }
    }
}

/// One piece of the sorted walk over a tree's stacks ([`CallTree::sorted_runs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackRun {
    /// The frames above `node`, root first (shared by the runs of one family).
    prefix: std::sync::Arc<[NameId]>,
    node: NodeId,
    /// All the stacks below `node` (else its own stack alone).
    below: bool,
}

/// One piece of the sorted walk over the union of several trees' stacks
/// ([`union_sorted_runs`]): each tree's run at the same path, where it has stacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionRun {
    /// By tree, in the order the trees were given.
    pub runs: Vec<Option<StackRun>>,
    /// The samples of the runs, or more (as [`CallTree::run_samples`]).
    pub samples: u64,
}

/// The sorted walks of `trees` (pieces of one input) cut into consecutive runs over the
/// union of their stacks, as [`CallTree::sorted_runs`] cuts one tree's: each family is
/// the union of the trees' families at its path, ordered by text (a frame of the same
/// text in several trees is one entry), and a run holds each tree's stacks below (or at)
/// one path. Walking every run's pieces and merging them by text gives the union's
/// stacks in order when texts sort as the walk does (no name holds a `;`, and no two
/// siblings have the same text); one tree's runs are always its walk's
/// ([`CallTree::sorted_runs`]).
///
/// The cut goes no deeper than [`MAX_CUT_DEPTH`] frames: the families below are one run
/// each, so that the runs' prefixes (shared by the runs of a family) weigh at most that
/// depth per family cut, whatever the tree's depth — a chain of 50,000 frames is cut at
/// that depth, not into 50,000 runs of growing prefixes (which was quadratic).
///
/// With `ranks` (of `trees`, in their order), frames are ordered by their ranks instead
/// of by comparing their texts: the same order.
#[must_use]
pub fn union_sorted_runs(
    trees: &[&CallTree],
    ranks: Option<&TextRanks>,
    samples_per_run: u64,
) -> Vec<UnionRun> {
    /// An entry of the union of some families: each tree's node, if it has one.
    struct Union {
        nodes: Vec<Option<NodeId>>,
        below: bool,
        samples: u64,
    }
    let entries = |nodes: &[Option<NodeId>]| -> Vec<Union> {
        let mut all: Vec<(usize, Entry)> = Vec::new();
        let mut v = Vec::new();
        for (t, (tree, node)) in trees.iter().zip(nodes).enumerate() {
            if let Some(node) = node {
                tree.entries_into(*node, &mut v, ranks.map(|r| r.of(t)));
                all.extend(v.iter().map(|&e| (t, e)));
            }
        }
        let ranked = ranks.is_some();
        let order = |a: &(usize, Entry), b: &(usize, Entry)| union_order(trees, ranked, a, b);
        all.sort_by(order);
        let mut out: Vec<Union> = Vec::new();
        for (i, &(t, e)) in all.iter().enumerate() {
            // Only different trees' entries join (siblings of one text stay apart).
            let joins = i > 0
                && order(&all[i - 1], &(t, e)) == std::cmp::Ordering::Equal
                && out.last().is_some_and(|u| u.nodes[t].is_none());
            if !joins {
                out.push(Union {
                    nodes: vec![None; trees.len()],
                    below: e.below,
                    samples: 0,
                });
            }
            if let Some(u) = out.last_mut() {
                u.nodes[t] = Some(e.node);
                u.samples = u
                    .samples
                    .saturating_add(trees[t].slots[e.node.index()].samples);
            }
        }
        out
    };
    let mut runs = Vec::new();
    let empty: std::sync::Arc<[NameId]> = std::sync::Arc::from(Vec::new());
    // (entries, next, each tree's frames above them)
    let mut todo = vec![(
        entries(&vec![Some(NodeId::ROOT); trees.len()]),
        0usize,
        vec![empty; trees.len()],
    )];
    loop {
        let level = todo.len();
        let Some((list, next, prefixes)) = todo.last_mut() else {
            break;
        };
        let Some(e) = list.get(*next) else {
            todo.pop();
            continue;
        };
        *next += 1;
        if e.below && e.samples > samples_per_run && level <= MAX_CUT_DEPTH {
            let deeper = prefixes
                .iter()
                .zip(&e.nodes)
                .zip(trees)
                .map(|((prefix, node), tree)| match node {
                    Some(n) => {
                        let mut p = prefix.to_vec();
                        p.push(tree.slots[n.index()].name);
                        std::sync::Arc::from(p)
                    }
                    None => prefix.clone(),
                })
                .collect();
            let below = entries(&e.nodes);
            todo.push((below, 0, deeper));
        } else {
            let pieces = e
                .nodes
                .iter()
                .zip(prefixes.iter())
                .map(|(node, prefix)| {
                    node.map(|node| StackRun {
                        prefix: prefix.clone(),
                        node,
                        below: e.below,
                    })
                })
                .collect();
            runs.push(UnionRun {
                runs: pieces,
                samples: e.samples,
            });
        }
    }
    runs
}

/// The order of two trees' entries in [`union_sorted_runs`]: by the ranks they were
/// listed with when `ranked`, else by their texts (the same order).
fn union_order(
    trees: &[&CallTree],
    ranked: bool,
    &(s, x): &(usize, Entry),
    &(t, y): &(usize, Entry),
) -> std::cmp::Ordering {
    if ranked {
        x.rank.cmp(&y.rank)
    } else {
        let text = |t: usize, e: Entry| {
            let name = trees[t].slots[e.node.index()].name;
            trees[t].names().resolve(name).as_bytes()
        };
        entry_order(text(s, x), x.below, text(t, y), y.below)
    }
}

/// How deep [`union_sorted_runs`] cuts the walk at most (frames).
pub const MAX_CUT_DEPTH: usize = 128;
