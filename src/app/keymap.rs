//! Stage: application state — the keymap as data. One table drives key handling, the footer
//! hints and the `?` help overlay, so the three never disagree. A new key is one row here,
//! one [`Action`] and one `update` arm.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, Dir};
use super::mode::Mode;

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
}

macro_rules! bind {
    ($mode:ident, [$($k:expr),*], $action:expr, $label:expr, $help:expr, $hint:expr) => {
        Binding {
            mode: Mode::$mode,
            keys: &[$($k),*],
            action: $action,
            label: $label,
            help: $help,
            hint: $hint,
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
        [ch('f')],
        Some(Action::Flip),
        "f",
        "flame / icicle",
        Some(("f", "flip"))
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
        "delete a character",
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
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    let bound = KEYMAP
        .iter()
        .filter(|b| b.mode == mode)
        .find(|b| b.keys.iter().any(|k| k.matches(ev)))
        .and_then(|b| b.action.clone());
    if bound.is_some() {
        return bound;
    }
    match ev.code {
        KeyCode::Char(c)
            if mode == Mode::Search
                && !ev
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(Action::SearchType(c))
        }
        _ => None,
    }
}

/// Footer hints of a mode: `(keys, word)`.
pub fn hints(mode: Mode) -> impl Iterator<Item = (&'static str, &'static str)> {
    KEYMAP
        .iter()
        .filter(move |b| b.mode == mode)
        .filter_map(|b| b.hint)
}

/// Help sections: a title and `(keys, help)` rows, mouse rows in their own section.
pub fn help_sections() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let rows = |mode: Mode, mouse: bool| -> Vec<(&'static str, &'static str)> {
        KEYMAP
            .iter()
            .filter(|b| b.mode == mode && !b.label.is_empty() && b.keys.is_empty() == mouse)
            .map(|b| (b.label, b.help))
            .collect()
    };
    vec![
        (Mode::Normal.title(), rows(Mode::Normal, false)),
        ("Mouse", rows(Mode::Normal, true)),
        (Mode::Search.title(), rows(Mode::Search, false)),
    ]
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
        let x = press(KeyCode::Char('x'), KeyModifiers::NONE);
        assert!(action_for(Mode::Normal, &x).is_none());
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
        let hints: Vec<_> = hints(Mode::Normal).map(|(_, h)| h).collect();
        assert!(hints.contains(&"zoom") && hints.contains(&"quit"));
        let sections = help_sections();
        assert_eq!(sections.len(), 3);
        assert!(sections[1].1.iter().any(|(k, _)| *k == "double-click"));
        assert!(sections[0].1.iter().all(|(k, _)| !k.is_empty()));
    }
}
