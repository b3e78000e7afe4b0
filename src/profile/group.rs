//! Stage: sample table → who ran. Per-task totals of a slice, the tasks gathered into
//! processes (by pid, or by name when perf printed only thread ids), and [`regroup`]: the
//! tree of a slice with each sample's root task frame named by a [`Group`] — thread name
//! (the frames as read), process (`comm-pid`), thread (`comm-tid`) or thread name with its
//! digits folded (`worker-12` → `worker-#`, so that a pool of threads is one tower).
//!
//! Regrouping sums the samples per (label, leaf) first, so a distinct pair costs one
//! insertion of its stack, however many samples it has: the work is one pass over the
//! samples plus one path walk per distinct pair.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::intern::NameId;
use super::samples::{SampleTable, Task, TaskId};
use super::slice::{Slice, slice_tree};
use super::tree::{CallTree, NodeId};

/// What the root frames (towers) of the graph stand for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Group {
    /// The thread's name, as the input named the root frames (today's towers; with the
    /// inferno-compatible `--pid` / `--tid` options, `comm-PID` or `comm-PID/TID`).
    #[default]
    ThreadName,
    /// One tower per process: `comm-pid`, comm being the process's (its main thread's)
    /// name. Needs pids (`perf script -F +pid`).
    Process,
    /// One tower per thread: `comm-tid`.
    Thread,
    /// The thread's name with each run of digits folded into `#`: `worker-12` → `worker-#`.
    FoldedName,
}

impl Group {
    /// The next grouping in the cycle thread name → process → thread → folded names;
    /// process is skipped when the input has no pids.
    #[must_use]
    pub fn next(self, has_pids: bool) -> Self {
        match self {
            Group::ThreadName if has_pids => Group::Process,
            Group::ThreadName | Group::Process => Group::Thread,
            Group::Thread => Group::FoldedName,
            Group::FoldedName => Group::ThreadName,
        }
    }

    /// What it groups by, for the screen: `process (comm-pid)`.
    pub fn describe(self) -> &'static str {
        match self {
            Group::ThreadName => "thread name",
            Group::Process => "process (comm-pid)",
            Group::Thread => "thread (comm-tid)",
            Group::FoldedName => "thread name, digits folded (worker-#)",
        }
    }

    /// Its breadcrumb, `None` for the default.
    pub fn crumb(self) -> Option<&'static str> {
        match self {
            Group::ThreadName => None,
            Group::Process => Some("by process"),
            Group::Thread => Some("by thread"),
            Group::FoldedName => Some("by name#"),
        }
    }
}

/// The samples and weight of one task (or of several).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskTotals {
    /// Samples.
    pub samples: u64,
    /// Their weight (saturating).
    pub weight: u64,
}

impl TaskTotals {
    fn add(&mut self, other: TaskTotals) {
        self.samples = self.samples.saturating_add(other.samples);
        self.weight = self.weight.saturating_add(other.weight);
    }
}

/// The totals of each task (indexed by [`TaskId`]) over the samples of `slice`.
pub fn task_totals(table: &SampleTable, slice: &Slice) -> Vec<TaskTotals> {
    let mut out = vec![TaskTotals::default(); table.tasks().len()];
    for s in slice.samples(table) {
        if let Some(t) = out.get_mut(s.task.0 as usize) {
            t.add(TaskTotals {
                samples: 1,
                weight: s.weight,
            });
        }
    }
    out
}

/// `comm` as a root frame shows it (spaces as `_`, as the perf reader names them).
pub fn frame_name(comm: &str) -> String {
    comm.replace(' ', "_")
}

/// `name` with each run of ASCII digits replaced by one `#`: `kworker/u8:0-ev` →
/// `kworker/u#:#-ev`.
pub fn fold_digits(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_digits = false;
    for c in name.chars() {
        let digit = c.is_ascii_digit();
        if !digit {
            out.push(c);
        } else if !in_digits {
            out.push('#');
        }
        in_digits = digit;
    }
    out
}

