//! Stage: application state — a row of the keymap ([`Binding`]) and how rows are written
//! (`bind!`). Plain data below every screen: each screen's `keys.rs` holds its own rows,
//! and `app::keymap` puts them in one table for key handling, footer and help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, ToolAction};
use super::mode::Mode;

/// A key with its modifiers (Shift is ignored for characters: `N` is `N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl, Alt…
    pub mods: KeyModifiers,
}

pub(crate) const fn ch(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
}

pub(crate) const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

pub(crate) const fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

pub(crate) const fn shift(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::SHIFT,
    }
}

#[allow(clippy::unnecessary_wraps)] // rows hold an `Option<Action>`
pub(crate) const fn tool(t: ToolAction) -> Option<Action> {
    Some(Action::Tool(t))
}

/// One row of the keymap.
#[derive(Debug)]
pub struct Binding {
    /// Mode the row applies in.
    pub mode: Mode,
    /// Keys that trigger it; empty for mouse rows, which only document.
    pub keys: &'static [Key],
    /// What the keys do.
    pub action: Option<Action>,
    /// Keys as shown in help and footer; empty to share the row above in the help.
    pub label: &'static str,
    /// Help text.
    pub help: &'static str,
    /// Footer hint (keys, word), for the keys worth one.
    pub hint: Option<(&'static str, &'static str)>,
    /// Only in compare mode (two profiles).
    pub compare: bool,
}

/// A row of a keymap table: `bind!(Mode, [keys], action, label, help, hint)`, or
/// `bind!(compare Mode, …)` for a row only in compare mode.
macro_rules! bind {
    ($mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        bind!(@ false, $mode, [$($k),*], $action, $label, $help, $hint)
    };
    (compare $mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        bind!(@ true, $mode, [$($k),*], $action, $label, $help, $hint)
    };
    (@ $compare:expr, $mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        $crate::app::keys::Binding {
            mode: $crate::app::mode::Mode::$mode,
            keys: &[$($k),*],
            action: $action,
            label: $label,
            help: $help,
            hint: $hint,
            compare: $compare,
        }
    };
}
pub(crate) use bind;

impl Key {
    /// `code` with `mods` as keys are compared: Shift ignored for a character (the
    /// character says it: `N` is `N`).
    pub(crate) fn of(code: KeyCode, mods: KeyModifiers) -> Key {
        let mods = match code {
            KeyCode::Char(_) => mods - KeyModifiers::SHIFT,
            _ => mods,
        };
        Key { code, mods }
    }

    /// True when the event is this key (Shift ignored for characters).
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        *self == Key::of(ev.code, ev.modifiers)
    }
}
