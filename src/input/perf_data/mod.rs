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

pub mod check;
pub mod compressed;
pub mod dwarf;
pub mod expanded;
pub mod live;
pub mod symbols;
pub mod tracepoint;
pub mod unwind;
pub mod zstd;

use std::cell::RefCell;
use std::io::{BufRead, Read, Seek};
use std::path::PathBuf;
use std::sync::Arc;

use linux_perf_data::linux_perf_event_reader::{
    CommonData, ContextSwitchRecord, EventRecord, SampleRecord,
};
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use rustc_hash::FxHashMap;

use super::live::{Snapshots, Tick};
use super::perf::{EventLine, PerfOptions, PerfParser, StackLine};
use super::{Collector, ParseState};
use crate::error::{Error, Result};
use symbols::{Elf, Found, Kallsyms, SearchPath};

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
        let report = compressed::Report::default();
        let r = PerfFileReader::parse_pipe(check::PipeGuard::new(reader, report.clone()))
            .map_err(|e| bad(e.to_string()))?;
        return Ok(read_records(r, perf, opts, &report, None));
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
    /// Resolved frames per (DSO, file offset, with inline frames), innermost first.
    cache: FxHashMap<(u32, u64, bool), Arc<[Frame]>>,
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
        Some(path) => std::fs::read_to_string(path)
            .map_or_else(|_| Kallsyms::default(), |t| Kallsyms::parse(&t)),
        None => Kallsyms::from_machine(),
    }
}

impl<'o> Reader<'o> {
    /// The reader of a recording's records, from what its header and features say.
    fn new(
        perf_file: &linux_perf_data::PerfFile,
        perf: &PerfOptions,
        opts: &'o PerfDataOptions,
    ) -> Self {
        let events: Vec<(String, String)> = perf_file
            .event_attributes()
            .iter()
            .enumerate()
            .map(|(i, a)| event_names(a.name().unwrap_or(&format!("event{i}"))))
            .collect();
        let is_switch = events
            .iter()
            .map(|(e, _)| e == super::perf::SCHED_SWITCH)
            .collect();
        let little_endian = perf_file.endian() == linux_perf_data::Endianness::LittleEndian;
        let switch_format = perf_file
            .feature_section_data(linux_perf_data::Feature::TRACING_DATA)
            .and_then(|t| tracepoint::SwitchFormat::find(t, little_endian));
        let regs_user = perf_file
            .event_attributes()
            .iter()
            .map(|a| a.attributes().sample_regs_user)
            .collect();
        let build_ids = perf_file
            .build_ids()
            .map(|ids| {
                ids.into_values()
                    .map(|info| (info.path, info.build_id))
                    .collect()
            })
            .unwrap_or_default();
        // A metric the recording has no event of: every event is kept, and the metrics
        // there are get listed (as for perf script text), rather than no sample at all.
        let mut perf = perf.clone();
        if perf.event_from_metric
            && let Some(e) = &perf.event
            && !events.iter().any(|(base, spec)| base == e || spec == e)
        {
            perf.event = None;
        }
        let mut r = Reader {
            perf: PerfParser::new(perf),
            opts,
            search: SearchPath {
                symfs: opts.symfs.clone(),
                buildid_cache: opts.buildid_dir.clone(),
            },
            events,
            comms: FxHashMap::default(),
            processes: FxHashMap::default(),
            dsos: Vec::new(),
            dso_ids: FxHashMap::default(),
            build_ids,
            kallsyms: None,
            kallsyms_job: None,
            cache: FxHashMap::default(),
            unknown: Arc::from("[unknown]"),
            kernel: Arc::from("[kernel.kallsyms]"),
            swapper: Arc::from("swapper"),
            pc: String::new(),
            regs_user,
            notes: Vec::new(),
            frames: Vec::new(),
            kernel_at: Vec::new(),
            waiting: Vec::new(),
            may_wait: false,
            foreign: false,
            is_switch,
            switch_format,
            little_endian,
        };
        if let Ok(Some(arch)) = perf_file.arch()
            && arch != "x86_64"
        {
            r.foreign = true;
            r.notes.push(format!(
            "recorded on {arch}: callchains are read, DWARF user stacks are not unwound (x86-64 only)"
        ));
        }
        r.machine_notes(perf_file);
        r.start_kallsyms(perf_file);
        r
    }
}

