//! The shell around the pure core: terminal set-up and restore (also on panic and on every
//! signal whose default would end or stop the program: SIGTERM, SIGHUP, SIGUSR1, SIGALRM…;
//! Ctrl-Z / SIGTSTP suspends with the terminal given back and redraws after `fg`), the threads that feed inputs (keys and mouse from the tty — `/dev/tty` when stdin
//! is a pipe —, a bracketed paste as one event, loading progress, signals, the app's
//! background jobs: `worker`), and
//! [`run`], the loop shared by the binary and the tests:
//!
//! ```text
//! Input ─▶ Action (keymap, mouse) ─▶ app::update ─▶ ui::draw ─▶ Terminal<B: Backend>
//!                     job results ─▶ app::finish ─┘
//! ```

use std::io::{self, Read, Stdout, Write};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

use crossterm::cursor::{Hide, Show};
use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event, MouseButton, MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};

use crate::app::effects::{copied_message, exists_message, osc52, wrote_message};
use crate::app::jobs::Done;
use crate::app::{
    Action, App, Effect, Progress, ToolAction, TransformStack, finish, keymap, update,
};
use crate::input::{self, LoadOptions, Loaded};
use crate::output;
use crate::profile::Profile;
use crate::profile::transform::Transform;
use crate::text::sanitize;
use crate::timeline::SliceArgs;
use crate::ui;
use crate::view::color::ColorMode;
use crate::view::names::NameStyle;

mod worker;

pub use worker::{Inline, Runner};
use worker::{Worker, perform_jobs};

/// What the event loop reacts to.
#[derive(Debug)]
pub enum Input {
    /// A terminal event: key, mouse, resize.
    Event(Event),
    /// More input was read.
    Progress(Progress),
    /// A snapshot of a profile still streaming in.
    Snapshot(Box<Profile>),
    /// The slice the view starts with (`--time`, task lists), sent before `Loaded`.
    Slice(crate::profile::slice::Slice),
    /// Loading finished (or failed, with the message).
    Loaded(Result<Box<Profile>, String>),
    /// Loading two profiles to compare (BEFORE, AFTER) finished, or failed.
    LoadedPair(Result<Box<(Profile, Profile)>, String>),
    /// A signal asked the program to end.
    Stop,
    /// Ctrl-Z or SIGTSTP: give the terminal back and stop until continued.
    Suspend,
    /// SIGCONT: the program was continued (by `fg`, or after someone else stopped it).
    Resume,
    /// A background job of the app has been running this long.
    Computing(u64, Duration),
    /// A background job of the app is done.
    Computed(Box<Done>),
}

/// Two clicks at one spot within this time zoom.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// Rows per wheel step.
const WHEEL_ROWS: i32 = 3;

/// Runs the event loop until the app quits or the inputs end: draws, then for each input
/// updates the app and draws again. The app's background jobs run at once, in the loop
/// ([`Inline`]): what the tests use, deterministic.
///
/// # Errors
/// Drawing failed.
pub fn run<B, I>(terminal: &mut Terminal<B>, inputs: I, app: &mut App) -> Result<(), B::Error>
where
    B: Backend + RawOutput,
    I: IntoIterator<Item = Input>,
{
    run_with(terminal, inputs, app, &mut Inline)
}

/// As [`run`], with the app's background jobs given to `runner`.
///
/// # Errors
/// Drawing failed.
pub fn run_with<B, I, R>(
    terminal: &mut Terminal<B>,
    inputs: I,
    app: &mut App,
    runner: &mut R,
) -> Result<(), B::Error>
where
    B: Backend + RawOutput,
    I: IntoIterator<Item = Input>,
    R: Runner,
{
    let size = terminal.size()?;
    update(app, Action::Resize(size.width, size.height));
    perform_jobs(runner, app);
    terminal.draw(|f| ui::draw(f, app))?;
    let mut clicks = Clicks::default();
    for input in inputs {
        let input = match input {
            Input::Event(Event::Key(k)) if is_suspend_key(&k) => Input::Suspend,
            other => other,
        };
        if let Input::Suspend | Input::Resume = input {
            // A stop hands the terminal back; on return it is set up again and everything
            // redrawn (the shell drew over it meanwhile).
            let backend = terminal.backend_mut();
            let _ = if matches!(input, Input::Suspend) {
                backend.suspend()
            } else {
                backend.resume()
            };
            // `resize` clears and resets the back buffer without asking the terminal for
            // the cursor position (`clear` does, and the key thread holds the reader).
            let size = terminal.size()?;
            terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            update(app, Action::Resize(size.width, size.height));
            terminal.draw(|f| ui::draw(f, app))?;
            continue;
        }
        if let Input::Computed(done) = input {
            finish(app, *done);
        } else if let Some(action) = translate(input, app, &mut clicks) {
            update(app, action);
        }
        perform_effects(terminal.backend_mut(), app);
        perform_jobs(runner, app);
        if app.quit {
            break;
        }
        terminal.draw(|f| ui::draw(f, app))?;
    }
    Ok(())
}

