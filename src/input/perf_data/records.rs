//! The record loop: the reader made from the recording's header and features, each record
//! read (comms, forks, maps, samples), and the notes on what could not be named.

use std::cell::RefCell;
use std::io::Read;
use std::sync::Arc;

use linux_perf_data::linux_perf_event_reader::{CommonData, ContextSwitchRecord, EventRecord};
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use rustc_hash::FxHashMap;

use super::symbols::{self, Elf, Found, SearchPath};
use super::{
    Dso, Map, PROT_EXEC, PerfDataOptions, Process, Reader, check, compressed, event_names, live,
    read_kallsyms, tracepoint,
};
use crate::input::live::Tick;
use crate::input::perf::{PerfOptions, PerfParser};
use crate::input::{Collector, ParseState};

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
            .map(|(e, _)| e == crate::input::perf::SCHED_SWITCH)
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
            kallsyms_path: None,
            cache: FxHashMap::default(),
            codes: FxHashMap::default(),
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
pub(super) fn read_records<R: Read>(
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
                    Some(EventRecord::Lost(lost)) => {
                        out.stats.lost_records += 1;
                        out.stats.lost_samples += lost.count;
                    }
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
    // perf report's "nrcpus online": the CPUs samples could be taken on.
    out.stats.nr_cpus = perf_file.nr_cpus().ok().flatten().map(|n| n.nr_cpus_online);
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
            self.kallsyms_path.clone_from(&path);
            self.kallsyms_job = std::thread::Builder::new()
                .name("kallsyms".to_owned())
                .spawn(move || read_kallsyms(path.as_deref()))
                .ok();
        }
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
    pub(super) fn elf(&mut self, dso: u32) -> Option<&Elf> {
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
}
