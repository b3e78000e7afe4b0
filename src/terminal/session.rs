//! The viewer's sessions: one profile explored, or two compared, full-screen, while they
//! load in the background.

use crate::source_files::SourceSearch;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::Backend;

use super::events::{spawn_events, spawn_signals};
use super::loader::{LoadJob, open_job, spawn_loader};
use super::run_with;
use super::setup::{init, restore};
use super::worker::Worker;
use crate::app::{App, TransformStack};
use crate::input::LoadOptions;
use crate::profile::transform::Transform;
use crate::timeline::SliceArgs;
use crate::ui;
use crate::view::color::ColorMode;
use crate::view::names::NameStyle;

/// Reads `path` (`-` is stdin) in the background and explores it full-screen until the
/// user quits. Returns the final app: its profile, or why loading failed.
///
/// # Errors
/// The file cannot be opened, or the terminal cannot be set up or drawn to.
pub fn explore(
    path: &str,
    opts: &LoadOptions,
    transforms: &[Transform],
    colors: ColorMode,
) -> io::Result<App> {
    let view = TransformStack::default();
    explore_paths(
        &[path],
        opts,
        transforms,
        view,
        (colors, NameStyle::default()),
    )
}

/// As [`explore`], with the command line's transforms and order applied by the viewer
/// (shown as breadcrumbs, undoable) instead of while reading.
///
/// # Errors
/// The file cannot be opened, or the terminal cannot be set up or drawn to.
pub fn explore_view(
    path: &str,
    opts: &LoadOptions,
    view: TransformStack,
    colors: ColorMode,
) -> io::Result<App> {
    let slicing = SliceArgs::default();
    let look = (colors, NameStyle::default());
    explore_sliced(path, opts, view, &slicing, look, SourceSearch::default())
}

/// As [`explore_view`], starting on the slice of the time and task flags (`--time` and
/// the task lists as the view's first change, `--compare-time` as a comparison), with
/// names shown in the style given (`--no-demangle`, `--short-names`) and source files
/// looked for as `sources` says (`--source-path`, `--source-prefix`).
///
/// # Errors
/// As [`explore_view`].
pub fn explore_sliced(
    path: &str,
    opts: &LoadOptions,
    view: TransformStack,
    slicing: &SliceArgs,
    look: (ColorMode, NameStyle),
    sources: SourceSearch,
) -> io::Result<App> {
    let mut job = open_job(path, opts, &[])?;
    job.slicing = slicing.clone();
    explore_jobs(vec![job], &[path], (view, sources), look)
}

/// Reads BEFORE and AFTER in the background (one progress for both) and compares them
/// full-screen until the user quits.
///
/// # Errors
/// A file cannot be opened, or the terminal cannot be set up or drawn to.
pub fn compare(
    before: &str,
    after: &str,
    opts: &LoadOptions,
    transforms: &[Transform],
    look: (ColorMode, NameStyle),
) -> io::Result<App> {
    explore_paths(
        &[before, after],
        opts,
        transforms,
        TransformStack::default(),
        look,
    )
}

/// A profile another program writes while the viewer runs (`flametui record`: perf's pipe
/// output), with what stops that program.
pub struct LiveSource {
    /// The stream (perf.data pipe format, or any format flametui reads).
    pub reader: Box<dyn std::io::Read + Send>,
    /// Its display name.
    pub name: String,
    /// What is recorded, for the badge.
    pub what: String,
    /// Said on the status line once the profile shows.
    pub note: String,
    /// Stops the program on Ctrl-C; returns the status line.
    pub stop: Box<dyn FnMut() -> String + Send>,
}

