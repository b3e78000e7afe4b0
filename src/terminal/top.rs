//! The shell of `flametui top`: perf's pipe output read on a thread that cuts it into one
//! profile per refresh ([`input::Snapshots::intervals`]), each sent with what the shell
//! measured (its length, flametui's own CPU use over it), a clock for the badge, and the
//! event loop over `app::top`'s state.

use std::io::{self, Read};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::Input;
use super::events::{spawn_events, spawn_signals};
use super::run_with;
use super::setup::{init, restore};
use super::worker::Worker;
use crate::app::App;
use crate::app::top::{Facts, TopState};
use crate::input::{self, LoadOptions, Loaded};
use crate::profile::Profile;
use crate::profile::threads::start;
use crate::view::color::ColorMode;
use crate::view::names::NameStyle;

/// What a profile goes through before the ring (a filter of tasks).
pub type Prepare = Box<dyn Fn(Profile) -> Profile + Send + Sync>;

/// perf's output for `top`, and how to cut it.
pub struct TopSource {
    /// perf.data in pipe format.
    pub reader: Box<dyn Read + Send>,
    /// The refresh interval.
    pub every: Duration,
    /// The ring and mode to start with.
    pub state: TopState,
    /// Applied to each refresh before it goes into the ring.
    pub prepare: Prepare,
}

/// CPU time this process has used (all its threads), if it can be read.
fn cpu_time() -> Option<Duration> {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    let d = |t: nix::sys::time::TimeVal| {
        Duration::new(
            u64::try_from(t.tv_sec()).unwrap_or(0),
            u32::try_from(t.tv_usec()).unwrap_or(0) * 1000,
        )
    };
    Some(d(u.user_time()) + d(u.system_time()))
}

/// Runs `top` full-screen until the user quits; the final app says why it failed, if it
/// did.
///
/// # Errors
/// The terminal cannot be set up or drawn to.
pub fn explore_top(source: TopSource, (colors, names): (ColorMode, NameStyle)) -> io::Result<App> {
    let TopSource {
        reader,
        every,
        state,
        prepare,
    } = source;
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    spawn_reader(reader, every, prepare, started, tx.clone())?;
    spawn_clock(started, tx.clone());
    let mut terminal = init()?;
    spawn_signals(tx.clone());
    let mut app = App::loading("perf top", colors);
    app.names = names;
    app.top = Some(state);
    let started = spawn_events(tx.clone()).and_then(|()| Worker::spawn(tx, Duration::ZERO));
    let result = started.and_then(|mut w| run_with(&mut terminal, rx, &mut app, &mut w));
    restore();
    result.map(|()| app)
}

/// Reads perf's output, sending a profile per refresh; at the end, the rest as one more,
/// or why reading failed.
fn spawn_reader(
    reader: Box<dyn Read + Send>,
    every: Duration,
    prepare: Prepare,
    started: Instant,
    tx: Sender<Input>,
) -> io::Result<()> {
    start(move || {
        let prepare = Arc::new(prepare);
        let last = Arc::new(Mutex::new((Instant::now(), cpu_time())));
        let send = {
            let (tx, prepare, last) = (
                Mutex::new(tx.clone()),
                Arc::clone(&prepare),
                Arc::clone(&last),
            );
            move |p: Profile| {
                let now = Instant::now();
                let cpu = cpu_time();
                let facts = match last.lock() {
                    Ok(mut l) => {
                        let wall = now.duration_since(l.0);
                        let used = cpu.zip(l.1).map(|(c, p)| c.saturating_sub(p));
                        *l = (now, cpu);
                        Facts {
                            wall,
                            at: now.duration_since(started),
                            cpu: used
                                .filter(|_| !wall.is_zero())
                                .map(|u| u.as_secs_f64() / wall.as_secs_f64()),
                        }
                    }
                    Err(_) => Facts::default(),
                };
                if let Ok(tx) = tx.lock() {
                    let _ = tx.send(Input::TopInterval(Box::new((prepare(p), facts))));
                }
            }
        };
        let send = Arc::new(send);
        let mut opts = LoadOptions::default();
        let sink = Arc::clone(&send);
        opts.snapshots = Some(input::Snapshots {
            every,
            intervals: true,
            sink: Arc::new(move |p| sink(p)),
        });
        match input::load_reader(reader, "perf top", &opts) {
            Ok(Loaded::Single(p)) => send(p),
            Ok(Loaded::Diff { after, .. }) => send(after),
            Err(e) => {
                let _ = tx.send(Input::Loaded(Err(e.to_string())));
            }
        }
    })
    .map(drop)
}

/// The clock of the badge ("updated N s ago"), four times a second.
fn spawn_clock(started: Instant, tx: Sender<Input>) {
    // Without it (no thread to be had) the badge's clock stands still.
    let _ = start(move || {
        while tx.send(Input::TopTick(started.elapsed())).is_ok() {
            thread::sleep(Duration::from_millis(250));
        }
    });
}
