//! Stage: application state → status text. The impact estimate of a function: its share p
//! of all samples (stacks containing it, counted once) and the bound on the speed-up if that
//! cost went away, 1/(1-p) — the seed study's "1 - 12.93% = 87.07%" reasoning. For
//! SystemTap input with on- and off-CPU halves, p is taken within each half (their units
//! differ).

use super::explorer::Explorer;
use super::sandwich::Sandwich;
use super::state::Screen;
use crate::profile::functions::{FunctionTotals, table_label};
use crate::profile::sandwich::{Impact, impact};
use crate::profile::scope::{OFF_CPU, is_halved, scope_label, scope_of, unit_scopes};
use crate::profile::{CallTree, NameId, NodeId};
use crate::text::{sanitize, share};
use crate::view::Target;
use crate::view::tooltip::{Tooltip, weight_text};

/// Above this many times the throughput (a function on more than 90% of the stacks) the
/// bound says nothing: it grows without limit as the share nears 100% (98% gives ×50,
/// 99% ×100), and such a function is an entry point (`main`, a thread's start) that no
/// one removes. What is said instead is what it is: most of the samples.
pub const USEFUL_SPEEDUP: u64 = 10;

/// Whether the function is on more than `1 - 1/USEFUL_SPEEDUP` of the weight (counted
/// in integers: no rounding puts 90% over the line).
fn most(i: &Impact) -> bool {
    u128::from(i.part) * u128::from(USEFUL_SPEEDUP)
        > u128::from(i.whole) * u128::from(USEFUL_SPEEDUP - 1)
}

/// `×1.15`, `×10.0`; when every stack has the function, no factor (it would be infinite)
/// but what it means: `all of the samples`; above ×[`USEFUL_SPEEDUP`], `most of the
/// samples`.
pub fn speedup_text(i: &Impact) -> String {
    if i.part >= i.whole || !i.max_speedup.is_finite() {
        "all of the samples".to_owned()
    } else if most(i) {
        "most of the samples".to_owned()
    } else if i.max_speedup < 10.0 {
        format!("at most ×{:.2}", i.max_speedup)
    } else {
        format!("at most ×{:.1}", i.max_speedup)
    }
}

/// The impact line for function `name`: one share for the whole profile, or one per half.
pub fn impact_fact(tree: &CallTree, functions: &[FunctionTotals], name: NameId) -> String {
    if is_halved(tree) {
        let parts: Vec<String> = unit_scopes(tree)
            .into_iter()
            .map(|half| {
                let i = impact(tree, half, name);
                format!(
                    "{} {} ({:.2}%)",
                    scope_label(tree, half),
                    speedup_text(&i),
                    share(i.part, i.whole)
                )
            })
            .collect();
        return format!("if removed: {}", parts.join(", "));
    }
    let whole = tree.total();
    let part = functions.get(name.0 as usize).map_or(0, |f| f.total);
    let p = if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    };
    let i = Impact {
        part,
        whole,
        share: p,
        max_speedup: 1.0 / (1.0 - p),
    };
    let gain = if part >= whole {
        "every stack has it".to_owned()
    } else if most(&i) {
        // A bound of ×56 for a frame on 98% of the stacks is true but useless.
        "most of the profile has it".to_owned()
    } else {
        format!("{} throughput", speedup_text(&i))
    };
    format!(
        "if removed: {gain} (stacks with it: {:.2}%)",
        share(part, whole)
    )
}

