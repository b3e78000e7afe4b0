//! The task list of a [`FlameState`]'s recording as a widget: the processes and threads
//! that ran in the time shown, with their samples and share; Enter shows only the marked
//! ones (or the selected one) in the graph, `a` every task again.

use std::collections::BTreeSet;

use crossterm::event::{Event, KeyCode, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, StatefulWidget, Widget};

use super::{FlameState, Outcome};
use crate::app::mode::Mode;
use crate::app::tasks::state::TaskKey;
use crate::view::color::ColorMode;

/// The task list over a [`FlameState`] ([`FlameState::handle_tasks_event`] for its keys).
#[derive(Debug, Clone)]
pub struct TaskList {
    colors: ColorMode,
}

impl Default for TaskList {
    fn default() -> Self {
        Self {
            colors: ColorMode::TrueColor,
        }
    }
}

impl TaskList {
    /// The colours.
    #[must_use]
    pub fn colors(mut self, colors: ColorMode) -> Self {
        self.colors = colors;
        self
    }
}

impl StatefulWidget for TaskList {
    type State = FlameState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FlameState) {
        let area = area.intersection(buf.area);
        let original = std::sync::Arc::clone(state.explorer.original_shared());
        // A profile without tasks (folded stacks) says why, in the area.
        if let Some(why) = crate::app::tasks::state::unavailable(&original) {
            Paragraph::new(why).render(area, buf);
            return;
        }
        let range = state.view.slice.range;
        let grouping = state.view.group.describe();
        let t = &mut state.explorer.tools.tasks;
        t.sync(&original, range);
        let rows = area.height.saturating_sub(t.chrome());
        t.place(usize::from(rows), grouping);
        crate::ui::tasks::render_in(&state.explorer, area, Mode::Tasks, self.colors, buf);
    }
}

impl FlameState {
    /// Handles a key of the [`TaskList`]: ↑/↓ move, Space marks a task (or a process with
    /// its threads), Enter shows only the marked tasks (else the selected one) in the
    /// graph, `a` every task again. A key that cannot be done says why
    /// ([`Outcome::Refused`]); other events are [`Outcome::Ignored`].
    pub fn handle_tasks_event(&mut self, event: &Event) -> Outcome {
        let Event::Key(key) = event else {
            return Outcome::Ignored;
        };
        if key.kind == KeyEventKind::Release {
            return Outcome::Ignored;
        }
        // The viewer's own task keys; the mode they set is the viewer's, not ours.
        let mut mode = Mode::Tasks;
        let t = &mut self.explorer.tools.tasks;
        match key.code {
            KeyCode::Up | KeyCode::Down => {
                let by = if key.code == KeyCode::Up { -1 } else { 1 };
                t.selected = crate::app::list::step(t.selected, by, t.rows.len());
            }
            KeyCode::Char(' ') => {
                crate::app::tasks::key(
                    &mut self.explorer,
                    &mut mode,
                    &mut self.view,
                    TaskKey::Mark,
                );
            }
            KeyCode::Enter => {
                if let Err(why) = crate::app::tasks::show(&mut self.explorer, &mut self.view) {
                    return Outcome::Refused(why);
                }
                self.apply_view();
            }
            KeyCode::Char('a') => {
                crate::app::tasks::key(&mut self.explorer, &mut mode, &mut self.view, TaskKey::All);
                self.apply_view();
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Changed
    }

    /// The tasks the graph shows, if not all of them.
    pub fn shown_tasks(&self) -> Option<&BTreeSet<crate::profile::TaskId>> {
        self.view.slice.tasks.as_ref()
    }
}
