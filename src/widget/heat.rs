//! The heat map of a [`FlameState`]'s recording as a widget: samples per time cell (columns
//! of seconds, rows of their parts), a cursor, a range to mark; Enter shows the range in
//! the graph, `a` the whole recording again.

use crossterm::event::{Event, KeyCode, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, StatefulWidget, Widget};

use super::{FlameState, Outcome};
use crate::app::heat::state::HeatKey;
use crate::app::mode::Dir;
use crate::view::color::ColorMode;

/// The heat map over a [`FlameState`] ([`FlameState::handle_heat_event`] for its keys).
#[derive(Debug, Clone)]
pub struct HeatMap {
    colors: ColorMode,
}

impl Default for HeatMap {
    fn default() -> Self {
        Self {
            colors: ColorMode::TrueColor,
        }
    }
}

impl HeatMap {
    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for HeatMap {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let ex = &mut state.explorer;
        // A profile without times has no heat map: it says why, in the area.
        if let Some(why) = crate::app::heat::unavailable(ex.original()) {
            Paragraph::new(why).render(area, buf);
            return;
        }
        ex.tools.heat.get_or_insert_with(Default::default);
        ex.place_heat_in(area);
        if let Some(heat) = &ex.tools.heat
            && let Some(grid) = &heat.grid
        {
            let marks = crate::ui::heatmap::Marks {
                cursor: heat.cursor,
                range: heat.shown_range(),
                matches: heat.matches.as_deref(),
                info: &heat.info,
            };
            crate::ui::heatmap::render(grid, &marks, self.colors, area, buf);
        }
    }
}

impl FlameState {
    /// Handles a key of the [`HeatMap`]: arrows move the cursor, `+`/`-` change the time
    /// scale, Space starts a range and ends it, Enter shows the range (or the cell under
    /// the cursor's mark) in the graph, `a` the whole recording again. A key that cannot be
    /// done says why ([`Outcome::Refused`]); other events are [`Outcome::Ignored`].
    pub fn handle_heat_event(&mut self, event: &Event) -> Outcome {
        let Event::Key(key) = event else {
            return Outcome::Ignored;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Ignored;
        }
        let k = match key.code {
            KeyCode::Left => HeatKey::Move(Dir::Left),
            KeyCode::Right => HeatKey::Move(Dir::Right),
            KeyCode::Up => HeatKey::Move(Dir::Up),
            KeyCode::Down => HeatKey::Move(Dir::Down),
            KeyCode::Char('+' | '=') => HeatKey::Zoom(true),
            KeyCode::Char('-') => HeatKey::Zoom(false),
            KeyCode::Char(' ') => HeatKey::Mark,
            KeyCode::Enter => HeatKey::Show,
            KeyCode::Char('a') => HeatKey::Whole,
            _ => return Outcome::Ignored,
        };
        let seconds = crate::app::heat::state::seconds_total(self.explorer.original());
        let Some(heat) = self.explorer.tools.heat.as_mut() else {
            return Outcome::Ignored;
        };
        match crate::app::heat::key(heat, &mut self.view, k, seconds) {
            Ok(true) => {
                // The graph shows the range: the view of the recording is recomputed.
                self.apply_view();
                Outcome::Changed
            }
            Ok(false) => Outcome::Changed,
            Err(why) => Outcome::Refused(why),
        }
    }

    /// The time range the graph shows (ns from the recording's first sample), if not the
    /// whole recording.
    pub fn time_range(&self) -> Option<(u64, u64)> {
        self.view.slice.range
    }
}
