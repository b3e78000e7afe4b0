//! Stage: `perf script` text → samples, with the semantics of `inferno-collapse-perf`
//! 0.12 defaults (see the README for the few deliberate deviations).
//!
//! ```text
//! sample      := event_line stack_line* blank_line
//! event_line  := comm SP ids SP+ ( "[" cpu "]" SP+ )? ( time ":" SP* )? ( period SP+ )?
//!                event ( ":" modifiers )? ":" trailer
//! ids         := [pid "/"] tid                         (the first all-digit word)
//! event       := name | subsystem ":" tracepoint       (a tracepoint's trailer is its arguments)
//! stack_line  := WS* pc SP+ symbol ["+0x" hex] SP "(" dso ")"
//! ```
//!
//! The process name is the root frame; the weight is the period, or 1 without one; only
//! the first event type seen is kept unless an event is named.
//!
//! Two deviations from inferno 0.12 (and stackcollapse-perf.pl), where both disagree with
//! `perf report`: frames whose symbol starts with `(` — C++'s `(anonymous namespace)::f` —
//! are kept (inferno drops them and charges their time to the caller), and a sample with
//! no stack line (no callchain recorded) is kept as a stack of its root frame alone, as
//! `perf report` counts it (inferno drops it).

use std::borrow::Cow;

use super::common::{full, hex, uint};
use super::{Collector, ParseState};
use rustc_hash::FxHashMap;

use crate::profile::intern::Kind;
use crate::profile::{CallTree, NameId, Switch, TaskId, TaskState, Unit};
use nom::IResult;
use nom::Parser;
use nom::bytes::complete::{take_till1, take_while1};
use nom::character::complete::{char, space0, space1};
use nom::combinator::{opt, recognize};
use nom::sequence::{delimited, preceded, terminated};

/// The perf parser's symbol cache: a table of 4-byte offsets into one byte vector of
/// records `dso u32, ids u32, len u32, symbol bytes`, so that a hit reads the table (small
/// enough to stay in the core's cache while the input streams past) and one place in
/// memory, where the record's numbers and the symbol lie side by side.
///
/// - the symbol is without its offset (with `\0` and the address for an unknown symbol
///   when addresses are kept);
/// - `dso` is the DSO's number, and [`JAVA`] when read in a Java process (whose names are
///   tidied differently), and [`INLINE`] for an inlined frame of perf.data (one of text
///   has its own DSO, `(inlined)`);
/// - `ids` is the frame name (most symbols), or [`MANY`] and the index of its names (Java
///   inlining).
#[derive(Debug, Default)]
struct SymbolCache {
    table: hashbrown::HashTable<u32>,
    records: Vec<u8>,
    /// The names of symbols that make several frames, root→leaf.
    many: Vec<Box<[NameId]>>,
}

const HEADER: usize = 12;

/// `(dso, ids, symbol)` of the record at `at`.
fn record(records: &[u8], at: u32) -> (u32, u32, &[u8]) {
    let at = at as usize;
    let word = |i: usize| {
        records
            .get(at + i..at + i + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(u32::MAX, u32::from_ne_bytes)
    };
    let len = word(8) as usize;
    let key = records
        .get(at + HEADER..at + HEADER + len)
        .unwrap_or_default();
    (word(0), word(4), key)
}

impl SymbolCache {
    /// The `ids` cached for `key` in `dso`.
    fn get(&self, hash: u64, key: &[u8], dso: u32) -> Option<u32> {
        let at = *self.table.find(hash, |&at| {
            let (d, _, k) = record(&self.records, at);
            d == dso && k == key
        })?;
        Some(record(&self.records, at).1)
    }

    /// Appends the names of `ids` leaf first (the order of a sample's frames).
    fn push_leaf_first(&self, ids: u32, frames: &mut Vec<NameId>) {
        if ids & MANY == 0 {
            frames.push(NameId(ids));
        } else if let Some(many) = self.many.get((ids & !MANY) as usize) {
            frames.extend(many.iter().rev());
        }
    }

    /// Caches `names` (root→leaf) for `key` in `dso`; nothing when the cache is full
    /// (4 GiB of symbols).
    fn insert(&mut self, hash: u64, key: &[u8], dso: u32, names: Vec<NameId>) {
        let end = self.records.len() + HEADER + key.len();
        let (Ok(at), Ok(len), Ok(_)) = (
            u32::try_from(self.records.len()),
            u32::try_from(key.len()),
            u32::try_from(end),
        ) else {
            return;
        };
        let ids = match names.as_slice() {
            [one] if one.0 & MANY == 0 => one.0,
            _ => match u32::try_from(self.many.len()) {
                Ok(n) if n & MANY == 0 => {
                    self.many.push(names.into_boxed_slice());
                    MANY | n
                }
                _ => return,
            },
        };
        for word in [dso, ids, len] {
            self.records.extend_from_slice(&word.to_ne_bytes());
        }
        self.records.extend_from_slice(key);
        let Self { table, records, .. } = self;
        table.insert_unique(hash, at, |&at| {
            let (d, _, k) = record(records, at);
            cache_hash(k, d)
        });
    }
}

const JAVA: u32 = 1 << 31;
const INLINE: u32 = 1 << 30;

fn cache_hash(key: &[u8], dso: u32) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(key);
    h.write_u32(dso);
    h.finish()
}
const MANY: u32 = 1 << 31;

