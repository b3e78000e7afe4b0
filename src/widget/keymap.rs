//! The graph's keys as data the host may change, and the actions they stand for. The
//! default keys are the full-screen viewer's graph keys, read from its keymap table (the
//! one that feeds its footer and help), and an action does what the viewer does with it:
//! the viewer applies its graph actions through [`perform`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::action::Action as ViewerAction;
use crate::app::explorer::Explorer;
use crate::app::graph_keys::GRAPH;
use crate::app::keys::Key;
use crate::app::mode::{Dir, Mode};

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
    /// Scroll a page down (`true`) or up.
    Page(bool),
    /// Scroll to the top (`true`) or the bottom row of the graph.
    Edge(bool),
}

impl Action {
    /// The graph action the viewer's `action` is, if it is one.
    pub(crate) fn of(action: &ViewerAction) -> Option<Self> {
        Some(match *action {
            ViewerAction::Move(dir) => Self::Move(dir),
            ViewerAction::Zoom => Self::ZoomIn,
            ViewerAction::Back => Self::Back,
            ViewerAction::Forward => Self::Forward,
            ViewerAction::Reset => Self::Reset,
            ViewerAction::Flip => Self::Flip,
            ViewerAction::NextMatch => Self::NextMatch(true),
            ViewerAction::PrevMatch => Self::NextMatch(false),
            ViewerAction::Scroll(rows) => Self::Scroll(rows),
            ViewerAction::PageUp => Self::Page(false),
            ViewerAction::PageDown => Self::Page(true),
            ViewerAction::Top => Self::Edge(true),
            ViewerAction::Bottom => Self::Edge(false),
            _ => return None,
        })
    }
}

/// Does `action` to the graph of `ex`: what a [`FlameState`](super::FlameState) does with
/// a key, and what the viewer does with the same key on its graph screen.
pub(crate) fn perform(ex: &mut Explorer, action: Action) {
    match action {
        Action::Move(dir) => ex.move_selection(dir),
        Action::ZoomIn => ex.zoom_in(),
        Action::Back => ex.back(),
        Action::Forward => ex.forward(),
        Action::Reset => ex.reset(),
        Action::Flip => ex.flame = !ex.flame,
        Action::NextMatch(forward) => ex.jump(forward),
        Action::Scroll(rows) => ex.scroll_rows(rows),
        Action::Page(down) => ex.page(down),
        Action::Edge(top) => ex.scroll_edge(top),
    }
}

/// Keys of the graph, which the host may change: [`KeyMap::unbind`] gives a key back to
/// the host, [`KeyMap::bind`] adds one. A character key matches with or without Shift
/// (`N` is `N`), as in the viewer.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<(Key, Action)>,
}

impl Default for KeyMap {
    /// The viewer's graph keys: arrows and `hjkl` move, Enter zooms, Backspace or `[` goes
    /// back, `]` forward, `0` resets, `f` flips, `n`/`N` walk the matches, PageUp/PageDown
    /// (Ctrl-B/Ctrl-F) scroll a page, Home/End (`g`/`G`) to the top and the bottom.
    fn default() -> Self {
        let bindings = GRAPH
            .iter()
            .filter(|row| row.mode == Mode::Normal && !row.compare)
            .filter_map(|row| Some((row, Action::of(row.action.as_ref()?)?)))
            .flat_map(|(row, action)| row.keys.iter().map(move |&k| (k, action)))
            .collect();
        Self { bindings }
    }
}

impl KeyMap {
    /// The action of a key, if it has one.
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        self.bindings
            .iter()
            .find(|(k, _)| k.matches(key))
            .map(|b| b.1)
    }

    /// Gives `code` (with any modifiers) back to the host: the graph ignores it.
    pub fn unbind(&mut self, code: KeyCode) {
        self.bindings.retain(|b| b.0.code != code);
    }

    /// Binds `code` with `modifiers` to `action` (replacing what it did); Shift is
    /// ignored for a character.
    pub fn bind(&mut self, code: KeyCode, modifiers: KeyModifiers, action: Action) {
        let key = Key::of(code, modifiers);
        self.bindings.retain(|b| b.0 != key);
        self.bindings.push((key, action));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every graph key of the viewer's table is a key of the widget, doing the same.
    #[test]
    fn the_default_keys_are_the_viewers_graph_keys() {
        let map = KeyMap::default();
        let mut seen = 0;
        for row in GRAPH
            .iter()
            .filter(|r| r.mode == Mode::Normal && !r.compare)
        {
            let Some(action) = row.action.as_ref().and_then(Action::of) else {
                continue;
            };
            for k in row.keys {
                let ev = KeyEvent::new(k.code, k.mods);
                assert_eq!(map.action(&ev), Some(action), "{k:?}");
                seen += 1;
            }
        }
        // Arrows and hjkl, Enter, ⌫ and [, ], 0, f, n, N, PgUp/PgDn and Ctrl-B/F, g/G and Home/End.
        assert!(seen >= 20, "{seen}");
        let shifted = KeyEvent::new(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(map.action(&shifted), Some(Action::NextMatch(false)));
        // The viewer's own keys (quit, the other screens) are not the graph's.
        for c in ['q', 't', '/', '?'] {
            let ev = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            assert_eq!(map.action(&ev), None, "{c}");
        }
    }
}
