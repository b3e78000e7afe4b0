//! Callers and callees of the graph's selected function as a widget over a [`FlameState`].

use crossterm::event::{Event, KeyCode, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;

use super::{FlameState, Outcome};
use crate::app::mode::Dir;
use crate::profile::NodeId;
use crate::view::Target;
use crate::view::color::ColorMode;

/// Callers and callees of the function selected in a [`FlameState`]'s graph, merged over
/// every call (speedscope's sandwich): callers above, callees below. Tab switches pane,
/// arrows move in it ([`FlameState::handle_callers_event`]).
#[derive(Debug, Clone)]
pub struct Callers {
    colors: ColorMode,
}

impl Default for Callers {
    fn default() -> Self {
        Self {
            colors: ColorMode::TrueColor,
        }
    }
}

impl Callers {
    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for Callers {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let ex = &mut state.explorer;
        let name = match ex.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(ex.profile.tree.node(id).name),
            _ => None,
        };
        let tree = &ex.profile.tree;
        let outdated = ex.tools.sandwich.as_ref().map(|s| s.name) != name;
        if outdated {
            ex.tools.sandwich = name.filter(|&n| !tree.names().is_task(n)).map(|n| {
                Box::new(crate::app::sandwich::state::Sandwich::new(
                    tree, &ex.index, n,
                ))
            });
        }
        ex.place_sandwich_in(area);
        crate::ui::sandwich::render(ex, self.colors, buf);
    }
}

impl FlameState {
    /// Handles a key of the [`Callers`] widget: Tab switches between callers and callees,
    /// arrows move in the pane. Other events are [`Outcome::Ignored`].
    pub fn handle_callers_event(&mut self, event: &Event) -> Outcome {
        let Some(s) = self.explorer.tools.sandwich.as_mut() else {
            return Outcome::Ignored;
        };
        let Event::Key(key) = event else {
            return Outcome::Ignored;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Ignored;
        }
        let dir = match key.code {
            KeyCode::Tab => {
                s.focus = 1 - s.focus.min(1);
                return Outcome::Changed;
            }
            KeyCode::Up => Dir::Up,
            KeyCode::Down => Dir::Down,
            KeyCode::Left => Dir::Left,
            KeyCode::Right => Dir::Right,
            _ => return Outcome::Ignored,
        };
        s.focused().step(dir);
        Outcome::Changed
    }

    /// The frame selected in the focused pane of [`Callers`], as shown.
    pub fn callers_selection(&self) -> Option<String> {
        let s = self.explorer.tools.sandwich.as_ref()?;
        s.panes[s.focus.min(1)].selected_name().map(str::to_owned)
    }
}
