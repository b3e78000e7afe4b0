//! Stage: bytes → format detection → nom parser → call tree.
//!
//! [`load_path`] / [`load_reader`] stream the input line by line (gzip is recognised by its
//! magic bytes), sniff the format from the first lines unless it is forced, and feed every
//! line to the format's parser, which inserts samples into a [`CallTree`].

pub mod bpftrace;
pub mod common;
pub mod detect;
pub mod folded;
pub mod json;
pub mod live;
pub mod parallel;
pub mod perf;
pub mod pprof;
pub mod stap;
pub mod stream;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};

use crate::error::{Error, Result};
use crate::profile::{CallTree, Format, Profile, SampleTable, Stats};
use common::LineReader;
pub use live::Snapshots;
use live::{LineSource, Live, Next, Tick};
use parallel::ChunkParser;
pub use perf::PerfOptions;

/// Which parser to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FormatChoice {
    /// Sniff the content.
    #[default]
    Auto,
    /// Folded stacks (one or two counts per line).
    Folded,
    /// `perf script` output.
    Perf,
    /// `SystemTap` stack blocks.
    Stap,
    /// bpftrace map output.
    Bpftrace,
    /// pprof `profile.proto` (binary protobuf).
    Pprof,
    /// speedscope's JSON file format.
    Speedscope,
    /// Chrome / V8 `.cpuprofile` JSON.
    Cpuprofile,
}

/// How to read an input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Forced format, or auto-detection.
    pub format: FormatChoice,
    /// perf-specific options.
    pub perf: PerfOptions,
    /// Parser threads (default: the machine's cores, at most 8, for perf script; one for
    /// the other formats; 1 parses in this thread). More than [`max_threads`] are cut to it.
    pub threads: Option<usize>,
    /// Bytes per chunk for parallel parsing (default 1 MiB).
    pub chunk_size: Option<usize>,
    /// Streaming: snapshots of the profile read so far (parsing is then sequential).
    pub snapshots: Option<Snapshots>,
    /// pprof: the metric (sample type) to load, by name (default: the profile's own).
    pub metric: Option<String>,
}

/// The default number of parser threads.
fn default_threads() -> usize {
    crate::profile::worker_threads()
}

/// The cores this process may run on (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The most parser threads worth asking for: 4 × the cores.
///
/// Parsing is bound by the CPU, so threads beyond the cores cannot make it faster; each
/// one costs its own call tree, a stack and up to two 1 MiB chunks queued for it, so a
/// count far above the cores only costs memory (10⁸ threads never finished spawning,
/// 10¹¹ aborted on allocating the queue). 4 × leaves room to measure oversubscription
/// while keeping that memory proportional to the machine.
pub fn max_threads() -> usize {
    cores().saturating_mul(4)
}

/// What an input turned out to hold.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // made once per input
pub enum Loaded {
    /// One profile.
    Single(Profile),
    /// A differential folded file: the BEFORE and AFTER profiles.
    Diff {
        /// First count of each line.
        before: Profile,
        /// Second count of each line.
        after: Profile,
    },
}

impl Loaded {
    /// Applies transforms to every tree of the input.
    #[must_use]
    pub fn transformed(self, ts: &[crate::profile::transform::Transform]) -> Loaded {
        if ts.is_empty() {
            return self;
        }
        let apply = |mut p: Profile| {
            p.tree = crate::profile::transform::apply_all(&p.tree, ts);
            p
        };
        match self {
            Loaded::Single(p) => Loaded::Single(apply(p)),
            Loaded::Diff { before, after } => Loaded::Diff {
                before: apply(before),
                after: apply(after),
            },
        }
    }

    /// Every tree of the input with its mangled names demangled, when `on` (`--demangle`
    /// for the text outputs, which otherwise keep the input's names).
    #[must_use]
    pub fn demangled(self, on: bool) -> Loaded {
        if !on {
            return self;
        }
        let apply = |mut p: Profile| {
            p.tree = crate::profile::transform::renamed(&p.tree, crate::symbol::demangle);
            p
        };
        match self {
            Loaded::Single(p) => Loaded::Single(apply(p)),
            Loaded::Diff { before, after } => Loaded::Diff {
                before: apply(before),
                after: apply(after),
            },
        }
    }

