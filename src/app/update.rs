//! Stage: application state — `App × Action → App`. One arm per verb; the explorer then
//! brings layout, areas and status in step, so `ui::draw` only reads.

use super::explore::explore;
use super::jobs::{self, Done};
use super::show::{compare_pair, show_profile};
use super::{Action, App, Mode, Phase, Progress, Size, ToolAction, text_input};
use crate::profile::NodeId;
use crate::profile::metrics::{self, MetricShelf, next_common_metric};
use crate::view::Target;
use std::fmt::Write as _;

/// Most key actions kept while loading (a key storm cannot grow memory).
const MAX_QUEUED: usize = 256;

/// True for the actions a user means for the graph, which wait while it loads.
fn waits_for_the_graph(action: &Action) -> bool {
    !matches!(
        action,
        Action::Quit
            | Action::StopRecording
            | Action::TopInterval(_)
            | Action::TopTick(_)
            | Action::Resize(..)
            | Action::Hover(..)
            | Action::Drag(..)
            | Action::Release(..)
            | Action::Progress(_)
            | Action::Snapshot(_)
            | Action::Loaded(_)
            | Action::LoadedPair(_)
            | Action::Failed(_)
            | Action::Computing(..)
            | Action::StartSlice(_)
    )
}

/// Applies the keys pressed while loading, in order, once there is a graph.
fn replay_queued(app: &mut App) {
    for action in std::mem::take(&mut app.queued) {
        update(app, action);
    }
}

/// Applies one action.
pub fn update(app: &mut App, action: Action) {
    let action = paste_action(action, app.mode);
    if matches!(app.phase, Phase::Loading(_)) && waits_for_the_graph(&action) {
        if app.queued.len() < MAX_QUEUED {
            app.queued.push(action);
        }
        return;
    }
    // Esc on the graph gives up a change still being computed, before anything else.
    let cancels = matches!(action, Action::Escape) && app.mode == Mode::Normal;
    if cancels && jobs::cancel(app) {
        jobs::reconcile(app);
        refresh(app);
        return;
    }
    match action {
        Action::Computing(id, elapsed) => app.jobs.progress(id, elapsed),
        Action::Quit => app.quit = true,
        Action::StopRecording => super::recording::stop(app),
        top if super::top::handles(app, &top) => {
            super::top::apply(app, top);
            replay_queued(app);
        }
        Action::Resize(width, height) => app.size = Size { width, height },
        Action::Progress(p) => match &mut app.phase {
            Phase::Loading(cur) => *cur = p,
            _ if app.streaming.is_some() => app.streaming = Some(p),
            _ => {}
        },
        Action::Snapshot(profile) => {
            if app.streaming.is_none() {
                app.streaming = Some(match app.phase {
                    Phase::Loading(p) => p,
                    _ => Progress::default(),
                });
            }
            show_profile(app, profile);
            replay_queued(app);
        }
        Action::ToggleFreeze if app.streaming.is_none() && !app.frozen => {
            let why = "Nothing to freeze: the input is read whole (z pauses input still streaming)";
            match &mut app.phase {
                Phase::Ready(ex) => ex.tools.message = Some(why.to_owned()),
                Phase::Compare(cmp) => cmp.driver_mut().tools.message = Some(why.to_owned()),
                Phase::Loading(_) => {}
            }
        }
        Action::ToggleFreeze => {
            app.frozen = !app.frozen;
            if let Some(p) = app.pending.take().filter(|_| !app.frozen) {
                show_profile(app, p);
            }
        }
        Action::StartSlice(slice) => app.view.set_slice(slice),
        Action::Loaded(profile) => {
            app.streaming = None;
            show_profile(app, profile);
            replay_queued(app);
        }
        Action::LoadedPair(pair) => {
            let (before, after) = *pair;
            app.source = format!("{} → {}", before.source, after.source);
            let (mut cmp, note) = compare_pair(app, before, after);
            cmp.driver_mut().tools.message = note;
            app.phase = Phase::Compare(Box::new(cmp));
            replay_queued(app);
        }
        Action::Failed(message) => {
            app.failure = Some(message);
            app.quit = true;
        }
        Action::ToggleHelp if app.explorer().is_some() => {
            app.mode = if app.mode == Mode::Help {
                app.explorer()
                    .map_or(Mode::Normal, |ex| ex.tools.home_mode())
            } else {
                app.help_scroll = 0;
                Mode::Help
            };
        }
        Action::Tool(t) => super::dispatch::update(app, t),
        Action::ToggleDemangle | Action::ToggleShortNames => toggle_names(app, &action),
        Action::ToggleLibraryColors => toggle_library_colors(app),
        Action::NextMetric => next_metric(app),
        other => {
            if let Phase::Ready(ex) = &mut app.phase
                && app.mode != Mode::Help
            {
                explore(ex, &mut app.mode, &other);
            } else if let Phase::Compare(cmp) = &mut app.phase
                && app.mode != Mode::Help
                // The finder popup and the prompt take the keys; the mouse does not reach
                // the graph under them.
                && (!matches!(app.mode, Mode::Finder | Mode::Prompt)
                    || matches!(other, Action::Resize(..)))
            {
                cmp.apply(&mut app.mode, &other);
            }
        }
    }
    jobs::reconcile(app);
    refresh(app);
    note_selection(app);
}

