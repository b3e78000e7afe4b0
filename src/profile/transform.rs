//! Stage: call tree → call tree. Pure, undoable-by-recomputation transforms:
//! exclude stacks, focus on a function, hide (merge away) frames, collapse a library,
//! collapse recursion,
//! invert. Each rebuilds a new tree from the old one's stacks, keeping weights and
//! sample counts exactly. Regexes run once per distinct name, never per node.

use std::borrow::Cow;
use std::fmt;

use regex::Regex;

use super::intern::{LibId, NameId};
use super::scope::is_halved;
use super::tree::CallTree;
use crate::symbol::demangle;

/// One transform of the call tree.
#[derive(Debug, Clone)]
pub enum Transform {
    /// Drop every stack that has a frame matching the regex.
    Exclude(Regex),
    /// Keep only stacks through a matching frame, re-rooted at the outermost match.
    Focus(Regex),
    /// Remove matching frames; their callees attach to their caller.
    Hide(Regex),
    /// Consecutive frames of one library whose name matches the regex become one frame
    /// named after the library (the Firefox Profiler's "collapse library").
    CollapseLibrary(Regex),
    /// Repeated consecutive frames of one function become one.
    CollapseRecursion,
    /// Inlined frames (perf's `(inlined)`) merge into the frame they are inlined into,
    /// their self weight with it: the self of `perf report --no-children --sort sym`,
    /// which charges the enclosing symbol.
    MergeInlined,
    /// Leaves become roots (bottom-up view).
    Invert,
}

impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transform::Exclude(r) => write!(f, "exclude /{r}/"),
            Transform::Focus(r) => write!(f, "focus /{r}/"),
            Transform::Hide(r) => write!(f, "hide /{r}/"),
            Transform::CollapseLibrary(r) => write!(f, "collapse library /{r}/"),
            Transform::CollapseRecursion => f.write_str("collapse recursion"),
            Transform::MergeInlined => f.write_str("merge inlined"),
            Transform::Invert => f.write_str("inverted"),
        }
    }
}

/// What merging inlined frames says of a profile that has none.
pub const NO_INLINED: &str = "No inlined frames in this profile: nothing to merge";

/// Which names match `re`, indexed by `NameId`: a name matches as the input spells it or
/// demangled (so `--exclude 'do_command\('` and the viewer's `X` find what the screen
/// shows, and `_Z10do_commandP3THD` still matches itself).
pub fn matching_names(tree: &CallTree, re: &Regex) -> Vec<bool> {
    tree.names()
        .iter()
        .map(|(_, name)| {
            re.is_match(name) || matches!(demangle(name), Cow::Owned(d) if re.is_match(&d))
        })
        .collect()
}

/// The tree with every name renamed by `rename` (task names are kept): `--demangle` for the
/// exports. Frames whose new names coincide under one caller merge, weights summed.
pub fn renamed(tree: &CallTree, rename: impl Fn(&str) -> Cow<'_, str>) -> CallTree {
    let mut out = tree.empty_like();
    let names = tree.names();
    let map: Vec<NameId> = names
        .iter()
        .map(|(id, name)| match rename(name) {
            // A renamed function keeps its library and kind.
            Cow::Owned(new) if !names.is_task(id) => {
                out.names_mut().intern_kind(&new, names.kind(id))
            }
            _ => id,
        })
        .collect();
    let mut buf: Vec<NameId> = Vec::new();
    tree.for_each_stack(|s, w, n| {
        buf.clear();
        buf.extend(s.iter().map(|id| map[id.0 as usize]));
        out.insert_ids_counted(buf.iter().copied(), w, n);
    });
    out.finish();
    out
}