    /// Orders the siblings of every tree of the input.
    #[must_use]
    pub fn sorted(mut self, order: crate::profile::order::Order) -> Loaded {
        if order == crate::profile::order::Order::Alpha {
            return self; // trees are finished alphabetical
        }
        match &mut self {
            Loaded::Single(p) => crate::profile::order::sort(&mut p.tree, order),
            Loaded::Diff { before, after } => {
                crate::profile::order::sort(&mut before.tree, order);
                crate::profile::order::sort(&mut after.tree, order);
            }
        }
        self
    }

    /// The sample records of the main profile (none for a differential file).
    pub fn samples(&self) -> &crate::profile::samples::SampleTable {
        &self.main().samples
    }

    /// The (AFTER, for a differential file) profile.
    pub fn main(&self) -> &Profile {
        match self {
            Loaded::Single(p) | Loaded::Diff { after: p, .. } => p,
        }
    }

    /// This input as one side of a comparison of two inputs (the text modes and the
    /// viewer both ask here, so they refuse alike).
    ///
    /// # Errors
    /// [`Error::DiffAsSide`] for a differential folded file: which of its columns is meant
    /// cannot be known.
    pub fn side(&self) -> Result<&Profile> {
        match self {
            Loaded::Single(p) => Ok(p),
            Loaded::Diff { after, .. } => Err(diff_as_side(after)),
        }
    }

    /// [`Loaded::side`], taking the input.
    ///
    /// # Errors
    /// As [`Loaded::side`].
    pub fn into_side(self) -> Result<Profile> {
        match self {
            Loaded::Single(p) => Ok(p),
            Loaded::Diff { after, .. } => Err(diff_as_side(&after)),
        }
    }
}

fn diff_as_side(p: &Profile) -> Error {
    Error::DiffAsSide {
        source_name: p.source.clone(),
    }
}

/// Where parsers put samples and bookkeeping.
#[derive(Debug, Default)]
pub struct Collector {
    /// The tree being built (BEFORE for differential input).
    pub tree: CallTree,
    /// AFTER tree of differential folded input.
    pub after: Option<CallTree>,
    /// How the input is being read.
    pub stats: Stats,
    /// One record per sample, for inputs that have them (perf script); its leaves are
    /// nodes of `tree`.
    pub samples: SampleTable,
}

impl Collector {
    /// Adds another piece's samples and counts.
    pub fn merge(&mut self, mut other: Collector) {
        // The smaller tree goes into the larger (an empty one is simply replaced): the
        // merge costs one lookup per node of the tree merged in. Each sample table goes
        // with its tree.
        if other.tree.len() > self.tree.len() {
            std::mem::swap(&mut self.tree, &mut other.tree);
            std::mem::swap(&mut self.samples, &mut other.samples);
        }
        let leaves = self.tree.merge_from_mapped(&other.tree);
        self.samples.append_mapped(other.samples, &leaves);
        match (&mut self.after, other.after) {
            (Some(a), Some(b)) => a.merge_from(&b),
            (None, Some(b)) => self.after = Some(b),
            _ => {}
        }
        self.stats.merge(other.stats);
    }
}

/// Per-line context handed to parsers.
#[derive(Debug, Default)]
pub struct ParseState {
    /// Number of the line being parsed.
    pub line_no: u64,
}

impl ParseState {
    /// Records the current line as skipped.
    pub fn skip(&self, out: &mut Collector, reason: &'static str, text: &str) {
        out.stats.skip(self.line_no, reason, text);
    }
}

/// Display name of a path argument.
pub fn source_name(path: &str) -> String {
    if path == "-" {
        "<stdin>".to_owned()
    } else {
        path.to_owned()
    }
}

/// Opens and loads a path (`-` is standard input). The main profile keeps the sample
/// table ([`Profile::samples`]).
///
/// # Errors
/// The file cannot be read, is empty, is in no known format, or has no usable sample.
pub fn load_path(path: &str, opts: &LoadOptions) -> Result<Loaded> {
    let name = source_name(path);
    if path == "-" {
        return load_reader(io::stdin(), &name, opts);
    }
    let file = File::open(path).map_err(|error| Error::Read {
        source_name: name.clone(),
        error,
    })?;
    load_reader(file, &name, opts)
}

