//! Stage: call tree → library totals. "How much of this is LLVM and how much the
//! program's own code?": every function name carries the library (DSO, module) its input
//! named ([`Interner::library`](super::Interner::library)), and a library's totals follow
//! the function table's rules — self is the weight of the stacks whose leaf frame lives
//! there, total the weight of the stacks with any frame there, counted once per stack.

use super::{CallTree, LibId, NodeId};

/// One row of the library table. `lib` is `None` for frames whose input named no library
/// (folded stacks, `[unknown]` DSOs) and for samples with no frame below their task
/// (process, thread) frame; task frames themselves are in no library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryTotals {
    /// The library, or `None` for frames without one.
    pub lib: Option<LibId>,
    /// Weight of the stacks whose leaf frame is in this library.
    pub self_weight: u64,
    /// Weight of the stacks with at least one frame in this library.
    pub total: u64,
}

/// The totals of every library below `scope` (`scope` itself excluded), heaviest self
/// weight first, then total, then name; libraries without weight are left out. The row
/// for frames without a library comes where its weight puts it.
pub fn library_totals_in(tree: &CallTree, scope: NodeId) -> Vec<LibraryTotals> {
    let names = tree.names();
    let n = names.library_count() + 1;
    // Slot `n - 1` is "no library".
    let slot = |id: NodeId| -> Option<usize> {
        let name = tree.node(id).name;
        if names.is_task(name) {
            return None;
        }
        Some(names.library(name).map_or(n - 1, |l| l.0 as usize))
    };
    let mut self_w = vec![0u64; n];
    let mut total = vec![0u64; n];
    let mut on_path = vec![0u32; n];
    let mut todo: Vec<(NodeId, bool)> = tree.children(scope).map(|c| (c, false)).collect();
    todo.reverse();
    while let Some((id, leaving)) = todo.pop() {
        let lib = slot(id);
        if leaving {
            if let Some(l) = lib {
                on_path[l] -= 1;
            }
            continue;
        }
        todo.push((id, true));
        let at = todo.len();
        todo.extend(tree.children(id).map(|c| (c, false)));
        todo[at..].reverse();
        let Some(l) = lib else {
            // A sample with no frame below its task: no library, so that the self
            // weights add up to the total.
            let w = tree.self_weight(id);
            let none = n - 1;
            self_w[none] = self_w[none].saturating_add(w);
            if on_path[none] == 0 {
                total[none] = total[none].saturating_add(w);
            }
            continue;
        };
        on_path[l] += 1;
        if on_path[l] == 1 {
            total[l] = total[l].saturating_add(tree.node(id).total);
        }
        self_w[l] = self_w[l].saturating_add(tree.self_weight(id));
    }
    let mut rows: Vec<LibraryTotals> = (0..n)
        .filter(|&l| total[l] > 0 || self_w[l] > 0)
        .map(|l| LibraryTotals {
            lib: (l + 1 < n).then(|| LibId(u32::try_from(l).unwrap_or(u32::MAX))),
            self_weight: self_w[l],
            total: total[l],
        })
        .collect();
    rows.sort_by(|a, b| {
        b.self_weight
            .cmp(&a.self_weight)
            .then(b.total.cmp(&a.total))
            .then_with(|| library_label(tree, a.lib).cmp(library_label(tree, b.lib)))
    });
    rows
}

/// The text shown for a library row.
pub fn library_label(tree: &CallTree, lib: Option<LibId>) -> &str {
    lib.map_or(NO_LIBRARY, |l| tree.names().library_name(l))
}

/// True for a library that is the kernel: perf's bracketed DSOs (`[kernel.kallsyms]`,
/// `[vdso]`, as inferno's `--kernel` decides), modules (`.ko`), `vmlinux` images and
/// SystemTap's `kernel` module. The viewer gives their frames the kernel colour even
/// without `--kernel`'s `_[k]` suffix.
#[allow(clippy::case_sensitive_file_extension_comparisons)] // DSO names are case-sensitive
pub fn is_kernel_library(lib: &str) -> bool {
    (lib.starts_with('[') && lib != "[unknown]")
        || lib.ends_with(".ko")
        || lib.starts_with("vmlinux")
        || lib == "kernel"
}

