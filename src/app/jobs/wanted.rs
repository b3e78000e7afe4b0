//! Bringing what is shown in step with what is wanted after every action: at once when
//! the work is small, else by submitting a job.

use std::sync::Arc;

use super::results::{after_view, compare_message, metric_message, show_sandwich};
use super::{Jobs, Task, Work};
use crate::app::compare::Compare;
use crate::app::compare::transforms::CompareJob;
use crate::app::explorer::Explorer;
use crate::app::sandwich::Sandwich;
use crate::app::tools::view_message;
use crate::app::transforms::TransformStack;
use crate::app::{App, Mode, Phase};
use crate::profile::Profile;
use crate::profile::metrics::MetricShelf;
use crate::text::sanitize;
use crate::view::tooltip::ellipsize;

/// `bottom-up`, `exclude f › by weight`: the view a job computes.
fn view_label(view: &TransformStack) -> String {
    let summary = view.summary();
    if summary.is_empty() {
        "the profile as read".to_owned()
    } else {
        summary
    }
}

/// The metric wanted of each input (see `App::metrics`): its profile and index.
fn wanted_metrics(shelves: &[MetricShelf]) -> (Vec<Arc<Profile>>, Vec<usize>) {
    let profiles = shelves
        .iter()
        .filter_map(|s| s.profiles.get(s.shown).cloned())
        .collect();
    (profiles, shelves.iter().map(|s| s.shown).collect())
}

/// Brings what is shown in step with what is wanted (the view, then callers / callees):
/// at once for small work, else by starting a job. Called after every action.
pub(in crate::app) fn reconcile(app: &mut App) {
    let App {
        phase,
        view,
        jobs,
        mode,
        metrics,
        metric_note,
        ..
    } = app;
    let (profiles, indexes) = wanted_metrics(metrics);
    let wanted = Wanted {
        view,
        profiles: &profiles,
        indexes: &indexes,
    };
    match phase {
        Phase::Ready(ex) => {
            if reconcile_view(ex, &wanted, jobs, mode, metric_note) {
                reconcile_sandwich(ex, jobs, mode);
            }
        }
        Phase::Compare(cmp) => reconcile_compare(cmp, &wanted, jobs, metric_note),
        Phase::Loading(_) => {}
    }
}

/// What should be shown: the view, and the metric of each input (its profile as read).
struct Wanted<'a> {
    view: &'a TransformStack,
    profiles: &'a [Arc<Profile>],
    indexes: &'a [usize],
}

/// True when the view shown is the one wanted, of the metric wanted.
fn reconcile_view(
    ex: &mut Explorer,
    wanted: &Wanted<'_>,
    jobs: &mut Jobs,
    mode: &mut Mode,
    note: &mut Option<String>,
) -> bool {
    let view = wanted.view;
    // Another metric of the input than the one shown: its profile as read.
    let other = wanted
        .profiles
        .first()
        .filter(|w| !Arc::ptr_eq(w, ex.original_shared()));
    if other.is_none() && view.shows_the_same(&ex.tools.applied) {
        if jobs.awaits_view()
            && let Some(label) = jobs.cancel()
        {
            ex.tools.message = Some(format!("Cancelled: {label}"));
        }
        return true;
    }
    if jobs.computing_view(view, wanted.indexes) {
        return false;
    }
    let nodes = other.map_or_else(|| ex.original().tree.len(), |w| w.tree.len());
    if nodes < jobs.background_from {
        if jobs.awaits_view() {
            jobs.cancel();
        }
        if let Some(w) = other {
            // Zoom, selection and history carried over by stack path.
            ex.replace_profile(Arc::clone(w), view, mode);
            ex.tools.message = Some(metric_message(ex.original(), note.take()));
        } else {
            ex.apply_view(view);
            ex.tools.message = Some(view_message(ex));
        }
        after_view(ex, mode, None);
        return true;
    }
    let (job, label) = match other {
        Some(w) => (
            ex.view_job_of(Arc::clone(w), view),
            format!("metric {}", sanitize(&w.metric_label())),
        ),
        None => (ex.view_job(view), view_label(view)),
    };
    jobs.submit(
        Task::View(job),
        label,
        Work::View(view.clone(), wanted.indexes.to_vec()),
    );
    false
}

fn reconcile_sandwich(ex: &mut Explorer, jobs: &mut Jobs, mode: &mut Mode) {
    let Some(name) = ex.tools.wanted_sandwich else {
        if jobs.awaits_sandwich()
            && let Some(label) = jobs.cancel()
        {
            ex.tools.message = Some(format!("Cancelled: {label}"));
        }
        return;
    };
    let generation = ex.tools.generation;
    if jobs.computing_sandwich(name, generation) {
        return;
    }
    let (outermost, below) = ex.index.outermost(name);
    if below < jobs.background_from {
        if jobs.awaits_sandwich() {
            jobs.cancel();
        }
        let s = Sandwich::below(&ex.profile.tree, name, &outermost);
        show_sandwich(ex, mode, s);
        return;
    }
    let label = format!(
        "callers / callees of {}",
        ellipsize(&sanitize(ex.shown(name)), 40)
    );
    let task = Task::Sandwich {
        profile: Arc::clone(&ex.profile),
        name,
        outermost,
    };
    jobs.submit(task, label, Work::Sandwich { name, generation });
}

fn reconcile_compare(
    cmp: &mut Compare,
    wanted: &Wanted<'_>,
    jobs: &mut Jobs,
    note: &mut Option<String>,
) {
    let view = wanted.view;
    let other = match (wanted.profiles, cmp.originals()) {
        ([wb, wa], (b, a)) if !Arc::ptr_eq(wb, b) || !Arc::ptr_eq(wa, a) => {
            Some((Arc::clone(wb), Arc::clone(wa)))
        }
        _ => None,
    };
    if other.is_none() && view.shows_the_same(cmp.applied()) {
        if jobs.awaits_view()
            && let Some(label) = jobs.cancel()
        {
            cmp.driver_mut().tools.message = Some(format!("Cancelled: {label}"));
        }
        return;
    }
    if jobs.computing_view(view, wanted.indexes) {
        return;
    }
    let nodes = other
        .as_ref()
        .map_or_else(|| cmp.nodes(), |(b, a)| b.tree.len() + a.tree.len());
    let switching = other.is_some();
    let job = match other {
        Some(pair) => CompareJob::new(pair, view.clone()),
        None => cmp.view_job(view),
    };
    if nodes < jobs.background_from {
        if jobs.awaits_view() {
            jobs.cancel();
        }
        if let Some(fresh) = job.build(&|| false) {
            let old = cmp.adopt(fresh);
            jobs.discard(old);
        }
        cmp.driver_mut().tools.message = Some(if switching {
            metric_message(cmp.originals().0, note.take())
        } else {
            compare_message(view)
        });
        return;
    }
    let label = if switching {
        format!(
            "metric {} (both profiles)",
            sanitize(&job.originals().0.metric_label())
        )
    } else {
        view_label(view)
    };
    jobs.submit(
        Task::Compare(job),
        label,
        Work::View(view.clone(), wanted.indexes.to_vec()),
    );
}
