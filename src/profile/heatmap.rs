//! Stage: sample table → heat map (`FlameScope`'s subsecond-offset map). Columns are whole
//! seconds from the first sample, rows are offsets within the second (20 ms by default:
//! 50 rows a second), and each cell counts the samples taken in it.
//!
//! Only cells with a sample are kept, in time order (column, then row): the samples are
//! sorted by time, so one pass makes them without a grid, and a recording with a gap of
//! days costs nothing for the gap. A view draws the columns it shows from them.

use std::fmt::Write as _;

use super::samples::{DUMMY_TIME_FROM, SampleTable};
use super::slice::Slice;
use super::tree::{CallTree, NodeId};

/// Nanoseconds in a second.
const SECOND: u64 = 1_000_000_000;

/// The default row: 20 ms.
pub const DEFAULT_ROW_NS: u64 = 20_000_000;

/// One cell with samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Seconds from the first sample (the column).
    pub second: u64,
    /// Row within the second: its offset is `row × row_ns`.
    pub row: u32,
    /// Samples taken in the cell.
    pub samples: u64,
}

/// The cells of a heat map that hold samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatMap {
    /// Nanoseconds a row covers (the last row of a second may be shorter when it does not
    /// divide a second).
    pub row_ns: u64,
    /// Rows per second (column).
    pub rows: u32,
    /// Columns from the first sample's second to the last's.
    pub seconds: u64,
    /// Cells with at least one sample, by column then row.
    pub cells: Vec<Cell>,
}

impl HeatMap {
    /// The largest count of a cell (0 when empty), the top of a colour ramp.
    pub fn max(&self) -> u64 {
        self.cells.iter().map(|c| c.samples).max().unwrap_or(0)
    }

    /// `second,offset_ms,samples` lines with a header, one per cell with samples (the
    /// `--heatmap csv` output). Offsets are exact milliseconds, with decimals when the
    /// row size has them.
    pub fn csv(&self) -> String {
        let mut out = String::from("second,offset_ms,samples\n");
        for c in &self.cells {
            let offset = u64::from(c.row) * self.row_ns;
            let ms = super::tree::format_scaled(offset, 6);
            let _ = writeln!(out, "{},{ms},{}", c.second, c.samples);
        }
        out
    }
}

/// The heat map of the samples of `slice`, with rows of `row_ns` nanoseconds (at least 1,
/// at most a second). Columns count from the first sample of the whole table, whatever
/// the slice's range, so that a range keeps its place in the recording. An empty map for
/// a table without a timeline.
pub fn heat_map(table: &SampleTable, slice: &Slice, row_ns: u64) -> HeatMap {
    heat_map_where(table, slice, row_ns, |_| true)
}

/// As [`heat_map`], counting only the samples whose stack ends in a node `leaves` marks
/// (indexed by `NodeId`; see [`under_marked`]): where a searched function ran.
pub fn heat_map_of(table: &SampleTable, slice: &Slice, row_ns: u64, leaves: &[bool]) -> HeatMap {
    heat_map_where(table, slice, row_ns, |leaf| {
        leaves.get(leaf.0 as usize).copied().unwrap_or(false)
    })
}

/// For every node of `tree`, whether it or one of its callers is marked by `mark`: the
/// leaves of the samples that have a marked frame on their stack. One pass in id order
/// (callers come first).
pub fn under_marked(tree: &CallTree, mut mark: impl FnMut(NodeId) -> bool) -> Vec<bool> {
    let mut out = vec![false; tree.len()];
    for id in tree.ids().skip(1) {
        let i = id.0 as usize;
        out[i] = tree.parent(id).is_some_and(|p| out[p.0 as usize]) || mark(id);
    }
    out
}

/// Samples of `slice` in `bins` equal spans of the whole recording (the timeline strip):
/// bin `i` holds the samples taken in `[i, i + 1) × span / bins` from the first sample,
/// `span` being the recording's duration plus a nanosecond (the last sample counts).
pub fn density(table: &SampleTable, slice: &Slice, bins: u16) -> Vec<u64> {
    let mut out = vec![0u64; usize::from(bins)];
    if bins == 0 || !table.has_timeline() {
        return out;
    }
    let origin = table.first_time();
    let span = u128::from(table.duration()) + 1;
    for s in slice.samples(table).filter(|s| s.time < DUMMY_TIME_FROM) {
        let i = u128::from(s.time - origin) * u128::from(bins) / span;
        if let Some(slot) = out.get_mut(usize::try_from(i).unwrap_or(usize::MAX)) {
            *slot += 1;
        }
    }
    out
}