impl Explorer {
    /// What the status area says: the selected frame (with its impact) on the graph, the
    /// selected function in the table, the function (and the selected caller or callee) in
    /// the callers / callees view.
    pub(crate) fn status_tip(&self) -> Tooltip {
        match self.tools.screen {
            Screen::Graph => {
                let mut tip = self.describe(&self.selected);
                // The on- / off-CPU halves are groups, not functions.
                let half = |id| scope_of(&self.profile.tree, id) == id;
                // Nor are processes and threads: their frames have no function totals.
                let task = |id| {
                    let tree = &self.profile.tree;
                    tree.names().is_task(tree.node(id).name)
                };
                if let Target::Frame(id) = self.selected
                    && id != NodeId::ROOT
                    && !half(id)
                    && !task(id)
                {
                    let name = self.profile.tree.node(id).name;
                    tip.facts
                        .push(impact_fact(&self.profile.tree, &self.functions, name));
                }
                tip
            }
            Screen::Table if self.tools.table.by_library => {
                let t = &self.tools.table;
                match t.current_library() {
                    Some(r) => {
                        let p = &self.profile;
                        let w = |v: u64| weight_text(p, v, t.scope_is_offcpu);
                        let name = crate::profile::libraries::library_label(&p.tree, r.lib);
                        Tooltip {
                            title: sanitize(name).into_owned(),
                            facts: vec![
                                format!(
                                    "total {} ({:.2}%)",
                                    w(r.total),
                                    share(r.total, t.scope_total)
                                ),
                                format!(
                                    "self {} ({:.2}%)",
                                    w(r.self_weight),
                                    share(r.self_weight, t.scope_total)
                                ),
                                if r.lib.is_some() {
                                    "Enter collapses its frames".to_owned()
                                } else {
                                    "frames whose input named no library".to_owned()
                                },
                            ],
                        }
                    }
                    None => Tooltip {
                        title: "This input names no libraries".to_owned(),
                        facts: Vec::new(),
                    },
                }
            }
            Screen::Table => match self.tools.table.rows.get(self.tools.table.selected) {
                Some(row) => {
                    self.function_tip(row.name, Some((*row, self.tools.table.scope_total)))
                }
                None => Tooltip {
                    title: "No function matches the search".to_owned(),
                    facts: Vec::new(),
                },
            },
            Screen::Tasks => super::tasks::status_tip(&self.tools.tasks, self.original()),
            Screen::Source => match self.tools.source.as_deref() {
                Some(v) => super::source::status_tip(v),
                None => self.describe(&self.selected),
            },
            Screen::Heat => {
                let samples = &self.original().samples;
                Tooltip {
                    title: format!(
                        "Heat map: {} samples over {:.3} s · a cell counts the samples taken in it",
                        samples.len(),
                        std::time::Duration::from_nanos(samples.duration()).as_secs_f64()
                    ),
                    facts: Vec::new(),
                }
            }
            Screen::Sandwich => match self.tools.sandwich.as_deref() {
                Some(s) => {
                    let mut tip = self.function_tip(s.name, None);
                    tip.facts.insert(0, pane_fact(s, self.names.style()));
                    tip
                }
                None => self.describe(&self.selected),
            },
        }
    }

    /// Total, self and impact of one function: of `scoped` (its totals in a scope, and the
    /// scope's weight) when given, else of the whole profile — per half for on/off-CPU
    /// input, whose units are never added.
    fn function_tip(&self, name: NameId, scoped: Option<(FunctionTotals, u64)>) -> Tooltip {
        let p = &self.profile;
        let mut facts = Vec::new();
        let mut totals = |f: FunctionTotals, whole: u64, offcpu: bool, label: &str| {
            let w = |v: u64| weight_text(p, v, offcpu);
            facts.push(format!(
                "{label}total {} ({:.2}%)",
                w(f.total),
                share(f.total, whole)
            ));
            facts.push(format!(
                "{label}self {} ({:.2}%)",
                w(f.self_weight),
                share(f.self_weight, whole)
            ));
        };
        let none = FunctionTotals {
            name,
            self_weight: 0,
            total: 0,
            samples: 0,
        };
        let at = |v: &[FunctionTotals]| v.get(name.0 as usize).copied().unwrap_or(none);
        match scoped {
            Some((f, whole)) => totals(f, whole, self.tools.table.scope_is_offcpu, ""),
            None if self.half_functions.is_empty() => {
                totals(at(&self.functions), p.tree.total(), false, "");
            }
            None => {
                for (h, functions) in &self.half_functions {
                    let label = format!("{}: ", scope_label(&p.tree, *h));
                    totals(
                        at(functions),
                        p.tree.node(*h).total,
                        p.tree.name(*h) == OFF_CPU,
                        &label,
                    );
                }
            }
        }
        facts.push(impact_fact(&p.tree, &self.functions, name));
        let weighed = |o: NameId| {
            self.functions
                .get(o.0 as usize)
                .is_some_and(|f| f.total > 0)
        };
        let title = table_label(p.tree.names(), name, self.shown(name), weighed);
        Tooltip {
            title: sanitize(&title).into_owned(),
            facts,
        }
    }
}

