//! Stage: call tree → call trees around one function (speedscope's "sandwich"): the
//! merged tree of its callees and the merged, inverted tree of its callers, over all its
//! occurrences, each stack counted once.

use super::intern::NameId;
use super::tree::{CallTree, NodeId};

/// Callees of `name`: every stack through it, cut at its outermost occurrence.
pub fn callees(tree: &CallTree, name: NameId) -> CallTree {
    collect(tree, |s| {
        let at = s.iter().position(|&n| n == name)?;
        Some(s[at..].to_vec())
    })
}

/// Callers of `name`, inverted: the function at the root, its callers below, from its
/// innermost occurrence towards the process root.
pub fn callers(tree: &CallTree, name: NameId) -> CallTree {
    collect(tree, |s| {
        let at = s.iter().rposition(|&n| n == name)?;
        Some(s[..=at].iter().rev().copied().collect())
    })
}

fn collect(tree: &CallTree, mut pick: impl FnMut(&[NameId]) -> Option<Vec<NameId>>) -> CallTree {
    let mut out = tree.empty_like();
    tree.for_each_stack(|s, w, n| {
        if let Some(frames) = pick(s) {
            out.insert_ids_counted(frames, w, n);
        }
    });
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
