//! The state of this screen: plain data and pure functions, below the explorer (which
//! holds it) in the import order. One selected frame's source lines, as
//! [`view::source`](crate::view::source) lists them, flattened into rows: a title row per
//! file, then its lines.

use crate::app::list;
use crate::view::source::Listing;

/// A key of the Source screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKey {
    /// Move by rows (negative: up).
    Step(i32),
    /// A page down (`true`) or up.
    Page(bool),
    /// To the last row (`true`) or the first.
    Edge(bool),
    /// To the next (`true`) or previous line with samples.
    NextHot(bool),
    /// Weights as counts or as shares of the frame.
    Shares,
    /// Back to the graph.
    Close,
}

/// A row of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRowRef {
    /// The title of listing `i` (its file, and where it was looked for when missing).
    File(usize),
    /// Line `row` of listing `listing`.
    Line {
        /// Index of the listing.
        listing: usize,
        /// Index of the row in it.
        row: usize,
    },
}

/// The source lines of one frame.
#[derive(Debug, Clone)]
pub struct SourceView {
    /// The function, as the table names it.
    pub title: String,
    /// The frame's total weight (shares are of it) and its formatted unit's profile.
    pub total: u64,
    /// The listings, one per file.
    pub listings: Vec<Listing>,
    /// The files' paths as the profile names them, and what reading them said: `None`
    /// when found, else the paths looked at.
    pub files: Vec<(String, Option<Vec<String>>)>,
    /// Every row, in order.
    pub rows: Vec<SourceRowRef>,
    /// The selected row.
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
    /// Rows that fit (set when placed).
    pub height: usize,
    /// Shares of the frame rather than weights.
    pub shares: bool,
    /// What the figures are of, when not simply the frame shown (a time range applies).
    pub note: Option<String>,
}

impl SourceView {
    /// The view of `listings` (with `files`), on the hottest line.
    pub fn new(
        title: String,
        total: u64,
        listings: Vec<Listing>,
        files: Vec<(String, Option<Vec<String>>)>,
    ) -> Self {
        let mut rows = Vec::new();
        for (i, l) in listings.iter().enumerate() {
            rows.push(SourceRowRef::File(i));
            rows.extend((0..l.rows.len()).map(|row| SourceRowRef::Line { listing: i, row }));
        }
        let hottest = listings
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((i, l.hottest()?)))
            .max_by_key(|&(i, r)| (listings[i].rows[r].cost.total, std::cmp::Reverse(i)));
        let selected = hottest
            .and_then(|(listing, row)| {
                rows.iter()
                    .position(|r| *r == SourceRowRef::Line { listing, row })
            })
            .unwrap_or(0);
        Self {
            title,
            total,
            listings,
            files,
            rows,
            selected,
            offset: 0,
            height: 0,
            shares: false,
            note: None,
        }
    }

    /// The cost of row `i`, when it is a line.
    pub fn cost(&self, i: usize) -> Option<crate::profile::source::Cost> {
        match self.rows.get(i)? {
            SourceRowRef::Line { listing, row } => Some(self.listings[*listing].rows[*row].cost),
            SourceRowRef::File(_) => None,
        }
    }

    /// Does what `k` says to the selection; true when the screen closes.
    pub fn key(&mut self, k: SourceKey) -> bool {
        let len = self.rows.len();
        let page = isize::try_from(self.height.saturating_sub(1).max(1)).unwrap_or(isize::MAX);
        match k {
            SourceKey::Step(n) => {
                let by = isize::try_from(n).unwrap_or(0);
                self.selected = list::step(self.selected, by, len);
            }
            SourceKey::Page(down) => {
                self.selected = list::step(self.selected, if down { page } else { -page }, len);
            }
            SourceKey::Edge(end) => self.selected = list::edge(len, end),
            SourceKey::NextHot(forward) => {
                let hot = |i: &usize| self.cost(*i).is_some_and(|c| c.total > 0);
                let next = if forward {
                    (self.selected + 1..self.rows.len()).find(hot)
                } else {
                    (0..self.selected).rev().find(hot)
                };
                if let Some(i) = next {
                    self.selected = i;
                }
            }
            SourceKey::Shares => self.shares = !self.shares,
            SourceKey::Close => return true,
        }
        self.scroll_into_view();
        false
    }

    /// Keeps the selection on screen (a few rows from the edges when it can).
    pub fn scroll_into_view(&mut self) {
        let h = self.height.max(1);
        let margin = if h > 10 { 3 } else { 0 };
        if self.selected < self.offset + margin {
            self.offset = self.selected.saturating_sub(margin);
        } else if self.selected + margin >= self.offset + h {
            self.offset = (self.selected + margin + 1).saturating_sub(h);
        }
        let most = self.rows.len().saturating_sub(h);
        self.offset = self.offset.min(most);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::source::{Cost, SourceLines};
    use crate::view::source::SourceRow;

    fn view() -> SourceView {
        let mut s = SourceLines::default();
        let file = s.file("m.go");
        let row = |number, total| SourceRow {
            number,
            cost: Cost {
                self_weight: 0,
                total,
            },
            text: None,
        };
        let listing = Listing {
            file,
            rows: vec![row(1, 0), row(2, 3), row(3, 0), row(4, 9), row(5, 1)],
            sum: Cost::default(),
            code: false,
        };
        SourceView::new("f".into(), 13, vec![listing], vec![("m.go".into(), None)])
    }

    #[test]
    fn it_opens_on_the_hottest_line_and_walks_the_hot_ones() {
        let mut v = view();
        v.height = 3;
        // Row 0 is the file's title; line 4 (row 4) is the hottest.
        assert_eq!(v.selected, 4);
        v.key(SourceKey::NextHot(true));
        assert_eq!(v.selected, 5);
        v.key(SourceKey::NextHot(true));
        assert_eq!(v.selected, 5);
        v.key(SourceKey::NextHot(false));
        v.key(SourceKey::NextHot(false));
        assert_eq!(v.selected, 2);
        v.key(SourceKey::Edge(false));
        assert_eq!((v.selected, v.offset), (0, 0));
        v.key(SourceKey::Page(true));
        assert_eq!(v.selected, 2);
        v.key(SourceKey::Step(10));
        assert_eq!(v.selected, 5);
        assert_eq!(v.offset, 3);
        v.key(SourceKey::Shares);
        assert!(v.shares);
        assert!(v.key(SourceKey::Close));
    }
}
