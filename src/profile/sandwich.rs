//! Stage: call tree → call trees around one function (speedscope's "sandwich"): the
//! merged tree of its callees and the merged, inverted tree of its callers, over all its
//! occurrences, each stack counted once.

use super::intern::NameId;
use super::tree::{CallTree, NodeId};

/// Callees of `name`: every stack through it, cut at its outermost occurrence.
pub fn callees(tree: &CallTree, name: NameId) -> CallTree {
    callees_below(tree, name, &outermost(tree, name))
}

/// Callers of `name`, inverted: the function at the root, its callers below, from its
/// innermost occurrence towards the process root.
pub fn callers(tree: &CallTree, name: NameId) -> CallTree {
    callers_below(tree, name, &outermost(tree, name))
}

/// The frames of `name` with no caller of the same name (the root excluded), in pre-order:
/// every stack through the function goes through exactly one of them.
pub fn outermost(tree: &CallTree, name: NameId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut todo: Vec<NodeId> = Vec::new();
    tree.push_children_rev(NodeId::ROOT, &mut todo);
    while let Some(id) = todo.pop() {
        if tree.node(id).name == name {
            out.push(id);
        } else {
            tree.push_children_rev(id, &mut todo);
        }
    }
    out
}

/// As [`callees`], given the function's [`outermost`] frames: only the stacks below them
/// are visited, not the whole tree.
pub fn callees_below(tree: &CallTree, name: NameId, outermost: &[NodeId]) -> CallTree {
    collect(tree, outermost, |s| {
        let at = s.iter().position(|&n| n == name)?;
        Some(s[at..].to_vec())
    })
}

/// As [`callers`], given the function's [`outermost`] frames.
pub fn callers_below(tree: &CallTree, name: NameId, outermost: &[NodeId]) -> CallTree {
    collect(tree, outermost, |s| {
        let at = s.iter().rposition(|&n| n == name)?;
        Some(s[..=at].iter().rev().copied().collect())
    })
}

/// A tree of what `pick` makes of each stack below the `roots` (root first, each stack
/// whole from the tree's root), visited in pre-order as [`CallTree::for_each_stack`] does,
/// so that the result is the same tree, node for node.
fn collect(
    tree: &CallTree,
    roots: &[NodeId],
    mut pick: impl FnMut(&[NameId]) -> Option<Vec<NameId>>,
) -> CallTree {
    let mut out = tree.empty_like();
    let mut path: Vec<NameId> = Vec::new();
    for &top in roots {
        path.clear();
        path.extend(tree.path(top).iter().map(|&id| tree.node(id).name));
        path.pop();
        let mut todo: Vec<(NodeId, bool)> = vec![(top, false)];
        while let Some((id, leaving)) = todo.pop() {
            if leaving {
                path.pop();
                continue;
            }
            path.push(tree.node(id).name);
            todo.push((id, true));
            let (self_weight, self_samples) = tree.self_counts(id);
            if (self_samples > 0 || self_weight > 0)
                && let Some(frames) = pick(&path)
            {
                out.insert_ids_counted(frames, self_weight, self_samples);
            }
            let at = todo.len();
            todo.extend(tree.children(id).map(|c| (c, false)));
            todo[at..].reverse();
        }
    }
    out.finish();
    out
}

/// Weight of the stacks under `node` that contain `name`, each stack counted once.
pub fn total_under(tree: &CallTree, node: NodeId, name: NameId) -> u64 {
    let mut sum = 0u64;
    let mut todo = vec![node];
    while let Some(id) = todo.pop() {
        let n = tree.node(id);
        if n.name == name && id != NodeId::ROOT {
            sum = sum.saturating_add(n.total);
        } else {
            todo.extend(tree.children(id));
        }
    }
    sum
}

/// "If this cost were removed": the share `p` of the weight under `scope` in stacks that
/// contain the function, and the bound on the speed-up, 1/(1-p).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Impact {
    /// Weight of the stacks with the function.
    pub part: u64,
    /// Weight of the scope.
    pub whole: u64,
    /// Share of the scope's weight, 0..=1.
    pub share: f64,
    /// At most this many times the throughput (infinite when p = 1).
    pub max_speedup: f64,
}

