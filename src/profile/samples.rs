//! Stage: samples → timeline. One compact record per sample beside the call tree: when it
//! was taken, by which task, where its stack ended in the tree and what it weighs. Slices
//! (time ranges, task sets) and the heat map are computed from this table, never by
//! parsing the input again.
//!
//! A record is 24 bytes ([`Sample`]: time `u64`, weight `u64`, leaf `u32`, task `u32`), so
//! **1 M samples cost 24,000,000 bytes (22.9 MiB)** plus a few bytes per distinct task; the
//! table never holds frames (those are in the tree, shared by every sample of a stack).
//!
//! * The time is perf's timestamp in nanoseconds, as printed (since boot, usually), not
//!   relative to the first sample: a relative `u32` would hold only 4.3 s in nanoseconds
//!   (`perf script --ns`) or 71 minutes in microseconds, and deltas would lose the binary
//!   search that finds a range in O(log n). Absolute times also need no rebasing when
//!   per-thread tables are merged or a stream grows. Ranges are given relative to the
//!   first sample ([`SampleTable::first_time`]).
//! * The weight is the sample's period, which is nanoseconds for clock events and can
//!   pass `u32::MAX` (a 5 s off-CPU wait, `-c 10000000000`): 8 bytes.
//! * Every record is one sample, so sample counts need no field.
//!
//! Inputs without timestamps (folded stacks, SystemTap) have an empty table; a perf
//! script printed without its time field has records but no timeline
//! ([`SampleTable::has_timeline`]).

use rustc_hash::FxHashMap;

use super::tree::NodeId;

/// Index of a task in a [`SampleTable`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub u32);

impl TaskId {
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// A thread as perf names it: its command name, process id (when printed) and thread id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Task {
    /// Command name as printed (it may contain spaces).
    pub comm: Box<str>,
    /// Process id; `None` when perf printed only the thread id (`perf script -F +pid`
    /// prints both).
    pub pid: Option<i64>,
    /// Thread id (-1 for a task that had exited); `None` when unreadable.
    pub tid: Option<i64>,
}

/// One sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// When it was taken, in nanoseconds (perf's clock; 0 when the input had no time).
    pub time: u64,
    /// Its weight in the tree's units (the period; 1 without one).
    pub weight: u64,
    /// The tree node its stack ended in.
    pub leaf: NodeId,
    /// Who was running.
    pub task: TaskId,
}

/// What a `sched:sched_switch` sample says besides its stack: why the task that was
/// running left the CPU, and which thread came on it. 8 bytes, in a column beside the
/// samples of a scheduler event only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// The thread switched in (`next_pid`; 0 is the idle task).
    pub next_tid: i32,
    /// The state of the task switched out (`prev_state`).
    pub state: TaskState,
}

/// A task's state when it was switched out, as perf prints `prev_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskState {
    /// `R`, `R+`: still runnable — preempted, waiting for a CPU (contention).
    Runnable,
    /// `S`: interruptible sleep (an idle event loop, a condition variable, a poll).
    Sleeping,
    /// `D`: uninterruptible sleep (disk I/O, page faults, some locks).
    Uninterruptible,
    /// `T`: stopped (by a signal).
    Stopped,
    /// `t`: stopped by a tracer.
    Traced,
    /// `X`: dead (the task is exiting).
    Dead,
    /// `Z`: zombie.
    Zombie,
    /// `P`: parked (a kernel thread).
    Parked,
    /// `I`: idle (a kernel thread waiting for work).
    Idle,
    /// A state this reader does not know (kernels changed the encoding).
    Other,
}

impl TaskState {
    /// The state of a `prev_state=` value: its first letter, `+` (preempted) and what
    /// follows ignored; letters this reader does not know are [`TaskState::Other`].
    pub fn parse(text: &str) -> Self {
        match text.trim().as_bytes().first() {
            Some(b'R') => Self::Runnable,
            Some(b'S') => Self::Sleeping,
            Some(b'D') => Self::Uninterruptible,
            Some(b'T') => Self::Stopped,
            Some(b't') => Self::Traced,
            Some(b'X') => Self::Dead,
            Some(b'Z') => Self::Zombie,
            Some(b'P') => Self::Parked,
            Some(b'I') => Self::Idle,
            _ => Self::Other,
        }
    }

