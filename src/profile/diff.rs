//! Stage: two call trees → differences. Nodes are matched by stack *path* (names from
//! the root), never by id, so two profiles of different shape compare fairly; shares are
//! percentages of each profile's own total (of the half the path lies in, for on/off-CPU
//! SystemTap profiles, whose halves have different units), and changes are in percentage
//! points.

use rustc_hash::FxHashMap;

use super::functions::function_totals_in;
use super::scope::{is_half_name, is_halved, share_base};
use super::tree::{CallTree, NodeId};
use crate::text::{Points, Share, percent, share};

/// The names from the root's child down to `id`.
pub fn path_names(tree: &CallTree, id: NodeId) -> Vec<&str> {
    tree.path(id).into_iter().map(|n| tree.name(n)).collect()
}

/// The node at `path` in `tree`, if that stack exists there.
pub fn find_path<S: AsRef<str>>(tree: &CallTree, path: &[S]) -> Option<NodeId> {
    path.iter()
        .try_fold(NodeId::ROOT, |at, name| tree.child_named(at, name.as_ref()))
}

/// Weights and shares of one stack path in both profiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delta {
    /// Inclusive weight in BEFORE (0 when the path is absent there).
    pub before: u64,
    /// Inclusive weight in AFTER.
    pub after: u64,
    /// Self weight in BEFORE.
    pub before_self: u64,
    /// Self weight in AFTER.
    pub after_self: u64,
    /// Share of BEFORE's total (of its half, for on/off-CPU profiles).
    pub before_share: Share,
    /// Share of AFTER's total (likewise).
    pub after_share: Share,
    /// The totals `[before, after]` the shares are taken of.
    pub base: [u64; 2],
    /// Inclusive numbers of samples `[before, after]`, whatever their weight (0 when
    /// unknown).
    pub samples: [u64; 2],
    /// The numbers of samples `[before, after]` of the totals the shares are taken of.
    pub sample_base: [u64; 2],
}

impl Delta {
    /// Inclusive and self weights `[before, after]`, with shares of `base` (the total of
    /// each side the shares are taken of).
    pub fn of(total: [u64; 2], own: [u64; 2], base: [u64; 2]) -> Self {
        Self {
            before: total[0],
            after: total[1],
            before_self: own[0],
            after_self: own[1],
            before_share: share(total[0], base[0]),
            after_share: share(total[1], base[1]),
            base,
            samples: [0; 2],
            sample_base: [0; 2],
        }
    }

    /// The same delta, with the numbers of samples `samples` out of `base` on each side
    /// (the evidence [`super::significance`] weighs).
    #[must_use]
    pub fn with_samples(self, samples: [u64; 2], base: [u64; 2]) -> Self {
        Self {
            samples,
            sample_base: base,
            ..self
        }
    }

    /// Change of the share in percentage points (AFTER − BEFORE), as a float.
    pub fn points(&self) -> f64 {
        self.change().value()
    }

    /// Change of the share in percentage points, for display.
    pub fn change(&self) -> Points {
        Points {
            from: self.before_share,
            to: self.after_share,
        }
    }

    /// Relative change of the share (`None` when it was 0 before).
    pub fn relative(&self) -> Option<f64> {
        let (b, a) = (self.before_share.percent(), self.after_share.percent());
        (b > 0.0).then(|| a / b - 1.0)
    }
}

/// The node whose total a path's share is taken of in `tree`: the half it starts with in
/// an on/off-CPU tree (`None` when the tree lacks it), else the root.
fn path_scope<S: AsRef<str>>(tree: &CallTree, path: &[S]) -> Option<NodeId> {
    match path.first().map(AsRef::as_ref) {
        Some(first) if is_half_name(first) && is_halved(tree) => {
            tree.child_named(NodeId::ROOT, first)
        }
        _ => Some(NodeId::ROOT),
    }
}

