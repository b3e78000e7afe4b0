//! Opening a path or a reader: gzip, perf.data, JSON and pprof, then the text formats.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};

use super::finish::finish;
use super::load_text::load_text;
use super::loaded::Loaded;
use super::options::LoadOptions;
use super::perf::PerfOptions;
use super::{detect, json, perf_data, pprof};
use crate::error::{Error, Result};
use crate::profile::{CallTree, Format, Profile, Unit};

/// Display name of a path argument.
pub fn source_name(path: &str) -> String {
    if path == "-" {
        "<stdin>".to_owned()
    } else if path == super::demo::PATH {
        super::demo::NAME.to_owned()
    } else {
        path.to_owned()
    }
}

/// What a path argument names, opened: standard input (`-`), the built-in demo profile,
/// or a file (which may be a FIFO, a shell's `<(…)` or a device).
pub enum Opened {
    /// `-`.
    Stdin,
    /// The demo profile's bytes.
    Builtin(&'static [u8]),
    /// A file, opened.
    File(File),
}

/// Opens what `path` names (see [`Opened`]).
///
/// # Errors
/// The file cannot be opened.
pub fn open_path(path: &str) -> io::Result<Opened> {
    if path == "-" {
        widen_pipe(io::stdin());
        return Ok(Opened::Stdin);
    }
    if let Some(bytes) = super::demo::builtin(path) {
        return Ok(Opened::Builtin(bytes));
    }
    let file = File::open(path)?;
    // A FIFO, or a shell's `<(…)`.
    widen_pipe(&file);
    Ok(Opened::File(file))
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
pub(super) fn with_count_name(mut loaded: Loaded, name: Option<&str>) -> Loaded {
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
/// AFTER side. For the same consumer, which orders each family as it writes it, the
/// profile's tree of one event is not ordered by name either (as the parts are not):
/// [`CallTree::finish`] orders it for any other use.
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
pub(super) fn with_parts(mut loaded: Loaded, parts: Vec<CallTree>) -> (Loaded, Vec<CallTree>) {
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

pub(super) fn load_path_into(
    path: &str,
    opts: &LoadOptions,
    parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
    let name = source_name(path);
    let open_err = |error| Error::Read {
        source_name: name.clone(),
        error,
    };
    let mut file = match open_path(path).map_err(open_err)? {
        Opened::Stdin => return load_reader_into(io::stdin(), &name, opts, parts),
        Opened::Builtin(bytes) => return load_reader_into(bytes, &name, opts, parts),
        Opened::File(file) => file,
    };
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
pub(super) fn perf_options(opts: &LoadOptions) -> PerfOptions {
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
pub(super) const MAX_STREAMED_PERF_DATA: u64 = 4 << 30;

pub(super) fn load_perf_data_stream<R: BufRead + Send>(
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
pub(super) fn load_reader_into<R: Read + Send>(
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
pub(super) fn refuse_weightless(loaded: Loaded, name: &str, parts: &[CallTree]) -> Result<Loaded> {
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
pub(super) fn read_any<R: Read + Send>(
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
pub(super) enum Whole {
    /// A pprof protobuf message.
    Pprof,
    /// A JSON document (speedscope, `.cpuprofile`).
    Json,
}

/// Whether to read the input whole, and as what: forced, or sniffed from the first bytes
/// when the format is not (`head` is empty when they could not be read).
pub(super) fn read_whole(head: &[u8], opts: &LoadOptions) -> Option<Whole> {
    match opts.format.forced() {
        Some(Format::Pprof) => Some(Whole::Pprof),
        Some(Format::Speedscope | Format::Cpuprofile) => Some(Whole::Json),
        None if pprof::sniff::sniff(head) == pprof::sniff::Sniff::Yes => Some(Whole::Pprof),
        None if detect::json(head) => Some(Whole::Json),
        _ => None,
    }
}

/// Reads a JSON profile whole and finishes it as the text formats are.
pub(super) fn load_json<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
    let kind = match opts.format.forced() {
        Some(Format::Speedscope) => Some(json::Kind::Speedscope),
        Some(Format::Cpuprofile) => Some(json::Kind::Cpuprofile),
        _ => None,
    };
    let (out, format) = json::load(reader, name, kind, !opts.perf.no_timeline)?;
    finish(out, name, format, opts.metric.as_deref())
}

/// Reads a pprof profile whole and finishes it as the text formats are.
pub(super) fn load_pprof<R: Read>(reader: R, name: &str, opts: &LoadOptions) -> Result<Loaded> {
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
pub(super) fn is_perf_data(head: &[u8]) -> bool {
    head.starts_with(PERF_DATA_MAGIC) || head.starts_with(b"2ELIFREP")
}

/// Asks for a 1 MiB buffer on `fd` when it is a pipe (Linux's default is 64 KiB, and
/// an unprivileged process may ask for up to `/proc/sys/fs/pipe-max-size`, 1 MiB by
/// default): the writer and this reader then wake each other a sixteenth as often. Nothing
/// when it is not a pipe, already holds as much, or the system refuses.
fn widen_pipe(fd: impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        const WIDE: i32 = 1 << 20;
        let fd = fd.as_fd();
        // Only ever larger: a pipe made wider by its writer stays so.
        if fcntl(fd, FcntlArg::F_GETPIPE_SZ).is_ok_and(|size| size < WIDE) {
            let _ = fcntl(fd, FcntlArg::F_SETPIPE_SZ(WIDE));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}
