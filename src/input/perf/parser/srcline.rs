//! The source lines of `perf script -F +srcline`: perf prints a line under each frame
//! that has a mapping (its file and number, or what it prints for none), and marks an
//! inlined function's frame ` (inlined)` after that line instead of after the frame.
//! Frames are named as without `srcline`; each sample's lines go to its collector's
//! [`crate::profile::source::SourceLines`], the frames flametui adds (the process
//! name) without a line, and each sample's record gets its stack of lines
//! ([`PerfParser::push_record`]). Nothing else here runs for an input without srcline
//! lines but a test per line and per sample.

use super::PerfParser;
use crate::input::perf::line::{StackLine, srcline_line, stack_line};
use crate::input::perf::names::INLINED;
use crate::input::{Collector, ParseState};
use crate::profile::NodeId;
use crate::profile::source::{Line, SharedCode};

/// Why a srcline line is skipped when there is no frame above it to be the line of.
const NO_FRAME: &str = "perf srcline line without a frame";

/// The source lines of the sample being read.
#[derive(Debug, Default)]
pub(super) struct SampleLines {
    /// The line of each frame of the sample (leaf first, as its frames), up to the last
    /// one given one; empty while none has.
    lines: Vec<Option<Line>>,
    /// Where the frames of the last stack line begin among the sample's, until another
    /// line comes: the frame a srcline line is about.
    pub(super) last_frame: Option<usize>,
    /// How the last sample ended ([`PerfParser::end_sample`]).
    pub(super) ended: Ended,
    /// The sample ended by its event line, which held its only frame (no callchain, no
    /// blank line after it): a srcline line may follow, about that frame.
    pub(super) after_event: Ended,
    /// A stack line without a DSO, held until the next line says whether it is an
    /// inlined function's.
    deferred: String,
    has_deferred: bool,
}

/// How a sample ended.
#[derive(Debug, Default, Clone, Copy)]
pub(super) enum Ended {
    #[default]
    Nothing,
    /// In the tree of the kept event's collector (`other: None`) or of another event's.
    Kept {
        other: Option<usize>,
        leaf: NodeId,
        weight: u64,
        /// Its record is the last of the collector's sample table.
        pushed: bool,
    },
    Dropped,
}

impl SampleLines {
    /// Done with the sample's lines.
    pub(super) fn clear(&mut self) {
        self.lines.clear();
        self.last_frame = None;
    }

    /// Records the lines of a sample of `frames` frames (`None`: as many as its path
    /// has), if it has any, whose leaf is node `leaf` of `target`'s tree; returns their
    /// stack, for the sample's record (0: none).
    #[inline]
    pub(super) fn record(
        &mut self,
        target: &mut Collector,
        leaf: NodeId,
        frames: Option<usize>,
        weight: u64,
    ) -> u32 {
        if self.lines.is_empty() {
            0
        } else {
            self.record_path(target, leaf, frames, weight)
        }
    }

    #[inline(never)]
    fn record_path(
        &mut self,
        target: &mut Collector,
        leaf: NodeId,
        frames: Option<usize>,
        weight: u64,
    ) -> u32 {
        // The frames and the process name, each a node; else the lines would not match.
        let lines = self.lines.iter().copied();
        let nodes = frames.map(|n| n + 1);
        target
            .samples
            .lines_mut()
            .record_from_leaf(&target.tree, leaf, lines, nodes, weight)
    }
}

impl PerfParser {
    /// Appends the sample's record (time, task, leaf, weight, its switch and its `stack`
    /// of lines) to `target`'s table, unless the output needs no timeline (a switch is
    /// always kept: the off-CPU metric is made of them); true when appended.
    pub(super) fn push_record(
        &mut self,
        target: &mut Collector,
        leaf: NodeId,
        weight: u64,
        stack: u32,
    ) -> bool {
        if let Some(switch) = self.switch.take() {
            target
                .samples
                .push_switch(self.time, self.task, leaf, weight, switch);
        } else if !self.opts.no_timeline {
            target.samples.push(self.time, self.task, leaf, weight);
        } else {
            return false;
        }
        target.samples.set_line_stack(stack);
        true
    }
}

/// The collector of the kept event (`None`) or of another event.
fn target(out: &mut Collector, other: Option<usize>) -> Option<&mut Collector> {
    match other {
        None => Some(out),
        Some(i) => out.others.get_mut(i),
    }
}

