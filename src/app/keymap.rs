//! Stage: application state — the keymap as data. One table drives key handling, the footer
//! hints and the `?` help overlay, so the three never disagree; each screen owns its rows
//! (its `keys.rs`), and this file puts them in order with the graph's own. A new key is one
//! row, one [`Action`] and one `update` arm.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::action::ToolAction;
pub use super::keys::{Binding, Key};
use super::keys::{bind, ch, ctrl, key, tool};
use super::mode::Mode;

/// The one-line prompt (export path, exclude regex).
static PROMPT: &[Binding] = &[
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
];

/// The help overlay.
static HELP: &[Binding] = &[
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

/// The keymap: every screen's rows, in the order key handling, footer and help read them.
static SECTIONS: &[&[Binding]] = &[
    super::graph_keys::GRAPH,
    super::compare::keys::GRAPH,
    super::graph_keys::GRAPH_MOUSE,
    super::search::keys::KEYS,
    super::compare::keys::DELTA_TABLE,
    super::table::keys::KEYS,
    super::finder::keys::KEYS,
    super::sandwich::keys::KEYS,
    super::heat::keys::KEYS,
    super::tasks::keys::KEYS,
    super::source::keys::KEYS,
    super::tasks::keys::FILTER,
    PROMPT,
    HELP,
];

/// Every row of the keymap, in order.
pub fn rows() -> impl Iterator<Item = &'static Binding> {
    SECTIONS.iter().flat_map(|s| s.iter())
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
    let bound = rows()
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
    rows()
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
        rows()
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

/// The legend of the significance marks beside each Δ while comparing (the test is
/// `profile::significance`).
const DELTA_MARKS: [(&str, &str); 3] = [
    (
        "*",
        "a finding: p < 0.01 in a two-proportion z-test on both sides' sample counts",
    ),
    (
        "~",
        "not told from noise: p ≥ 0.01, or too few samples to test",
    ),
    ("⚠", "a side has under 100 samples: its shares are noise"),
];

/// Help sections: a title and `(keys, help)` rows, mouse rows in their own section.
pub fn help_sections() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    help_sections_in(false)
}

/// As [`help_sections`]; with `comparing`, the compare-mode rows and the delta table too.
pub fn help_sections_in(comparing: bool) -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    // Graph keys of the analysis tools get a section of their own.
    let rows_where = |mode: Mode, mouse: bool, tools: Option<bool>| {
        rows()
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
        sections.push(("Delta marks", DELTA_MARKS.to_vec()));
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
            Mode::Source,
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
        for (i, a) in rows().enumerate() {
            for b in rows().skip(i + 1).filter(|b| b.mode == a.mode) {
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
        let marks = &help.iter().find(|(t, _)| *t == "Delta marks").unwrap().1;
        let marks: Vec<_> = marks.iter().map(|(k, _)| *k).collect();
        assert_eq!(marks, ["*", "~", "⚠"]);
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
        assert_eq!(sections.len(), 12);
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
