//! Stage: application state — the keymap as data. One table drives key handling, the footer
//! hints and the `?` help overlay, so the three never disagree. A new key is one row here,
//! one [`Action`] and one `update` arm.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::ToolAction;
use super::action::{Action, Dir};
use super::heat::state::HeatKey;
use super::mode::Mode;
use super::tasks::state::TaskKey;

/// A key with its modifiers (Shift is ignored for characters: `N` is `N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl, Alt…
    pub mods: KeyModifiers,
}

const fn ch(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::NONE,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

const fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

#[allow(clippy::unnecessary_wraps)] // rows hold an `Option<Action>`
const fn tool(t: ToolAction) -> Option<Action> {
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

macro_rules! bind {
    ($mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        bind!(@ false, $mode, [$($k),*], $action, $label, $help, $hint)
    };
    (compare $mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        bind!(@ true, $mode, [$($k),*], $action, $label, $help, $hint)
    };
    (@ $compare:expr, $mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        Binding {
            mode: Mode::$mode,
            keys: &[$($k),*],
            action: $action,
            label: $label,
            help: $help,
            hint: $hint,
            compare: $compare,
        }
    };
}

/// The keymap.
pub static KEYMAP: &[Binding] = &[
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
    bind!(Normal, [], None, "click", "select a frame", None),
    bind!(Normal, [], None, "double-click", "zoom into it", None),
    bind!(Normal, [], None, "hover", "show its tooltip", None),
    bind!(Normal, [], None, "wheel", "scroll", None),
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
        "back to the graph",
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
    bind!(
        Prompt,
        [key(KeyCode::Enter)],
        tool(ToolAction::Accept),
        "Enter",
        "do it",
        Some(("Enter", "ok"))
    ),
    bind!(
        Prompt,
        [key(KeyCode::Esc)],
        tool(ToolAction::Close),
        "Esc",
        "cancel",
        Some(("Esc", "cancel"))
    ),
    bind!(
        Prompt,
        [key(KeyCode::Backspace)],
        tool(ToolAction::Backspace),
        "⌫ Ctrl-U",
        "delete a char / all",
        None
    ),
    bind!(
        Prompt,
        [ctrl('u')],
        tool(ToolAction::ClearLine),
        "",
        "",
        None
    ),
    bind!(
        Prompt,
        [ctrl('c')],
        Some(Action::Quit),
        "Ctrl-C",
        "quit",
        None
    ),
    bind!(
        Help,
        [key(KeyCode::Down), ch('j')],
        tool(ToolAction::HelpScroll(1)),
        "↑↓ PgUp PgDn",
        "scroll the help",
        Some(("↑↓", "scroll"))
    ),
    bind!(
        Help,
        [key(KeyCode::Up), ch('k')],
        tool(ToolAction::HelpScroll(-1)),
        "",
        "",
        None
    ),
    bind!(
        Help,
        [key(KeyCode::PageDown)],
        tool(ToolAction::HelpScroll(10)),
        "",
        "",
        None
    ),
    bind!(
        Help,
        [key(KeyCode::PageUp)],
        tool(ToolAction::HelpScroll(-10)),
        "",
        "",
        None
    ),
    bind!(
        Help,
        [key(KeyCode::Esc), ch('?'), ch('q'), key(KeyCode::F(1))],
        Some(Action::ToggleHelp),
        "Esc ? q",
        "close the help",
        Some(("Esc", "close"))
    ),
    bind!(
        Help,
        [ctrl('c')],
        Some(Action::Quit),
        "Ctrl-C",
        "quit",
        None
    ),
];

impl Key {
    /// True when the event is this key (Shift ignored for characters).
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        let mods = match ev.code {
            KeyCode::Char(_) => ev.modifiers - KeyModifiers::SHIFT,
            _ => ev.modifiers,
        };
        self.code == ev.code && self.mods == mods
    }
}

/// The action of a key press in a mode; in the search prompt, other characters are typed.
pub fn action_for(mode: Mode, ev: &KeyEvent) -> Option<Action> {
    action_in(mode, false, ev)
}

/// As [`action_for`]; with `comparing`, the compare-mode rows count too.
pub fn action_in(mode: Mode, comparing: bool, ev: &KeyEvent) -> Option<Action> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    let bound = KEYMAP
        .iter()
        .filter(|b| b.mode == mode && (comparing || !b.compare))
        .find(|b| b.keys.iter().any(|k| k.matches(ev)))
        .and_then(|b| b.action.clone());
    if bound.is_some() {
        return bound;
    }
    match ev.code {
        KeyCode::Char(_)
            if ev
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            None
        }
        KeyCode::Char(c) if mode == Mode::Search => Some(Action::SearchType(c)),
        KeyCode::Char(c) if matches!(mode, Mode::Finder | Mode::Prompt | Mode::TaskFilter) => {
            Some(Action::Tool(ToolAction::Type(c)))
        }
        _ => None,
    }
}