/// Ctrl-Z, as raw mode delivers it (as a key, not as SIGTSTP).
fn is_suspend_key(key: &event::KeyEvent) -> bool {
    key.kind == event::KeyEventKind::Press
        && key.modifiers.contains(event::KeyModifiers::CONTROL)
        && matches!(key.code, event::KeyCode::Char('z' | 'Z'))
}

/// A backend that can pass a control sequence to the terminal as it is (OSC 52), and give
/// the terminal back while the program is stopped.
pub trait RawOutput {
    /// Writes `bytes` to the terminal unchanged.
    ///
    /// # Errors
    /// The terminal cannot be written to.
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Restores the terminal, stops the process (as SIGTSTP's default would) and sets the
    /// terminal up again once continued.
    ///
    /// # Errors
    /// The terminal could not be set up again.
    fn suspend(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Sets the terminal up again after the process was continued.
    ///
    /// # Errors
    /// The terminal refused.
    fn resume(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> RawOutput for CrosstermBackend<W> {
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_all(bytes)?;
        Write::flush(self)
    }

    fn suspend(&mut self) -> io::Result<()> {
        restore();
        // Our SIGTSTP handler replaced the default; this is the default: stop here.
        signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGTSTP)?;
        self.resume()
    }

    fn resume(&mut self) -> io::Result<()> {
        enter()
    }
}

/// Tests have no terminal: nothing to pass through.
impl RawOutput for TestBackend {
    fn write_raw(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// Performs what `update` asked for and tells the app how it went.
fn perform_effects<B: RawOutput>(backend: &mut B, app: &mut App) {
    let tmux = std::env::var_os("TMUX").is_some();
    for effect in std::mem::take(&mut app.effects) {
        let report = report(backend, effect, tmux, &app.inputs);
        update(app, Action::Tool(report));
    }
}

/// Performs one effect; returns the status line about it (see `report`). A file is
/// never written over one of `inputs`.
pub fn perform<B: RawOutput>(
    backend: &mut B,
    effect: Effect,
    tmux: bool,
    inputs: &[PathBuf],
) -> String {
    match report(backend, effect, tmux, inputs) {
        ToolAction::Exists(path) => exists_message(&path, 80),
        ToolAction::Notify(message) => message,
        other => format!("{other:?}"),
    }
}

/// Performs one effect and says how it went: a message, or that the file to write is
/// already there (kept: the app asks first). Inside tmux the OSC 52 sequence is sent both
/// as is (tmux's `set-clipboard on`) and wrapped in tmux's passthrough
/// (`allow-passthrough on`); whether it reaches the clipboard is up to them, and the
/// message claims no more than that it was sent. A file is written whole or not at all
/// ([`output::write_file`]), and never over one of `inputs`.
fn report<B: RawOutput>(
    backend: &mut B,
    effect: Effect,
    tmux: bool,
    inputs: &[PathBuf],
) -> ToolAction {
    ToolAction::Notify(match effect {
        Effect::Copy { text, what } => {
            let mut seq = osc52(&text, false);
            if tmux {
                seq.push_str(&osc52(&text, true));
            }
            match backend.write_raw(seq.as_bytes()) {
                Ok(()) => copied_message(&what),
                Err(e) => format!("Could not send the copy to the terminal: {e}"),
            }
        }
        Effect::Write {
            path,
            bytes,
            what,
            replace,
        } => {
            let shown = path.display().to_string();
            let path = home(path);
            if let Some(input) = inputs.iter().find(|i| output::same_file(i, &path)) {
                return ToolAction::Notify(format!(
                    "Not written: {} is the input {} (the same file); choose another name",
                    sanitize(&path.display().to_string()),
                    sanitize(&input.display().to_string())
                ));
            }
            match output::write_file(&path, &bytes, replace) {
                Ok(()) => wrote_message(&path.display().to_string(), &what, bytes.len(), 80),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return ToolAction::Exists(shown);
                }
                Err(e) => format!("Could not write {}: {e}", path.display()),
            }
        }
    })
}

/// `~/x` is `$HOME/x`.
fn home(path: PathBuf) -> PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(h)) => PathBuf::from(h).join(rest),
        _ => path,
    }
}

