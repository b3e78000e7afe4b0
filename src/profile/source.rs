//! Stage: samples → source lines. Which line of its function each frame of a sample was
//! at, summed: per node of the tree (the Source screen of a selected frame) and per
//! function over the whole profile (`--annotate`, as `go tool pprof -list`).
//!
//! * **Self** of a line: the weight of the samples whose leaf frame was at that line.
//! * **Total** of a line: the weight of the samples with that line anywhere on the stack
//!   inside the function. Per function, a sample counts once per line however many
//!   frames of the function (recursion) were at it, as pprof counts; per node it cannot
//!   count twice, a node being one frame of a stack.
//!
//! Lines are kept only for inputs that have them (pprof `Line` records, perf script
//! `-F +srcline`), for the tree as read: a derived tree (a slice, a transform) has other
//! nodes, and the Source screen finds the selected frame's path in the tree as read.
//! Weights are the tree's units; a line is a (file, number) pair, files interned.

use rustc_hash::FxHashMap;

use super::intern::NameId;
use super::tree::{CallTree, NodeId};

/// How to record a profile with source lines, for an input without them.
pub const HOW_TO_RECORD: &str = "lines come from pprof profiles (Go's runtime/pprof), \
`perf script -F +srcline` and perf.data of binaries built with -g";

/// Index of a file in a [`SourceLines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);

/// A line of a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Line {
    /// The file.
    pub file: FileId,
    /// Its number, from 1.
    pub number: u32,
}

/// What the samples at a line weigh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Samples whose leaf was at the line.
    pub self_weight: u64,
    /// Samples with the line on the stack.
    pub total: u64,
}

/// The source lines of a profile's samples, per node and per function.
#[derive(Debug, Clone, Default)]
pub struct SourceLines {
    files: Vec<Box<str>>,
    file_ids: FxHashMap<Box<str>, FileId>,
    by_node: FxHashMap<(NodeId, Line), Cost>,
    by_function: FxHashMap<(NameId, Line), Cost>,
    /// A function's first line, when the input says it (pprof's `start_line`).
    starts: FxHashMap<NameId, Line>,
    /// Scratch: the (function, line) pairs of the sample being recorded (a set for deep
    /// stacks, where a list would be looked through once per frame).
    seen: Vec<(NameId, Line)>,
    seen_set: rustc_hash::FxHashSet<(NameId, Line)>,
    /// Scratch: the frames of the sample being recorded by [`SourceLines::record_from_leaf`].
    path: Vec<(NodeId, NameId, Option<Line>)>,
}

/// Stacks deeper than this note their (function, line) pairs in a set.
const DEEP: usize = 64;

impl SourceLines {
    /// True when no sample had a line.
    pub fn is_empty(&self) -> bool {
        self.by_node.is_empty()
    }

    /// The id of file `path`, interned.
    pub fn file(&mut self, path: &str) -> FileId {
        if let Some(&id) = self.file_ids.get(path) {
            return id;
        }
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(path.into());
        self.file_ids.insert(path.into(), id);
        id
    }

    /// The path of file `id`, as the input gave it.
    pub fn path(&self, id: FileId) -> &str {
        self.files.get(id.0 as usize).map_or("", |p| p)
    }

    /// Notes that function `f` starts at `line`.
    pub fn set_start(&mut self, f: NameId, line: Line) {
        self.starts.entry(f).or_insert(line);
    }

    /// Where function `f` starts, when the input said.
    pub fn start(&self, f: NameId) -> Option<Line> {
        self.starts.get(&f).copied()
    }

    /// Adds one sample of `weight`: its frames from the root, each its node, its function
    /// and its line if known (the last is the leaf).
    pub fn record(&mut self, frames: &[(NodeId, NameId, Option<Line>)], weight: u64) {
        self.seen.clear();
        self.seen_set.clear();
        let deep = frames.len() > DEEP;
        let last = frames.len().saturating_sub(1);
        for (i, &(node, f, line)) in frames.iter().enumerate() {
            let Some(line) = line else { continue };
            let leaf = i == last;
            let c = self.by_node.entry((node, line)).or_default();
            c.total = c.total.saturating_add(weight);
            if leaf {
                c.self_weight = c.self_weight.saturating_add(weight);
            }
            let first = if deep {
                self.seen_set.insert((f, line))
            } else if self.seen.contains(&(f, line)) {
                false
            } else {
                self.seen.push((f, line));
                true
            };
            let c = self.by_function.entry((f, line)).or_default();
            if first {
                c.total = c.total.saturating_add(weight);
            }
            if leaf {
                c.self_weight = c.self_weight.saturating_add(weight);
            }
        }
    }

    /// Adds one sample of `weight` whose stack ended at node `leaf` of `tree`, its frames'
    /// lines given leaf first (fewer than the frames: the rest have none). Nothing is
    /// recorded unless the path from `leaf` up has `nodes` nodes when that is given (the
    /// frames the lines were read for, and any the reader added, are the path's nodes).
    pub fn record_from_leaf(
        &mut self,
        tree: &CallTree,
        leaf: NodeId,
        lines: impl IntoIterator<Item = Option<Line>>,
        nodes: Option<usize>,
        weight: u64,
    ) {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut node = leaf;
        while node != NodeId::ROOT {
            path.push((node, tree.node(node).name, None));
            node = tree.parent(node).unwrap_or(NodeId::ROOT);
        }
        if nodes.is_none_or(|n| n == path.len()) {
            for (p, line) in path.iter_mut().zip(lines) {
                p.2 = line;
            }
            path.reverse();
            self.record(&path, weight);
        }
        self.path = path;
    }

