//! Stage: a perf.data recording (file or pipe mode) → samples, named as `perf script`
//! names them, fed to the same [`PerfParser`] that reads
//! `perf script` text, so both give the same tree and sample table.
//!
//! The records (`linux-perf-data`): the event attributes (one event per attribute), then
//! in time order COMM/FORK/EXIT (the comm current at each sample's time, as perf script
//! shows it), MMAP/MMAP2 (per-process address maps) and SAMPLE (time, pid/tid, cpu,
//! period, callchain, user registers and stack). Each sample becomes one event line and
//! its stack lines: kernel frames from the kernel symbol table of this machine
//! ([`symbols::Kallsyms`]), user frames from the ELF files the maps name
//! ([`symbols::load_dso`]), with the frames DWARF says are inlined; a
//! `--call-graph dwarf` sample's user stack is unwound first ([`unwind`]).
//!
//! Compressed records (`perf record -z`) are replaced by the records they hold before the
//! parser sees them ([`compressed`]; a file's view in [`expanded`]).
//!
//! Bad input: the header is checked against the file's size before anything is
//! allocated from it ([`check`]); a record that cannot be read ends the input, and what
//! was read before it loads, with the reason kept as the input's read error.
//!
//! This file holds the entry points and the reader's state; `records` makes the reader
//! and runs the record loop (maps, DSOs, notes), `sample` gives each sample to the parser
//! (at once, or after the kernel's symbols), and `resolve` turns a sample's addresses into
//! frames.

pub mod check;
pub mod compressed;
pub mod dwarf;
pub mod expanded;
pub mod live;
pub mod paged;
pub mod symbols;
pub mod tracepoint;
pub mod unwind;
pub mod zstd;

mod records;
mod resolve;
mod sample;

use std::io::{BufRead, Read, Seek};
use std::path::PathBuf;
use std::sync::Arc;

use linux_perf_data::PerfFileReader;
use rustc_hash::FxHashMap;

use super::Collector;
use super::live::Snapshots;
use super::perf::{PerfOptions, PerfParser};
use crate::error::{Error, Result};
use records::read_records;
use symbols::{Found, Kallsyms, SearchPath};

/// How to read a recording, beside the perf options shared with `perf script` text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerfDataOptions {
    /// Directories searched for the recording's binaries before their own paths
    /// (`perf report --symfs`).
    pub symfs: Vec<PathBuf>,
    /// A kallsyms file to read instead of this machine's `/proc/kallsyms`.
    pub kallsyms: Option<PathBuf>,
    /// perf's build-id cache directory (`~/.debug`; none: not looked in).
    pub buildid_dir: Option<PathBuf>,
    /// Read each frame's source line from its binary's DWARF (the Source screen,
    /// `--annotate`). Off, a binary's DWARF is read only for the inline frames of
    /// DWARF-unwound stacks: lines cost a frame-pointer recording of a binary with much
    /// DWARF the loading of it (0.22 s for flametui's 65 MB release build), which the
    /// outputs that show no line need not pay.
    pub lines: bool,
}

/// Reads a recording from a seekable reader (file mode) or a stream (pipe mode).
///
/// # Errors
/// [`Error::PerfData`] when the header cannot be read (the message says why).
pub fn load_seekable<R: Read + Seek>(
    mut reader: R,
    len: u64,
    name: &str,
    perf: &PerfOptions,
    opts: &PerfDataOptions,
) -> Result<Collector> {
    let bad = |message: String| Error::PerfData {
        source_name: name.to_owned(),
        message,
    };
    let layout = check::check_header(&mut reader, len).map_err(bad)?;
    reader.rewind().map_err(|e| bad(e.to_string()))?;
    let report = compressed::Report::default();
    if layout.pipe {
        let guard = check::PipeGuard::new(std::io::BufReader::new(reader), report.clone());
        let r = PerfFileReader::parse_pipe(guard).map_err(|e| bad(e.to_string()))?;
        return Ok(read_records(r, perf, opts, &report, None));
    }
    // Every file's records go through the record filter: compressed ones expanded (when
    // the HEADER_COMPRESSED feature names the method, else refused), an AUXTRACE
    // record's data size checked against the data section before the parser allocates it.
    let compressed = layout.feature(compressed::FEATURE_COMPRESSED);
    if let Some((off, size)) = compressed {
        let mut section = vec![0u8; size.min(64) as usize];
        reader
            .seek(std::io::SeekFrom::Start(off))
            .and_then(|_| reader.read_exact(&mut section))
            .map_err(|e| bad(e.to_string()))?;
        compressed::check_method(&section, layout.little_endian).map_err(bad)?;
        reader.rewind().map_err(|e| bad(e.to_string()))?;
    }
    let view = expanded::Expanded::new(reader, &layout, len, report.clone())
        .refusing_compressed(compressed.is_none());
    let r = PerfFileReader::parse_file(view).map_err(|e| bad(e.to_string()))?;
    Ok(read_records(r, perf, opts, &report, None))
}

