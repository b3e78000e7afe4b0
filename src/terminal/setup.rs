//! The terminal's set-up and restore: raw mode, the alternate screen, mouse capture and
//! bracketed paste, undone on the way out and on panic.

use std::io::{self, Stdout};
use std::sync::Once;

use crossterm::cursor::{Hide, Show};
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

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
pub(super) fn enter() -> io::Result<()> {
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
