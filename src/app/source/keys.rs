//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, ToolAction};
use crate::app::keys::{Binding, bind, ch, ctrl, key, tool};
use crate::app::source::state::SourceKey;

/// The keys of this screen. (mode `Source`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Source,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::SourceKey(SourceKey::Step(-1))),
        "↑↓ k j",
        "move by a line",
        Some(("↑↓", "move"))
    ),
    bind!(
        Source,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::SourceKey(SourceKey::Step(1))),
        "",
        "",
        None
    ),
    bind!(
        Source,
        [key(KeyCode::PageUp), ctrl('b')],
        tool(ToolAction::SourceKey(SourceKey::Page(false))),
        "PgUp PgDn",
        "a page",
        None
    ),
    bind!(
        Source,
        [key(KeyCode::PageDown), ctrl('f')],
        tool(ToolAction::SourceKey(SourceKey::Page(true))),
        "",
        "",
        None
    ),
    bind!(
        Source,
        [ch('g'), key(KeyCode::Home)],
        tool(ToolAction::SourceKey(SourceKey::Edge(false))),
        "g G",
        "first / last line",
        None
    ),
    bind!(
        Source,
        [ch('G'), key(KeyCode::End)],
        tool(ToolAction::SourceKey(SourceKey::Edge(true))),
        "",
        "",
        None
    ),
    bind!(
        Source,
        [ch('n')],
        tool(ToolAction::SourceKey(SourceKey::NextHot(true))),
        "n N",
        "next / previous line with samples",
        Some(("n", "next hot"))
    ),
    bind!(
        Source,
        [ch('N')],
        tool(ToolAction::SourceKey(SourceKey::NextHot(false))),
        "",
        "",
        None
    ),
    bind!(
        Source,
        [ch('%')],
        tool(ToolAction::SourceKey(SourceKey::Shares)),
        "%",
        "weights / shares of the frame",
        Some(("%", "shares"))
    ),
    bind!(
        Source,
        [ch('a'), key(KeyCode::Esc)],
        tool(ToolAction::SourceKey(SourceKey::Close)),
        "a Esc",
        "back to the graph",
        Some(("Esc", "back"))
    ),
    bind!(
        Source,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        None
    ),
    bind!(
        Source,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        None
    ),
];