/// A footer hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// The keys, e.g. `n N`.
    pub keys: &'static str,
    /// What they do, one word.
    pub word: &'static str,
    /// Shown even when the footer is too narrow for the others (help and quit).
    pub essential: bool,
    /// Kept before the other hints when the footer is narrow: what a newcomer needs first
    /// (move, zoom, search, and the function table, finder and callers / callees).
    pub main: bool,
}

/// The actions whose hints [`Hint::main`] keeps on a narrow footer.
fn is_main(action: Option<&Action>) -> bool {
    matches!(
        action,
        Some(
            Action::Move(_)
                | Action::Zoom
                | Action::SearchStart
                | Action::CycleView
                | Action::Tool(ToolAction::Table | ToolAction::Finder | ToolAction::Sandwich)
        )
    )
}

/// The key of a graph-mode tool action as the help writes it (`t`, `Ctrl-P`).
pub fn key_of(action: &ToolAction) -> String {
    KEYMAP
        .iter()
        .filter(|b| b.mode == Mode::Normal)
        .find(|b| matches!(&b.action, Some(Action::Tool(t)) if t == action))
        .and_then(|b| b.keys.first())
        .map_or_else(String::new, |k| match k.code {
            KeyCode::Char(c) if k.mods.contains(KeyModifiers::CONTROL) => {
                format!("Ctrl-{}", c.to_ascii_uppercase())
            }
            KeyCode::Char(c) => c.to_string(),
            other => format!("{other:?}"),
        })
}

/// Footer hints of a mode, in keymap order.
pub fn hints(mode: Mode) -> impl Iterator<Item = Hint> {
    hints_in(mode, false)
}

/// As [`hints`]; with `comparing`, the compare-mode hints come first and the keys of
/// single-profile tools are left out.
pub fn hints_in(mode: Mode, comparing: bool) -> impl Iterator<Item = Hint> {
    let rows = move |compare: bool| {
        KEYMAP
            .iter()
            .filter(move |b| b.mode == mode && b.compare == compare)
            .filter(move |b| !comparing || works_while_comparing(b))
            .filter_map(|b| {
                b.hint.map(|(keys, word)| Hint {
                    keys,
                    word,
                    essential: matches!(b.action, Some(Action::Quit | Action::ToggleHelp)),
                    main: b.mode == Mode::Normal && is_main(b.action.as_ref()),
                })
            })
    };
    rows(true).filter(move |_| comparing).chain(rows(false))
}

/// False for the rows of tools that work on one profile only.
fn works_while_comparing(b: &Binding) -> bool {
    match &b.action {
        Some(Action::Tool(t)) => t.works_while_comparing(),
        _ => true,
    }
}

/// Help sections: a title and `(keys, help)` rows, mouse rows in their own section.
pub fn help_sections() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    help_sections_in(false)
}

/// As [`help_sections`]; with `comparing`, the compare-mode rows and the delta table too.
pub fn help_sections_in(comparing: bool) -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    // Graph keys of the analysis tools get a section of their own.
    let rows_where = |mode: Mode, mouse: bool, tools: Option<bool>| {
        KEYMAP
            .iter()
            .filter(|b| b.mode == mode && !b.label.is_empty() && b.keys.is_empty() == mouse)
            .filter(|b| {
                if comparing {
                    works_while_comparing(b)
                } else {
                    !b.compare
                }
            })
            .filter(|b| tools.is_none_or(|t| matches!(b.action, Some(Action::Tool(_))) == t))
            .map(|b| (b.label, b.help))
            .collect::<Vec<(&'static str, &'static str)>>()
    };
    let rows = |mode: Mode| rows_where(mode, false, None);
    let mut sections = vec![
        (
            Mode::Normal.title(),
            rows_where(Mode::Normal, false, Some(false)),
        ),
        ("Analysis", rows_where(Mode::Normal, false, Some(true))),
        ("Mouse", rows_where(Mode::Normal, true, None)),
        (Mode::Search.title(), rows(Mode::Search)),
    ];
    if comparing {
        sections.push((Mode::DeltaTable.title(), rows(Mode::DeltaTable)));
    }
    let modes: &[Mode] = if comparing {
        &[Mode::Finder, Mode::Prompt]
    } else {
        &[
            Mode::Table,
            Mode::Finder,
            Mode::Sandwich,
            Mode::Heat,
            Mode::Tasks,
            Mode::TaskFilter,
            Mode::Prompt,
        ]
    };
    for &mode in modes {
        sections.push((mode.title(), rows(mode)));
    }
    sections
}