/// Who a group of tasks is: a process (pid) or, without pids, a thread name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProcessKey {
    /// A process id.
    Pid(i64),
    /// A command name (the input has no pid for these tasks).
    Comm(Box<str>),
}

/// A process with its threads (or, without pids, the threads of one name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// Its pid, or the name its threads share.
    pub key: ProcessKey,
    /// Its name: its main thread's (tid = pid) when sampled, else its heaviest thread's.
    pub name: Box<str>,
    /// Its tasks, heaviest first (ties by tid, then name).
    pub tasks: Vec<TaskId>,
    /// Its threads, heaviest first (ties by tid, then name): the tasks of one thread id
    /// are one thread, whose name changed (`bash` exec'd into `python3`).
    pub threads: Vec<Thread>,
    /// Their totals.
    pub totals: TaskTotals,
}

/// A thread: its tasks (one per name it had), in the order they were first sampled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Its thread id, when perf printed it.
    pub tid: Option<i64>,
    /// Its names in the order it had them: `bash → python3`.
    pub name: Box<str>,
    /// Its tasks, in that order.
    pub tasks: Vec<TaskId>,
    /// Their totals.
    pub totals: TaskTotals,
}

/// How the names of one thread are shown, in the order it had them.
pub const RENAMED: &str = " → ";

/// `tasks` (a process's, heaviest first) gathered into threads by thread id (tasks
/// without one are threads of their own), heaviest first; the names of a thread in the
/// order its tasks were first sampled.
fn threads_of(
    table: &SampleTable,
    tasks: &[TaskId],
    weight: impl Fn(TaskId) -> TaskTotals,
) -> Vec<Thread> {
    let mut threads: Vec<Thread> = Vec::new();
    let mut by_tid: FxHashMap<i64, usize> = FxHashMap::default();
    for &id in tasks {
        let Some(t) = table.task_of(id) else { continue };
        let at = t.tid.and_then(|tid| by_tid.get(&tid).copied());
        let i = at.unwrap_or_else(|| {
            if let Some(tid) = t.tid {
                by_tid.insert(tid, threads.len());
            }
            threads.push(Thread {
                tid: t.tid,
                name: Box::default(),
                tasks: Vec::new(),
                totals: TaskTotals::default(),
            });
            threads.len() - 1
        });
        threads[i].tasks.push(id);
        threads[i].totals.add(weight(id));
    }
    for th in &mut threads {
        th.name = names_in_order(table, &mut th.tasks).into();
    }
    threads.sort_by(|a, b| {
        b.totals
            .weight
            .cmp(&a.totals.weight)
            .then(b.totals.samples.cmp(&a.totals.samples))
            .then(a.tid.cmp(&b.tid))
            .then_with(|| a.name.cmp(&b.name))
    });
    threads
}

/// The names of the tasks `ids` of one thread in the order it had them (`sh → python3`),
/// `ids` put in that order: by first sample ([`SampleTable::first_sample_of`]).
fn names_in_order(table: &SampleTable, ids: &mut [TaskId]) -> String {
    if ids.len() > 1 {
        ids.sort_by_key(|&id| (table.first_sample_of(id).unwrap_or(usize::MAX), id));
    }
    let names: Vec<&str> = ids
        .iter()
        .filter_map(|&id| table.task_of(id).map(|t| &*t.comm))
        .collect();
    names.join(RENAMED)
}

/// The tasks with a sample in `totals` (indexed by [`TaskId`]), in [`TaskId`] order.
fn sampled(table: &SampleTable, totals: &[TaskTotals]) -> impl Iterator<Item = TaskId> {
    (0..table.tasks().len())
        .map(|i| TaskId(u32::try_from(i).unwrap_or(u32::MAX)))
        .filter(|id| totals.get(id.0 as usize).is_some_and(|t| t.samples > 0))
}

