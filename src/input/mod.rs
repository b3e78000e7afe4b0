//! Stage: bytes → format detection → nom parser → call tree.
//!
//! [`load_path`] / [`load_reader`] stream the input line by line (gzip is recognised by its
//! magic bytes), sniff the format from the first lines unless it is forced, and feed every
//! line to the format's parser, which inserts samples into a [`CallTree`].

pub mod bpftrace;
pub mod capped;
pub mod common;
pub mod detect;
pub mod folded;
pub mod inferno;
pub mod json;
pub mod live;
pub mod parallel;
pub mod perf;
pub mod perf_data;
pub mod pprof;
pub mod stap;
pub mod stream;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek};

use crate::error::{Error, Result};
use crate::profile::{CallTree, Format, Profile, SampleTable, Stats, Unit};
use common::LineReader;
pub use live::Snapshots;
use live::{LineSource, Live, Next, Tick};
use parallel::ChunkParser;
pub use perf::PerfOptions;

/// Which parser to use: auto-detection, or a format forced by name (`--format`). Its
/// variants are the formats of [`FORMATS`](crate::profile::FORMATS) with a `cli` name, which
/// `--format` reads into one of them; [`FormatChoice::forced`] and [`FormatChoice::forcing`]
/// convert to and from [`Format`] (a test holds both to the table).
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
    /// DTrace stack aggregations (inferno's collapser).
    Dtrace,
    /// macOS `sample` output (inferno's collapser).
    Sample,
    /// VTune top-down CSV (inferno's collapser).
    Vtune,
    /// `xctrace export` XML (inferno's collapser).
    Xctrace,
    /// Visual Studio call-tree CSV (inferno's collapser).
    Vsprof,
    /// GHC `.prof` report (inferno's collapser).
    Ghcprof,
}

impl FormatChoice {
    /// The format forced, or `None` for auto-detection.
    pub const fn forced(self) -> Option<Format> {
        Some(match self {
            FormatChoice::Auto => return None,
            FormatChoice::Folded => Format::Folded,
            FormatChoice::Perf => Format::Perf,
            FormatChoice::Stap => Format::Stap,
            FormatChoice::Bpftrace => Format::Bpftrace,
            FormatChoice::Pprof => Format::Pprof,
            FormatChoice::Speedscope => Format::Speedscope,
            FormatChoice::Cpuprofile => Format::Cpuprofile,
            FormatChoice::Dtrace => Format::Dtrace,
            FormatChoice::Sample => Format::Sample,
            FormatChoice::Vtune => Format::Vtune,
            FormatChoice::Xctrace => Format::Xctrace,
            FormatChoice::Vsprof => Format::Vsprof,
            FormatChoice::Ghcprof => Format::Ghcprof,
        })
    }

    /// The choice that forces `format`, if it can be forced (differential folded files are
    /// read as `Folded`, perf.data is known whatever the choice).
    pub const fn forcing(format: Format) -> Option<FormatChoice> {
        Some(match format {
            Format::Folded => FormatChoice::Folded,
            Format::Perf => FormatChoice::Perf,
            Format::Stap => FormatChoice::Stap,
            Format::Bpftrace => FormatChoice::Bpftrace,
            Format::Pprof => FormatChoice::Pprof,
            Format::Speedscope => FormatChoice::Speedscope,
            Format::Cpuprofile => FormatChoice::Cpuprofile,
            Format::Dtrace => FormatChoice::Dtrace,
            Format::Sample => FormatChoice::Sample,
            Format::Vtune => FormatChoice::Vtune,
            Format::Xctrace => FormatChoice::Xctrace,
            Format::Vsprof => FormatChoice::Vsprof,
            Format::Ghcprof => FormatChoice::Ghcprof,
            Format::DiffFolded | Format::PerfData => return None,
        })
    }
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
    /// perf.data: where its binaries and kernel symbols are found.
    pub perf_data: perf_data::PerfDataOptions,
    /// Folded stacks: what their counts are (`--countname`, as flamegraph.pl's): `ns` or
    /// `nanoseconds` makes them times; another name labels them. Without it they are
    /// samples, as flamegraph.pl and inferno call them.
    pub count_name: Option<String>,
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
            Loaded::Single(p) => Loaded::Single(p.map_metrics(apply)),
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
            Loaded::Single(p) => Loaded::Single(p.map_metrics(apply)),
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
            Loaded::Single(p) => {
                crate::profile::order::sort(&mut p.tree, order);
                for o in &mut p.metrics.others {
                    crate::profile::order::sort(&mut o.tree, order);
                }
            }
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

/// Loading a profile, for the library: the formats and options of the command line.
///
/// ```
/// use flametui::profile::Profile;
///
/// let p = Profile::from_folded("main;work 3\nmain 1\n")?;
/// assert_eq!(p.tree.total(), 4);
/// let perf = Profile::from_perf_script(
///     "app 1 1.0: 250000 cpu-clock: \n\t4005d6 work+0x16 (/bin/app)\n\t400620 main+0x9 (/bin/app)\n\n",
/// )?;
/// assert_eq!(perf.tree.total(), 250_000);
/// # Ok::<(), flametui::Error>(())
/// ```
impl Profile {
    /// Reads a profile of any format from `reader` (detected from its content, gzip too)
    /// with `opts`, `name` naming it in errors.
    ///
    /// # Errors
    /// As [`load_reader`]; a differential folded file ([`Error::DiffAsSide`]), whose two
    /// columns are two profiles: [`load_reader`] gives both.
    pub fn from_reader<R: Read + Send>(
        reader: R,
        name: &str,
        opts: &LoadOptions,
    ) -> Result<Profile> {
        load_reader(reader, name, opts)?.into_side()
    }