/// What a library key or flag says on an input that names no library.
pub const NO_LIBRARIES: &str =
    "This input names no libraries (perf script and SystemTap stacks do)";

/// How the row of frames without a library is labelled.
pub const NO_LIBRARY: &str = "(no library)";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::NameId;

    /// A tree of `stacks` whose frames are `lib:func` (or `func` without a library).
    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        let mut t = CallTree::new();
        for (stack, w) in stacks {
            let ids: Vec<NameId> = stack
                .split(';')
                .map(|f| match f.split_once(':') {
                    Some((lib, name)) => t.names_mut().intern_in(name, Some(lib)),
                    None => t.intern(f),
                })
                .collect();
            t.insert_ids(ids, *w);
        }
        t.finish();
        t
    }

    fn rows(t: &CallTree) -> Vec<(String, u64, u64)> {
        library_totals_in(t, NodeId::ROOT)
            .into_iter()
            .map(|r| (library_label(t, r.lib).to_owned(), r.self_weight, r.total))
            .collect()
    }

    #[test]
    fn self_is_the_leaf_library_and_total_counts_a_stack_once() {
        let t = tree(&[
            ("rustc:main;llvm:opt;llvm:pass;rustc:cb;llvm:alloc", 5),
            ("rustc:main;rustc:typeck", 3),
            ("rustc:main;llvm:opt", 2),
            ("start", 1),
        ]);
        assert_eq!(
            rows(&t),
            [
                ("llvm".to_owned(), 7, 7),
                ("rustc".to_owned(), 3, 10),
                (NO_LIBRARY.to_owned(), 1, 1),
            ]
        );
        // Self weights add up to the total.
        let sum: u64 = rows(&t).iter().map(|r| r.1).sum();
        assert_eq!(sum, t.total());
    }

    #[test]
    fn a_name_in_two_libraries_charges_each_frame_to_its_own() {
        // ld.so's `strlen` and the kernel's: each frame's library is its own, so both
        // libraries get their share, whatever order the frames were read in.
        for stacks in [
            [
                ("ld:_dl_start;ld:strlen", 3),
                ("ld:_dl_start;[kernel]:page_fault;[kernel]:strlen", 2),
            ],
            [
                ("ld:_dl_start;[kernel]:page_fault;[kernel]:strlen", 2),
                ("ld:_dl_start;ld:strlen", 3),
            ],
        ] {
            let t = tree(&stacks);
            assert_eq!(
                rows(&t),
                [("ld".to_owned(), 3, 5), ("[kernel]".to_owned(), 2, 2)]
            );
        }
    }

    #[test]
    fn kernel_libraries() {
        for lib in [
            "[kernel.kallsyms]",
            "[vdso]",
            "ext4.ko",
            "vmlinux-6.1",
            "kernel",
        ] {
            assert!(is_kernel_library(lib), "{lib}");
        }
        for lib in ["[unknown]", "libc.so.6", "mysqld", "kernelshark"] {
            assert!(!is_kernel_library(lib), "{lib}");
        }
    }

    #[test]
    fn tasks_are_no_library_and_scopes_are_respected() {
        let mut t = CallTree::new();
        let p = t.intern_task("proc");
        let f = t.names_mut().intern_in("f", Some("libf.so"));
        t.insert_ids([p, f], 4);
        t.insert_ids([p], 1);
        t.finish();
        assert_eq!(
            rows(&t),
            [("libf.so".to_owned(), 4, 4), (NO_LIBRARY.to_owned(), 1, 1)]
        );
        let proc_node = t.child_named(NodeId::ROOT, "proc").unwrap();
        let fnode = t.children(proc_node).next().unwrap();
        assert!(library_totals_in(&t, fnode).is_empty());
    }
}
