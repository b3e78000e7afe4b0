//! The line-at-a-time parser: samples (their weight, time and task) from event and stack
//! lines, each symbol's frame names made once; `srcline` reads the source lines of
//! `perf script -F +srcline`.

mod dsos;
mod srcline;

use rustc_hash::FxHashMap;

use super::PerfOptions;
use super::cache::{INLINE, JAVA, SymbolCache, cache_hash};
use super::line::{
    EventLine, RecordKind, SCHED_SWITCH, StackLine, event_line, record_line, stack_line,
};
use super::names::{
    INLINED, fix_rust_symbol, is_jit, is_kernel, library_name, strip_offset, tidy_generic_into,
    tidy_java, unknown_fallback,
};
use crate::input::{Collector, ParseState};
use crate::profile::intern::Kind;
use crate::profile::{CallTree, NameId, Switch, TaskId, Unit};

/// Line-at-a-time `perf script` parser.
#[derive(Debug, Default)]
pub struct PerfParser {
    opts: PerfOptions,
    /// The event kept; the first one seen unless the user named one.
    event: Option<String>,
    in_event: bool,
    /// The current sample is dropped.
    dropping: bool,
    /// The current sample is of another event than the kept one: it goes to that
    /// event's collector, at this index of the output's `others`
    /// ([`Collector::other_event`]).
    other: Option<usize>,
    /// After an unreadable event line: skip until the blank line.
    discarding: bool,
    pname: String,
    /// Frames of the current sample, leaf first.
    frames: Vec<NameId>,
    /// Inlined frames of the current sample waiting for the DSO of the frame they are
    /// inlined into, and their address.
    inlined: Vec<usize>,
    inlined_pc: String,
    /// An inlined function's id in the library of the frame it is inlined into, by its
    /// id without a library and that frame's DSO number.
    inlined_in: FxHashMap<(NameId, u32), NameId>,
    /// Processed frame names per raw (symbol, DSO): a symbol is cleaned up once, not per
    /// sample. Looked up by the line's own bytes, without building a key.
    cache: SymbolCache,
    /// The DSOs seen, numbered for the cache's keys.
    dsos: dsos::Dsos,
    /// Reused buffers for the cache key and for building names.
    key: String,
    scratch: String,
    period: Option<u64>,
    /// Time and task of the current sample, for the sample table.
    time: Option<u64>,
    /// The current sample's scheduler switch, if it is one.
    switch: Option<Switch>,
    task: TaskId,
    /// Lines of the current sample (event line and stack lines).
    sample_lines: u64,
    kept_period: bool,
    kept_clock: bool,
    /// The source lines of the current sample (`-F +srcline`).
    src: srcline::SampleLines,
}

impl PerfParser {
    /// A parser with the given options.
    pub fn new(mut opts: PerfOptions) -> Self {
        opts.include_pid |= opts.include_tid;
        Self {
            event: opts.event.clone(),
            opts,
            ..Self::default()
        }
    }