/// A paste is never longer than a prompt can take (one waiting in the queue holds no
/// megabytes, and no prompt is handed more than the cap); in the finder, the export and
/// exclude prompts and the task filter it is the tools' to apply, in the search prompt the
/// explorer's.
fn paste_action(action: Action, mode: Mode) -> Action {
    match action {
        Action::Paste(text) => {
            let text = text_input::clipped(&text);
            if matches!(mode, Mode::Finder | Mode::Prompt | Mode::TaskFilter) {
                Action::Tool(ToolAction::Paste(text))
            } else {
                Action::Paste(text)
            }
        }
        other => other,
    }
}

/// The view remembers the function selected, so that `u` can select it again.
fn note_selection(app: &mut App) {
    if let Phase::Ready(ex) = &app.phase {
        let name = match ex.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(ex.profile.tree.name(id)),
            _ => None,
        };
        app.view.note_selection(name);
    }
}

/// Shows the result of a background job (from the shell's thread), if it is still the one
/// awaited; then brings the rest in step, as after an action.
pub fn finish(app: &mut App, done: Done) {
    jobs::install(app, done);
    jobs::reconcile(app);
    refresh(app);
    note_selection(app);
}

/// Layout, areas and status in step with the state. Every explorer shows names in the
/// app's style, whichever way it was made (a new view, a snapshot, a compare side).
fn refresh(app: &mut App) {
    match &mut app.phase {
        Phase::Ready(ex) => {
            ex.restyle(app.names);
            ex.library_colors = app.library_colors;
            // The task list's on-CPU column reads the clock metric beside off-CPU time.
            ex.tools.tasks.clock = app.metrics.first().and_then(|shelf| {
                shelf
                    .profiles
                    .iter()
                    .find(|p| crate::profile::blocks::is_clock(p))
                    .cloned()
            });
            ex.refresh(app.size, app.mode);
        }
        Phase::Compare(cmp) => {
            cmp.before.restyle(app.names);
            cmp.after.restyle(app.names);
            cmp.before.library_colors = app.library_colors;
            cmp.after.library_colors = app.library_colors;
            cmp.refresh(app.size, &mut app.mode);
        }
        Phase::Loading(_) => {}
    }
}

/// `d` and `S`: the names' style changes everywhere, and a line says what is shown now.
fn toggle_names(app: &mut App, action: &Action) {
    let s = &mut app.names;
    let message = if matches!(action, Action::ToggleDemangle) {
        s.demangle = !s.demangle;
        if s.demangle {
            "Names demangled (C++, Rust) · d shows them as read"
        } else {
            "Names as read, mangled · d demangles them"
        }
    } else {
        s.short = !s.short;
        if s.short {
            "Short names (<…>, (…)) · S shows them whole · y copies the whole name"
        } else {
            "Whole names · S folds templates and arguments"
        }
    };
    let shown = match &mut app.phase {
        Phase::Ready(ex) => Some(&mut ***ex),
        Phase::Compare(cmp) => Some(cmp.driver_mut()),
        Phase::Loading(_) => None,
    };
    if let Some(ex) = shown {
        ex.tools.message = Some(message.to_owned());
    }
}

