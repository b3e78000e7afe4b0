//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, ToolAction};
use crate::app::keys::{Binding, bind, ch, ctrl, key, tool};

/// The keys of this screen. (mode `Table`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Table,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::Step(-1)),
        "↑↓ k j",
        "previous / next function",
        Some(("↑↓", "move"))
    ),
    bind!(
        Table,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::Step(1)),
        "",
        "",
        None
    ),
    bind!(
        Table,
        [key(KeyCode::PageUp), ctrl('b')],
        tool(ToolAction::Page(false)),
        "PgUp PgDn",
        "scroll a page",
        None
    ),
    bind!(
        Table,
        [key(KeyCode::PageDown), ctrl('f')],
        tool(ToolAction::Page(true)),
        "",
        "",
        None
    ),
    bind!(
        Table,
        [ch('g'), key(KeyCode::Home)],
        tool(ToolAction::Edge(false)),
        "g G",
        "first / last function",
        None
    ),
    bind!(
        Table,
        [ch('G'), key(KeyCode::End)],
        tool(ToolAction::Edge(true)),
        "",
        "",
        None
    ),
    bind!(
        Table,
        [key(KeyCode::Enter)],
        tool(ToolAction::Accept),
        "Enter",
        "show it in the graph",
        Some(("Enter", "show"))
    ),
    bind!(
        Table,
        [ch('L')],
        tool(ToolAction::Libraries),
        "L",
        "functions / libraries",
        None
    ),
    bind!(
        Table,
        [ch('o')],
        tool(ToolAction::Sort),
        "o",
        "sort: self/total/name",
        Some(("o", "sort"))
    ),
    bind!(
        Table,
        [ch('d')],
        Some(Action::ToggleDemangle),
        "d S",
        "demangle / short names",
        None
    ),
    bind!(
        Table,
        [ch('S')],
        Some(Action::ToggleShortNames),
        "",
        "",
        None
    ),
    bind!(
        Table,
        [ch('/')],
        Some(Action::SearchStart),
        "/",
        "filter (regex search)",
        Some(("/", "filter"))
    ),
    bind!(
        Table,
        [ch('s')],
        tool(ToolAction::Sandwich),
        "s",
        "callers / callees",
        Some(("s", "callers"))
    ),
    bind!(
        Table,
        [ch('y')],
        tool(ToolAction::CopyName),
        "y",
        "copy the name",
        None
    ),
    bind!(
        Table,
        [ch('t'), key(KeyCode::Esc)],
        tool(ToolAction::Close),
        "t Esc",
        "back to the graph",
        Some(("t", "close"))
    ),
    bind!(
        Table,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        None
    ),
    bind!(
        Table,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        None
    ),
];
