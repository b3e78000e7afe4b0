//! Stage: call tree → per-function totals (the `--top` table and the TUI's function
//! table). A function's total counts each stack once, even when it recurses. Task frames
//! (perf script's process and thread roots) are not functions: they have no totals here,
//! so a process `rec` never adds to the function `rec` (`perf report --sort sym` agrees).

use std::borrow::Cow;

use super::intern::{Interner, NameId};
use super::tree::{CallTree, NodeId};

/// Totals for one distinct function name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionTotals {
    /// The function.
    pub name: NameId,
    /// Weight of samples whose leaf is this function.
    pub self_weight: u64,
    /// Weight of samples with this function anywhere on the stack (counted once).
    pub total: u64,
    /// Number of samples with this function anywhere on the stack (counted once), whatever
    /// their weight: the evidence a comparison's significance test counts.
    pub samples: u64,
}

/// How a table names function `id` shown as `shown`: marked ` (inlined)` when its frames
/// are inlined into their callers (it has no symbol of its own: perf writes
/// `mix (inlined)`), and with its library when another function of its text in another
/// library has weight (`weighed`), so that the kernel's `strlen` and ld.so's are told
/// apart: `strlen (ld-linux-x86-64.so.2)`, `mix (inlined in tiny)`.
pub fn table_label<'a>(
    names: &Interner,
    id: NameId,
    shown: &'a str,
    weighed: impl Fn(NameId) -> bool,
) -> Cow<'a, str> {
    let inlined = names.is_inlined(id);
    let lib = names.library(id);
    let shared = !names.is_task(id)
        && names
            .lookup_all(names.resolve(id))
            .any(|o| o != id && names.library(o) != lib && weighed(o));
    let lib = || lib.map_or("no library", |l| names.library_name(l));
    match (inlined, shared) {
        (false, false) => Cow::Borrowed(shown),
        (true, false) => Cow::Owned(format!("{shown} (inlined)")),
        (false, true) => Cow::Owned(format!("{shown} ({})", lib())),
        (true, true) => Cow::Owned(format!("{shown} (inlined in {})", lib())),
    }
}

/// Self and inclusive totals of every function in the tree (the root excluded),
/// indexed by `NameId`; names that only label the root, and task names, have zero totals.
pub fn function_totals(tree: &CallTree) -> Vec<FunctionTotals> {
    function_totals_in(tree, NodeId::ROOT)
}

/// As [`function_totals`], over the subtree below `scope` only (`scope` itself excluded).
pub fn function_totals_in(tree: &CallTree, scope: NodeId) -> Vec<FunctionTotals> {
    let n = tree.names().len();
    let mut out: Vec<FunctionTotals> = (0..n)
        .map(|i| FunctionTotals {
            name: NameId(u32::try_from(i).unwrap_or(u32::MAX)),
            self_weight: 0,
            total: 0,
            samples: 0,
        })
        .collect();
    let mut on_path = vec![0u32; n];
    let mut todo: Vec<(NodeId, bool)> = tree.children(scope).map(|c| (c, false)).collect();
    todo.reverse();
    while let Some((id, leaving)) = todo.pop() {
        let node = tree.node(id);
        let name = node.name.0 as usize;
        if leaving {
            on_path[name] -= 1;
            continue;
        }
        todo.push((id, true));
        let at = todo.len();
        todo.extend(tree.children(id).map(|c| (c, false)));
        todo[at..].reverse();
        on_path[name] += 1;
        if tree.names().is_task(node.name) {
            continue;
        }
        let f = &mut out[name];
        if on_path[name] == 1 {
            f.total = f.total.saturating_add(node.total);
            f.samples = f.samples.saturating_add(node.samples);
        }
        f.self_weight = f.self_weight.saturating_add(tree.self_weight(id));
    }
    out
}

/// The `n` heaviest functions by self weight (then total, then name), like `pprof -top`.
pub fn top_functions(tree: &CallTree, n: usize) -> Vec<FunctionTotals> {
    top_functions_in(tree, NodeId::ROOT, n)
}

/// As [`top_functions`], below `scope`.
pub fn top_functions_in(tree: &CallTree, scope: NodeId, n: usize) -> Vec<FunctionTotals> {
    top_of(tree, &function_totals_in(tree, scope), n)
}

/// The `n` heaviest of `totals` (of `tree`), ordered as [`top_functions_in`] orders them.
pub fn top_of(tree: &CallTree, totals: &[FunctionTotals], n: usize) -> Vec<FunctionTotals> {
    let mut all: Vec<FunctionTotals> = totals
        .iter()
        .copied()
        .filter(|f| f.total > 0 || f.self_weight > 0)
        .collect();
    all.sort_by(|a, b| {
        b.self_weight
            .cmp(&a.self_weight)
            .then(b.total.cmp(&a.total))
            .then_with(|| {
                tree.names()
                    .resolve(a.name)
                    .cmp(tree.names().resolve(b.name))
            })
    });
    all.truncate(n);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursion_counted_once() {
        let mut t = CallTree::new();
        t.insert(["main", "f", "f", "f", "g"], 4);
        t.insert(["main", "f", "h"], 6);
        t.insert(["main"], 1);
        t.finish();
        let totals = function_totals(&t);
        let get = |s: &str| totals[t.names().lookup(s).unwrap().0 as usize];
        assert_eq!(get("f").total, 10);
        assert_eq!(get("f").self_weight, 0);
        assert_eq!(get("main").total, 11);
        assert_eq!(get("main").self_weight, 1);
        assert_eq!(get("g").self_weight, 4);
        let top = top_functions(&t, 2);
        assert_eq!(t.names().resolve(top[0].name), "h");
        assert_eq!(t.names().resolve(top[1].name), "g");
    }

    #[test]
    fn a_process_is_not_the_function_of_the_same_name() {
        let mut t = CallTree::new();
        for (stack, w) in [(&["main", "rec", "rec"][..], 32), (&["main", "other"], 22)] {
            let task = t.intern_task("rec");
            let ids: Vec<_> = stack.iter().map(|f| t.intern(f)).collect();
            t.insert_ids(std::iter::once(task).chain(ids), w);
        }
        let task = t.intern_task("rec");
        t.insert_ids([task], 5); // a sample with no stack
        t.finish();
        let totals = function_totals(&t);
        let rec = t.names().lookup("rec").unwrap();
        assert!(!t.names().is_task(rec));
        assert_eq!(
            (
                totals[rec.0 as usize].total,
                totals[rec.0 as usize].self_weight
            ),
            (32, 32)
        );
        assert_eq!(totals[task.0 as usize].total, 0);
        let top: Vec<&str> = top_functions(&t, 9)
            .iter()
            .map(|f| t.names().resolve(f.name))
            .collect();
        assert_eq!(top, ["rec", "other", "main"]);
    }

    #[test]
    fn same_name_in_sibling_branches_adds_up() {
        let mut t = CallTree::new();
        t.insert(["a", "x"], 2);
        t.insert(["b", "x"], 3);
        t.insert(["b", "x", "x"], 5);
        t.finish();
        let totals = function_totals(&t);
        let x = totals[t.names().lookup("x").unwrap().0 as usize];
        assert_eq!((x.total, x.self_weight), (10, 10));
    }
}
