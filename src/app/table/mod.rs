//! Stage: application state — the function table: every distinct function under the zoomed
//! frame with its self and total weight (total counted once per stack), filtered by the
//! current search regex and sorted by self, total or name. Rows are recomputed only when what
//! they depend on changes, never per key press.

use super::explorer::Explorer;
use crate::profile::NodeId;
use crate::profile::functions::function_totals_in;
use crate::profile::libraries::library_totals_in;
use crate::profile::scope::{is_halved, scope_of, unit_scopes};

pub use state::*;

pub(crate) mod keys;
pub mod state;

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
    use crate::profile::functions::FunctionTotals;
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