fn key_of(t: &Task) -> ProcessKey {
    match t.pid {
        Some(pid) => ProcessKey::Pid(pid),
        None => ProcessKey::Comm(t.comm.clone()),
    }
}

/// Every thread with a sample in `totals` (indexed by [`TaskId`]), heaviest first: the
/// tasks of one thread id are one thread, whatever their names and processes say
/// (without pids, a renamed thread's names are two processes of [`processes`]).
pub fn threads(table: &SampleTable, totals: &[TaskTotals]) -> Vec<Thread> {
    let weight = |id: TaskId| totals.get(id.0 as usize).copied().unwrap_or_default();
    let tasks: Vec<TaskId> = sampled(table, totals).collect();
    threads_of(table, &tasks, weight)
}

/// The tasks with a sample in `totals` (indexed by [`TaskId`]) gathered into processes,
/// heaviest first (ties by name, then key).
pub fn processes(table: &SampleTable, totals: &[TaskTotals]) -> Vec<Process> {
    let weight = |id: TaskId| totals.get(id.0 as usize).copied().unwrap_or_default();
    let first = |id: TaskId| table.first_sample_of(id).unwrap_or(usize::MAX);
    // Without pids a process is the tasks of one name; a thread renamed by exec goes
    // with its first name, so that it stays one thread.
    let mut first_name: FxHashMap<i64, (usize, &str)> = FxHashMap::default();
    for id in sampled(table, totals) {
        if let Some(t) = table.task_of(id).filter(|t| t.pid.is_none())
            && let Some(tid) = t.tid
        {
            let e = first_name.entry(tid).or_insert((first(id), &t.comm));
            if first(id) < e.0 {
                *e = (first(id), &t.comm);
            }
        }
    }
    let mut by_key: FxHashMap<ProcessKey, Vec<TaskId>> = FxHashMap::default();
    for id in sampled(table, totals) {
        let Some(t) = table.task_of(id) else { continue };
        let key = match (t.pid, t.tid.and_then(|tid| first_name.get(&tid))) {
            (None, Some(&(_, name))) => ProcessKey::Comm(name.into()),
            _ => key_of(t),
        };
        by_key.entry(key).or_default().push(id);
    }
    let task = |id: TaskId| table.task_of(id);
    let mut out: Vec<Process> = by_key
        .into_iter()
        .map(|(key, mut tasks)| {
            tasks.sort_by(|&a, &b| {
                let (ta, tb) = (task(a), task(b));
                weight(b)
                    .weight
                    .cmp(&weight(a).weight)
                    .then(weight(b).samples.cmp(&weight(a).samples))
                    .then_with(|| ta.map(|t| t.tid).cmp(&tb.map(|t| t.tid)))
                    .then_with(|| ta.map(|t| &t.comm).cmp(&tb.map(|t| &t.comm)))
            });
            let mut sum = TaskTotals::default();
            for &id in &tasks {
                sum.add(weight(id));
            }
            // Heaviest first: the first main thread, else the first thread, names it.
            let main = tasks
                .iter()
                .copied()
                .find(|&id| task(id).is_some_and(|t| t.pid.is_some() && t.pid == t.tid));
            let name = main
                .or_else(|| tasks.first().copied())
                .and_then(task)
                .map_or_else(Box::default, |t| t.comm.clone());
            let threads = threads_of(table, &tasks, weight);
            Process {
                key,
                name,
                tasks,
                threads,
                totals: sum,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.totals
            .weight
            .cmp(&a.totals.weight)
            .then(b.totals.samples.cmp(&a.totals.samples))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.key.cmp(&b.key))
    });
    out
}

