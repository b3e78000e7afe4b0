//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, Dir, ToolAction};
use crate::app::keys::{Binding, bind, ch, ctrl, key, tool};

/// The keys of this screen. (mode `Sandwich`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Sandwich,
        [key(KeyCode::Left), ch('h')],
        tool(ToolAction::Move(Dir::Left)),
        "←↓↑→ hjkl",
        "move in the pane",
        Some(("←↓↑→", "move"))
    ),
    bind!(
        Sandwich,
        [key(KeyCode::Right), ch('l')],
        tool(ToolAction::Move(Dir::Right)),
        "",
        "",
        None
    ),
    bind!(
        Sandwich,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::Move(Dir::Up)),
        "",
        "",
        None
    ),
    bind!(
        Sandwich,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::Move(Dir::Down)),
        "",
        "",
        None
    ),
    bind!(
        Sandwich,
        [key(KeyCode::Tab)],
        tool(ToolAction::Pane),
        "Tab",
        "callers / callees pane",
        Some(("Tab", "pane"))
    ),
    bind!(
        Sandwich,
        [key(KeyCode::Enter)],
        tool(ToolAction::Recenter),
        "Enter",
        "centre on that function",
        Some(("Enter", "centre"))
    ),
    bind!(
        Sandwich,
        [ch('y')],
        tool(ToolAction::CopyName),
        "y",
        "copy the name",
        None
    ),
    bind!(
        Sandwich,
        [ch('s'), key(KeyCode::Esc)],
        tool(ToolAction::Close),
        "s Esc",
        "back where it was opened",
        Some(("Esc", "back"))
    ),
    bind!(
        Sandwich,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        None
    ),
    bind!(
        Sandwich,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        None
    ),
];