/// Loads a profile from any reader.
///
/// # Errors
/// As [`load_path`].
pub fn load_reader<R: Read + Send>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let io_err = |error| Error::Read {
        source_name: name.to_owned(),
        error,
    };
    let mut reader = BufReader::with_capacity(1 << 18, reader);
    let gzip = reader
        .fill_buf()
        .map_err(io_err)?
        .starts_with(&[0x1f, 0x8b]);
    if gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        let mut text = BufReader::with_capacity(1 << 18, decoder);
        // A read error here is the input's, and reported as such when the text is read.
        let whole = match text.fill_buf() {
            Ok(head) => {
                refuse_perf_data(head, name, true)?;
                read_whole(head, opts)
            }
            Err(_) => read_whole(&[], opts),
        };
        match whole {
            Some(Whole::Pprof) => load_pprof(text, name, opts),
            Some(Whole::Json) => load_json(text, name, opts),
            None => load_text(text, name, opts),
        }
    } else {
        let head = reader.fill_buf().map_err(io_err)?;
        refuse_perf_data(head, name, false)?;
        match read_whole(head, opts) {
            Some(Whole::Pprof) => load_pprof(reader, name, opts),
            Some(Whole::Json) => load_json(reader, name, opts),
            None => load_text(reader, name, opts),
        }
    }
}

/// The inputs read whole rather than line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whole {
    /// A pprof protobuf message.
    Pprof,
    /// A JSON document (speedscope, `.cpuprofile`).
    Json,
}

/// Whether to read the input whole, and as what: forced, or sniffed from the first bytes
/// when the format is not (`head` is empty when they could not be read).
fn read_whole(head: &[u8], opts: &LoadOptions) -> Option<Whole> {
    match opts.format {
        FormatChoice::Pprof => Some(Whole::Pprof),
        FormatChoice::Speedscope | FormatChoice::Cpuprofile => Some(Whole::Json),
        FormatChoice::Auto if pprof::sniff::sniff(head) == pprof::sniff::Sniff::Yes => {
            Some(Whole::Pprof)
        }
        FormatChoice::Auto if detect::json(head) => Some(Whole::Json),
        _ => None,
    }
}

/// Reads a JSON profile whole and finishes it as the text formats are.
fn load_json<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let kind = match opts.format {
        FormatChoice::Speedscope => Some(json::Kind::Speedscope),
        FormatChoice::Cpuprofile => Some(json::Kind::Cpuprofile),
        _ => None,
    };
    let (out, format) = json::load(reader, name, kind, !opts.perf.no_timeline)?;
    finish(out, name, format)
}

/// Reads a pprof profile whole and finishes it as the text formats are.
fn load_pprof<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let out = pprof::load(reader, name, opts.metric.as_deref())?;
    finish(out, name, Format::Pprof)
}

/// The magic bytes that open a perf.data recording, in file and pipe mode alike.
pub const PERF_DATA_MAGIC: &[u8; 8] = b"PERFILE2";

/// Size of the header that `perf record -o -` (pipe mode) writes after the magic; a file's
/// header is larger.
const PERF_PIPE_HEADER: u64 = 16;

/// A perf.data recording, by its magic bytes whatever its name (judged from the first
/// bytes available, so a recording still being piped in is refused at once): an error
/// that says what to run instead, whatever `--format` says (the bytes are no text).
fn refuse_perf_data(head: &[u8], name: &str, gzip: bool) -> Result<()> {
    if !head.starts_with(PERF_DATA_MAGIC) {
        return Ok(());
    }
    let size = head
        .get(8..16)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes);
    Err(Error::PerfData {
        source_name: name.to_owned(),
        pipe: size == Some(PERF_PIPE_HEADER),
        gzip,
        stdin: name == source_name("-"),
    })
}

