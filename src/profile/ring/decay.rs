//! perf top's decay over the fine intervals: each refresh multiplies the past by 7/8, so
//! the interval of age `a` (0 the newest) weighs `(7/8)^a`. Weights are integers, so the
//! decayed tree has [`DECAY_DECIMALS`] more decimals than its intervals and each node's
//! own weight is its decayed sum, added up in `f64` and rounded once: within half a unit
//! of that scale while the sums stay below 2^53 units (about 9 × 10^15).

use super::{Interval, span_of_union};
use crate::profile::intern::NameId;
use crate::profile::samples::SampleTable;
use crate::profile::tree::{CallTree, NodeId};

/// What one refresh multiplies the weight of the past by (perf top's 7/8).
pub const DECAY: f64 = 0.875;

/// Decimals the decayed tree adds to its intervals' ([`CallTree::scale`]): fractions of
/// a weight down to a thousandth are kept.
pub const DECAY_DECIMALS: u32 = 3;

/// The decayed sum of `parts` (oldest first, the last of age 0): a finished tree whose
/// nodes are every node of the parts, with own weight `round(Σ own × 10^k × (7/8)^age)`
/// (`k` making up the difference to the result's scale) and their sample counts summed
/// unweighted; its sample table is empty. Lost samples and spans are summed as they are.
pub(super) fn decayed(parts: &[&Interval]) -> Interval {
    let scale = parts.iter().map(|p| p.tree.scale()).max().unwrap_or(0) + DECAY_DECIMALS;
    let mut tree = CallTree::with_scale(scale);
    // Own weights (unrounded) and own samples, by node of `tree`.
    let mut own: Vec<(f64, u64)> = vec![(0.0, 0)];
    let mut factor = 1.0;
    for (age, part) in parts.iter().rev().enumerate() {
        if age > 0 {
            factor *= DECAY;
        }
        let shift = 10f64.powi(i32::try_from(scale - part.tree.scale()).unwrap_or(i32::MAX));
        let from = &part.tree;
        let mut names: Vec<Option<NameId>> = vec![None; from.names().len()];
        let mut map = vec![NodeId::ROOT; from.len()];
        // Pre-order: a caller is mapped before its callees.
        for id in from.preorder() {
            let at = match from.parent(id) {
                None => NodeId::ROOT,
                Some(p) => {
                    let name = from.node(id).name;
                    let name = *names[name.0 as usize]
                        .get_or_insert_with(|| tree.names_mut().intern_like(from.names(), name));
                    tree.child_or_add(map[p.0 as usize], name)
                }
            };
            map[id.0 as usize] = at;
            if own.len() <= at.0 as usize {
                own.resize(at.0 as usize + 1, (0.0, 0));
            }
            let (w, n) = from.self_counts(id);
            let o = &mut own[at.0 as usize];
            o.0 += w as f64 * shift * factor;
            o.1 = o.1.saturating_add(n);
        }
        if from.saturated() {
            tree.mark_saturated();
        }
    }
    let rounded: Vec<(u64, u64)> = own.iter().map(|&(w, n)| (to_weight(w), n)).collect();
    tree.add_own_weights(&rounded);
    tree.finish();
    Interval {
        tree,
        samples: SampleTable::default(),
        lost: parts.iter().fold(0u64, |s, p| s.saturating_add(p.lost)),
        refreshes: u32::try_from(parts.len()).unwrap_or(u32::MAX),
        span: span_of_union(parts),
    }
}

/// A non-negative weight rounded to the nearest integer (`u64::MAX` past it: the tree
/// then clamps and marks the sums).
#[allow(clippy::cast_sign_loss)] // sums of non-negative weights; NaN cannot arise
fn to_weight(w: f64) -> u64 {
    // `as` saturates: past u64::MAX it gives u64::MAX.
    w.round().max(0.0) as u64
}
