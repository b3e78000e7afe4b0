//! The locations of a pprof profile as frames: each location's `Line` records, the
//! innermost inlined function first, become frames root first, each with its source line
//! (the function's file, the record's line); and a sample's frames with their lines
//! recorded against the nodes they ended in.

use rustc_hash::FxHashMap;

use super::{Collector, Decoded, budget, capacity, map_for, message, proto};
use crate::profile::NameId;
use crate::profile::source::{Line, MOST_FILE_NAME};

/// What a function whose file name is too long is noted for.
pub(super) const LONG_FILE_NOTE: &str = "pprof function file name too long, its lines left out";

/// The frames of every location, root first: the locations' spans of `names` (and of
/// `lines`, each frame's source line when its `Line` record has one), by id.
pub(super) struct Frames {
    by_id: FxHashMap<u64, (u32, u32)>,
    names: Vec<NameId>,
    pub(super) lines: Vec<Option<Line>>,
}

impl Frames {
    /// The frames of location `id`, and their lines.
    pub(super) fn get(&self, id: u64) -> Option<(&[NameId], &[Option<Line>])> {
        let &(start, len) = self.by_id.get(&id)?;
        let span = start as usize..start as usize + len as usize;
        Some((self.names.get(span.clone())?, self.lines.get(span)?))
    }
}

/// String indices by id.
pub(super) type ById = FxHashMap<u64, i64>;

/// A function's name and file (string indices) and first line.
#[derive(Clone, Copy)]
pub(super) struct Function {
    name: i64,
    file: i64,
    start: i64,
}

/// Every function and the file of every mapping, by id (the first entry of an id wins).
pub(super) fn functions_and_mappings(
    d: &Decoded<'_>,
) -> std::result::Result<(FxHashMap<u64, Function>, ById), String> {
    let mut functions = map_for(d.counts.functions);
    let mut mappings = map_for(d.counts.mappings);
    for field in budget::fields(d.bytes) {
        match field? {
            (3, budget::Value::Bytes(m)) => {
                let m: proto::Mapping = message(m)?;
                d.string(m.filename, "a mapping")?;
                mappings.entry(m.id).or_insert(m.filename);
            }
            (5, budget::Value::Bytes(f)) => {
                let f: proto::Function = message(f)?;
                let name = match d.string(f.name, "a function")? {
                    "" => f.system_name,
                    _ => f.name,
                };
                d.string(name, "a function")?;
                d.string(f.filename, "a function's file")?;
                functions.entry(f.id).or_insert(Function {
                    name,
                    file: f.filename,
                    start: f.start_line,
                });
            }
            _ => {}
        }
    }
    Ok((functions, mappings))
}

/// The frames of every location, interned in `out`'s tree.
pub(super) fn location_frames(
    d: &Decoded<'_>,
    out: &mut Collector,
) -> std::result::Result<Frames, String> {
    let (functions, mappings) = functions_and_mappings(d)?;
    let mut frames = Frames {
        by_id: map_for(d.counts.locations),
        // One frame per line, or one for a location without lines.
        names: Vec::with_capacity(capacity(d.counts.locations + d.counts.lines)),
        lines: Vec::with_capacity(capacity(d.counts.locations + d.counts.lines)),
    };
    for field in budget::fields(d.bytes) {
        let (4, budget::Value::Bytes(loc)) = field? else {
            continue;
        };
        let loc: proto::Location = message(loc)?;
        let lib = match loc.mapping_id {
            0 => None,
            id => Some(mappings.get(&id).ok_or_else(|| {
                format!(
                    "location {} is in mapping {id}, which is not in the profile",
                    loc.id
                )
            })?),
        }
        .map(|&file| {
            let file = d.string(file, "a mapping").unwrap_or_default();
            file.rsplit('/').next().unwrap_or(file)
        })
        .filter(|l| !l.is_empty());
        let start = frames.names.len();
        for line in loc.line.iter().rev() {
            let f = *functions.get(&line.function_id).ok_or_else(|| {
                format!(
                    "location {} calls function {}, which is not in the profile",
                    loc.id, line.function_id
                )
            })?;
            let name = d.string(f.name, "a function")?;
            // Lines inlined into the next are not marked: `go tool pprof -top` counts a
            // function inlined at some call sites and not at others as one.
            let id = frame(out, name, lib);
            frames.names.push(id);
            frames.lines.push(source_line(d, out, (id, f), line.line));
        }
        if frames.names.len() == start {
            let name = lib.map_or_else(|| "[unknown]".to_owned(), |l| format!("[{l}]"));
            frames.names.push(frame(out, &name, lib));
            frames.lines.push(None);
        }
        let span = |n: usize| u32::try_from(n).map_err(|_| "too many frames".to_owned());
        let span = (span(start)?, span(frames.names.len() - start)?);
        frames.by_id.entry(loc.id).or_insert(span);
    }
    Ok(frames)
}

/// The line `number` of function `f` (interned as `id`), its file interned in `out`'s
/// lines, which also learn where the function starts; none without a file or a number,
/// nor with a file name past [`MOST_FILE_NAME`] bytes (one string, shared by any number
/// of functions, each listing printing it: a 1 MB name made 300 MB of `--annotate`),
/// noted once.
pub(super) fn source_line(
    d: &Decoded<'_>,
    out: &mut Collector,
    (id, f): (NameId, Function),
    number: i64,
) -> Option<Line> {
    let path = d.string(f.file, "").ok().filter(|p| !p.is_empty())?;
    if path.len() > MOST_FILE_NAME {
        if !out
            .stats
            .bad_lines
            .iter()
            .any(|b| b.reason == LONG_FILE_NOTE)
        {
            out.stats.note(0, LONG_FILE_NOTE, path);
        }
        return None;
    }
    let lines = out.samples.lines_mut();
    let file = lines.file(path);
    if let Ok(start) = u32::try_from(f.start)
        && start > 0
    {
        lines.set_start(
            id,
            Line {
                file,
                number: start,
            },
        );
    }
    let number = u32::try_from(number).ok().filter(|&n| n > 0)?;
    Some(Line { file, number })
}

/// Interns a frame of library `lib`.
pub(super) fn frame(out: &mut Collector, name: &str, lib: Option<&str>) -> NameId {
    let name = if name.is_empty() { "[unknown]" } else { name };
    out.tree.names_mut().intern_in(name, lib)
}
