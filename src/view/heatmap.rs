//! Stage: heat map → screen cells (pure). The cells of a [`HeatMap`] are laid out on the
//! terminal: one column per `per_col` seconds of the recording, and the rows of a second
//! (offsets within it) downwards, two rows a line with half blocks. A recording longer
//! than the screen is wide gets several seconds a column (their counts add up); zooming
//! the time scale changes `per_col` and the first second shown. Which cells a time range
//! covers and what time a cell stands for are answered here, so the app and the widget
//! agree on them.

use crate::profile::heatmap::{Cell, HeatMap};

/// Nanoseconds in a second.
pub const SECOND: u64 = 1_000_000_000;

/// Width of the offsets on the left of the map (`980ms`).
pub const GUTTER: u16 = 6;

/// Lines the heat map takes besides its cells: legend, time axis, cursor line.
pub const CHROME_LINES: u16 = 3;

/// Row sizes offered, finest first, in milliseconds (each divides a second).
pub const ROW_SIZES_MS: [u64; 8] = [20, 25, 40, 50, 100, 125, 200, 500];

/// The finest row size (ns) whose rows of a second fit in `lines` terminal lines at
/// `per_line` rows a line (2 with half blocks).
pub fn row_ns_for(lines: u16, per_line: u16) -> u64 {
    let fits = u64::from(lines) * u64::from(per_line.max(1));
    ROW_SIZES_MS
        .iter()
        .map(|ms| ms * 1_000_000)
        .find(|&ns| SECOND / ns <= fits)
        .unwrap_or(SECOND)
}

/// Which seconds the columns show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeScale {
    /// Seconds per column (at least 1).
    pub per_col: u64,
    /// The second (from the first sample) of the leftmost column.
    pub first: u64,
}

impl TimeScale {
    /// The whole recording of `seconds` columns' worth in `cols` columns.
    pub fn fit(seconds: u64, cols: u16) -> Self {
        Self {
            per_col: seconds.div_ceil(u64::from(cols.max(1))).max(1),
            first: 0,
        }
    }

    /// The column of `second`, if it is on screen.
    pub fn column(&self, second: u64, cols: u16) -> Option<u16> {
        let c = second.checked_sub(self.first)? / self.per_col;
        u16::try_from(c).ok().filter(|&c| c < cols)
    }

    /// The first second of column `col`.
    pub fn second(&self, col: u16) -> u64 {
        self.first + u64::from(col) * self.per_col
    }

    /// Twice finer (`per_col` halved), keeping `at` (a second) in the same column if it
    /// can; `None` at one second a column.
    #[must_use]
    pub fn zoom_in(&self, at: u64) -> Option<Self> {
        (self.per_col > 1).then(|| self.rezoom(self.per_col / 2, at))
    }

    /// Twice coarser, up to showing all `seconds` from the start; `None` when all of it
    /// already fits in `cols`.
    #[must_use]
    pub fn zoom_out(&self, at: u64, seconds: u64, cols: u16) -> Option<Self> {
        let whole = Self::fit(seconds, cols);
        if self.per_col >= whole.per_col && self.first == 0 {
            return None;
        }
        Some(self.rezoom((self.per_col * 2).min(whole.per_col), at))
    }

    fn rezoom(&self, per_col: u64, at: u64) -> Self {
        let col = at.saturating_sub(self.first) / self.per_col;
        let first = at.saturating_sub(col * per_col);
        Self {
            per_col,
            first: first - first % per_col,
        }
    }
}

/// Terminal columns a column of cells takes so that `cols` of them span `width`: a
/// short recording fills the screen's width, however wide.
pub fn column_width(width: u16, cols: u16) -> u16 {
    (width / cols.max(1)).max(1)
}

/// Sample counts of the cells on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// Columns shown.
    pub cols: u16,
    /// Rows a second.
    pub rows: u32,
    /// Nanoseconds a row covers.
    pub row_ns: u64,
    /// The seconds of the columns.
    pub scale: TimeScale,
    /// Counts, column after column (`col × rows + row`).
    pub counts: Vec<u64>,
    /// The largest count shown (the top of the colour ramp).
    pub max: u64,
    /// Terminal columns a column of cells takes (a short recording is drawn wider).
    pub col_width: u16,
}

