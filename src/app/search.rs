//! Stage: application state — the search prompt and its results. The regex is compiled
//! and run on every edit, so highlights follow typing; an invalid regex keeps its error for
//! the prompt and highlights nothing.

use regex::RegexBuilder;

use super::explorer::Explorer;
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
}

impl SearchState {
    /// True when a query is set.
    pub fn is_active(&self) -> bool {
        !self.query.is_empty()
    }

    /// Forgets query and results (the case option stays).
    pub fn clear(&mut self) {
        self.query.clear();
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
    /// Runs the current query.
    pub(crate) fn run_search(&mut self) {
        let s = &mut self.search;
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