/// Applies one transform, returning a new finished tree.
///
/// Stacks keep their names' ids (a process and a function of the same name stay apart).
/// In an on/off-CPU SystemTap tree the leading `[on-cpu]` / `[off-cpu]` frame stays the
/// root of every stack whatever the transform (it says which unit the weight is in):
/// hide and collapse-recursion leave it alone, invert and focus work below it, and
/// exclude and focus may still match it.
///
/// Hide charges a stack whose every frame is hidden to the root (or its half), so the
/// total never changes; exclude is the transform that drops stacks.
pub fn apply(tree: &CallTree, t: &Transform) -> CallTree {
    let mut out = tree.empty_like();
    let pinned = usize::from(is_halved(tree));
    let mut buf: Vec<NameId> = Vec::new();
    let mut emit =
        |out: &mut CallTree, head: &[NameId], rest: &mut dyn Iterator<Item = NameId>, w, n| {
            buf.clear();
            buf.extend_from_slice(head);
            buf.extend(rest);
            out.insert_ids_counted(buf.iter().copied(), w, n);
        };
    match t {
        Transform::Exclude(re) => {
            let hit = matching_names(tree, re);
            tree.for_each_stack(|s, w, n| {
                if !s.iter().any(|id| hit[id.0 as usize]) {
                    emit(&mut out, s, &mut std::iter::empty(), w, n);
                }
            });
        }
        Transform::Focus(re) => {
            let hit = matching_names(tree, re);
            tree.for_each_stack(|s, w, n| {
                let (head, rest) = split(s, pinned);
                if head.iter().any(|id| hit[id.0 as usize]) {
                    emit(&mut out, s, &mut std::iter::empty(), w, n);
                } else if let Some(at) = rest.iter().position(|id| hit[id.0 as usize]) {
                    emit(&mut out, head, &mut rest[at..].iter().copied(), w, n);
                }
            });
        }
        Transform::Hide(re) => {
            let hit = matching_names(tree, re);
            tree.for_each_stack(|s, w, n| {
                let (head, rest) = split(s, pinned);
                let kept = &mut rest.iter().copied().filter(|id| !hit[id.0 as usize]);
                emit(&mut out, head, kept, w, n);
            });
        }
        Transform::CollapseLibrary(re) => {
            let names = tree.names();
            // The frame standing for each matching library, by library id.
            let frames: Vec<Option<NameId>> = (0..names.library_count())
                .map(|l| {
                    let lib = names.library_name(LibId(u32::try_from(l).unwrap_or(u32::MAX)));
                    re.is_match(lib)
                        .then(|| out.names_mut().intern_in(lib, Some(lib)))
                })
                .collect();
            let collapsed = |id: NameId| -> Option<NameId> {
                let lib = names.library(id)?;
                frames.get(lib.0 as usize).copied().flatten()
            };
            let mut kept: Vec<NameId> = Vec::new();
            tree.for_each_stack(|s, w, n| {
                let (head, rest) = split(s, pinned);
                kept.clear();
                let mut last = None;
                for &id in rest {
                    match collapsed(id) {
                        Some(frame) if last == Some(frame) => {}
                        Some(frame) => {
                            kept.push(frame);
                            last = Some(frame);
                        }
                        None => {
                            kept.push(id);
                            last = None;
                        }
                    }
                }
                emit(&mut out, head, &mut kept.iter().copied(), w, n);
            });
        }
        Transform::MergeInlined => {
            let names = tree.names();
            tree.for_each_stack(|s, w, n| {
                let (head, rest) = split(s, pinned);
                let kept = &mut rest.iter().copied().filter(|&id| !names.is_inlined(id));
                emit(&mut out, head, kept, w, n);
            });
        }
        Transform::CollapseRecursion => tree.for_each_stack(|s, w, n| {
            let (head, rest) = split(s, pinned);
            let mut last = None;
            let kept = &mut rest
                .iter()
                .copied()
                .filter(|&id| last.replace(id) != Some(id));
            emit(&mut out, head, kept, w, n);
        }),
        Transform::Invert => tree.for_each_stack(|s, w, n| {
            let (head, rest) = split(s, pinned);
            emit(&mut out, head, &mut rest.iter().rev().copied(), w, n);
        }),
    }
    out.finish();
    out
}

/// A stack's first `pinned` frames (the half pseudo-frame, if any) and the rest.
fn split(s: &[NameId], pinned: usize) -> (&[NameId], &[NameId]) {
    s.split_at(pinned.min(s.len()))
}