impl Grid {
    /// Lays out `map` on `cols` columns at `scale`.
    pub fn new(map: &HeatMap, scale: TimeScale, cols: u16) -> Self {
        let rows = map.rows.max(1);
        let mut counts = vec![0u64; usize::from(cols) * rows as usize];
        add_cells(&mut counts, &map.cells, scale, cols, rows);
        let max = counts.iter().copied().max().unwrap_or(0);
        Self {
            cols,
            rows,
            row_ns: map.row_ns,
            scale,
            counts,
            max,
            col_width: 1,
        }
    }

    /// Lays out `map` in `width` terminal columns: as many columns of cells as the
    /// recording needs from `scale.first` on (at most `width`), each as wide as spans the
    /// width (see [`column_width`]).
    pub fn fitted(map: &HeatMap, scale: TimeScale, width: u16) -> Self {
        let needed = map
            .seconds
            .saturating_sub(scale.first)
            .div_ceil(scale.per_col)
            .max(1);
        let cols = u16::try_from(needed).unwrap_or(u16::MAX).min(width.max(1));
        let mut grid = Self::new(map, scale, cols);
        grid.col_width = column_width(width, cols);
        grid
    }

    /// The column of cells at terminal column offset `dx` from the grid's left edge.
    pub fn column_at(&self, dx: u16) -> Option<u16> {
        let c = dx / self.col_width.max(1);
        (c < self.cols).then_some(c)
    }

