//! Stage: application state — the heat map screen (`T`): where its cursor is, the range
//! being marked, the baseline range, and the grid laid out for the screen. The grid is
//! rebuilt from the profile as read (its sample table) whenever the screen is placed, so
//! drawing only reads it. Enter shows the flame graph of the range: a new slice of the
//! view, undone with `u` like a transform.

use std::fmt::Write as _;

use super::Dir;
use super::explorer::Explorer;
use super::transforms::TransformStack;
use crate::profile::Profile;
use crate::profile::group::{Group, regroup};
use crate::profile::heatmap::{density, heat_map, heat_map_of, under_marked};
use crate::profile::slice::{Slice, range_label, seconds};
use crate::view::heatmap::{CHROME_LINES, GUTTER, Grid, TimeScale, counts_of, row_ns_for};

/// The heat map screen.
#[derive(Debug, Clone, Default)]
pub struct HeatState {
    /// Seconds per column and the first second shown (`None` until placed: fit to the
    /// screen then).
    pub scale: Option<TimeScale>,
    /// The cursor: column and row.
    pub cursor: (u16, u32),
    /// Where a range being marked starts (ns from the first sample).
    pub mark: Option<u64>,
    /// The range marked: `[start, end)` ns from the first sample.
    pub range: Option<(u64, u64)>,
    /// The range kept as the baseline of a comparison (`b`).
    pub baseline: Option<(u64, u64)>,
    /// The cells on screen.
    pub grid: Option<Grid>,
    /// Matching samples per cell while a search is on.
    pub matches: Option<Vec<u64>>,
    /// The line under the map.
    pub info: String,
}

/// A key of the heat map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatKey {
    /// Move the cursor by a cell.
    Move(Dir),
    /// Finer (`true`) or coarser time scale.
    Zoom(bool),
    /// Start a range at the cursor, or end it there.
    Mark,
    /// Keep the range marked as the baseline.
    Baseline,
    /// Compare the baseline with the range marked.
    Compare,
    /// Show the range marked (or the whole recording) as a flame graph.
    Show,
    /// Show the whole recording (the time range dropped, undoable).
    Whole,
}

impl HeatState {
    /// The time range the cursor and the pending mark span, or the range marked.
    pub fn shown_range(&self) -> Option<(u64, u64)> {
        match (self.mark, &self.grid) {
            (Some(m), Some(g)) => {
                let (c, r) = self.cursor;
                let here = g.start(c, r);
                Some((m.min(here), m.max(here) + g.row_ns))
            }
            _ => self.range,
        }
    }
}

/// Why a profile has no heat map, if it has none.
pub fn unavailable(original: &Profile) -> Option<&'static str> {
    if original.samples.is_empty() {
        Some("No timeline: this input has no timestamps (perf script input has them)")
    } else if original.stats.format == Some(crate::profile::Format::Pprof) {
        Some("No timeline: pprof samples carry no times (a profile sums them over its duration)")
    } else if !original.samples.has_timeline() {
        Some("No timeline: perf script printed no time field (perf script -F +time)")
    } else {
        None
    }
}

/// The timeline strip of the graph view: samples per column over the whole recording
/// (of the view's tasks), and the range shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Strip {
    /// Terminal columns it was made for.
    pub width: u16,
    /// The task set it counts.
    pub tasks: Option<std::collections::BTreeSet<crate::profile::samples::TaskId>>,
    /// The samples it counts (a streamed input grows).
    pub samples: usize,
    /// Nanoseconds of recording the strip spans (its duration plus one).
    pub span: u64,
    /// Samples per column.
    pub counts: Vec<u64>,
}

/// Width of the strip's label (` time `).
pub const STRIP_LABEL: u16 = 6;

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
        let area = self.areas.graph;
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
        // The app does it: it replaces the explorer (see `compare_ranges`).
        HeatKey::Compare => {}
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

/// The profile of `range` of the recording `original` (for the view's tasks, its towers
/// grouped as the view's), named after it: `perf.txt [37.20–37.40 s]`.
fn range_profile(original: &Profile, range: (u64, u64), tasks: &Slice, group: Group) -> Profile {
    let slice = Slice {
        range: Some(range),
        tasks: tasks.tasks.clone(),
    };
    Profile {
        metrics: crate::profile::metrics::Metrics::default(),
        source: format!("{} [{}]", original.source, range_label(range)),
        tree: regroup(&original.tree, &original.samples, &slice, group),
        stats: original.stats.clone(),
        samples: std::sync::Arc::default(),
    }
}

/// Opens compare mode on the baseline range (BEFORE) and the range marked (AFTER) of the
/// explorer's recording, normalised by their totals as any comparison; `T` comes back.
///
/// # Errors
/// No explorer, no baseline or no range marked.
pub fn compare_ranges(app: &mut super::App) -> Result<(), String> {
    let super::Phase::Ready(ex) = &app.phase else {
        return Err("Not while comparing".to_owned());
    };
    let heat = ex
        .tools
        .heat
        .as_ref()
        .ok_or("Open the heat map first (T)")?;
    let after = heat
        .shown_range()
        .ok_or("Mark a range to compare with the baseline (space, move, space)")?;
    let before = heat
        .baseline
        .ok_or("Mark the baseline range first: mark a range, then b")?;
    let original = std::sync::Arc::clone(ex.original_shared());
    let tasks = app.view.slice.clone();
    let pair = (
        range_profile(&original, before, &tasks, app.view.group),
        range_profile(&original, after, &tasks, app.view.group),
    );
    app.source = format!("{} → {}", pair.0.source, pair.1.source);
    let mut cmp = super::compare::Compare::new(pair.0, pair.1);
    // Both sides are slices already, grouped: the view keeps its transforms but not its
    // slice and grouping.
    let mut view = app.view.clone();
    view.slice = Slice::default();
    view.group = Group::default();
    let home_view = std::mem::replace(&mut app.view, view);
    let super::Phase::Ready(explorer) = std::mem::replace(
        &mut app.phase,
        super::Phase::Loading(super::Progress::default()),
    ) else {
        return Ok(());
    };
    cmp.home = Some(super::compare::Home {
        explorer,
        view: home_view,
    });
    cmp.before.tools.message = Some("Two ranges compared · T goes back to the heat map".to_owned());
    app.phase = super::Phase::Compare(Box::new(cmp));
    app.mode = super::Mode::Normal;
    Ok(())
}

/// Back from a comparison of two ranges to the recording's heat map.
pub fn go_home(app: &mut super::App) -> bool {
    let super::Phase::Compare(cmp) = &mut app.phase else {
        return false;
    };
    let Some(home) = cmp.home.take() else {
        return false;
    };
    app.source.clone_from(&home.explorer.profile.source);
    app.view = home.view;
    app.phase = super::Phase::Ready(home.explorer);
    app.mode = super::Mode::Heat;
    true
}