/// Reads a recording from a stream: pipe mode as it comes (with `snapshots`, sending
/// snapshots of it while it streams: [`live`]), file mode read whole into memory first
/// (at most `max_bytes`).
///
/// # Errors
/// As [`load_seekable`]; a file-mode recording larger than `max_bytes`.
pub fn load_stream<R: BufRead + Send>(
    mut reader: R,
    name: &str,
    perf: &PerfOptions,
    opts: &PerfDataOptions,
    max_bytes: u64,
    snapshots: Option<&Snapshots>,
) -> Result<Collector> {
    let bad = |message: String| Error::PerfData {
        source_name: name.to_owned(),
        message,
    };
    let head = reader.fill_buf().map_err(|e| bad(e.to_string()))?;
    if let Some(snapshots) = snapshots.filter(|_| check::is_pipe_header(head)) {
        return live::load_pipe(reader, name, perf, opts, snapshots);
    }
    if check::is_pipe_header(head) {
        return read_pipe(reader, name, perf, opts);
    }
    let mut bytes = Vec::new();
    reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| bad(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(bad(format!(
            "a perf.data file read from a stream is read whole, and this one is over {} MiB; give its path instead",
            max_bytes >> 20
        )));
    }
    let len = bytes.len() as u64;
    load_seekable(std::io::Cursor::new(bytes), len, name, perf, opts)
}

/// Reads a pipe-mode recording as it comes, on this thread.
fn read_pipe<R: BufRead>(
    reader: R,
    name: &str,
    perf: &PerfOptions,
    opts: &PerfDataOptions,
) -> Result<Collector> {
    let report = compressed::Report::default();
    let r =
        PerfFileReader::parse_pipe(check::PipeGuard::new(reader, report.clone())).map_err(|e| {
            Error::PerfData {
                source_name: name.to_owned(),
                message: e.to_string(),
            }
        })?;
    Ok(read_records(r, perf, opts, &report, None))
}

/// One mapped file of a process.
#[derive(Debug, Clone, Copy)]
struct Map {
    start: u64,
    end: u64,
    pgoff: u64,
    dso: u32,
}

/// A process: its maps by start address, and the unwinder made from them.
#[derive(Default)]
struct Process {
    maps: Vec<Map>,
    unwinder: Option<unwind::ProcessUnwinder>,
}

impl Process {
    /// Adds a map; the parts of older maps it covers are dropped (an exec, a re-map).
    fn insert(&mut self, map: Map) {
        self.maps
            .retain(|m| m.end <= map.start || m.start >= map.end);
        let at = self.maps.partition_point(|m| m.start < map.start);
        self.maps.insert(at, map);
        self.unwinder = None;
    }

    fn find(&self, addr: u64) -> Option<&Map> {
        let at = self.maps.partition_point(|m| m.start <= addr);
        self.maps.get(at.checked_sub(1)?).filter(|m| addr < m.end)
    }
}

/// A file a recording maps, loaded on first use.
struct Dso {
    path: Arc<str>,
    loaded: Option<Found>,
}

/// One resolved frame: name and DSO as perf script prints them.
#[derive(Debug, Clone)]
struct Frame {
    /// The address perf script prints: in the file for a mapped one, else the raw one.
    pc: u64,
    symbol: Arc<str>,
    dso: Arc<str>,
    /// Inlined at `pc` (perf script writes `(inlined)` for its DSO): its library is still
    /// `dso`, the mapping of its address.
    inlined: bool,
    /// Its source line, from its file's DWARF (what perf script's srcline prints).
    line: Option<symbols::SrcLine>,
    /// Without a line (no DWARF there), when lines are read: its symbol's addresses
    /// `[start, end)`, for the cost per instruction.
    code: Option<(u64, u64)>,
}

