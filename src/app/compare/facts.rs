//! Stage: application state — the facts compare mode shows about a frame (status line and
//! hover tooltip) or a function (delta table): weight and share in BEFORE and in AFTER, the
//! change in percentage points, the relative change, and self weights. Frames are matched by
//! path and their weights are inclusive (the whole subtree), so internal frames are right too.

use super::{Compare, Side, View};
use crate::profile::diff::{Delta, delta_at, find_path, path_names};
use crate::profile::{NodeId, Profile, Unit, significance};
use crate::text::{Share, share};
use crate::text::{sanitize, thousands_str};
use crate::view::Target;
use crate::view::delta::{points_text, relative_text};
use crate::view::tooltip::{Tooltip, weight_text};

/// Where the weights of one side lie: `Some(true)` under `[off-cpu]`, `Some(false)` not,
/// `None` unknown (a function's total may span both halves).
type OffCpu = Option<bool>;

/// A weight with its unit, or the bare number when the unit is not known (on- and off-CPU
/// weights of a function counted together).
fn amount(p: &Profile, weight: u64, offcpu: OffCpu) -> String {
    match offcpu {
        None if p.stats.unit == Unit::OnOffCpu => thousands_str(&p.format_weight(weight)),
        _ => weight_text(p, weight, offcpu.unwrap_or(false)),
    }
}

/// Nothing, with a unit: a time in the other side's unit (`0 ms` beside `147 ms`), else
/// as [`amount`] writes it (`0 samples`).
pub(super) fn zero_beside(p: &Profile, other: &str, offcpu: OffCpu) -> String {
    let unit = other.rsplit_once(' ').map(|(_, u)| u);
    match unit {
        Some(u) if p.stats.unit.is_time() && matches!(u, "s" | "ms" | "µs" | "ns") => {
            format!("0 {u}")
        }
        _ => amount(p, 0, offcpu),
    }
}

impl Compare {
    /// The facts shown in the status area: the selected frame, or the table's function.
    pub(super) fn status_tooltip(&self) -> Tooltip {
        if self.view == View::Table {
            return match self.table.current() {
                Some(row) => {
                    let present = |s: Side| {
                        let tree = &self.side(s).profile.tree;
                        tree.names().lookup(&row.name).is_some()
                    };
                    // A row of one half has that half's unit.
                    let unit = row.half.map(|h| h == crate::profile::scope::OFF_CPU);
                    let facts = self.facts(
                        &row.delta,
                        [present(Side::Before), present(Side::After)],
                        [unit, unit],
                        row.half,
                    );
                    Tooltip {
                        title: sanitize(&row.label()).into_owned(),
                        facts,
                    }
                }
                None => Tooltip {
                    title: "No function matches the filter".to_owned(),
                    facts: Vec::new(),
                },
            };
        }
        let d = self.driver_side();
        self.describe(d, &self.side(d).selected)
    }

    /// The two-sided facts of a target of one side's graph (a group of narrow frames gets
    /// that side's own description).
    pub fn describe(&self, side: Side, target: &Target) -> Tooltip {
        let Target::Frame(id) = *target else {
            return self.side(side).describe(target);
        };
        let tree = &self.side(side).profile.tree;
        let path = path_names(tree, id);
        let (b, a) = (&self.before.profile, &self.after.profile);
        let delta = delta_at(&b.tree, &a.tree, &path);
        let found = [find_path(&b.tree, &path), find_path(&a.tree, &path)];
        let offcpu = |ex: &crate::app::Explorer, node: Option<NodeId>| {
            // The mixed units of on- and off-CPU weights are summed at the root only.
            node.filter(|&n| n != NodeId::ROOT)
                .map(|n| ex.index.is_offcpu(ex.index.start(n), ex.index.end(n)))
        };
        let (ob, oa) = (
            offcpu(&self.before, found[0]),
            offcpu(&self.after, found[1]),
        );
        // A side without the path takes the other side's unit.
        let units = if id == NodeId::ROOT {
            [None, None]
        } else {
            [ob.or(oa).or(Some(false)), oa.or(ob).or(Some(false))]
        };
        let half = path
            .first()
            .copied()
            .filter(|&n| crate::profile::scope::is_half_name(n));
        let found_in = [found[0].is_some(), found[1].is_some()];
        let facts = self.facts(&delta, found_in, units, half);
        Tooltip {
            title: sanitize(self.side(side).shown_frame(id)).into_owned(),
            facts,
        }
    }

    /// `BEFORE w (p%)`, `AFTER w (p%)`, `Δ ±x pp` with its significance mark, `relative
    /// ±r%`, the samples the mark weighed and its p-value, self weights; a side without the
    /// frame or function says so. `half` is the on/off-CPU half the weights lie in, if any.
    fn facts(
        &self,
        d: &Delta,
        present: [bool; 2],
        offcpu: [OffCpu; 2],
        half: Option<&str>,
    ) -> Vec<String> {
        let (b, a) = (&self.before.profile, &self.after.profile);
        let (hits, totals) = significance::counts(
            d,
            [b, a].map(|p| significance::weights_count_samples(p, half)),
        );
        let verdict = significance::judge(hits, totals);
        let amounts = [
            amount(b, d.before, offcpu[0]),
            amount(a, d.after, offcpu[1]),
        ];
        let side = |s: Side, p: &Profile, pct: Share, i: usize| {
            if present[i] {
                format!("{} {} ({pct:.2}%)", s.label(), amounts[i])
            } else {
                // Its share is 0% by definition: the unit says more in the room.
                let zero = zero_beside(p, &amounts[1 - i], offcpu[i]);
                format!("{0} {zero}: not in {0}", s.label())
            }
        };
        // Self shares are of the same total as the inclusive ones (the half's, if any).
        let (sb, sa) = (
            share(d.before_self, d.before_share.whole),
            share(d.after_self, d.after_share.whole),
        );
        // The samples weighed, unless there was nothing to test (0% or 100% on both sides,
        // as the root): the header has the totals.
        let weighed = verdict
            .z
            .map(|_| significance::verdict_text(&verdict, hits, totals));
        [
            Some(side(Side::Before, b, d.before_share, 0)),
            Some(side(Side::After, a, d.after_share, 1)),
            Some(format!(
                "Δ {} {}",
                points_text(d.change()),
                verdict.evidence.mark()
            )),
            Some(format!("relative {}", relative_text(d.relative(), d.after))),
            weighed,
            Some(format!(
                "self {} → {} ({sb:.2}% → {sa:.2}%)",
                amount(b, d.before_self, offcpu[0]),
                amount(a, d.after_self, offcpu[1]),
            )),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}
