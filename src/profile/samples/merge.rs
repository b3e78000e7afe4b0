//! Tables joined and put in time order: another table's samples appended (the pieces of
//! one input in the input's order, two sorted tables merged), and the samples sorted once
//! at the end of loading (a few sorted runs merged rather than sorted). The columns beside
//! the samples (switches, source-line stacks) follow their samples through each.

use super::{Sample, SampleTable, Switch, TaskId};
use crate::profile::tree::NodeId;

impl SampleTable {
    /// Appends every sample of `other`, whose leaves are nodes of another tree: `leaves`
    /// maps them to this table's tree (what [`crate::profile::CallTree::merge_from_mapped`]
    /// returns), and `stacks` its source-line stacks to this table's (what
    /// [`crate::profile::source::SourceLines::merge_mapped`] returns; empty: its samples'
    /// lines are dropped). Its tasks are added to this table's.
    pub fn append_mapped(&mut self, other: SampleTable, leaves: &[NodeId], stacks: &[u32]) {
        let tasks: Vec<TaskId> = other
            .tasks
            .iter()
            .map(|t| self.task(&t.comm, t.pid, t.tid))
            .collect();
        self.untimed += other.untimed;
        let joined_in_order = match (self.samples.last(), other.samples.first()) {
            (Some(a), Some(b)) => a.time <= b.time,
            _ => true,
        };
        let both_sorted =
            self.sorted && other.sorted && !self.samples.is_empty() && !other.samples.is_empty();
        self.sorted = (self.sorted || self.samples.is_empty())
            && (other.sorted || other.samples.is_empty())
            && joined_in_order;
        let switches_kept = self.switches.len() == self.samples.len()
            && other.switches.len() == other.samples.len();
        if !switches_kept {
            self.switches.clear();
        }
        let more_sw = if switches_kept {
            other.switches
        } else {
            Vec::new()
        };
        // Lines: a column on both sides when either has one (0: a sample without lines).
        let mut more_ln: Vec<u32> = if stacks.is_empty() {
            Vec::new()
        } else {
            other
                .line_stacks
                .iter()
                .map(|&s| stacks.get(s as usize).copied().unwrap_or(0))
                .collect()
        };
        if !self.line_stacks.is_empty() || !more_ln.is_empty() {
            self.line_stacks.resize(self.samples.len(), 0);
            more_ln.resize(other.samples.len(), 0);
        }
        self.switch_ins.extend_from_slice(&other.switch_ins);
        // Mapped in place (the same buffer).
        let mapped: Vec<Sample> = other
            .samples
            .into_iter()
            .map(|s| Sample {
                leaf: leaves
                    .get(s.leaf.0 as usize)
                    .copied()
                    .unwrap_or(NodeId::ROOT),
                task: tasks.get(s.task.index()).copied().unwrap_or(s.task),
                ..s
            })
            .collect();
        if mapped.is_empty() {
            // Nothing to join: this table keeps its pieces (and its order).
            return;
        }
        if self.samples.is_empty() {
            // Nothing here yet: the other's samples and pieces are this table's.
            self.samples = mapped;
            self.switches = more_sw;
            self.line_stacks = more_ln;
            self.pieces = other.pieces;
            return;
        }
        if !self.pieces.is_empty() && !other.pieces.is_empty() {
            // Pieces of one input (parser threads' chunks): joined in the input's order.
            self.join_pieces(&mapped, &more_sw, &more_ln, &other.pieces);
            return;
        }
        self.pieces.clear();
        if both_sorted && !joined_in_order {
            // Two sorted tables (two parser threads' chunks, interleaved in time): merged
            // in one pass rather than appended and sorted at the end.
            let with = self.has_columns();
            let picks = merge_into(&mut self.samples, &mapped, with);
            merge_column(&mut self.switches, &more_sw, &picks);
            merge_column(&mut self.line_stacks, &more_ln, &picks);
            self.sorted = true;
            return;
        }
        self.switches.extend_from_slice(&more_sw);
        self.line_stacks.extend_from_slice(&more_ln);
        self.samples.extend(mapped);
    }