    /// Reads the profile at `path` (`-` for standard input), a perf.data recording too.
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_path(path: &str, opts: &LoadOptions) -> Result<Profile> {
        load_path(path, opts)?.into_side()
    }

    /// Folded stacks (`a;b;c COUNT` lines).
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_folded(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Folded,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "folded", &opts)
    }

    /// `perf script` output.
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_perf_script(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Perf,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "perf script", &opts)
    }

    /// SystemTap `print_stack` output (off-CPU stacks marked with a leading `---`).
    ///
    /// # Errors
    /// As [`Profile::from_reader`].
    pub fn from_stap(text: &str) -> Result<Profile> {
        let opts = LoadOptions {
            format: FormatChoice::Stap,
            ..LoadOptions::default()
        };
        Profile::from_reader(text.as_bytes(), "SystemTap", &opts)
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
    /// perf: the samples of each other event, one collector per event (its
    /// `stats.event`), in the order first seen. While a parser fills them their trees
    /// hold names of `tree` ([`Collector::other_event`]); merging or finishing gives
    /// them their own.
    pub others: Vec<Collector>,
    /// The trees of `others` still use the names of `tree`.
    others_share_names: bool,
    /// The piece of the input being parsed ([`Collector::begin_piece`]).
    piece: Option<u64>,
}

impl Collector {
    /// Moves everything collected so far into `into`, leaving this collector empty
    /// with its tree's names kept under the same ids, so that a parser holding ids of
    /// them goes on filling it (a streamed input's snapshots gather the workers' pieces
    /// this way). `into` gets the same as from [`Collector::merge`].
    pub fn drain_into(&mut self, into: &mut Collector) {
        self.own_names();
        into.own_names();
        if into.stats.event.is_none() {
            into.stats.event.clone_from(&self.stats.event);
        }
        into.absorb(self);
        self.tree.clear_nodes();
    }

    /// Adds another piece's samples and counts.
    pub fn merge(&mut self, mut other: Collector) {
        // Before the trees move: each side's other-event trees copy the names they were
        // filled with.
        self.own_names();
        other.own_names();
        // The smaller tree goes into the larger (an empty one is simply replaced): the
        // merge costs one lookup per node of the tree merged in. Each sample table goes
        // with its tree.
        if other.tree.len() > self.tree.len() {
            std::mem::swap(&mut self.tree, &mut other.tree);
            std::mem::swap(&mut self.samples, &mut other.samples);
        }
        self.absorb(&mut other);
    }