/// Options with the meaning they have in inferno-collapse-perf and stackcollapse-perf.pl.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerfOptions {
    /// Root frame `comm-PID`.
    pub include_pid: bool,
    /// Root frame `comm-PID/TID`.
    pub include_tid: bool,
    /// Suffix `_[k]` on kernel frames.
    pub annotate_kernel: bool,
    /// Suffix `_[j]` on JIT frames.
    pub annotate_jit: bool,
    /// Keep addresses of unknown frames: `[unknown <pc>]`.
    pub include_addrs: bool,
    /// Keep this event instead of the first one seen.
    pub event: Option<String>,
    /// `event` is the metric asked for (`--metric`), not `--event`: a recording without
    /// that event keeps all its events, so that the metrics it has can be listed.
    pub event_from_metric: bool,
    /// Keep no sample records (time, task): outputs of the whole profile do not need
    /// them, and they cost 24 bytes a sample.
    pub no_timeline: bool,
    /// A function is its name alone, without its library or whether it is inlined:
    /// exports to formats of names only (folded, SVG) then need no merge of the frames
    /// of one name in two libraries.
    pub names_only: bool,
}

/// The parts of an event line flametui uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLine<'a> {
    /// Process name (may contain spaces).
    pub comm: &'a str,
    /// Process id, `?` when perf printed only the thread id.
    pub pid: &'a str,
    /// Thread id.
    pub tid: &'a str,
    /// Event name without modifiers (`cycles`, `sched:sched_switch`).
    pub event: &'a str,
    /// The event as printed, with modifiers (`cycles:u`).
    pub event_spec: &'a str,
    /// Timestamp in nanoseconds (`12345.678901:` is 12,345,678,901,000), if printed.
    pub time: Option<u64>,
    /// Sample period, if printed.
    pub period: Option<u64>,
    /// A stack frame printed on the event line itself.
    pub inline_frame: Option<&'a str>,
    /// A `sched:sched_switch` sample's arguments: who came on the CPU, and why the task
    /// left it.
    pub switch: Option<Switch>,
}

/// A parsed stack line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackLine<'a> {
    /// Instruction address as printed.
    pub pc: &'a str,
    /// Symbol, possibly with `+0x` offset; `" "` when perf printed none.
    pub symbol: &'a str,
    /// The DSO inside the parentheses.
    pub dso: &'a str,
    /// An inlined frame: perf script's `(inlined)` DSO (`dso` is then that word, and the
    /// frame's library the next line's at its address), or one of perf.data, whose `dso`
    /// is its address's mapping.
    pub inlined: bool,
}

/// `id := "-"? [0-9]+` — perf prints -1 for a task that has exited.
fn id(i: &str) -> IResult<&str, &str> {
    recognize(preceded(opt(char('-')), uint)).parse(i)
}

/// `ids := id ( "/" id )?` followed by a space.
fn ids(i: &str) -> IResult<&str, (&str, Option<&str>)> {
    terminated((id, opt(preceded(char('/'), id))), char(' ')).parse(i)
}

/// `cpu := "[" [0-9]+ "]"`
fn cpu(i: &str) -> IResult<&str, &str> {
    terminated(delimited(char('['), uint, char(']')), space1).parse(i)
}

/// `time := [0-9]+ "." [0-9]+ ":"` — seconds with microseconds (nanoseconds with
/// `perf script --ns`), as nanoseconds; digits past the ninth decimal are dropped, and a
/// time past `u64` nanoseconds (585 years) is read as none.
fn time(i: &str) -> IResult<&str, Option<u64>> {
    let (rest, (secs, frac)) =
        terminated((uint, preceded(char('.'), uint)), (char(':'), space0)).parse(i)?;
    let mut sub = 0u64;
    for at in 0..9 {
        let digit = frac.as_bytes().get(at).map_or(0, |b| u64::from(b - b'0'));
        sub = sub * 10 + digit;
    }
    let ns = secs
        .parse::<u64>()
        .ok()
        .and_then(|s| s.checked_mul(1_000_000_000))
        .and_then(|s| s.checked_add(sub));
    Ok((rest, ns))
}

/// `period := [0-9]+ SP+`
fn period(i: &str) -> IResult<&str, &str> {
    terminated(uint, space1).parse(i)
}

/// `modifiers := [ukhIGHpPSDWeb]+` (perf's event modifier letters)
fn modifiers(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| "ukhIGHpPSDWeb".contains(c)).parse(i)
}

