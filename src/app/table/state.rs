//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use crate::app::list;
use crate::profile::functions::FunctionTotals;
use crate::profile::libraries::{LibraryTotals, library_label};
use crate::profile::{NameId, NameSource, NodeId};
use crate::view::search::Matches;

/// What the table is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SortKey {
    /// Self weight, heaviest first (where time is spent).
    #[default]
    SelfWeight,
    /// Total weight, heaviest first (what it costs with its callees).
    Total,
    /// Name, byte order.
    Name,
}

impl SortKey {
    /// The next key: self → total → name → self.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            SortKey::SelfWeight => SortKey::Total,
            SortKey::Total => SortKey::Name,
            SortKey::Name => SortKey::SelfWeight,
        }
    }
}

/// What the rows were computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowsKey {
    pub(crate) generation: u64,
    pub(crate) scope: NodeId,
    pub(crate) sort: SortKey,
    pub(crate) query: String,
    pub(crate) ignore_case: bool,
    pub(crate) by_library: bool,
}

/// The table's rows, sort and scroll.
#[derive(Debug, Clone)]
pub struct TableState {
    /// Sort column.
    pub sort: SortKey,
    /// Rows shown, in order.
    pub rows: Vec<FunctionTotals>,
    /// The table lists libraries (DSOs, modules) instead of functions (`L`).
    pub by_library: bool,
    /// Library rows shown, in order, when `by_library`.
    pub libraries: Vec<LibraryTotals>,
    /// Frame whose subtree is counted (the zoomed frame).
    pub scope: NodeId,
    /// Weight of the scope, for percentages.
    pub scope_total: u64,
    /// The scope is in the off-CPU half of SystemTap input (its weights are its units).
    pub scope_is_offcpu: bool,
    /// Selected row.
    pub selected: usize,
    /// First row shown.
    pub offset: usize,
    pub(crate) key: Option<RowsKey>,
}

impl Default for TableState {
    fn default() -> Self {
        Self {
            sort: SortKey::default(),
            rows: Vec::new(),
            by_library: false,
            libraries: Vec::new(),
            scope: NodeId::ROOT,
            scope_total: 0,
            scope_is_offcpu: false,
            selected: 0,
            offset: 0,
            key: None,
        }
    }
}

/// The functions with any weight, kept when `filter` says so, sorted by `sort` (names as
/// `names` spells them: the screen's).
pub fn table_rows(
    names: &impl NameSource,
    totals: &[FunctionTotals],
    filter: Option<&Matches>,
    sort: SortKey,
) -> Vec<FunctionTotals> {
    let mut rows: Vec<FunctionTotals> = totals
        .iter()
        .filter(|f| f.total > 0 || f.self_weight > 0)
        .filter(|f| filter.is_none_or(|m| m.name_matches(f.name)))
        .copied()
        .collect();
    sort_rows(
        &mut rows,
        sort,
        |f| (f.self_weight, f.total),
        |f| names.text(f.name),
    );
    rows
}

/// The library rows sorted by `sort` (names in byte order).
pub fn library_rows(
    tree: &crate::profile::CallTree,
    mut rows: Vec<LibraryTotals>,
    sort: SortKey,
) -> Vec<LibraryTotals> {
    let weights = |r: &LibraryTotals| (r.self_weight, r.total);
    sort_rows(&mut rows, sort, weights, |r| library_label(tree, r.lib));
    rows
}

/// Sorts table rows by `sort`: a weight column heaviest first (the other one, then the
/// name, breaking ties), or the name.
fn sort_rows<'a, T>(
    rows: &mut [T],
    sort: SortKey,
    weights: impl Fn(&T) -> (u64, u64),
    name: impl Fn(&T) -> &'a str,
) {
    let by_name = |a: &T, b: &T| name(a).cmp(name(b));
    match sort {
        SortKey::SelfWeight => {
            rows.sort_by(|a, b| weights(b).cmp(&weights(a)).then_with(|| by_name(a, b)));
        }
        SortKey::Total => rows.sort_by(|a, b| {
            let swap = |(s, t): (u64, u64)| (t, s);
            swap(weights(b))
                .cmp(&swap(weights(a)))
                .then_with(|| by_name(a, b))
        }),
        SortKey::Name => rows.sort_by(by_name),
    }
}

impl TableState {
    /// The selected function (none while the table lists libraries).
    pub fn current(&self) -> Option<NameId> {
        if self.by_library {
            return None;
        }
        self.rows.get(self.selected).map(|f| f.name)
    }

    /// The selected library row, while the table lists libraries.
    pub fn current_library(&self) -> Option<&LibraryTotals> {
        self.by_library
            .then(|| self.libraries.get(self.selected))
            .flatten()
    }

    /// Number of rows listed.
    pub fn len(&self) -> usize {
        if self.by_library {
            self.libraries.len()
        } else {
            self.rows.len()
        }
    }

    /// True when no row is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Moves the selection by `rows` (clamped).
    pub fn step(&mut self, rows: i32) {
        let by = isize::try_from(rows).unwrap_or(0);
        self.selected = list::step(self.selected, by, self.len());
    }

    /// First or last row.
    pub fn edge(&mut self, last: bool) {
        self.selected = list::edge(self.len(), last);
    }

    /// Keeps the selection on screen in `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        let h = height.max(1);
        self.selected = self.selected.min(self.len().saturating_sub(1));
        self.offset = list::scroll(self.selected, self.offset, h);
        self.offset = self.offset.min(self.len().saturating_sub(h));
    }

    /// Forgets the rows (the tree changed).
    pub fn invalidate(&mut self) {
        self.key = None;
        self.selected = 0;
        self.offset = 0;
    }
}
