//! What the loop does for the app beyond drawing: copies to the clipboard (OSC 52) and
//! files written, each told back to the app as a status line.

use std::path::PathBuf;
use std::sync::Mutex;

use super::RawOutput;
use crate::app::effects::{copied_message, exists_message, osc52, wrote_message};
use crate::app::{Action, App, Effect, ToolAction, update};
use crate::output;
use crate::text::sanitize;

/// What stops the recording behind the profile shown (`flametui record`): set by the
/// session that started it, for the one viewer the program runs.
type StopHook = Box<dyn FnMut() -> String + Send>;
static STOP_HOOK: Mutex<Option<StopHook>> = Mutex::new(None);

/// Sets (or clears) what [`Effect::StopRecording`] does; it returns the status line.
pub(super) fn set_stop_hook(hook: Option<StopHook>) {
    if let Ok(mut h) = STOP_HOOK.lock() {
        *h = hook;
    }
}

/// Performs what `update` asked for and tells the app how it went.
pub(super) fn perform_effects<B: RawOutput>(backend: &mut B, app: &mut App) {
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
        Effect::StopRecording => match STOP_HOOK.lock().ok().as_deref_mut() {
            Some(Some(stop)) => stop(),
            _ => "Nothing to stop".to_owned(),
        },
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
