//! Keys that edit the finder's query or the prompt's text: typing, pasting, erasing.

use crate::app::Mode;
use crate::app::action::ToolAction;
use crate::app::explorer::Explorer;
use crate::app::text_input::{self, Inserted};

/// A key that edits the finder's or the prompt's text.
pub(crate) fn text_key(ex: &mut Explorer, mode: Mode, action: ToolAction) {
    match action {
        ToolAction::Type(c) => type_char(ex, mode, c),
        ToolAction::Paste(text) => paste(ex, mode, &text),
        ToolAction::Backspace => edit(ex, mode, |s| {
            s.pop();
        }),
        ToolAction::ClearLine => edit(ex, mode, String::clear),
        _ => {}
    }
}

/// Types into the finder or prompt; the first character typed over a suggestion replaces it.
fn type_char(ex: &mut Explorer, mode: Mode, c: char) {
    insert(ex, mode, false, |s| text_input::type_char(s, c));
}

/// Pastes into the finder or prompt (over a suggestion, replacing it): one edit, one
/// ranking of the finder.
fn paste(ex: &mut Explorer, mode: Mode, text: &str) {
    insert(ex, mode, true, |s| text_input::paste(s, text));
}

/// An insertion into the finder or prompt, up to the cap; the status line says when the
/// cap cut it.
fn insert(ex: &mut Explorer, mode: Mode, pasted: bool, f: impl FnOnce(&mut String) -> Inserted) {
    if mode == Mode::Prompt
        && let Some(p) = ex.tools.prompt.as_mut().filter(|p| p.suggested)
    {
        p.text.clear();
    }
    let mut done = Inserted::All;
    edit(ex, mode, |s| done = f(s));
    if done == Inserted::Cut {
        let what = match (mode, ex.tools.prompt.as_ref()) {
            (Mode::Prompt, Some(p)) => p.kind.what(),
            _ => "Finder text",
        };
        ex.tools.message = Some(text_input::cut_message(what, pasted));
    }
}

fn edit(ex: &mut Explorer, mode: Mode, f: impl FnOnce(&mut String)) {
    match mode {
        Mode::Finder => {
            let query = &mut ex.tools.finder.query;
            let before = query.len();
            f(query);
            // A key past the cap (or ⌫ on nothing) leaves the query as it was.
            if query.len() != before {
                ex.run_finder();
            }
        }
        Mode::Prompt => {
            if let Some(p) = ex.tools.prompt.as_mut() {
                f(&mut p.text);
                p.suggested = false;
                p.replace = false;
            }
        }
        _ => {}
    }
}