    /// True when some column beside the samples is kept.
    fn has_columns(&self) -> bool {
        !self.switches.is_empty() || !self.line_stacks.is_empty()
    }

    /// Joins `more` (the samples of other pieces, already mapped to this table's tree and
    /// tasks, with their columns) to this table's, piece by piece in the pieces' order.
    /// Whether the result is in time order is left to [`SampleTable::finish`].
    fn join_pieces(
        &mut self,
        more: &[Sample],
        more_sw: &[Switch],
        more_ln: &[u32],
        more_pieces: &[(u64, usize)],
    ) {
        // (piece, side, start, end) of every piece of both sides.
        let spans = |pieces: &[(u64, usize)], len: usize, side: bool| {
            let ends: Vec<usize> = pieces.iter().skip(1).map(|p| p.1).chain([len]).collect();
            pieces
                .iter()
                .zip(ends)
                .map(move |(&(key, start), end)| (key, side, start, end))
                .collect::<Vec<_>>()
        };
        let mut all = spans(&self.pieces, self.samples.len(), false);
        all.extend(spans(more_pieces, more.len(), true));
        all.sort_by_key(|&(key, side, ..)| (key, side));
        let mine = std::mem::take(&mut self.samples);
        let mine_sw = std::mem::take(&mut self.switches);
        let mine_ln = std::mem::take(&mut self.line_stacks);
        self.samples = Vec::with_capacity(mine.len() + more.len());
        self.pieces.clear();
        for &(key, side, start, end) in &all {
            let from = if side { more } else { &mine[..] };
            self.pieces.push((key, self.samples.len()));
            self.samples.extend_from_slice(&from[start..end]);
        }
        self.switches = join_column(&all, &mine_sw, more_sw);
        self.line_stacks = join_column(&all, &mine_ln, more_ln);
        self.sorted = false;
    }

    /// Orders the samples by time (stably: samples of one instant keep their order). Once
    /// at the end of loading; nothing to do when they came in order, as perf prints them.
    pub fn finish(&mut self) {
        self.switch_ins.sort_unstable();
        self.pieces = Vec::new();
        if !self.line_stacks.is_empty() {
            self.line_stacks.resize(self.samples.len(), 0);
        }
        if !self.sorted {
            let runs = sorted_runs(&self.samples);
            if runs.len() == 1 {
                self.sorted = true;
            } else if runs.len() <= MAX_RUNS {
                // A table of a few sorted runs (one per parser thread): each merged into
                // the runs before it.
                let all = std::mem::take(&mut self.samples);
                let all_sw = std::mem::take(&mut self.switches);
                let all_ln = std::mem::take(&mut self.line_stacks);
                let ends: Vec<usize> = runs.iter().skip(1).copied().chain([all.len()]).collect();
                let with = !all_sw.is_empty() || !all_ln.is_empty();
                for (&start, &end) in runs.iter().zip(&ends) {
                    let picks = merge_into(&mut self.samples, &all[start..end], with);
                    merge_column(&mut self.switches, run(&all_sw, start, end), &picks);
                    merge_column(&mut self.line_stacks, run(&all_ln, start, end), &picks);
                }
            } else if self.has_columns() {
                let mut order: Vec<u32> = (0..self.samples.len() as u32).collect();
                order.sort_by_key(|&i| self.samples[i as usize].time);
                self.samples = permuted(&self.samples, &order);
                self.switches = permuted(&self.switches, &order);
                self.line_stacks = permuted(&self.line_stacks, &order);
            } else {
                self.samples.sort_by_key(|s| s.time);
            }
            self.sorted = true;
        }
        // Only a thread id with several tasks (renamed by exec) needs them: no pass over
        // the samples otherwise.
        self.firsts = Vec::new();
        if !self.more_by_tid.is_empty() {
            self.firsts = vec![u32::MAX; self.tasks.len()];
            for (i, s) in self.samples.iter().enumerate().rev() {
                if let Some(f) = self.firsts.get_mut(s.task.index()) {
                    *f = u32::try_from(i).unwrap_or(u32::MAX);
                }
            }
        }
    }
}

