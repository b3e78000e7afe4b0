//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::app::list;
use crate::profile::blocks::{self, ThreadBlocks};
use crate::profile::group::{Process, ProcessKey, TaskTotals, Thread, processes, task_totals};
use crate::profile::skim::Scorer;
use crate::profile::{Profile, Slice, TaskId};
use crate::text::{sanitize, share, thousands};
use crate::view::tooltip::{Tooltip, weight_text};

/// Lines of the screen around the rows: the column titles and the line under them (and
/// a note on how to get pids when the input has none: [`TaskState::chrome`]).
pub const CHROME_LINES: u16 = 2;

/// One row of the list: a process (or a name, without pids) or one of its threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    /// A thread nested under its process (else a process, or a process of one thread).
    pub nested: bool,
    /// The process's or the thread's name, as perf printed it.
    pub name: Box<str>,
    /// Process id, when perf printed it.
    pub pid: Option<i64>,
    /// Thread id, for a thread or a process of one thread.
    pub tid: Option<i64>,
    /// Threads of a process row (1 for a thread).
    pub threads: usize,
    /// The tasks Space marks and Enter shows.
    pub tasks: Vec<TaskId>,
    /// Their samples and weight in the range.
    pub totals: TaskTotals,
    /// With the off-CPU metric: what their blocks in the range add up to.
    pub blocks: Option<ThreadBlocks>,
    /// With the off-CPU metric and a clock event beside it: their on-CPU time.
    pub on_cpu: Option<u64>,
    /// Characters of `name` that matched the filter, for highlighting.
    pub indices: Vec<usize>,
}

/// What the off-CPU metric adds to each task: its blocks, and its on-CPU time when the
/// recording has a clock event (by [`TaskId`]).
#[derive(Debug, Clone, Default)]
pub struct OffCpuColumns {
    /// Each thread's off-CPU blocks, when the recording has switches.
    pub blocks: Option<Vec<ThreadBlocks>>,
    /// Each thread's on-CPU time, when it also has a clock event.
    pub on_cpu: Option<Vec<u64>>,
}

impl OffCpuColumns {
    fn of(&self, ids: &[TaskId]) -> (Option<ThreadBlocks>, Option<u64>) {
        let blocks = self.blocks.as_deref().map(|b| blocks::blocks_of(b, ids));
        let on_cpu = self.on_cpu.as_deref().map(|on| blocks::on_cpu_of(on, ids));
        (blocks, on_cpu)
    }
}

/// What the rows were summed for: the range, the samples in the table, the metric, and
/// whether a clock metric was beside it.
type SummedFor = (Option<(u64, u64)>, usize, Option<String>, bool);

/// The task list screen.
#[derive(Debug, Clone, Default)]
pub struct TaskState {
    /// The filter typed after `/`.
    pub query: String,
    /// Tasks marked with Space (shown by Enter).
    pub marked: BTreeSet<TaskId>,
    /// Rows shown, in order.
    pub rows: Vec<TaskRow>,
    /// Selected row.
    pub selected: usize,
    /// First row shown.
    pub offset: usize,
    /// Every task's samples and weight in the range (the whole of the shares).
    pub total: TaskTotals,
    /// Tasks and processes with a sample in the range.
    pub counts: (usize, usize),
    /// The input printed process ids.
    pub has_pids: bool,
    /// The line under the rows: counts, marks, grouping.
    pub info: String,
    /// (range, samples in the table, metric) the processes were summed for.
    summed: Option<SummedFor>,
    /// With the off-CPU metric, its columns by task.
    off: OffCpuColumns,
    /// The recording's clock metric, when it has one (set by the app, which holds the
    /// metrics): the on-CPU column.
    pub clock: Option<std::sync::Arc<Profile>>,
    processes: Vec<Process>,
    /// The query the rows were filtered with.
    filtered: Option<String>,
    /// How often the rows were filtered: once per edit of the query (a paste is one).
    pub runs: u64,
}

/// A key of the task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKey {
    /// Mark or unmark the selected row's tasks.
    Mark,
    /// Show every task again (the task set dropped, undoable).
    All,
    /// Type a filter.
    Filter,
    /// Clear the filter, else back to the graph.
    Escape,
}