/// The reader's state over the records.
struct Reader<'o> {
    perf: PerfParser,
    opts: &'o PerfDataOptions,
    search: SearchPath,
    events: Vec<(String, String)>,
    comms: FxHashMap<i32, Arc<str>>,
    processes: FxHashMap<i32, Process>,
    dsos: Vec<Dso>,
    dso_ids: FxHashMap<Arc<str>, u32>,
    build_ids: FxHashMap<Vec<u8>, Vec<u8>>,
    kallsyms: Option<Kallsyms>,
    /// The kernel's symbols being read on another thread (reading `/proc/kallsyms` is
    /// slow: the kernel formats every line), while the records are.
    kallsyms_job: Option<std::thread::JoinHandle<Kallsyms>>,
    /// The kernel symbol table chosen for the recording (the build-id cache's copy when
    /// there is one), read on the thread above or, when no thread could be
    /// started for it, on first use.
    kallsyms_path: Option<std::path::PathBuf>,
    /// Resolved frames per (DSO, file offset, with inline frames), innermost first.
    cache: FxHashMap<(u32, u64, bool), Arc<[Frame]>>,
    /// The machine code of functions without lines, by DSO path and start, read once.
    codes: FxHashMap<(Arc<str>, u64), Option<crate::profile::source::SharedCode>>,
    unknown: Arc<str>,
    kernel: Arc<str>,
    /// perf's name of the idle task (pid and tid 0).
    swapper: Arc<str>,
    pc: String,
    regs_user: Vec<u64>,
    notes: Vec<String>,
    frames: Vec<Frame>,
    /// Where in `frames` the kernel frames still to be named are.
    kernel_at: Vec<usize>,
    /// Samples resolved while the kernel's symbols were being read, in order, with
    /// their kernel frames still to be named.
    waiting: Vec<Waiting>,
    /// Samples may wait for the kernel's symbols (not while streaming live).
    may_wait: bool,
    /// Recorded on another architecture than x86-64: no DWARF unwinding (the registers
    /// are another machine's).
    foreign: bool,
    /// Which events are `sched:sched_switch` (by attribute).
    is_switch: Vec<bool>,
    /// Where its fields are, from the recording's tracing data.
    switch_format: Option<tracepoint::SwitchFormat>,
    little_endian: bool,
}

/// The most samples that wait for the kernel's symbols (their frames are held: a
/// frame-pointer recording reads tens of thousands of samples in the time the symbols
/// take).
const MAX_WAITING: usize = 4096;

/// What the parser is told of a sample before its frames.
struct Head {
    attr: usize,
    /// The comm at the sample's time.
    comm: Arc<str>,
    pid: i32,
    tid: i32,
    time: Option<u64>,
    /// The CPU it was taken on, when the recording has it.
    cpu: Option<u32>,
    period: Option<u64>,
    /// What a `sched_switch` sample's raw data says.
    switch: Option<crate::profile::Switch>,
}

/// A sample waiting for the kernel's symbols: its frames leaf first, and where its
/// kernel frames are among them.
struct Waiting {
    head: Head,
    frames: Vec<Frame>,
    kernel_at: Vec<usize>,
}

/// perf's callchain context markers (`PERF_CONTEXT_*`): -4095 and above.
const CONTEXT_MAX: u64 = u64::MAX - 4094;
/// `PROT_EXEC` of an mmap's protection.
const PROT_EXEC: u32 = 4;
const CONTEXT_KERNEL: u64 = u64::MAX - 127;
/// The known ones: hypervisor, kernel, user, guest, guest kernel, guest user.
const CONTEXTS: [u64; 6] = [
    u64::MAX - 31,
    CONTEXT_KERNEL,
    u64::MAX - 511,
    u64::MAX - 2047,
    u64::MAX - 2175,
    u64::MAX - 2559,
];

/// The event name and the name as printed (with modifiers): `cycles:u` → (`cycles`,
/// `cycles:u`); a tracepoint `sched:sched_switch` keeps its full name.
fn event_names(name: &str) -> (String, String) {
    let is_modifiers = |m: &str| !m.is_empty() && m.chars().all(|c| "ukhIGHpPSDWeb".contains(c));
    match name.rsplit_once(':') {
        Some((base, m)) if is_modifiers(m) => (base.to_owned(), name.to_owned()),
        _ => (name.to_owned(), name.to_owned()),
    }
}

/// The kernel's symbols: from `path` (`--kallsyms`), else this machine's.
fn read_kallsyms(path: Option<&std::path::Path>) -> Kallsyms {
    match path {
        Some(path) => Kallsyms::from_file(path),
        None => Kallsyms::from_machine(),
    }
}
