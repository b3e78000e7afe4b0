//! The `--top` tables: the heaviest functions, or libraries, by self weight.

use std::fmt::Write as _;

use super::{Figures, figure, scopes, total_figure};
use crate::profile::functions::{function_totals_in, table_label, top_of};
use crate::profile::libraries::{library_label, library_totals_in};
use crate::profile::{NameId, NodeId, Profile};
use crate::text::{sanitize, share};

/// A `pprof -top` style table of the `n` heaviest functions by self weight (one table
/// per half for on/off-CPU profiles).
pub fn top_table(profile: &Profile, n: usize, figures: Figures) -> String {
    scopes(profile)
        .into_iter()
        .map(|(label, scope)| top_table_in(profile, scope, &label, n, figures))
        .collect::<Vec<_>>()
        .join("\n")
}

fn top_table_in(
    profile: &Profile,
    scope: NodeId,
    label: &str,
    n: usize,
    figures: Figures,
) -> String {
    let tree = &profile.tree;
    let names = tree.names();
    let totals = function_totals_in(tree, scope);
    let weighed = |id: NameId| totals.get(id.0 as usize).is_some_and(|f| f.total > 0);
    let top = top_of(tree, &totals, n);
    let labels: Vec<_> = top
        .iter()
        .map(|r| table_label(names, r.name, names.resolve(r.name), weighed))
        .collect();
    let rows: Vec<(u64, u64, &str)> = top
        .iter()
        .zip(&labels)
        .map(|(r, label)| (r.self_weight, r.total, &**label))
        .collect();
    let count = functions(rows.len());
    weight_table(profile, scope, (&count, "function"), label, &rows, figures)
}

/// A `--top` table: a title with `count` (`3 functions`), then the `(self, total, name)`
/// rows with their shares of `scope`, under a column named `what`.
fn weight_table(
    profile: &Profile,
    scope: NodeId,
    (count, what): (&str, &str),
    label: &str,
    rows: &[(u64, u64, &str)],
    figures: Figures,
) -> String {
    let tree = &profile.tree;
    let total = tree.node(scope).total;
    let w = |v: u64| figure(profile, v, figures);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Top {count} by self weight (total {})",
        total_figure(profile, total, label, figures)
    );
    let width = rows
        .iter()
        .map(|r| w(r.1).len())
        .chain([w(total).len(), 5])
        .max()
        .unwrap_or(5);
    let _ = writeln!(
        out,
        "{:>width$} {:>7} {:>width$} {:>7}  {what}",
        "self", "self%", "total", "total%"
    );
    for &(self_weight, all, name) in rows {
        let _ = writeln!(
            out,
            "{:>width$} {:>6.2}% {:>width$} {:>6.2}%  {}",
            w(self_weight),
            share(self_weight, total),
            w(all),
            share(all, total),
            sanitize(name),
        );
    }
    out
}

/// The `n` heaviest libraries (DSOs, modules) by self weight, as [`top_table`] does for
/// functions: self is the weight of the stacks whose leaf frame is in the library, total
/// of those with any frame there. Frames whose input named no library have their row.
pub fn top_libraries(profile: &Profile, n: usize, figures: Figures) -> String {
    scopes(profile)
        .into_iter()
        .map(|(label, scope)| top_libraries_in(profile, scope, &label, n, figures))
        .collect::<Vec<_>>()
        .join("\n")
}

fn top_libraries_in(
    profile: &Profile,
    scope: NodeId,
    label: &str,
    n: usize,
    figures: Figures,
) -> String {
    let tree = &profile.tree;
    let mut rows = library_totals_in(tree, scope);
    rows.truncate(n);
    let rows: Vec<(u64, u64, &str)> = rows
        .iter()
        .map(|r| (r.self_weight, r.total, library_label(tree, r.lib)))
        .collect();
    let count = if rows.len() == 1 {
        "1 library".to_owned()
    } else {
        format!("{} libraries", rows.len())
    };
    weight_table(profile, scope, (&count, "library"), label, &rows, figures)
}

/// `1 function`, `2 functions`: the count of a table's rows.
pub(super) fn functions(n: usize) -> String {
    if n == 1 {
        "1 function".to_owned()
    } else {
        format!("{n} functions")
    }
}
