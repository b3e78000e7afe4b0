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
//! * a block still open when the recording ends is *incomplete*: it counts up to the
//!   recording's last event, under one more leaf frame `[incomplete]`;
//! * a switch-in of a thread not seen leaving (it blocked before the recording began) has
//!   no stack: it is counted, not charged;
//! * a per-process recording's tracepoint misses most switch-ins (they run in the context
//!   of a task not recorded): `PERF_RECORD_SWITCH IN` records (`perf record
//!   --switch-events`, `perf script --show-switch-events`) give them exactly; without
//!   them a block ends at the thread's next sample of any event or its next switch-out,
//!   an upper bound, counted as *bounded* under one more leaf frame `[upper bound]`;
//! * a block that would end before it began (clock skew) is skipped and counted.
//!
//! The profile's sample table holds one record per block at its switch-out time, weighing
//! its duration: the heat map and time ranges place a stall where it began.

use rustc_hash::FxHashMap;

use super::NameId;
use super::samples::{SampleTable, TaskState};
use super::tree::{CallTree, NodeId};
use super::{Profile, Unit};

/// The frame under which an open block at the end of the recording is counted.
pub const INCOMPLETE: &str = "[incomplete]";

/// The frame under which a block whose switch-in was not recorded is counted: it ended
/// at the thread's next sign of life, an upper bound.
pub const UPPER_BOUND: &str = "[upper bound]";

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
    /// Blocks whose switch-in was not recorded (a per-process recording, or lost events),
    /// ended at the thread's next sample or switch-out: their time is an upper bound.
    pub bounded: u64,
    /// Blocks skipped: a negative duration (clock skew).
    pub skipped: u64,
}

/// An open block: where and when its thread left.
#[derive(Clone, Copy)]
struct Open {
    leaf: NodeId,
    time: u64,
    state: TaskState,
    /// Its record in the blocks' table, made when it began (so the table is in time
    /// order without a sort) and settled when it ends.
    slot: usize,
}

/// One moment of a thread's life, in time order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Moment {
    /// It came on a CPU (a `PERF_RECORD_SWITCH IN` record).
    In(i64),
    /// A sample of another event was taken while it ran.
    Seen(i64),
    /// The `index`-th scheduler switch.
    Switch(usize),
}

/// The off-CPU profile of the scheduler-switch profile among `all` (the metrics of one
/// input: its tree and its sample table with [`SampleTable::switches`]), in nanoseconds;
/// `None` when none holds timed switches. The other profiles' samples and the switch-in
/// records bound the blocks whose switch-in the tracepoint missed (a per-process
/// recording).
pub fn off_cpu(all: &[Profile]) -> Option<(Profile, OffCpuNotes)> {
    let p = all.iter().find(|p| p.samples.switches().is_some())?;
    let table = &p.samples;
    let switches = table.switches()?;
    if !table.has_timeline() {
        return None;
    }
    let (others, records) = moments(all, p);
    let last_other = others.last().map(|m| m.0);
    // The switches (in time order) merged with the other moments as they come: at one
    // instant the others go first.
    let switches_in_order = table
        .samples()
        .iter()
        .enumerate()
        .map(|(i, s)| (s.time, Moment::Switch(i)));
    let merged = merge_sorted(others.into_iter(), switches_in_order);
    // The recording's last event of any kind ends the blocks still open.
    let end = table
        .samples()
        .last()
        .map(|s| s.time)
        .into_iter()
        .chain(last_other)
        .max()
        .unwrap_or(0);
    let mut out = Blocks::new(&p.tree, table);
    // The open blocks, one place per thread id: the places are numbered once (a thread
    // leaving is found by its task, without hashing; one coming in by its id).
    let mut place_of: FxHashMap<i64, u32> = FxHashMap::default();
    let task_place: Vec<Option<u32>> = table
        .tasks()
        .iter()
        .map(|t| {
            let tid = t.tid.filter(|&t| t > 0)?;
            let next = u32::try_from(place_of.len()).ok()?;
            Some(*place_of.entry(tid).or_insert(next))
        })
        .collect();
    let mut open: Vec<Option<Open>> = vec![None; place_of.len()];
    let take = |tid: i64, open: &mut Vec<Option<Open>>| {
        place_of
            .get(&tid)
            .and_then(|&p| open.get_mut(p as usize))
            .and_then(Option::take)
    };
    for (time, m) in merged {
        match m {
            Moment::In(tid) => {
                if let Some(o) = take(tid, &mut open) {
                    out.close(o, time, false);
                }
            }
            Moment::Seen(tid) => {
                if let Some(o) = take(tid, &mut open) {
                    out.close(o, time, true);
                }
            }
            Moment::Switch(i) => {
                let (s, sw) = (table.samples()[i], switches[i]);
                let next = i64::from(sw.next_tid);
                if next > 0 {
                    match take(next, &mut open) {
                        Some(o) => out.close(o, time, false),
                        None if !records => out.notes.unmatched += 1,
                        None => {}
                    }
                }
                let Some(place) = task_place.get(s.task.0 as usize).copied().flatten() else {
                    continue;
                };
                let block = Open {
                    leaf: s.leaf,
                    time,
                    state: sw.state,
                    slot: out.begin(time, s.task),
                };
                // A thread leaving again before any switch-in was seen: its block ended
                // before this, when is not known.
                if let Some(o) = open[place as usize].replace(block) {
                    out.close(o, time, true);
                }
            }
        }
    }
    // Their records are in place already: the order they are ended in does not matter.
    for o in open.into_iter().flatten() {
        out.block(o, end.saturating_sub(o.time), Edge::Incomplete);
    }
    Some(out.finish(p))
}