/// Remembers the last click, to tell double clicks.
#[derive(Debug, Default)]
struct Clicks {
    last: Option<(u16, u16, Instant)>,
}

impl Clicks {
    fn click(&mut self, x: u16, y: u16) -> Action {
        let now = Instant::now();
        let double = self
            .last
            .is_some_and(|(lx, ly, t)| (lx, ly) == (x, y) && now.duration_since(t) < DOUBLE_CLICK);
        if double {
            self.last = None;
            Action::DoubleClick(x, y)
        } else {
            self.last = Some((x, y, now));
            Action::Click(x, y)
        }
    }
}

fn translate(input: Input, app: &App, clicks: &mut Clicks) -> Option<Action> {
    match input {
        Input::Event(Event::Key(key)) => keymap::action_in(app.mode, app.comparing(), &key),
        Input::Event(Event::Mouse(m)) => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => Some(clicks.click(m.column, m.row)),
            MouseEventKind::Moved => Some(Action::Hover(m.column, m.row)),
            MouseEventKind::Drag(MouseButton::Left) => Some(Action::Drag(m.column, m.row)),
            MouseEventKind::Up(MouseButton::Left) => Some(Action::Release(m.column, m.row)),
            MouseEventKind::ScrollUp => Some(Action::Scroll(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => Some(Action::Scroll(WHEEL_ROWS)),
            _ => None,
        },
        Input::Event(Event::Resize(w, h)) => Some(Action::Resize(w, h)),
        // A bracketed paste is one edit of the prompt open, never keys.
        Input::Event(Event::Paste(text)) => Some(Action::Paste(text)),
        // Suspend and resume are the loop's own (they need the terminal), and it hands
        // results to `app::finish` itself.
        Input::Event(_) | Input::Suspend | Input::Resume | Input::Computed(_) => None,
        Input::Progress(p) => Some(Action::Progress(p)),
        Input::Snapshot(p) => Some(Action::Snapshot(p)),
        Input::Slice(s) => Some(Action::StartSlice(s)),
        Input::Loaded(Ok(p)) => Some(Action::Loaded(p)),
        Input::LoadedPair(Ok(pair)) => Some(Action::LoadedPair(pair)),
        Input::Loaded(Err(e)) | Input::LoadedPair(Err(e)) => Some(Action::Failed(e)),
        Input::Stop => Some(Action::Quit),
        Input::Computing(id, elapsed) => Some(Action::Computing(id, elapsed)),
    }
}

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
    explore_sliced(path, opts, view, &slicing, (colors, NameStyle::default()))
}

/// As [`explore_view`], starting on the slice of the time and task flags (`--time` and
/// the task lists as the view's first change, `--compare-time` as a comparison), with
/// names shown in the style given (`--no-demangle`, `--short-names`).
///
/// # Errors
/// As [`explore_view`].
pub fn explore_sliced(
    path: &str,
    opts: &LoadOptions,
    view: TransformStack,
    slicing: &SliceArgs,
    look: (ColorMode, NameStyle),
) -> io::Result<App> {
    let mut job = open_job(path, opts, &[])?;
    job.slicing = slicing.clone();
    explore_jobs(vec![job], &[path], view, look)
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

/// Opens an input for a loading job.
fn open_job(path: &str, opts: &LoadOptions, transforms: &[Transform]) -> io::Result<LoadJob> {
    let source = input::source_name(path);
    let (reader, total): (Box<dyn Read + Send>, Option<u64>) = if path == "-" {
        (Box::new(io::stdin()), None)
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{source}: {e}")))?;
        let size = file
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len());
        (Box::new(file), size)
    };
    Ok(LoadJob {
        reader,
        total,
        name: source,
        opts: opts.clone(),
        transforms: transforms.to_vec(),
        slicing: SliceArgs::default(),
    })
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
    explore_jobs(jobs, paths, view, look)
}