    /// Takes `other`'s other events, samples (its tree merged into this one, which it
    /// leaves as it is), AFTER tree and counts. Both own their names.
    fn absorb(&mut self, other: &mut Collector) {
        for o in std::mem::take(&mut other.others) {
            let same = self
                .others
                .iter()
                .position(|m| m.stats.event == o.stats.event);
            match same {
                Some(i) => self.others[i].merge(o),
                None if self.others.len() < MAX_OTHER_EVENTS => self.others.push(o),
                None => self.stats.filtered_samples += o.stats.samples,
            }
        }
        let leaves = self.tree.merge_from_mapped(&other.tree);
        self.samples
            .append_mapped(std::mem::take(&mut other.samples), &leaves);
        match (&mut self.after, other.after.take()) {
            (Some(a), Some(b)) => a.merge_from(&b),
            (None, Some(b)) => self.after = Some(b),
            _ => {}
        }
        self.stats.merge(std::mem::take(&mut other.stats));
    }
}

/// The most events kept besides the one shown (each is a tree of its own); the samples of
/// any more are left out and counted (a text can name any number of events).
pub const MAX_OTHER_EVENTS: usize = 63;

impl Collector {
    /// The index in `others` of the collector of the samples of another event than the
    /// kept one, made on first sight (indexes stay while a parser fills this collector);
    /// its tree takes frame names interned in `self.tree`. `None` past
    /// [`MAX_OTHER_EVENTS`], or once this collector has been merged into (its others have
    /// names of their own).
    pub fn other_event(&mut self, event: &str) -> Option<usize> {
        if !self.others_share_names && !self.others.is_empty() {
            return None;
        }
        let found = self
            .others
            .iter()
            .position(|o| o.stats.event.as_deref() == Some(event));
        if found.is_none() && self.others.len() >= MAX_OTHER_EVENTS {
            return None;
        }
        self.others_share_names = true;
        Some(found.unwrap_or_else(|| {
            let mut o = Collector::default();
            o.stats.event = Some(event.to_owned());
            o.stats.format = self.stats.format;
            if let Some(key) = self.piece {
                o.samples.begin_piece(key);
            }
            self.others.push(o);
            self.others.len() - 1
        }))
    }

    /// Marks that what comes next is piece `key` of the input (pieces numbered in input
    /// order, as a parser thread's chunks by their first line): the sample tables of
    /// collectors of pieces are joined in input order however the pieces were shared out.
    pub fn begin_piece(&mut self, key: u64) {
        self.piece = Some(key);
        self.samples.begin_piece(key);
        for o in &mut self.others {
            o.samples.begin_piece(key);
        }
    }

    /// The finished profile of this collector's tree, samples and stats (its `others` and
    /// `after`, if any, are left out: taken before).
    fn into_profile(mut self, source: &str) -> Profile {
        self.tree.finish();
        self.samples.finish();
        Profile {
            source: source.to_owned(),
            tree: self.tree,
            stats: self.stats,
            samples: std::sync::Arc::new(self.samples),
            metrics: crate::profile::metrics::Metrics::default(),
        }
    }

