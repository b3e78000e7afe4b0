//! The skim v2 fuzzy score of `fuzzy_matcher::skim::SkimMatcherV2` (default
//! configuration, smart case), for scoring many names against one query: the score its
//! `fuzzy_indices` computes over the full matrix.
//!
//! Why not call the crate for every name: `SkimMatcherV2` collects the name into a
//! `Vec<char>`, allocates a bonus vector and a match-index vector, and classifies every
//! character again on each call — about 0.7 µs a name, too slow to rank 100,000 names per
//! keystroke. Its quicker `fuzzy_match` keeps only two rows of the matrix and then reads
//! cells the current call did not write: leftovers of the row two above at the left edge
//! of a row and in the final maximum, and, with its cache, of the names scored before
//! (skim-rs/skim#1071 shows the symptom). So its score can be a point or a few higher
//! than the full matrix gives (about 1.6% of random pairs, mostly with long gaps), and
//! with the cache a ranking could change with the order or the thread a name was scored
//! on. This is the full-matrix programme — the same recurrences and bonuses — over bytes
//! when both strings are ASCII, with buffers reused across names and only the cells that
//! can lie on a complete match computed. Its score equals
//! `SkimMatcherV2::default().smart_case().fuzzy_indices(name, query)`'s exactly (the tests
//! check it exhaustively on short names, by property on long ones, and on every name of the
//! testdata recordings), so the ranking agrees with the highlighted positions, which the
//! crate still computes for the few hits shown.

use std::cmp::max;

const SCORE_MATCH: i32 = 16;
const GAP_START: i32 = -3;
const GAP_EXTENSION: i32 = -1;
const FIRST_CHAR_MULTIPLIER: i32 = 2;
const BONUS_HEAD: i32 = SCORE_MATCH / 2;
const BONUS_BREAK: i32 = SCORE_MATCH / 2 + GAP_EXTENSION;
const BONUS_CAMEL: i32 = SCORE_MATCH / 2 + 2 * GAP_EXTENSION;
const BONUS_CONSECUTIVE: i32 = -(GAP_START + GAP_EXTENSION);
const PENALTY_CASE_MISMATCH: i32 = GAP_EXTENSION * 2;
const NEG_INFINITY: i32 = i16::MIN as i32;

/// Character classes, as skim's in-place bonus sees them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Empty,
    Upper,
    Lower,
    Number,
    HardSep,
    SoftSep,
}

/// [`class_of`] for each byte; non-ASCII bytes never occur (ASCII strings only).
const BYTE_CLASS: [Class; 128] = {
    let mut table = [Class::Lower; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = class_of(b as u8 as char);
        b += 1;
    }
    table
};

const fn class_of(ch: char) -> Class {
    match ch {
        '\0' => Class::Empty,
        ' ' | '/' | '\\' | '|' | '(' | ')' | '[' | ']' | '{' | '}' => Class::HardSep,
        '!'..='\'' | '*'..='.' | ':'..='@' | '^'..='`' | '~' => Class::SoftSep,
        '0'..='9' => Class::Number,
        'A'..='Z' => Class::Upper,
        _ => Class::Lower,
    }
}

const fn in_place_bonus(prev: Class, cur: Class) -> i32 {
    match (prev, cur) {
        (Class::Empty | Class::HardSep, _) => BONUS_HEAD,
        (Class::SoftSep, _) => BONUS_BREAK,
        (Class::Lower | Class::Number, Class::Upper) => BONUS_CAMEL,
        _ => 0,
    }
}

/// A character of the name or query: a byte of an ASCII string, else a `char`.
trait Unit: Copy + Eq {
    fn class(self) -> Class;
    fn eq_ignore_case(self, other: Self) -> bool;
}

impl Unit for u8 {
    fn class(self) -> Class {
        BYTE_CLASS[usize::from(self & 0x7f)]
    }
    fn eq_ignore_case(self, other: Self) -> bool {
        self.eq_ignore_ascii_case(&other)
    }
}

impl Unit for char {
    fn class(self) -> Class {
        class_of(self)
    }
    fn eq_ignore_case(self, other: Self) -> bool {
        self.eq_ignore_ascii_case(&other)
    }
}

/// Best score of the query prefix ending with a match here (`m`) or a skip (`p`).
#[derive(Clone, Copy)]
struct Cell {
    m: i32,
    p: i32,
}

/// A cell no alignment reaches.
const NONE: Cell = Cell {
    m: NEG_INFINITY,
    p: NEG_INFINITY,
};

/// skim's row 0 (the empty query prefix): no match, skipping costs the gap extension.
const TOP: Cell = Cell {
    m: NEG_INFINITY,
    p: GAP_EXTENSION,
};

/// Scores names against one query; keeps its buffers between names. One per thread.
pub struct Scorer {
    query: String,
    query_chars: Vec<char>,
    case_sensitive: bool,
    name_chars: Vec<char>,
    buffers: Buffers,
}

