//! Work on a thread of its own when the system gives one, on the calling thread when it
//! does not.
//!
//! `std::thread::Scope::spawn` panics when a thread cannot be started: under a memory
//! limit (`ulimit -d`, `ulimit -v`, a container's) its stack cannot be mapped. A panic that
//! close to the limit can do worse than end the program: with `RUST_BACKTRACE` set, the
//! panic hook's backtrace allocates, that allocation fails, and the allocation-error hook
//! waits forever on the lock the panic hook holds. So work that can be done in turn is done
//! in turn instead: the result is the same, later.

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{Scope, ScopedJoinHandle};

/// A job of [`spawn_or_run`]: running on a thread of its own, or done already.
#[derive(Debug)]
pub enum Job<'scope, T> {
    /// On its own thread.
    Thread(ScopedJoinHandle<'scope, Option<T>>),
    /// Done on the calling thread, which could not start one.
    Done(T),
}

impl<T> Job<'_, T> {
    /// The job's result. A panic of its thread goes on on this one.
    pub fn join(self) -> T {
        match self {
            Job::Done(t) => t,
            Job::Thread(handle) => match handle.join() {
                Ok(Some(t)) => t,
                // The thread found its work taken: only the calling thread takes it, and
                // only when the thread was not started.
                Ok(None) => std::panic::resume_unwind(Box::new("a job was lost")),
                Err(panic) => std::panic::resume_unwind(panic),
            },
        }
    }
}

/// Runs `f` on a new thread of `scope`, or at once on this thread when none can be started.
pub fn spawn_or_run<'scope, T, F>(scope: &'scope Scope<'scope, '_>, f: F) -> Job<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    spawn_with(scope, f, |f| f()).unwrap_or_else(|f| Job::Done(f()))
}

/// Runs `f(arg)` on a new thread of `scope`; gives `arg` back when no thread can be
/// started, for the caller to do the work another way.
///
/// # Errors
/// `arg`, when no thread could be started.
pub fn spawn_with<'scope, A, T, F>(
    scope: &'scope Scope<'scope, '_>,
    arg: A,
    f: F,
) -> Result<Job<'scope, T>, A>
where
    A: Send + 'scope,
    F: FnOnce(A) -> T + Send + 'scope,
    T: Send + 'scope,
{
    // `spawn_scoped` drops the closure when it fails, so `arg` waits in a cell that the
    // closure only points to.
    let cell = Arc::new(Mutex::new(Some(arg)));
    let theirs = Arc::clone(&cell);
    let started = std::thread::Builder::new().spawn_scoped(scope, move || {
        let arg = theirs.lock().unwrap_or_else(PoisonError::into_inner).take();
        arg.map(f)
    });
    match started {
        Ok(handle) => Ok(Job::Thread(handle)),
        Err(_) => match cell.lock().unwrap_or_else(PoisonError::into_inner).take() {
            Some(arg) => Err(arg),
            None => std::panic::resume_unwind(Box::new("a job was lost")),
        },
    }
}

/// Starts a thread of its own for `f`, or says why none could be started (a memory
/// limit).
///
/// # Errors
/// The thread could not be started (`f` is then dropped, not run).
pub fn start<T, F>(f: F) -> std::io::Result<std::thread::JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new()
        .spawn(f)
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start a thread: {e}")))
}

/// Calls `f` with each of `signals` received, on a thread of its own. The signals are
/// caught from when this returns `Ok`; when no thread can be started (a memory limit) or
/// they cannot be caught, they keep their default actions (caught with nobody to act on
/// them, an ending signal would be ignored).
///
/// # Errors
/// The thread could not be started, or the signals caught.
pub fn watch_signals<F>(signals: Vec<i32>, mut f: F) -> std::io::Result<()>
where
    F: FnMut(i32) + Send + 'static,
{
    let (caught, ready) = std::sync::mpsc::sync_channel(0);
    start(move || {
        let mut signals = match signal_hook::iterator::Signals::new(signals) {
            Ok(s) => {
                let _ = caught.send(Ok(()));
                s
            }
            Err(e) => {
                let _ = caught.send(Err(e));
                return;
            }
        };
        for signal in signals.forever() {
            f(signal);
        }
    })?;
    ready
        .recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the signal thread ended")))
}

/// Starts a worker running `f(item)` on `scope` for each of `items`, as many as the system
/// gives (the first ones); none when it gives none, and the caller then does the work
/// another way.
pub fn spawn_workers<'scope, I, T, F>(
    scope: &'scope Scope<'scope, '_>,
    items: impl IntoIterator<Item = I>,
    f: F,
) -> Vec<ScopedJoinHandle<'scope, T>>
where
    I: Send + 'scope,
    F: Fn(I) -> T + Send + Clone + 'scope,
    T: Send + 'scope,
{
    let mut workers = Vec::new();
    for item in items {
        let f = f.clone();
        match std::thread::Builder::new().spawn_scoped(scope, move || f(item)) {
            Ok(handle) => workers.push(handle),
            Err(_) => break,
        }
    }
    workers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_gives_its_result() {
        let data = [1, 2, 3];
        let sum = std::thread::scope(|s| spawn_or_run(s, || data.iter().sum::<i32>()).join());
        assert_eq!(sum, 6);
    }

    #[test]
    fn a_panic_goes_on_at_join() {
        let caught = std::panic::catch_unwind(|| {
            std::thread::scope(|s| {
                spawn_or_run(s, || -> i32 { std::panic::resume_unwind(Box::new(7)) }).join()
            })
        });
        assert!(caught.is_err());
    }

    #[test]
    fn workers_all_start_when_they_can() {
        let n = std::thread::scope(|s| {
            spawn_workers(s, 0..3, |_| 1)
                .into_iter()
                .map(|h| h.join().unwrap_or(0))
                .sum::<i32>()
        });
        assert_eq!(n, 3);
    }
}