/// A task set in a few words, for a breadcrumb: `sysw-sort 17349` (one thread, with its
/// tid), `sysw 17346` (a whole process), `sysw 17346 · 2 threads` (some of its threads),
/// `gzip ×7` (threads of one name), else `12 tasks`. Not sanitized.
pub fn tasks_label(table: &SampleTable, tasks: &BTreeSet<TaskId>) -> String {
    let all: Vec<&Task> = tasks.iter().filter_map(|&t| table.task_of(t)).collect();
    let count = || {
        format!(
            "{} task{}",
            tasks.len(),
            if tasks.len() == 1 { "" } else { "s" }
        )
    };
    let Some(first) = all.first() else {
        return count();
    };
    if let [only] = all[..] {
        return match only.tid {
            Some(tid) => format!("{} {tid}", only.comm),
            None => only.comm.to_string(),
        };
    }
    // One thread renamed by exec: its names in the order it had them.
    if let Some(tid) = first.tid
        && all.iter().all(|t| t.tid == Some(tid) && t.pid == first.pid)
    {
        let mut ids: Vec<TaskId> = tasks.iter().copied().collect();
        return format!("{} {tid}", names_in_order(table, &mut ids));
    }
    if let Some(pid) = first.pid
        && all.iter().all(|t| t.pid == Some(pid))
    {
        let main = table
            .tasks()
            .iter()
            .find(|t| t.pid == Some(pid) && t.tid == Some(pid))
            .unwrap_or(first);
        let threads = table.tasks().iter().filter(|t| t.pid == Some(pid)).count();
        return if threads == all.len() {
            format!("{} {pid}", main.comm)
        } else {
            format!("{} {pid} · {} threads", main.comm, all.len())
        };
    }
    if all.iter().all(|t| t.comm == first.comm) {
        return format!("{} ×{}", first.comm, all.len());
    }
    count()
}

/// The root frame of each task's samples (indexed by [`TaskId`]) under `group`. Process
/// names are judged on the whole recording, so that a tower keeps its name in every slice;
/// without a pid, a process is named by its thread's name, and a thread without a tid
/// likewise.
pub fn task_labels(table: &SampleTable, group: Group) -> Vec<String> {
    let names: FxHashMap<ProcessKey, Box<str>> = if group == Group::Process {
        let all = task_totals(table, &Slice::default());
        processes(table, &all)
            .into_iter()
            .map(|p| (p.key, p.name))
            .collect()
    } else {
        FxHashMap::default()
    };
    table
        .tasks()
        .iter()
        .map(|t| {
            let comm = frame_name(&t.comm);
            match (group, t.pid, t.tid) {
                (Group::Process, Some(pid), _) => {
                    let name = names
                        .get(&ProcessKey::Pid(pid))
                        .map_or(comm, |n| frame_name(n));
                    format!("{name}-{pid}")
                }
                (Group::Thread, _, Some(tid)) => format!("{comm}-{tid}"),
                (Group::ThreadName | Group::Process | Group::Thread, ..) => comm,
                (Group::FoldedName, ..) => fold_digits(&comm),
            }
        })
        .collect()
}

