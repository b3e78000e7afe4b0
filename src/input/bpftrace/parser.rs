//! The line-at-a-time parser: a map entry's keys and stacks gathered into one sample, the
//! kernel's and the user's stacks told apart.

use super::{
    BpftraceOptions, EMPTY_STACK, KERNEL_LIBRARY, Side, close, frame, library, open, scalar,
    side_of, strip_offset,
};
use crate::input::{Collector, ParseState};
use crate::profile::NameId;

/// A stack's frames, leaf first, each with its module.
type Frames = Vec<(String, Option<String>)>;

/// One element of a key.
#[derive(Debug)]
enum Element {
    /// A non-stack value (comm, pid, string).
    Value(String),
    /// A stack: its frames leaf first, each with its module, and its side when known.
    Stack(Frames, Option<Side>),
}

/// Line-at-a-time bpftrace parser.
#[derive(Debug, Default)]
pub struct BpftraceParser {
    opts: BpftraceOptions,
    /// The map whose entries are kept (the first one with a counted entry).
    map: Option<String>,
    /// The map of the current entry.
    name: String,
    /// Inside an entry: its elements so far.
    elements: Vec<Element>,
    in_entry: bool,
    /// The entry is of another map: its lines are dropped.
    other_map: bool,
    /// The current stack's frames (leaf first).
    frames: Frames,
    side: Option<Side>,
    /// Lines of the current entry so far.
    entry_lines: u64,
    /// The side learnt for each stack position of earlier keys.
    sides: Vec<Option<Side>>,
    /// After a `]:` line: histogram bucket lines follow.
    in_histogram: bool,
    /// An entry of another map was named in the notes.
    noted_other: bool,
}

impl BpftraceParser {
    /// A parser naming frames as `opts` say.
    pub fn new(opts: BpftraceOptions) -> Self {
        Self {
            opts,
            ..Self::default()
        }
    }

