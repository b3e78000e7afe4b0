//! Stage: the off-CPU metric (one sample per block, [`super::offcpu`]) → per thread, what
//! its blocks add up to: the time by the state the thread left in, the time still open at
//! the end (`[incomplete]`) or bounded by the next sample (`[upper bound]`), and the
//! longest block; beside it, the thread's on-CPU time from a clock event of the same
//! recording. The task list and `--print` show them.

use super::offcpu::{INCOMPLETE, METRIC, UPPER_BOUND};
use super::samples::{SampleTable, TaskState};
use super::slice::Slice;
use super::{Profile, TaskId};

/// Task states, in the order of [`ThreadBlocks::by_state`].
pub const STATES: [TaskState; 10] = [
    TaskState::Runnable,
    TaskState::Sleeping,
    TaskState::Uninterruptible,
    TaskState::Stopped,
    TaskState::Traced,
    TaskState::Dead,
    TaskState::Zombie,
    TaskState::Parked,
    TaskState::Idle,
    TaskState::Other,
];

/// The states shown in columns of their own (preempted, sleeping, uninterruptible); the
/// others are shown together ([`ThreadBlocks::others`]).
pub const SHOWN: [TaskState; 3] = [
    TaskState::Runnable,
    TaskState::Sleeping,
    TaskState::Uninterruptible,
];

/// What one thread's (or one process's) blocks add up to, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadBlocks {
    /// Blocks.
    pub blocks: u64,
    /// Off-CPU time by the state the thread left in, in [`STATES`] order.
    pub by_state: [u64; STATES.len()],
    /// Of it, blocks still open when the recording ended.
    pub incomplete: u64,
    /// Of it, blocks whose end was not recorded (upper bounds).
    pub bounded: u64,
    /// The longest block.
    pub longest: u64,
}

impl ThreadBlocks {
    /// All the off-CPU time.
    pub fn total(&self) -> u64 {
        self.by_state.iter().fold(0, |a, b| a.saturating_add(*b))
    }

    /// The time in `state`.
    pub fn in_state(&self, state: TaskState) -> u64 {
        STATES
            .iter()
            .position(|s| *s == state)
            .map_or(0, |i| self.by_state[i])
    }

    /// The time in the states not in [`SHOWN`].
    pub fn others(&self) -> u64 {
        STATES
            .iter()
            .filter(|s| !SHOWN.contains(s))
            .fold(0, |sum, s| sum.saturating_add(self.in_state(*s)))
    }

    /// Adds another thread's blocks (a process's row).
    pub fn add(&mut self, other: &ThreadBlocks) {
        self.blocks += other.blocks;
        for (a, b) in self.by_state.iter_mut().zip(other.by_state) {
            *a = a.saturating_add(b);
        }
        self.incomplete = self.incomplete.saturating_add(other.incomplete);
        self.bounded = self.bounded.saturating_add(other.bounded);
        self.longest = self.longest.max(other.longest);
    }
}

/// The blocks of the tasks `ids` together (a thread's names, a process's threads), from
/// each task's blocks by [`TaskId`] ([`thread_blocks`]).
pub fn blocks_of(per_task: &[ThreadBlocks], ids: &[TaskId]) -> ThreadBlocks {
    let mut sum = ThreadBlocks::default();
    for b in ids.iter().filter_map(|id| per_task.get(id.0 as usize)) {
        sum.add(b);
    }
    sum
}

/// The on-CPU time of the tasks `ids` together, from each task's by [`TaskId`]
/// ([`on_cpu_time`]).
pub fn on_cpu_of(per_task: &[u64], ids: &[TaskId]) -> u64 {
    ids.iter()
        .filter_map(|id| per_task.get(id.0 as usize))
        .fold(0u64, |a, b| a.saturating_add(*b))
}

/// Each task's blocks in `slice`, by [`TaskId`] of `p`'s table; `None` when `p` is not
/// the off-CPU metric made from scheduler switches.
pub fn thread_blocks(p: &Profile, slice: &Slice) -> Option<Vec<ThreadBlocks>> {
    // The off-CPU metric made from scheduler switches: one sample a block.
    if p.stats.event.as_deref() != Some(METRIC) {
        return None;
    }
    let tree = &p.tree;
    let mut out = vec![ThreadBlocks::default(); p.samples.tasks().len()];
    for s in slice.samples(&p.samples) {
        let Some(t) = out.get_mut(s.task.0 as usize) else {
            continue;
        };
        // The leaf is the state frame, or a mark under it.
        let mut leaf = s.leaf;
        let (mut incomplete, mut bounded) = (false, false);
        loop {
            match tree.name(leaf) {
                INCOMPLETE => incomplete = true,
                UPPER_BOUND => bounded = true,
                _ => break,
            }
            match tree.parent(leaf) {
                Some(parent) => leaf = parent,
                None => break,
            }
        }
        let state = tree
            .name(leaf)
            .strip_prefix("[off-cpu: ")
            .map_or(TaskState::Other, TaskState::parse);
        let i = STATES
            .iter()
            .position(|x| *x == state)
            .unwrap_or(STATES.len() - 1);
        t.blocks += 1;
        t.by_state[i] = t.by_state[i].saturating_add(s.weight);
        if incomplete {
            t.incomplete = t.incomplete.saturating_add(s.weight);
        }
        if bounded {
            t.bounded = t.bounded.saturating_add(s.weight);
        }
        t.longest = t.longest.max(s.weight);
    }
    Some(out)
}

/// Each task of `table` (the off-CPU metric's) with its on-CPU time from `on` (a clock
/// event's profile of the same recording), the tasks matched by name, pid and tid, in
/// the same absolute time range as `range` of `table` (relative to its first sample).
pub fn on_cpu_time(table: &SampleTable, on: &Profile, range: Option<(u64, u64)>) -> Vec<u64> {
    use std::collections::HashMap;
    let index: HashMap<_, TaskId> = table
        .tasks()
        .iter()
        .enumerate()
        .map(|(i, t)| (t, TaskId(i as u32)))
        .collect();
    let to_off: Vec<Option<TaskId>> = on
        .samples
        .tasks()
        .iter()
        .map(|t| index.get(t).copied())
        .collect();
    let slice = Slice {
        range: range.map(|(start, end)| {
            // The two tables count from their own first samples.
            let origin = table.first_time();
            let other = on.samples.first_time();
            let at = |rel: u64| origin.saturating_add(rel).saturating_sub(other);
            (at(start), at(end))
        }),
        tasks: None,
    };
    let mut out = vec![0u64; table.tasks().len()];
    for s in slice.samples(&on.samples) {
        if let Some(Some(t)) = to_off.get(s.task.0 as usize)
            && let Some(o) = out.get_mut(t.0 as usize)
        {
            *o = o.saturating_add(s.weight);
        }
    }
    out
}

/// The clock event beside an off-CPU metric (its periods in ns), if the profile has one.
pub fn clock_metric(p: &Profile) -> Option<&Profile> {
    p.metrics.others.iter().find(|o| is_clock(o))
}

/// Whether `p` is a clock event's profile, its periods in ns (`cpu-clock`, `task-clock`).
pub fn is_clock(p: &Profile) -> bool {
    matches!(p.stats.event.as_deref(), Some("cpu-clock" | "task-clock"))
        && p.stats.unit == super::Unit::Nanoseconds
}