/// Explores `source` as it streams in, as `perf record -o - | flametui -` would, with
/// Ctrl-C stopping the recording (the view stays) and q quitting.
///
/// # Errors
/// The terminal cannot be set up or drawn to.
pub fn explore_live(
    source: LiveSource,
    opts: &LoadOptions,
    look: (ColorMode, NameStyle),
) -> io::Result<App> {
    let LiveSource {
        reader,
        name,
        what,
        note,
        stop,
    } = source;
    let job = super::loader::reader_job(reader, name, opts);
    super::effects::set_stop_hook(Some(stop));
    let recording = crate::app::recording::Recording::new(what, note);
    let app = explore_jobs_with(
        vec![job],
        &[],
        (TransformStack::default(), SourceSearch::default()),
        look,
        Some(recording),
    );
    super::effects::set_stop_hook(None);
    app
}

/// One profile is explored; two (or a differential file) are compared.
fn explore_paths(
    paths: &[&str],
    opts: &LoadOptions,
    transforms: &[Transform],
    view: TransformStack,
    look: (ColorMode, NameStyle),
) -> io::Result<App> {
    let jobs = paths
        .iter()
        .map(|p| open_job(p, opts, transforms))
        .collect::<io::Result<Vec<_>>>()?;
    explore_jobs(jobs, paths, (view, SourceSearch::default()), look)
}

/// Loads the jobs (read from `paths`) in the background and explores (or compares) them
/// full-screen.
fn explore_jobs(
    jobs: Vec<LoadJob>,
    paths: &[&str],
    view: (TransformStack, SourceSearch),
    look: (ColorMode, NameStyle),
) -> io::Result<App> {
    explore_jobs_with(jobs, paths, view, look, None)
}

/// As [`explore_jobs`], the profile made by `recording` when there is one.
fn explore_jobs_with(
    jobs: Vec<LoadJob>,
    paths: &[&str],
    (view, sources): (TransformStack, SourceSearch),
    (colors, names): (ColorMode, NameStyle),
    recording: Option<crate::app::recording::Recording>,
) -> io::Result<App> {
    let source = jobs
        .iter()
        .map(|j| j.name.as_str())
        .collect::<Vec<_>>()
        .join(" and ");
    let (tx, rx) = mpsc::channel();
    spawn_loader(jobs, tx.clone())?;
    let mut terminal = init()?;
    debug_panic_for_tests(&mut terminal, &App::loading(&source, colors))?;
    spawn_signals(tx.clone());
    let mut app = App::loading(&source, colors);
    app.view = view;
    app.names = names;
    app.recording = recording;
    app.sources = crate::source_files::SourceCache::new(sources);
    app.inputs = paths
        .iter()
        .filter(|p| **p != "-")
        .map(PathBuf::from)
        .collect();
    let delay = slow_jobs_for_tests(&mut app);
    let started = spawn_events(tx.clone()).and_then(|()| Worker::spawn(tx, delay));
    let result = started.and_then(|mut w| run_with(&mut terminal, rx, &mut app, &mut w));
    restore();
    result.map(|()| app)
}

/// Debug builds only: with `FLAMETUI_DEBUG_PANIC` set, panic right after the first frame,
/// so the end-to-end tests can check that a panic restores the terminal and is readable.
#[allow(clippy::panic)] // the whole point
fn debug_panic_for_tests<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &App,
) -> Result<(), B::Error> {
    if cfg!(debug_assertions) && std::env::var_os("FLAMETUI_DEBUG_PANIC").is_some() {
        terminal.draw(|f| ui::draw(f, app))?;
        panic!("FLAMETUI_DEBUG_PANIC is set: panicking on purpose");
    }
    Ok(())
}

/// Debug builds only: with `FLAMETUI_DEBUG_SLOW_JOBS=MS` set, every recomputation of the
/// view goes to the background and takes at least MS milliseconds, so the end-to-end tests
/// can watch keys work meanwhile, cancel, and quit. Returns the delay.
fn slow_jobs_for_tests(app: &mut App) -> Duration {
    let ms = std::env::var("FLAMETUI_DEBUG_SLOW_JOBS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|_| cfg!(debug_assertions));
    match ms {
        Some(ms) => {
            app.jobs.background_from = 0;
            Duration::from_millis(ms)
        }
        None => Duration::ZERO,
    }
}