    /// The letter perf prints (`?` for an unknown state).
    pub fn letter(self) -> char {
        match self {
            Self::Runnable => 'R',
            Self::Sleeping => 'S',
            Self::Uninterruptible => 'D',
            Self::Stopped => 'T',
            Self::Traced => 't',
            Self::Dead => 'X',
            Self::Zombie => 'Z',
            Self::Parked => 'P',
            Self::Idle => 'I',
            Self::Other => '?',
        }
    }
}

/// Where perf's dummy timestamps begin: `perf record --off-cpu` stamps the blocks it
/// gathers in BPF and writes at the end with `0xFFFFFFFF00000000` ns (printed rounded to
/// the µs). No clock reads that (584 years of uptime). Samples from here on stay in the
/// tree but out of the timeline: the heat map, time ranges, the first time and the
/// duration.
pub const DUMMY_TIME_FROM: u64 = 0xFFFF_FFF0_0000_0000;

/// Every sample of a profile, ordered by time once finished, and the table of tasks.
#[derive(Debug, Clone, Default)]
pub struct SampleTable {
    samples: Vec<Sample>,
    /// For a scheduler event, each sample's [`Switch`] (same order as `samples`);
    /// empty otherwise.
    switches: Vec<Switch>,
    /// Times a thread came on a CPU (`PERF_RECORD_SWITCH IN`), `(time, tid)`, sorted by
    /// time once finished: the switch-ins a per-process recording's tracepoint misses.
    switch_ins: Vec<(u64, i64)>,
    tasks: Vec<Task>,
    /// Thread id → the tasks with it (a thread that called exec changes its comm).
    by_tid: FxHashMap<Option<i64>, TaskId>,
    /// The tasks after the first of a thread id (its comms after an exec), rare.
    more_by_tid: FxHashMap<Option<i64>, Vec<TaskId>>,
    /// Samples whose input gave no time.
    untimed: u64,
    /// Times never decrease along `samples`.
    sorted: bool,
    /// The recording's first time, when it is before this table's first sample (the
    /// metrics of one recording count from one origin).
    origin: Option<u64>,
    /// Where the samples of each piece of the input begin, `(piece, first sample)`, the
    /// pieces numbered in input order (a parser thread's chunks, by first line). Tables
    /// of pieces are joined piece by piece in input order, so samples of one instant
    /// keep the input's order however the chunks went to the threads.
    pieces: Vec<(u64, usize)>,
    /// Each task's first sample (its index), by [`TaskId`], once finished, when a thread
    /// id has several tasks: the order a thread renamed by exec had its names in.
    firsts: Vec<u32>,
}

impl SampleTable {
    /// The id of a task, added on first sight.
    pub fn task(&mut self, comm: &str, pid: Option<i64>, tid: Option<i64>) -> TaskId {
        let same = |t: &Task| t.pid == pid && &*t.comm == comm;
        // The first task of a thread id is kept inline: one lookup for most samples.
        let first = self.by_tid.get(&tid).copied();
        if let Some(id) = first.filter(|id| same(&self.tasks[id.index()])) {
            return id;
        }
        let known = first.and_then(|_| {
            self.more_by_tid
                .get(&tid)
                .and_then(|ids| ids.iter().copied().find(|id| same(&self.tasks[id.index()])))
        });
        if let Some(id) = known {
            return id;
        }
        let id = TaskId(u32::try_from(self.tasks.len()).unwrap_or(u32::MAX));
        self.tasks.push(Task {
            comm: comm.into(),
            pid,
            tid,
        });
        if first.is_some() {
            self.more_by_tid.entry(tid).or_default().push(id);
        } else {
            self.by_tid.insert(tid, id);
        }
        id
    }

