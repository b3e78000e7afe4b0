//! Stage: samples → metric. Off-CPU time from the scheduler's switches: a
//! `sched:sched_switch` sample is taken in the context of the task leaving the CPU (its
//! stack is where it blocked); the block lasts until a later switch names that thread as
//! `next_pid`, on any CPU (tasks migrate: blocks are keyed by thread id, never by CPU).
//! Each block's nanoseconds are charged to its switch-out stack, under a leaf frame
//! naming the state the task left in (`[off-cpu: D]`, see [`TaskState`]), so that the
//! graph, search, tables and transforms can split or hide a state.
//!
//! The edges, counted in [`OffCpuNotes`]:
//!
//! * the idle task (thread 0, `swapper`) is left out: its "off-CPU" is the other tasks'
//!   CPU time;
//! * a block still open when the recording ends is *incomplete*: it counts up to the last
//!   switch's time, under one more leaf frame `[incomplete]`;
//! * a switch-in of a thread not seen leaving (it blocked before the recording began) has
//!   no stack: it is counted, not charged;
//! * a second switch-out of a thread whose block is open (a switch-in lost) and a block
//!   that would end before it began (clock skew) are skipped and counted.
//!
//! The profile's sample table holds one record per block at its switch-out time, weighing
//! its duration: the heat map and time ranges place a stall where it began.

use rustc_hash::FxHashMap;

use super::samples::{SampleTable, TaskState};
use super::tree::{CallTree, NodeId};
use super::{Profile, Unit};

/// The frame under which an open block at the end of the recording is counted.
pub const INCOMPLETE: &str = "[incomplete]";

/// The metric's name (`--metric off-cpu`, `m`).
pub const METRIC: &str = "off-cpu";

/// The leaf frame of a block that began in `state`.
pub fn state_frame(state: TaskState) -> String {
    format!("[off-cpu: {}]", state.letter())
}

/// What the conversion of switches into blocks met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffCpuNotes {
    /// Blocks with both edges.
    pub complete: u64,
    /// Blocks still open at the end, counted up to the last switch.
    pub incomplete: u64,
    /// Their nanoseconds.
    pub incomplete_ns: u64,
    /// Switch-ins of threads never seen leaving (blocked before the recording began).
    pub unmatched: u64,
    /// Blocks skipped: a switch-in lost (a second switch-out) or a negative duration.
    pub skipped: u64,
}

/// An open block: where and when its thread left.
#[derive(Clone, Copy)]
struct Open {
    leaf: NodeId,
    time: u64,
    state: TaskState,
    task: super::TaskId,
}

/// The off-CPU profile of a scheduler-switch profile `p` (its tree and its sample table
/// with [`SampleTable::switches`]), in nanoseconds; `None` when `p` holds no switches or
/// they have no times.
pub fn off_cpu(p: &Profile) -> Option<(Profile, OffCpuNotes)> {
    let table = &p.samples;
    let switches = table.switches()?;
    if !table.has_timeline() {
        return None;
    }
    let mut out = Blocks::new(&p.tree, table);
    let mut open: FxHashMap<i64, Open> = FxHashMap::default();
    for (s, sw) in table.samples().iter().zip(switches) {
        let next = i64::from(sw.next_tid);
        if next != 0 {
            match open.remove(&next) {
                Some(o) if s.time >= o.time => out.block(o, s.time - o.time, false),
                Some(_) => out.notes.skipped += 1,
                None => out.notes.unmatched += 1,
            }
        }
        let tid = table.task_of(s.task).and_then(|t| t.tid);
        let Some(tid) = tid.filter(|&t| t > 0) else {
            continue;
        };
        let block = Open {
            leaf: s.leaf,
            time: s.time,
            state: sw.state,
            task: s.task,
        };
        if open.insert(tid, block).is_some() {
            out.notes.skipped += 1;
        }
    }
    let end = table.samples().last().map_or(0, |s| s.time);
    let mut still: Vec<Open> = open.into_values().collect();
    still.sort_by_key(|o| (o.time, o.task));
    for o in still {
        out.block(o, end.saturating_sub(o.time), true);
    }
    Some(out.finish(p))
}

/// The tree and table of the blocks being built.
struct Blocks<'a> {
    from: &'a CallTree,
    tree: CallTree,
    table: SampleTable,
    /// (switch-out leaf, state, incomplete) → leaf in `tree`.
    leaves: FxHashMap<(NodeId, TaskState, bool), NodeId>,
    notes: OffCpuNotes,
}

impl<'a> Blocks<'a> {
    fn new(from: &'a CallTree, table: &SampleTable) -> Self {
        let mut blocks = SampleTable::default();
        // The same tasks under the same ids.
        for t in table.tasks() {
            blocks.task(&t.comm, t.pid, t.tid);
        }
        Self {
            from,
            tree: from.empty_like(),
            table: blocks,
            leaves: FxHashMap::default(),
            notes: OffCpuNotes::default(),
        }
    }

    fn block(&mut self, o: Open, ns: u64, incomplete: bool) {
        if incomplete {
            self.notes.incomplete += 1;
            self.notes.incomplete_ns = self.notes.incomplete_ns.saturating_add(ns);
        } else {
            self.notes.complete += 1;
        }
        let key = (o.leaf, o.state, incomplete);
        let leaf = if let Some(&leaf) = self.leaves.get(&key) {
            self.tree.add_to_stack(leaf, ns, 1);
            leaf
        } else {
            let mut frames: Vec<_> = self
                .from
                .path(o.leaf)
                .into_iter()
                .filter(|&n| n != NodeId::ROOT)
                .map(|n| self.from.node(n).name)
                .collect();
            frames.push(self.tree.intern(&state_frame(o.state)));
            if incomplete {
                frames.push(self.tree.intern(INCOMPLETE));
            }
            let leaf = self.tree.insert_ids_counted(frames, ns, 1);
            self.leaves.insert(key, leaf);
            leaf
        };
        self.table.push(Some(o.time), o.task, leaf, ns);
    }

    fn finish(mut self, p: &Profile) -> (Profile, OffCpuNotes) {
        self.tree.finish();
        self.table.finish();
        let mut stats = p.stats.clone();
        stats.samples = self.notes.complete + self.notes.incomplete;
        stats.unit = Unit::Nanoseconds;
        stats.event = Some(METRIC.to_owned());
        let profile = Profile {
            source: p.source.clone(),
            tree: self.tree,
            stats,
            samples: std::sync::Arc::new(self.table),
            metrics: super::metrics::Metrics::default(),
        };
        (profile, self.notes)
    }
}