/// `word_colon := [^: ]+ ":"`
fn word_colon(i: &str) -> IResult<&str, &str> {
    terminated(take_till1(|c| c == ':' || c == ' '), char(':')).parse(i)
}

/// `pc := [^ ]+ " "`
fn pc_word(i: &str) -> IResult<&str, &str> {
    // As `terminated(take_till1(|c| c == ' '), tag(" "))`, found with memchr: this runs
    // on every stack line, and a char-by-char scan was a tenth of the parse.
    match memchr::memchr(b' ', i.as_bytes()) {
        Some(sp) if sp > 0 => Ok((&i[sp + 1..], &i[..sp])),
        _ => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::TakeTill1,
        ))),
    }
}

/// `event := name ":" ( modifiers ":" | tracepoint ":" )?`, returning
/// (base name, spec as printed, `is_tracepoint`).
fn event(i: &str) -> IResult<&str, (&str, &str, bool)> {
    let (rest, name) = word_colon(i)?;
    if let Ok((after, _)) = terminated(modifiers, char(':')).parse(rest) {
        let spec = &i[..i.len() - after.len() - 1];
        return Ok((after, (name, spec, false)));
    }
    if let Ok((after, _)) = word_colon(rest) {
        let full_name = &i[..i.len() - after.len() - 1];
        return Ok((after, (full_name, full_name, true)));
    }
    Ok((rest, (name, name, false)))
}

/// Splits an event line into its fields; `None` for a line that is not one.
pub fn event_line(line: &str) -> Option<EventLine<'_>> {
    // comm may contain spaces and digits: it ends before the first word that is all
    // digits (optionally pid/tid) and is followed by a space.
    let starts = line
        .char_indices()
        .filter(|&(i, c)| c != ' ' && i > 0 && line.as_bytes()[i - 1] == b' ');
    for (start, _) in starts {
        let Ok((rest, (first, second))) = ids(&line[start..]) else {
            continue;
        };
        let (pid, tid) = match second {
            Some(tid) => (first, tid),
            None => ("?", first),
        };
        let comm = line[..start].trim();
        let (rest, _) = space0::<_, nom::error::Error<&str>>(rest).ok()?;
        let (rest, _) = opt(cpu).parse(rest).ok()?;
        let (rest, when) = opt(time).parse(rest).ok()?;
        let (rest, per) = opt(period).parse(rest).ok()?;
        let (trailer, (event, event_spec, tracepoint)) = event(rest).ok()?;
        let trailer = trailer.trim();
        let inline_frame = (!tracepoint && !trailer.is_empty()).then_some(trailer);
        let switch = (event == SCHED_SWITCH)
            .then(|| switch_args(trailer))
            .flatten();
        return Some(EventLine {
            comm,
            pid,
            tid,
            event,
            event_spec,
            time: when.flatten(),
            period: per.and_then(|p| p.parse().ok()),
            inline_frame,
            switch,
        });
    }
    None
}

/// A side record that `perf script` prints between samples with `--show-switch-events`
/// or `--show-lost-events`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLine {
    /// The thread it is about.
    pub tid: Option<i64>,
    /// When, in nanoseconds.
    pub time: Option<u64>,
    /// What it says.
    pub kind: RecordKind,
}

/// The side records flametui uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// `PERF_RECORD_SWITCH IN` (or `_CPU_WIDE IN`): the thread came on a CPU.
    SwitchIn,
    /// `PERF_RECORD_LOST…`: events were lost, durations are unreliable.
    Lost,
    /// Any other record (a switch out, a mmap, …).
    Other,
}

/// `record := comm SP ids SP+ ( "[" cpu "]" SP+ )? time ":" SP "PERF_RECORD_" kind …` —
/// the records `perf script --show-switch-events` / `--show-lost-events` print.
pub fn record_line(line: &str) -> Option<RecordLine> {
    static RECORD: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": PERF_RECORD_"));
    let at = RECORD.find(line.as_bytes())?;
    let (head, rest) = (&line[..at], &line[at + 2..]);
    let mut words = head.split_whitespace().rev();
    let time_word = words.next()?;
    // The time word ends where ": PERF_RECORD_" begins: parsed in place.
    let time = line
        .get(at.saturating_sub(time_word.len())..)
        .and_then(|t| time(t).ok())
        .and_then(|(_, t)| t);
    let mut word = words.next()?;
    if word.starts_with('[') {
        word = words.next()?;
    }
    let tid = word.rsplit('/').next().and_then(|t| t.parse().ok());
    let name = rest.split_whitespace().next().unwrap_or("");
    let direction = rest.split_whitespace().nth(1);
    let kind = if name.starts_with("PERF_RECORD_SWITCH") && direction == Some("IN") {
        RecordKind::SwitchIn
    } else if name.starts_with("PERF_RECORD_LOST") {
        RecordKind::Lost
    } else {
        RecordKind::Other
    };
    Some(RecordLine { tid, time, kind })
}