impl PerfParser {
    /// As [`PerfParser::push_frame`], with the frame's source line `at` (a binary
    /// recording's frame, its line read from its file's DWARF), as a srcline line after
    /// the frame would give it.
    pub fn push_frame_at(
        &mut self,
        sl: StackLine<'_>,
        at: Option<(&str, u32)>,
        out: &mut Collector,
    ) {
        let before = self.frames.len();
        self.push_frame(sl, out);
        if !self.dropping && !self.opts.names_only && self.frames.len() > before {
            self.set_line(before, at, out);
        }
    }

    /// As [`PerfParser::push_frame`], for a frame of a binary without lines: the frame's
    /// "line" is its address, `offset` bytes into its function, which starts at `start`
    /// of the DSO the frame names and whose machine code is `code` (when read).
    pub fn push_frame_code(
        &mut self,
        sl: StackLine<'_>,
        (start, offset, code): (u64, u64, Option<&SharedCode>),
        out: &mut Collector,
    ) {
        let before = self.frames.len();
        self.push_frame(sl, out);
        let kept = !self.dropping && !self.opts.names_only && self.frames.len() > before;
        let (Ok(number), true) = (u32::try_from(offset), kept) else {
            return;
        };
        let Some(lines) = target(out, self.other).map(|t| t.samples.lines_mut()) else {
            return;
        };
        let bytes = || code.map(|(b, arch)| (b.to_vec(), *arch));
        let line = Line {
            file: lines.code_file(sl.dso, start, bytes),
            number,
        };
        self.put_line(before, line);
    }

    /// Gives frame `frame` of the sample (leaf first) the line `at`, its file interned
    /// in the collector the sample goes to.
    fn set_line(&mut self, frame: usize, at: Option<(&str, u32)>, out: &mut Collector) {
        let Some((file, number)) = at else { return };
        let Some(lines) = target(out, self.other).map(|t| t.samples.lines_mut()) else {
            return;
        };
        let line = Line {
            file: lines.file(file),
            number,
        };
        self.put_line(frame, line);
    }

    /// Frame `frame` of the sample (leaf first) is at `line`.
    fn put_line(&mut self, frame: usize, line: Line) {
        let own = &mut self.src.lines;
        if own.len() <= frame {
            own.resize(self.frames.len().max(frame + 1), None);
        }
        own[frame] = Some(line);
    }

    /// Holds stack line `line`, which has no DSO, until the next line.
    pub(super) fn defer(&mut self, line: &str) {
        self.src.deferred.clear();
        self.src.deferred.push_str(line);
        self.src.has_deferred = true;
    }

    /// Adds the held stack line's frames, if any, an inlined function's if `inlined`.
    #[inline]
    pub(super) fn flush_deferred(&mut self, inlined: bool, out: &mut Collector) {
        if self.src.has_deferred {
            self.add_deferred(inlined, out);
        }
    }

    #[inline(never)]
    fn add_deferred(&mut self, inlined: bool, out: &mut Collector) {
        self.src.has_deferred = false;
        let text = std::mem::take(&mut self.src.deferred);
        if let Some(mut sl) = stack_line(&text) {
            if inlined {
                sl.dso = INLINED;
                sl.inlined = true;
            }
            self.frame(sl, &mut out.tree);
        }
        self.src.deferred = text;
    }

    /// Reads `line` if it is a srcline line, the line of the frame above it; else
    /// (`false`) adds the held stack line, and no srcline line is expected before the
    /// next frame.
    #[inline]
    pub(super) fn srcline(&mut self, line: &str, state: &ParseState, out: &mut Collector) -> bool {
        if line.starts_with("  ") {
            self.read_srcline(line, state, out)
        } else {
            self.no_srcline(out);
            false
        }
    }

    /// Adds the held stack line; no srcline line is expected before the next frame.
    #[inline]
    fn no_srcline(&mut self, out: &mut Collector) {
        self.flush_deferred(false, out);
        self.src.last_frame = None;
        self.src.after_event = Ended::Nothing;
    }

