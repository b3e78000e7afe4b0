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
//! `-F +srcline`, perf.data DWARF, `.cpuprofile` `positionTicks`, speedscope frames'
//! `file` and `line`), for the tree as read: a derived tree (a slice, a transform) has other
//! nodes, and the Source screen finds the selected frame's path in the tree as read.
//! Weights are the tree's units; a line is a (file, number) pair, files interned.

use rustc_hash::FxHashMap;

use super::intern::NameId;
use super::tree::{CallTree, NodeId};

mod code;
mod stacks;

pub use code::{Arch, Code, MOST_CODE_BYTES, SharedCode};

/// How to record a profile with source lines, for an input without them.
pub const HOW_TO_RECORD: &str = "lines come from pprof profiles (Go's runtime/pprof), \
`perf script -F +srcline`, perf.data of binaries built with -g, Chrome/V8 .cpuprofile \
(`node --cpu-prof`: its nodes' positionTicks) and speedscope frames with a file and line \
(py-spy)";

/// The highest line number read from any input: ten million, past any real source file
/// (a listing shows every line between a function's first and last).
pub const MAX_LINE_NUMBER: u32 = 10_000_000;

/// The longest file name a line may have (Linux's `PATH_MAX`): a longer one names no file
/// that could be read, and a listing prints its file's name in each function's header.
pub const MOST_FILE_NAME: usize = 4096;

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
    /// Each recorded sample's lines, interned (the sample table keeps the id of each).
    stacks: stacks::Stacks,
    /// Scratch: the lines of the sample being recorded, leaf first.
    stack: Vec<Option<Line>>,
    /// The files that are a function's machine code ([`SourceLines::code_file`]), by
    /// binary and start, and their code.
    code_ids: FxHashMap<(Box<str>, u64), FileId>,
    codes: FxHashMap<FileId, Code>,
    /// The bytes of code kept, in all.
    code_bytes: usize,
}

/// What [`SourceLines::of_samples`] sums the lines of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Of {
    /// One node of the tree (a frame of some stacks).
    Node(NodeId),
    /// Every frame of a function.
    Function(NameId),
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
    /// Returns the sample's stack of lines ([`SourceLines::stack`]; 0 when none was
    /// recorded), for the sample table to keep beside the sample.
    pub fn record_from_leaf(
        &mut self,
        tree: &CallTree,
        leaf: NodeId,
        lines: impl IntoIterator<Item = Option<Line>>,
        nodes: Option<usize>,
        weight: u64,
    ) -> u32 {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut node = leaf;
        while node != NodeId::ROOT {
            path.push((node, tree.node(node).name, None));
            node = tree.parent(node).unwrap_or(NodeId::ROOT);
        }
        let mut id = 0;
        if nodes.is_none_or(|n| n == path.len()) {
            let mut stack = std::mem::take(&mut self.stack);
            stack.clear();
            for (p, line) in path.iter_mut().zip(lines) {
                p.2 = line;
                stack.push(line);
            }
            id = self.stacks.intern(&stack);
            self.stack = stack;
            path.reverse();
            self.record(&path, weight);
        }
        self.path = path;
        id
    }

    /// The lines of stack `id` (what [`SourceLines::record_from_leaf`] returned), leaf
    /// first, up to the last frame with a line.
    pub fn stack(&self, id: u32) -> &[Option<Line>] {
        self.stacks.get(id)
    }

    /// The lines of `of` in some of the samples only (a time range, some tasks): each
    /// given as `(leaf, stack, weight)` — its leaf node in `tree`, the tree the lines were
    /// recorded for, its stack of lines, its weight —, summed as the whole profile's are
    /// ([`SourceLines::of_node`], [`SourceLines::of_function`]), by file then number; and
    /// the weight of the samples with `of` on their stack, lines or not (the figure the
    /// lines' shares are of).
    pub fn of_samples(
        &self,
        tree: &CallTree,
        of: Of,
        samples: impl IntoIterator<Item = (NodeId, u32, u64)>,
    ) -> (Vec<(Line, Cost)>, u64) {
        // Samples of one leaf and stack are summed first: one walk up the tree for each.
        let weights = by_leaf_and_stack(samples);
        let mut out: FxHashMap<Line, Cost> = FxHashMap::default();
        let mut seen: Vec<Line> = Vec::new();
        let mut total = 0u64;
        for ((leaf, stack), w) in weights {
            let lines = self.stacks.get(stack);
            seen.clear();
            let (mut node, mut depth, mut on_stack) = (leaf, 0, false);
            while node != NodeId::ROOT {
                let here = match of {
                    Of::Node(n) => node == n,
                    Of::Function(f) => tree.node(node).name == f,
                };
                let line = lines.get(depth).copied().flatten();
                node = tree.parent(node).unwrap_or(NodeId::ROOT);
                depth += 1;
                on_stack |= here;
                let (true, Some(line)) = (here, line) else {
                    continue;
                };
                // A line counts once per sample in a function (recursion), as recorded.
                if seen.contains(&line) {
                    continue;
                }
                seen.push(line);
                let c = out.entry(line).or_default();
                c.total = c.total.saturating_add(w);
                if depth == 1 {
                    c.self_weight = c.self_weight.saturating_add(w);
                }
            }
            if on_stack {
                total = total.saturating_add(w);
            }
        }
        let mut out: Vec<(Line, Cost)> = out.into_iter().collect();
        out.sort_unstable_by_key(|&(line, _)| line);
        (out, total)
    }

    /// The lines of some of the samples (a time range, some tasks), for the tree of those
    /// samples: each given as `(leaf, stack, weight)` (its leaf in the tree the lines were
    /// recorded for, its stack of lines, its weight), its leaf moved to the new tree by
    /// `leaves` (index: the old id). Files and functions' first lines are kept.
    #[must_use]
    pub fn replayed(
        &self,
        tree: &CallTree,
        leaves: &[NodeId],
        samples: impl IntoIterator<Item = (NodeId, u32, u64)>,
    ) -> SourceLines {
        let mut out = SourceLines {
            files: self.files.clone(),
            file_ids: self.file_ids.clone(),
            starts: self.starts.clone(),
            code_ids: self.code_ids.clone(),
            codes: self.codes.clone(),
            code_bytes: self.code_bytes,
            ..SourceLines::default()
        };
        let mut weights: Vec<_> = by_leaf_and_stack(samples)
            .into_iter()
            .filter(|&((_, stack), _)| stack != 0)
            .collect();
        weights.sort_unstable();
        for ((leaf, stack), w) in weights {
            let Some(&to) = leaves.get(leaf.0 as usize) else {
                continue;
            };
            if to != NodeId::ROOT {
                let lines = self.stacks.get(stack).iter().copied();
                out.record_from_leaf(tree, to, lines, None, w);
            }
        }
        out
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
    /// of the pieces of one input, joined. Returns `other`'s stacks' ids in this one (index:
    /// `other`'s id), for its sample table's ([`crate::profile::SampleTable::append_mapped`]).
    pub fn merge_mapped(
        &mut self,
        other: &SourceLines,
        nodes: &[NodeId],
        names: Option<&[NameId]>,
    ) -> Vec<u32> {
        let files: Vec<FileId> = (0..other.files.len())
            .map(|i| {
                let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
                let path = other.path(id);
                match other.code(id) {
                    Some(c) => self.code_file(path, c.start, || Some((c.bytes.to_vec(), c.arch))),
                    None => self.file(path),
                }
            })
            .collect();
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
        let mut stack = Vec::new();
        (0..other.stacks.len())
            .map(|id| {
                stack.clear();
                stack.extend(other.stacks.get(id as u32).iter().map(|l| l.map(line)));
                self.stacks.intern(&stack)
            })
            .collect()
    }
}