/// Applies transforms in order.
pub fn apply_all<'a>(tree: &CallTree, ts: impl IntoIterator<Item = &'a Transform>) -> CallTree {
    let mut cur: Option<CallTree> = None;
    for t in ts {
        cur = Some(apply(cur.as_ref().unwrap_or(tree), t));
    }
    cur.unwrap_or_else(|| tree.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::folded_lines;
    use crate::profile::NodeId;

    fn tree(stacks: &[(&str, u64)]) -> CallTree {
        CallTree::from_stacks(stacks)
    }

    fn re(s: &str) -> Regex {
        Regex::new(s).unwrap()
    }

    const SEED: &[(&str, u64)] = &[
        ("mysqld;commit;sync_binlog;my_sync;fsync", 37),
        ("mysqld;commit;flush;log_write_flush_to_disk_low;fsync", 31),
        ("mysqld;select;JOIN::exec", 32),
    ];

    #[test]
    fn exclude_drops_whole_stacks() {
        let t = apply(&tree(SEED), &Transform::Exclude(re("^my_sync$")));
        assert_eq!(
            folded_lines(&t),
            [
                "mysqld;commit;flush;log_write_flush_to_disk_low;fsync 31",
                "mysqld;select;JOIN::exec 32",
            ]
        );
        assert_eq!(t.total(), 63);
    }

    #[test]
    fn focus_reroots_and_merges_occurrences() {
        let t = apply(&tree(SEED), &Transform::Focus(re("fsync")));
        assert_eq!(folded_lines(&t), ["fsync 68"]);
        assert_eq!(t.node(NodeId::ROOT).total, 68);
    }

    #[test]
    fn hide_attaches_callees_to_caller() {
        let t = apply(&tree(SEED), &Transform::Hide(re("^commit$")));
        assert_eq!(
            folded_lines(&t),
            [
                "mysqld;flush;log_write_flush_to_disk_low;fsync 31",
                "mysqld;select;JOIN::exec 32",
                "mysqld;sync_binlog;my_sync;fsync 37",
            ]
        );
    }

    #[test]
    fn collapse_library_merges_each_run_of_a_matching_library() {
        let mut t = CallTree::new();
        let p = t.intern_task("rustc");
        let mut f = |name: &str, lib: Option<&str>| t.names_mut().intern_in(name, lib);
        let main = f("main", Some("rustc"));
        let opt = f("opt", Some("libLLVM.so"));
        let pass = f("pass", Some("libLLVM.so"));
        let cb = f("cb", Some("rustc"));
        let malloc = f("malloc", Some("libc.so.6"));
        let raw = f("raw", None);
        t.insert_ids([p, main, opt, pass, cb, opt, malloc], 5);
        t.insert_ids([p, main, opt, raw], 2);
        t.insert_ids([p, main, pass], 1);
        t.finish();
        let out = apply(&t, &Transform::CollapseLibrary(re("LLVM")));
        assert_eq!(
            folded_lines(&out),
            [
                "rustc;main;libLLVM.so 1",
                "rustc;main;libLLVM.so;cb;libLLVM.so;malloc 5",
                "rustc;main;libLLVM.so;raw 2",
            ]
        );
        assert_eq!(out.total(), t.total());
        let lib = out.names().lookup("libLLVM.so").unwrap();
        assert_eq!(
            out.names()
                .library(lib)
                .map(|l| out.names().library_name(l)),
            Some("libLLVM.so")
        );
        // Every library: runs across libraries stay apart; the task frame stays.
        let all = apply(&t, &Transform::CollapseLibrary(re("")));
        assert_eq!(
            folded_lines(&all),
            [
                "rustc;rustc;libLLVM.so 1",
                "rustc;rustc;libLLVM.so;raw 2",
                "rustc;rustc;libLLVM.so;rustc;libLLVM.so;libc.so.6 5",
            ]
        );
    }

    #[test]
    fn merge_inlined_charges_the_enclosing_function() {
        // perf script of a DWARF recording: `mix` and `twice` inlined into `main`.
        let mut t = CallTree::new();
        let p = t.intern_task("tiny");
        let inl = |t: &mut CallTree, name: &str| {
            let kind = crate::profile::intern::Kind {
                library: Some("tiny"),
                inlined: true,
            };
            t.names_mut().intern_kind(name, kind)
        };
        let main = t.names_mut().intern_in("main", Some("tiny"));
        let mix = inl(&mut t, "mix");
        let twice = inl(&mut t, "twice");
        let spin = t.names_mut().intern_in("spin", Some("tiny"));
        t.insert_ids([p, main, twice, mix], 5);
        t.insert_ids([p, main, twice, spin], 3);
        t.insert_ids([p, main], 2);
        t.finish();
        let out = apply(&t, &Transform::MergeInlined);
        assert_eq!(folded_lines(&out), ["tiny;main 7", "tiny;main;spin 3"]);
        assert_eq!(out.total(), t.total());
        assert_eq!(Transform::MergeInlined.to_string(), "merge inlined");
    }

    #[test]
    fn collapse_recursion_merges_consecutive_repeats() {
        let t = apply(
            &tree(&[
                ("main;rec;rec;rec;helper", 3),
                ("main;rec;helper", 2),
                ("a;b;a", 1),
            ]),
            &Transform::CollapseRecursion,
        );
        assert_eq!(folded_lines(&t), ["a;b;a 1", "main;rec;helper 5"]);
    }

    #[test]
    fn invert_puts_leaves_at_the_root_and_keeps_samples() {
        let t = apply(&tree(SEED), &Transform::Invert);
        let fsync = t.child_named(NodeId::ROOT, "fsync").unwrap();
        assert_eq!(t.node(fsync).total, 68);
        assert_eq!(t.node(fsync).samples, 2);
        assert_eq!(t.total(), 100);
    }

    #[test]
    fn transforms_compose_and_keep_fractional_scale() {
        let mut t = CallTree::new();
        t.rescale(2);
        t.insert(["a", "b"], 125);
        t.finish();
        let out = apply_all(&t, &[Transform::Hide(re("^a$")), Transform::Invert]);
        assert_eq!(folded_lines(&out), ["b 1.25"]);
    }
}