/// Screen width from which the help uses two columns.
pub const HELP_TWO_COLUMNS: u16 = 70;

/// Screen width from which the help uses three columns (three of its widest, 56 columns,
/// with their borders).
pub const HELP_THREE_COLUMNS: u16 = 172;

/// Columns of the help on a screen `width` wide.
pub fn help_columns(width: u16) -> usize {
    match width {
        w if w >= HELP_THREE_COLUMNS => 3,
        w if w >= HELP_TWO_COLUMNS => 2,
        _ => 1,
    }
}

/// How many of the sections (of `heights` rows each, titles included) go into each of
/// `columns` columns of the help, in order, so that they are about as tall: each column
/// takes sections while it stays within its share of what is left (at least one each);
/// sections are separated by a blank row. The last column takes the rest.
pub fn help_split(heights: &[usize], columns: usize) -> Vec<usize> {
    let height = |hs: &[usize]| hs.iter().sum::<usize>() + hs.len().saturating_sub(1);
    let mut out = Vec::new();
    let mut rest = heights;
    for left in (1..=columns.max(1)).rev() {
        if left == 1 {
            out.push(rest.len());
            break;
        }
        let share = height(rest).div_ceil(left);
        let mut used = 0;
        let mut n = 0;
        for &h in rest {
            let next = used + h + usize::from(n > 0);
            if n > 0 && next > share {
                break;
            }
            used = next;
            n += 1;
        }
        out.push(n);
        rest = &rest[n..];
    }
    out
}

/// Widest column of the help.
pub const HELP_COLUMN: u16 = 56;

/// Columns of the help on a screen `width` wide, and how wide each is.
pub fn help_grid(width: u16) -> (usize, u16) {
    let n = help_columns(width);
    let gaps = u16::try_from(n + 1).unwrap_or(2);
    let per = u16::try_from(n).unwrap_or(1);
    (n, (width.saturating_sub(gaps) / per).min(HELP_COLUMN))
}