    /// Gives the trees of `others` names of their own (a copy of `tree`'s, whose ids
    /// they hold).
    fn own_names(&mut self) {
        if std::mem::take(&mut self.others_share_names) {
            for o in &mut self.others {
                o.tree.adopt_names(&self.tree);
            }
        }
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

/// Opens and loads a path (`-` is standard input; a FIFO, a shell's `<(…)` or a device
/// is read as a stream, as standard input is). The main profile keeps the sample table
/// ([`Profile::samples`]).
///
/// # Errors
/// The file cannot be read, is empty, is in no known format, or has no usable sample.
pub fn load_path(path: &str, opts: &LoadOptions) -> Result<Loaded> {
    load_path_into(path, opts, None)
}

/// Names the counts of folded input `--countname` names (see [`LoadOptions::count_name`]);
/// the other formats say what their weights are.
fn with_count_name(mut loaded: Loaded, name: Option<&str>) -> Loaded {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return loaded;
    };
    let name_it = |p: &mut Profile| {
        let folded = matches!(p.stats.format, Some(Format::Folded | Format::DiffFolded));
        if folded && p.stats.unit == Unit::Samples {
            p.stats.unit = match name {
                "ns" | "nanoseconds" => Unit::Nanoseconds,
                _ => Unit::Metric {
                    name: name.to_owned(),
                    unit: "count".to_owned(),
                },
            };
        }
    };
    match &mut loaded {
        Loaded::Single(p) => name_it(p),
        Loaded::Diff { before, after } => {
            name_it(before);
            name_it(after);
        }
    }
    loaded
}

/// As [`load_path`], except that an input parsed on several threads (perf script, or a
/// folded file with `threads` set) may leave the trees of its workers unmerged: the
/// profile's tree then holds the stacks of one worker, and the others' trees are returned
/// beside it. The union of all of them is the whole profile, so this is only for a
/// consumer that takes the union itself (the folded export,
/// [`crate::export::write_folded_parts`]). Nothing is left apart for the other formats,
/// nor when the input has several events, sample records (`no_timeline` unset) or an
/// AFTER side.
///
/// # Errors
/// As [`load_path`].
pub fn load_path_parts(path: &str, opts: &LoadOptions) -> Result<(Loaded, Vec<CallTree>)> {
    let mut parts = Vec::new();
    let loaded = load_path_into(path, opts, Some(&mut parts))?;
    Ok(with_parts(loaded, parts))
}

/// A profile and the trees left apart beside it, its tree marked saturated when their
/// merge would have been (a part was, or the totals add past `u64::MAX`).
fn with_parts(mut loaded: Loaded, parts: Vec<CallTree>) -> (Loaded, Vec<CallTree>) {
    if let Loaded::Single(p) = &mut loaded {
        let mut total = Some(p.tree.total());
        for t in &parts {
            total = total.and_then(|sum| sum.checked_add(t.total()));
        }
        if total.is_none() || parts.iter().any(CallTree::saturated) {
            p.tree.mark_saturated();
        }
    }
    (loaded, parts)
}

fn load_path_into(
    path: &str,
    opts: &LoadOptions,
    parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
    let name = source_name(path);
    if path == "-" {
        return load_reader_into(io::stdin(), &name, opts, parts);
    }
    let open_err = |error| Error::Read {
        source_name: name.clone(),
        error,
    };
    let mut file = File::open(path).map_err(open_err)?;
    // A FIFO, `<(…)` (`/dev/fd/N`), a character device: read as a stream, as standard
    // input is (it cannot be rewound after its magic bytes, nor a recording seeked in).
    if !file.metadata().map_err(open_err)?.is_file() {
        return load_reader_into(file, &name, opts, parts);
    }
    let mut magic = [0u8; 8];
    let got = file.read(&mut magic).map_err(open_err)?;
    if magic[..got] == PERF_DATA_MAGIC[..] || magic[..got] == *b"2ELIFREP" {
        // A recording in a file is read in place (seeking to its sections).
        let len = file.metadata().map_err(open_err)?.len();
        file.rewind().map_err(open_err)?;
        let reader = BufReader::with_capacity(1 << 18, file);
        let out =
            perf_data::load_seekable(reader, len, &name, &perf_options(opts), &opts.perf_data)?;
        return finish(out, &name, Format::PerfData, opts.metric.as_deref());
    }
    file.rewind().map_err(open_err)?;
    load_reader_into(file, &name, opts, parts)
}

/// The perf options a recording is read with: those of perf script text, with `--metric`
/// naming the event when `--event` does not (but for the metrics made from several
/// events, off-CPU and on+off-CPU time, which need them all).
fn perf_options(opts: &LoadOptions) -> PerfOptions {
    let mut perf = opts.perf.clone();
    let derived = [
        crate::profile::offcpu::METRIC,
        crate::profile::metrics::BOTH_HALVES,
    ];
    if perf.event.is_none() && !opts.metric.as_deref().is_some_and(|m| derived.contains(&m)) {
        perf.event.clone_from(&opts.metric);
        perf.event_from_metric = perf.event.is_some();
    }
    perf
}

/// A perf.data recording from a stream (pipe mode as it comes; file mode read whole,
/// up to this size).
const MAX_STREAMED_PERF_DATA: u64 = 4 << 30;

fn load_perf_data_stream<R: BufRead + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
) -> Result<Loaded> {
    let out = perf_data::load_stream(
        reader,
        name,
        &perf_options(opts),
        &opts.perf_data,
        MAX_STREAMED_PERF_DATA,
        opts.snapshots.as_ref(),
    )?;
    finish(out, name, Format::PerfData, opts.metric.as_deref())
}

/// Loads a profile from any reader.
///
/// # Errors
/// As [`load_path`].
pub fn load_reader<R: Read + Send>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    load_reader_into(reader, name, opts, None)
}