/// Loads the jobs (read from `paths`) in the background and explores (or compares) them
/// full-screen.
fn explore_jobs(
    jobs: Vec<LoadJob>,
    paths: &[&str],
    view: TransformStack,
    (colors, names): (ColorMode, NameStyle),
) -> io::Result<App> {
    let source = jobs
        .iter()
        .map(|j| j.name.as_str())
        .collect::<Vec<_>>()
        .join(" and ");
    let (tx, rx) = mpsc::channel();
    spawn_loader(jobs, tx.clone());
    let mut terminal = init()?;
    debug_panic_for_tests(&mut terminal, &App::loading(&source, colors))?;
    spawn_events(tx.clone());
    spawn_signals(tx.clone());
    let mut app = App::loading(&source, colors);
    app.view = view;
    app.names = names;
    app.inputs = paths
        .iter()
        .filter(|p| **p != "-")
        .map(PathBuf::from)
        .collect();
    let delay = slow_jobs_for_tests(&mut app);
    let mut worker = Worker::spawn(tx, delay);
    let result = run_with(&mut terminal, rx, &mut app, &mut worker);
    restore();
    result.map(|()| app)
}

/// Why the viewer cannot run on this terminal, if it cannot: `TERM=dumb` (no cursor
/// addressing, no alternate screen), or no controlling terminal to read keys from (`setsid`,
/// cron, some CI runners: opening `/dev/tty` fails).
pub fn unusable_reason(term: Option<&std::ffi::OsStr>) -> Option<&'static str> {
    if term.is_some_and(|t| t == "dumb") {
        return Some("TERM is dumb");
    }
    if std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_err()
    {
        return Some("no controlling terminal to read keys from");
    }
    None
}

/// Enters raw mode and the alternate screen with mouse capture; installs the panic hook.
///
/// # Errors
/// The terminal refused (the terminal is restored before returning).
pub fn init() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    install_panic_hook();
    let set_up = enter().and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
    if set_up.is_err() {
        restore();
    }
    set_up
}

/// Raw mode, the alternate screen, mouse capture, bracketed paste (a paste arrives as one
/// event, not as keys), no cursor: what [`restore`] undoes.
fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        Hide
    )
}

/// Leaves the alternate screen and raw mode; safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        Show
    );
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

/// On panic: restore the terminal first, then print the panic as usual.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Keys, mouse and resizes from the terminal.
fn spawn_events(tx: Sender<Input>) {
    thread::spawn(move || {
        loop {
            let input = event::read().map_or(Input::Stop, Input::Event);
            let stop = matches!(input, Input::Stop);
            if tx.send(input).is_err() || stop {
                break;
            }
        }
    });
}

/// The signal that ended the viewer (0: none); `main` exits with 128 + it, as shells expect.
static ENDED_BY: AtomicI32 = AtomicI32::new(0);