    /// The lines of node `node`'s samples, by file then number.
    pub fn of_node(&self, node: NodeId) -> Vec<(Line, Cost)> {
        let mut out: Vec<(Line, Cost)> = self
            .by_node
            .iter()
            .filter(|((n, _), _)| *n == node)
            .map(|(&(_, line), &c)| (line, c))
            .collect();
        out.sort_unstable_by_key(|&(line, _)| line);
        out
    }

    /// The lines of function `f` over every sample, by file then number.
    pub fn of_function(&self, f: NameId) -> Vec<(Line, Cost)> {
        let mut out: Vec<(Line, Cost)> = self
            .by_function
            .iter()
            .filter(|((g, _), _)| *g == f)
            .map(|(&(_, line), &c)| (line, c))
            .collect();
        out.sort_unstable_by_key(|&(line, _)| line);
        out
    }

    /// The functions that have lines.
    pub fn functions(&self) -> Vec<NameId> {
        let mut out: Vec<NameId> = self.by_function.keys().map(|&(f, _)| f).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Adds `other`'s lines, its nodes mapped by `nodes` (index: `other`'s node id) and its
    /// functions by `names` (the same, or `None` when both share names); for the tables
    /// of the pieces of one input, joined.
    pub fn merge_mapped(
        &mut self,
        other: &SourceLines,
        nodes: &[NodeId],
        names: Option<&[NameId]>,
    ) {
        let files: Vec<FileId> = other.files.iter().map(|p| self.file(p)).collect();
        let line = |l: Line| Line {
            file: files[l.file.0 as usize],
            number: l.number,
        };
        let name = |f: NameId| names.map_or(f, |m| m[f.0 as usize]);
        for (&(node, l), c) in &other.by_node {
            let e = self
                .by_node
                .entry((nodes[node.0 as usize], line(l)))
                .or_default();
            e.self_weight = e.self_weight.saturating_add(c.self_weight);
            e.total = e.total.saturating_add(c.total);
        }
        for (&(f, l), c) in &other.by_function {
            let e = self.by_function.entry((name(f), line(l))).or_default();
            e.self_weight = e.self_weight.saturating_add(c.self_weight);
            e.total = e.total.saturating_add(c.total);
        }
        for (&f, &l) in &other.starts {
            self.starts.entry(name(f)).or_insert(line(l));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_is_the_leafs_line_and_total_counts_a_line_once_per_sample() {
        let mut s = SourceLines::default();
        let file = s.file("a.c");
        let at = |n| Some(Line { file, number: n });
        let (f, g) = (NameId(1), NameId(2));
        let (n1, n2, n3) = (NodeId(1), NodeId(2), NodeId(3));
        // f:10 → f:10 (recursion at the same line) → g:20, weight 5.
        s.record(&[(n1, f, at(10)), (n2, f, at(10)), (n3, g, at(20))], 5);
        // f:11 alone, weight 2.
        s.record(&[(n1, f, at(11))], 2);
        let l = |n| Line { file, number: n };
        assert_eq!(
            s.of_function(f),
            [
                (
                    l(10),
                    Cost {
                        self_weight: 0,
                        total: 5
                    }
                ),
                (
                    l(11),
                    Cost {
                        self_weight: 2,
                        total: 2
                    }
                )
            ]
        );
        assert_eq!(
            s.of_function(g),
            [(
                l(20),
                Cost {
                    self_weight: 5,
                    total: 5
                }
            )]
        );
        assert_eq!(
            s.of_node(n2),
            [(
                l(10),
                Cost {
                    self_weight: 0,
                    total: 5
                }
            )]
        );
        assert_eq!(s.of_node(n1).len(), 2);
        assert_eq!(s.functions(), [f, g]);
        assert_eq!(s.path(file), "a.c");
    }

    #[test]
    fn a_deep_recursive_stack_counts_each_line_once() {
        let mut s = SourceLines::default();
        let file = s.file("r.c");
        let at = |n| Some(Line { file, number: n });
        let f = NameId(1);
        // 20,000 frames of `f` at lines 1..=100 over and over.
        let frames: Vec<_> = (0..20_000u32)
            .map(|i| (NodeId(i + 1), f, at(1 + i % 100)))
            .collect();
        s.record(&frames, 3);
        let lines = s.of_function(f);
        assert_eq!(lines.len(), 100);
        assert!(lines.iter().all(|(_, c)| c.total == 3));
        // The leaf is frame 19,999, at line 100.
        assert_eq!(lines[99].1.self_weight, 3);
        // Weights past u64::MAX saturate.
        s.record(&frames[..1], u64::MAX);
        assert_eq!(s.of_function(f)[0].1.total, u64::MAX);
    }

    #[test]
    fn merging_maps_nodes_names_and_files() {
        let mut a = SourceLines::default();
        let _ = a.file("other.c");
        let mut b = SourceLines::default();
        let file = b.file("a.c");
        b.record(&[(NodeId(1), NameId(1), Some(Line { file, number: 3 }))], 4);
        a.merge_mapped(&b, &[NodeId(0), NodeId(7)], Some(&[NameId(0), NameId(9)]));
        let moved = Line {
            file: a.file("a.c"),
            number: 3,
        };
        assert_eq!(
            a.of_node(NodeId(7)),
            [(
                moved,
                Cost {
                    self_weight: 4,
                    total: 4
                }
            )]
        );
        assert_eq!(a.of_function(NameId(9)).len(), 1);
    }
}