/// Reads every record into a collector; with `live`, into the shared one, sending
/// snapshots of it ([`live`]).
fn read_records<R: Read>(
    reader: PerfFileReader<R>,
    perf: &PerfOptions,
    opts: &PerfDataOptions,
    report: &compressed::Report,
    live: Option<&RefCell<live::Shared<'_>>>,
) -> Collector {
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = reader;
    let mut own = Collector::default();
    let mut r = Reader::new(&perf_file, perf, opts);
    // A live snapshot shows what the parser has: no sample waits there.
    r.may_wait = live.is_none();
    let mut state = ParseState::default();
    let mut read_error = None;
    loop {
        match record_iter.next_record(&mut perf_file) {
            Ok(Some(PerfFileRecord::EventRecord { attr_index, record })) => {
                state.line_no += 1;
                if r.switch_format.is_none()
                    && let Some(t) = report.take_tracing()
                {
                    r.switch_format = tracepoint::SwitchFormat::find(&t, r.little_endian);
                }
                let parsed = check::parse_record(&record);
                // Streaming: the shared collector, borrowed for this record only (the
                // reader borrows it while it waits for bytes).
                let mut shared = live.map(RefCell::borrow_mut);
                let out = match shared.as_deref_mut() {
                    Some(s) => &mut s.out,
                    None => &mut own,
                };
                match parsed {
                    Some(EventRecord::ContextSwitch(ContextSwitchRecord::In { .. })) => {
                        // The thread coming on a CPU is the record's own (for the
                        // CPU-wide form too, whose pid and tid are the previous task's).
                        if let Ok(CommonData {
                            tid: Some(tid),
                            timestamp: Some(t),
                            ..
                        }) = record.common_data()
                        {
                            out.samples.push_switch_in(t, i64::from(tid));
                        }
                    }
                    Some(EventRecord::Lost(_)) => out.stats.lost_records += 1,
                    Some(rec) => r.record(attr_index, rec, &mut state, out),
                    None => state.skip(out, "unreadable perf.data record", ""),
                }
                if let Some(s) = shared.as_deref_mut() {
                    s.records = state.line_no;
                    s.tick(Tick::Line);
                }
            }
            Ok(Some(PerfFileRecord::UserRecord(_))) => state.line_no += 1,
            Ok(None) => break,
            // The expanded records' view ends where the records do: no error.
            Err(_) if report.ended() => break,
            Err(e) => {
                read_error = Some(format!("after record {}: {e}", state.line_no));
                break;
            }
        }
    }
    let mut out = match live {
        Some(shared) => std::mem::take(&mut shared.borrow_mut().out),
        None => own,
    };
    if read_error.is_some() {
        out.stats.read_error = read_error;
    }
    if let Some(e) = report.error() {
        out.stats.read_error = Some(format!("after record {}: {e}", state.line_no));
    }
    r.flush_waiting(&mut out);
    r.perf.finish(&mut out);
    if perf.event.is_none() {
        out.stats.event_order = r.events.iter().map(|(base, _)| base.clone()).collect();
    }
    r.finish_notes(&mut out);
    // Records are not lines: only the unreadable ones are counted (as skipped), so the
    // line accounting of the text formats still adds up.
    out.stats.line_counts = crate::profile::LineCounts::default();
    out.stats.lines = out.stats.skipped_lines();
    out.stats.format = Some(crate::profile::Format::PerfData);
    out
}

impl Reader<'_> {
    /// Notes on where the recording was made: another kernel, another architecture.
    fn machine_notes(&mut self, perf_file: &linux_perf_data::PerfFile) {
        if let Ok(Some(release)) = perf_file.os_release()
            && let Ok(here) = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            && here.trim() != release.trim()
        {
            self.notes.push(format!(
                "recorded on kernel {release}, read on {}: kernel frames are named from this machine's symbols",
                here.trim()
            ));
        }
    }

    /// Starts reading the kernel's symbols when an event may have kernel frames.
    fn start_kallsyms(&mut self, perf_file: &linux_perf_data::PerfFile) {
        let wants_kernel = perf_file.event_attributes().iter().any(|a| {
            !a.attributes()
                .flags
                .contains(linux_perf_data::linux_perf_event_reader::AttrFlags::EXCLUDE_KERNEL)
        });
        if wants_kernel {
            // perf record keeps a copy of the kernel's symbols in its build-id cache: the
            // recording's own (after a reboot the kernel's addresses move), and a file
            // reads in a quarter of the time /proc/kallsyms takes to be formatted.
            let cached = self
                .opts
                .buildid_dir
                .as_ref()
                .zip(self.build_ids.get(&b"[kernel.kallsyms]"[..]))
                .map(|(dir, id)| {
                    dir.join("[kernel.kallsyms]")
                        .join(symbols::build_id_hex(id))
                        .join("kallsyms")
                })
                .filter(|p| p.is_file());
            let path = self.opts.kallsyms.clone().or(cached);
            self.kallsyms_job = std::thread::Builder::new()
                .name("kallsyms".to_owned())
                .spawn(move || read_kallsyms(path.as_deref()))
                .ok();
        }
    }
}

