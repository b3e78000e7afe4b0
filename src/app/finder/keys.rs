//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, ToolAction};
use crate::app::keys::{Binding, bind, ctrl, key, tool};

/// The keys of this screen. (mode `Finder`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Finder,
        [key(KeyCode::Up), ctrl('p'), ctrl('k')],
        tool(ToolAction::Step(-1)),
        "↑↓ ^P ^N",
        "previous / next match",
        Some(("↑↓", "move"))
    ),
    bind!(
        Finder,
        [key(KeyCode::Down), ctrl('n'), ctrl('j')],
        tool(ToolAction::Step(1)),
        "",
        "",
        None
    ),
    bind!(
        Finder,
        [key(KeyCode::PageUp)],
        tool(ToolAction::Page(false)),
        "PgUp PgDn",
        "scroll a page",
        None
    ),
    bind!(
        Finder,
        [key(KeyCode::PageDown)],
        tool(ToolAction::Page(true)),
        "",
        "",
        None
    ),
    bind!(
        Finder,
        [key(KeyCode::Enter)],
        tool(ToolAction::Accept),
        "Enter",
        "highlight in the graph",
        Some(("Enter", "pick"))
    ),
    bind!(
        Finder,
        [key(KeyCode::Esc)],
        tool(ToolAction::Close),
        "Esc",
        "close",
        Some(("Esc", "close"))
    ),
    bind!(
        Finder,
        [key(KeyCode::Backspace)],
        tool(ToolAction::Backspace),
        "⌫ Ctrl-U",
        "delete a char / all",
        None
    ),
    bind!(
        Finder,
        [ctrl('u')],
        tool(ToolAction::ClearLine),
        "",
        "",
        None
    ),
    bind!(
        Finder,
        [ctrl('c')],
        Some(Action::Quit),
        "Ctrl-C",
        "quit",
        None
    ),
];
