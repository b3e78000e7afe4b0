//! Stage: application state — the function table: every distinct function under the zoomed
//! frame with its self and total weight (total counted once per stack), filtered by the
//! current search regex and sorted by self, total or name. Rows are recomputed only when what
//! they depend on changes, never per key press.

use super::explorer::Explorer;
use super::list;
use crate::profile::functions::{FunctionTotals, function_totals_in};
use crate::profile::libraries::{LibraryTotals, library_label, library_totals_in};
use crate::profile::scope::{is_halved, scope_of, unit_scopes};
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
struct RowsKey {
    generation: u64,
    scope: NodeId,
    sort: SortKey,
    query: String,
    ignore_case: bool,
    by_library: bool,
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
    key: Option<RowsKey>,
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

impl Explorer {
    /// The frame whose subtree the table counts: the zoomed frame; at the root of on/off-CPU
    /// input, the half the selection is in (on-CPU when it is the root), since the units
    /// of the two halves cannot be added or ranked together.
    fn table_scope(&self) -> NodeId {
        let tree = &self.profile.tree;
        if self.zoom.root != NodeId::ROOT || !is_halved(tree) {
            return self.zoom.root;
        }
        let selected = match self.selected {
            crate::view::Target::Frame(id) => scope_of(tree, id),
            crate::view::Target::Span { .. } => NodeId::ROOT,
        };
        if selected == NodeId::ROOT {
            unit_scopes(tree).first().copied().unwrap_or(NodeId::ROOT)
        } else {
            selected
        }
    }

    /// Recomputes the table rows if the tree, zoom, sort or search changed.
    pub(crate) fn sync_table(&mut self, generation: u64) {
        let key = RowsKey {
            generation,
            scope: self.table_scope(),
            sort: self.tools.table.sort,
            query: self.search.query.clone(),
            ignore_case: self.search.ignore_case,
            by_library: self.tools.table.by_library,
        };
        if self.tools.table.key.as_ref() == Some(&key) {
            return;
        }
        let tree = &self.profile.tree;
        if key.by_library {
            let keep = self.tools.table.current_library().map(|r| r.lib);
            let rows = library_rows(tree, library_totals_in(tree, key.scope), key.sort);
            let t = &mut self.tools.table;
            t.selected = keep
                .and_then(|l| rows.iter().position(|r| r.lib == l))
                .unwrap_or(0);
            t.libraries = rows;
            t.scope = key.scope;
            t.scope_total = tree.node(key.scope).total;
            let (lo, hi) = (self.index.start(key.scope), self.index.end(key.scope));
            t.scope_is_offcpu = key.scope != NodeId::ROOT && self.index.is_offcpu(lo, hi);
            t.key = Some(key);
            return;
        }
        let scoped;
        let totals = if key.scope == NodeId::ROOT {
            &self.functions
        } else {
            scoped = function_totals_in(tree, key.scope);
            &scoped
        };
        let keep = self.tools.table.current();
        let shown = self.names.over(tree.names());
        let rows = table_rows(&shown, totals, self.search.matches.as_ref(), key.sort);
        let t = &mut self.tools.table;
        t.selected = keep
            .and_then(|n| rows.iter().position(|f| f.name == n))
            .unwrap_or(0);
        t.rows = rows;
        t.scope = key.scope;
        t.scope_total = tree.node(key.scope).total;
        let (lo, hi) = (self.index.start(key.scope), self.index.end(key.scope));
        t.scope_is_offcpu = key.scope != NodeId::ROOT && self.index.is_offcpu(lo, hi);
        t.key = Some(key);
    }
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;
    use crate::profile::CallTree;
    use crate::profile::functions::function_totals;
    use crate::view::TreeIndex;
    use crate::view::search::find;

    fn tree() -> CallTree {
        let mut t = CallTree::new();
        t.insert(["main", "f", "f", "g"], 4);
        t.insert(["main", "f", "h"], 6);
        t.insert(["main", "h"], 6);
        t.insert(["main"], 1);
        t.finish();
        t
    }

    fn names(t: &CallTree, rows: &[FunctionTotals]) -> Vec<String> {
        rows.iter()
            .map(|f| t.names().resolve(f.name).to_owned())
            .collect()
    }

    #[test]
    fn sorts_by_self_total_and_name() {
        let t = tree();
        let totals = function_totals(&t);
        let rows = table_rows(t.names(), &totals, None, SortKey::SelfWeight);
        assert_eq!(names(&t, &rows), ["h", "g", "main", "f"]);
        let rows = table_rows(t.names(), &totals, None, SortKey::Total);
        assert_eq!(names(&t, &rows), ["main", "h", "f", "g"]);
        // Recursion counted once: f's total is 10, not 14.
        assert_eq!(rows[2].total, 10);
        let rows = table_rows(t.names(), &totals, None, SortKey::Name);
        assert_eq!(names(&t, &rows), ["f", "g", "h", "main"]);
        assert_eq!(SortKey::Name.next(), SortKey::SelfWeight);
    }

    #[test]
    fn filtered_by_the_search() {
        let t = tree();
        let totals = function_totals(&t);
        let m = find(&t, &TreeIndex::new(&t), &Regex::new("^[fg]$").unwrap());
        let rows = table_rows(t.names(), &totals, Some(&m), SortKey::Name);
        assert_eq!(names(&t, &rows), ["f", "g"]);
    }

    #[test]
    fn selection_moves_and_scrolls() {
        let t = tree();
        let mut s = TableState {
            rows: table_rows(t.names(), &function_totals(&t), None, SortKey::Name),
            ..TableState::default()
        };
        s.step(10);
        assert_eq!(s.selected, 3);
        s.scroll_into_view(2);
        assert_eq!(s.offset, 2);
        s.step(-3);
        s.scroll_into_view(2);
        assert_eq!((s.selected, s.offset), (0, 0));
        s.edge(true);
        assert_eq!(s.current(), t.names().lookup("main"));
    }
}