/// The scheduler's context-switch tracepoint.
pub const SCHED_SWITCH: &str = "sched:sched_switch";

/// `args := "prev_comm=" comm " prev_pid=" id " prev_prio=" n " prev_state=" state
///          " ==> next_comm=" comm " next_pid=" id " next_prio=" n` — the arguments of
/// `sched:sched_switch` as perf script prints them. A comm may hold spaces and any text,
/// so the fields are found from the right: `next_pid` is the last one of its name, and
/// `prev_state` the last one before the last ` ==> `.
pub fn switch_args(args: &str) -> Option<Switch> {
    let bytes = args.as_bytes();
    // The `=` signs from the right: `next_prio=`, then `next_pid=` (a searcher per
    // field scanned the whole arguments three times: a tenth of a switch-only input).
    let next_at = value_after(bytes, bytes.len(), b" next_pid=")?;
    let next_tid = word_at(args, next_at).parse().ok()?;
    // The last ` ==> ` before it, from its `>`.
    let arrow = memchr::memrchr_iter(b'>', &bytes[..next_at])
        .find(|&gt| gt >= 3 && bytes[gt - 3..=gt] == *b" ==>" && bytes.get(gt + 1) == Some(&b' '))
        .map(|gt| gt - 3)?;
    let state_at = value_after(bytes, arrow, b"prev_state=")?;
    Some(Switch {
        next_tid,
        state: TaskState::parse(word_at(&args[..arrow], state_at)),
    })
}

/// The word of `text` that begins at `at` (up to a space or the end).
fn word_at(text: &str, at: usize) -> &str {
    let rest = &text[at..];
    &rest[..memchr::memchr(b' ', rest.as_bytes()).unwrap_or(rest.len())]
}

/// Where the value of the last `key` (ending in `=`) before `end` begins, found from the
/// right one `=` at a time.
fn value_after(bytes: &[u8], end: usize, key: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(b'=', &bytes[..end])
        .find(|&eq| bytes[..=eq].ends_with(key))
        .map(|eq| eq + 1)
}

/// `stack_line := WS* pc ( SP+ symbol )? ( SP "(" dso ")" )?` — the DSO is the last word
/// when perf prints it (`-F ip,sym` leaves it out, and so does `perf script` for a
/// tracepoint's callchain in a pipe-mode recording: the DSO is then empty).
pub fn stack_line(line: &str) -> Option<StackLine<'_>> {
    let indented = line.starts_with([' ', '\t']);
    let line = trim_start(line);
    let (rest, pc) = pc_word(line).unwrap_or(("", line));
    let dso_at = dso_group(rest);
    let (symbol, dso) = match dso_at {
        Some((space, dso)) if !pc.is_empty() => (&rest[..space], dso),
        // Without a DSO only an indented address makes it a frame (not any indented
        // text, nor a next event line of `-F` without `ip`: `dd 4312 …`).
        _ if indented && !pc.is_empty() && pc.bytes().all(|b| b.is_ascii_hexdigit()) => (rest, ""),
        _ => return None,
    };
    let symbol = match symbol.trim() {
        "" => " ",
        s => s,
    };
    Some(StackLine {
        pc,
        symbol,
        dso,
        inlined: dso == INLINED,
    })
}

/// The DSO group that ends a stack line: the outermost parenthesised group at its end,
/// after a space (`(/memfd:sealed-91 (deleted))`, `(/opt/my app/lib.so)`); the space's
/// index and the DSO.
fn dso_group(rest: &str) -> Option<(usize, &str)> {
    let bytes = rest.as_bytes();
    if bytes.last() != Some(&b')') {
        return None;
    }
    // The common case, a last word `(dso)` without other parentheses.
    if let Some(space) = memchr::memrchr(b' ', bytes) {
        let word = &bytes[space + 1..];
        if word.len() >= 2
            && word[0] == b'('
            && memchr::memchr2(b'(', b')', &word[1..word.len() - 1]).is_none()
        {
            return Some((space, &rest[space + 2..rest.len() - 1]));
        }
    }
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().rev() {
        match b {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    let space = i.checked_sub(1).filter(|&s| bytes[s] == b' ')?;
                    return Some((space, &rest[i + 1..rest.len() - 1]));
                }
            }
            _ => {}
        }
    }
    None
}

/// `str::trim_start`, quicker over the ASCII indentation of stack lines.
fn trim_start(line: &str) -> &str {
    // The ASCII characters `char::is_whitespace` accepts (with vertical tab, unlike
    // `u8::is_ascii_whitespace`).
    let ascii = line
        .bytes()
        .take_while(|&b| b == b' ' || (b'\t'..=b'\r').contains(&b))
        .count();
    let rest = &line[ascii..];
    if rest.as_bytes().first().is_some_and(|b| !b.is_ascii()) {
        rest.trim_start()
    } else {
        rest
    }
}