/// As [`load_reader`], leaving the trees of the parser threads apart as
/// [`load_path_parts`] does.
///
/// # Errors
/// As [`load_path`].
pub fn load_reader_parts<R: Read + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
) -> Result<(Loaded, Vec<CallTree>)> {
    let mut parts = Vec::new();
    let loaded = load_reader_into(reader, name, opts, Some(&mut parts))?;
    Ok(with_parts(loaded, parts))
}

/// [`load_reader`]; the parser threads' trees may be left apart in `parts`, as
/// [`load_path_parts`] says.
fn load_reader_into<R: Read + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
    mut parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
    let loaded = read_any(reader, name, opts, parts.as_deref_mut())?;
    let loaded = with_count_name(loaded, opts.count_name.as_deref());
    refuse_weightless(loaded, name, parts.as_deref().map_or(&[], |p| &p[..]))
}

/// A profile whose every stack weighs 0 (`a;b 0` alone) has nothing to draw: "no usable
/// samples", as a pprof profile of zero values says. A profile with other metrics is
/// kept (one of them may weigh something), and so is a differential one.
fn refuse_weightless(loaded: Loaded, name: &str, parts: &[CallTree]) -> Result<Loaded> {
    match &loaded {
        Loaded::Single(p)
            if p.tree.total() == 0
                && p.metrics.others.iter().all(|o| o.tree.total() == 0)
                && parts.iter().all(|t| t.total() == 0) =>
        {
            Err(Error::NoSamples {
                source_name: name.to_owned(),
                format: p
                    .stats
                    .format
                    .map_or_else(|| "this".to_owned(), |f| f.to_string()),
                detail: " (every stack has weight 0)".to_owned(),
            })
        }
        _ => Ok(loaded),
    }
}

/// [`load_reader_into`] before the check of the weights.
fn read_any<R: Read + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
    parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
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
        let (whole, is_perf_data) = match text.fill_buf() {
            Ok(head) => (read_whole(head, opts), is_perf_data(head)),
            Err(_) => (read_whole(&[], opts), false),
        };
        if is_perf_data {
            return load_perf_data_stream(text, name, opts);
        }
        match whole {
            Some(Whole::Pprof) => load_pprof(text, name, opts),
            Some(Whole::Json) => load_json(text, name, opts),
            None => load_text(text, name, opts, parts),
        }
    } else {
        let head = reader.fill_buf().map_err(io_err)?;
        if is_perf_data(head) {
            return load_perf_data_stream(reader, name, opts);
        }
        match read_whole(head, opts) {
            Some(Whole::Pprof) => load_pprof(reader, name, opts),
            Some(Whole::Json) => load_json(reader, name, opts),
            None => load_text(reader, name, opts, parts),
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
    match opts.format.forced() {
        Some(Format::Pprof) => Some(Whole::Pprof),
        Some(Format::Speedscope | Format::Cpuprofile) => Some(Whole::Json),
        None if pprof::sniff::sniff(head) == pprof::sniff::Sniff::Yes => Some(Whole::Pprof),
        None if detect::json(head) => Some(Whole::Json),
        _ => None,
    }
}

/// Reads a JSON profile whole and finishes it as the text formats are.
fn load_json<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let kind = match opts.format.forced() {
        Some(Format::Speedscope) => Some(json::Kind::Speedscope),
        Some(Format::Cpuprofile) => Some(json::Kind::Cpuprofile),
        _ => None,
    };
    let (out, format) = json::load(reader, name, kind, !opts.perf.no_timeline)?;
    finish(out, name, format, opts.metric.as_deref())
}

/// Reads a pprof profile whole and finishes it as the text formats are.
fn load_pprof<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let (mut all, shown, names) = pprof::load_every(reader, name, opts.metric.as_deref())?;
    let main = finish(all.remove(shown), name, Format::Pprof, None)?;
    let Loaded::Single(main) = main else {
        return Ok(main);
    };
    if names.len() < 2 {
        return Ok(Loaded::Single(main));
    }
    // Another metric may have no sample of its own: it is then an empty profile.
    let others = all.into_iter().map(|c| c.into_profile(name)).collect();
    Ok(Loaded::Single(main.with_metrics(names, shown, others)))
}