fn load_text<R: BufRead + Send>(mut reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let io_err = |error| Error::Read {
        source_name: name.to_owned(),
        error,
    };
    let detect::Prefix {
        bytes: prefix,
        error: prefix_error,
        ended,
    } = detect::read_prefix(&mut reader);
    if let Some(error) = prefix_error.as_ref().filter(|_| prefix.is_empty()) {
        return Err(io_err(io::Error::new(error.kind(), error.to_string())));
    }
    if prefix.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty {
            source_name: name.to_owned(),
        });
    }
    let format = match opts.format {
        FormatChoice::Folded => Format::Folded,
        FormatChoice::Perf => Format::Perf,
        FormatChoice::Stap => Format::Stap,
        FormatChoice::Bpftrace => Format::Bpftrace,
        // Forced pprof and JSON inputs are read whole before any text is.
        FormatChoice::Pprof => Format::Pprof,
        FormatChoice::Speedscope => Format::Speedscope,
        FormatChoice::Cpuprofile => Format::Cpuprofile,
        FormatChoice::Auto => detect::detect(&prefix).ok_or_else(|| Error::UnknownFormat {
            source_name: name.to_owned(),
            head: detect::head(&prefix),
        })?,
    };
    // By default only perf script is parsed on all cores: its samples repeat stacks, so
    // per-worker trees stay small. A folded file is already one line per distinct stack:
    // merging per-worker trees would cost as much as parsing (measured: 2x slower).
    let threads = opts
        .threads
        .unwrap_or_else(|| {
            if format == Format::Perf {
                default_threads()
            } else {
                1
            }
        })
        .min(max_threads());
    // Decided once from the first lines, so chunked and sequential parsing agree.
    let (diff, chunked) = decide(&prefix, format, opts);
    // After a read error or the end of the input only the prefix is left to parse.
    let rest: Box<dyn Read + Send + '_> = if prefix_error.is_some() || ended {
        Box::new(io::empty())
    } else {
        Box::new(reader)
    };
    let input = Cursor::new(prefix).chain(rest);
    let chunk_size = opts.chunk_size.unwrap_or(1 << 20);
    let mut out = match (chunked, opts.snapshots.as_ref()) {
        (Some(parser), None) if threads > 1 => {
            parallel::parse(BufReader::new(input), &parser, threads, chunk_size).map_err(io_err)?
        }
        // A differential file is shown once whole (no snapshots of half a comparison).
        (Some(parser @ (ChunkParser::Perf(_) | ChunkParser::Folded(false))), Some(snapshots))
            if threads > 1 =>
        {
            let mut live = Live::new(snapshots, name, format);
            stream::parse(input, &parser, threads, chunk_size, &mut live).map_err(io_err)?
        }
        _ => {
            let mut out = Collector::default();
            let mut live = opts
                .snapshots
                .as_ref()
                .map(|snapshots| Live::new(snapshots, name, format));
            if let Some(wait) = live.as_ref().map(|l| l.snapshots.every) {
                // Streaming: a reader thread, so a pause in the input shows the profile so far.
                std::thread::scope(|scope| {
                    let (tx, rx) = std::sync::mpsc::sync_channel(8);
                    scope.spawn(move || live::read_batches(input, &tx));
                    let mut lines = live::ChannelLines::new(rx, wait);
                    parse_lines(&mut lines, format, opts, diff, live.as_mut(), &mut out);
                });
            } else {
                let mut lines = LineReader::new(BufReader::new(input));
                parse_lines(&mut lines, format, opts, diff, None, &mut out);
            }
            out
        }
    };
    if let Some(e) = prefix_error {
        out.stats.read_error.get_or_insert(e.to_string());
    }
    finish(out, name, format)
}

/// Whether a folded input is differential, and how to parse it in chunks (`None`: not
/// at all), judged from the prefix. (Its decoded copy is dropped here, before parsing:
/// a first line may be long.)
fn decide(prefix: &[u8], format: Format, opts: &LoadOptions) -> (bool, Option<ChunkParser>) {
    let text = String::from_utf8_lossy(prefix);
    let head: Vec<&str> = text.lines().collect();
    let diff = folded::FoldedParser::sniff_diff(&head);
    let chunked = match format {
        Format::Perf => {
            let mut perf = opts.perf.clone();
            perf.event = perf.event.or_else(|| perf::first_event(&head));
            perf.event.is_some().then_some(ChunkParser::Perf(perf))
        }
        Format::Folded | Format::DiffFolded => Some(ChunkParser::Folded(diff)),
        Format::Stap
        | Format::Bpftrace
        | Format::Pprof
        | Format::Speedscope
        | Format::Cpuprofile => None,
    };
    (diff, chunked)
}

/// Feeds every line to `f`; a read error ends the input early and is recorded, so what
/// was read before it still loads (a truncated gzip, a pipe that breaks).
fn feed(
    lines: &mut dyn LineSource,
    state: &mut ParseState,
    out: &mut Collector,
    mut streaming: Option<&mut Live<'_>>,
    mut f: impl FnMut(&str, &mut ParseState, &mut Collector),
) {
    loop {
        match lines.next() {
            Next::Line(line) => {
                state.line_no += 1;
                f(&line, state, out);
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::Line);
                }
            }
            Next::CaughtUp => {
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::CaughtUp);
                }
            }
            Next::Idle => {
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::Idle);
                }
            }
            Next::End => break,
            Next::Failed(e) => {
                out.stats.read_error = Some(e.to_string());
                break;
            }
        }
    }
}