/// `more` merged into `into`, both in time order, from the back into `into`'s grown
/// buffer (no second buffer: a grown allocation is remapped, not copied); at one instant
/// `into`'s first (stable). With `picks`, which side each place of the result came from
/// (`true`: `more`), for the columns to follow ([`merge_column`]).
fn merge_into(into: &mut Vec<Sample>, more: &[Sample], picks: bool) -> Vec<bool> {
    let (kept, added) = (into.len(), more.len());
    into.extend_from_slice(more);
    let mut from_more = if picks {
        vec![false; kept + added]
    } else {
        Vec::new()
    };
    // From the back: the next place to fill, and how many of each side are left.
    let (mut left, mut right, mut at) = (kept, added, kept + added);
    while right > 0 {
        at -= 1;
        if left > 0 && into[left - 1].time > more[right - 1].time {
            left -= 1;
            into[at] = into[left];
        } else {
            right -= 1;
            into[at] = more[right];
            if picks {
                from_more[at] = true;
            }
        }
    }
    from_more
}

/// A column merged as its samples were: `picks` from [`merge_into`]. A column kept on
/// one side only (empty on the other, as long as its samples on this) is left empty.
fn merge_column<T: Copy>(into: &mut Vec<T>, more: &[T], picks: &[bool]) {
    let added = picks.iter().filter(|&&p| p).count();
    let kept = picks.len() - added;
    if into.len() != kept || more.len() != added || picks.is_empty() {
        into.clear();
        return;
    }
    into.extend_from_slice(more);
    let (mut left, mut right) = (kept, added);
    for at in (0..picks.len()).rev() {
        if picks[at] {
            right -= 1;
            into[at] = more[right];
        } else {
            left -= 1;
            into[at] = into[left];
        }
    }
}