#[derive(Default)]
struct Buffers {
    first: Vec<usize>,
    last: Vec<usize>,
    top: Vec<Cell>,
    rows: [Vec<Cell>; 2],
}

impl Scorer {
    /// A scorer for `query` (smart case: case matters if it has an ASCII capital).
    pub fn new(query: &str) -> Self {
        Self {
            query: query.to_owned(),
            query_chars: query.chars().collect(),
            case_sensitive: query.bytes().any(|b| b.is_ascii_uppercase()),
            name_chars: Vec::new(),
            buffers: Buffers::default(),
        }
    }

    /// The skim score of `name`, or `None` when the query is not a subsequence of it.
    pub fn score(&mut self, name: &str) -> Option<i64> {
        if self.query.is_empty() {
            return Some(0);
        }
        let case = self.case_sensitive;
        if name.is_ascii() && self.query.is_ascii() {
            score_units(
                name.as_bytes(),
                self.query.as_bytes(),
                case,
                &mut self.buffers,
            )
        } else {
            self.name_chars.clear();
            self.name_chars.extend(name.chars());
            score_units(&self.name_chars, &self.query_chars, case, &mut self.buffers)
        }
    }
}

fn equal<T: Unit>(c: T, q: T, case_sensitive: bool) -> bool {
    if case_sensitive {
        c == q
    } else {
        c.eq_ignore_case(q)
    }
}

/// Fills `first` with the leftmost position each query character can match at (the
/// greedy match from the left) and `last` with the rightmost one that still leaves room
/// for the rest of the query (the greedy match from the right). False if the query is not
/// a subsequence of the name.
fn bounds<T: Unit>(name: &[T], query: &[T], case: bool, b: &mut Buffers) -> bool {
    b.first.clear();
    let mut want = query.iter();
    let mut next = want.next();
    for (i, &c) in name.iter().enumerate() {
        let Some(&q) = next else { break };
        if equal(c, q, case) {
            b.first.push(i);
            next = want.next();
        }
    }
    if next.is_some() {
        return false;
    }
    b.last.clear();
    let mut want = query.iter().rev();
    let mut next = want.next();
    for (i, &c) in name.iter().enumerate().rev() {
        let Some(&q) = next else { break };
        if equal(c, q, case) {
            b.last.push(i);
            next = want.next();
        }
    }
    b.last.reverse();
    true
}

/// skim's in-place bonus of `name[j]` (for a word start, camel hump, after a separator),
/// doubled for the first character. Only matched characters need it, so it is computed
/// when one matches rather than for the whole name.
fn bonus<T: Unit>(name: &[T], j: usize) -> i32 {
    let prev = if j == 0 {
        Class::Empty
    } else {
        name[j - 1].class()
    };
    let b = in_place_bonus(prev, name[j].class());
    if j == 0 { b * FIRST_CHAR_MULTIPLIER } else { b }
}

