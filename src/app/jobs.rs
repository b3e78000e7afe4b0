//! Stage: application state — the recomputations too heavy for a key press. Re-inverting a
//! tree of 3 M nodes takes seconds, and so does every other change of the view (a transform,
//! `o`, `u`), and callers / callees of a function whose frames hold much of the tree. What
//! is wanted is plain state: `App::view`, and the callers / callees asked for
//! (`Tools::wanted_sandwich`). After every action `reconcile` brings what is shown in step
//! with it: at once when the work is small (most profiles, and the tests, stay synchronous
//! and deterministic), else through a [`Job`] that the shell runs on another thread while
//! keys keep working on what is shown:
//!
//! ```text
//! key ─▶ update ─▶ wanted ─▶ reconcile ─▶ small: shown at once
//!                                     └─▶ large: Job ─▶ shell thread ─▶ Done ─▶ update::finish
//! ```
//!
//! Each job has a number, and only the result of the newest is shown: a newer change
//! supersedes a running job (the shell tells it to stop, and drops its result), and Esc or
//! `u` cancels it. What a job replaces on screen goes back to the shell to be freed on
//! another thread too.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::compare::Compare;
use super::compare::transforms::CompareJob;
use super::explorer::Explorer;
use super::sandwich::Sandwich;
use super::state::Screen;
use super::tools::view_message;
use super::transforms::{BuiltView, TransformStack, ViewJob};
use super::{App, Mode, Phase};
use crate::profile::metrics::MetricShelf;
use crate::profile::{NameId, NodeId, Profile};
use crate::text::sanitize;
use crate::view::tooltip::ellipsize;

/// Work on at least this many nodes goes to the background. A change of the view costs
/// about 1 µs per node of the profile as read on the build machine, callers / callees
/// less per node below the function's frames: below this, a change takes at most about
/// 50 ms.
pub const BACKGROUND_NODES: usize = 40_000;

/// The jobs of the app: the one awaited, and what the shell is asked to do.
#[derive(Debug)]
pub struct Jobs {
    /// Work on at least this many nodes goes to the background (tests lower it).
    pub background_from: usize,
    /// The job whose result is awaited.
    pub pending: Option<Pending>,
    last_id: u64,
    orders: Orders,
}

impl Default for Jobs {
    fn default() -> Self {
        Self {
            background_from: BACKGROUND_NODES,
            pending: None,
            last_id: 0,
            orders: Orders::default(),
        }
    }
}

/// The job awaited, as the screen tells of it.
#[derive(Debug, Clone)]
pub struct Pending {
    /// Its number.
    pub id: u64,
    /// What it computes: `bottom-up`, `callers / callees of f`.
    pub label: String,
    /// Time since it started, as the shell last said.
    pub elapsed: Duration,
    work: Work,
}

/// What a pending job computes, to tell whether a request is already being answered.
#[derive(Debug, Clone)]
enum Work {
    /// A view, of the metrics wanted (each input's index, see `App::metrics`).
    View(TransformStack, Vec<usize>),
    Sandwich {
        name: NameId,
        generation: u64,
    },
}

/// What the shell is asked to do about jobs, after an action.
#[derive(Debug, Default)]
pub struct Orders {
    /// Start this job; it supersedes the one running.
    pub start: Option<Job>,
    /// Stop the running job: its result is not wanted.
    pub stop: bool,
    /// Free these on another thread.
    pub garbage: Vec<Garbage>,
}

/// Something no longer shown, for the shell to free on another thread: freeing a tree of
/// millions of nodes takes tens of milliseconds.
pub struct Garbage(pub Box<dyn Any + Send>);

impl fmt::Debug for Garbage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Garbage")
    }
}

/// A recomputation, with its inputs owned (shared profiles, the view), for another thread.
#[derive(Debug)]
pub struct Job {
    /// Its number: the result is shown only if it is still the one awaited.
    pub id: u64,
    task: Task,
}

#[derive(Debug)]
enum Task {
    View(ViewJob),
    Compare(CompareJob),
    Sandwich {
        profile: Arc<Profile>,
        name: NameId,
        outermost: Vec<NodeId>,
    },
}

/// A job's result.
#[derive(Debug)]
pub struct Done {
    /// The job's number.
    pub id: u64,
    outcome: Outcome,
}

#[derive(Debug)]
enum Outcome {
    View(Box<BuiltView>),
    Compare(Box<Compare>),
    Sandwich(Box<Sandwich>),
}

impl Job {
    /// Computes the result: a plain function of the job's inputs. `stop` is asked between
    /// stages (each transform, the index, the search); a job told to stop returns nothing.
    pub fn run(self, stop: &dyn Fn() -> bool) -> Option<Done> {
        let outcome = match self.task {
            Task::View(job) => Outcome::View(Box::new(job.build(stop)?)),
            Task::Compare(job) => Outcome::Compare(Box::new(job.build(stop)?)),
            Task::Sandwich {
                profile,
                name,
                outermost,
            } => Outcome::Sandwich(Box::new(Sandwich::below(&profile.tree, name, &outermost))),
        };
        Some(Done {
            id: self.id,
            outcome,
        })
    }
}

impl Jobs {
    /// What the shell is to do now (each order is given once).
    pub fn take_orders(&mut self) -> Orders {
        std::mem::take(&mut self.orders)
    }

