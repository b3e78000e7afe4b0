//! Stage: application state — the recording behind a live profile (`flametui record`):
//! what is recorded and how (said once the first profile shows), Ctrl-C stopping it while
//! the view stays, and its end.

use super::{App, Effect, Phase};

/// A recording in progress or done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// The command (or target) recorded, for the badge.
    pub what: String,
    /// Said on the status line once the first profile shows (the call-graph mode and why,
    /// where the command's output goes).
    pub note: String,
    /// The note was said.
    pub told: bool,
    /// perf is still writing.
    pub running: bool,
    /// A stop was asked for.
    pub stopping: bool,
}

impl Recording {
    /// A recording of `what`, running.
    pub fn new(what: String, note: String) -> Self {
        Self {
            what,
            note,
            told: false,
            running: true,
            stopping: false,
        }
    }
}

/// Ctrl-C: asks the shell to stop perf and the command (the profile recorded so far stays,
/// and the final one follows); without a recording running, quits.
pub fn stop(app: &mut App) {
    let Some(rec) = app.recording.as_mut().filter(|r| r.running) else {
        app.quit = true;
        return;
    };
    if rec.stopping {
        // A second Ctrl-C while perf finishes: leave.
        app.quit = true;
        return;
    }
    rec.stopping = true;
    app.effects.push(Effect::StopRecording);
    say(
        app,
        "Stopping the command and perf… (the profile so far stays; q quits)",
    );
}

/// A profile was shown (`done`: the final one, perf has ended): says the recording's note
/// the first time, and that it ended.
pub fn shown(app: &mut App, done: bool) {
    let Some(rec) = app.recording.as_mut() else {
        return;
    };
    let mut text = None;
    if !rec.told {
        rec.told = true;
        text = Some(rec.note.clone());
    }
    if done && rec.running {
        rec.running = false;
        let ended = if rec.stopping {
            "Recording stopped"
        } else {
            "Recording done"
        };
        text = Some(match text {
            Some(note) => format!("{ended} · {note}"),
            None => format!("{ended} · q quits"),
        });
    }
    if let Some(text) = text {
        say(app, &text);
    }
}

/// Puts `text` on the status line.
pub(super) fn say(app: &mut App, text: &str) {
    let text = crate::text::sanitize(text).into_owned();
    match &mut app.phase {
        Phase::Ready(ex) => ex.tools.message = Some(text),
        Phase::Compare(cmp) => cmp.driver_mut().tools.message = Some(text),
        Phase::Loading(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Action, update};
    use crate::profile::Profile;
    use crate::view::color::ColorMode;

    fn message(app: &App) -> Option<String> {
        app.explorer().and_then(|e| e.tools.message.clone())
    }

    #[test]
    fn ctrl_c_stops_then_the_final_profile_stays() {
        let p = || Box::new(Profile::from_folded("main;spin 3\n").unwrap());
        let mut app = App::loading("perf record", ColorMode::Mono);
        app.recording = Some(Recording::new("./busy".into(), "call graph: fp".into()));
        update(&mut app, Action::Snapshot(p()));
        assert_eq!(message(&app).as_deref(), Some("call graph: fp"));
        update(&mut app, Action::StopRecording);
        assert!(!app.quit);
        assert!(matches!(app.effects.as_slice(), [Effect::StopRecording]));
        assert!(message(&app).unwrap().starts_with("Stopping"));
        update(&mut app, Action::Loaded(p()));
        assert_eq!(
            message(&app).as_deref(),
            Some("Recording stopped · q quits")
        );
        let rec = app.recording.as_ref().unwrap();
        assert!(!rec.running);
        // Once perf has ended, Ctrl-C quits as anywhere else.
        update(&mut app, Action::StopRecording);
        assert!(app.quit);
    }

    #[test]
    fn a_second_ctrl_c_leaves() {
        let mut app = App::loading("perf record", ColorMode::Mono);
        app.recording = Some(Recording::new("x".into(), "n".into()));
        update(&mut app, Action::StopRecording);
        assert!(!app.quit);
        update(&mut app, Action::StopRecording);
        assert!(app.quit);
    }
}