/// The magic bytes that open a perf.data recording, in file and pipe mode alike.
pub const PERF_DATA_MAGIC: &[u8; 8] = b"PERFILE2";

/// A perf.data recording, by its magic bytes whatever its name or `--format` (the bytes
/// are no text), in file and pipe mode, either byte order.
fn is_perf_data(head: &[u8]) -> bool {
    head.starts_with(PERF_DATA_MAGIC) || head.starts_with(b"2ELIFREP")
}

/// The format of a text input: forced, sniffed by flametui's detection, else guessed by
/// inferno's collapsers (which may read more of the input into the prefix).
fn text_format<R: BufRead>(
    reader: &mut capped::CappedLines<R>,
    prefix: &mut Vec<u8>,
    ended: &mut bool,
    error: &mut Option<io::Error>,
    name: &str,
    opts: &LoadOptions,
) -> Result<Format> {
    if let Some(forced) = opts.format.forced() {
        // Forced pprof and JSON inputs are read whole before any text is.
        return Ok(forced);
    }
    if let Some(format) = detect::detect(prefix) {
        return Ok(format);
    }
    let long = reader.long_lines();
    if capped::without_long(prefix)
        .iter()
        .all(u8::is_ascii_whitespace)
        && long.count() > 0
    {
        // Nothing but lines too long to read: nothing to tell the format by.
        return Err(Error::NoSamples {
            source_name: name.to_owned(),
            format: "text".to_owned(),
            detail: format!(
                " (skipped: {} × {})",
                long.count(),
                capped::LONG_LINE_REASON
            ),
        });
    }
    // inferno's collapsers would read the marker of a long line as data.
    reader.leave_out(prefix, !*ended && error.is_none());
    let guessed = inferno::guess(prefix, reader, ended, error);
    guessed
        .map(inferno::Collapser::format)
        .ok_or_else(|| Error::UnknownFormat {
            source_name: name.to_owned(),
            head: detect::head(prefix),
        })
}

/// Reads a text input through one of inferno's collapsers: the prefix, then the rest, the
/// lines too long to read left out of both and counted as skipped.
fn load_collapsed<R: BufRead + Send>(
    mut reader: capped::CappedLines<R>,
    mut prefix: detect::Prefix,
    name: &str,
    collapser: inferno::Collapser,
) -> Result<Collector> {
    let more = prefix.error.is_none() && !prefix.ended;
    reader.leave_out(&mut prefix.bytes, more);
    let long = reader.long_lines();
    let rest: Box<dyn Read + Send + '_> = if more {
        Box::new(reader)
    } else {
        Box::new(io::empty())
    };
    let input = BufReader::new(Cursor::new(prefix.bytes).chain(rest));
    let loaded = inferno::load(input, name, collapser);
    // A collapser that fails on a prefix cut by a read error failed because of it.
    let mut out = match (loaded, &prefix.error) {
        (Err(Error::Collapse { .. }), Some(e)) => {
            return Err(Error::Read {
                source_name: name.to_owned(),
                error: io::Error::new(e.kind(), e.to_string()),
            });
        }
        (loaded, _) => loaded?,
    };
    if let Some(e) = prefix.error {
        out.stats.read_error.get_or_insert(e.to_string());
    }
    long.record(&mut out.stats);
    Ok(out)
}

fn load_text<R: BufRead + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
    parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
    let io_err = |error| Error::Read {
        source_name: name.to_owned(),
        error,
    };
    // No line longer than the cap goes on to detection or a parser (see `capped`).
    let mut reader = capped::CappedLines::new(reader, capped::MAX_LINE);
    let detect::Prefix {
        bytes: mut prefix,
        error: mut prefix_error,
        mut ended,
    } = detect::read_prefix(&mut reader);
    if let Some(error) = prefix_error.as_ref().filter(|_| prefix.is_empty()) {
        return Err(io_err(io::Error::new(error.kind(), error.to_string())));
    }
    if prefix.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty {
            source_name: name.to_owned(),
        });
    }
    let format = text_format(
        &mut reader,
        &mut prefix,
        &mut ended,
        &mut prefix_error,
        name,
        opts,
    )?;
    if let Some(collapser) = inferno::Collapser::of(format) {
        let prefix = detect::Prefix {
            bytes: prefix,
            error: prefix_error,
            ended,
        };
        let collapsed = load_collapsed(reader, prefix, name, collapser);
        return finish(collapsed?, name, collapser.format(), opts.metric.as_deref());
    }
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
    // The parsers number the lines, the markers of long lines among them.
    reader.unnumbered();
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
            let input = BufReader::new(input);
            match parts {
                Some(parts) => parallel::parse_parts(input, &parser, threads, chunk_size, parts),
                None => parallel::parse(input, &parser, threads, chunk_size),
            }
            .map_err(io_err)?
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
    finish(out, name, format, opts.metric.as_deref())
}

