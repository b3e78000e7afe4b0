//! Stage: application state — the keymap rows of this screen, one table with the others
//! in `app::keymap` (key handling, footer hints, `?` help).

use crossterm::event::KeyCode;

use crate::app::action::{Action, Dir, ToolAction};
use crate::app::heat::state::{HeatKey, Span};
use crate::app::keys::{Binding, bind, ch, ctrl, key, shift, tool};

/// The keys of this screen. (mode `Heat`)
pub(crate) static KEYS: &[Binding] = &[
    bind!(
        Heat,
        [key(KeyCode::Left), ch('h')],
        tool(ToolAction::HeatKey(HeatKey::Move(Dir::Left))),
        "←↓↑→ hjkl",
        "move the cursor",
        Some(("←↓↑→", "move"))
    ),
    bind!(
        Heat,
        [key(KeyCode::Right), ch('l')],
        tool(ToolAction::HeatKey(HeatKey::Move(Dir::Right))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::HeatKey(HeatKey::Move(Dir::Up))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::HeatKey(HeatKey::Move(Dir::Down))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [shift(KeyCode::Up), ch('K')],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Tenth, false))),
        "⇧↑↓ K J",
        "a tenth of a second",
        None
    ),
    bind!(
        Heat,
        [shift(KeyCode::Down), ch('J')],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Tenth, true))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [shift(KeyCode::Left), ch('H'), key(KeyCode::PageUp)],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Second, false))),
        "⇧←→ H L",
        "a second, as PgUp PgDn",
        None
    ),
    bind!(
        Heat,
        [shift(KeyCode::Right), ch('L'), key(KeyCode::PageDown)],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Second, true))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [ch('[')],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Recording, false))),
        "[ ]",
        "a tenth of the recording",
        None
    ),
    bind!(
        Heat,
        [ch(']')],
        tool(ToolAction::HeatKey(HeatKey::Jump(Span::Recording, true))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [ch(':')],
        tool(ToolAction::HeatKey(HeatKey::Type)),
        ":",
        "type range: 2.0,2.74 s",
        Some((":", "type"))
    ),
    bind!(
        Heat,
        [key(KeyCode::Char(' ')), ch('m')],
        tool(ToolAction::HeatKey(HeatKey::Mark)),
        "Space m",
        "mark range start / end",
        Some(("Space", "range"))
    ),
    bind!(
        Heat,
        [key(KeyCode::Enter)],
        tool(ToolAction::HeatKey(HeatKey::Show)),
        "Enter",
        "flame graph of range",
        Some(("Enter", "show"))
    ),
    bind!(
        Heat,
        [ch('+'), ch('=')],
        tool(ToolAction::HeatKey(HeatKey::Zoom(true))),
        "+ -",
        "finer / coarser time",
        Some(("+-", "zoom"))
    ),
    bind!(
        Heat,
        [ch('-')],
        tool(ToolAction::HeatKey(HeatKey::Zoom(false))),
        "",
        "",
        None
    ),
    bind!(
        Heat,
        [ch('b')],
        tool(ToolAction::HeatKey(HeatKey::Baseline)),
        "b",
        "range is the baseline",
        None
    ),
    bind!(
        Heat,
        [ch('c')],
        tool(ToolAction::HeatKey(HeatKey::Compare)),
        "c",
        "compare baseline, range",
        Some(("b c", "compare"))
    ),
    bind!(
        Heat,
        [ch('a')],
        tool(ToolAction::HeatKey(HeatKey::Whole)),
        "a",
        "whole recording again",
        Some(("a", "all"))
    ),
    bind!(
        Heat,
        [ch('u')],
        tool(ToolAction::Undo),
        "u",
        "undo range / transform",
        None
    ),
    bind!(
        Heat,
        [ch('/')],
        Some(Action::SearchStart),
        "/",
        "search: cells go green",
        Some(("/", "search"))
    ),
    bind!(
        Heat,
        [ch('T'), key(KeyCode::Esc)],
        tool(ToolAction::Heat),
        "T Esc",
        "back to the graph",
        Some(("Esc", "back"))
    ),
    bind!(
        Heat,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "help",
        None
    ),
    bind!(
        Heat,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q",
        "quit",
        None
    ),
];
