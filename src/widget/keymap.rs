//! The graph's keys as data the host may change, and the actions they stand for.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::mode::Dir;

/// What a key does in the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Move the selection.
    Move(Dir),
    /// Zoom into the selected frame.
    ZoomIn,
    /// Back to the previous zoom.
    Back,
    /// Forward again after [`Action::Back`].
    Forward,
    /// The whole graph again.
    Reset,
    /// Root at the bottom or at the top.
    Flip,
    /// Next (or, `false`, previous) match of the search.
    NextMatch(bool),
    /// Scroll by rows (negative: up).
    Scroll(i32),
}

/// Keys of the graph, which the host may change: [`KeyMap::unbind`] gives a key back to
/// the host, [`KeyMap::bind`] adds one.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<(KeyCode, KeyModifiers, Action)>,
}

impl Default for KeyMap {
    /// The viewer's graph keys: arrows and `hjkl` move, Enter zooms, Backspace goes back,
    /// `]` forward, `0` resets, `f` flips, `n`/`N` walk the matches, PageUp/PageDown scroll.
    fn default() -> Self {
        let none = KeyModifiers::NONE;
        let shift = KeyModifiers::SHIFT;
        let b = |code, mods, action| (code, mods, action);
        Self {
            bindings: vec![
                b(KeyCode::Up, none, Action::Move(Dir::Up)),
                b(KeyCode::Down, none, Action::Move(Dir::Down)),
                b(KeyCode::Left, none, Action::Move(Dir::Left)),
                b(KeyCode::Right, none, Action::Move(Dir::Right)),
                b(KeyCode::Char('k'), none, Action::Move(Dir::Up)),
                b(KeyCode::Char('j'), none, Action::Move(Dir::Down)),
                b(KeyCode::Char('h'), none, Action::Move(Dir::Left)),
                b(KeyCode::Char('l'), none, Action::Move(Dir::Right)),
                b(KeyCode::Enter, none, Action::ZoomIn),
                b(KeyCode::Backspace, none, Action::Back),
                b(KeyCode::Char(']'), none, Action::Forward),
                b(KeyCode::Char('0'), none, Action::Reset),
                b(KeyCode::Char('f'), none, Action::Flip),
                b(KeyCode::Char('n'), none, Action::NextMatch(true)),
                b(KeyCode::Char('N'), shift, Action::NextMatch(false)),
                b(KeyCode::Char('N'), none, Action::NextMatch(false)),
                b(KeyCode::PageUp, none, Action::Scroll(-10)),
                b(KeyCode::PageDown, none, Action::Scroll(10)),
            ],
        }
    }
}

impl KeyMap {
    /// The action of a key, if it has one.
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        self.bindings
            .iter()
            .find(|(code, mods, _)| *code == key.code && *mods == key.modifiers)
            .map(|b| b.2)
    }

    /// Gives `code` (with any modifiers) back to the host: the graph ignores it.
    pub fn unbind(&mut self, code: KeyCode) {
        self.bindings.retain(|b| b.0 != code);
    }

    /// Binds `code` with `modifiers` to `action` (replacing what it did).
    pub fn bind(&mut self, code: KeyCode, modifiers: KeyModifiers, action: Action) {
        self.bindings.retain(|b| !(b.0 == code && b.1 == modifiers));
        self.bindings.push((code, modifiers, action));
    }
}