/// Removes a trailing `+0x<hex>` offset (the last `+0x` in the symbol).
fn strip_offset(symbol: &str) -> &str {
    let bytes = symbol.as_bytes();
    let last = memchr::memrchr_iter(b'+', bytes).find(|&at| bytes[at + 1..].starts_with(b"0x"));
    if let Some(at) = last
        && (full(hex, &symbol[at + 3..]).is_some() || symbol.len() == at + 3)
    {
        return &symbol[..at];
    }
    symbol
}

/// The library a DSO names, as tables and the collapse-library transform show it: the
/// file name of a path (`/usr/lib/libc.so.6` → `libc.so.6`), a bracketed name as perf
/// prints it (`[kernel.kallsyms]`, `[vdso]`), nothing for `[unknown]` or an empty DSO.
pub fn library_name(dso: &str) -> Option<&str> {
    let dso = dso.trim();
    // perf's `(inlined)` is not a library: the frame's is its caller's.
    if dso.is_empty() || dso == "[unknown]" || dso == INLINED {
        return None;
    }
    if dso.starts_with('[') {
        return Some(dso);
    }
    let base = &dso[dso.rfind('/').map_or(0, |i| i + 1)..];
    (!base.is_empty()).then_some(base)
}

/// What perf writes where the DSO goes for an inlined frame.
pub const INLINED: &str = "inlined";

/// True for DSOs that are the kernel (as inferno decides it).
#[allow(clippy::case_sensitive_file_extension_comparisons)] // DSO names are case-sensitive
pub fn is_kernel(dso: &str) -> bool {
    let vmlinux = dso.rfind("vmlinux").is_some_and(|at| {
        dso[at..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    });
    (dso.starts_with('[') || dso.ends_with(".ko") || vmlinux) && dso != "[unknown]"
}

#[allow(clippy::case_sensitive_file_extension_comparisons)] // DSO names are case-sensitive
fn is_jit(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map"))
        || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// `[unknown]` symbols are named after their DSO: `[libc.so.6]`, or `[unknown <pc>]`.
fn unknown_fallback<'a>(func: &'a str, dso: &str, pc: &str, addrs: bool) -> Cow<'a, str> {
    if func != "[unknown]" {
        return func.into();
    }
    let base = match (dso, addrs) {
        ("[unknown]", true) => "unknown",
        ("[unknown]", false) => return func.into(),
        (dso, _) => &dso[dso.rfind('/').map_or(0, |i| i + 1)..],
    };
    if addrs {
        format!("[{base} <{pc}>]").into()
    } else {
        format!("[{base}]").into()
    }
}

#[cfg(test)]
/// Drops argument lists (`f(int)` → `f`), keeping Go methods `pkg.(*T).M`,
/// `(anonymous namespace)` and brackets inside templates; `;` becomes `:`.
pub fn tidy_generic(func: &str) -> String {
    let mut out = String::with_capacity(func.len());
    tidy_generic_into(func, &mut out);
    out
}

/// [`tidy_generic`] appending to a reused buffer.
fn tidy_generic_into(func: &str, out: &mut String) {
    let start = out.len();
    let bytes = func.as_bytes();
    if memchr::memchr2(b'(', b';', bytes).is_none() {
        out.push_str(func);
        return;
    }
    let mut depth: i32 = 0;
    let mut after_dot = None;
    let mut end = func.len();
    for (idx, c) in func.char_indices() {
        match c {
            '<' | '{' | '[' => depth += 1,
            '>' | '}' | ']' | ')' => depth -= 1,
            '(' => {
                if depth == 0
                    && after_dot != Some(idx)
                    && !func[idx..].starts_with("(anonymous namespace)")
                {
                    end = idx;
                    break;
                }
                depth += 1;
            }
            '.' => after_dot = Some(idx + 1),
            _ => {}
        }
    }
    if func[..end].trim().is_empty() {
        // A name that is all argument list (`({...})`) keeps it rather than vanish.
        end = func.len();
    }
    out.push_str(&func[..end]);
    if memchr::memchr(b';', &bytes[..end]).is_some() {
        let fixed = out[start..].replace(';', ":");
        out.truncate(start);
        out.push_str(&fixed);
    }
}

/// Java frames lose the `L` of their class descriptor.
fn tidy_java(func: &mut String) {
    if func.starts_with('L') && func.contains('/') {
        func.remove(0);
    }
}

/// Escapes of Rust's legacy symbol mangling.
const CODES: [(&str, &str); 20] = [
    ("$SP$", "@"),
    ("$BP$", "*"),
    ("$RF$", "&"),
    ("$LT$", "<"),
    ("$GT$", ">"),
    ("$LP$", "("),
    ("$RP$", ")"),
    ("$C$", ","),
    ("$u7e$", "~"),
    ("$u20$", " "),
    ("$u27$", "'"),
    ("$u3d$", "="),
    ("$u5b$", "["),
    ("$u5d$", "]"),
    ("$u7b$", "{"),
    ("$u7d$", "}"),
    ("$u3b$", ";"),
    ("$u2b$", "+"),
    ("$u21$", "!"),
    ("$u22$", "\""),
];

