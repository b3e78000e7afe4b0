//! A sample given to the parser: its event line, then its frames; while the kernel's
//! symbols are still being read, it waits with its frames resolved.

use std::sync::Arc;

use linux_perf_data::linux_perf_event_reader::SampleRecord;

use super::{Head, MAX_WAITING, Reader, Waiting};
use crate::input::perf::{EventLine, StackLine};
use crate::input::{Collector, ParseState};

impl Reader<'_> {
    pub(super) fn sample(
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
            cpu: s.cpu,
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
    pub(super) fn flush_waiting(&mut self, out: &mut Collector) {
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
            cpu: head.cpu,
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

    /// The machine code of the function at `[start, end)` of DSO `dso` (its path), read
    /// from its binary once.
    fn code_of(
        &mut self,
        dso: &Arc<str>,
        start: u64,
        end: u64,
    ) -> Option<crate::profile::source::SharedCode> {
        if let Some(code) = self.codes.get(&(dso.clone(), start)) {
            return code.clone();
        }
        let index = self.dso_ids.get(dso).copied();
        let code = index
            .and_then(|i| self.elf(i))
            .and_then(|elf| elf.code_bytes(start, end))
            .map(|(bytes, arch)| (Arc::from(bytes), arch));
        self.codes.insert((dso.clone(), start), code.clone());
        code
    }

    /// Gives the parser `self.frames` and ends the sample.
    fn push_frames(&mut self, out: &mut Collector) {
        let frames = std::mem::take(&mut self.frames);
        for f in &frames {
            let code = match f.code {
                Some((start, end)) if f.line.is_none() => {
                    Some((start, self.code_of(&f.dso, start, end)))
                }
                _ => None,
            };
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
            let at = f.line.as_ref().map(|(file, n)| (&**file, *n));
            match &code {
                Some((start, code)) => {
                    let offset = f.pc.saturating_sub(*start);
                    self.perf
                        .push_frame_code(sl, (*start, offset, code.as_ref()), out);
                }
                None => self.perf.push_frame_at(sl, at, out),
            }
        }
        self.frames = frames;
        self.perf.end_sample(out);
    }
}