/// The impact of removing `name` within the subtree at `scope`.
pub fn impact(tree: &CallTree, scope: NodeId, name: NameId) -> Impact {
    let whole = tree.node(scope).total;
    let part = total_under(tree, scope, name);
    let share = if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    };
    Impact {
        part,
        whole,
        share,
        max_speedup: if share >= 1.0 {
            f64::INFINITY
        } else {
            1.0 / (1.0 - share)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::folded_lines;

    fn seed() -> CallTree {
        let mut t = CallTree::new();
        t.insert(
            ["mysqld", "commit", "log_write_flush_to_disk_low", "fsync"],
            1293,
        );
        t.insert(
            [
                "mysqld",
                "other",
                "log_write_flush_to_disk_low",
                "log_write_flush_to_disk_low",
            ],
            0,
        );
        t.insert(["mysqld", "select", "JOIN::exec"], 8707);
        t.finish();
        t
    }

    #[test]
    fn sandwich_trees() {
        let t = seed();
        let f = t.names().lookup("log_write_flush_to_disk_low").unwrap();
        assert_eq!(
            folded_lines(&callees(&t, f)),
            [
                "log_write_flush_to_disk_low;fsync 1293",
                "log_write_flush_to_disk_low;log_write_flush_to_disk_low 0"
            ]
        );
        assert_eq!(
            folded_lines(&callers(&t, f)),
            [
                "log_write_flush_to_disk_low;commit;mysqld 1293",
                "log_write_flush_to_disk_low;log_write_flush_to_disk_low;other;mysqld 0"
            ]
        );
    }

    /// The definition: every stack of the tree, picked as `pick` says.
    fn by_every_stack(
        tree: &CallTree,
        mut pick: impl FnMut(&[NameId]) -> Option<Vec<NameId>>,
    ) -> CallTree {
        let mut out = tree.empty_like();
        tree.for_each_stack(|s, w, n| {
            if let Some(frames) = pick(s) {
                out.insert_ids_counted(frames, w, n);
            }
        });
        out.finish();
        out
    }

    fn same_tree(a: &CallTree, b: &CallTree) -> bool {
        a.len() == b.len()
            && a.ids().all(|id| {
                a.node(id) == b.node(id)
                    && a.children(id).eq(b.children(id))
                    && a.self_counts(id) == b.self_counts(id)
            })
    }

    proptest::proptest! {
        /// Visiting only the stacks below the outermost frames builds the tree that
        /// visiting every stack builds, node for node (ids included: ties between
        /// siblings are broken by id).
        #[test]
        fn below_the_outermost_frames_is_every_stack(
            stacks in proptest::collection::vec(
                (proptest::collection::vec(0u8..5, 0..7), 0u64..4), 1..40),
            f in 0u8..5,
        ) {
            let mut t = CallTree::new();
            for (frames, w) in &stacks {
                t.insert(frames.iter().map(|c| format!("f{c}")), *w);
            }
            t.finish();
            let Some(name) = t.names().lookup(&format!("f{f}")) else {
                return Ok(());
            };
            let callees_ref = by_every_stack(&t, |s| {
                let at = s.iter().position(|&n| n == name)?;
                Some(s[at..].to_vec())
            });
            let callers_ref = by_every_stack(&t, |s| {
                let at = s.iter().rposition(|&n| n == name)?;
                Some(s[..=at].iter().rev().copied().collect())
            });
            proptest::prop_assert!(same_tree(&callees(&t, name), &callees_ref));
            proptest::prop_assert!(same_tree(&callers(&t, name), &callers_ref));
        }
    }

    #[test]
    fn impact_is_the_seeds_reasoning() {
        // The seed: log_write_flush_to_disk_low takes 12.93%, so at most 1/(1-0.1293).
        let t = seed();
        let f = t.names().lookup("log_write_flush_to_disk_low").unwrap();
        let i = impact(&t, NodeId::ROOT, f);
        assert!((i.share - 0.1293).abs() < 1e-9);
        assert!((i.max_speedup - 1.0 / 0.8707).abs() < 1e-9);
    }
}
