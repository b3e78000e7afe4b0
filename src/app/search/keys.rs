//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::Action;
use crate::app::keys::{Binding, bind, ctrl, key};

/// The keys of this screen. (mode `Search`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Search,
        [key(KeyCode::Enter)],
        Some(Action::SearchAccept),
        "Enter",
        "keep the search",
        Some(("Enter", "keep"))
    ),
    bind!(
        Search,
        [key(KeyCode::Esc)],
        Some(Action::SearchCancel),
        "Esc",
        "clear the search",
        Some(("Esc", "clear"))
    ),
    bind!(
        Search,
        [key(KeyCode::Tab)],
        Some(Action::ToggleCase),
        "Tab",
        "case-insensitive on/off",
        Some(("Tab", "case"))
    ),
    bind!(
        Search,
        [key(KeyCode::Backspace)],
        Some(Action::SearchDelete),
        "⌫",
        "delete a character (edit the query shown)",
        None
    ),
    bind!(
        Search,
        [key(KeyCode::Up)],
        Some(Action::SearchRecall(true)),
        "↑↓",
        "older / newer query (typing replaces it)",
        Some(("↑↓", "history"))
    ),
    bind!(
        Search,
        [key(KeyCode::Down)],
        Some(Action::SearchRecall(false)),
        "",
        "",
        None
    ),
    bind!(
        Search,
        [ctrl('c')],
        Some(Action::Quit),
        "Ctrl-C",
        "quit",
        None
    ),
];
