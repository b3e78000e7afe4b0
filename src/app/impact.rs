//! Stage: application state → status text. The impact estimate of a function: its share p
//! of all samples (stacks containing it, counted once) and the bound on the speed-up if that
//! cost went away, 1/(1-p) — the seed study's "1 - 12.93% = 87.07%" reasoning. For
//! SystemTap input with on- and off-CPU halves, p is taken within each half (their units
//! differ).

use super::explorer::Explorer;
use super::sandwich::Sandwich;
use super::tools::Screen;
use crate::input::stap::{OFF_CPU, ON_CPU};
use crate::profile::functions::FunctionTotals;
use crate::profile::sandwich::{Impact, impact};
use crate::profile::{CallTree, NameId, NodeId, Unit};
use crate::text::{percent, sanitize, thousands_str};
use crate::view::Target;
use crate::view::tooltip::{Tooltip, weight_text};

/// `×1.15`, `×12.3`, `×∞`.
pub fn speedup_text(i: &Impact) -> String {
    if !i.max_speedup.is_finite() {
        "×∞".to_owned()
    } else if i.max_speedup < 10.0 {
        format!("×{:.2}", i.max_speedup)
    } else {
        format!("×{:.1}", i.max_speedup)
    }
}

/// The impact line for function `name`: one share for the whole profile, or one per half.
pub fn impact_fact(tree: &CallTree, functions: &[FunctionTotals], name: NameId) -> String {
    let halves: Vec<(&str, NodeId)> = [("on-CPU", ON_CPU), ("off-CPU", OFF_CPU)]
        .into_iter()
        .filter_map(|(label, n)| Some((label, tree.child_named(NodeId::ROOT, n)?)))
        .collect();
    if halves.len() == 2 {
        let parts: Vec<String> = halves
            .into_iter()
            .map(|(label, half)| {
                let i = impact(tree, half, name);
                format!(
                    "{label} at most {} ({:.2}%)",
                    speedup_text(&i),
                    i.share * 100.0
                )
            })
            .collect();
        return format!("if removed: {}", parts.join(", "));
    }
    let whole = tree.total();
    let part = functions.get(name.0 as usize).map_or(0, |f| f.total);
    let share = if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    };
    let i = Impact {
        share,
        max_speedup: if share >= 1.0 {
            f64::INFINITY
        } else {
            1.0 / (1.0 - share)
        },
    };
    format!(
        "if removed: at most {} throughput (stacks with it: {:.2}%)",
        speedup_text(&i),
        share * 100.0
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
                let half = |id| {
                    self.profile.tree.node(id).parent == Some(NodeId::ROOT)
                        && [ON_CPU, OFF_CPU].contains(&self.profile.tree.name(id))
                };
                if let Target::Frame(id) = self.selected
                    && id != NodeId::ROOT
                    && !half(id)
                {
                    let name = self.profile.tree.node(id).name;
                    tip.facts
                        .push(impact_fact(&self.profile.tree, &self.functions, name));
                }
                tip
            }
            Screen::Table => match self.tools.table.current() {
                Some(name) => self.function_tip(name),
                None => Tooltip {
                    title: "No function matches the search".to_owned(),
                    facts: Vec::new(),
                },
            },
            Screen::Sandwich => match self.tools.sandwich.as_deref() {
                Some(s) => {
                    let mut tip = self.function_tip(s.name);
                    tip.facts.insert(0, pane_fact(s));
                    tip
                }
                None => self.describe(&self.selected),
            },
        }
    }

    /// Total, self and impact of one function.
    fn function_tip(&self, name: NameId) -> Tooltip {
        let p = &self.profile;
        let f = self
            .functions
            .get(name.0 as usize)
            .map_or((0, 0), |f| (f.total, f.self_weight));
        let whole = p.tree.total();
        let w = |v: u64| {
            if p.stats.unit == Unit::OnOffCpu {
                thousands_str(&p.format_weight(v))
            } else {
                weight_text(p, v, false)
            }
        };
        Tooltip {
            title: sanitize(p.tree.names().resolve(name)).into_owned(),
            facts: vec![
                format!("total {} ({:.2}%)", w(f.0), percent(f.0, whole)),
                format!("self {} ({:.2}%)", w(f.1), percent(f.1, whole)),
                impact_fact(&p.tree, &self.functions, name),
            ],
        }
    }
}

/// The selection in the focused pane: its share of the function's weight.
fn pane_fact(s: &Sandwich) -> String {
    let pane = &s.panes[s.focus.min(1)];
    let side = if s.focus == 0 { "caller" } else { "callee" };
    let root = pane.tree.total();
    match pane.selected {
        Target::Frame(id) if pane.tree.node(id).depth >= 2 => format!(
            "{side} {}: {:.2}% of its weight",
            sanitize(pane.tree.name(id)),
            percent(pane.tree.node(id).total, root)
        ),
        Target::Span { lo, hi, .. } => format!(
            "{side}s narrower than a column: {:.2}% of its weight",
            percent(hi - lo, root)
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
        let m = t.names().lookup("mysqld").unwrap();
        assert!(impact_fact(&t, &function_totals(&t), m).contains("×∞"));

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
    }

    #[test]
    fn speedups() {
        let i = |share: f64| Impact {
            share,
            max_speedup: 1.0 / (1.0 - share),
        };
        assert_eq!(speedup_text(&i(0.0)), "×1.00");
        assert_eq!(speedup_text(&i(0.95)), "×20.0");
    }
}