/// Runs the parser of `format` over every line.
fn parse_lines(
    lines: &mut dyn LineSource,
    format: Format,
    opts: &LoadOptions,
    folded_diff: bool,
    mut live: Option<&mut Live<'_>>,
    out: &mut Collector,
) {
    let mut state = ParseState::default();
    match format {
        Format::Folded | Format::DiffFolded => {
            let mut p = folded::FoldedParser::with_diff(folded_diff);
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            out.stats.format = Some(if p.is_diff() {
                Format::DiffFolded
            } else {
                Format::Folded
            });
        }
        Format::Perf => {
            let mut p = perf::PerfParser::new(opts.perf.clone());
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(out);
            out.stats.format = Some(Format::Perf);
        }
        // The formats read whole never come here.
        Format::Stap | Format::Pprof | Format::Speedscope | Format::Cpuprofile => {
            let mut p = stap::StapParser::default();
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(&mut state, out);
            out.stats.format = Some(Format::Stap);
        }
        Format::Bpftrace => {
            let mut p = bpftrace::BpftraceParser::new(bpftrace::BpftraceOptions {
                annotate_kernel: opts.perf.annotate_kernel,
                include_addrs: opts.perf.include_addrs,
            });
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(&mut state, out);
            out.stats.format = Some(Format::Bpftrace);
        }
    }
    out.stats.lines = state.line_no;
}

fn finish(mut out: Collector, name: &str, format: Format) -> Result<Loaded> {
    if out.stats.samples == 0 {
        if let Some(e) = out.stats.read_error.take() {
            return Err(Error::Read {
                source_name: name.to_owned(),
                error: io::Error::other(e),
            });
        }
        let detail = if out.stats.skipped.is_empty() {
            String::new()
        } else {
            let reasons: Vec<String> = out
                .stats
                .skipped
                .iter()
                .map(|(r, n)| format!("{n} × {r}"))
                .collect();
            format!(" (skipped: {})", reasons.join(", "))
        };
        return Err(Error::NoSamples {
            source_name: name.to_owned(),
            format: out.stats.format.unwrap_or(format).to_string(),
            detail,
        });
    }
    out.tree.finish();
    out.samples.finish();
    let before = Profile {
        samples: std::sync::Arc::new(out.samples),
        source: name.to_owned(),
        tree: out.tree,
        stats: out.stats,
    };
    let loaded = match out.after {
        None => Loaded::Single(before),
        Some(mut after) => {
            after.finish();
            Loaded::Diff {
                after: Profile {
                    samples: std::sync::Arc::default(),
                    source: name.to_owned(),
                    tree: after,
                    stats: before.stats.clone(),
                },
                before,
            }
        }
    };
    Ok(loaded)
}

#[cfg(test)]
mod perf_data_tests {
    use std::io::{Cursor, Write};

    use super::*;

    fn refused(bytes: &[u8], name: &str, opts: &LoadOptions) -> (bool, bool, bool) {
        match load_reader(Cursor::new(bytes.to_vec()), name, opts) {
            Err(Error::PerfData {
                pipe, gzip, stdin, ..
            }) => (pipe, gzip, stdin),
            other => panic!("not refused as perf.data: {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn perf_data_is_known_by_its_magic_in_both_modes_gzipped_and_forced() {
        let header = |size: u64| {
            let mut b = PERF_DATA_MAGIC.to_vec();
            b.extend_from_slice(&size.to_le_bytes());
            b.extend_from_slice(&[0; 96]);
            b
        };
        let opts = LoadOptions::default();
        assert_eq!(refused(&header(104), "x.txt", &opts), (false, false, false));
        assert_eq!(refused(&header(16), "<stdin>", &opts), (true, false, true));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&header(104)).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(refused(&gz, "r.data.gz", &opts), (false, true, false));
        // Whatever --format says: the bytes are no text of any format.
        let forced = LoadOptions {
            format: FormatChoice::Perf,
            ..LoadOptions::default()
        };
        assert_eq!(refused(&header(104), "x", &forced), (false, false, false));
        // Only at offset 0: a text that mentions it is text.
        let text = b"main;PERFILE2 3\n";
        assert!(load_reader(Cursor::new(text.to_vec()), "t", &opts).is_ok());
    }
}