    /// Feeds one line.
    pub fn line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        if line.trim().is_empty() {
            self.in_histogram = false;
            out.stats.line_counts.blank += 1;
            return;
        }
        if self.in_entry {
            self.entry_line(line, state, out);
        } else if let Ok((rest, name)) = open(line) {
            self.in_histogram = false;
            self.begin(name, rest, state, out, line);
        } else if self.in_histogram && line.starts_with(['[', '(']) {
            state.skip(out, "bpftrace histogram bucket (not a count)", line);
        } else if scalar(line).is_ok() {
            state.skip(out, "bpftrace map without a key (no stack)", line);
        } else if line.starts_with([' ', '\t', ',', ']', '@']) {
            state.skip(out, "bpftrace frame or key outside a map entry", line);
        } else {
            // `Attaching 2 probes...`, a tool's `Tracing... Hit Ctrl-C to end.`, `^C`.
            out.stats.line_counts.comments += 1;
        }
    }

    /// The first line of an entry (`@name[` and what follows it).
    fn begin(
        &mut self,
        name: &str,
        rest: &str,
        state: &mut ParseState,
        out: &mut Collector,
        line: &str,
    ) {
        // The first map with a counted entry is kept: a histogram before it claims nothing.
        self.other_map = self.map.as_ref().is_some_and(|m| m != name);
        self.name.clear();
        self.name.push_str(name);
        self.in_entry = true;
        self.entry_lines = 0;
        self.elements.clear();
        self.key_text(rest, state, out, line);
    }

    /// A line inside an entry: a frame, or the key's text after a stack.
    fn entry_line(&mut self, line: &str, state: &mut ParseState, out: &mut Collector) {
        let t = line.trim_start();
        let indented = t.len() < line.len();
        if !indented && (t.starts_with(',') || t.starts_with(']')) {
            self.end_stack();
            let rest = if let Some(r) = t.strip_prefix(',') {
                r.strip_prefix(' ').unwrap_or(r)
            } else {
                t
            };
            if rest.starts_with(']') {
                // `]: N`: the key ends with the stack.
                match close(rest) {
                    Some(("", value)) => self.end_entry(value, state, out, line),
                    _ => self.bad_entry(state, out, line),
                }
                return;
            }
            self.key_text(rest, state, out, line);
            return;
        }
        if let Ok((rest, name)) = open(line) {
            // A new entry before the last one was closed: that one is dropped.
            out.stats.note(
                state.line_no,
                "bpftrace map entry without its count (a new entry began), dropped",
                line,
            );
            out.stats.line_counts.dropped += self.entry_lines;
            self.reset();
            self.begin(name, rest, state, out, line);
            return;
        }
        match frame(line) {
            Some(f) => {
                self.entry_lines += 1;
                if self.other_map {
                    return;
                }
                let side = side_of(&f);
                self.side = self.side.or(side);
                let name = if self.opts.include_addrs {
                    f.symbol
                } else {
                    strip_offset(f.symbol)
                };
                let module = f.module.filter(|m| *m != "[unknown]").map(library);
                self.frames.push((name.to_owned(), module));
            }
            None => self.bad_entry(state, out, line),
        }
    }

    /// Key text after `[` or after a stack: values, then either a stack to come (the text
    /// ends in `, ` or is empty) or the end of the key (`]: N`).
    fn key_text(&mut self, text: &str, state: &mut ParseState, out: &mut Collector, line: &str) {
        let (keys, value) = match close(text) {
            Some((keys, value)) => (keys, Some(value)),
            None => (text, None),
        };
        let mut parts: Vec<&str> = keys.split(", ").collect();
        if value.is_none() {
            // The last part is where the next stack starts: nothing may stand there.
            if parts.pop().is_some_and(|p| !p.is_empty()) {
                self.bad_entry(state, out, line);
                return;
            }
        }
        for p in parts {
            self.elements.push(if p.is_empty() {
                Element::Stack(Vec::new(), None)
            } else {
                Element::Value(p.to_owned())
            });
        }
        match value {
            Some(value) => self.end_entry(value, state, out, line),
            None => self.entry_lines += 1,
        }
    }

    fn end_stack(&mut self) {
        let frames = std::mem::take(&mut self.frames);
        self.elements.push(Element::Stack(frames, self.side.take()));
    }

    /// A line that cannot be part of the entry: the entry is dropped, its lines counted.
    fn bad_entry(&mut self, state: &mut ParseState, out: &mut Collector, line: &str) {
        state.skip(out, "unreadable bpftrace map entry line", line);
        out.stats.line_counts.dropped += self.entry_lines;
        self.reset();
    }

    fn reset(&mut self) {
        self.entry_lines = 0;
        self.elements.clear();
        self.frames.clear();
        self.side = None;
        self.in_entry = false;
        self.other_map = false;
    }

    /// The entry's last line: its value (`None`: a histogram follows).
    fn end_entry(
        &mut self,
        value: Option<u64>,
        state: &mut ParseState,
        out: &mut Collector,
        line: &str,
    ) {
        let Some(count) = value else {
            self.in_histogram = true;
            state.skip(out, "bpftrace histogram value (not a count)", line);
            out.stats.line_counts.dropped += self.entry_lines;
            self.reset();
            return;
        };
        if self.other_map {
            out.stats.line_counts.dropped += self.entry_lines + 1;
            if !self.noted_other {
                self.noted_other = true;
                out.stats.note(
                    state.line_no,
                    "entry of another bpftrace map, dropped (the first map is kept)",
                    line,
                );
            }
            self.reset();
            return;
        }
        if self.map.is_none() {
            self.map = Some(std::mem::take(&mut self.name));
        }
        let ids = self.stack_ids(out);
        out.tree.insert_ids(ids, count);
        out.stats.samples += 1;
        out.stats.line_counts.in_samples += self.entry_lines + 1;
        self.reset();
    }

    /// The entry's frames, root first: values, the user stack, the kernel stack.
    fn stack_ids(&mut self, out: &mut Collector) -> Vec<NameId> {
        let elements = std::mem::take(&mut self.elements);
        let sides = self.resolve_sides(&elements);
        let mut ids = Vec::new();
        for e in &elements {
            if let Element::Value(v) = e {
                ids.push(out.tree.intern_task(v));
            }
        }
        let stacks = elements.iter().filter_map(|e| match e {
            Element::Stack(frames, _) => Some(frames),
            Element::Value(_) => None,
        });
        let mut ordered: Vec<(Side, &Frames)> = sides.into_iter().zip(stacks).collect();
        ordered.sort_by_key(|(side, _)| *side == Side::Kernel);
        for (side, frames) in ordered {
            for (name, module) in frames.iter().rev() {
                let kernel = side == Side::Kernel;
                let lib = module.as_deref().or(kernel.then_some(KERNEL_LIBRARY));
                let names = out.tree.names_mut();
                ids.push(if kernel && self.opts.annotate_kernel {
                    names.intern_in(&format!("{name}_[k]"), lib)
                } else {
                    names.intern_in(name, lib)
                });
            }
        }
        if ids.is_empty() {
            ids.push(out.tree.intern_task(EMPTY_STACK));
        }
        ids
    }

    /// The side of each stack of a key: its frames' evidence, else what earlier keys
    /// showed at that position, else the opposite of another stack's, else the first
    /// stack is the kernel's (`@[kstack, ustack]`, bpftrace's idiom) and the others the
    /// user's.
    fn resolve_sides(&mut self, elements: &[Element]) -> Vec<Side> {
        let own: Vec<Option<Side>> = elements
            .iter()
            .filter_map(|e| match e {
                Element::Stack(_, side) => Some(*side),
                Element::Value(_) => None,
            })
            .collect();
        if self.sides.len() < own.len() {
            self.sides.resize(own.len(), None);
        }
        for (known, side) in self.sides.iter_mut().zip(&own) {
            if side.is_some() {
                *known = *side;
            }
        }
        let learnt: Vec<Option<Side>> = own
            .iter()
            .zip(&self.sides)
            .map(|(own, known)| own.or(*known))
            .collect();
        let any_kernel = learnt.contains(&Some(Side::Kernel));
        let any_user = learnt.contains(&Some(Side::User));
        learnt
            .iter()
            .enumerate()
            .map(|(i, side)| match (side, any_kernel, any_user) {
                (Some(s), _, _) => *s,
                (None, _, true) => Side::Kernel,
                (None, false, false) if i == 0 => Side::Kernel,
                (None, _, false) => Side::User,
            })
            .collect()
    }

    /// Call at the end of the input.
    pub fn finish(&mut self, state: &mut ParseState, out: &mut Collector) {
        if self.in_entry {
            out.stats.note(
                state.line_no,
                "bpftrace map entry without its count at the end of the input, dropped",
                "",
            );
            out.stats.line_counts.dropped += self.entry_lines;
            self.reset();
        }
    }
}