    fn submit(&mut self, task: Task, label: String, work: Work) {
        self.last_id += 1;
        let id = self.last_id;
        self.pending = Some(Pending {
            id,
            label,
            elapsed: Duration::ZERO,
            work,
        });
        // A job not started yet holds only shared profiles: nothing to free.
        self.orders.start = Some(Job { id, task });
        self.orders.stop = false;
    }

    /// Forgets the job awaited (the shell stops it); its label, if there was one.
    fn cancel(&mut self) -> Option<String> {
        let pending = self.pending.take()?;
        self.orders.start = None;
        self.orders.stop = true;
        Some(pending.label)
    }

    fn discard(&mut self, thing: impl Any + Send) {
        self.orders.garbage.push(Garbage(Box::new(thing)));
    }

    fn awaits_view(&self) -> bool {
        matches!(
            &self.pending,
            Some(Pending {
                work: Work::View(..),
                ..
            })
        )
    }

    fn awaits_sandwich(&self) -> bool {
        matches!(
            &self.pending,
            Some(Pending {
                work: Work::Sandwich { .. },
                ..
            })
        )
    }

    fn computing_view(&self, view: &TransformStack, metrics: &[usize]) -> bool {
        matches!(
            &self.pending,
            Some(Pending { work: Work::View(v, m), .. })
                if v.shows_the_same(view) && m.as_slice() == metrics
        )
    }

    fn computing_sandwich(&self, name: NameId, generation: u64) -> bool {
        matches!(
            &self.pending,
            Some(Pending { work: Work::Sandwich { name: n, generation: g }, .. })
                if *n == name && *g == generation
        )
    }

    /// The shell says how long job `id` has been running.
    pub(super) fn progress(&mut self, id: u64, elapsed: Duration) {
        if let Some(p) = self.pending.as_mut().filter(|p| p.id == id) {
            p.elapsed = elapsed;
        }
    }
}

/// `bottom-up`, `exclude f › by weight`: the view a job computes.
fn view_label(view: &TransformStack) -> String {
    let summary = view.summary();
    if summary.is_empty() {
        "the profile as read".to_owned()
    } else {
        summary
    }
}

/// Gives up what is being computed (Esc): the view wanted is the one shown again, and the
/// callers / callees asked for are not wanted any more. True when there was something.
pub(super) fn cancel(app: &mut App) -> bool {
    if app.jobs.pending.is_none() {
        return false;
    }
    let shown: Vec<Option<usize>> = match &mut app.phase {
        Phase::Ready(ex) => {
            app.view = ex.tools.applied.clone();
            ex.tools.wanted_sandwich = None;
            vec![metric_index(ex.original())]
        }
        Phase::Compare(cmp) => {
            app.view = cmp.applied().clone();
            let (b, a) = cmp.originals();
            vec![metric_index(b), metric_index(a)]
        }
        Phase::Loading(_) => Vec::new(),
    };
    // The metric wanted is the one shown again too.
    for (shelf, i) in app.metrics.iter_mut().zip(shown) {
        if let Some(i) = i {
            shelf.shown = i;
        }
    }
    app.metric_note = None;
    true
}

/// Which of its input's metrics a profile is.
fn metric_index(p: &Profile) -> Option<usize> {
    p.stats.metric.as_ref().map(|m| m.index)
}

/// `Metric 2/3 sched:sched_switch · m for the next`, and what the switch noted.
fn metric_message(p: &Profile, note: Option<String>) -> String {
    let place = p.stats.metric.as_ref().map_or_else(String::new, |m| {
        format!("{}/{} {}", m.index + 1, m.count, m.name)
    });
    sanitize(&format!(
        "Metric {place} · m for the next{}",
        note.unwrap_or_default()
    ))
    .into_owned()
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
pub(super) fn reconcile(app: &mut App) {
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

/// What a change of the view shows in compare mode.
fn compare_message(view: &TransformStack) -> String {
    let summary = view.summary();
    if summary.is_empty() {
        "Showing the profiles as read".to_owned()
    } else {
        format!("{summary} (both profiles) · u undoes")
    }
}

/// Shows a job's result if it is the one awaited; any other is dropped (freed by the
/// shell). The caller reconciles again: callers / callees may wait for this view.
pub(super) fn install(app: &mut App, done: Done) {
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
fn after_view(ex: &mut Explorer, mode: &mut Mode, finder: Option<String>) {
    if let Some(query) = finder {
        ex.open_finder();
        ex.tools.finder.query = query;
        ex.run_finder();
    }
    if *mode == Mode::Sandwich && ex.tools.screen != Screen::Sandwich {
        *mode = Mode::Normal;
    }
}

/// Opens callers / callees (recentring keeps the pane the keys go to); returns the ones
/// shown before.
fn show_sandwich(ex: &mut Explorer, mode: &mut Mode, mut s: Sandwich) -> Option<Box<Sandwich>> {
    s.focus = ex.tools.sandwich.as_ref().map_or(0, |old| old.focus);
    ex.tools.wanted_sandwich = None;
    ex.tools.screen = Screen::Sandwich;
    if matches!(*mode, Mode::Normal | Mode::Table | Mode::Sandwich) {
        *mode = Mode::Sandwich;
    }
    ex.tools.sandwich.replace(Box::new(s))
}

#[cfg(test)]
#[path = "jobs_tests.rs"]
mod tests;
