//! Stage: application state — the keymap rows of the graph screen (moving, zooming,
//! searching, and the keys that open the other screens from it), one table with the
//! others in `app::keymap`.

use crossterm::event::KeyCode;

use super::action::{Action, Dir, ToolAction};
use super::keys::{Binding, bind, ch, ctrl, key, tool};

/// The graph's keys.
pub(crate) static GRAPH: &[Binding] = &[
    bind!(
        Normal,
        [key(KeyCode::Left), ch('h')],
        Some(Action::Move(Dir::Left)),
        "←→ h l",
        "neighbour in the row",
        Some(("←↓↑→", "move"))
    ),
    bind!(
        Normal,
        [key(KeyCode::Right), ch('l')],
        Some(Action::Move(Dir::Right)),
        "",
        "",
        None
    ),
    bind!(
        Normal,
        [key(KeyCode::Up), ch('k')],
        Some(Action::Move(Dir::Up)),
        "↑↓ k j",
        "parent / widest child",
        None
    ),
    bind!(
        Normal,
        [key(KeyCode::Down), ch('j')],
        Some(Action::Move(Dir::Down)),
        "",
        "",
        None
    ),
    bind!(
        Normal,
        [key(KeyCode::Enter)],
        Some(Action::Zoom),
        "Enter",
        "zoom into selection",
        Some(("Enter", "zoom"))
    ),
    bind!(
        Normal,
        [key(KeyCode::Backspace), ch('[')],
        Some(Action::Back),
        "⌫ [",
        "zoom back",
        Some(("⌫", "back"))
    ),
    bind!(
        Normal,
        [key(KeyCode::Esc)],
        Some(Action::Escape),
        "Esc",
        "clear search, else back",
        None
    ),
    bind!(
        Normal,
        [ch(']')],
        Some(Action::Forward),
        "]",
        "zoom forward again",
        None
    ),
    bind!(
        Normal,
        [ch('0')],
        Some(Action::Reset),
        "0",
        "whole graph",
        None
    ),
    bind!(
        Normal,
        [ch('/')],
        Some(Action::SearchStart),
        "/",
        "search names (regex)",
        Some(("/", "search"))
    ),
    bind!(
        Normal,
        [ch('n')],
        Some(Action::NextMatch),
        "n N",
        "next / previous match",
        Some(("n N", "match"))
    ),
    bind!(Normal, [ch('N')], Some(Action::PrevMatch), "", "", None),
    bind!(
        Normal,
        [ch('i')],
        Some(Action::ToggleCase),
        "i",
        "case-insensitive on/off",
        None
    ),
    bind!(
        Normal,
        [ch('d')],
        Some(Action::ToggleDemangle),
        "d",
        "demangle names on/off",
        None
    ),
    bind!(
        Normal,
        [ch('S')],
        Some(Action::ToggleShortNames),
        "S",
        "short names on/off",
        None
    ),
    bind!(
        Normal,
        [ch('f')],
        Some(Action::Flip),
        "f",
        "flame / icicle",
        Some(("f", "flip"))
    ),
    bind!(
        Normal,
        [ch('z')],
        Some(Action::ToggleFreeze),
        "z",
        "freeze live updates",
        None
    ),
    bind!(
        Normal,
        [ch('1')],
        Some(Action::TopMode(1)),
        "1 2 3 4",
        "top: accumulate, window, decay, diff",
        None
    ),
    bind!(Normal, [ch('2')], Some(Action::TopMode(2)), "", "", None),
    bind!(Normal, [ch('3')], Some(Action::TopMode(3)), "", "", None),
    bind!(Normal, [ch('4')], Some(Action::TopMode(4)), "", "", None),
    bind!(
        Normal,
        [ch('<')],
        Some(Action::TopWindow(false)),
        "< >",
        "top: shorter / longer window",
        None
    ),
    bind!(
        Normal,
        [ch('>')],
        Some(Action::TopWindow(true)),
        "",
        "",
        None
    ),
    bind!(
        Normal,
        [key(KeyCode::PageUp), ctrl('b')],
        Some(Action::PageUp),
        "PgUp PgDn",
        "scroll a page",
        None
    ),
    bind!(
        Normal,
        [key(KeyCode::PageDown), ctrl('f')],
        Some(Action::PageDown),
        "",
        "",
        None
    ),
    bind!(
        Normal,
        [ch('g'), key(KeyCode::Home)],
        Some(Action::Top),
        "g G",
        "scroll to top / bottom",
        None
    ),
    bind!(
        Normal,
        [ch('G'), key(KeyCode::End)],
        Some(Action::Bottom),
        "",
        "",
        None
    ),
    bind!(
        Normal,
        [ch('?'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "?",
        "this help",
        Some(("?", "help"))
    ),
    bind!(
        Normal,
        [ch('q'), ctrl('c')],
        Some(Action::Quit),
        "q Ctrl-C",
        "quit",
        Some(("q", "quit"))
    ),
    bind!(
        Normal,
        [ch('t')],
        tool(ToolAction::Table),
        "t",
        "function table",
        Some(("t", "table"))
    ),
    bind!(
        Normal,
        [ch('L')],
        tool(ToolAction::Libraries),
        "L",
        "library table (DSOs)",
        None
    ),
    bind!(
        Normal,
        [ch('C')],
        Some(Action::ToggleLibraryColors),
        "C",
        "colour by library",
        None
    ),
    bind!(
        Normal,
        [ch('m')],
        Some(Action::NextMetric),
        "m",
        "next metric or event",
        None
    ),
    bind!(
        Normal,
        [ch('T')],
        tool(ToolAction::Heat),
        "T",
        "heat map over time",
        None
    ),
    bind!(
        Normal,
        [ch('w')],
        tool(ToolAction::Tasks),
        "w",
        "processes and threads",
        None
    ),
    bind!(
        Normal,
        [ch('W')],
        tool(ToolAction::Group),
        "W",
        "group by process, thread",
        None
    ),
    bind!(
        Normal,
        [ch('p'), ctrl('p')],
        tool(ToolAction::Finder),
        "p Ctrl-P",
        "find a function (fuzzy)",
        Some(("p", "find"))
    ),
    bind!(
        Normal,
        [ch('s')],
        tool(ToolAction::Sandwich),
        "s",
        "callers / callees",
        Some(("s", "callers"))
    ),
    bind!(
        Normal,
        [ch('a')],
        tool(ToolAction::Source),
        "a",
        "source lines of the frame (annotate)",
        Some(("a", "source"))
    ),
    bind!(
        Normal,
        [ch('r')],
        tool(ToolAction::Invert),
        "r",
        "bottom-up (inverted)",
        None
    ),
    bind!(
        Normal,
        [ch('o')],
        tool(ToolAction::Order),
        "o",
        "order: name / weight",
        None
    ),
    bind!(
        Normal,
        [ch('x')],
        tool(ToolAction::Exclude),
        "x",
        "exclude the function",
        None
    ),
    bind!(
        Normal,
        [ch('X')],
        tool(ToolAction::ExcludeRegex),
        "X",
        "exclude a regex",
        None
    ),
    bind!(
        Normal,
        [ch('F')],
        tool(ToolAction::Focus),
        "F",
        "focus on the function",
        None
    ),
    bind!(
        Normal,
        [ch('H')],
        tool(ToolAction::Hide),
        "H",
        "hide (merge) function",
        None
    ),
    bind!(
        Normal,
        [ch('R')],
        tool(ToolAction::CollapseRecursion),
        "R",
        "collapse recursion",
        None
    ),
    bind!(
        Normal,
        [ch('I')],
        tool(ToolAction::MergeInlined),
        "I",
        "merge inlined frames into their callers",
        None
    ),
    bind!(
        Normal,
        [ch('u')],
        tool(ToolAction::Undo),
        "u",
        "undo the last transform",
        None
    ),
    bind!(
        Normal,
        [ch('e')],
        tool(ToolAction::Export),
        "e",
        "export: .svg / .folded",
        None
    ),
    bind!(
        Normal,
        [ch('y')],
        tool(ToolAction::CopyName),
        "y Y",
        "copy name / stack",
        None
    ),
    bind!(Normal, [ch('Y')], tool(ToolAction::CopyStack), "", "", None),
];

/// The graph's mouse (rows that only document).
pub(crate) static GRAPH_MOUSE: &[Binding] = &[
    bind!(Normal, [], None, "click", "select a frame", None),
    bind!(Normal, [], None, "double-click", "zoom into it", None),
    bind!(Normal, [], None, "hover", "show its tooltip", None),
    bind!(Normal, [], None, "wheel", "scroll", None),
];