/// Why a profile has no task list, if it has none.
pub fn unavailable(original: &Profile) -> Option<&'static str> {
    original.samples.is_empty().then_some(
        "No task information: this input has no per-sample tasks (perf script has them, pprof when its samples carry labels; folded stacks and SystemTap do not)",
    )
}

/// The text a row's filter matches: its name and ids.
fn row_text(name: &str, ids: &[Option<i64>]) -> String {
    let mut text = name.to_owned();
    for id in ids.iter().flatten() {
        text.push(' ');
        text.push_str(&id.to_string());
    }
    text
}

/// Characters of `name` matching `query` (of the text `name ids…`).
fn indices(name: &str, text: &str, query: &str) -> Vec<usize> {
    if query.is_empty() {
        return Vec::new();
    }
    let n = name.chars().count();
    SkimMatcherV2::default()
        .smart_case()
        .fuzzy_indices(text, query)
        .map(|(_, i)| i.into_iter().filter(|&i| i < n).collect())
        .unwrap_or_default()
}

/// The rows of `procs` that `query` keeps: a process whose name or pid matches keeps all
/// its threads, else the threads that match keep their process above them.
pub fn task_rows(procs: &[Process], off: &OffCpuColumns, query: &str) -> Vec<TaskRow> {
    let mut scorer = Scorer::new(query);
    let mut rows = Vec::new();
    for p in procs {
        let pid = match p.key {
            ProcessKey::Pid(pid) => Some(pid),
            ProcessKey::Comm(_) => None,
        };
        // A thread's tasks are its names (a renamed thread, after an exec): one row.
        let thread = |th: &Thread, nested: bool, text: &str| {
            let (blocks, on_cpu) = off.of(&th.tasks);
            TaskRow {
                blocks,
                on_cpu,
                nested,
                name: th.name.clone(),
                pid,
                tid: th.tid,
                threads: 1,
                tasks: th.tasks.clone(),
                totals: th.totals,
                indices: indices(&th.name, text, query),
            }
        };
        if let [only] = &p.threads[..] {
            let text = row_text(&only.name, &[pid, only.tid]);
            if scorer.score(&text).is_some() {
                rows.push(thread(only, false, &text));
            }
            continue;
        }
        let text = row_text(&p.name, &[pid]);
        let whole = scorer.score(&text).is_some();
        let threads: Vec<TaskRow> = p
            .threads
            .iter()
            .filter_map(|th| {
                let own = row_text(&th.name, &[th.tid]);
                (whole || scorer.score(&own).is_some()).then(|| thread(th, true, &own))
            })
            .collect();
        if threads.is_empty() {
            continue;
        }
        let (blocks, on_cpu) = off.of(&p.tasks);
        rows.push(TaskRow {
            blocks,
            on_cpu,
            nested: false,
            name: p.name.clone(),
            pid,
            tid: None,
            threads: p.threads.len(),
            tasks: p.tasks.clone(),
            totals: p.totals,
            indices: indices(&p.name, &text, query),
        });
        rows.extend(threads);
    }
    rows
}

impl TaskState {
    /// Brings the rows in step with the range shown and the filter: summed again when the
    /// range or the input changed, filtered again when the query did.
    pub fn sync(&mut self, original: &Profile, range: Option<(u64, u64)>) {
        let table = &original.samples;
        let key = (
            range,
            table.len(),
            original.stats.event.clone(),
            self.clock.is_some(),
        );
        if self.summed != Some(key.clone()) {
            let slice = Slice { range, tasks: None };
            let totals = task_totals(table, &slice);
            let blocks = blocks::thread_blocks(original, &slice);
            let on_cpu = blocks
                .as_ref()
                .and(blocks::clock_metric(original).or(self.clock.as_deref()))
                .filter(|on| !on.samples.is_empty())
                .map(|on| blocks::on_cpu_time(table, on, range));
            self.off = OffCpuColumns { blocks, on_cpu };
            self.processes = processes(table, &totals);
            self.total = TaskTotals::default();
            for t in &totals {
                self.total.samples += t.samples;
                self.total.weight = self.total.weight.saturating_add(t.weight);
            }
            // A thread renamed by an exec counts once.
            let threads = self.processes.iter().map(|p| p.threads.len()).sum();
            self.counts = (threads, self.processes.len());
            self.has_pids = table.has_pids();
            self.summed = Some(key);
            self.filtered = None;
        }
        if self.filtered.as_deref() != Some(self.query.as_str()) {
            self.rows = task_rows(&self.processes, &self.off, &self.query);
            self.selected = self.selected.min(self.rows.len().saturating_sub(1));
            self.filtered = Some(self.query.clone());
            self.runs += 1;
        }
    }