    /// Appends one sample; `time` is `None` when the input printed none.
    pub fn push(&mut self, time: Option<u64>, task: TaskId, leaf: NodeId, weight: u64) {
        if time.is_none() {
            self.untimed += 1;
        }
        let time = time.unwrap_or(0);
        let in_order = self.samples.last().is_none_or(|s| s.time <= time);
        self.sorted = (self.sorted || self.samples.is_empty()) && in_order;
        self.samples.push(Sample {
            time,
            weight,
            leaf,
            task,
        });
    }

    /// Appends one `sched:sched_switch` sample and what it says of the switch. A table
    /// holds switches for every sample or for none: the first plain sample or switch
    /// decides (a table of one event has one kind).
    pub fn push_switch(
        &mut self,
        time: Option<u64>,
        task: TaskId,
        leaf: NodeId,
        weight: u64,
        switch: Switch,
    ) {
        if self.switches.len() == self.samples.len() {
            self.switches.push(switch);
        }
        self.push(time, task, leaf, weight);
    }

    /// Sets the leaf and weight of sample `i` (a record made before its weight was known:
    /// an off-CPU block, recorded when it began and measured when it ended).
    pub fn settle(&mut self, i: usize, leaf: NodeId, weight: u64) {
        if let Some(s) = self.samples.get_mut(i) {
            s.leaf = leaf;
            s.weight = weight;
        }
    }

    /// Sets each sample's leaf to `f(index, sample)` (records made before their leaves
    /// were known: the off-CPU blocks, given their leaves all at once).
    pub fn relabel(&mut self, mut f: impl FnMut(usize, &Sample) -> NodeId) {
        for (i, s) in self.samples.iter_mut().enumerate() {
            s.leaf = f(i, s);
        }
    }

    /// Drops the samples whose leaf is the root (records never settled).
    pub fn drop_unsettled(&mut self) {
        self.samples.retain(|s| s.leaf != NodeId::ROOT);
    }

    /// Records that thread `tid` came on a CPU at `time` (a switch record, not a sample).
    pub fn push_switch_in(&mut self, time: u64, tid: i64) {
        self.switch_ins.push((time, tid));
    }

    /// The switch-in records, `(time, tid)`, in time order once finished.
    pub fn switch_ins(&self) -> &[(u64, i64)] {
        &self.switch_ins
    }

    /// Each sample's [`Switch`], in the order of [`SampleTable::samples`], when every
    /// sample is a scheduler switch; else `None`.
    pub fn switches(&self) -> Option<&[Switch]> {
        (!self.switches.is_empty() && self.switches.len() == self.samples.len())
            .then_some(&self.switches[..])
    }

    /// Marks that the samples pushed from now on come from piece `key` of the input (the
    /// pieces numbered in input order): [`SampleTable::append_mapped`] joins two tables
    /// of marked pieces in the pieces' order.
    pub fn begin_piece(&mut self, key: u64) {
        if self
            .pieces
            .last()
            .is_some_and(|&(_, at)| at == self.samples.len())
        {
            self.pieces.pop();
        }
        self.pieces.push((key, self.samples.len()));
    }

