//! Stage: application state — the heat map screen (`T`): where its cursor is, the range
//! being marked, the baseline range, and the grid laid out for the screen. The grid is
//! rebuilt from the profile as read (its sample table) whenever the screen is placed, so
//! drawing only reads it. Enter shows the flame graph of the range: a new slice of the
//! view, undone with `u` like a transform.

use std::fmt::Write as _;

use super::explorer::Explorer;
use super::mode::Dir;
use super::transforms::state::TransformStack;
use crate::profile::heatmap::{density, heat_map, heat_map_of, under_marked};
use crate::profile::slice::{Slice, range_label, seconds};
use crate::view::heatmap::{CHROME_LINES, GUTTER, Grid, TimeScale, counts_of, row_ns_for};

pub use state::*;

pub mod jump;
pub(crate) mod keys;
pub mod state;

impl Explorer {
    /// Counts the strip's columns for `width` terminal columns, unless they are counted.
    pub(crate) fn place_strip(&mut self, width: u16) {
        let tasks = self.tools.applied.slice.tasks.clone();
        let cols = width.saturating_sub(STRIP_LABEL);
        let original = std::sync::Arc::clone(self.original_shared());
        let samples = original.samples.len();
        let s = &self.tools.strip;
        if s.width == width && s.tasks == tasks && s.samples == samples {
            return;
        }
        let slice = Slice {
            range: None,
            tasks: tasks.clone(),
        };
        self.tools.strip = Strip {
            width,
            tasks,
            samples,
            span: original.samples.duration() + 1,
            counts: density(&original.samples, &slice, cols),
        };
    }

    /// Lays out the heat map for the graph area: row size from its height, columns from
    /// its width, the cells of the view's task set over the whole recording.
    pub(crate) fn place_heat(&mut self) {
        self.place_heat_in(self.areas.graph);
    }

    /// Builds the heat map's grid for `area` (the library's widget gives its own).
    pub(crate) fn place_heat_in(&mut self, area: ratatui::layout::Rect) {
        let lines = area.height.saturating_sub(CHROME_LINES);
        let cols = area.width.saturating_sub(GUTTER);
        let original = std::sync::Arc::clone(self.original_shared());
        let tasks = Slice {
            range: None,
            tasks: self.tools.applied.slice.tasks.clone(),
        };
        let Some(heat) = self.tools.heat.as_mut() else {
            return;
        };
        // Two rows a line (half blocks; without colour, one glyph for both).
        let row_ns = row_ns_for(lines, 2);
        let map = heat_map(&original.samples, &tasks, row_ns);
        let scale = *heat
            .scale
            .get_or_insert_with(|| TimeScale::fit(map.seconds, cols));
        let grid = Grid::fitted(&map, scale, cols);
        heat.cursor.0 = heat.cursor.0.min(cols.saturating_sub(1));
        heat.cursor.1 = heat.cursor.1.min(grid.rows.saturating_sub(1));
        heat.matches = self.search.matches.as_ref().map(|m| {
            let leaves = under_marked(&original.tree, |id| {
                m.name_matches(original.tree.node(id).name)
            });
            counts_of(
                &heat_map_of(&original.samples, &tasks, row_ns, &leaves).cells,
                &grid,
            )
        });
        let (c, r) = heat.cursor;
        let at = grid.start(c, r);
        let n = grid.count(c, r);
        let mut info = format!(
            " cursor {}: {n} sample{}",
            seconds(at),
            if n == 1 { "" } else { "s" }
        );
        if let Some(range) = heat.shown_range() {
            let _ = write!(info, " · range {}", range_label(range));
        }
        if let Some(b) = heat.baseline {
            let _ = write!(info, " · baseline {}", range_label(b));
        }
        info.push_str(if heat.mark.is_some() {
            " · space ends the range"
        } else {
            " · space marks a range · Enter shows it"
        });
        heat.info = info;
        heat.span = original.samples.duration();
        heat.grid = Some(grid);
    }
}