/// A column joined as [`SampleTable::join_pieces`] joins its samples (`spans`: piece,
/// side, start, end); empty when either side's is.
fn join_column<T: Copy>(spans: &[(u64, bool, usize, usize)], mine: &[T], more: &[T]) -> Vec<T> {
    let whole = |s: &[T], side| {
        spans
            .iter()
            .filter(|sp| sp.1 == side)
            .all(|&(_, _, _, end)| end <= s.len())
    };
    if mine.is_empty() && more.is_empty() || !whole(mine, false) || !whole(more, true) {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(mine.len() + more.len());
    for &(_, side, start, end) in spans {
        out.extend_from_slice(&if side { more } else { mine }[start..end]);
    }
    out
}

/// The part `[start, end)` of a column, or nothing when it is not kept.
fn run<T>(col: &[T], start: usize, end: usize) -> &[T] {
    col.get(start..end).unwrap_or(&[])
}

/// `col` in the order `order` gives (indexes into it); empty when it is.
fn permuted<T: Copy>(col: &[T], order: &[u32]) -> Vec<T> {
    if col.len() != order.len() {
        return Vec::new();
    }
    order.iter().map(|&i| col[i as usize]).collect()
}

/// The most sorted runs a table is merged from rather than sorted (the runs of the
/// parser threads).
const MAX_RUNS: usize = 16;

/// Where each run of non-decreasing times begins.
fn sorted_runs(samples: &[Sample]) -> Vec<usize> {
    let mut starts = vec![0];
    for (i, w) in samples.windows(2).enumerate() {
        if w[1].time < w[0].time {
            starts.push(i + 1);
            if starts.len() > MAX_RUNS {
                break;
            }
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::samples::TaskState;

    #[test]
    fn switches_follow_their_samples_through_sorting_and_appending() {
        let sw = |next_tid, state| Switch { next_tid, state };
        let mut t = SampleTable::default();
        let a = t.task("a", None, Some(1));
        t.push_switch(Some(30), a, NodeId(3), 1, sw(3, TaskState::Sleeping));
        t.push_switch(Some(10), a, NodeId(1), 1, sw(1, TaskState::Runnable));
        let mut u = SampleTable::default();
        let b = u.task("b", None, Some(2));
        u.push_switch(Some(20), b, NodeId(0), 1, sw(2, TaskState::Uninterruptible));
        t.append_mapped(u, &[NodeId(2)], &[]);
        t.finish();
        let order: Vec<(u64, u32, i32)> = t
            .samples()
            .iter()
            .zip(t.switches().unwrap())
            .map(|(s, w)| (s.time, s.leaf.0, w.next_tid))
            .collect();
        assert_eq!(order, [(10, 1, 1), (20, 2, 2), (30, 3, 3)]);
        // A plain sample makes the column meaningless: no switches at all.
        t.push(Some(40), a, NodeId(1), 1);
        assert!(t.switches().is_none());
    }

    #[test]
    fn stacks_of_lines_follow_their_samples_and_a_table_without_any_gets_zeros() {
        let mut table = SampleTable::default();
        let ta = table.task("a", None, Some(1));
        table.push(Some(30), ta, NodeId(3), 1);
        table.push(Some(10), ta, NodeId(1), 1);
        table.set_line_stack(7);
        let mut second = SampleTable::default();
        let tb = second.task("b", None, Some(2));
        second.push(Some(20), tb, NodeId(0), 1);
        second.push(Some(40), tb, NodeId(0), 1);
        second.set_line_stack(2);
        // Stack 2 of `u` is stack 5 here.
        table.append_mapped(second, &[NodeId(2)], &[0, 1, 5]);
        let mut third = SampleTable::default();
        let tc = third.task("c", None, Some(3));
        third.push(Some(5), tc, NodeId(0), 1);
        table.append_mapped(third, &[NodeId(4)], &[]);
        table.finish();
        let order: Vec<(u64, u32)> = table.samples().iter().map(|s| (s.time, s.leaf.0)).collect();
        assert_eq!(order, [(5, 4), (10, 1), (20, 2), (30, 3), (40, 2)]);
        assert_eq!(table.line_stacks(), Some(&[0, 7, 0, 0, 5][..]));
        table.relabel(|i, s| if i == 1 { NodeId::ROOT } else { s.leaf });
        table.drop_unsettled();
        assert_eq!(table.line_stacks(), Some(&[0, 0, 0, 5][..]));
    }

    #[test]
    fn a_few_sorted_runs_are_merged_as_a_stable_sort_orders_them() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        // Runs of times (a parser thread's table each), with ties across runs.
        let runs = prop::collection::vec(prop::collection::vec(0u64..20, 0..12), 1..(MAX_RUNS + 3));
        TestRunner::default()
            .run(&runs, |runs| {
                let mut t = SampleTable::default();
                let task = t.task("a", None, Some(1));
                let mut leaf: u32 = 0;
                for mut run in runs {
                    run.sort_unstable();
                    for time in run {
                        leaf += 1;
                        let sw = Switch {
                            next_tid: leaf.cast_signed(),
                            state: TaskState::Sleeping,
                        };
                        t.push_switch(Some(time), task, NodeId(leaf), 1, sw);
                        t.set_line_stack(leaf);
                    }
                }
                let mut want: Vec<(u64, u32)> =
                    t.samples.iter().map(|s| (s.time, s.leaf.0)).collect();
                want.sort_by_key(|w| w.0);
                in_order(t, &want)
            })
            .unwrap();
    }

    /// Stacks of lines `0..n` mapped to themselves.
    fn same(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    /// `t` finished is in the order `want` gives (time, leaf), each switch and stack of
    /// lines beside its sample (the switches' `next_tid` and the stacks number their
    /// leaves).
    fn in_order(
        mut t: SampleTable,
        want: &[(u64, u32)],
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        use proptest::prop_assert_eq;
        t.finish();
        let got: Vec<(u64, u32)> = t.samples.iter().map(|s| (s.time, s.leaf.0)).collect();
        prop_assert_eq!(got.as_slice(), want);
        prop_assert_eq!(t.switches.len(), t.samples.len());
        for (s, sw) in t.samples.iter().zip(&t.switches) {
            prop_assert_eq!(s.leaf.0.cast_signed(), sw.next_tid);
        }
        let stacks: Vec<u32> = t.samples.iter().map(|s| s.leaf.0).collect();
        let any = stacks.iter().any(|&s| s != 0);
        prop_assert_eq!(t.line_stacks(), any.then_some(&stacks[..]));
        Ok(())
    }

    #[test]
    fn two_sorted_tables_appended_are_merged_in_time_order() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        let times = prop::collection::vec(0u64..30, 0..40);
        TestRunner::default()
            .run(&(times.clone(), times), |(mut a, mut b)| {
                a.sort_unstable();
                b.sort_unstable();
                let table = |times: &[u64], first: u32| {
                    let mut t = SampleTable::default();
                    let task = t.task("a", None, Some(1));
                    for (leaf, &time) in (first..).zip(times) {
                        let sw = Switch {
                            next_tid: leaf.cast_signed(),
                            state: TaskState::Sleeping,
                        };
                        t.push_switch(Some(time), task, NodeId(leaf), 1, sw);
                        t.set_line_stack(leaf);
                    }
                    t
                };
                let mut t = table(&a, 0);
                let u = table(&b, 1000);
                let leaves: Vec<NodeId> = (0..2000).map(NodeId).collect();
                let mut want: Vec<(u64, u32)> = (0..)
                    .zip(&a)
                    .map(|(k, &time)| (time, k))
                    .chain((1000..).zip(&b).map(|(k, &time)| (time, k)))
                    .collect();
                want.sort_by_key(|w| w.0);
                t.append_mapped(u, &leaves, &same(2000));
                in_order(t, &want)
            })
            .unwrap();
    }

    #[test]
    fn pieces_dealt_to_tables_join_in_input_order() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        // Times in input order (few values: many ties), cut into pieces dealt to two
        // tables as parser threads take chunks; ties must keep the input's order.
        let input = (
            prop::collection::vec(0u64..6, 0..60),
            prop::collection::vec((1usize..8, any::<bool>()), 1..20),
        );
        TestRunner::default()
            .run(&input, |(times, cuts)| {
                let mut tables = [SampleTable::default(), SampleTable::default()];
                let mut at = 0;
                let mut cuts = cuts.into_iter().cycle();
                while at < times.len() {
                    let (len, second) = cuts.next().unwrap();
                    let t = &mut tables[usize::from(second)];
                    t.begin_piece(at as u64 + 1);
                    let task = t.task("a", None, Some(1));
                    for (i, &time) in times.iter().enumerate().skip(at).take(len) {
                        let sw = Switch {
                            next_tid: i32::try_from(i).unwrap(),
                            state: TaskState::Sleeping,
                        };
                        t.push_switch(Some(time), task, NodeId(i as u32), 1, sw);
                        t.set_line_stack(i as u32);
                    }
                    at += len;
                }
                let leaves: Vec<NodeId> = (0..100).map(NodeId).collect();
                // Into an empty table first, as the parser's results are gathered.
                let mut all = SampleTable::default();
                let [a, b] = tables;
                all.append_mapped(a, &leaves, &same(100));
                all.append_mapped(b, &leaves, &same(100));
                let mut want: Vec<(u64, u32)> =
                    times.iter().zip(0..).map(|(&t, i)| (t, i)).collect();
                want.sort_by_key(|w| w.0);
                in_order(all, &want)
            })
            .unwrap();
    }
}