/// The tree of the samples of `slice` with the root frame of each sample's stack named by
/// `group` ([`task_labels`]): `tree` is the tree the table's leaves are nodes of (the
/// loaded tree). The labels are task names, so they stay apart from functions; siblings
/// are sorted by name (as a finished tree). [`Group::ThreadName`] is the tree of the slice
/// as read ([`slice_tree`]). A stack whose first frame is not a task's gets the label on
/// top of it. Totals and sample counts are those of the slice, whatever the group.
pub fn regroup(tree: &CallTree, table: &SampleTable, slice: &Slice, group: Group) -> CallTree {
    if group == Group::ThreadName {
        return slice_tree(tree, table, slice);
    }
    let mut out = tree.empty_like();
    let labels: Vec<NameId> = task_labels(table, group)
        .iter()
        .map(|l| out.intern_task(l))
        .collect();
    let mut saturated = tree.saturated();
    // (label, leaf) → (weight, samples).
    let mut sums: FxHashMap<(NameId, NodeId), (u64, u64)> = FxHashMap::default();
    for s in slice.samples(table) {
        let Some(&label) = labels.get(s.task.0 as usize) else {
            continue;
        };
        let e = sums.entry((label, s.leaf)).or_default();
        e.0 = e.0.checked_add(s.weight).unwrap_or_else(|| {
            saturated = true;
            u64::MAX
        });
        e.1 += 1;
    }
    let mut pairs: Vec<((NameId, NodeId), (u64, u64))> = sums.into_iter().collect();
    // Grouped by label, leaves in id order: consecutive stacks share their root side, which
    // the tree's last-path cache makes cheap to insert.
    pairs.sort_unstable_by_key(|&(k, _)| k);
    let names = tree.names();
    for ((label, leaf), (weight, samples)) in pairs {
        let path = if leaf.0 as usize >= tree.len() {
            Vec::new()
        } else {
            tree.path(leaf)
        };
        let rest = match path.first() {
            Some(&first) if names.is_task(tree.node(first).name) => &path[1..],
            _ => &path[..],
        };
        let frames = std::iter::once(label).chain(rest.iter().map(|&id| tree.node(id).name));
        out.insert_ids_counted(frames, weight, samples);
    }
    out.finish();
    if saturated {
        out.mark_saturated();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree and a table as the perf reader makes them: root frames are task names
    /// (comm, spaces as `_`). Samples: `(comm, pid, tid, frames below the task, weight)`.
    fn recording(samples: &[(&str, Option<i64>, i64, &str, u64)]) -> (CallTree, SampleTable) {
        let mut tree = CallTree::new();
        let mut table = SampleTable::default();
        for (i, &(comm, pid, tid, stack, weight)) in samples.iter().enumerate() {
            let task = tree.intern_task(&frame_name(comm));
            let frames: Vec<NameId> = stack.split(';').map(|f| tree.intern(f)).collect();
            let leaf = tree.insert_ids(std::iter::once(task).chain(frames), weight);
            let id = table.task(comm, pid, Some(tid));
            table.push(Some(i as u64 * 10), id, leaf, weight);
        }
        tree.finish();
        table.finish();
        (tree, table)
    }

    const POOL: &[(&str, Option<i64>, i64, &str, u64)] = &[
        ("server", Some(10), 10, "main;accept", 2),
        ("worker-1", Some(10), 11, "run;work", 3),
        ("worker-2", Some(10), 12, "run;work", 5),
        ("worker-12", Some(10), 13, "run;wait", 7),
        ("worker-2", Some(10), 12, "run;work", 1),
        ("cron job", Some(20), 20, "tick", 4),
    ];

    #[test]
    fn digits_fold_into_one_hash_per_run() {
        assert_eq!(fold_digits("worker-12"), "worker-#");
        assert_eq!(fold_digits("kworker/u8:0-ev"), "kworker/u#:#-ev");
        assert_eq!(fold_digits("V8_Worker"), "V#_Worker");
        assert_eq!(fold_digits("sysw"), "sysw");
        assert_eq!(fold_digits("1"), "#");
        assert_eq!(fold_digits("é9é"), "é#é");
    }

    #[test]
    fn folded_names_make_a_pool_one_tower() {
        let (tree, table) = recording(POOL);
        let g = regroup(&tree, &table, &Slice::default(), Group::FoldedName);
        assert_eq!(
            g.stacks(),
            [
                ("cron_job;tick".to_owned(), 4),
                ("server;main;accept".to_owned(), 2),
                ("worker-#;run;wait".to_owned(), 7),
                ("worker-#;run;work".to_owned(), 9),
            ]
        );
        let w = g.child_named(NodeId::ROOT, "worker-#").unwrap();
        assert!(
            g.names().is_task(g.node(w).name),
            "a label stays a task frame"
        );
        assert_eq!((g.node(w).total, g.node(w).samples), (16, 4));
    }

    #[test]
    fn process_and_thread_labels() {
        let (tree, table) = recording(POOL);
        let p = regroup(&tree, &table, &Slice::default(), Group::Process);
        let roots: Vec<(&str, u64)> = p
            .children(NodeId::ROOT)
            .map(|c| (p.name(c), p.node(c).total))
            .collect();
        // The main thread (tid = pid) names its process; spaces become `_`.
        assert_eq!(roots, [("cron_job-20", 4), ("server-10", 18)]);
        let t = regroup(&tree, &table, &Slice::default(), Group::Thread);
        let roots: Vec<(&str, u64)> = t
            .children(NodeId::ROOT)
            .map(|c| (t.name(c), t.node(c).total))
            .collect();
        assert_eq!(
            roots,
            [
                ("cron_job-20", 4),
                ("server-10", 2),
                ("worker-1-11", 3),
                ("worker-12-13", 7),
                ("worker-2-12", 6),
            ]
        );
        // By thread name: the tree as read.
        let f = regroup(&tree, &table, &Slice::default(), Group::ThreadName);
        assert_eq!(f.stacks(), tree.stacks());
    }

    /// The stacks without their root frame, summed.
    fn below(t: &CallTree) -> std::collections::BTreeMap<String, u64> {
        let mut out = std::collections::BTreeMap::new();
        for (s, w) in t.stacks() {
            let rest = s.split_once(';').map_or("", |x| x.1).to_owned();
            *out.entry(rest).or_insert(0) += w;
        }
        out
    }

    #[test]
    fn totals_do_not_change_with_the_group() {
        let (tree, table) = recording(POOL);
        let slice = Slice {
            range: Some((10, 50)),
            tasks: Some([TaskId(1), TaskId(2)].into()),
        };
        let sliced = slice_tree(&tree, &table, &slice);
        for group in [
            Group::ThreadName,
            Group::Process,
            Group::Thread,
            Group::FoldedName,
        ] {
            let g = regroup(&tree, &table, &slice, group);
            assert_eq!(g.total(), sliced.total(), "{group:?}");
            assert_eq!(
                g.node(NodeId::ROOT).samples,
                sliced.node(NodeId::ROOT).samples
            );
            // Below the towers, the same stacks.
            assert_eq!(below(&g), below(&sliced), "{group:?}");
        }
    }

    #[test]
    fn without_pids_a_process_is_its_thread_name() {
        let (tree, table) = recording(&[
            ("gzip", None, 5, "deflate", 1),
            ("gzip", None, 6, "deflate", 1),
        ]);
        assert_eq!(task_labels(&table, Group::Process), ["gzip", "gzip"]);
        assert_eq!(task_labels(&table, Group::Thread), ["gzip-5", "gzip-6"]);
        let p = regroup(&tree, &table, &Slice::default(), Group::Process);
        assert_eq!(p.stacks(), [("gzip;deflate".to_owned(), 2)]);
        let procs = processes(&table, &task_totals(&table, &Slice::default()));
        assert_eq!(procs.len(), 1);
        assert_eq!(procs[0].key, ProcessKey::Comm("gzip".into()));
        assert_eq!(procs[0].tasks.len(), 2);
        assert_eq!(Group::ThreadName.next(false), Group::Thread);
        assert_eq!(Group::ThreadName.next(true), Group::Process);
    }

    #[test]
    fn a_thread_renamed_by_exec_is_one_thread_with_its_names_in_order() {
        // pid 5 runs `sh`, which execs `python3`; its first task is made after the
        // second's (parser threads meet tasks in any order): the names follow time.
        let mut table = SampleTable::default();
        let py = table.task("python3", Some(5), Some(5));
        let sh = table.task("sh", Some(5), Some(5));
        let other = table.task("bash", Some(6), Some(6));
        for (time, task) in [(0, other), (1, sh), (2, sh), (3, py), (4, py), (5, py)] {
            table.push(Some(time), task, NodeId::ROOT, 10);
        }
        table.finish();
        let totals = task_totals(&table, &Slice::default());
        let procs = processes(&table, &totals);
        assert_eq!(procs.len(), 2);
        let [thread] = &procs[0].threads[..] else {
            panic!("one thread: {:?}", procs[0].threads);
        };
        assert_eq!(&*thread.name, "sh → python3");
        assert_eq!(thread.tasks, [sh, py]);
        assert_eq!(thread.tid, Some(5));
        assert_eq!((thread.totals.samples, thread.totals.weight), (5, 50));
        assert_eq!(&*procs[1].threads[0].name, "bash");
        // Without pids (perf script's default fields) it is one thread too.
        let mut bare = SampleTable::default();
        let py = bare.task("python3", None, Some(5));
        let sh = bare.task("sh", None, Some(5));
        for (time, task) in [(1, sh), (2, py), (3, py)] {
            bare.push(Some(time), task, NodeId::ROOT, 10);
        }
        bare.finish();
        let procs = processes(&bare, &task_totals(&bare, &Slice::default()));
        assert_eq!(procs.len(), 1, "{procs:?}");
        assert_eq!(&*procs[0].threads[0].name, "sh → python3");
        // Picked in the task list, its breadcrumb names it the same way.
        let picked: BTreeSet<TaskId> = thread.tasks.iter().copied().collect();
        assert_eq!(tasks_label(&table, &picked), "sh → python3 5");
    }

    #[test]
    fn processes_are_heaviest_first_with_their_threads() {
        let (_, table) = recording(POOL);
        let totals = task_totals(&table, &Slice::default());
        let procs = processes(&table, &totals);
        let names: Vec<(&str, u64, usize)> = procs
            .iter()
            .map(|p| (&*p.name, p.totals.weight, p.tasks.len()))
            .collect();
        assert_eq!(names, [("server", 18, 4), ("cron job", 4, 1)]);
        let threads: Vec<&str> = procs[0]
            .tasks
            .iter()
            .map(|&t| &*table.task_of(t).unwrap().comm)
            .collect();
        assert_eq!(threads, ["worker-12", "worker-2", "worker-1", "server"]);
        // A slice without a task's samples leaves it out.
        let late = task_totals(
            &table,
            &Slice {
                range: Some((45, 100)),
                tasks: None,
            },
        );
        let procs = processes(&table, &late);
        assert_eq!(procs.len(), 1);
        assert_eq!(&*procs[0].name, "cron job");
    }

    #[test]
    fn task_sets_are_named_in_a_few_words() {
        let (_, table) = recording(POOL);
        let set = |ids: &[u32]| ids.iter().map(|&i| TaskId(i)).collect::<BTreeSet<_>>();
        assert_eq!(tasks_label(&table, &set(&[1])), "worker-1 11");
        assert_eq!(tasks_label(&table, &set(&[0, 1, 2, 3])), "server 10");
        assert_eq!(tasks_label(&table, &set(&[1, 2])), "server 10 · 2 threads");
        assert_eq!(tasks_label(&table, &set(&[0, 4])), "2 tasks");
        let (_, table) = recording(&[
            ("gzip", None, 5, "deflate", 1),
            ("gzip", None, 6, "deflate", 1),
        ]);
        assert_eq!(tasks_label(&table, &set(&[0, 1])), "gzip ×2");
        assert_eq!(tasks_label(&table, &set(&[7])), "1 task");
    }

    #[test]
    fn saturation_is_kept() {
        let (tree, table) =
            recording(&[("a", Some(1), 1, "x", u64::MAX), ("a", Some(1), 1, "x", 1)]);
        let g = regroup(&tree, &table, &Slice::default(), Group::Thread);
        assert!(g.saturated());
        assert_eq!(g.total(), u64::MAX);
    }
}