    /// Appends every sample of `other`, whose leaves are nodes of another tree: `leaves`
    /// maps them to this table's tree (what [`super::CallTree::merge_from_mapped`]
    /// returns). Its tasks are added to this table's.
    pub fn append_mapped(&mut self, other: SampleTable, leaves: &[NodeId]) {
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
            self.switches = if switches_kept {
                other.switches
            } else {
                Vec::new()
            };
            self.pieces = other.pieces;
            return;
        }
        if !self.pieces.is_empty() && !other.pieces.is_empty() {
            // Pieces of one input (parser threads' chunks): joined in the input's order.
            self.join_pieces(&mapped, &other.switches, &other.pieces, switches_kept);
            return;
        }
        self.pieces.clear();
        if both_sorted && !joined_in_order {
            // Two sorted tables (two parser threads' chunks, interleaved in time): merged
            // in one pass rather than appended and sorted at the end.
            let with = switches_kept && !self.switches.is_empty();
            merge_into(
                (&mut self.samples, with.then_some(&mut self.switches)),
                (&mapped, &other.switches),
            );
            self.sorted = true;
            return;
        }
        if switches_kept {
            self.switches.extend_from_slice(&other.switches);
        }
        self.samples.extend(mapped);
    }

    /// Joins `more` (the samples of other pieces, already mapped to this table's tree and
    /// tasks, with their switches) to this table's, piece by piece in the pieces' order.
    /// Whether the result is in time order is left to [`SampleTable::finish`].
    fn join_pieces(
        &mut self,
        more: &[Sample],
        more_sw: &[Switch],
        more_pieces: &[(u64, usize)],
        with_switches: bool,
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
        let with = with_switches && !(mine_sw.is_empty() && more_sw.is_empty());
        self.samples = Vec::with_capacity(mine.len() + more.len());
        if with {
            self.switches = Vec::with_capacity(self.samples.capacity());
        }
        self.pieces.clear();
        for (key, side, start, end) in all {
            let (from, from_sw) = if side {
                (more, more_sw)
            } else {
                (&mine[..], &mine_sw[..])
            };
            self.pieces.push((key, self.samples.len()));
            self.samples.extend_from_slice(&from[start..end]);
            if with {
                self.switches.extend_from_slice(&from_sw[start..end]);
            }
        }
        self.sorted = false;
    }

    /// Orders the samples by time (stably: samples of one instant keep their order). Once
    /// at the end of loading; nothing to do when they came in order, as perf prints them.
    pub fn finish(&mut self) {
        self.switch_ins.sort_unstable();
        self.pieces = Vec::new();
        if !self.sorted {
            let runs = sorted_runs(&self.samples);
            if runs.len() == 1 {
                self.sorted = true;
            } else if runs.len() <= MAX_RUNS {
                // A table of a few sorted runs (one per parser thread): each merged into
                // the runs before it.
                let with = self.switches.len() == self.samples.len() && !self.switches.is_empty();
                let all = std::mem::take(&mut self.samples);
                let all_sw = if with {
                    std::mem::take(&mut self.switches)
                } else {
                    Vec::new()
                };
                let ends: Vec<usize> = runs.iter().skip(1).copied().chain([all.len()]).collect();
                for (&start, &end) in runs.iter().zip(&ends) {
                    let run_sw = if with { &all_sw[start..end] } else { &[][..] };
                    merge_into(
                        (&mut self.samples, with.then_some(&mut self.switches)),
                        (&all[start..end], run_sw),
                    );
                }
            } else if self.switches.len() == self.samples.len() && !self.switches.is_empty() {
                let mut both: Vec<(Sample, Switch)> = self
                    .samples
                    .iter()
                    .copied()
                    .zip(self.switches.iter().copied())
                    .collect();
                both.sort_by_key(|(s, _)| s.time);
                (self.samples, self.switches) = both.into_iter().unzip();
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

    /// Where task `id` was first sampled among the samples (once finished): tasks of one
    /// thread in this order are in the order they began to run. `None` when no thread id
    /// of the table has several tasks (there is nothing to order).
    pub fn first_sample_of(&self, id: TaskId) -> Option<usize> {
        self.firsts
            .get(id.index())
            .filter(|&&f| f != u32::MAX)
            .map(|&f| f as usize)
    }

    /// The samples, in time order once finished.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The tasks, by [`TaskId`].
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The task behind an id.
    pub fn task_of(&self, id: TaskId) -> Option<&Task> {
        self.tasks.get(id.index())
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when the input gave no sample records (folded stacks, SystemTap).
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// True when every sample has a time, so that time ranges and the heat map mean
    /// something.
    pub fn has_timeline(&self) -> bool {
        self.timed_len() > 0 && self.untimed == 0
    }

    /// How many samples (in time order, first) have a real time: those after them have
    /// perf's dummy one ([`DUMMY_TIME_FROM`]).
    fn timed_len(&self) -> usize {
        self.samples.partition_point(|s| s.time < DUMMY_TIME_FROM)
    }

    /// Samples that came without a time.
    pub fn untimed(&self) -> u64 {
        self.untimed
    }

    /// True when some task has a process id (perf printed `pid/tid`).
    pub fn has_pids(&self) -> bool {
        self.tasks.iter().any(|t| t.pid.is_some())
    }

    /// The origin of relative times: the recording's first time (of any of its events),
    /// else the first sample's (0 when empty).
    pub fn first_time(&self) -> u64 {
        let own = self.samples.first().map_or(0, |s| s.time);
        self.origin.map_or(own, |o| o.min(own))
    }

    /// The first real time of the samples (perf's dummy times left out), if any.
    pub fn first_sample_time(&self) -> Option<u64> {
        self.samples
            .first()
            .map(|s| s.time)
            .filter(|&t| t < DUMMY_TIME_FROM && self.untimed == 0)
    }

    /// Counts relative times from `origin`, the recording's first time (when it is not
    /// after this table's first sample).
    pub fn set_origin(&mut self, origin: u64) {
        self.origin = Some(origin);
    }

    /// Nanoseconds from the first sample to the last (with a real time).
    pub fn duration(&self) -> u64 {
        self.samples[..self.timed_len()]
            .last()
            .map_or(0, |s| s.time.saturating_sub(self.first_time()))
    }

    /// The index range of the samples taken in `[start, end)`, nanoseconds relative to
    /// the first sample (the table must be finished: it is a binary search).
    pub fn range(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        let origin = self.first_time();
        let timed = &self.samples[..self.timed_len()];
        let at = |rel: u64| {
            let t = origin.saturating_add(rel);
            timed.partition_point(|s| s.time < t)
        };
        let (from, to) = (at(start), at(end));
        from..to.max(from)
    }
}

impl PartialEq for SampleTable {
    /// Equal samples and tasks (the lookup index follows from the tasks).
    fn eq(&self, other: &Self) -> bool {
        self.samples == other.samples
            && self.switches == other.switches
            && self.switch_ins == other.switch_ins
            && self.tasks == other.tasks
            && self.untimed == other.untimed
    }
}

impl Eq for SampleTable {}

/// `more` (and its switches, when `into` has them) merged into `into`, both in time
/// order, from the back into `into`'s grown buffer (no second buffer: a grown allocation
/// is remapped, not copied); at one instant `into`'s first (stable).
fn merge_into(
    (into, into_sw): (&mut Vec<Sample>, Option<&mut Vec<Switch>>),
    (more, more_sw): (&[Sample], &[Switch]),
) {
    let (kept, added) = (into.len(), more.len());
    into.extend_from_slice(more);
    let mut sw = into_sw.filter(|s| s.len() == kept && more_sw.len() == added);
    if let Some(s) = sw.as_mut() {
        s.extend_from_slice(more_sw);
    }
    // From the back: the next place to fill, and how many of each side are left.
    let (mut left, mut right, mut at) = (kept, added, kept + added);
    while right > 0 {
        at -= 1;
        if left > 0 && into[left - 1].time > more[right - 1].time {
            left -= 1;
            into[at] = into[left];
            if let Some(s) = sw.as_mut() {
                s[at] = s[left];
            }
        } else {
            right -= 1;
            into[at] = more[right];
            if let Some(s) = sw.as_mut() {
                s[at] = more_sw[right];
            }
        }
    }
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
        t.append_mapped(u, &[NodeId(2)]);
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
                    }
                }
                let mut want: Vec<(u64, u32)> =
                    t.samples.iter().map(|s| (s.time, s.leaf.0)).collect();
                want.sort_by_key(|w| w.0);
                in_order(t, &want)
            })
            .unwrap();
    }

    /// `t` finished is in the order `want` gives (time, leaf), each switch beside its
    /// sample (the switches' `next_tid` numbers their leaves).
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
                t.append_mapped(u, &leaves);
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
                    }
                    at += len;
                }
                let leaves: Vec<NodeId> = (0..100).map(NodeId).collect();
                // Into an empty table first, as the parser's results are gathered.
                let mut all = SampleTable::default();
                let [a, b] = tables;
                all.append_mapped(a, &leaves);
                all.append_mapped(b, &leaves);
                let mut want: Vec<(u64, u32)> =
                    times.iter().zip(0..).map(|(&t, i)| (t, i)).collect();
                want.sort_by_key(|w| w.0);
                in_order(all, &want)
            })
            .unwrap();
    }

    #[test]
    fn task_states_read_perfs_letters_defensively() {
        for (text, want) in [
            ("R", TaskState::Runnable),
            ("R+", TaskState::Runnable),
            ("S", TaskState::Sleeping),
            ("D", TaskState::Uninterruptible),
            ("D|W", TaskState::Uninterruptible),
            ("I", TaskState::Idle),
            ("t", TaskState::Traced),
            ("T", TaskState::Stopped),
            ("X", TaskState::Dead),
            ("Z", TaskState::Zombie),
            ("P", TaskState::Parked),
            ("K", TaskState::Other),
            ("", TaskState::Other),
            ("0x402", TaskState::Other),
        ] {
            assert_eq!(TaskState::parse(text), want, "{text}");
        }
        assert_eq!(TaskState::Other.letter(), '?');
    }

    #[test]
    fn a_record_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Sample>(), 24);
        // 1 M samples, as the module doc says.
        assert_eq!(std::mem::size_of::<Sample>() * 1_000_000, 24_000_000);
    }

    #[test]
    fn tasks_are_interned_by_comm_pid_and_tid() {
        let mut t = SampleTable::default();
        let a = t.task("server", Some(10), Some(11));
        let b = t.task("server", Some(10), Some(12));
        // exec changes the comm of a thread: another task.
        let c = t.task("sh", Some(10), Some(11));
        assert_eq!(t.task("server", Some(10), Some(11)), a);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(t.tasks().len(), 3);
        assert_eq!(&*t.task_of(c).unwrap().comm, "sh");
        assert!(t.has_pids());
    }

    #[test]
    fn unordered_samples_are_sorted_stably_once() {
        let mut t = SampleTable::default();
        let task = t.task("a", None, Some(1));
        for (time, leaf) in [(30, 1), (10, 2), (30, 3), (20, 4)] {
            t.push(Some(time), task, NodeId(leaf), 1);
        }
        t.finish();
        let order: Vec<(u64, u32)> = t.samples().iter().map(|s| (s.time, s.leaf.0)).collect();
        assert_eq!(order, [(10, 2), (20, 4), (30, 1), (30, 3)]);
        assert_eq!((t.first_time(), t.duration()), (10, 20));
        assert_eq!(t.range(0, 10), 0..1);
        assert_eq!(t.range(10, 20), 1..2);
        assert_eq!(t.range(10, 21), 1..4);
        assert_eq!(t.range(25, 5), 4..4);
        assert!(t.has_timeline());
    }

    #[test]
    fn appended_tables_are_remapped() {
        let mut a = SampleTable::default();
        let x = a.task("x", None, Some(1));
        a.push(Some(5), x, NodeId(1), 2);
        let mut b = SampleTable::default();
        let y = b.task("y", None, Some(2));
        let x2 = b.task("x", None, Some(1));
        b.push(Some(1), y, NodeId(1), 3);
        b.push(Some(7), x2, NodeId(2), 4);
        a.append_mapped(b, &[NodeId(0), NodeId(7), NodeId(8)]);
        a.finish();
        let got: Vec<(u64, u32, u32, u64)> = a
            .samples()
            .iter()
            .map(|s| (s.time, s.task.0, s.leaf.0, s.weight))
            .collect();
        assert_eq!(got, [(1, 1, 7, 3), (5, 0, 1, 2), (7, 0, 8, 4)]);
        assert_eq!(a.tasks().len(), 2);
    }

    #[test]
    fn untimed_samples_mean_no_timeline() {
        let mut t = SampleTable::default();
        assert!(!t.has_timeline());
        let task = t.task("a", None, Some(1));
        t.push(None, task, NodeId(1), 1);
        assert!(!t.has_timeline());
        assert_eq!((t.len(), t.untimed()), (1, 1));
        assert!(!t.has_pids());
    }
}