/// The delta of one path (as names) between the two trees.
pub fn delta_at<S: AsRef<str>>(before: &CallTree, after: &CallTree, path: &[S]) -> Delta {
    // (total, self, samples) of the path and (total, samples) of its scope.
    let get = |t: &CallTree| {
        let at = find_path(t, path).map_or((0, 0, 0), |id| {
            let n = t.node(id);
            (n.total, t.self_weight(id), n.samples)
        });
        let scope = path_scope(t, path).map_or((0, 0), |s| (t.node(s).total, t.node(s).samples));
        (at, scope)
    };
    let ((b, bs, bn), (bb, bbn)) = get(before);
    let ((a, a_s, an), (ab, abn)) = get(after);
    Delta::of([b, a], [bs, a_s], [bb, ab]).with_samples([bn, an], [bbn, abn])
}

/// For every node of `shape`, the change of its share in percentage points against the
/// same path in `other` (`shape_is_after` says which side `shape` is). Indexed by `NodeId`.
pub fn points_by_node(shape: &CallTree, other: &CallTree, shape_is_after: bool) -> Vec<f64> {
    let mut map: Vec<Option<NodeId>> = vec![None; shape.len()];
    map[0] = Some(NodeId::ROOT);
    let mut out = vec![0.0; shape.len()];
    for id in shape.preorder().into_iter().skip(1) {
        let node = shape.node(id);
        let twin = node
            .parent
            .and_then(|p| map[p.0 as usize])
            .and_then(|p| other.child_named(p, shape.name(id)));
        map[id.0 as usize] = twin;
        let here = percent(node.total, share_base(shape, id));
        let there = twin.map_or(0.0, |t| percent(other.node(t).total, share_base(other, t)));
        out[id.0 as usize] = if shape_is_after {
            here - there
        } else {
            there - here
        };
    }
    out
}

/// A function's inclusive totals (counted once per stack) in both profiles.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDelta {
    /// Function name.
    pub name: String,
    /// The half (`[on-cpu]` / `[off-cpu]`) the totals are of, for on/off-CPU profiles: a
    /// function in both halves has a row in each, since their units differ.
    pub half: Option<&'static str>,
    /// Totals and shares (self fields are the function's self weights).
    pub delta: Delta,
}

impl FunctionDelta {
    /// The name as a row shows it: `name [off-cpu]` for a row of one half (the name
    /// first, so that a narrow column still shows it).
    pub fn label(&self) -> String {
        self.label_with(std::borrow::Cow::Borrowed)
    }

    /// As [`FunctionDelta::label`], with the name as `shown` spells it (the screen's
    /// style: demangled, shortened).
    pub fn label_with<'a>(
        &'a self,
        shown: impl FnOnce(&'a str) -> std::borrow::Cow<'a, str>,
    ) -> String {
        let name = shown(&self.name);
        match self.half {
            Some(h) => format!("{name} {h}"),
            None => name.into_owned(),
        }
    }
}

/// The scopes to total functions in: the halves when either tree has them, by name.
fn delta_scopes(before: &CallTree, after: &CallTree) -> Vec<Option<&'static str>> {
    if is_halved(before) || is_halved(after) {
        vec![Some(super::scope::ON_CPU), Some(super::scope::OFF_CPU)]
    } else {
        vec![None]
    }
}

