//! Stage: view model — the listings of a function's lines as the Source screen and
//! `--annotate` show them: source files read and listed by line ([`super::source`]), a
//! function's machine code by instruction ([`super::disasm`]).

use super::disasm::code_listing;
use super::source::{Listing, listings};
use crate::profile::source::{Cost, Line, SourceLines};
use crate::source_files::SourceCache;

/// The listings of `costs` (lines of `lines`, sorted by file then number) with the text
/// of their files, read through `sources` (each once, kept there for the caller to say
/// which were missing).
pub fn listings_read(
    lines: &SourceLines,
    costs: &[(Line, Cost)],
    start: Option<Line>,
    sources: &mut SourceCache,
) -> Vec<Listing> {
    for (line, _) in costs {
        if lines.code(line.file).is_none() {
            sources.get(lines.path(line.file));
        }
    }
    let read = &*sources;
    let mut out = Vec::new();
    for here in costs.chunk_by(|a, b| a.0.file == b.0.file) {
        let file = here[0].0.file;
        match lines.code(file) {
            Some(code) => out.push(code_listing(file, code, here)),
            None => out.extend(listings(here, start, |f| read.peek(lines.path(f)))),
        }
    }
    out
}
