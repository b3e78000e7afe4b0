//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use crate::view::search::Matches;

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