    /// The count of cell (`col`, `row`).
    pub fn count(&self, col: u16, row: u32) -> u64 {
        self.counts
            .get(usize::from(col) * self.rows as usize + row as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The time (ns from the first sample) where cell (`col`, `row`) starts: its offset
    /// in the column's first second.
    pub fn start(&self, col: u16, row: u32) -> u64 {
        self.scale.second(col) * SECOND + u64::from(row) * self.row_ns
    }

    /// True when the time range `[start, end)` (ns from the first sample) holds part of
    /// cell (`col`, `row`) in any of the column's seconds.
    pub fn in_range(&self, col: u16, row: u32, (start, end): (u64, u64)) -> bool {
        let offset = u64::from(row) * self.row_ns;
        (0..self.scale.per_col).any(|k| {
            let t0 = (self.scale.second(col) + k) * SECOND + offset;
            let t1 = (t0 + self.row_ns).min((self.scale.second(col) + k + 1) * SECOND);
            t0 < end && start < t1
        })
    }
}

/// Counts of other cells laid out the same way (search matches on the same grid).
pub fn counts_of(cells: &[Cell], grid: &Grid) -> Vec<u64> {
    let mut counts = vec![0u64; grid.counts.len()];
    add_cells(&mut counts, cells, grid.scale, grid.cols, grid.rows);
    counts
}

fn add_cells(counts: &mut [u64], cells: &[Cell], scale: TimeScale, cols: u16, rows: u32) {
    for c in cells {
        if let Some(col) = scale.column(c.second, cols)
            && c.row < rows
        {
            let i = usize::from(col) * rows as usize + c.row as usize;
            counts[i] = counts[i].saturating_add(c.samples);
        }
    }
}

/// The colour level of `count` on a ramp of `levels` steps above empty: 0 only for an
/// empty cell, then in proportion to `max` (a cell with one sample is never shown
/// empty).
pub fn level(count: u64, max: u64, levels: u8) -> u8 {
    if count == 0 || max == 0 || levels == 0 {
        return 0;
    }
    let scaled = (u128::from(count) * u128::from(levels)).div_ceil(u128::from(max));
    u8::try_from(scaled.clamp(1, u128::from(levels))).unwrap_or(levels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(cells: &[(u64, u32, u64)]) -> HeatMap {
        HeatMap {
            row_ns: 20_000_000,
            rows: 50,
            seconds: cells.iter().map(|c| c.0 + 1).max().unwrap_or(0),
            cells: cells
                .iter()
                .map(|&(second, row, samples)| Cell {
                    second,
                    row,
                    samples,
                })
                .collect(),
        }
    }

    #[test]
    fn row_sizes_fit_the_lines() {
        assert_eq!(row_ns_for(25, 2), 20_000_000);
        assert_eq!(row_ns_for(24, 2), 25_000_000);
        assert_eq!(row_ns_for(13, 2), 40_000_000);
        assert_eq!(row_ns_for(10, 2), 50_000_000);
        assert_eq!(row_ns_for(1, 1), 1_000_000_000);
    }

    #[test]
    fn short_recordings_span_the_width() {
        // Five seconds, one column each, beside the gutter.
        let m = map(&[(0, 0, 1), (4, 49, 1)]);
        let scale = TimeScale::fit(m.seconds, 80 - GUTTER);
        let g = Grid::fitted(&m, scale, 80 - GUTTER);
        assert_eq!((g.cols, g.col_width), (5, 14));
        let g = Grid::fitted(&m, TimeScale::fit(m.seconds, 194), 200 - GUTTER);
        assert_eq!((g.cols, g.col_width), (5, 38));
        assert_eq!(g.column_at(189), Some(4));
        assert_eq!(g.column_at(190), None);
        assert_eq!(column_width(10, 0), 10);
        assert_eq!(column_width(3, 5), 1);
    }

    #[test]
    fn long_recordings_fold_seconds_into_columns() {
        let m = map(&[(0, 0, 1), (1, 0, 2), (2, 0, 4), (199, 49, 3)]);
        let scale = TimeScale::fit(m.seconds, 100);
        assert_eq!(scale.per_col, 2);
        let g = Grid::new(&m, scale, 100);
        assert_eq!(g.count(0, 0), 3);
        assert_eq!(g.count(1, 0), 4);
        assert_eq!(g.count(99, 49), 3);
        assert_eq!(g.max, 4);
        assert_eq!(g.counts.iter().sum::<u64>(), 10, "no sample lost");
        assert_eq!(g.start(1, 25), 2 * SECOND + 500_000_000);
    }

    #[test]
    fn zooming_keeps_the_second_under_the_cursor() {
        let whole = TimeScale::fit(400, 100);
        assert_eq!(whole.per_col, 4);
        let z = whole.zoom_in(200).unwrap();
        assert_eq!(z.per_col, 2);
        assert_eq!(z.column(200, 100), whole.column(200, 100));
        let z = z.zoom_in(200).unwrap();
        assert_eq!(z.per_col, 1);
        assert!(z.zoom_in(200).is_none());
        assert!(z.column(200, 100).is_some());
        let back = z.zoom_out(200, 400, 100).unwrap();
        assert_eq!(back.per_col, 2);
        let back = back.zoom_out(200, 400, 100).unwrap();
        assert_eq!(back.per_col, 4);
        assert!(TimeScale::fit(400, 100).zoom_out(200, 400, 100).is_none());
    }

    #[test]
    fn ranges_cover_the_cells_they_touch() {
        let g = Grid::new(&map(&[(37, 10, 1)]), TimeScale::fit(40, 80), 80);
        let range = (37 * SECOND + 200_000_000, 37 * SECOND + 400_000_000);
        assert!(!g.in_range(37, 9, range));
        assert!(g.in_range(37, 10, range));
        assert!(g.in_range(37, 19, range));
        assert!(!g.in_range(37, 20, range));
        assert!(!g.in_range(36, 15, range));
    }

    #[test]
    fn levels_are_proportional_and_never_hide_a_sample() {
        assert_eq!(level(0, 100, 6), 0);
        assert_eq!(level(1, 100, 6), 1);
        assert_eq!(level(100, 100, 6), 6);
        assert_eq!(level(50, 100, 6), 3);
        assert_eq!(level(51, 100, 6), 4);
        assert_eq!(level(7, 0, 6), 0);
    }
}