/// The score matrix of `SkimMatcherV2::fuzzy` (M: best score with query character `i`
/// matched at column `j`; P: with column `j` skipped), kept to the cells that can lie on
/// a complete match. Row `i` is computed from column `first[i] + 1` (it cannot match
/// earlier) to `last[i + 1]`, the last column the next row reads; it matches only up to
/// `last[i]` (a match later leaves no room for the rest of the query). Cells outside
/// those bands lie on no complete alignment, so the maximum of the last row — the score
/// — is the same as over the whole matrix.
///
/// Where skim's full matrix starts a row (the cell left of `first[i] + 1`) it resets the
/// cell to "no alignment", as here. The bonus skim carries along a run of consecutive
/// matches is left out: it reads it from the cell to the left before that cell's bonus is
/// written in the same row, so on a new matrix it is always 0 and the consecutive bonus
/// is max(in-place bonus, consecutive bonus).
fn score_units<T: Unit>(name: &[T], query: &[T], case: bool, b: &mut Buffers) -> Option<i64> {
    if !bounds(name, query, case, b) {
        return None;
    }
    let cols = name.len() + 1;
    if b.top.len() < cols {
        b.top.resize(cols, TOP);
        b.rows[0].resize(cols, NONE);
        b.rows[1].resize(cols, NONE);
    }
    let Buffers {
        first,
        last,
        top,
        rows: [even, odd],
    } = b;
    let n = query.len();
    for (i, &q) in query.iter().enumerate() {
        let (row, above) = match (i, i & 1) {
            (0, _) => (&mut *odd, &*top),
            (_, 0) => (&mut *odd, &*even),
            _ => (&mut *even, &*odd),
        };
        let start = first[i];
        let live = last[i] + 1;
        let end = if i + 1 < n { last[i + 1] } else { live };
        // Columns start + 1 ..= live may match: each reads the name character before it,
        // the cell above-left and the cell to the left.
        let mut left = NONE;
        let cells = name[start..live]
            .iter()
            .zip(&above[start..live])
            .zip(&mut row[start + 1..=live]);
        for (j, ((&c, diag), out)) in (start..).zip(cells) {
            let m = if equal(c, q, case) {
                let matched = if !case && c != q {
                    max(0, SCORE_MATCH + PENALTY_CASE_MISMATCH)
                } else {
                    SCORE_MATCH
                };
                let here = bonus(name, j);
                let consecutive = max(here, BONUS_CONSECUTIVE);
                max(diag.m + consecutive, diag.p + here) + matched
            } else {
                NEG_INFINITY
            };
            left = Cell {
                m,
                p: max(GAP_START + GAP_EXTENSION + left.m, GAP_EXTENSION + left.p),
            };
            *out = left;
        }
        // Later columns only carry the skip score on, for the next row to read.
        for out in &mut row[live + 1..=end] {
            left = Cell {
                m: NEG_INFINITY,
                p: max(GAP_START + GAP_EXTENSION + left.m, GAP_EXTENSION + left.p),
            };
            *out = left;
        }
    }
    let last_row = if n & 1 == 0 { &*even } else { &*odd };
    last_row[first[n - 1] + 1..=last[n - 1] + 1]
        .iter()
        .map(|c| i64::from(c.m))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuzzy_matcher::FuzzyMatcher;
    use fuzzy_matcher::skim::SkimMatcherV2;
    use proptest::prelude::*;

    /// The full-matrix score, on a new matcher each time (a reused one's cache can leak
    /// state between names; `use_cache(false)` would do, but panics in 0.3.7: it empties
    /// the cache while still borrowing it).
    fn skim(name: &str, query: &str) -> Option<i64> {
        SkimMatcherV2::default()
            .smart_case()
            .fuzzy_indices(name, query)
            .map(|(score, _)| score)
    }

    /// `fuzzy_match`'s two-row score, which can be higher (see the module comment).
    fn skim_two_rows(name: &str, query: &str) -> Option<i64> {
        SkimMatcherV2::default()
            .smart_case()
            .fuzzy_match(name, query)
    }

    #[test]
    fn follows_the_full_matrix_where_the_two_row_score_differs() {
        let long_gap = format!("a{}bc", "x".repeat(51));
        for (name, query, full, two_rows) in [
            ("x xbxxxxxx_ ba", " b_a", 45, 46),
            (long_gap.as_str(), "abc", 13, 14),
            (
                "_Z24plugin_foreach_with_maskP3THDPFcS0_PP13st_plugin_intPvEijS4_",
                "_ele",
                19,
                20,
            ),
        ] {
            assert_eq!(
                Scorer::new(query).score(name),
                Some(full),
                "{name:?} / {query:?}"
            );
            assert_eq!(skim(name, query), Some(full));
            assert_eq!(skim_two_rows(name, query), Some(two_rows));
        }
    }

    /// Every name of up to 5 characters over a small alphabet with each kind of
    /// character, against queries that exercise case, gaps and repeats.
    #[test]
    fn equals_skim_exhaustively_on_short_names() {
        let alphabet = ['a', 'b', 'A', '_', ':', ' ', '1', 'é'];
        let mut names = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..5 {
            frontier = frontier
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            names.extend(frontier.iter().cloned());
        }
        let queries = [
            "a", "A", "aa", "aaa", "ab", "aba", "abab", "a_a", "aAb", "b1", "é", "aé", "a a",
        ];
        for q in queries {
            let mut scorer = Scorer::new(q);
            for name in &names {
                assert_eq!(scorer.score(name), skim(name, q), "{name:?} / {q:?}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn equals_skim_on_random_names(
            name in "[a-cA-C_:/ (0-9é\u{0}]{0,40}",
            query in "[a-cA-C_:é]{1,6}",
        ) {
            prop_assert_eq!(Scorer::new(&query).score(&name), skim(&name, &query));
        }

        #[test]
        fn equals_skim_on_long_names_with_long_gaps(
            name in "[abx_]{0,12}x{0,80}[abcx_A]{0,60}",
            query in "[abcA_]{1,5}",
        ) {
            prop_assert_eq!(Scorer::new(&query).score(&name), skim(&name, &query));
        }

        #[test]
        fn reusing_a_scorer_changes_nothing(
            names in proptest::collection::vec("[a-cA-C_:]{0,20}", 1..20),
            query in "[a-cA-C]{1,4}",
        ) {
            let mut scorer = Scorer::new(&query);
            for name in &names {
                prop_assert_eq!(scorer.score(name), Scorer::new(&query).score(name));
            }
        }
    }

    #[test]
    fn identifiers_score_as_skim_does() {
        let names = [
            "log_write_flush_to_disk_low",
            "std::sys::pal::unix::thread::Thread::new::thread_start",
            "JOIN::exec",
            "[unknown]",
            "_raw_spin_unlock_irqrestore_[k]",
            "Ärger::über",
        ];
        for q in ["lwfl", "lo", "Thread", "th::n", "exec", "k]", "über", "ü"] {
            let mut scorer = Scorer::new(q);
            for name in names {
                assert_eq!(scorer.score(name), skim(name, q), "{name:?} / {q:?}");
            }
        }
    }
}