/// Rust legacy symbols that a profiler demangled only half (`…::h0123…` with `$LT$`).
pub fn fix_rust_symbol(symbol: &str) -> std::borrow::Cow<'_, str> {
    const HASH_LEN: usize = 17;
    let is_hash = |s: &str| s.starts_with('h') && s[1..].chars().all(|c| c.is_ascii_hexdigit());
    if symbol.len() < HASH_LEN
        || !symbol.is_char_boundary(symbol.len() - HASH_LEN)
        || !is_hash(&symbol[symbol.len() - HASH_LEN..])
    {
        return symbol.into();
    }
    let mut rest = &symbol[..symbol.len() - HASH_LEN];
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = &rest[1..];
    }
    let mut out = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            out.push('.');
            rest = r;
        } else if rest.starts_with('$') {
            if let Some((code, text)) = CODES.iter().find(|(code, _)| rest.starts_with(code)) {
                out.push_str(text);
                rest = &rest[code.len()..];
            } else {
                out.push_str(rest);
                break;
            }
        } else {
            let at = rest.find(['$', '.']).unwrap_or(rest.len());
            out.push_str(&rest[..at]);
            rest = &rest[at..];
        }
    }
    out.into()
}

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
    /// The DSOs seen, numbered for the cache's keys (few, and mostly the same as the line
    /// before).
    dsos: FxHashMap<Box<str>, u32>,
    dso_names: Vec<Box<str>>,
    last_dso: u32,
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
        *out.stats.events.entry(ev.event.to_owned()).or_insert(0) += 1;
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
        self.pname.push_str(&ev.comm.replace(' ', "_"));
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
        self.frame(sl, &mut out.tree);
    }

    /// Adds the frame(s) of one stack line to the current sample.
    fn frame(&mut self, sl: StackLine<'_>, tree: &mut CallTree) {
        let before = self.frames.len();
        self.frame_names(sl, tree);
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
                let dso = self.dso_number(sl.dso);
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
        let dso = self.dso_number(sl.dso)
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

    /// The number of a DSO name, for the symbol cache's keys (below [`INLINE`]).
    fn dso_number(&mut self, dso: &str) -> u32 {
        if let Some(name) = self.dso_names.get(self.last_dso as usize)
            && **name == *dso
        {
            return self.last_dso;
        }
        let n = if let Some(&n) = self.dsos.get(dso) {
            n
        } else {
            let n = u32::try_from(self.dso_names.len()).unwrap_or(u32::MAX) & !(JAVA | INLINE);
            self.dsos.insert(dso.into(), n);
            self.dso_names.push(dso.into());
            n
        };
        self.last_dso = n;
        n
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
        if !self.dropping && self.in_event {
            let process = out.tree.intern_task(&self.pname);
            let frames = std::iter::once(process).chain(self.frames.iter().rev().copied());
            let weight = self.period.unwrap_or(1);
            out.stats.line_counts.in_samples += self.sample_lines;
            let target = match self.other.take() {
                None => Some(&mut *out),
                Some(i) => out.others.get_mut(i),
            };
            if let Some(target) = target {
                let leaf = target.tree.insert_ids(frames, weight);
                if let Some(switch) = self.switch.take() {
                    target
                        .samples
                        .push_switch(self.time, self.task, leaf, weight, switch);
                } else if !self.opts.no_timeline {
                    target.samples.push(self.time, self.task, leaf, weight);
                }
                target.stats.samples += 1;
            }
        } else {
            out.stats.line_counts.dropped += self.sample_lines;
        }
        self.sample_lines = 0;
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

/// The event of the first readable event line among `lines`, if any.
pub fn first_event(lines: &[&str]) -> Option<String> {
    lines
        .iter()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| event_line(l.trim_end()))
        .map(|ev| ev.event.to_owned())
}

/// Detection over the first lines: `Some(true)` for perf script, `Some(false)` when the
/// first meaningful line is not an event line, `None` when there is nothing to judge.
pub fn sniff(lines: &[&str]) -> Option<bool> {
    let mut meaningful = lines
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let first = meaningful.next()?;
    let Some(ev) = event_line(first) else {
        return Some(false);
    };
    // No perf event is named by digits alone: `Tue Dec  1 16:40 2026 Time and Allocation
    // Profiling Report` (a GHC `.prof` header) reads as comm, tid 1 and event `16:`.
    if ev.event.bytes().all(|b| b.is_ascii_digit()) {
        return Some(false);
    }
    if ev.inline_frame.is_some() {
        return Some(true);
    }
    // One unreadable line right after the event line must not hide a perf file.
    let mut next = meaningful.take(4).peekable();
    if next.peek().is_none() {
        return Some(true);
    }
    Some(next.any(|l| stack_line(l).is_some() || event_line(l).is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn switch_and_lost_records_are_read() {
        let rec = |l: &str| record_line(l).map(|r| (r.tid, r.time, r.kind));
        assert_eq!(
            rec("waiter 30346  4487.958904: PERF_RECORD_SWITCH IN         "),
            Some((Some(30346), Some(4_487_958_904_000), RecordKind::SwitchIn))
        );
        assert_eq!(
            rec(
                "my app 7/30347 [001]  4487.958949123: PERF_RECORD_SWITCH_CPU_WIDE IN  prev pid/tid:     0/0    "
            ),
            Some((Some(30347), Some(4_487_958_949_123), RecordKind::SwitchIn))
        );
        assert_eq!(
            rec("waiter 30341  4487.958902: PERF_RECORD_SWITCH OUT preempt"),
            Some((Some(30341), Some(4_487_958_902_000), RecordKind::Other))
        );
        assert_eq!(
            rec("perf 1 [000] 1.0: PERF_RECORD_LOST lost 12").map(|r| r.2),
            Some(RecordKind::Lost)
        );
        assert_eq!(rec("dd 1 [000] 1.0: 1 cycles: a (b)"), None);
    }

    #[test]
    fn sched_switch_arguments_are_read_from_the_right() {
        let args = |t: &str| switch_args(t).map(|s| (s.next_tid, s.state.letter()));
        for (text, want) in [
            (
                "prev_comm=dd prev_pid=24266 prev_prio=120 prev_state=D ==> next_comm=kworker/1:1H next_pid=56 next_prio=100",
                Some((56, 'D')),
            ),
            (
                "prev_comm=kworker/u8:2 prev_pid=22441 prev_prio=120 prev_state=R+ ==> next_comm=dd next_pid=25978 next_prio=120",
                Some((25978, 'R')),
            ),
            // A comm with spaces and with the text of other fields.
            (
                "prev_comm=a prev_state=D b prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=x next_pid=9 y next_pid=7 next_prio=120",
                Some((7, 'S')),
            ),
            ("prev_comm=a prev_pid=1 prev_state=S", None),
            ("prev_state=S ==> next_comm=b next_pid=x", None),
            ("", None),
        ] {
            assert_eq!(args(text), want, "{text}");
        }
        let line = "dd 24266 [001]  4295.659044: sched:sched_switch: prev_comm=dd prev_pid=24266 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120";
        let ev = event_line(line).unwrap();
        assert_eq!(ev.switch.map(|s| s.next_tid), Some(0));
        let other = "dd 24266 [001]  4295.659044: sched:sched_wakeup: comm=dd pid=1 prio=120 target_cpu=001";
        assert_eq!(event_line(other).unwrap().switch, None);
    }

    #[test]
    fn event_line_table() {
        let ev = event_line("dd 29776 666709.771979:   10101010 cpu-clock: ").unwrap();
        assert_eq!((ev.comm, ev.pid, ev.tid), ("dd", "?", "29776"));
        assert_eq!(ev.time, Some(666_709_771_979_000));
        let ns = event_line("dd 1/2 [003] 5.000000123: 1 cpu-clock: ").unwrap();
        assert_eq!((ns.time, ns.period), (Some(5_000_000_123), Some(1)));
        let far = event_line("dd 1/2 99999999999999999999.5: cycles: ").unwrap();
        assert_eq!((far.time, far.event), (None, "cycles"));
        assert_eq!((ev.event, ev.period), ("cpu-clock", Some(10_101_010)));
        let ev = event_line("perf   977/977   [000] 7628263.042515: cycles: ").unwrap();
        assert_eq!(
            (ev.comm, ev.pid, ev.tid, ev.event),
            ("perf", "977", "977", "cycles")
        );
        let ev = event_line("opt cgu.13 4152 75695.008865:          1 cycles:u: ").unwrap();
        assert_eq!(
            (ev.comm, ev.event, ev.event_spec),
            ("opt cgu.13", "cycles", "cycles:u")
        );
        let ev = event_line(":-1    -1 [000]  1877.831967:    2004008 cpu-clock:ppp: ").unwrap();
        assert_eq!((ev.comm, ev.tid, ev.event), (":-1", "-1", "cpu-clock"));
        let ev = event_line("java 19983 cycles:").unwrap();
        assert_eq!((ev.event, ev.period, ev.time), ("cycles", None, None));
        let ev = event_line(
            "python3.11 18197 [000]  1267.672669: sched:sched_switch: prev_comm=python3.11 ==> next_comm=x",
        )
        .unwrap();
        assert_eq!((ev.event, ev.inline_frame), ("sched:sched_switch", None));
        let ev = event_line(
            "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])",
        )
        .unwrap();
        assert_eq!(ev.comm, "false");
        assert_eq!(
            ev.inline_frame,
            Some("ffffffff9b201293 [unknown] ([unknown])")
        );
        let ev = event_line("V8 WorkerThread 24636 25613.101017: cpu-clock:pppH: ").unwrap();
        assert_eq!((ev.comm, ev.event), ("V8 WorkerThread", "cpu-clock"));
        assert_eq!(event_line("THIS_IS_A_WEIRD_LINE"), None);
        assert_eq!(event_line("\t401b94 main+0x1c (./inline-counter)"), None);
    }

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

    #[test]
    fn stack_line_table() {
        let s = stack_line("\tffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])").unwrap();
        assert_eq!(
            (s.pc, s.symbol, s.dso),
            (
                "ffffffff8103ce3b",
                "native_safe_halt+0xb",
                "[kernel.kallsyms]"
            )
        );
        let s = stack_line("\t7f1e2215d058  (/lib/libc-2.15.so)").unwrap();
        assert_eq!(s.symbol, " ");
        let s = stack_line("  5a std::function<int (int, int)>::operator()+0x1 (/bin/x)").unwrap();
        assert_eq!(s.symbol, "std::function<int (int, int)>::operator()+0x1");
        assert_eq!(stack_line("\tTHIS_IS_A_WEIRD_LINE"), None);
        // Without the DSO (`-F ip,sym`, a tracepoint's callchain from a pipe recording).
        let s = stack_line("\tffffffff82248208 __schedule").unwrap();
        assert_eq!(
            (s.pc, s.symbol, s.dso),
            ("ffffffff82248208", "__schedule", "")
        );
        let s = stack_line("\t5a std::function<int (int, int)>::operator()+0x1").unwrap();
        assert_eq!(s.symbol, "std::function<int (int, int)>::operator()+0x1");
        let s = stack_line("\t7f1e2215d058").unwrap();
        assert_eq!((s.symbol, s.dso), (" ", ""));
        // A DSO holding parentheses or spaces: the outermost group at the end.
        let s = stack_line("\t7f0 [unknown] (/memfd:sealed-91173221a7ea (deleted))").unwrap();
        assert_eq!(
            (s.symbol, s.dso),
            ("[unknown]", "/memfd:sealed-91173221a7ea (deleted)")
        );
        let s = stack_line("\t5a f(int) (/opt/my app/lib.so)").unwrap();
        assert_eq!((s.symbol, s.dso), ("f(int)", "/opt/my app/lib.so"));
        let s = stack_line("\t5a g (inlined)").unwrap();
        assert_eq!((s.symbol, s.dso), ("g", "inlined"));
        assert_eq!(stack_line("\tnot an address"), None);
        assert_eq!(stack_line("dd 4312 15996.780380: 250000 cpu-clock:"), None);
    }

    #[test]
    fn quick_trim_is_str_trim_start() {
        let pieces = [
            " ", "\t", "\u{b}", "\u{c}", "\r", "\n", "\u{a0}", "\u{3000}", "x", "é", "",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}{c}f");
                    assert_eq!(trim_start(&s), s.trim_start(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn name_cleanup_table() {
        for (input, expected) in [
            (
                "go/build.(*importReader).readByte",
                "go/build.(*importReader).readByte",
            ),
            ("foo<Vec::<usize>>(Vec<usize>)", "foo<Vec::<usize>>"),
            ("java_start(Thread*)", "java_start"),
            (
                "std::function<void (int, int)>::operator(int, int)",
                "std::function<void (int, int)>::operator",
            ),
            (
                "(anonymous namespace)::myBar()",
                "(anonymous namespace)::myBar",
            ),
            (
                "(anonymous namespace)::C::~C()",
                "(anonymous namespace)::C::~C",
            ),
            (
                "(anonymous namespace)::with_lambda(unsigned long)::{lambda(unsigned long)#1}::operator()",
                // inferno's naming: a local entity is named after its enclosing function.
                "(anonymous namespace)::with_lambda",
            ),
            ("f(int) const", "f"),
            ("({...})", "({...})"),
            ("(unsigned long)", "(unsigned long)"),
            ("LBusy;::main", "LBusy:::main"),
        ] {
            assert_eq!(tidy_generic(input), expected, "{input}");
        }
        assert_eq!(strip_offset("read+0x10"), "read");
        assert_eq!(strip_offset("a+b"), "a+b");
        assert_eq!(
            fix_rust_symbol(
                "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..Iterator$GT$::next::hc14f1750ca79129b"
            ),
            "<std::fs::ReadDir as core::iter::Iterator>::next"
        );
        assert_eq!(fix_rust_symbol("plain"), "plain");
        assert!(
            is_kernel("[kernel.kallsyms]")
                && is_kernel("/boot/vmlinux-5.4.14")
                && !is_kernel("[unknown]")
        );
        assert_eq!(
            unknown_fallback("[unknown]", "/lib/libc.so.6", "7f", false),
            "[libc.so.6]"
        );
        assert_eq!(
            unknown_fallback("[unknown]", "[unknown]", "7f", true),
            "[unknown <7f>]"
        );
    }
}
