//! Stage: application state — text typed or pasted into a prompt (the search, the finder,
//! the export path and exclude regex, the task filter). Every prompt holds at most
//! [`PROMPT_CAP`] bytes; a bracketed paste is one edit, cleaned of line breaks and control
//! characters, and cut at the cap (the caller re-runs its search once and says so when
//! the cap cut it). Each edit is linear in what it adds, never in what the prompt holds.

/// Most bytes of text any prompt holds: 4 KiB. A regex, a function name or a path is far
/// shorter; a paste past it is cut at a character boundary, and typing stops there.
pub const PROMPT_CAP: usize = 4096;

/// The cap as the status line writes it.
const CAP_TEXT: &str = "4 KiB";

/// What an insertion did with its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// All of it went in (controls dropped, line breaks made spaces).
    All,
    /// The cap cut it: the paste's end, or the key typed, was left out.
    Cut,
}

/// Types `c` at the end of `text`, unless it is a control character (ignored) or would
/// take `text` past [`PROMPT_CAP`].
pub fn type_char(text: &mut String, c: char) -> Inserted {
    if c.is_control() {
        return Inserted::All;
    }
    if text.len() + c.len_utf8() > PROMPT_CAP {
        return Inserted::Cut;
    }
    text.push(c);
    Inserted::All
}

/// Appends a paste to `text`, [cleaned](clean), up to [`PROMPT_CAP`] bytes. Stops at the
/// first character that does not fit, so the work is bounded by the cap, not by the paste
/// (but for controls, which are skipped).
pub fn paste(text: &mut String, pasted: &str) -> Inserted {
    for c in clean(pasted) {
        if text.len() + c.len_utf8() > PROMPT_CAP {
            return Inserted::Cut;
        }
        text.push(c);
    }
    Inserted::All
}

/// A paste as a prompt takes it, and no longer than it could take: the [cleaned](clean)
/// text cut after the first character past [`PROMPT_CAP`] bytes, so that pasting the
/// result anywhere gives what pasting `pasted` would (and says it was cut alike). A paste
/// waiting in a queue holds at most this.
pub fn clipped(pasted: &str) -> String {
    let mut out = String::new();
    for c in clean(pasted) {
        out.push(c);
        if out.len() > PROMPT_CAP {
            break;
        }
    }
    out
}

/// The characters of a paste as a one-line prompt takes them: line breaks at its end are
/// dropped, the others (CR LF, LF, CR, and the Unicode line and paragraph separators) and
/// tabs become one space each, and every other control character (ESC, BEL, backspace, C1)
/// is dropped, as typing cannot enter one either.
pub fn clean(pasted: &str) -> impl Iterator<Item = char> + '_ {
    let body = pasted.trim_end_matches(is_break);
    let mut chars = body.chars().peekable();
    std::iter::from_fn(move || {
        loop {
            let c = chars.next()?;
            if c == '\r' && chars.peek() == Some(&'\n') {
                continue;
            }
            if is_break(c) || c == '\t' {
                return Some(' ');
            }
            if !c.is_control() {
                return Some(c);
            }
        }
    })
}

/// A line break in pasted text.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// What the status line says when the cap cut an edit of `what` (`Search text`).
pub fn cut_message(what: &str, pasted: bool) -> String {
    if pasted {
        format!("{what} is limited to {CAP_TEXT}: the paste was cut")
    } else {
        format!("{what} is limited to {CAP_TEXT}: nothing more can be typed")
    }
}

#[cfg(test)]
#[path = "paste_tests.rs"]
mod tests;