/// Width of the keys column of the help: its widest label and two spaces.
pub fn help_key_width(sections: &[(&'static str, Vec<(&'static str, &'static str)>)]) -> usize {
    sections
        .iter()
        .flat_map(|(_, rows)| {
            rows.iter()
                .map(|(k, _)| crate::view::tooltip::display_width(k))
        })
        .max()
        .unwrap_or(8)
        + 2
}

/// A help text in lines of at most `width` columns, broken between words (a word wider
/// than the line is cut with `…`): long entries wrap rather than lose their end.
pub fn help_wrap(text: &str, width: usize) -> Vec<String> {
    let w = crate::view::tooltip::display_width;
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|s| !s.is_empty()) {
        let word = if w(word) > width {
            crate::view::tooltip::ellipsize(word, width)
        } else {
            word.to_owned()
        };
        if !line.is_empty() && w(&line) + 1 + w(&word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// Rows each section of the help takes in columns `col_w` wide, its title included.
pub fn help_heights(comparing: bool, col_w: u16) -> Vec<usize> {
    let sections = help_sections_in(comparing);
    let key_w = help_key_width(&sections);
    let room = usize::from(col_w).saturating_sub(key_w);
    sections
        .iter()
        .map(|(_, rows)| {
            1 + rows
                .iter()
                .map(|(_, h)| help_wrap(h, room).len())
                .sum::<usize>()
        })
        .collect()
}

/// Rows the help needs on a screen `width` wide: its tallest column.
pub fn help_height(comparing: bool, width: u16) -> usize {
    let (columns, col_w) = help_grid(width);
    let heights = help_heights(comparing, col_w);
    let column = |hs: &[usize]| hs.iter().sum::<usize>() + hs.len().saturating_sub(1);
    let mut rest = &heights[..];
    let mut tallest = 0;
    for n in help_split(&heights, columns) {
        let (this, more) = rest.split_at(n.min(rest.len()));
        tallest = tallest.max(column(this));
        rest = more;
    }
    tallest
}

/// How far the help can scroll on a screen of `size` (its box has a border).
pub fn help_max_scroll(size: super::Size, comparing: bool) -> u16 {
    let need = help_height(comparing, size.width) + 2;
    u16::try_from(need.saturating_sub(usize::from(size.height))).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn keys_map_per_mode() {
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        assert!(matches!(action_for(Mode::Normal, &q), Some(Action::Quit)));
        assert!(matches!(
            action_for(Mode::Search, &q),
            Some(Action::SearchType('q'))
        ));
        assert!(matches!(
            action_for(Mode::Help, &q),
            Some(Action::ToggleHelp)
        ));
        let n = press(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert!(matches!(
            action_for(Mode::Normal, &n),
            Some(Action::PrevMatch)
        ));
        let cc = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for mode in [Mode::Normal, Mode::Search, Mode::Help] {
            assert!(matches!(action_for(mode, &cc), Some(Action::Quit)));
        }
        let w = press(KeyCode::Char('w'), KeyModifiers::NONE);
        assert!(matches!(
            action_for(Mode::Normal, &w),
            Some(Action::Tool(ToolAction::Tasks))
        ));
        // The task filter types letters, Space and all.
        for c in ['a', 'w', ' ', '/'] {
            let ev = press(KeyCode::Char(c), KeyModifiers::NONE);
            assert!(matches!(
                action_for(Mode::TaskFilter, &ev),
                Some(Action::Tool(ToolAction::Type(t))) if t == c
            ));
        }
        let z = press(KeyCode::Char('Z'), KeyModifiers::SHIFT);
        assert!(action_for(Mode::Normal, &z).is_none());
    }

    #[test]
    fn every_key_is_bound_once_per_mode() {
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in KEYMAP.iter().skip(i + 1).filter(|b| b.mode == a.mode) {
                for k in a.keys {
                    assert!(!b.keys.contains(k), "{k:?} bound twice in {:?}", a.mode);
                }
            }
        }
    }

    #[test]
    fn help_and_hints_come_from_the_table() {
        let words: Vec<_> = hints(Mode::Normal).map(|h| h.word).collect();
        assert!(words.contains(&"zoom") && words.contains(&"quit") && words.contains(&"find"));
        let essential: Vec<_> = hints(Mode::Normal)
            .filter(|h| h.essential)
            .map(|h| h.word)
            .collect();
        assert_eq!(essential, ["help", "quit"]);
        // While comparing, the keys of one-profile tools are neither hinted nor listed.
        let comparing: Vec<_> = hints_in(Mode::Normal, true).map(|h| h.word).collect();
        assert!(comparing.contains(&"view") && comparing.contains(&"find"));
        assert!(!comparing.contains(&"table") && !comparing.contains(&"callers"));
        let help = help_sections_in(true);
        let titles: Vec<_> = help.iter().map(|(t, _)| *t).collect();
        assert!(titles.contains(&Mode::Finder.title()), "{titles:?}");
        assert!(!titles.contains(&Mode::Table.title()), "{titles:?}");
        let analysis = &help.iter().find(|(t, _)| *t == "Analysis").unwrap().1;
        let keys: Vec<_> = analysis.iter().map(|(k, _)| *k).collect();
        assert!(
            keys.contains(&"F") && keys.contains(&"y Y") && !keys.contains(&"t"),
            "{keys:?}"
        );
        let sections = help_sections();
        assert_eq!(sections.len(), 11);
        assert!(sections.iter().any(|(t, _)| *t == Mode::Heat.title()));
        assert!(sections[1].1.iter().any(|(k, _)| *k == "e"));
        assert!(sections[2].1.iter().any(|(k, _)| *k == "double-click"));
        assert!(sections[0].1.iter().all(|(k, _)| !k.is_empty()));
    }

    #[test]
    fn help_columns_are_about_as_tall() {
        assert_eq!(help_columns(69), 1);
        assert_eq!(help_columns(80), 2);
        assert_eq!(help_columns(200), 3);
        assert_eq!(help_split(&[3, 3, 3], 1), [3]);
        assert_eq!(help_split(&[3, 3, 3], 3), [1, 1, 1]);
        // 4 + 1 + 2 + 1 + 2 = 10 rows: the first column takes up to 5.
        assert_eq!(help_split(&[4, 2, 2], 2), [1, 2]);
        assert_eq!(help_split(&[9, 1, 1, 1], 3), [1, 2, 1]);
        // A section taller than its share still goes in, one at least per column.
        assert_eq!(help_split(&[20, 1], 2), [1, 1]);
        for width in [80, 120, 200] {
            assert!(help_height(false, width) <= help_height(false, 60));
        }
        assert_eq!(
            help_wrap("parent / widest child", 10),
            ["parent /", "widest", "child"]
        );
        assert_eq!(help_wrap("short", 10), ["short"]);
        assert_eq!(help_wrap("abcdefghijkl", 5), ["abcd…"]);
    }
}