/// The selection in the focused pane: its share of the function's weight.
fn pane_fact(s: &Sandwich, names: crate::view::names::NameStyle) -> String {
    let pane = &s.panes[s.focus.min(1)];
    let side = if s.focus == 0 { "caller" } else { "callee" };
    let root = pane.tree.total();
    match pane.selected {
        Target::Frame(id) if pane.tree.depth(id) >= 2 => format!(
            "{side} {}: {:.2}% of its weight",
            sanitize(&names.apply(pane.tree.name(id))),
            share(pane.tree.node(id).total, root)
        ),
        Target::Span { lo, hi, .. } => format!(
            "{side}s narrower than a column: {:.2}% of its weight",
            share(hi - lo, root)
        ),
        Target::Frame(_) => format!(
            "{} · Tab: other pane · Enter: centre on the selected {side}",
            if s.focus == 0 {
                "callers above"
            } else {
                "callees below"
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::functions::function_totals;
    use crate::profile::scope::ON_CPU;

    #[test]
    fn one_share_or_one_per_half() {
        let mut t = CallTree::new();
        t.insert(["mysqld", "log_write_flush_to_disk_low", "fsync"], 1293);
        t.insert(["mysqld", "select"], 8707);
        t.finish();
        let f = t.names().lookup("log_write_flush_to_disk_low").unwrap();
        assert_eq!(
            impact_fact(&t, &function_totals(&t), f),
            "if removed: at most ×1.15 throughput (stacks with it: 12.93%)"
        );
        // On 98% of the stacks: no ×50 bound, the share says it.
        let mut most = CallTree::new();
        most.insert(["main", "run"], 98);
        most.insert(["other"], 2);
        most.finish();
        let run = most.names().lookup("run").unwrap();
        assert_eq!(
            impact_fact(&most, &function_totals(&most), run),
            "if removed: most of the profile has it (stacks with it: 98.00%)"
        );
        let m = t.names().lookup("mysqld").unwrap();
        assert_eq!(
            impact_fact(&t, &function_totals(&t), m),
            "if removed: every stack has it (stacks with it: 100.00%)"
        );

        let mut t = CallTree::new();
        t.insert([ON_CPU, "a", "f"], 1);
        t.insert([ON_CPU, "b"], 3);
        t.insert([OFF_CPU, "f"], 600);
        t.insert([OFF_CPU, "g"], 400);
        t.finish();
        let f = t.names().lookup("f").unwrap();
        assert_eq!(
            impact_fact(&t, &function_totals(&t), f),
            "if removed: on-CPU at most ×1.33 (25.00%), off-CPU at most ×2.50 (60.00%)"
        );
        let g = t.names().lookup("g").unwrap();
        assert_eq!(
            impact_fact(&t, &function_totals(&t), g),
            "if removed: on-CPU at most ×1.00 (0.00%), off-CPU at most ×1.67 (40.00%)"
        );
        let mut all = CallTree::new();
        all.insert([OFF_CPU, "g"], 4);
        all.finish();
        let g = all.names().lookup("g").unwrap();
        assert_eq!(
            impact_fact(&all, &function_totals(&all), g),
            "if removed: off-CPU all of the samples (100.00%)"
        );
    }

    #[test]
    fn speedups() {
        let i = |part: u64| Impact {
            part,
            whole: 100,
            share: part as f64 / 100.0,
            max_speedup: 100.0 / (100.0 - part as f64),
        };
        assert_eq!(speedup_text(&i(0)), "at most ×1.00");
        assert_eq!(speedup_text(&i(89)), "at most ×9.09");
        // The cap: ×10 is the last bound given, above it the share speaks.
        assert_eq!(speedup_text(&i(90)), "at most ×10.0");
        assert_eq!(speedup_text(&i(95)), "most of the samples");
        assert_eq!(speedup_text(&i(98)), "most of the samples");
        assert_eq!(speedup_text(&i(100)), "all of the samples");
    }
}