/// The weight of `samples` (`(leaf, stack, weight)`) summed per leaf and stack of lines,
/// saturating.
fn by_leaf_and_stack(
    samples: impl IntoIterator<Item = (NodeId, u32, u64)>,
) -> FxHashMap<(NodeId, u32), u64> {
    let mut weights: FxHashMap<(NodeId, u32), u64> = FxHashMap::default();
    for (leaf, stack, w) in samples {
        let e = weights.entry((leaf, stack)).or_default();
        *e = e.saturating_add(w);
    }
    weights
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

    #[test]
    fn the_lines_of_some_samples_are_those_recorded_of_them_alone() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        // Samples: frames (function 0..4, line 0..4 or none), a weight, and whether the
        // subset has it.
        let frame = (0u8..4, prop::option::of(1u32..5));
        let sample = (prop::collection::vec(frame, 1..8), 1u64..10, any::<bool>());
        TestRunner::default()
            .run(&prop::collection::vec(sample, 1..40), |samples| {
                let mut tree = CallTree::new();
                let names: Vec<NameId> = ["f", "g", "h", "k"]
                    .iter()
                    .map(|n| tree.intern(n))
                    .collect();
                let (mut all, mut some) = (SourceLines::default(), SourceLines::default());
                let file = all.file("a.c");
                let _ = some.file("a.c");
                let mut recorded = Vec::new();
                for (frames, w, picked) in &samples {
                    let leaf = tree.insert_ids(frames.iter().map(|f| names[f.0 as usize]), *w);
                    let lines: Vec<Option<Line>> = frames
                        .iter()
                        .rev()
                        .map(|f| f.1.map(|number| Line { file, number }))
                        .collect();
                    let stack = all.record_from_leaf(&tree, leaf, lines.clone(), None, *w);
                    prop_assert_eq!(
                        all.stack(stack),
                        &lines[..lines.iter().rposition(Option::is_some).map_or(0, |i| i + 1)]
                    );
                    if *picked {
                        some.record_from_leaf(&tree, leaf, lines, None, *w);
                        recorded.push((leaf, stack, *w));
                    }
                }
                // The subset's lines from its stacks are those recorded of it alone.
                for &f in &names {
                    let (got, _) = all.of_samples(&tree, Of::Function(f), recorded.clone());
                    prop_assert_eq!(got, some.of_function(f));
                }
                for id in tree.ids().filter(|&id| id != NodeId::ROOT) {
                    let (got, total) = all.of_samples(&tree, Of::Node(id), recorded.clone());
                    prop_assert_eq!(got, some.of_node(id));
                    let under: u64 = recorded
                        .iter()
                        .filter(|(leaf, ..)| {
                            std::iter::successors(Some(*leaf), |&n| tree.parent(n)).any(|n| n == id)
                        })
                        .map(|r| r.2)
                        .sum();
                    prop_assert_eq!(total, under);
                }
                // Replayed into the same tree, they are the subset's too.
                let leaves: Vec<NodeId> = tree.ids().collect();
                let again = all.replayed(&tree, &leaves, recorded.clone());
                for &f in &names {
                    prop_assert_eq!(again.of_function(f), some.of_function(f));
                }
                Ok(())
            })
            .unwrap();
    }
}