impl Reader<'_> {
    fn record(
        &mut self,
        attr: usize,
        rec: EventRecord<'_>,
        state: &mut ParseState,
        out: &mut Collector,
    ) {
        match rec {
            EventRecord::Sample(s) => self.sample(attr, &s, state, out),
            EventRecord::Comm(c) => {
                let name = String::from_utf8_lossy(&c.name.as_slice()).into_owned();
                if c.is_execve {
                    // An exec replaces the process image: its maps go.
                    self.processes.remove(&c.pid);
                }
                self.comms.insert(c.tid, Arc::from(name));
            }
            EventRecord::Fork(f) => {
                if let Some(comm) = self.comms.get(&f.ptid).cloned() {
                    self.comms.insert(f.tid, comm);
                }
                if f.pid != f.ppid
                    && let Some(parent) = self.processes.get(&f.ppid)
                {
                    let maps = parent.maps.clone();
                    self.processes.insert(
                        f.pid,
                        Process {
                            maps,
                            unwinder: None,
                        },
                    );
                }
            }
            // Code maps only (`--call-graph dwarf` records the data maps too).
            EventRecord::Mmap(m) if m.is_executable => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                self.map(m.pid, m.address, m.length, m.page_offset, &path);
            }
            EventRecord::Mmap2(m) if m.protection & PROT_EXEC != 0 => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                self.map(m.pid, m.address, m.length, m.page_offset, &path);
            }
            _ => {}
        }
    }

    fn map(&mut self, pid: i32, start: u64, len: u64, pgoff: u64, path: &str) {
        if pid == -1 || path.starts_with("[kernel.kallsyms]") {
            return; // the kernel and its modules: named from kallsyms
        }
        let dso = self.dso_id(path);
        self.processes.entry(pid).or_default().insert(Map {
            start,
            end: start.saturating_add(len),
            pgoff,
            dso,
        });
    }

    fn dso_id(&mut self, path: &str) -> u32 {
        if let Some(&id) = self.dso_ids.get(path) {
            return id;
        }
        let id = u32::try_from(self.dsos.len()).unwrap_or(u32::MAX);
        let path: Arc<str> = Arc::from(path);
        self.dsos.push(Dso {
            path: path.clone(),
            loaded: None,
        });
        self.dso_ids.insert(path, id);
        id
    }

    /// The DSO's ELF, loaded on first use.
    fn elf(&mut self, dso: u32) -> Option<&Elf> {
        let d = self.dsos.get_mut(dso as usize)?;
        if d.loaded.is_none() {
            // `[vdso]` is in perf's build-id cache (perf record copies it there); the
            // other pseudo-files (`[heap]`, `//anon`, `[kernel.kallsyms]`) have no file.
            let found =
                if (d.path.starts_with('[') && &*d.path != "[vdso]") || d.path.starts_with("//") {
                    Found::Missing
                } else {
                    let id = self.build_ids.get(d.path.as_bytes());
                    symbols::load_dso(&d.path, id.map(Vec::as_slice), &self.search)
                };
            d.loaded = Some(found);
        }
        match d.loaded.as_ref() {
            Some(Found::Elf(elf)) => Some(elf),
            _ => None,
        }
    }

    fn sample(
        &mut self,
        attr: usize,
        s: &SampleRecord<'_>,
        state: &mut ParseState,
        out: &mut Collector,
    ) {
        let (pid, tid) = (s.pid.unwrap_or(-1), s.tid.unwrap_or(-1));
        let comm = match self.comms.get(&tid) {
            Some(c) => c.clone(),
            // The idle task has no COMM record; perf names it.
            None if tid == 0 => self.swapper.clone(),
            None => Arc::from(format!(":{tid}")),
        };
        let head = Head {
            attr,
            comm,
            pid,
            tid,
            time: s.timestamp,
            period: s.period,
            switch: self.switch_of(attr, s),
        };
        if self.kernel_symbols_pending() {
            // The kernel's symbols are still being read: the sample is resolved now and,
            // when it has kernel frames or others wait before it, waits with its frames.
            self.frames.clear();
            self.resolve(attr, pid, s, state, out);
            if self.kernel_at.is_empty() && self.waiting.is_empty() {
                self.feed(&head, out);
            } else {
                self.waiting.push(Waiting {
                    head,
                    frames: std::mem::take(&mut self.frames),
                    kernel_at: std::mem::take(&mut self.kernel_at),
                });
            }
            return;
        }
        self.flush_waiting(out);
        // Frames are resolved only for a sample the parser keeps.
        if !self.begin(&head, out) {
            self.perf.end_sample(out);
            return;
        }
        self.frames.clear();
        self.resolve(attr, pid, s, state, out);
        self.name_kernel_frames();
        self.push_frames(out);
    }

    /// What a `sched_switch` sample's raw data says (its `prev_state` and `next_pid`).
    fn switch_of(&self, attr: usize, s: &SampleRecord<'_>) -> Option<crate::profile::Switch> {
        if !self.is_switch.get(attr).copied().unwrap_or(false) {
            return None;
        }
        self.switch_format
            .as_ref()
            .zip(s.raw.as_ref())
            .and_then(|(f, raw)| f.decode(&raw.as_slice()))
    }

    /// Whether the kernel's symbols are being read and are not there yet (and fewer
    /// than [`MAX_WAITING`] samples wait for them: past that, the reader waits).
    fn kernel_symbols_pending(&self) -> bool {
        self.may_wait
            && self.waiting.len() < MAX_WAITING
            && self.kallsyms.is_none()
            && self.kallsyms_job.as_ref().is_some_and(|j| !j.is_finished())
    }

    /// Gives the parser the samples that waited for the kernel's symbols, in order.
    fn flush_waiting(&mut self, out: &mut Collector) {
        let waiting = std::mem::take(&mut self.waiting);
        for w in waiting {
            self.frames = w.frames;
            self.kernel_at = w.kernel_at;
            self.name_kernel_frames();
            self.feed(&w.head, out);
        }
    }

    /// Begins the sample of `head` in the parser: whether it keeps it.
    fn begin(&mut self, head: &Head, out: &mut Collector) -> bool {
        let (event, spec) = self
            .events
            .get(head.attr)
            .map_or(("", ""), |(e, s)| (e.as_str(), s.as_str()));
        let (pid_s, tid_s) = (head.pid.to_string(), head.tid.to_string());
        let ev = EventLine {
            comm: &head.comm,
            pid: &pid_s,
            tid: &tid_s,
            event,
            event_spec: spec,
            time: head.time,
            period: head.period,
            inline_frame: None,
            switch: head.switch,
        };
        self.perf.begin_sample(&ev, out)
    }

    /// The sample of `head` with the frames resolved for it (in `self.frames`).
    fn feed(&mut self, head: &Head, out: &mut Collector) {
        if self.begin(head, out) {
            self.push_frames(out);
        } else {
            self.perf.end_sample(out);
        }
    }

    /// Gives the parser `self.frames` and ends the sample.
    fn push_frames(&mut self, out: &mut Collector) {
        let frames = std::mem::take(&mut self.frames);
        for f in &frames {
            if self.perf.keeps_addrs() {
                use std::fmt::Write;
                self.pc.clear();
                let _ = write!(self.pc, "{:x}", f.pc);
            }
            let sl = StackLine {
                pc: &self.pc,
                symbol: &f.symbol,
                dso: &f.dso,
                inlined: f.inlined,
            };
            self.perf.push_frame(sl, out);
        }
        self.frames = frames;
        self.perf.end_sample(out);
    }

    /// The frames of a sample, leaf first, into `self.frames`.
    fn resolve(
        &mut self,
        attr: usize,
        pid: i32,
        s: &SampleRecord<'_>,
        state: &mut ParseState,
        out: &mut Collector,
    ) {
        let mut user_seen = false;
        if let Some(chain) = &s.callchain {
            let mut kernel = false;
            for i in 0..chain.len().min(4096) {
                let Some(ip) = chain.get(i) else { break };
                if ip >= CONTEXT_MAX {
                    if !CONTEXTS.contains(&ip) {
                        // perf drops the whole chain of a sample with an unknown context
                        // value (a -1 ends some user chains): no frames, as perf script.
                        self.frames.clear();
                        self.kernel_at.clear();
                        return;
                    }
                    kernel = ip == CONTEXT_KERNEL;
                    continue;
                }
                if kernel {
                    self.kernel_later(ip);
                } else {
                    user_seen = true;
                    self.user_frame(pid, ip, false, false);
                }
            }
        } else if let Some(ip) = s.ip {
            if ip >= 0xffff_8000_0000_0000 {
                self.kernel_later(ip);
            } else {
                self.user_frame(pid, ip, false, false);
                user_seen = true;
            }
        }
        // `--call-graph dwarf`: the user part is unwound from the copied stack.
        if let (Some(regs), Some((stack, _))) = (&s.user_regs, &s.user_stack)
            && !user_seen
            && !self.foreign
        {
            let mask = self.regs_user.get(attr).copied().unwrap_or(0);
            let addrs = self.unwind(pid, regs, mask, stack);
            for (i, addr) in addrs.into_iter().enumerate() {
                // As perf's unwinder, stop at a caller outside every mapped file (a
                // guess from a frame without unwind information).
                let file_backed = self
                    .processes
                    .get(&pid)
                    .and_then(|p| p.find(addr.saturating_sub(1)))
                    .and_then(|m| self.dsos.get(m.dso as usize))
                    .is_some_and(|d| !d.path.starts_with('[') && !d.path.starts_with("//"));
                if i > 0 && !file_backed {
                    break;
                }
                self.user_frame(pid, addr, i > 0, true);
            }
        }
        let _ = (state, out);
    }

    /// Keeps the place of a kernel frame, named by [`Reader::name_kernel_frames`] once
    /// the kernel's symbols are read (samples do not wait for them on another thread:
    /// their binaries and DWARF are read meanwhile).
    fn kernel_later(&mut self, ip: u64) {
        self.kernel_at.push(self.frames.len());
        self.frames.push(Frame {
            pc: ip,
            symbol: self.unknown.clone(),
            dso: self.kernel.clone(),
            inlined: false,
        });
    }

    /// Names the kernel frames [`Reader::kernel_later`] kept the place of.
    fn name_kernel_frames(&mut self) {
        let mut at = std::mem::take(&mut self.kernel_at);
        for &i in &at {
            if let Some(ip) = self.frames.get(i).map(|f| f.pc) {
                let frame = self.kernel_frame(ip);
                self.frames[i] = frame;
            }
        }
        at.clear();
        self.kernel_at = at;
    }

    fn unwind(
        &mut self,
        pid: i32,
        regs: &linux_perf_data::linux_perf_event_reader::Regs<'_>,
        mask: u64,
        stack: &linux_perf_data::linux_perf_event_reader::RawData<'_>,
    ) -> Vec<u64> {
        let _ = mask;
        let (Some(ip), Some(sp), Some(bp)) = (regs.get(8), regs.get(7), regs.get(6)) else {
            return Vec::new();
        };
        let stack = stack.as_slice();
        let Some(process) = self.processes.get(&pid) else {
            return vec![ip];
        };
        if process.unwinder.is_none() {
            let maps = process.maps.clone();
            let mut modules = Vec::new();
            for m in maps {
                let Some(elf) = self.elf(m.dso) else { continue };
                if let Some(module) = unwind::module(elf, m.start, m.end, m.pgoff) {
                    modules.push(module);
                }
            }
            let u = unwind::ProcessUnwinder::new(modules);
            if let Some(p) = self.processes.get_mut(&pid) {
                p.unwinder = Some(u);
            }
        }
        match self
            .processes
            .get_mut(&pid)
            .and_then(|p| p.unwinder.as_mut())
        {
            Some(u) => u.unwind(ip, sp, bp, &stack),
            None => vec![ip],
        }
    }

    fn kernel_frame(&mut self, ip: u64) -> Frame {
        if self.kallsyms.is_none() {
            let k = match self.kallsyms_job.take().map(std::thread::JoinHandle::join) {
                Some(Ok(k)) => k,
                _ => read_kallsyms(self.opts.kallsyms.as_deref()),
            };
            self.kallsyms = Some(k);
        }
        let found = self.kallsyms.as_ref().and_then(|k| {
            k.find(ip).map(|(name, module)| {
                let dso =
                    module.map_or_else(|| self.kernel.clone(), |m| Arc::from(format!("[{m}]")));
                Frame {
                    pc: ip,
                    symbol: name.clone(),
                    dso,
                    inlined: false,
                }
            })
        });
        found.unwrap_or_else(|| Frame {
            pc: ip,
            symbol: self.unknown.clone(),
            dso: self.kernel.clone(),
            inlined: false,
        })
    }

    /// The frames of a user address (a caller's return address less one when
    /// `caller`, as perf's DWARF unwinding gives it), with the frames inlined there when
    /// `inline` (perf script shows them for DWARF-unwound stacks only).
    fn user_frame(&mut self, pid: i32, ip: u64, caller: bool, inline: bool) {
        let addr = if caller { ip.saturating_sub(1) } else { ip };
        let map = self.processes.get(&pid).and_then(|p| p.find(addr)).copied();
        let Some(map) = map else {
            self.frames.push(Frame {
                pc: addr,
                symbol: self.unknown.clone(),
                dso: self.unknown.clone(),
                inlined: false,
            });
            return;
        };
        // A hostile page offset may wrap (perf computes it in u64 alike).
        let offset = (addr - map.start).wrapping_add(map.pgoff);
        if let Some(frames) = self.cache.get(&(map.dso, offset, inline)) {
            self.frames.extend(frames.iter().cloned());
            return;
        }
        let path = self.dsos[map.dso as usize].path.clone();
        let unknown = self.unknown.clone();
        let resolved: Vec<Frame> = match self.elf(map.dso) {
            None => vec![Frame {
                pc: offset,
                symbol: unknown,
                dso: path,
                inlined: false,
            }],
            Some(elf) => {
                let pc = elf.address_of_offset(offset).unwrap_or(offset);
                match elf.symbols.find(pc) {
                    None => vec![Frame {
                        pc,
                        symbol: unknown,
                        dso: path,
                        inlined: false,
                    }],
                    Some((name, _)) => {
                        let name = name.clone();
                        let chain = if inline {
                            elf.inline_names(pc)
                        } else {
                            Vec::new()
                        };
                        if chain.is_empty() {
                            vec![Frame {
                                pc,
                                symbol: name,
                                dso: path,
                                inlined: false,
                            }]
                        } else {
                            // perf: an entry named as the symbol is the symbol's own frame.
                            let frame = |n: Arc<str>| Frame {
                                pc,
                                inlined: n != name,
                                dso: path.clone(),
                                symbol: n,
                            };
                            chain.into_iter().map(frame).collect()
                        }
                    }
                }
            }
        };
        let resolved: Arc<[Frame]> = resolved.into();
        self.frames.extend(resolved.iter().cloned());
        self.cache.insert((map.dso, offset, inline), resolved);
    }

    /// Notes for the load report: binaries missing or changed, kernel symbols hidden.
    fn finish_notes(&mut self, out: &mut Collector) {
        for d in &self.dsos {
            let why = match d.loaded {
                Some(Found::Missing) if !d.path.starts_with('[') && !d.path.starts_with("//") => {
                    "not found: its frames are [unknown]"
                }
                Some(Found::Changed) => {
                    "changed since the recording (another build id): its frames are [unknown]"
                }
                Some(Found::Unreadable) => {
                    "not an ELF file this reader understands: its frames are [unknown]"
                }
                _ => continue,
            };
            self.notes.push(format!("{}: {why}", d.path));
        }
        if let Some(k) = &self.kallsyms {
            if k.hidden {
                self.notes.push(
                    "kernel symbols are hidden (kptr_restrict): kernel frames are [unknown]"
                        .to_owned(),
                );
            } else if k.is_empty() {
                self.notes.push(
                    "no kernel symbol table (/proc/kallsyms): kernel frames are [unknown]"
                        .to_owned(),
                );
            }
        }
        for n in &self.notes {
            out.stats.note(0, "symbols", n);
        }
    }
}
