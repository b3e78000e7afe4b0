//! Stage: bytes → call tree, for the JSON profile formats: speedscope's file format
//! ([`speedscope`]: py-spy `--format speedscope`, and what other tools export for
//! speedscope) and Chrome / V8 `.cpuprofile` ([`cpuprofile`]: `node --cpu-prof`, Chrome
//! DevTools "Save profile").
//!
//! A JSON document is read whole (at most [`MAX_BYTES`], after gzip, as pprof is) and
//! decoded by `serde_json` (from the bytes up to 16 MiB, faster; from the reader beyond, so
//! a large text is never held whole) into plain structs of the fields used, every other field skipped
//! unread. Which of the two it is follows from its keys (a speedscope file has `profiles`
//! and `shared`, or its `$schema`; a `.cpuprofile` has `nodes`), so the keys may come in any
//! order and the first bytes only have to look like a JSON object ([`looks_like_json`]).
//!
//! Bounds: a field nested deeper than its schema is a type error at the first level too
//! deep, a value of a field not used is skipped by `serde_json` without recursing, and its
//! recursion limit (128, the default, kept) stops anything else, so a document of a million
//! `[` is an error or skipped, never a stack overflow; arrays grow only as their elements
//! are read, so a huge declared count cannot allocate ahead of the bytes; numbers that do
//! not fit (an index past `u32`, a
//! count near `u64::MAX`) are errors or are clamped where they are weights. Memory is the
//! decoded structs (a speedscope profile's frame indices in one vector, a `.cpuprofile`'s
//! nodes, samples and deltas), then the tree and the sample table (none for the text
//! outputs of a whole profile). Measured (`/usr/bin/time`, `--export folded`) on files of
//! `scripts/gen-json-profiles.py`: a 224 MB speedscope file of 2 M samples peaks at 234 MB
//! RSS (591 MB with the text held whole and a `Vec` per sample); a 58 MB `.cpuprofile` of
//! 4 M samples at 114 MB (210 MB with `--time 0,100%`, which keeps a record per sample).

pub mod cpuprofile;
pub mod speedscope;

use std::borrow::Cow;
use std::io::{BufReader, Cursor, Read};

use serde::Deserialize;

use super::Collector;
use crate::error::{Error, Result};
use crate::profile::Format;
use crate::profile::source::MAX_LINE_NUMBER;

/// The largest (decompressed) JSON document read: 1 GiB.
pub const MAX_BYTES: u64 = 1 << 30;

/// Documents shorter than this are read into memory and decoded from there; longer ones are
/// decoded from the reader.
const WHOLE_BELOW: u64 = 16 << 20;

/// Which JSON format a document is, or is asked to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// speedscope's file format.
    Speedscope,
    /// Chrome / V8 `.cpuprofile`.
    Cpuprofile,
}

impl Kind {
    /// The [`Format`] of this kind.
    pub fn format(self) -> Format {
        match self {
            Kind::Speedscope => Format::Speedscope,
            Kind::Cpuprofile => Format::Cpuprofile,
        }
    }
}

/// Whether the first bytes of an input open a JSON object: an optional UTF-8 byte order
/// mark, white space, `{`, white space, then `"` or `}` (or nothing yet). A folded line
/// never starts so (`{{closure}};main 1` has no quote after the brace), nor does perf
/// script or any other text format read here.
pub fn looks_like_json(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut rest = head.iter().skip_while(|b| b.is_ascii_whitespace());
    if rest.next() != Some(&b'{') {
        return false;
    }
    matches!(
        rest.find(|b| !b.is_ascii_whitespace()),
        None | Some(b'"' | b'}')
    )
}

/// The top-level fields of either format, so one pass decodes both and the keys decide.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Document {
    /// speedscope: its schema's URL.
    #[serde(rename = "$schema")]
    schema: Option<String>,
    /// speedscope: the frame table.
    shared: Option<speedscope::Shared>,
    /// speedscope: the profiles.
    profiles: Option<Vec<speedscope::SpeedscopeProfile>>,
    /// cpuprofile: the call tree's nodes.
    nodes: Option<Vec<cpuprofile::Node>>,
    /// cpuprofile: the leaf node of each sample.
    samples: Option<Vec<u64>>,
    /// cpuprofile: microseconds from the previous sample (the first: from `startTime`).
    time_deltas: Option<Vec<f64>>,
    /// cpuprofile: when profiling started, in microseconds.
    start_time: Option<f64>,
}

impl Document {
    /// The format its keys say, if any.
    fn kind(&self) -> Option<Kind> {
        let schema = self
            .schema
            .as_deref()
            .is_some_and(|s| s.contains("speedscope"));
        if schema || self.profiles.is_some() {
            Some(Kind::Speedscope)
        } else if self.nodes.is_some() {
            Some(Kind::Cpuprofile)
        } else {
            None
        }
    }
}