/// Every function of either profile, sorted by the size of the change of its total share
/// (largest first, then by name). For on/off-CPU profiles the rows are per half.
pub fn function_deltas(before: &CallTree, after: &CallTree) -> Vec<FunctionDelta> {
    // (half, name) → [total, self, samples] of both sides
    type Sums = [[u64; 2]; 3];
    let mut by_name: FxHashMap<(Option<&'static str>, &str), Sums> = FxHashMap::default();
    // half → [total, samples] of both sides
    let mut bases: FxHashMap<Option<&'static str>, [[u64; 2]; 2]> = FxHashMap::default();
    for half in delta_scopes(before, after) {
        for (side, tree) in [before, after].into_iter().enumerate() {
            let scope = match half {
                Some(h) => tree.child_named(NodeId::ROOT, h),
                None => Some(NodeId::ROOT),
            };
            let Some(scope) = scope.filter(|_| half.is_none() || is_halved(tree)) else {
                continue;
            };
            let base = bases.entry(half).or_default();
            base[0][side] = tree.node(scope).total;
            base[1][side] = tree.node(scope).samples;
            for f in function_totals_in(tree, scope)
                .iter()
                .filter(|f| f.total > 0 || f.self_weight > 0)
            {
                let e = by_name
                    .entry((half, tree.names().resolve(f.name)))
                    .or_default();
                // Functions of one name in several libraries count as one here: the
                // other profile may name no libraries (folded text).
                e[0][side] = e[0][side].saturating_add(f.total);
                e[1][side] = e[1][side].saturating_add(f.self_weight);
                e[2][side] = e[2][side].saturating_add(f.samples);
            }
        }
    }
    let mut out: Vec<FunctionDelta> = by_name
        .into_iter()
        .map(|((half, name), [total, own, samples])| {
            let [base, sample_base] = bases.get(&half).copied().unwrap_or_default();
            FunctionDelta {
                name: name.to_owned(),
                half,
                delta: Delta::of(total, own, base).with_samples(samples, sample_base),
            }
        })
        .collect();
    out.sort_by(|x, y| {
        y.delta
            .points()
            .abs()
            .total_cmp(&x.delta.points().abs())
            .then_with(|| x.name.cmp(&y.name))
            .then_with(|| x.half.cmp(&y.half))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        CallTree::from_stacks(stacks)
    }

    #[test]
    fn deltas_by_path_in_percentage_points() {
        // b0e1 → b0e0: the redo flush disappears.
        let b0e1 = tree(&[
            ("mysqld;commit;log_write_flush_to_disk_low", 3123),
            ("mysqld;insert", 6877),
        ]);
        let b0e0 = tree(&[("mysqld;insert", 500)]);
        let d = delta_at(
            &b0e1,
            &b0e0,
            &["mysqld", "commit", "log_write_flush_to_disk_low"],
        );
        assert_eq!(d.before_share.to_string(), "31.23");
        assert_eq!((d.after, d.after_share), (0, share(0, 500)));
        assert!((d.points() + 31.23).abs() < 1e-9);
        assert!((d.relative().unwrap() + 1.0).abs() < 1e-9);
        let ins = delta_at(&b0e1, &b0e0, &["mysqld", "insert"]);
        assert!((ins.points() - 31.23).abs() < 1e-9);
        assert!(find_path(&b0e0, &["mysqld", "commit"]).is_none());
        let id = find_path(&b0e1, &["mysqld", "commit"]).unwrap();
        assert_eq!(path_names(&b0e1, id), ["mysqld", "commit"]);
    }

    #[test]
    fn points_by_node_follow_the_shape() {
        let before = tree(&[("a;b", 50), ("a;c", 50)]);
        let after = tree(&[("a;b", 75), ("a;d", 25)]);
        let pts = points_by_node(&after, &before, true);
        let b = find_path(&after, &["a", "b"]).unwrap();
        let d = find_path(&after, &["a", "d"]).unwrap();
        assert!((pts[b.0 as usize] - 25.0).abs() < 1e-9);
        assert!((pts[d.0 as usize] - 25.0).abs() < 1e-9);
        // Negated view: the shape of BEFORE shows what vanished.
        let neg = points_by_node(&before, &after, false);
        let c = find_path(&before, &["a", "c"]).unwrap();
        assert!((neg[c.0 as usize] + 50.0).abs() < 1e-9);
    }

    #[test]
    fn function_deltas_sorted_by_magnitude() {
        let before = tree(&[("m;f;f", 30), ("m;g", 70)]);
        let after = tree(&[("m;g", 100)]);
        let d = function_deltas(&before, &after);
        assert_eq!(d[0].name, "f");
        assert!((d[0].delta.points() + 30.0).abs() < 1e-9);
        assert_eq!(d[1].name, "g");
        assert_eq!(d.last().unwrap().name, "m");
    }
}