    /// Feeds one line.
    pub fn line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        if line.starts_with('#') {
            out.stats.line_counts.comments += 1;
            return;
        }
        let line = line.trim_end();
        if self.srcline(line, state, out) {
            return;
        }
        if line.is_empty() {
            out.stats.line_counts.blank += 1;
            self.end_sample(out);
            self.discarding = false;
        } else if let Some(rec) = (!line.starts_with([' ', '\t']))
            .then(|| record_line(line))
            .flatten()
        {
            // `--show-switch-events` / `--show-lost-events` lines between the samples.
            self.end_sample(out);
            self.discarding = false;
            out.stats.line_counts.in_samples += 1;
            match rec.kind {
                RecordKind::SwitchIn => {
                    if let (Some(t), Some(tid)) = (rec.time, rec.tid) {
                        out.samples.push_switch_in(t, tid);
                    }
                }
                RecordKind::Lost => out.stats.lost_records += 1,
                RecordKind::Other => {}
            }
        } else if self.discarding && event_line(line).is_none() {
            state.skip(out, "line of an unreadable perf sample", line);
        } else if self.in_event {
            self.stack(line, state, out);
        } else {
            self.event_line(line, state, out);
        }
    }

    /// Call at the end of a piece of input that ends at a sample boundary.
    pub fn end_chunk(&mut self, out: &mut Collector) {
        self.end_sample(out);
        self.discarding = false;
    }

    /// Call at the end of the input.
    pub fn finish(&mut self, out: &mut Collector) {
        self.end_sample(out);
        self.publish_unit(out);
    }

    /// Keeps the kept event and the unit of the weights in the stats (also while
    /// streaming, so a snapshot of a partial input says the right unit).
    fn publish_unit(&self, out: &mut Collector) {
        out.stats.event.clone_from(&self.event);
        out.stats.unit = match (&self.event, self.kept_period) {
            (_, true) if self.kept_clock => Unit::Nanoseconds,
            (Some(e), true) => Unit::Events(e.clone()),
            _ => Unit::Samples,
        };
    }

    fn event_line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        self.discarding = false;
        let Some(ev) = event_line(line) else {
            state.skip(out, "unreadable perf event line", line);
            self.discarding = true;
            return;
        };
        self.begin(&ev, out);
        if let Some(frame) = ev.inline_frame {
            // A frame on the event line itself (inferno reads it; Perl ignores the sample).
            if let Some(sl) = stack_line(frame).filter(|_| !self.dropping) {
                self.frame(sl, &mut out.tree);
            }
            self.end_sample(out);
            self.src.after_event = self.src.ended;
        }
    }

    /// Starts a sample from a read event line (or a binary recording's sample, which
    /// names its frames as perf script would print them); `false` when its event is not
    /// the one kept (the sample is then dropped at [`PerfParser::end_sample`]).
    pub fn begin_sample(&mut self, ev: &EventLine<'_>, out: &mut Collector) -> bool {
        self.begin(ev, out);
        !self.dropping
    }

    /// Whether frames are named with their addresses (`--addrs`).
    pub fn keeps_addrs(&self) -> bool {
        self.opts.include_addrs
    }

    /// Adds one frame (leaf first) to the sample begun with [`PerfParser::begin_sample`].
    pub fn push_frame(&mut self, sl: StackLine<'_>, out: &mut Collector) {
        if !self.dropping {
            self.sample_lines += 1;
            self.frame(sl, &mut out.tree);
        }
    }

    fn begin(&mut self, ev: &EventLine<'_>, out: &mut Collector) {
        // A tracepoint's period is 1, one per event: its weights are samples, whether
        // the period was printed (perf.data, `-F period`) or not (perf script's default).
        let period = ev.period.filter(|&p| !(p == 1 && ev.event.contains(':')));
        self.in_event = true;
        self.switch = ev.switch;
        // Off-CPU time needs every switch's time and task, whatever the output.
        let timeline = !self.opts.no_timeline || ev.switch.is_some();
        self.sample_lines = 1;
        out.stats.saw_event(ev.event, ev.cpu, ev.time);
        let wanted = self
            .event
            .get_or_insert_with(|| ev.event.to_owned())
            .as_str();
        if wanted != ev.event && wanted != ev.event_spec {
            self.period = period;
            self.time = ev.time;
            let at = out.other_event(ev.event);
            if let Some(o) = at.and_then(|i| out.others.get_mut(i)) {
                if timeline {
                    self.task = o
                        .samples
                        .task(ev.comm, id_number(ev.pid), id_number(ev.tid));
                }
                if period.is_some() && o.stats.unit == Unit::Samples {
                    o.stats.unit = if is_clock(ev.event) {
                        Unit::Nanoseconds
                    } else {
                        Unit::Events(ev.event.to_owned())
                    };
                }
                self.other = at;
            } else {
                self.dropping = true;
                out.stats.filtered_samples += 1;
            }
        } else {
            self.period = period;
            self.time = ev.time;
            if timeline {
                self.task = out
                    .samples
                    .task(ev.comm, id_number(ev.pid), id_number(ev.tid));
            }
            let (had_period, clock) = (self.kept_period, self.kept_clock);
            self.kept_period |= period.is_some();
            self.kept_clock |= is_clock(ev.event);
            if out.stats.event.is_none()
                || (had_period, clock) != (self.kept_period, self.kept_clock)
            {
                self.publish_unit(out);
            }
        }
        if ev
            .time
            .is_some_and(|t| t >= crate::profile::samples::DUMMY_TIME_FROM)
        {
            out.stats.dummy_timed += 1;
        }
        if ev.event == SCHED_SWITCH && (ev.switch.is_none() || ev.time.is_none()) {
            out.stats.unread_switches += 1;
        }
        if ev.event == OFFCPU_TIME {
            // A block written when it ended is stamped then: placed where it began, as
            // the switches' blocks are (a dummy time stays, out of the timeline).
            self.time = ev.time.map(|t| match ev.period {
                Some(p) if t < crate::profile::samples::DUMMY_TIME_FROM => t.saturating_sub(p),
                _ => t,
            });
        }
        self.pname.clear();
        for (i, part) in ev.comm.split(' ').enumerate() {
            if i > 0 {
                self.pname.push('_');
            }
            self.pname.push_str(part);
        }
        if self.opts.include_pid {
            self.pname.push('-');
            self.pname.push_str(ev.pid);
        }
        if self.opts.include_tid {
            self.pname.push('/');
            self.pname.push_str(ev.tid);
        }
    }

    fn stack(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        if self.dropping {
            self.sample_lines += 1;
            return;
        }
        let Some(sl) = stack_line(line) else {
            if event_line(line).is_some() {
                // The next sample without a blank line in between (`perf script -F` with
                // no ip field prints one line per sample).
                self.end_sample(out);
                self.event_line(line, state, out);
            } else {
                state.skip(out, "unreadable perf stack line", line);
            }
            return;
        };
        self.sample_lines += 1;
        if sl.dso.is_empty() {
            // Perhaps an inlined function's: with `srcline`, perf says so on the next line.
            self.defer(line);
            return;
        }
        self.frame(sl, &mut out.tree);
    }

    /// Adds the frame(s) of one stack line to the current sample.
    fn frame(&mut self, sl: StackLine<'_>, tree: &mut CallTree) {
        let before = self.frames.len();
        self.frame_names(sl, tree);
        self.src.last_frame = (self.frames.len() > before).then_some(before);
        if self.opts.names_only {
            return;
        }
        // An inlined frame (perf's `(inlined)` DSO) is in the library of the frame it is
        // inlined into: the line after it at the same address with a DSO of its own.
        // Without one (perf 6.1 marks some libc functions `(inlined)` alone, the next
        // line another address in another library) it gets no library from its
        // neighbours.
        if sl.dso == INLINED {
            if self.inlined_pc != sl.pc {
                self.inlined.clear();
                self.inlined_pc.clear();
                self.inlined_pc.push_str(sl.pc);
            }
            self.inlined.extend(before..self.frames.len());
        } else if !self.inlined.is_empty() {
            if self.inlined_pc == sl.pc
                && let Some(lib) = library_name(sl.dso)
            {
                let dso = self.dsos.number(sl.dso);
                let names = tree.names_mut();
                for &at in &self.inlined {
                    let id = self.frames[at];
                    self.frames[at] = *self.inlined_in.entry((id, dso)).or_insert_with(|| {
                        let kind = Kind {
                            library: Some(lib),
                            inlined: true,
                        };
                        let text: Box<str> = names.resolve(id).into();
                        names.intern_kind(&text, kind)
                    });
                }
            }
            self.inlined.clear();
        }
    }

    /// The names of one stack line's frame(s), pushed leaf first on `frames`.
    fn frame_names(&mut self, sl: StackLine<'_>, tree: &mut CallTree) {
        let symbol = strip_offset(sl.symbol);
        let java = self.pname.starts_with("java");
        let dso = self.dsos.number(sl.dso)
            | if java { JAVA } else { 0 }
            | if sl.inlined { INLINE } else { 0 };
        let key = if self.opts.include_addrs && symbol == "[unknown]" {
            self.key.clear();
            self.key.push_str(symbol);
            self.key.push('\0');
            self.key.push_str(sl.pc);
            self.key.as_str()
        } else {
            symbol
        };
        let hash = cache_hash(key.as_bytes(), dso);
        if let Some(ids) = self.cache.get(hash, key.as_bytes(), dso) {
            // Cached root→leaf; the sample's frames are leaf first.
            self.cache.push_leaf_first(ids, &mut self.frames);
            return;
        }
        // The key borrows a buffer that cleaning up reuses.
        let key = key.as_bytes().to_vec();
        let ids = self.clean_up(symbol, sl, java, tree);
        self.frames.extend(ids.iter().rev());
        self.cache.insert(hash, &key, dso, ids);
    }

    /// The frame names of one symbol as inferno makes them, root→leaf (Java `A->B`
    /// inlining gives several), interned in `tree`.
    fn clean_up(
        &mut self,
        symbol: &str,
        sl: StackLine<'_>,
        java: bool,
        tree: &mut CallTree,
    ) -> Vec<NameId> {
        let symbol = fix_rust_symbol(symbol);
        let has_arrow = memchr::memmem::find(symbol.as_bytes(), b"->").is_some();
        let (split, whole) = if has_arrow {
            (Some(symbol.split("->")), None)
        } else {
            (None, Some(&*symbol))
        };
        let mut ids = Vec::with_capacity(1);
        for (i, part) in split.into_iter().flatten().chain(whole).enumerate() {
            let func = &mut self.scratch;
            func.clear();
            let name = unknown_fallback(part, sl.dso, sl.pc, self.opts.include_addrs);
            tidy_generic_into(&name, func);
            if java {
                tidy_java(func);
            }
            if i > 0 {
                if !func.contains("_[i]") {
                    func.push_str("_[i]");
                }
            } else if self.opts.annotate_kernel && is_kernel(sl.dso) {
                func.push_str("_[k]");
            } else if self.opts.annotate_jit && is_jit(sl.dso) && !func.contains("_[j]") {
                func.push_str("_[j]");
            }
            let kind = if self.opts.names_only {
                Kind::default()
            } else {
                Kind {
                    library: library_name(sl.dso),
                    inlined: sl.inlined,
                }
            };
            ids.push(tree.names_mut().intern_kind(func, kind));
        }
        ids
    }

    /// Ends the current sample. One without any stack line still counts (as its root
    /// frame alone, weight = period), as in `perf report`.
    pub fn end_sample(&mut self, out: &mut Collector) {
        self.flush_deferred(false, out);
        self.src.ended = srcline::Ended::Dropped;
        if !self.dropping && self.in_event {
            let process = out.tree.intern_task(&self.pname);
            let frames = std::iter::once(process).chain(self.frames.iter().rev().copied());
            let weight = self.period.unwrap_or(1);
            out.stats.line_counts.in_samples += self.sample_lines;
            let other = self.other.take();
            let target = match other {
                None => Some(&mut *out),
                Some(i) => out.others.get_mut(i),
            };
            if let Some(target) = target {
                let leaf = target.tree.insert_ids(frames, weight);
                let stack = self
                    .src
                    .record(target, leaf, Some(self.frames.len()), weight);
                let pushed = self.push_record(target, leaf, weight, stack);
                self.src.ended = srcline::Ended::Kept {
                    other,
                    leaf,
                    weight,
                    pushed,
                };
                target.stats.samples += 1;
            }
        } else {
            out.stats.line_counts.dropped += self.sample_lines;
        }
        self.sample_lines = 0;
        self.src.clear();
        self.frames.clear();
        self.inlined.clear();
        self.in_event = false;
        self.dropping = false;
        self.other = None;
        self.period = None;
        self.time = None;
        self.switch = None;
    }
}