/// Reads a whole JSON profile from `reader`, of `kind` when forced, else of the kind its
/// keys say, into a collector, with a record per sample in its sample table when
/// `records` (the viewer and the time and task filters need them; the text outputs of a
/// whole profile do not).
///
/// # Errors
/// [`Error::Json`] for input that is not JSON, not one of the formats, or inconsistent
/// (naming the line and column `serde_json` stopped at), [`Error::Empty`] for no input.
pub fn load<R: Read>(
    reader: R,
    name: &str,
    kind: Option<Kind>,
    records: bool,
) -> Result<(Collector, Format)> {
    load_limited(reader, name, kind, records, MAX_BYTES)
}

/// [`load`], reading at most `limit` bytes.
fn load_limited<R: Read>(
    reader: R,
    name: &str,
    kind: Option<Kind>,
    records: bool,
    limit: u64,
) -> Result<(Collector, Format)> {
    let what = kind.map_or("JSON profile", |k| match k {
        Kind::Speedscope => "speedscope profile",
        Kind::Cpuprofile => "cpuprofile",
    });
    let bad = |message: String| Error::Json {
        source_name: name.to_owned(),
        message,
    };
    let mut input = Counted {
        inner: reader.take(limit.saturating_add(1)),
        read: 0,
        text: false,
    };
    // Up to WHOLE_BELOW bytes are read first: a document that ends within them is decoded
    // from the bytes (serde_json decodes a slice about 1.6 times as fast as a reader), a
    // larger one from them and the rest of the reader, never held whole.
    let mut head = Vec::new();
    let read = (&mut input).take(WHOLE_BELOW).read_to_end(&mut head);
    let bom = if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let doc: std::result::Result<Document, _> = match read {
        Err(e) => Err(serde_json::Error::io(e)),
        Ok(n) if (n as u64) < WHOLE_BELOW => serde_json::from_slice(&head[bom..]),
        Ok(_) => {
            let rest = Cursor::new(&head[bom..]).chain(&mut input);
            serde_json::from_reader(BufReader::with_capacity(1 << 16, rest))
        }
    };
    drop(head);
    if !input.text {
        return Err(Error::Empty {
            source_name: name.to_owned(),
        });
    }
    if input.read > limit {
        return Err(bad(format!(
            "larger than {limit} bytes (decompressed), the most read for a {what}"
        )));
    }
    let doc = doc.map_err(|e| {
        if e.is_io() {
            bad(format!("the input ended early ({e})"))
        } else {
            bad(format!("not a readable {what}: {e}"))
        }
    })?;
    let Some(kind) = kind.or_else(|| doc.kind()) else {
        return Err(bad(
                "a JSON document, but neither a speedscope file (no `profiles`) nor a Chrome .cpuprofile (no `nodes`)"
                .to_owned(),
        ));
    };
    let mut out = Collector::default();
    match kind {
        Kind::Speedscope => speedscope::build(doc, records, &mut out).map_err(bad)?,
        Kind::Cpuprofile => cpuprofile::build(doc, records, &mut out).map_err(bad)?,
    }
    out.stats.format = Some(kind.format());
    Ok((out, kind.format()))
}

/// A reader that counts the bytes it gives and notes whether any is not white space.
struct Counted<R> {
    inner: R,
    read: u64,
    text: bool,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if !self.text {
            self.text = buf[..n].iter().any(|b| !b.is_ascii_whitespace());
        }
        Ok(n)
    }
}

/// Nanoseconds in `value` units of `per` nanoseconds each, rounded; `None` when negative,
/// not a number, or past `u64::MAX`.
fn to_ns(value: f64, per: f64) -> Option<u64> {
    let ns = (value * per).round();
    // 2^64 as f64; anything at or past it does not fit.
    (0.0..18_446_744_073_709_551_616.0).contains(&ns).then(|| {
        #[allow(clippy::cast_sign_loss)] // checked non-negative and in range just above
        let n = ns as u64;
        n
    })
}

/// The last part of a path or URL (`file:///srv/app/work.js` → `work.js`); the whole of
/// it when it ends in `/`.
fn file_name(path: &str) -> &str {
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last,
        _ => path,
    }
}

/// The path of a source file as a profile names it: a `file://` URL's path, its
/// percent-escapes decoded (`file:///srv/my%20app/a.js` → `/srv/my app/a.js`; before a
/// drive letter the slash goes, `file:///C:/a.js` → `C:/a.js`), anything else whole
/// (`node:internal/…`, `https://…`, a plain path, a `file://` URL naming a host).
fn source_path(url: &str) -> Cow<'_, str> {
    let Some(path) = url.strip_prefix("file://").filter(|p| p.starts_with('/')) else {
        return Cow::Borrowed(url);
    };
    let b = path.as_bytes();
    let drive = b.get(1).is_some_and(u8::is_ascii_alphabetic) && b.get(2) == Some(&b':');
    percent_decoded(if drive { &path[1..] } else { path })
}