/// `C`: colours by library or by name, on every explorer; an input that names no library
/// says so and stays as it is.
fn toggle_library_colors(app: &mut App) {
    let shown = match &mut app.phase {
        Phase::Ready(ex) => &mut **ex,
        Phase::Compare(cmp) => cmp.driver_mut(),
        Phase::Loading(_) => return,
    };
    if shown.profile.tree.names().library_count() == 0 {
        shown.tools.message = Some(crate::profile::libraries::NO_LIBRARIES.to_owned());
        return;
    }
    app.library_colors = !app.library_colors;
    shown.tools.message = Some(
        if app.library_colors {
            "Colours by library (DSO, module) · C colours by function · L lists libraries"
        } else {
            "Colours by function · C colours by library"
        }
        .to_owned(),
    );
}

/// `m`: the next metric of the input wanted, the same on both sides of a comparison (one
/// only one side has is passed over, and said so); `jobs::reconcile` shows it. The slice
/// is forgotten: it names times and tasks of the samples of the metric it was made on.
fn next_metric(app: &mut App) {
    let (why, note) = match app.metrics.as_mut_slice() {
        [one] => match next_metric_index(one) {
            Err(why) => (Some(why), None),
            Ok((i, passed)) => {
                one.shown = i;
                (None, Some(passed_note(&passed)))
            }
        },
        [before, after] => match next_common_metric(before, after) {
            (None, _) if before.names.is_empty() && after.names.is_empty() => {
                (Some("Both profiles have one metric each".to_owned()), None)
            }
            (None, passed) => (
                Some(format!(
                    "No other metric on both sides{}",
                    one_sided(&passed, before, after)
                )),
                None,
            ),
            (Some((b, a)), passed) => {
                let note = one_sided(&passed, before, after);
                (before.shown, after.shown) = (b, a);
                (None, Some(note))
            }
        },
        _ => return,
    };
    if let Some(mut note) = note {
        if !app.view.slice.is_everything() {
            note.push_str(" · time/task slice cleared");
        }
        app.view.forget_slices();
        app.metric_note = Some(note);
        return;
    }
    let message = why.map(|w| crate::text::sanitize(&w).into_owned());
    match &mut app.phase {
        Phase::Ready(ex) => ex.tools.message = message,
        Phase::Compare(cmp) => cmp.driver_mut().tools.message = message,
        Phase::Loading(_) => {}
    }
}

/// ` · no samples: a, b` for the metrics passed over.
fn passed_note(passed: &[String]) -> String {
    if passed.is_empty() {
        String::new()
    } else {
        format!(" · no samples: {}", passed.join(", "))
    }
}

/// The next metric with weight on a single input's shelf, or why there is none.
fn next_metric_index(shelf: &MetricShelf) -> Result<(usize, Vec<String>), String> {
    if shelf.names.len() < 2 {
        let unit = shelf
            .profiles
            .first()
            .map(|p| p.stats.unit.to_string())
            .unwrap_or_default();
        return Err(format!("This profile has one metric ({unit})"));
    }
    match metrics::next_metric(shelf) {
        (Some(i), passed) => Ok((i, passed)),
        (None, _) => Err(format!(
            "The other metrics have no samples; showing {}",
            shelf.label()
        )),
    }
}

/// ` · x only in BEFORE` for the metrics passed over because one side lacks them.
fn one_sided(passed: &[String], before: &MetricShelf, after: &MetricShelf) -> String {
    let mut out = String::new();
    for name in passed {
        let side = match (before.position(name), after.position(name)) {
            (Some(_), None) => "only in BEFORE",
            (None, Some(_)) => "only in AFTER",
            _ => "no samples on one side",
        };
        let _ = write!(out, " · {name} {side}");
    }
    out
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod metrics_tests;

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
