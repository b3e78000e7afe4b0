//! Stage: application state — the search prompt and its results. The regex is compiled
//! and run on every edit, so highlights follow typing; an invalid regex keeps its error for
//! the prompt and highlights nothing.

use regex::RegexBuilder;

use super::explorer::Explorer;
use super::text_input::{self, Inserted};
use crate::view::search::{Matches, find_in};

/// Query, options and results.
#[derive(Debug, Clone, Default)]
pub struct SearchState {
    /// The regex as typed.
    pub query: String,
    /// Case-insensitive matching.
    pub ignore_case: bool,
    /// Results of a valid, non-empty query.
    pub matches: Option<Matches>,
    /// Why the query is not a valid regex.
    pub error: Option<String>,
    /// The query was put in by `/` or ↑/↓ (the previous one): typing replaces it, ⌫ edits it.
    pub suggested: bool,
    /// How often a query was run: once per edit (a paste is one edit).
    pub runs: u64,
}

/// Most queries the search history keeps.
const MAX_HISTORY: usize = 100;

/// Queries kept with Enter, oldest first, each once, and where ↑/↓ are in them.
#[derive(Debug, Clone, Default)]
pub struct SearchHistory {
    /// The queries, the newest last.
    pub queries: Vec<String>,
    /// The query ↑/↓ showed last; `None` past the newest.
    at: Option<usize>,
}

impl SearchHistory {
    /// Keeps a query as the newest (moved there if it was kept before).
    pub fn keep(&mut self, query: &str) {
        self.at = None;
        if query.is_empty() {
            return;
        }
        self.queries.retain(|q| q != query);
        self.queries.push(query.to_owned());
        if self.queries.len() > MAX_HISTORY {
            self.queries.remove(0);
        }
    }

    /// The newest query.
    pub fn last(&self) -> Option<&str> {
        self.queries.last().map(String::as_str)
    }

    /// One step older (↑) or newer (↓): the query to show (empty past the newest), or
    /// `None` when there is no step to take.
    pub fn walk(&mut self, older: bool) -> Option<String> {
        let len = self.queries.len();
        let at = self.at.unwrap_or(len);
        let next = if older {
            at.checked_sub(1)?
        } else if at < len {
            at + 1
        } else {
            return None;
        };
        self.at = (next < len).then_some(next);
        Some(self.queries.get(next).cloned().unwrap_or_default())
    }

    /// Walking starts again from `shown` (↑ shows the query before it), or past the newest
    /// when it was not kept.
    pub fn start_at(&mut self, shown: &str) {
        self.at = self.queries.iter().rposition(|q| q == shown);
    }
}

impl SearchState {
    /// True when a query is set.
    pub fn is_active(&self) -> bool {
        !self.query.is_empty()
    }

    /// Forgets query and results (the case option stays).
    pub fn clear(&mut self) {
        self.query.clear();
        self.suggested = false;
        self.matches = None;
        self.error = None;
    }
}

/// The useful line of a regex error (the message, not the caret diagram).
pub fn short_error(e: &regex::Error) -> String {
    let text = e.to_string();
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .or_else(|| text.lines().next())
        .unwrap_or("invalid regex");
    line.trim().to_owned()
}

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
