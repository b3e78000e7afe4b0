//! The function table as a widget over a [`FlameState`], and its keys.

use crossterm::event::{Event, KeyCode, KeyEventKind, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, StatefulWidget};

use super::{FlameState, Outcome};
use crate::view::Target;
use crate::view::color::ColorMode;

/// The function table of a [`FlameState`]'s profile: every function with its self and
/// total weight, sorted by self (`o` cycles self, total, name), filtered by the state's
/// search. It shares its state with the graph: Enter in the table
/// ([`FlameState::handle_table_event`]) selects the function's heaviest frame there.
#[derive(Debug, Clone)]
pub struct FunctionTable<'a> {
    block: Option<Block<'a>>,
    colors: ColorMode,
}

impl Default for FunctionTable<'_> {
    fn default() -> Self {
        Self {
            block: None,
            colors: ColorMode::TrueColor,
        }
    }
}

impl<'a> FunctionTable<'a> {
    /// Draws `block` around the table.
    #[must_use]
    pub fn block(mut self, block: Block<'a>) -> Self {
        self.block = Some(block);
        self
    }

    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for FunctionTable<'_> {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let inner = super::framed(self.block.as_ref(), area, buf);
        state.table_area = inner;
        let ex = &mut state.explorer;
        ex.sync_table(ex.tools.generation);
        ex.tools
            .table
            .scroll_into_view(usize::from(inner.height.saturating_sub(1)));
        crate::ui::table::render_in(ex, inner, self.colors, buf);
    }
}

impl FlameState {
    /// Handles a key of the [`FunctionTable`]: ↑/↓ (and `k`/`j`), PageUp/PageDown, Home/End
    /// move in it, `o` changes the sort, Enter selects the function's heaviest frame in the
    /// graph ([`Outcome::Selected`]); a click on a row selects it. Other events are
    /// [`Outcome::Ignored`].
    pub fn handle_table_event(&mut self, event: &Event) -> Outcome {
        let page = i32::from(self.table_area.height.saturating_sub(2).max(1));
        let t = &mut self.explorer.tools.table;
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => match key.code {
                KeyCode::Up | KeyCode::Char('k') => t.step(-1),
                KeyCode::Down | KeyCode::Char('j') => t.step(1),
                KeyCode::PageUp => t.step(-page),
                KeyCode::PageDown => t.step(page),
                KeyCode::Home => t.edge(false),
                KeyCode::End => t.edge(true),
                KeyCode::Char('o') => t.sort = t.sort.next(),
                KeyCode::Enter => {
                    let before = self.explorer.selected;
                    let Some(name) = t.current() else {
                        return Outcome::Ignored;
                    };
                    if let Some(id) = self.explorer.index.heaviest(name) {
                        self.explorer.selected = Target::Frame(id);
                        self.settle();
                    }
                    return self.outcome(before);
                }
                _ => return Outcome::Ignored,
            },
            Event::Mouse(m) if matches!(m.kind, MouseEventKind::Down(_)) => {
                let a = self.table_area;
                let inside = m.column >= a.x && m.column < a.right() && m.row > a.y;
                if !inside || m.row >= a.bottom() {
                    return Outcome::Ignored;
                }
                let row = t.offset + usize::from(m.row - a.y - 1);
                if row >= t.len() {
                    return Outcome::Ignored;
                }
                t.selected = row;
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Changed
    }

    /// The function selected in the table, as shown.
    pub fn table_selection(&self) -> Option<String> {
        let t = &self.explorer.tools.table;
        t.current().map(|n| self.explorer.shown(n).to_owned())
    }
}
