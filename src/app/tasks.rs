//! Stage: application state — the task list screen (`w`): who ran in the range shown.
//! Processes with their threads nested (without pids, the threads of each name), heaviest
//! first, with their samples and share of the range; `/` filters them with the fuzzy
//! scorer of the finder, Space marks a thread (or a process: all its threads), Enter shows
//! only the marked tasks — a new slice of the view with its time range kept, undone with
//! `u` — and `a` shows every task again. The rows are summed from the profile as read
//! (its sample table) only when the range or the input changes, and filtered only when
//! the query does, so that drawing only reads them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::explorer::Explorer;
use super::list;
use super::text_input::{self, Inserted};
use super::tools::Screen;
use super::transforms::TransformStack;
use super::{Mode, ToolAction};
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
    pub blocks: Option<Vec<ThreadBlocks>>,
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

    fn mark(&mut self) {
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

/// Opens the task list (or says why there is none), or closes it.
pub(crate) fn toggle(ex: &mut Explorer, mode: &mut Mode) {
    if ex.tools.screen == Screen::Tasks {
        ex.tools.screen = Screen::Graph;
        *mode = Mode::Normal;
        return;
    }
    if let Some(why) = unavailable(ex.original()) {
        ex.tools.message = Some(why.to_owned());
        return;
    }
    let t = &mut ex.tools.tasks;
    t.marked = ex.tools.applied.slice.tasks.clone().unwrap_or_default();
    t.selected = 0;
    t.offset = 0;
    ex.tools.screen = Screen::Tasks;
    *mode = Mode::Tasks;
}

/// Shows the marked tasks (the selected row's when none is marked), the range kept.
///
/// # Errors
/// No task is marked and no row is left by the filter.
fn show(ex: &mut Explorer, view: &mut TransformStack) -> Result<(), String> {
    let t = &ex.tools.tasks;
    let set: BTreeSet<TaskId> = if t.marked.is_empty() {
        t.current()
            .map(|r| r.tasks.iter().copied().collect())
            .unwrap_or_default()
    } else {
        t.marked.clone()
    };
    if set.is_empty() {
        return Err("No task to show: the filter keeps none (Esc clears it)".to_owned());
    }
    let every = set.len() >= ex.original().samples.tasks().len();
    let slice = Slice {
        range: view.slice.range,
        tasks: (!every).then_some(set),
    };
    if slice != view.slice {
        view.set_slice(slice);
    }
    Ok(())
}

fn to_graph(ex: &mut Explorer, mode: &mut Mode) {
    ex.tools.screen = Screen::Graph;
    *mode = Mode::Normal;
}

/// Applies a key of the task list.
pub(crate) fn key(ex: &mut Explorer, mode: &mut Mode, view: &mut TransformStack, k: TaskKey) {
    match k {
        TaskKey::Mark => ex.tools.tasks.mark(),
        TaskKey::All => {
            if view.slice.tasks.is_some() {
                view.set_slice(Slice {
                    range: view.slice.range,
                    tasks: None,
                });
            }
            ex.tools.tasks.marked.clear();
            to_graph(ex, mode);
        }
        TaskKey::Filter => *mode = Mode::TaskFilter,
        TaskKey::Escape if !ex.tools.tasks.query.is_empty() => ex.tools.tasks.query.clear(),
        TaskKey::Escape => to_graph(ex, mode),
    }
}

/// The list keys of the task screen and its filter (moving, Enter, typing); false for the
/// others, which mean what they mean elsewhere.
pub(crate) fn list_key(
    ex: &mut Explorer,
    mode: &mut Mode,
    view: &mut TransformStack,
    action: &ToolAction,
) -> bool {
    let t = &mut ex.tools.tasks;
    let page =
        isize::try_from(ex.areas.graph.height.saturating_sub(t.chrome() + 1).max(1)).unwrap_or(1);
    let len = t.rows.len();
    match *action {
        ToolAction::Step(by) => t.selected = list::step(t.selected, by as isize, len),
        ToolAction::Page(down) => {
            t.selected = list::step(t.selected, if down { page } else { -page }, len);
        }
        ToolAction::Edge(last) => t.selected = list::edge(len, last),
        ToolAction::Type(c) if *mode == Mode::TaskFilter => {
            let done = text_input::type_char(&mut t.query, c);
            note_cut(&mut ex.tools.message, done, false);
        }
        ToolAction::Paste(ref text) if *mode == Mode::TaskFilter => {
            let done = text_input::paste(&mut t.query, text);
            note_cut(&mut ex.tools.message, done, true);
        }
        ToolAction::Backspace if *mode == Mode::TaskFilter => {
            t.query.pop();
        }
        ToolAction::ClearLine if *mode == Mode::TaskFilter => t.query.clear(),
        ToolAction::Accept if *mode == Mode::TaskFilter => *mode = Mode::Tasks,
        ToolAction::Close if *mode == Mode::TaskFilter => {
            t.query.clear();
            *mode = Mode::Tasks;
        }
        ToolAction::Accept => match show(ex, view) {
            Ok(()) => to_graph(ex, mode),
            Err(m) => ex.tools.message = Some(m),
        },
        _ => return false,
    }
    true
}

/// The status line says when the cap cut an edit of the filter.
fn note_cut(message: &mut Option<String>, done: Inserted, pasted: bool) {
    if done == Inserted::Cut {
        *message = Some(text_input::cut_message("The task filter", pasted));
    }
}

/// The mouse on the task list: a click selects a row, a double click marks it, the wheel
/// scrolls.
pub(crate) fn mouse(ex: &mut Explorer, action: &super::Action) {
    use super::Action;
    let g = ex.areas.graph;
    let t = &mut ex.tools.tasks;
    match *action {
        Action::Scroll(rows) => {
            t.selected = list::step(t.selected, rows as isize, t.rows.len());
        }
        Action::Click(_, y) | Action::DoubleClick(_, y) if y > g.y => {
            let i = t.offset + usize::from(y - g.y - 1);
            let last = g.bottom().saturating_sub(t.chrome() - 1);
            if i < t.rows.len() && y < last {
                t.selected = i;
                if matches!(action, Action::DoubleClick(..)) {
                    t.mark();
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
