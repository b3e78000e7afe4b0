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

use std::io::{self, Write};
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, MouseButton, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};

use crate::app::jobs::Done;
use crate::app::{Action, App, Progress, finish, keymap, update};
use crate::profile::Profile;
use crate::ui;

mod effects;
mod events;
mod loader;
mod session;
mod setup;
mod top;
mod worker;

pub use effects::perform;
use effects::perform_effects;
pub use events::ended_by_signal;
pub use session::{LiveSource, compare, explore, explore_live, explore_sliced, explore_view};
use setup::enter;
pub use setup::{init, restore, unusable_reason};
pub use top::{Prepare, TopSource, explore_top};
use worker::perform_jobs;
pub use worker::{Inline, Runner};

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
    /// `flametui top`: a refresh interval read.
    TopInterval(Box<(Profile, crate::app::top::Facts)>),
    /// `flametui top`: the clock, since start.
    TopTick(Duration),
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

/// Ctrl-C, as raw mode delivers it.
fn is_interrupt_key(key: &event::KeyEvent) -> bool {
    key.kind == event::KeyEventKind::Press
        && key.modifiers.contains(event::KeyModifiers::CONTROL)
        && matches!(key.code, event::KeyCode::Char('c' | 'C'))
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
        // Ctrl-C while a recording runs stops it (as in a shell); the view stays.
        Input::Event(Event::Key(key))
            if is_interrupt_key(&key) && app.recording.as_ref().is_some_and(|r| r.running) =>
        {
            Some(Action::StopRecording)
        }
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
        Input::TopInterval(refresh) => Some(Action::TopInterval(refresh)),
        Input::TopTick(now) => Some(Action::TopTick(now)),
    }
}