/// Applies a heat map key; true when the graph is to be shown (a new slice, or the
/// whole recording again).
///
/// # Errors
/// What the key cannot do now (no range marked, no finer scale), for the status line.
pub fn key(
    heat: &mut HeatState,
    view: &mut TransformStack,
    key: HeatKey,
    seconds_total: u64,
) -> Result<bool, String> {
    let Some(grid) = heat.grid.as_ref() else {
        return Ok(false);
    };
    match key {
        HeatKey::Move(dir) => {
            let (c, r) = heat.cursor;
            heat.cursor = match dir {
                Dir::Left => (c.saturating_sub(1), r),
                Dir::Right => ((c + 1).min(grid.cols.saturating_sub(1)), r),
                Dir::Up => (c, r.saturating_sub(1)),
                Dir::Down => (c, (r + 1).min(grid.rows.saturating_sub(1))),
            };
        }
        HeatKey::Zoom(finer) => {
            let at = grid.scale.second(heat.cursor.0);
            let next = if finer {
                grid.scale.zoom_in(at)
            } else {
                grid.scale.zoom_out(at, seconds_total, grid.cols)
            };
            let Some(next) = next else {
                return Err(if finer {
                    "Already one second a column".to_owned()
                } else {
                    "The whole recording is on screen".to_owned()
                });
            };
            heat.cursor.0 = next.column(at, grid.cols).unwrap_or(0);
            heat.scale = Some(next);
        }
        HeatKey::Mark => match heat.mark.take() {
            None => {
                let (c, r) = heat.cursor;
                heat.mark = Some(grid.start(c, r));
                heat.range = None;
            }
            Some(m) => {
                let (c, r) = heat.cursor;
                let here = grid.start(c, r);
                heat.range = Some((m.min(here), m.max(here) + grid.row_ns));
            }
        },
        HeatKey::Jump(span, forward) => {
            let by = jump::step_ns(span, heat.span);
            heat.cursor = jump::jump(grid, heat.cursor, by, forward, heat.span);
        }
        // The app does these: it replaces the explorer (see `compare_ranges`), it opens
        // the prompt.
        HeatKey::Compare | HeatKey::Type => {}
        HeatKey::Baseline => {
            let Some(range) = heat.range else {
                return Err("Mark a range first (space, move, space)".to_owned());
            };
            heat.baseline = Some(range);
        }
        HeatKey::Show => {
            let range = heat.shown_range();
            heat.mark = None;
            let Some(range) = range else {
                return Err("Mark a range first (space, move, space), or a shows it all".to_owned());
            };
            let slice = Slice {
                range: Some(range),
                tasks: view.slice.tasks.clone(),
            };
            if slice != view.slice {
                view.set_slice(slice);
            }
            return Ok(true);
        }
        HeatKey::Whole => {
            if view.slice.range.is_some() {
                let slice = Slice {
                    range: None,
                    tasks: view.slice.tasks.clone(),
                };
                view.set_slice(slice);
            }
            heat.range = None;
            heat.mark = None;
            return Ok(true);
        }
    }
    Ok(false)
}

impl HeatState {
    /// Marks the range typed after `:` and puts the cursor at its start.
    ///
    /// # Errors
    /// What is wrong with the text (see [`jump::parse_range`]).
    pub fn type_range(&mut self, text: &str) -> Result<(), String> {
        let range = jump::parse_range(text, self.span)?;
        self.range = Some(range);
        self.mark = None;
        if let Some(grid) = self.grid.as_ref() {
            self.cursor = jump::cell_at(grid, range.0);
        }
        Ok(())
    }
}

/// The mouse on the heat map: a click puts the cursor on a cell, a drag marks the range
/// from where it started to the cell under the mouse, releasing the button ends it.
pub(crate) fn mouse(ex: &mut Explorer, action: &super::Action) {
    use super::Action;
    let g = ex.areas.graph;
    let Some(heat) = ex.tools.heat.as_mut() else {
        return;
    };
    let Some(grid) = heat.grid.as_ref() else {
        return;
    };
    let cell = |x: u16, y: u16| -> Option<(u16, u32)> {
        let col = grid.column_at(x.checked_sub(g.x + GUTTER)?)?;
        let line = y.checked_sub(g.y + 1)?;
        let row = u32::from(line) * 2;
        (row < grid.rows).then_some((col, row))
    };
    match *action {
        Action::Click(x, y) | Action::DoubleClick(x, y) => {
            if let Some(c) = cell(x, y) {
                heat.cursor = c;
                heat.mark = None;
            }
        }
        Action::Drag(x, y) => {
            if let Some(c) = cell(x, y) {
                if heat.mark.is_none() {
                    let (c0, r0) = heat.cursor;
                    heat.mark = Some(grid.start(c0, r0));
                    heat.range = None;
                }
                heat.cursor = c;
            }
        }
        Action::Release(..) => {
            if let Some(m) = heat.mark.take() {
                let (c, r) = heat.cursor;
                let here = grid.start(c, r);
                heat.range = Some((m.min(here), m.max(here) + grid.row_ns));
            }
        }
        _ => {}
    }
}
