//! The shell around the pure core: terminal set-up and restore (also on panic, SIGTERM and
//! SIGHUP), the threads that feed inputs (keys and mouse from the tty — `/dev/tty` when stdin
//! is a pipe —, loading progress, signals), and [`run`], the loop shared by the binary and
//! the tests:
//!
//! ```text
//! Input ─▶ Action (keymap, mouse) ─▶ app::update ─▶ ui::draw ─▶ Terminal<B: Backend>
//! ```

use std::io::{self, Read, Stdout};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

use crossterm::cursor::{Hide, Show};
use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, MouseButton, MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};

use crate::app::{Action, App, Progress, keymap, update};
use crate::input::{self, LoadOptions, Loaded};
use crate::profile::Profile;
use crate::profile::transform::Transform;
use crate::ui;
use crate::view::color::ColorMode;

/// What the event loop reacts to.
#[derive(Debug)]
pub enum Input {
    /// A terminal event: key, mouse, resize.
    Event(Event),
    /// More input was read.
    Progress(Progress),
    /// Loading finished (or failed, with the message).
    Loaded(Result<Box<Profile>, String>),
    /// A signal asked the program to end.
    Stop,
}

/// Two clicks at one spot within this time zoom.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// Rows per wheel step.
const WHEEL_ROWS: i32 = 3;

/// Runs the event loop until the app quits or the inputs end: draws, then for each input
/// updates the app and draws again.
///
/// # Errors
/// Drawing failed.
pub fn run<B, I>(terminal: &mut Terminal<B>, inputs: I, app: &mut App) -> Result<(), B::Error>
where
    B: Backend,
    I: IntoIterator<Item = Input>,
{
    let size = terminal.size()?;
    update(app, Action::Resize(size.width, size.height));
    terminal.draw(|f| ui::draw(f, app))?;
    let mut clicks = Clicks::default();
    for input in inputs {
        if let Some(action) = translate(input, app, &mut clicks) {
            update(app, action);
        }
        if app.quit {
            break;
        }
        terminal.draw(|f| ui::draw(f, app))?;
    }
    Ok(())
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
        Input::Event(Event::Key(key)) => keymap::action_for(app.mode, &key),
        Input::Event(Event::Mouse(m)) => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => Some(clicks.click(m.column, m.row)),
            MouseEventKind::Moved => Some(Action::Hover(m.column, m.row)),
            MouseEventKind::ScrollUp => Some(Action::Scroll(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => Some(Action::Scroll(WHEEL_ROWS)),
            _ => None,
        },
        Input::Event(Event::Resize(w, h)) => Some(Action::Resize(w, h)),
        Input::Event(_) => None,
        Input::Progress(p) => Some(Action::Progress(p)),
        Input::Loaded(Ok(p)) => Some(Action::Loaded(p)),
        Input::Loaded(Err(e)) => Some(Action::Failed(e)),
        Input::Stop => Some(Action::Quit),
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
    transforms: Vec<Transform>,
    colors: ColorMode,
) -> io::Result<App> {
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
    let (tx, rx) = mpsc::channel();
    let job = LoadJob {
        reader,
        total,
        name: source.clone(),
        opts: opts.clone(),
        transforms,
    };
    spawn_loader(job, tx.clone());
    let mut terminal = init()?;
    spawn_events(tx.clone());
    spawn_signals(tx);
    let mut app = App::loading(&source, colors);
    let result = run(&mut terminal, rx, &mut app);
    restore();
    result.map(|()| app)
}

/// Enters raw mode and the alternate screen with mouse capture; installs the panic hook.
///
/// # Errors
/// The terminal refused (the terminal is restored before returning).
pub fn init() -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
    install_panic_hook();
    enable_raw_mode()?;
    let set_up = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture, Hide)
        .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
    if set_up.is_err() {
        restore();
    }
    set_up
}

/// Leaves the alternate screen and raw mode; safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        Show
    );
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

/// SIGTERM, SIGHUP (SSH drop), SIGINT and SIGQUIT end the loop, which restores the terminal;
/// a second signal restores and exits at once, in case the loop is busy.
fn spawn_signals(tx: Sender<Input>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])
    else {
        return;
    };
    thread::spawn(move || {
        let mut seen = false;
        for signal in signals.forever() {
            if seen {
                restore();
                std::process::exit(128 + signal);
            }
            seen = true;
            let _ = tx.send(Input::Stop);
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
}

/// Loads on a thread; another reports progress ten times a second until it is done.
fn spawn_loader(job: LoadJob, tx: Sender<Input>) {
    let LoadJob {
        reader,
        total,
        name,
        opts,
        transforms,
    } = job;
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
    thread::spawn(move || {
        let counting = Counting {
            inner: reader,
            bytes,
        };
        let loaded = std::panic::catch_unwind(AssertUnwindSafe(|| {
            input::load_reader(counting, &name, &opts).map(|l| l.transformed(&transforms))
        }));
        done.store(true, Ordering::Relaxed);
        let result = match loaded {
            Ok(Ok(Loaded::Single(p) | Loaded::Diff { after: p, .. })) => Ok(Box::new(p)),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("{name}: internal error while reading")),
        };
        let _ = tx.send(Input::Loaded(result));
    });
}