/// `s` with each `%XX` escape the byte it stands for; `s` as it is when that is not UTF-8.
fn percent_decoded(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let hex = |c: Option<&u8>| c.and_then(|&c| char::from(c).to_digit(16));
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if let (b'%', Some(high), Some(low)) = (c, hex(b.get(i + 1)), hex(b.get(i + 2))) {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).map_or(Cow::Borrowed(s), Cow::Owned)
}

/// A 1-based line number as JSON gives it: a whole number from 1 to [`MAX_LINE_NUMBER`],
/// else `None` (0, negative, fractional, not a number, past any real file).
fn line_number(value: f64) -> Option<u32> {
    let whole = value.fract() == 0.0;
    (whole && (1.0..=f64::from(MAX_LINE_NUMBER)).contains(&value)).then(|| {
        #[allow(clippy::cast_sign_loss)] // checked from 1 to MAX_LINE_NUMBER just above
        let n = value as u32;
        n
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_known_by_its_opening_brace_and_quote() {
        assert!(looks_like_json(b"{\"$schema\": 1}"));
        assert!(looks_like_json(b"\xEF\xBB\xBF \n {\n  \"nodes\""));
        assert!(looks_like_json(b"{}"));
        assert!(looks_like_json(b"{"));
        assert!(!looks_like_json(b"{{closure}};main 1\n"));
        assert!(!looks_like_json(b"main;{closure} 1\n"));
        assert!(!looks_like_json(b"[{\"name\": 1}]"));
        assert!(!looks_like_json(b""));
    }

    #[test]
    fn weights_convert_to_nanoseconds_or_refuse() {
        assert_eq!(to_ns(1.5, 1e9), Some(1_500_000_000));
        assert_eq!(to_ns(0.010_309_278_350_515_464, 1e9), Some(10_309_278));
        assert_eq!(to_ns(-1.0, 1.0), None);
        assert_eq!(to_ns(f64::NAN, 1.0), None);
        assert_eq!(to_ns(1.9e19, 1.0), None);
        assert_eq!(to_ns(1.8e19, 1.0), Some(18_000_000_000_000_000_000));
    }

    #[test]
    fn file_names_are_the_last_part() {
        assert_eq!(file_name("file:///srv/app/work.js"), "work.js");
        assert_eq!(
            file_name("node:internal/main/run_main_module"),
            "run_main_module"
        );
        assert_eq!(file_name("spy.py"), "spy.py");
        assert_eq!(file_name("dir/"), "dir/");
    }

    #[test]
    fn source_paths_are_file_urls_paths_else_the_whole_url() {
        assert_eq!(source_path("file:///srv/app/work.js"), "/srv/app/work.js");
        assert_eq!(
            source_path("file:///srv/my%20app/%E2%82%AC.js"),
            "/srv/my app/€.js"
        );
        assert_eq!(source_path("file:///C:/app/a.js"), "C:/app/a.js");
        assert_eq!(source_path("file:///srv/100%.js"), "/srv/100%.js");
        assert_eq!(source_path("file:///srv/%FF.js"), "/srv/%FF.js");
        assert_eq!(source_path("file://host/a.js"), "file://host/a.js");
        assert_eq!(source_path("node:internal/util"), "node:internal/util");
        assert_eq!(source_path("https://x.org/a.js"), "https://x.org/a.js");
        assert_eq!(source_path("/usr/lib/a.py"), "/usr/lib/a.py");
    }

    #[test]
    fn line_numbers_are_whole_and_in_range() {
        assert_eq!(line_number(1.0), Some(1));
        assert_eq!(line_number(10_000_000.0), Some(10_000_000));
        for bad in [0.0, -1.0, 1.5, 10_000_001.0, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(line_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn other_json_is_refused_by_its_keys() {
        let e = load(&b"{\"a\": [1, 2]}"[..], "x.json", None, true).unwrap_err();
        assert!(e.to_string().contains("neither a speedscope"), "{e}");
        let e = load(&b"{\"nodes\": 3}"[..], "x.json", None, true).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x.json: not a readable JSON profile"),
            "{e}"
        );
        let e = load(&b"  \n"[..], "x.json", None, true).unwrap_err();
        assert!(matches!(e, Error::Empty { .. }));
        let e = load_limited(&b"{\"nodes\": []}"[..], "x.json", None, true, 5).unwrap_err();
        assert!(e.to_string().contains("larger than 5 bytes"), "{e}");
    }
}
