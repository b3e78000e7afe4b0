//! `--annotate REGEX`: the source lines of every matching function with their weight, as
//! `go tool pprof -list` prints them — a header per function and file (flat and cum:
//! the sums of its lines' self and total weight, as pprof sums them), then each line
//! `self total number: text`, `.` for nothing.

use std::fmt::Write as _;

use regex::Regex;

use super::{Figures, figure, total_figure};
use crate::profile::Profile;
use crate::profile::functions::table_label;
use crate::profile::source::HOW_TO_RECORD;
use crate::source_files::{SourceCache, SourceText};
use crate::text::{sanitize, share};
use crate::view::listings::listings_read;
use crate::view::source::Listing;

/// The listing of every function of `profile` whose name (demangled when `demangle`,
/// `--demangle`) matches `pattern`, sources read through `sources`; a line saying so when
/// none has lines.
pub fn annotate(
    profile: &Profile,
    pattern: &Regex,
    sources: &mut SourceCache,
    (figures, demangle): (Figures, bool),
) -> String {
    let tree = &profile.tree;
    let names = tree.names();
    let lines = profile.samples.lines();
    let mut out = String::new();
    if lines.is_empty() {
        let _ = writeln!(
            out,
            "{}: no source lines in this input ({}); {}",
            sanitize(&profile.source),
            profile
                .stats
                .format
                .map_or("?".to_owned(), |f| f.to_string()),
            HOW_TO_RECORD
        );
        return out;
    }
    let total = tree.total();
    let unit = profile.stats.unit.to_string();
    let _ = writeln!(
        out,
        "Total: {}",
        total_figure(profile, total, &unit, figures)
    );
    let mut matched: Vec<_> = lines
        .functions()
        .into_iter()
        .map(|f| {
            // Lines keep the ids of the names as read (a renamed tree adds new ones).
            let name = names.resolve(f);
            let shown = if demangle {
                crate::symbol::demangle(name)
            } else {
                std::borrow::Cow::Borrowed(name)
            };
            (table_label(names, f, &shown, |_| true).into_owned(), f)
        })
        .filter(|(label, _)| pattern.is_match(label))
        .collect();
    matched.sort();
    if matched.is_empty() {
        let _ = writeln!(
            out,
            "no function with source lines matches `{}`",
            sanitize(pattern.as_str())
        );
        return out;
    }
    for (label, f) in matched {
        let costs = lines.of_function(f);
        let listed = listings_read(lines, &costs, lines.start(f), sources);
        let read = &*sources;
        for listing in listed {
            let path = lines.path(listing.file);
            let (what, source) = match lines.code(listing.file) {
                // Its instructions (no file to look for), as `go tool pprof -disasm`.
                Some(c) => (format!(" at {:#x}, no source lines", c.start), None),
                None => (String::new(), Some(read.peek(path))),
            };
            let _ = writeln!(
                out,
                "ROUTINE ======================== {} in {}{what}",
                sanitize(&label),
                sanitize(path)
            );
            write_listing(&mut out, profile, &listing, source, figures);
        }
    }
    out
}

/// One listing's flat and cum, where its file was looked for when missing, and its rows.
fn write_listing(
    out: &mut String,
    profile: &Profile,
    listing: &Listing,
    source: Option<&SourceText>,
    figures: Figures,
) {
    let w = |v: u64| {
        if v == 0 {
            ".".to_owned()
        } else {
            figure(profile, v, figures)
        }
    };
    // Columns as wide as the widest figure (exact ones pass pprof's 10).
    let width = listing
        .rows
        .iter()
        .flat_map(|r| [r.cost.self_weight, r.cost.total])
        .chain([listing.sum.self_weight, listing.sum.total])
        .map(|v| w(v).chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    let _ = writeln!(
        out,
        "{:>width$} {:>width$} (flat, cum) {}% of Total",
        w(listing.sum.self_weight),
        w(listing.sum.total),
        share(listing.sum.total, profile.tree.total())
    );
    if let Some(SourceText::Missing(tried)) = source {
        let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        let _ = writeln!(out, "  (source not found: {})", sanitize(&tried.join(", ")));
    }
    for row in &listing.rows {
        let text = row.text.as_deref().map(sanitize).unwrap_or_default();
        let _ = writeln!(
            out,
            "{:>width$} {:>width$} {:>6}:{}{}",
            w(row.cost.self_weight),
            w(row.cost.total),
            listing.number(row),
            if text.is_empty() { "" } else { " " },
            text
        );
    }
}
