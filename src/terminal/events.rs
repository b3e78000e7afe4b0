//! The threads that feed the loop from outside the program: the terminal's events, and
//! the signals that end, stop or continue it (and which one ended the viewer).

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;

use crossterm::event;

use super::Input;
use super::setup::restore;
use crate::profile::threads::{start, watch_signals};

/// Keys, mouse and resizes from the terminal.
pub(super) fn spawn_events(tx: Sender<Input>) -> std::io::Result<()> {
    start(move || {
        loop {
            let input = event::read().map_or(Input::Stop, Input::Event);
            let stop = matches!(input, Input::Stop);
            if tx.send(input).is_err() || stop {
                break;
            }
        }
    })
    .map(drop)
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
pub(super) fn spawn_signals(tx: Sender<Input>) {
    use signal_hook::consts::signal::{SIGCONT, SIGTSTP};
    let ending = ending_signals();
    let all = ending.iter().copied().chain([SIGTSTP, SIGCONT]).collect();
    // Without it (no thread to be had) the signals keep their default actions.
    let _ = watch_signals(all, move |signal| {
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
    });
}
