//! Stage: application state — the task list screen (`w`): who ran in the range shown.
//! Processes with their threads nested (without pids, the threads of each name), heaviest
//! first, with their samples and share of the range; `/` filters them with the fuzzy
//! scorer of the finder, Space marks a thread (or a process: all its threads), Enter shows
//! only the marked tasks — a new slice of the view with its time range kept, undone with
//! `u` — and `a` shows every task again. The rows are summed from the profile as read
//! (its sample table) only when the range or the input changes, and filtered only when
//! the query does, so that drawing only reads them.

use std::collections::BTreeSet;

use super::action::ToolAction;
use super::explorer::Explorer;
use super::list;
use super::mode::Mode;
use super::state::Screen;
use super::text_input::{self, Inserted};
use super::transforms::state::TransformStack;
use crate::profile::{Slice, TaskId};

pub use state::*;

pub(crate) mod keys;
pub mod state;

/// Opens the task list (or says why there is none), or closes it.
pub(crate) fn toggle(ex: &mut Explorer, mode: &mut Mode) {
    if ex.tools.screen == Screen::Tasks {
        *mode = ex.tools.go_back();
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
    ex.tools.enter(Screen::Tasks);
    *mode = Mode::Tasks;
}

/// Shows the marked tasks (the selected row's when none is marked), the range kept.
///
/// # Errors
/// No task is marked and no row is left by the filter.
pub(crate) fn show(ex: &mut Explorer, view: &mut TransformStack) -> Result<(), String> {
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
    ex.tools.enter(Screen::Graph);
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
        TaskKey::Escape => *mode = ex.tools.go_back(),
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