    #[inline(never)]
    fn read_srcline(&mut self, line: &str, state: &ParseState, out: &mut Collector) -> bool {
        let Some(read) = srcline_line(line) else {
            self.no_srcline(out);
            return false;
        };
        if self.discarding {
            state.skip(out, "line of an unreadable perf sample", line);
            return true;
        }
        self.flush_deferred(read.is_ok_and(|s| s.inlined), out);
        let after_event = std::mem::take(&mut self.src.after_event);
        let at = match read {
            Ok(s) => s.at,
            Err(reason) => {
                self.src.last_frame = None;
                state.skip(out, reason, line);
                return true;
            }
        };
        let keep = !self.opts.names_only;
        if self.in_event {
            if self.dropping {
                self.sample_lines += 1;
                return true;
            }
            let Some(frame) = self.src.last_frame.take() else {
                state.skip(out, NO_FRAME, line);
                return true;
            };
            self.sample_lines += 1;
            if keep {
                self.set_line(frame, at, out);
            }
            return true;
        }
        match after_event {
            Ended::Kept {
                other,
                leaf,
                weight,
                pushed,
            } => {
                out.stats.line_counts.in_samples += 1;
                if let (Some((file, number)), Some(t), true) = (at, target(out, other), keep) {
                    let line = Line {
                        file: t.samples.lines_mut().file(file),
                        number,
                    };
                    self.src.lines.clear();
                    self.src.lines.push(Some(line));
                    let stack = self.src.record(t, leaf, None, weight);
                    if pushed {
                        t.samples.set_line_stack(stack);
                    }
                    self.src.lines.clear();
                }
            }
            Ended::Dropped => out.stats.line_counts.dropped += 1,
            Ended::Nothing => state.skip(out, NO_FRAME, line),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::input::perf::PerfOptions;

    /// The tree's frames (name, library, inlined) and the lines of each function, after
    /// reading `lines`.
    #[allow(clippy::type_complexity)]
    fn read(lines: &[&str]) -> (BTreeSet<(String, Option<String>, bool)>, Vec<String>) {
        let mut p = PerfParser::new(PerfOptions::default());
        let mut out = Collector::default();
        let mut state = ParseState::default();
        for line in lines {
            state.line_no += 1;
            p.line(line, &mut state, &mut out);
        }
        p.finish(&mut out);
        assert_eq!(out.stats.skipped_lines(), 0, "{:?}", out.stats.skipped);
        let names = out.tree.names();
        let frames = out
            .tree
            .ids()
            .skip(1)
            .map(|id| out.tree.node(id).name)
            .map(|n| {
                let k = names.kind(n);
                (
                    names.resolve(n).to_owned(),
                    k.library.map(str::to_owned),
                    k.inlined,
                )
            })
            .collect();
        let src = out.samples.lines();
        let mut got = Vec::new();
        for f in src.functions() {
            for (line, c) in src.of_function(f) {
                got.push(format!(
                    "{} {}:{} {} {}",
                    names.resolve(f),
                    src.path(line.file),
                    line.number,
                    c.self_weight,
                    c.total
                ));
            }
        }
        (frames, got)
    }

    /// Two functions inlined at one address (perf prints each without a DSO, its line
    /// marked ` (inlined)`): the same frames as without `srcline`, each with its line.
    #[test]
    fn inlined_frames_are_those_of_the_text_without_srcline() {
        let plain = read(&[
            "inl 1 1.0: 3 cpu-clock: ",
            "\t1081 mix+0x31 (inlined)",
            "\t1081 twice+0x31 (inlined)",
            "\t1081 main+0x31 (/home/user/inl)",
            "\t10f0 _start+0x20 (/home/user/inl)",
            "",
        ]);
        let with = read(&[
            "inl 1 1.0: 3 cpu-clock: ",
            "\t1081 mix+0x31",
            "  inl.c:9 (inlined)",
            "\t1081 twice+0x31",
            "  inl.c:15 (inlined)",
            "\t1081 main+0x31 (/home/user/inl)",
            "  inl.c:22",
            "\t10f0 _start+0x20 (/home/user/inl)",
            "  ??:0",
            "",
        ]);
        assert_eq!(with.0, plain.0);
        assert!(
            with.0
                .contains(&("twice".to_owned(), Some("inl".to_owned()), true))
        );
        assert!(plain.1.is_empty());
        assert_eq!(
            with.1,
            ["main inl.c:22 0 3", "mix inl.c:9 3 3", "twice inl.c:15 0 3"]
        );
        // A frame without a DSO and no srcline line after it stays as it is.
        let (frames, _) = read(&["a 1 1.0: 1 cpu-clock: ", "\t1081 f", "\t1082 g", ""]);
        assert!(frames.contains(&("f".to_owned(), None, false)));
    }
}
