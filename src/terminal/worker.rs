//! The shell's side of the app's background jobs (`app::jobs`): a [`Runner`] starts them —
//! [`Inline`] at once on the loop's thread (the tests), [`Worker`] on a thread of its own
//! (the binary) — and the loop gives it what the app asks for after each input.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::Input;
use crate::app::jobs::{Done, Garbage, Job};
use crate::app::{App, finish};
use crate::profile::threads::start;

/// Where the app's background jobs run (`app::jobs`).
pub trait Runner {
    /// Starts `job`, which supersedes any still running; a runner that computes it at
    /// once returns the result, one that computes it elsewhere sends it as
    /// [`Input::Computed`] later.
    fn start(&mut self, job: Job) -> Option<Done>;

    /// The running job's result is not wanted any more.
    fn stop(&mut self);

    /// Frees something the app no longer shows.
    fn free(&mut self, garbage: Garbage);
}

/// Runs each job at once, on the loop's thread: what the tests use (deterministic).
#[derive(Debug, Default)]
pub struct Inline;

impl Runner for Inline {
    fn start(&mut self, job: Job) -> Option<Done> {
        job.run(&|| false)
    }

    fn stop(&mut self) {}

    fn free(&mut self, garbage: Garbage) {
        drop(garbage);
    }
}

/// Gives the runner what the app asked for; results computed at once are shown at once.
pub(super) fn perform_jobs<R: Runner>(runner: &mut R, app: &mut App) {
    loop {
        let orders = app.jobs.take_orders();
        if orders.stop {
            runner.stop();
        }
        for garbage in orders.garbage {
            runner.free(garbage);
        }
        let Some(done) = orders.start.and_then(|job| runner.start(job)) else {
            return;
        };
        finish(app, done);
    }
}

/// Runs jobs on a thread of their own, the newest first: a job started while another runs
/// tells that one to stop (it stops at its next stage and its result is dropped there).
/// Another thread tells the loop every 100 ms how long the job has been running, and
/// freeing happens on threads of its own.
pub(super) struct Worker {
    shared: Arc<(Mutex<WorkerState>, Condvar)>,
}

#[derive(Default)]
struct WorkerState {
    /// The job to run next.
    next: Option<Job>,
    /// The job whose result is wanted (0: none).
    wanted: u64,
}

impl Worker {
    /// Starts the threads; results and progress go to `tx`. `delay` (debug builds, for the
    /// end-to-end tests) makes each job take at least that long.
    ///
    /// # Errors
    /// The thread could not be started.
    pub(super) fn spawn(tx: Sender<Input>, delay: Duration) -> std::io::Result<Self> {
        let shared = Arc::new((Mutex::new(WorkerState::default()), Condvar::new()));
        let worker = Arc::clone(&shared);
        start(move || {
            let (lock, ready) = &*worker;
            let wanted = |id: u64| lock.lock().is_ok_and(|s| s.wanted == id);
            loop {
                let Ok(guard) = lock.lock() else { return };
                let Ok(mut guard) = ready.wait_while(guard, |s| s.next.is_none()) else {
                    return;
                };
                let Some(job) = guard.next.take() else {
                    continue;
                };
                drop(guard);
                let id = job.id;
                let started = Instant::now();
                let ticker = spawn_ticker(tx.clone(), id, started, Arc::clone(&worker));
                while started.elapsed() < delay && wanted(id) {
                    thread::sleep(Duration::from_millis(10));
                }
                let done = job.run(&|| !wanted(id));
                drop(ticker);
                if let Some(done) = done.filter(|_| wanted(id))
                    && tx.send(Input::Computed(Box::new(done))).is_err()
                {
                    return;
                }
            }
        })?;
        Ok(Worker { shared })
    }

    fn with_state(&self, f: impl FnOnce(&mut WorkerState)) {
        if let Ok(mut state) = self.shared.0.lock() {
            f(&mut state);
        }
        self.shared.1.notify_one();
    }
}

/// Ends the ticker of a job when dropped.
struct Ticker(Arc<AtomicBool>);

impl Drop for Ticker {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Sends how long job `id` has run every 100 ms, until it ends or is no longer wanted.
fn spawn_ticker(
    tx: Sender<Input>,
    id: u64,
    started: Instant,
    shared: Arc<(Mutex<WorkerState>, Condvar)>,
) -> Ticker {
    let ended = Arc::new(AtomicBool::new(false));
    let done = Arc::clone(&ended);
    // Without it (no thread to be had) a job shows no time.
    let _ = start(move || {
        loop {
            thread::sleep(Duration::from_millis(100));
            let wanted = shared.0.lock().is_ok_and(|s| s.wanted == id);
            if done.load(Ordering::Relaxed) || !wanted {
                return;
            }
            if tx.send(Input::Computing(id, started.elapsed())).is_err() {
                return;
            }
        }
    });
    Ticker(ended)
}

impl Runner for Worker {
    fn start(&mut self, job: Job) -> Option<Done> {
        self.with_state(|s| {
            s.wanted = job.id;
            s.next = Some(job);
        });
        None
    }

    fn stop(&mut self) {
        self.with_state(|s| {
            s.wanted = 0;
            s.next = None;
        });
    }

    fn free(&mut self, garbage: Garbage) {
        // Dropped on this thread when none can be started.
        let _ = start(move || drop(garbage));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;
    use std::sync::mpsc;

    use super::*;
    use crate::app::{Action, ToolAction, update};
    use crate::input::{LoadOptions, load_reader};
    use crate::view::color::ColorMode;

    /// The job of a change of the view of a small app.
    fn job(app: &mut App, change: ToolAction) -> Job {
        update(app, Action::Tool(change));
        app.jobs.take_orders().start.unwrap()
    }

    fn app() -> App {
        let text = "main;parse;lex 30\nmain;eval 60\n";
        let p = load_reader(Cursor::new(text), "t.folded", &LoadOptions::default()).unwrap();
        let mut app = App::new(p.main().clone(), ColorMode::Mono);
        app.jobs.background_from = 0;
        app
    }

    /// The next result sent, skipping progress; none if the channel is quiet that long.
    fn next_done(rx: &mpsc::Receiver<Input>, quiet: Duration) -> Option<Done> {
        loop {
            match rx.recv_timeout(quiet) {
                Ok(Input::Computed(done)) => return Some(*done),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    #[test]
    fn the_newest_job_supersedes_and_a_stopped_one_sends_nothing() {
        let (tx, rx) = mpsc::channel();
        // Each job waits 300 ms first: the first is still waiting when the second comes.
        let mut worker = Worker::spawn(tx, Duration::from_millis(300)).unwrap();
        let mut a = app();
        let first = job(&mut a, ToolAction::Invert);
        let second = job(&mut a, ToolAction::Order);
        let id = second.id;
        assert!(worker.start(first).is_none());
        assert!(worker.start(second).is_none());
        assert_eq!(
            next_done(&rx, Duration::from_secs(20)).map(|d| d.id),
            Some(id)
        );
        assert!(
            worker
                .start(job(&mut a, ToolAction::CollapseRecursion))
                .is_none()
        );
        worker.stop();
        // Nothing comes (progress at most) before the channel is quiet for a second.
        assert!(next_done(&rx, Duration::from_secs(1)).is_none());
    }
}