/// The signal that ended the last viewer session, if one did.
pub fn ended_by_signal() -> Option<i32> {
    match ENDED_BY.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// Signals whose default action ends the program (those a handler may catch; SIGPIPE is
/// ignored by Rust programs, and core-dumping faults are left to the panic machinery).
fn ending_signals() -> Vec<i32> {
    use signal_hook::consts::signal::{
        SIGALRM, SIGHUP, SIGINT, SIGIO, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM,
        SIGXCPU, SIGXFSZ,
    };
    #[allow(unused_mut)]
    let mut v = vec![
        SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
        SIGXCPU, SIGXFSZ,
    ];
    #[cfg(target_os = "linux")]
    v.extend([16, 30]); // SIGSTKFLT and SIGPWR, not named by signal-hook
    v
}

/// Every signal that would end the program (SIGTERM, SIGHUP when SSH drops, SIGINT,
/// SIGQUIT, SIGUSR1, SIGALRM, …) ends the loop, which restores the terminal; a second one
/// restores and exits at once, in case the loop is busy. SIGTSTP suspends, SIGCONT redraws.
fn spawn_signals(tx: Sender<Input>) {
    use signal_hook::consts::signal::{SIGCONT, SIGTSTP};
    let ending = ending_signals();
    let all = ending.iter().copied().chain([SIGTSTP, SIGCONT]);
    let Ok(mut signals) = signal_hook::iterator::Signals::new(all) else {
        return;
    };
    thread::spawn(move || {
        for signal in signals.forever() {
            let input = match signal {
                SIGTSTP => Input::Suspend,
                SIGCONT => Input::Resume,
                _ if ENDED_BY.swap(signal, Ordering::Relaxed) != 0 => {
                    restore();
                    std::process::exit(128 + signal);
                }
                _ => Input::Stop,
            };
            let _ = tx.send(input);
        }
    });
}

/// Counts bytes as they are read.
struct Counting<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What the loading thread reads, and how.
struct LoadJob {
    reader: Box<dyn Read + Send>,
    total: Option<u64>,
    name: String,
    opts: LoadOptions,
    transforms: Vec<Transform>,
    /// Time and task flags, resolved once the input is read.
    slicing: SliceArgs,
}

/// How often a streaming input refreshes the graph.
const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

/// Loads on a thread, one input after the other; another reports progress (over all the
/// inputs) ten times a second until it is done. One profile is sent as loaded, two (or the
/// two sides of a differential file) as a pair.
fn spawn_loader(jobs: Vec<LoadJob>, tx: Sender<Input>) {
    let total = jobs.iter().map(|j| j.total).sum::<Option<u64>>();
    let bytes = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    {
        let (bytes, done, tx) = (Arc::clone(&bytes), Arc::clone(&done), tx.clone());
        thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let progress = Progress {
                    bytes: bytes.load(Ordering::Relaxed),
                    total,
                    elapsed: started.elapsed(),
                };
                if tx.send(Input::Progress(progress)).is_err() {
                    break;
                }
                thread::sleep(Duration::from_millis(100));
            }
        });
    }
    // One input of unknown size (a pipe): show the graph while it streams in.
    let live = jobs.len() == 1 && jobs.iter().all(|j| j.total.is_none());
    thread::spawn(move || {
        let mut loaded = Vec::new();
        for mut job in jobs {
            if live {
                let tx = Mutex::new(tx.clone());
                job.opts.snapshots = Some(input::Snapshots {
                    every: SNAPSHOT_EVERY,
                    sink: Arc::new(move |p| {
                        if let Ok(tx) = tx.lock() {
                            let _ = tx.send(Input::Snapshot(Box::new(p)));
                        }
                    }),
                });
            }
            let counting = Counting {
                inner: job.reader,
                bytes: Arc::clone(&bytes),
            };
            let name = job.name;
            let slicing = job.slicing;
            let one = std::panic::catch_unwind(AssertUnwindSafe(|| {
                input::load_reader(counting, &name, &job.opts)
                    .and_then(|l| crate::timeline::for_viewer(l, &slicing))
                    .map(|(l, slice)| (l.transformed(&job.transforms), slice))
            }));
            match one {
                Ok(Ok((l, slice))) => {
                    if let Some(slice) = slice {
                        let _ = tx.send(Input::Slice(slice));
                    }
                    loaded.push(l);
                }
                Ok(Err(e)) => loaded_err(&tx, &done, e.to_string()),
                Err(_) => loaded_err(&tx, &done, format!("{name}: internal error while reading")),
            }
            if done.load(Ordering::Relaxed) {
                return;
            }
        }
        done.store(true, Ordering::Relaxed);
        let input = match <[Loaded; 2]>::try_from(loaded) {
            Ok([a, b]) => Input::LoadedPair(
                a.into_side()
                    .and_then(|a| Ok(Box::new((a, b.into_side()?))))
                    .map_err(|e| e.to_string()),
            ),
            Err(mut one) => match one.pop() {
                Some(Loaded::Diff { before, after }) => {
                    Input::LoadedPair(Ok(Box::new((before, after))))
                }
                Some(Loaded::Single(p)) => Input::Loaded(Ok(Box::new(p))),
                None => Input::Loaded(Err("nothing to read".to_owned())),
            },
        };
        let _ = tx.send(input);
    });
}

/// Ends loading with an error.
fn loaded_err(tx: &Sender<Input>, done: &AtomicBool, message: String) {
    done.store(true, Ordering::Relaxed);
    let _ = tx.send(Input::Loaded(Err(message)));
}
