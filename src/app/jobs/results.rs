//! A job's result shown, if it is the one awaited, and what a new view or callers /
//! callees shown change on screen (also when computed at once).

use std::sync::Arc;

use super::{Done, Outcome, Work};
use crate::app::explorer::Explorer;
use crate::app::sandwich::Sandwich;
use crate::app::state::Screen;
use crate::app::tools::view_message;
use crate::app::transforms::TransformStack;
use crate::app::{App, Mode, Phase};
use crate::profile::Profile;
use crate::text::sanitize;

/// `Metric 2/3 sched:sched_switch · m for the next`, and what the switch noted.
pub(super) fn metric_message(p: &Profile, note: Option<String>) -> String {
    let place = p.stats.metric.as_ref().map_or_else(String::new, |m| {
        format!("{}/{} {}", m.index + 1, m.count, m.name)
    });
    sanitize(&format!(
        "Metric {place} · m for the next{}",
        note.unwrap_or_default()
    ))
    .into_owned()
}

/// What a change of the view shows in compare mode.
pub(super) fn compare_message(view: &TransformStack) -> String {
    let summary = view.summary();
    if summary.is_empty() {
        "Showing the profiles as read".to_owned()
    } else {
        format!("{summary} (both profiles) · u undoes")
    }
}

/// Shows a job's result if it is the one awaited; any other is dropped (freed by the
/// shell). The caller reconciles again: callers / callees may wait for this view.
pub(in crate::app) fn install(app: &mut App, done: Done) {
    let Done { id, outcome } = done;
    let awaited = app.jobs.pending.take_if(|p| p.id == id);
    let App {
        phase,
        mode,
        jobs,
        metric_note,
        ..
    } = app;
    let Some(pending) = awaited else {
        jobs.discard(outcome);
        return;
    };
    match (phase, outcome) {
        (Phase::Ready(ex), Outcome::View(built)) => {
            let finder = (*mode == Mode::Finder).then(|| ex.tools.finder.query.clone());
            let was = Arc::clone(ex.original_shared());
            let old = ex.adopt(*built);
            jobs.discard(old);
            ex.tools.message = Some(if Arc::ptr_eq(&was, ex.original_shared()) {
                view_message(ex)
            } else {
                metric_message(ex.original(), metric_note.take())
            });
            after_view(ex, mode, finder);
        }
        (Phase::Ready(ex), Outcome::Sandwich(s)) => {
            let still = matches!(
                pending.work,
                Work::Sandwich { name, generation }
                    if generation == ex.tools.generation && ex.tools.wanted_sandwich == Some(name)
            );
            if still {
                if let Some(old) = show_sandwich(ex, mode, *s) {
                    jobs.discard(old);
                }
            } else {
                jobs.discard(s);
            }
        }
        (Phase::Compare(cmp), Outcome::Compare(fresh)) => {
            let was = Arc::clone(cmp.originals().0);
            let old = cmp.adopt(*fresh);
            jobs.discard(old);
            let message = if Arc::ptr_eq(&was, cmp.originals().0) {
                compare_message(cmp.applied())
            } else {
                metric_message(cmp.originals().0, metric_note.take())
            };
            cmp.driver_mut().tools.message = Some(message);
        }
        (_, other) => jobs.discard(other),
    }
}

/// After a new view: an open finder lists the new tree's functions for the same query, and
/// callers / callees (closed by the change) give the keys back to the graph.
pub(super) fn after_view(ex: &mut Explorer, mode: &mut Mode, finder: Option<String>) {
    if let Some(query) = finder {
        ex.open_finder();
        ex.tools.finder.query = query;
        ex.run_finder();
    }
    if *mode == Mode::Sandwich && ex.tools.screen != Screen::Sandwich {
        *mode = Mode::Normal;
    }
    if *mode == Mode::Source && ex.tools.screen != Screen::Source {
        *mode = Mode::Normal;
    }
}

/// Opens callers / callees (recentring keeps the pane the keys go to); returns the ones
/// shown before.
pub(super) fn show_sandwich(
    ex: &mut Explorer,
    mode: &mut Mode,
    mut s: Sandwich,
) -> Option<Box<Sandwich>> {
    s.focus = ex.tools.sandwich.as_ref().map_or(0, |old| old.focus);
    ex.tools.wanted_sandwich = None;
    ex.tools.enter(Screen::Sandwich);
    if matches!(*mode, Mode::Normal | Mode::Table | Mode::Sandwich) {
        *mode = Mode::Sandwich;
    }
    ex.tools.sandwich.replace(Box::new(s))
}
