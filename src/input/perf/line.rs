//! The lines of `perf script` text read into their fields: event lines, stack lines, and
//! the side records printed between samples.

use nom::IResult;
use nom::Parser;
use nom::bytes::complete::{take_till1, take_while1};
use nom::character::complete::{char, space0, space1};
use nom::combinator::{opt, recognize};
use nom::sequence::{delimited, preceded, terminated};

use super::names::INLINED;
use crate::input::common::uint;
use crate::profile::{Switch, TaskState};

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
    /// The CPU the sample was taken on (`[001]`), if printed.
    pub cpu: Option<u32>,
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
        let (rest, on_cpu) = opt(cpu).parse(rest).ok()?;
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
            cpu: on_cpu.and_then(|c| c.parse().ok()),
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

/// A source line line of `perf script -F +srcline`, printed under each frame that has a
/// mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SrclineLine<'a> {
    /// The file (as perf prints it: its base name unless `--full-source-path`) and the
    /// line number; `None` when perf knows no line.
    pub at: Option<(&'a str, u32)>,
    /// perf's ` (inlined)` after it: the frame above is an inlined function's (its stack
    /// line then has no DSO, which it has without `srcline`).
    pub inlined: bool,
}

/// The longest file name read from a srcline line (Linux's `PATH_MAX`).
pub const MAX_SRCLINE_FILE: usize = crate::profile::source::MOST_FILE_NAME;

/// The highest line number read from a srcline line: ten million, past any real source
/// file (a listing shows every line between a function's first and last).
pub const MAX_SRCLINE_NUMBER: u32 = crate::profile::source::MAX_LINE_NUMBER;

/// `srcline := "  " ( file ":" ( [0-9]+ | "?" ) | dso "[" hex "]" | symbol? "+" [0-9]+ )
///             ( " (inlined)" )?` — perf indents it by two spaces (its stack lines by a
/// tab); `??:0`, a line 0, `dso[address]` and `symbol+offset` are what it prints when it
/// knows no line. `None` for a line of another shape (a stack line, an event line, whose
/// comm perf may indent too); `Err` for one of this shape that cannot be read: a line
/// number past [`MAX_SRCLINE_NUMBER`], a file name past [`MAX_SRCLINE_FILE`] bytes.
pub fn srcline_line(line: &str) -> Option<Result<SrclineLine<'_>, &'static str>> {
    let body = line.strip_prefix("  ")?;
    if body.is_empty() || body.starts_with(char::is_whitespace) {
        return None;
    }
    let (body, inlined) = match body.strip_suffix(" (inlined)") {
        Some(b) => (b, true),
        None => (body, false),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let at_address = body
        .strip_suffix(']')
        .and_then(|b| b.rsplit_once('['))
        .is_some_and(|(dso, addr)| {
            !dso.is_empty() && !addr.is_empty() && addr.bytes().all(|b| b.is_ascii_hexdigit())
        });
    let read = if at_address {
        Ok(None)
    } else if let Some((file, number)) = body
        .rsplit_once(':')
        .filter(|(file, n)| !file.is_empty() && (*n == "?" || digits(n)))
    {
        match number.parse::<u32>() {
            _ if number == "?" || file == "??" => Ok(None),
            Ok(0) => Ok(None),
            Ok(_) if file.len() > MAX_SRCLINE_FILE => Err("perf srcline file name too long"),
            Ok(n) if n <= MAX_SRCLINE_NUMBER => Ok(Some((file, n))),
            _ => Err("perf srcline line number out of range"),
        }
    } else if body.rsplit_once('+').is_some_and(|(_, off)| digits(off)) {
        Ok(None)
    } else {
        return None;
    };
    if event_line(line).is_some() {
        return None;
    }
    Some(read.map(|at| SrclineLine { at, inlined }))
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // The CPU column, counted for the header's "on N CPUs"; absent, unknown.
        assert_eq!((ns.cpu, ev.cpu), (Some(3), None));
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

    /// What perf 6.1 prints under a frame with `-F +srcline`, and lines that only look
    /// like it.
    #[test]
    fn srcline_lines_are_told_from_stack_and_event_lines() {
        let at = |file, n, inlined| {
            Some(Ok(SrclineLine {
                at: Some((file, n)),
                inlined,
            }))
        };
        let unknown = |inlined| Some(Ok(SrclineLine { at: None, inlined }));
        assert_eq!(srcline_line("  hot.c:12"), at("hot.c", 12, false));
        assert_eq!(srcline_line("  hot.c:12 (inlined)"), at("hot.c", 12, true));
        assert_eq!(
            srcline_line("  /src/my dir/a:b.c:7"),
            at("/src/my dir/a:b.c", 7, false)
        );
        for none in [
            "  ??:0",
            "  ??:?",
            "  a.c:0",
            "  [kernel.kallsyms][ffffffff82250979]",
            "  libc.so.6[2724a]",
            "  main+12",
            "  +12",
        ] {
            assert_eq!(srcline_line(none), unknown(false), "{none}");
        }
        assert_eq!(srcline_line("  ??:0 (inlined)"), unknown(true));
        assert_eq!(
            srcline_line("  a.c:10000001"),
            Some(Err("perf srcline line number out of range"))
        );
        assert_eq!(
            srcline_line("  a.c:99999999999999999999999"),
            Some(Err("perf srcline line number out of range"))
        );
        let long = format!("  {}:3", "x".repeat(MAX_SRCLINE_FILE + 1));
        assert_eq!(
            srcline_line(&long),
            Some(Err("perf srcline file name too long"))
        );
        for not in [
            "\thot.c:12",
            "   hot.c:12",
            "  ",
            "\t            124f work+0x2f (/tmp/srcline/hot)",
            "  124f work+0x2f (/tmp/srcline/hot)",
            "  124f work+0x2f (inlined)",
            "  124f ns::f (inlined)",
            "  124f [unknown] ([unknown])",
            "  hot.c:abc",
            "  hot.c:",
            ":12",
            // An event line whose comm perf right-aligned by two spaces.
            "  kworker/u8:2-e  77 [001] 5.0: 1 block:block_rq_issue: 8,0 W 4096 () 1234 + 8 [dd]",
            "  kworker/u8:2-e  77 5.0: 1 cpu-clock: 42",
        ] {
            assert_eq!(srcline_line(not), None, "{not}");
        }
    }
}