/// Whether a folded input is differential, and how to parse it in chunks (`None`: not
/// at all), judged from the prefix. (Its decoded copy is dropped here, before parsing:
/// a first line may be long.)
fn decide(prefix: &[u8], format: Format, opts: &LoadOptions) -> (bool, Option<ChunkParser>) {
    let text = String::from_utf8_lossy(prefix);
    let head: Vec<&str> = text.lines().filter(|l| *l != capped::LONG_LINE).collect();
    let diff = folded::FoldedParser::sniff_diff(&head);
    let chunked = match format {
        Format::Perf => {
            let mut perf = opts.perf.clone();
            perf.event = perf.event.or_else(|| perf::first_event(&head));
            perf.event.is_some().then_some(ChunkParser::Perf(perf))
        }
        Format::Folded | Format::DiffFolded => Some(ChunkParser::Folded(diff)),
        _ => None,
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
                if !capped::skip_long(&line, state, out) {
                    f(&line, state, out);
                }
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
        Format::Perf | Format::PerfData => {
            let mut p = perf::PerfParser::new(opts.perf.clone());
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(out);
            out.stats.format = Some(Format::Perf);
        }
        // The formats read whole never come here (pprof, JSON, inferno's).
        Format::Stap
        | Format::Pprof
        | Format::Speedscope
        | Format::Cpuprofile
        | Format::Dtrace
        | Format::Sample
        | Format::Vtune
        | Format::Xctrace
        | Format::Vsprof
        | Format::Ghcprof => {
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

/// Finishes a parsed input into a profile, with the metric `metric` shown (`--metric`).
fn finish(out: Collector, name: &str, format: Format, metric: Option<&str>) -> Result<Loaded> {
    select_metric(finish_all(out, name, format)?, metric)
}

/// The profile of a parsed input, every metric kept, the default one shown.
fn finish_all(mut out: Collector, name: &str, format: Format) -> Result<Loaded> {
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
    out.own_names();
    let others = std::mem::take(&mut out.others);
    let after = out.after.take();
    let before = out.into_profile(name);
    let loaded = match after {
        None if !others.is_empty() || before.samples.switches().is_some() => {
            Loaded::Single(with_event_metrics(before, others))
        }
        None if format == Format::Stap => {
            Loaded::Single(crate::profile::metrics::split_halves(before))
        }
        None => Loaded::Single(before),
        Some(mut after) => {
            after.finish();
            Loaded::Diff {
                after: Profile {
                    metrics: crate::profile::metrics::Metrics::default(),
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

/// A perf profile of one event with the other events of its input as metrics, each its
/// own profile (same stats but for its samples and unit). Metrics are in name order.
fn with_event_metrics(mut main: Profile, others: Vec<Collector>) -> Profile {
    // What is said of the input as a whole (events seen, lines skipped) stays with the
    // profile shown: copied to every metric it would grow with their number squared.
    let events = std::mem::take(&mut main.stats.events);
    let bad_lines = std::mem::take(&mut main.stats.bad_lines);
    let mut all: Vec<Profile> = others
        .into_iter()
        .map(|o| {
            let mut p = o.into_profile(&main.source);
            let own = std::mem::replace(&mut p.stats, main.stats.clone());
            p.stats.samples = own.samples;
            p.stats.unit = own.unit;
            p.stats.event = own.event;
            p
        })
        .collect();
    main.stats.events = events;
    main.stats.bad_lines = bad_lines;
    let mut main_event = main.stats.event.clone();
    // perf.data with no event asked for: the header's first event with samples, as
    // `perf report` shows first (the first seen may be another: page faults come before
    // the first clock tick).
    let first_listed = main.stats.event_order.iter().find(|e| {
        std::iter::once(&main)
            .chain(&all)
            .any(|p| p.stats.event.as_ref() == Some(*e) && p.stats.samples > 0)
    });
    if let Some(e) = first_listed {
        main_event = Some(e.clone());
    }
    let read_first = main.stats.event.clone();
    all.push(main);
    // Off-CPU time, from the scheduler's switches: shown when the recording holds only
    // scheduler events (a count of switches answers no question about time).
    if let Some((off, notes)) = crate::profile::offcpu::off_cpu(&all) {
        if all.iter().all(|p| {
            p.stats
                .event
                .as_deref()
                .is_some_and(|e| e.starts_with("sched:"))
        }) {
            main_event.clone_from(&off.stats.event);
        }
        all.push(off);
        for p in &mut all {
            p.stats.off_cpu = Some(notes.clone());
        }
    }
    // With a clock event beside off-CPU time (made from the switches, or measured by
    // `perf record --off-cpu`): on- and off-CPU time side by side, in ns.
    let off = all
        .iter()
        .find(|p| p.stats.event.as_deref() == Some(crate::profile::offcpu::METRIC))
        .or_else(|| {
            all.iter()
                .find(|p| p.stats.event.as_deref() == Some(perf::OFFCPU_TIME))
        });
    let wall = off.and_then(|off| {
        all.iter()
            .filter(|p| crate::profile::blocks::is_clock(p))
            .find_map(|on| crate::profile::offcpu::wall(on, off))
    });
    all.extend(wall);
    // One origin for every metric of the recording: its first time of any event, so
    // that `--time`, ranges and heat-map columns mean the same instants in each.
    let origin = all
        .iter()
        .filter_map(|p| p.samples.first_sample_time())
        .min();
    if let Some(origin) = origin {
        for p in &mut all {
            if !p.samples.is_empty() {
                std::sync::Arc::make_mut(&mut p.samples).set_origin(origin);
            }
        }
    }
    all.sort_by(|a, b| a.stats.event.cmp(&b.stats.event));
    let names: Vec<String> = all
        .iter()
        .map(|p| p.stats.event.clone().unwrap_or_default())
        .collect();
    let shown = all
        .iter()
        .position(|p| p.stats.event == main_event)
        .unwrap_or(0);
    // What is said of the whole input goes with the profile shown.
    if all[shown].stats.event != read_first
        && let Some(i) = all.iter().position(|p| p.stats.event == read_first)
    {
        let events = std::mem::take(&mut all[i].stats.events);
        let bad_lines = std::mem::take(&mut all[i].stats.bad_lines);
        if !events.is_empty() {
            all[shown].stats.events = events;
        }
        if !bad_lines.is_empty() {
            all[shown].stats.bad_lines = bad_lines;
        }
    }
    let main = all.remove(shown);
    main.with_metrics(names, shown, all)
}

/// The metric asked for with `--metric` (every format: perf events, pprof sample types,
/// SystemTap's halves).
///
/// # Errors
/// [`Error::UnknownMetric`] naming the metrics there are.
fn select_metric(loaded: Loaded, metric: Option<&str>) -> Result<Loaded> {
    let Some(wanted) = metric else {
        return Ok(loaded);
    };
    let p = match loaded {
        Loaded::Single(p) => p,
        diff @ Loaded::Diff { .. } => {
            return Err(Error::UnknownMetric {
                source_name: diff.main().source.clone(),
                metric: wanted.to_owned(),
                metrics: "(none: a differential folded file has one metric per column)".to_owned(),
            });
        }
    };
    if p.metric_name() == Some(wanted)
        || (p.metric_names().is_empty() && p.stats.event.as_deref() == Some(wanted))
    {
        return Ok(Loaded::Single(p));
    }
    match p.into_metric_named(wanted) {
        Ok(p) => Ok(Loaded::Single(p)),
        Err(p) => Err(Error::UnknownMetric {
            source_name: p.source.clone(),
            metric: wanted.to_owned(),
            metrics: if p.metric_names().is_empty() {
                format!(
                    "(none: {} has one metric, {})",
                    p.stats
                        .format
                        .map_or("this input".to_owned(), |f| f.to_string()),
                    p.stats.unit
                )
            } else {
                p.metric_names().join(", ")
            },
        }),
    }
}
