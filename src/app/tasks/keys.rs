//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, ToolAction};
use crate::app::keys::{Binding, bind, ch, ctrl, key, tool};
use crate::app::tasks::state::TaskKey;

/// The keys of this screen. (mode `Tasks`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Tasks,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::Step(-1)),
        "↑↓ k j",
        "previous / next row",
        Some(("↑↓", "move"))
    ),
    bind!(
        Tasks,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::Step(1)),
        "",
        "",
        None
    ),
    bind!(
        Tasks,
        [key(KeyCode::PageUp), ctrl('b')],
        tool(ToolAction::Page(false)),
        "PgUp PgDn",
        "scroll a page",
        None
    ),
    bind!(
        Tasks,
        [key(KeyCode::PageDown), ctrl('f')],
        tool(ToolAction::Page(true)),
        "",
        "",
        None
    ),
    bind!(
        Tasks,
        [ch('g'), key(KeyCode::Home)],
        tool(ToolAction::Edge(false)),
        "g G",
        "first / last row",
        None
    ),
    bind!(
        Tasks,
        [ch('G'), key(KeyCode::End)],
        tool(ToolAction::Edge(true)),
        "",
        "",
        None
    ),
    bind!(
        Tasks,
        [key(KeyCode::Char(' '))],
        tool(ToolAction::TaskKey(TaskKey::Mark)),
        "Space",
        "mark thread / process",
        Some(("Space", "mark"))
    ),
    bind!(
        Tasks,
        [key(KeyCode::Enter)],
        tool(ToolAction::Accept),
        "Enter",
        "show marked (or this row)",
        Some(("Enter", "show"))
    ),
    bind!(
        Tasks,
        [ch('a')],
        tool(ToolAction::TaskKey(TaskKey::All)),
        "a",
        "all tasks again",
        Some(("a", "all"))
    ),
    bind!(
        Tasks,
        [ch('/')],
        tool(ToolAction::TaskKey(TaskKey::Filter)),
        "/",
        "filter (fuzzy)",
        Some(("/", "filter"))
    ),
    bind!(
        Tasks,
        [ch('W')],
        tool(ToolAction::Group),
        "W",
        "group by process, thread",
        Some(("W", "group"))
    ),
    bind!(
        Tasks,
        [ch('u')],
        tool(ToolAction::Undo),
        "u",
        "undo tasks / transform",
        None
    ),
    bind!(
        Tasks,
        [key(KeyCode::Esc)],
        tool(ToolAction::TaskKey(TaskKey::Escape)),
        "Esc w",
        "clear filter, else back",
        Some(("Esc", "back"))
    ),
    bind!(Tasks, [ch('w')], tool(ToolAction::Tasks), "", "", None),
    bind!(
        Tasks,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        None
    ),
    bind!(
        Tasks,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        None
    ),
];

/// The task list's filter prompt. (mode `TaskFilter`)
pub(crate) static FILTER: &[Binding] = &[
    bind!(
        TaskFilter,
        [key(KeyCode::Enter)],
        tool(ToolAction::Accept),
        "Enter",
        "keep the filter",
        Some(("Enter", "keep"))
    ),
    bind!(
        TaskFilter,
        [key(KeyCode::Esc)],
        tool(ToolAction::Close),
        "Esc",
        "clear the filter",
        Some(("Esc", "clear"))
    ),
    bind!(
        TaskFilter,
        [key(KeyCode::Up)],
        tool(ToolAction::Step(-1)),
        "↑↓",
        "previous / next row",
        Some(("↑↓", "move"))
    ),
    bind!(
        TaskFilter,
        [key(KeyCode::Down)],
        tool(ToolAction::Step(1)),
        "",
        "",
        None
    ),
    bind!(
        TaskFilter,
        [key(KeyCode::Backspace)],
        tool(ToolAction::Backspace),
        "⌫ Ctrl-U",
        "delete a char / all",
        None
    ),
    bind!(
        TaskFilter,
        [ctrl('u')],
        tool(ToolAction::ClearLine),
        "",
        "",
        None
    ),
    bind!(
        TaskFilter,
        [ctrl('c')],
        Some(Action::Quit),
        "Ctrl-C",
        "quit",
        None
    ),
];