    /// Keeps the selection among the `height` rows on screen and writes the line under
    /// them (`grouping`: what the towers stand for).
    pub fn place(&mut self, height: usize, grouping: &str) {
        self.offset = list::scroll(self.selected, self.offset, height);
        let (tasks, procs) = self.counts;
        let plural = |n: usize, one: &str, many: &str| {
            format!(
                "{} {}",
                thousands(n as u64),
                if n == 1 { one } else { many }
            )
        };
        let groups = if self.has_pids {
            plural(procs, "process", "processes")
        } else {
            plural(procs, "name", "names")
        };
        let mut info = format!(
            "{} in {groups} · {}",
            plural(tasks, "thread", "threads"),
            plural(self.total.samples as usize, "sample", "samples"),
        );
        if !self.query.is_empty() {
            let _ = write!(info, " · {} rows match", thousands(self.rows.len() as u64));
        }
        if !self.marked.is_empty() {
            let _ = write!(
                info,
                " · {} marked",
                plural(self.marked.len(), "task", "tasks")
            );
        }
        let _ = write!(info, " · towers: {grouping} (W)");
        self.info = info;
    }

    /// Lines of the screen that are not rows (see [`CHROME_LINES`]).
    pub fn chrome(&self) -> u16 {
        CHROME_LINES + u16::from(!self.has_pids)
    }

    /// The selected row.
    pub fn current(&self) -> Option<&TaskRow> {
        self.rows.get(self.selected)
    }

    /// True when every task of `row` is marked (`Some(false)`: some of them).
    pub fn marked_row(&self, row: &TaskRow) -> Option<bool> {
        let n = row.tasks.iter().filter(|t| self.marked.contains(t)).count();
        match n {
            0 => None,
            n => Some(n == row.tasks.len()),
        }
    }

    pub(crate) fn mark(&mut self) {
        let Some(row) = self.current() else {
            return;
        };
        let tasks = row.tasks.clone();
        if self.marked_row(row) == Some(true) {
            for t in &tasks {
                self.marked.remove(t);
            }
        } else {
            self.marked.extend(tasks);
        }
    }
}

/// The status lines of the task list: who the selected row is, and its part of the range.
pub(crate) fn status_tip(t: &TaskState, original: &Profile) -> Tooltip {
    let Some(row) = t.current() else {
        return Tooltip {
            title: "No task matches the filter (/ edits it, Esc clears it)".to_owned(),
            facts: Vec::new(),
        };
    };
    let mut title = sanitize(&row.name).into_owned();
    if let Some(pid) = row.pid {
        let _ = write!(title, " · pid {pid}");
    }
    match row.tid {
        Some(tid) if row.threads == 1 => {
            let _ = write!(title, " · tid {tid}");
        }
        _ => {
            let _ = write!(title, " · {} threads", thousands(row.threads as u64));
        }
    }
    let samples = row.totals.samples;
    let mut fact = format!(
        "{} sample{} ({:.2}% of the range's samples)",
        thousands(samples),
        if samples == 1 { "" } else { "s" },
        share(samples, t.total.samples)
    );
    if original.stats.unit != crate::profile::Unit::Samples {
        let _ = write!(
            fact,
            " · {} ({:.2}%)",
            weight_text(original, row.totals.weight, false),
            share(row.totals.weight, t.total.weight)
        );
    }
    Tooltip {
        title,
        facts: vec![fact],
    }
}