/// The moments of the threads' lives that `all` records besides the switches of `p` (the
/// profile of the switches): switch-ins and the samples of other events, in time order
/// (at one instant switch-ins first); and whether any switch-in record is among them.
fn moments(all: &[Profile], p: &Profile) -> (Vec<(u64, Moment)>, bool) {
    let mut moments: Vec<(u64, Moment)> = Vec::new();
    let mut records = false;
    for q in all {
        for &(t, tid) in q.samples.switch_ins() {
            moments.push((t, Moment::In(tid)));
            records = true;
        }
        if std::ptr::eq(q, p) || !q.samples.has_timeline() {
            continue;
        }
        for s in q.samples.samples() {
            if let Some(tid) = q.samples.task_of(s.task).and_then(|t| t.tid) {
                moments.push((s.time, Moment::Seen(tid)));
            }
        }
    }
    moments.sort_unstable();
    (moments, records)
}

/// Two sorted streams as one, in order; at equal items `a`'s first.
fn merge_sorted<T: Ord>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// How a block ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Edge {
    /// At its switch-in.
    Complete,
    /// At the thread's next sign of life: an upper bound.
    Bounded,
    /// Still open at the end of the recording.
    Incomplete,
}

/// The tree and table of the blocks being built.
struct Blocks<'a> {
    from: &'a CallTree,
    tree: CallTree,
    table: SampleTable,
    /// (switch-out leaf, state, how it ended) → leaf in `tree`.
    leaves: FxHashMap<(NodeId, TaskState, Edge), NodeId>,
    /// How each record of `table` ended, by index (`None`: not yet, or skipped). A
    /// block's record holds its switch-out leaf (a node of `from`) and its time until
    /// [`Blocks::finish`] finds the leaves of `tree` for them all in one pass.
    kinds: Vec<Option<(TaskState, Edge)>>,
    /// Each node of `from` (by index) → its node in `tree`, once made (`u32::MAX`
    /// before): a new leaf's stack is made from its nearest caller already there.
    mapped: Vec<u32>,
    /// The state frames' names, by state.
    state_names: Vec<(TaskState, NameId)>,
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
            kinds: Vec::new(),
            mapped: vec![u32::MAX; from.len()],
            state_names: Vec::new(),
            notes: OffCpuNotes::default(),
        }
    }

    /// The node of `tree` for node `n` of `from`, made with its callers not made yet.
    fn map_node(&mut self, n: NodeId) -> NodeId {
        let mut chain = Vec::new();
        let mut at = n;
        let mut base = NodeId::ROOT;
        while at != NodeId::ROOT {
            match self.mapped.get(at.0 as usize) {
                Some(&m) if m != u32::MAX => {
                    base = NodeId(m);
                    break;
                }
                _ => {}
            }
            chain.push(at);
            at = self.from.parent(at).unwrap_or(NodeId::ROOT);
        }
        for &c in chain.iter().rev() {
            base = self.tree.child_or_add(base, self.from.node(c).name);
            if let Some(m) = self.mapped.get_mut(c.0 as usize) {
                *m = base.0;
            }
        }
        base
    }

    /// The name of the frame of `state`.
    fn state_name(&mut self, state: TaskState) -> NameId {
        if let Some(&(_, id)) = self.state_names.iter().find(|(s, _)| *s == state) {
            return id;
        }
        let id = self.tree.intern(&state_frame(state));
        self.state_names.push((state, id));
        id
    }

    /// A record for a block beginning at `time`, settled when it ends.
    fn begin(&mut self, time: u64, task: super::TaskId) -> usize {
        self.table.push(Some(time), task, NodeId::ROOT, 0);
        self.kinds.push(None);
        self.table.len() - 1
    }

    /// Ends `o` at `time`: at its switch-in, or at a sign of life when `bounded`.
    fn close(&mut self, o: Open, time: u64, bounded: bool) {
        match time.checked_sub(o.time) {
            Some(ns) if bounded => self.block(o, ns, Edge::Bounded),
            Some(ns) => self.block(o, ns, Edge::Complete),
            None => self.notes.skipped += 1,
        }
    }

    fn block(&mut self, o: Open, ns: u64, edge: Edge) {
        match edge {
            Edge::Incomplete => {
                self.notes.incomplete += 1;
                self.notes.incomplete_ns = self.notes.incomplete_ns.saturating_add(ns);
            }
            Edge::Bounded => self.notes.bounded += 1,
            Edge::Complete => self.notes.complete += 1,
        }
        // Its leaf in `tree` is found at the end, with the others': a lookup here, in
        // the middle of the pairing, waited for memory at every block.
        self.table.settle(o.slot, o.leaf, ns);
        if let Some(k) = self.kinds.get_mut(o.slot) {
            *k = Some((o.state, edge));
        }
    }

    /// The leaf in `tree` of blocks that left from `from`'s node `leaf` in `state`
    /// and ended so: the switch-out stack, a state frame, and a mark unless complete.
    fn leaf_of(&mut self, leaf: NodeId, state: TaskState, edge: Edge) -> NodeId {
        let key = (leaf, state, edge);
        if let Some(&at) = self.leaves.get(&key) {
            return at;
        }
        let stack = self.map_node(leaf);
        let state = self.state_name(state);
        let mut at = self.tree.child_or_add(stack, state);
        let mark = match edge {
            Edge::Complete => None,
            Edge::Bounded => Some(UPPER_BOUND),
            Edge::Incomplete => Some(INCOMPLETE),
        };
        if let Some(mark) = mark {
            let mark = self.tree.intern(mark);
            at = self.tree.child_or_add(at, mark);
        }
        self.leaves.insert(key, at);
        at
    }

    fn finish(mut self, p: &Profile) -> (Profile, OffCpuNotes) {
        // Each record's leaf in `tree`, and the weight and blocks of each leaf, added
        // up the tree once at the end.
        let mut table = std::mem::take(&mut self.table);
        let kinds = std::mem::take(&mut self.kinds);
        let mut pending: Vec<(u64, u64)> = Vec::new();
        table.relabel(|i, s| {
            // Blocks skipped (a negative duration) were never settled: left at the root.
            let Some((state, edge)) = kinds.get(i).copied().flatten() else {
                return NodeId::ROOT;
            };
            let leaf = self.leaf_of(s.leaf, state, edge);
            let at = leaf.0 as usize;
            if pending.len() <= at {
                pending.resize(at + 1, (0, 0));
            }
            let (weight, blocks) = &mut pending[at];
            if let Some(w) = weight.checked_add(s.weight) {
                *weight = w;
            } else {
                // Past 64 bits: what is pending goes up the stack first, so the tree
                // sees (and marks) the overflow as it would have block by block.
                self.tree.add_to_stack(leaf, *weight, *blocks);
                (*weight, *blocks) = (s.weight, 0);
            }
            *blocks += 1;
            leaf
        });
        self.table = table;
        self.tree.add_own_weights(&pending);
        self.tree.finish();
        self.table.drop_unsettled();
        self.table.finish();
        let mut stats = p.stats.clone();
        stats.samples = self.notes.complete + self.notes.bounded + self.notes.incomplete;
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

/// The wall-clock view of a thread's whole life: the on-CPU profile of a clock event
/// (`cpu-clock`, `task-clock`: periods in nanoseconds) under `[on-cpu]` and the off-CPU
/// profile under `[off-cpu]`, both in nanoseconds, as SystemTap's halves are shown
/// ([`super::metrics::BOTH_HALVES`]). `None` when `on` is not in nanoseconds: a count
/// of `cycles` is never added to time. It has no sample table: the heat map and time
/// ranges read each half's own metric.
pub fn wall(on: &Profile, off: &Profile) -> Option<Profile> {
    use super::scope::{OFF_CPU, ON_CPU};
    if on.stats.unit != Unit::Nanoseconds || off.stats.unit != Unit::Nanoseconds {
        return None;
    }
    let mut tree = on.tree.nest_under(ON_CPU);
    tree.merge_from(&off.tree.nest_under(OFF_CPU));
    tree.finish();
    let mut stats = on.stats.clone();
    stats.samples = on.stats.samples + off.stats.samples;
    stats.offcpu_samples = off.stats.samples;
    stats.event = Some(super::metrics::BOTH_HALVES.to_owned());
    Some(Profile {
        source: on.source.clone(),
        tree,
        stats,
        samples: std::sync::Arc::default(),
        metrics: super::metrics::Metrics::default(),
    })
}