fn heat_map_where(
    table: &SampleTable,
    slice: &Slice,
    row_ns: u64,
    keep: impl Fn(NodeId) -> bool,
) -> HeatMap {
    let row_ns = row_ns.clamp(1, SECOND);
    let rows = u32::try_from(SECOND.div_ceil(row_ns)).unwrap_or(u32::MAX);
    let origin = table.first_time();
    let mut cells: Vec<Cell> = Vec::new();
    if table.has_timeline() {
        for s in slice
            .samples(table)
            .filter(|s| s.time < DUMMY_TIME_FROM && keep(s.leaf))
        {
            let rel = s.time - origin;
            let (second, row) = (rel / SECOND, ((rel % SECOND) / row_ns) as u32);
            match cells.last_mut() {
                Some(c) if c.second == second && c.row == row => c.samples += 1,
                _ => cells.push(Cell {
                    second,
                    row,
                    samples: 1,
                }),
            }
        }
    }
    HeatMap {
        row_ns,
        rows,
        seconds: if table.has_timeline() {
            table.duration() / SECOND + 1
        } else {
            0
        },
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::NodeId;
    use std::collections::BTreeSet;

    fn table(times: &[(u64, &str)]) -> SampleTable {
        let mut t = SampleTable::default();
        for &(time, comm) in times {
            let task = t.task(comm, None, Some(1));
            t.push(Some(time), task, NodeId(1), 1);
        }
        t.finish();
        t
    }

    #[test]
    fn cells_count_samples_by_second_and_offset() {
        let ms = 1_000_000;
        let base = 7_000 * SECOND + 5;
        let t = table(&[
            (base, "a"),
            (base + 19 * ms, "a"),
            (base + 20 * ms, "b"),
            (base + SECOND + 999 * ms, "a"),
            (base + 3 * SECOND, "b"),
        ]);
        let map = heat_map(&t, &Slice::default(), DEFAULT_ROW_NS);
        assert_eq!((map.rows, map.seconds), (50, 4));
        let got: Vec<(u64, u32, u64)> = map
            .cells
            .iter()
            .map(|c| (c.second, c.row, c.samples))
            .collect();
        assert_eq!(got, [(0, 0, 2), (0, 1, 1), (1, 49, 1), (3, 0, 1)]);
        assert_eq!(map.max(), 2);
        assert_eq!(
            map.csv(),
            "second,offset_ms,samples\n0,0,2\n0,20,1\n1,980,1\n3,0,1\n"
        );
        let only_b = Slice {
            tasks: Some(BTreeSet::from([crate::profile::samples::TaskId(1)])),
            range: None,
        };
        let b = heat_map(&t, &only_b, DEFAULT_ROW_NS);
        assert_eq!(b.cells.len(), 2);
        assert_eq!(b.seconds, 4, "columns are the whole recording's");
        let late = Slice {
            range: Some((SECOND, u64::MAX)),
            tasks: None,
        };
        assert_eq!(heat_map(&t, &late, DEFAULT_ROW_NS).cells[0].second, 1);
    }

    #[test]
    fn matches_count_the_samples_under_a_marked_frame() {
        let mut tree = CallTree::new();
        let ab = tree.insert(["a", "b"], 1);
        let c = tree.insert(["c"], 1);
        let a = tree.parent(ab).unwrap();
        let under = under_marked(&tree, |id| id == a);
        assert_eq!(
            (
                under[a.0 as usize],
                under[ab.0 as usize],
                under[c.0 as usize]
            ),
            (true, true, false)
        );
        let mut t = SampleTable::default();
        let task = t.task("p", None, Some(1));
        t.push(Some(0), task, ab, 1);
        t.push(Some(30_000_000), task, c, 1);
        t.push(Some(40_000_000), task, ab, 1);
        t.finish();
        let m = heat_map_of(&t, &Slice::default(), DEFAULT_ROW_NS, &under);
        let got: Vec<(u32, u64)> = m.cells.iter().map(|c| (c.row, c.samples)).collect();
        assert_eq!(got, [(0, 1), (2, 1)]);
    }

    #[test]
    fn density_spreads_the_recording_over_the_bins() {
        let t = table(&[(0, "a"), (499, "a"), (500, "b"), (999, "a"), (1000, "a")]);
        // Spans of 1001 / 2 ns: 500 is still in the first.
        assert_eq!(density(&t, &Slice::default(), 2), [3, 2]);
        assert_eq!(density(&t, &Slice::default(), 1001).iter().sum::<u64>(), 5);
        assert!(density(&SampleTable::default(), &Slice::default(), 4) == [0; 4]);
    }

    #[test]
    fn odd_rows_and_no_timeline() {
        let t = table(&[(0, "a"), (999_999_999, "a")]);
        let map = heat_map(&t, &Slice::default(), 300_000_000);
        assert_eq!(map.rows, 4);
        assert_eq!(map.cells[1].row, 3);
        let quarter = heat_map(&t, &Slice::default(), 250_500);
        assert!(
            quarter.csv().ends_with("0,999.996,1\n"),
            "{}",
            quarter.csv()
        );
        let empty = heat_map(&SampleTable::default(), &Slice::default(), DEFAULT_ROW_NS);
        assert_eq!((empty.cells.len(), empty.seconds), (0, 0));
    }
}
