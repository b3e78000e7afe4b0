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

mod merge;

use super::source::SourceLines;
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
    /// The source lines of the samples' frames, for inputs that have them (kept here, as
    /// the records are, for the tree as read).
    lines: SourceLines,
    /// Each sample's stack of source lines in `lines` ([`SourceLines::stack`]; 0: none),
    /// when some sample has lines (shorter while loading: the samples past it have none).
    line_stacks: Vec<u32>,
}

impl SampleTable {
    /// The source lines of the samples' frames (empty for inputs without lines).
    pub fn lines(&self) -> &SourceLines {
        &self.lines
    }

    /// The source lines, to record into.
    pub fn lines_mut(&mut self) -> &mut SourceLines {
        &mut self.lines
    }

    /// Gives the last sample pushed the source-line stack `stack` (what
    /// [`SourceLines::record_from_leaf`] returned for it).
    pub fn set_line_stack(&mut self, stack: u32) {
        let Some(last) = self.samples.len().checked_sub(1) else {
            return;
        };
        if stack == 0 && self.line_stacks.is_empty() {
            return;
        }
        self.line_stacks.resize(last, 0);
        self.line_stacks.push(stack);
    }

    /// Each sample's source-line stack ([`SourceLines::stack`], 0 for none), in the order
    /// of [`SampleTable::samples`], once finished; `None` when no sample has lines.
    pub fn line_stacks(&self) -> Option<&[u32]> {
        (!self.line_stacks.is_empty() && self.line_stacks.len() == self.samples.len())
            .then_some(&self.line_stacks[..])
    }

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
        let keep: Vec<bool> = self
            .samples
            .iter()
            .map(|s| s.leaf != NodeId::ROOT)
            .collect();
        retain_by(&mut self.samples, &keep);
        retain_by(&mut self.switches, &keep);
        retain_by(&mut self.line_stacks, &keep);
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

/// Keeps the values of `col` whose place is `true` in `keep` (a column beside the samples
/// as they are filtered).
fn retain_by<T>(col: &mut Vec<T>, keep: &[bool]) {
    let mut at = 0;
    col.retain(|_| {
        at += 1;
        keep.get(at - 1).copied().unwrap_or(false)
    });
}

impl PartialEq for SampleTable {
    /// Equal samples and tasks (the lookup index follows from the tasks).
    fn eq(&self, other: &Self) -> bool {
        self.samples == other.samples
            && self.switches == other.switches
            && self.line_stacks == other.line_stacks
            && self.switch_ins == other.switch_ins
            && self.tasks == other.tasks
            && self.untimed == other.untimed
    }
}

impl Eq for SampleTable {}
#[cfg(test)]
mod tests {
    use super::*;

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
        a.append_mapped(b, &[NodeId(0), NodeId(7), NodeId(8)], &[]);
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
