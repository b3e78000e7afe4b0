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

mod results;
mod wanted;

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::compare::Compare;
use super::compare::transforms::CompareJob;
use super::sandwich::Sandwich;
use super::transforms::{BuiltView, TransformStack, ViewJob};
use super::{App, Phase};
use crate::profile::{NameId, NodeId, Profile};

pub(super) use results::install;
pub(super) use wanted::reconcile;

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

#[cfg(test)]
mod tests;