/// Whether `event` counts time: its periods are nanoseconds.
fn is_clock(event: &str) -> bool {
    matches!(event, "cpu-clock" | "task-clock" | OFFCPU_TIME)
}

/// The event `perf record --off-cpu` writes: a block's nanoseconds off the CPU as its
/// period, its user stack, and perf's dummy time unless the block was written when it
/// ended (longer than `--off-cpu-thresh`).
pub const OFFCPU_TIME: &str = "offcpu-time";

/// A pid or tid as perf printed it (`-1` for a task that has exited); `None` for `?`
/// (not printed) or a number past `i64`.
fn id_number(text: &str) -> Option<i64> {
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn kept_samples_are_recorded_with_time_task_and_leaf() {
        let mut p = PerfParser::new(PerfOptions::default());
        let mut out = Collector::default();
        let mut state = ParseState::default();
        let lines = [
            "a b 1/2 10.000001: 5 cpu-clock: ",
            "\t1 f+0x1 (/x)",
            "",
            "c 3 11.0: 7 cycles: ",
            "",
            "a b 1/2 10.5: cpu-clock: ",
            "",
        ];
        for line in lines {
            p.line(line, &mut state, &mut out);
        }
        p.finish(&mut out);
        let table = &out.samples;
        let got: Vec<(u64, u64, String)> = table
            .samples()
            .iter()
            .map(|s| (s.time, s.weight, out.tree.path_string(s.leaf)))
            .collect();
        // The other event's sample is not in the table, as it is not in the tree.
        assert_eq!(
            got,
            [
                (10_000_001_000, 5, "a_b;f".to_owned()),
                (10_500_000_000, 1, "a_b".to_owned()),
            ]
        );
        let task = table.task_of(table.samples()[0].task).unwrap();
        assert_eq!((&*task.comm, task.pid, task.tid), ("a b", Some(1), Some(2)));
        assert_eq!(table.tasks().len(), 1);
        assert!(table.has_timeline());
        // Without a timeline: the same tree, no records.
        let mut p = PerfParser::new(PerfOptions {
            no_timeline: true,
            ..PerfOptions::default()
        });
        let mut bare = Collector::default();
        for line in lines {
            p.line(line, &mut ParseState::default(), &mut bare);
        }
        p.finish(&mut bare);
        assert!(bare.samples.is_empty() && bare.samples.tasks().is_empty());
        assert_eq!(bare.tree.stacks(), out.tree.stacks());
    }

    /// An inlined frame of perf.data has its address's DSO: its library, even where no
    /// frame of that DSO follows at its address (the chain's outermost function is not the
    /// symbol table's, as libc's `__libc_start_main_impl`). One of text takes the next
    /// line's at its address, else none. Inlined and called frames of one name are apart.
    #[test]
    fn inlined_frames_have_a_library_from_perf_data_or_from_the_next_line() {
        let mut p = PerfParser::new(PerfOptions::default());
        let mut out = Collector::default();
        let mut state = ParseState::default();
        p.line("app 1 1.0: 5 cpu-clock: ", &mut state, &mut out);
        let frame = |symbol, dso, inlined| StackLine {
            pc: "",
            symbol,
            dso,
            inlined,
        };
        for sl in [
            frame("mix", "/bin/app", true),
            frame("main", "/bin/app", false),
            frame("__libc_start_main_impl", "/lib/libc.so.6", true),
            frame("_start", "/bin/app", false),
        ] {
            p.push_frame(sl, &mut out);
        }
        p.end_sample(&mut out);
        for line in [
            "app 1 2.0: 5 cpu-clock: ",
            "\t10 mix+0x4 (inlined)",
            "\t10 main+0x9 (/bin/app)",
            "\t20 memcpy+0x1 (inlined)",
            "\t30 _start+0x2 (/bin/app)",
            "",
            "app 1 3.0: 5 cpu-clock: ",
            "\t40 mix+0x1 (/bin/app)",
            "",
        ] {
            p.line(line, &mut state, &mut out);
        }
        p.finish(&mut out);
        let names = out.tree.names();
        let kinds: BTreeSet<(&str, Option<&str>, bool)> = out
            .tree
            .ids()
            .skip(1)
            .map(|id| out.tree.node(id).name)
            .filter(|&n| !names.is_task(n))
            .map(|n| {
                let k = names.kind(n);
                (names.resolve(n), k.library, k.inlined)
            })
            .collect();
        let want: BTreeSet<(&str, Option<&str>, bool)> = [
            ("mix", Some("app"), true),
            ("mix", Some("app"), false),
            ("main", Some("app"), false),
            ("__libc_start_main_impl", Some("libc.so.6"), true),
            ("memcpy", None, true),
            ("_start", Some("app"), false),
        ]
        .into();
        assert_eq!(kinds, want);
    }

    /// The folded stacks of perf script `lines` read with `opts`.
    fn stacks_of(lines: &[&str], opts: PerfOptions) -> Vec<(String, u64)> {
        let mut p = PerfParser::new(opts);
        let mut out = Collector::default();
        for line in lines {
            p.line(line, &mut ParseState::default(), &mut out);
        }
        p.finish(&mut out);
        out.tree.finish();
        out.tree.stacks()
    }

    #[test]
    fn the_symbol_cache_answers_as_a_first_reading_does() {
        // Every symbol twice: once cleaned up, once from the cache, in Java (inlined
        // `A->B` names make several frames) and in other processes; the same symbol in
        // another DSO, or with another address under --addrs, is another key.
        let lines = [
            "java 1 1.0: 1 cpu-clock: ",
            "\t1 La;::m->Lb;::n+0x1 (/jit)",
            "\t2 f(int)+0x2 (/lib/x.so)",
            "",
            "java 1 1.1: 1 cpu-clock: ",
            "\t1 La;::m->Lb;::n+0x9 (/jit)",
            "\t2 f(int)+0x3 (/lib/x.so)",
            "",
            "cc 2 1.2: 1 cpu-clock: ",
            "\t5 [unknown] (/lib/y.so)",
            "\t6 [unknown] (/lib/y.so)",
            "\t3 La;::m->Lb;::n+0x1 (/jit)",
            "\t2 f(int)+0x2 (/lib/x.so)",
            "\t2 f(int)+0x2 (/lib/z.so)",
            "",
            "cc 2 1.3: 1 cpu-clock: ",
            "\t5 [unknown] (/lib/y.so)",
            "\t6 [unknown] (/lib/y.so)",
            "\t3 La;::m->Lb;::n+0x1 (/jit)",
            "\t2 f(int)+0x2 (/lib/x.so)",
            "\t2 f(int)+0x2 (/lib/z.so)",
            "",
            "java 1 1.4: 1 cpu-clock: ",
            "\t1 Ljava/lang/Thread;::run+0x1 (/jit)",
            "",
            "cc 2 1.5: 1 cpu-clock: ",
            "\t1 Ljava/lang/Thread;::run+0x1 (/jit)",
            "",
        ];
        let stacks = stacks_of(&lines, PerfOptions::default());
        // As inferno-collapse-perf 0.12 folds them.
        let want = [
            ("cc;Ljava/lang/Thread:::run", 1),
            ("cc;f;f;La:::m;Lb:::n_[i];[y.so];[y.so]", 2),
            ("java;f;La:::m;Lb:::n_[i]", 2),
            ("java;java/lang/Thread:::run", 1),
        ];
        let want: Vec<(String, u64)> = want.iter().map(|&(s, w)| (s.to_owned(), w)).collect();
        assert_eq!(stacks, want);
        let addrs = stacks_of(
            &lines,
            PerfOptions {
                include_addrs: true,
                ..PerfOptions::default()
            },
        );
        assert_eq!(addrs[1].0, "cc;f;f;La:::m;Lb:::n_[i];[y.so <6>];[y.so <5>]");
        assert_eq!(addrs[1].1, 2);
    }
}
