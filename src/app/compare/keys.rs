//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, Dir, ToolAction};
use crate::app::keys::{Binding, bind, ch, ctrl, key, tool};

/// Keys of the graph that work only in compare mode. (mode `Normal`)
pub(crate) static GRAPH: &[Binding] = &[
    bind!(
        compare Normal,
        [ch('v')],
        Some(Action::CycleView),
        "v",
        "next view (panes, Δ, table)",
        Some(("v", "view"))
    ),
    bind!(
        compare Normal,
        [key(KeyCode::Tab)],
        Some(Action::SwitchPane),
        "Tab",
        "keys to the other pane",
        None
    ),
    bind!(
        compare Normal,
        [ch('b')],
        Some(Action::SwapShape),
        "b",
        "Δ graph: the other shape",
        None
    ),
];

/// The delta table's keys. (mode `DeltaTable`)
pub(crate) static DELTA_TABLE: &[Binding] = &[
    bind!(
        compare DeltaTable,
        [key(KeyCode::Up), ch('k')],
        Some(Action::Move(Dir::Up)),
        "↑↓ k j",
        "previous / next function",
        Some(("↑↓", "move"))
    ),
    bind!(
        compare DeltaTable,
        [key(KeyCode::Down), ch('j')],
        Some(Action::Move(Dir::Down)),
        "",
        "",
        None
    ),
    bind!(
        compare DeltaTable,
        [key(KeyCode::PageUp), ctrl('b')],
        Some(Action::PageUp),
        "PgUp PgDn",
        "scroll a page",
        None
    ),
    bind!(
        compare DeltaTable,
        [key(KeyCode::PageDown), ctrl('f')],
        Some(Action::PageDown),
        "",
        "",
        None
    ),
    bind!(
        compare DeltaTable,
        [ch('g'), key(KeyCode::Home)],
        Some(Action::Top),
        "g G",
        "first / last function",
        None
    ),
    bind!(
        compare DeltaTable,
        [ch('G'), key(KeyCode::End)],
        Some(Action::Bottom),
        "",
        "",
        None
    ),
    bind!(
        compare DeltaTable,
        [key(KeyCode::Enter)],
        Some(Action::ShowInGraph),
        "Enter",
        "show the function in the graph",
        Some(("Enter", "show"))
    ),
    bind!(
        compare DeltaTable,
        [ch('/')],
        Some(Action::SearchStart),
        "/",
        "filter names (regex)",
        Some(("/", "filter"))
    ),
    bind!(
        compare DeltaTable,
        [ch('p'), ctrl('p')],
        tool(ToolAction::Finder),
        "p Ctrl-P",
        "find a function (fuzzy)",
        None
    ),
    bind!(
        compare DeltaTable,
        [ch('v')],
        Some(Action::CycleView),
        "v",
        "next view",
        Some(("v", "view"))
    ),
    bind!(
        compare DeltaTable,
        [key(KeyCode::Esc)],
        Some(Action::Escape),
        "Esc",
        "clear the filter, else back to the graph",
        None
    ),
    bind!(
        compare DeltaTable,
        [ch('d')],
        Some(Action::ToggleDemangle),
        "d S",
        "demangle / short names",
        None
    ),
    bind!(compare DeltaTable, [ch('S')], Some(Action::ToggleShortNames), "", "", None),
    bind!(
        compare DeltaTable,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        Some(("?", "help"))
    ),
    bind!(
        compare DeltaTable,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        Some(("q", "quit"))
    ),
];
