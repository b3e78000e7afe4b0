//! Stage: application state — the search prompt and its results. The regex is compiled
//! and run on every edit, so highlights follow typing; an invalid regex keeps its error for
//! the prompt and highlights nothing.

use regex::RegexBuilder;

use super::explorer::Explorer;
use super::text_input::{self, Inserted};
use crate::view::search::find_in;

pub use state::*;

pub(crate) mod keys;
pub mod state;

impl Explorer {
    /// Opens the prompt on the query shown, else the newest kept: editable, and replaced
    /// by typing.
    pub(crate) fn open_search(&mut self) {
        if !self.search.is_active()
            && let Some(q) = self.tools.searches.last()
        {
            self.search.query = q.to_owned();
        }
        self.search.suggested = self.search.is_active();
        self.tools.searches.start_at(&self.search.query);
        self.run_search();
    }

    /// Types a character (over a suggested query, replacing it); past the cap, says so
    /// and changes nothing.
    pub(crate) fn search_type(&mut self, c: char) {
        let replaced = std::mem::take(&mut self.search.suggested);
        if replaced {
            self.search.query.clear();
        }
        let done = text_input::type_char(&mut self.search.query, c);
        if replaced || done == Inserted::All {
            self.run_search();
        }
        self.note_cut(done, false);
    }

    /// Pastes text (over a suggested query, replacing it): one edit, one run of the
    /// search, whatever its length; cut at the cap, and then said so.
    pub(crate) fn search_paste(&mut self, text: &str) {
        if std::mem::take(&mut self.search.suggested) {
            self.search.query.clear();
        }
        let done = text_input::paste(&mut self.search.query, text);
        self.run_search();
        self.note_cut(done, true);
    }

    /// The status line says when the cap cut an edit of the query.
    fn note_cut(&mut self, done: Inserted, pasted: bool) {
        if done == Inserted::Cut {
            self.tools.message = Some(text_input::cut_message("Search text", pasted));
        }
    }

    /// Deletes the last character (a suggested query becomes the one edited).
    pub(crate) fn search_delete(&mut self) {
        self.search.suggested = false;
        self.search.query.pop();
        self.run_search();
    }

    /// Shows an older (or newer) kept query in the prompt.
    pub(crate) fn recall_search(&mut self, older: bool) {
        if let Some(q) = self.tools.searches.walk(older) {
            self.search.suggested = !q.is_empty();
            self.search.query = q;
            self.run_search();
        }
    }

    /// Enter: the query is kept in the history.
    pub(crate) fn keep_search(&mut self) {
        self.search.suggested = false;
        self.tools.searches.keep(&self.search.query);
    }

    /// Runs the current query.
    pub(crate) fn run_search(&mut self) {
        let s = &mut self.search;
        s.runs += 1;
        s.matches = None;
        s.error = None;
        if s.query.is_empty() {
            return;
        }
        match RegexBuilder::new(&s.query)
            .case_insensitive(s.ignore_case)
            .build()
        {
            Ok(re) => {
                let shown = self.names.over(self.profile.tree.names());
                s.matches = Some(find_in(&self.index, &re, &shown));
            }
            Err(e) => s.error = Some(short_error(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_errors_are_one_line() {
        let pattern = String::from("foo(");
        let e = regex::Regex::new(&pattern).unwrap_err();
        assert_eq!(short_error(&e), "unclosed group");
    }
}
