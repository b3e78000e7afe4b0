//! Stage: bytes → bytes, for the text formats: no line longer than [`MAX_LINE`] goes on.
//!
//! Every text reader holds a line whole at some point (the line reader's buffer, the
//! chunk that must end at a record boundary, detection's first line, inferno's
//! collapsers), so one endless line (`cat /dev/zero | flametui --format folded -`) grew
//! until the process aborted. [`CappedLines`] sits under all of them: it passes whole lines
//! on, gathering a line that spans reads up to the cap, and replaces a line longer than
//! that with [`LONG_LINE`] (read to its end and dropped, never held). The parsers skip that
//! marker as a bad line with its number ([`skip_long`]), so it is counted with the
//! malformed lines and the rest of the input loads; for inferno's collapsers, which would
//! read it as data, the marker is left out ([`CappedLines::leave_out`]) and the lines it
//! stood for are added to the skipped lines afterwards ([`LongLines::record`]).
//!
//! Memory is about the cap (the line being gathered, and a line that fits passed on
//! whole), not the line.

use std::io::{self, BufRead, Read};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Collector, ParseState};
use crate::profile::{MAX_BAD_LINES_KEPT, Stats};

/// The longest line read: 64 MiB. Real lines are far shorter (a folded stack of 100,000
/// frames is about 2 MB); the cap is well above them and above the 16 MiB that format
/// detection reads of a first line before judging it, and low enough that the few
/// copies of a line the readers make stay a few hundred MiB.
pub const MAX_LINE: usize = 64 << 20;

/// What a line longer than [`MAX_LINE`] becomes: a line no input holds (control
/// characters around it), which the parsers skip.
pub const LONG_LINE: &str = "\u{1}flametui: a line longer than the cap was left out here\u{1}";

/// The reason a long line is skipped, as the bad-line report shows it.
pub const LONG_LINE_REASON: &str = "line longer than 64 MiB, the most read of a line";

/// What the bad-line report shows of a long line.
const LONG_LINE_TEXT: &str = "(not read)";

/// Records the current line as a long line skipped, when it is [`LONG_LINE`]; true then
/// (the parser leaves it).
pub fn skip_long(line: &str, state: &ParseState, out: &mut Collector) -> bool {
    let long = line == LONG_LINE;
    if long {
        state.skip(out, LONG_LINE_REASON, LONG_LINE_TEXT);
    }
    long
}

/// `bytes` without its [`LONG_LINE`] lines (the prefix replayed to inferno's collapsers).
pub fn without_long(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if line.strip_suffix(b"\n").unwrap_or(line) != LONG_LINE.as_bytes() {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The long lines a [`CappedLines`] met, shared with the loader.
#[derive(Debug, Default)]
pub struct LongLines {
    /// Their count and the numbers of the first few.
    seen: Mutex<(u64, Vec<u64>)>,
}

impl LongLines {
    /// How many long lines were met.
    pub fn count(&self) -> u64 {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).0
    }

    /// Adds the long lines met to `stats`' skipped lines, with their numbers.
    pub fn record(&self, stats: &mut Stats) {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for &line in &seen.1 {
            stats.skip(line, LONG_LINE_REASON, LONG_LINE_TEXT);
        }
        let rest = seen.0 - seen.1.len() as u64;
        if rest > 0 {
            *stats.skipped.entry(LONG_LINE_REASON).or_insert(0) += rest;
        }
    }

    fn met(&self, line: u64) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.0 += 1;
        if seen.1.len() < MAX_BAD_LINES_KEPT {
            seen.1.push(line);
        }
    }
}

/// A reader of text that passes on whole lines of at most `cap` bytes (the last one may
/// lack its newline) and [`LONG_LINE`] for each longer one.
#[derive(Debug)]
pub struct CappedLines<R> {
    inner: R,
    cap: usize,
    /// Whole lines ready to be read, from `pos` on.
    out: Vec<u8>,
    pos: usize,
    /// Bytes at the start of `inner`'s buffer that are whole lines, read from there (no
    /// copy: most lines never span two reads).
    pass: usize,
    /// The start of a line whose end has not been read yet (at most `cap` bytes).
    partial: Vec<u8>,
    /// The rest of a line longer than `cap` is being read and dropped.
    skipping: bool,
    /// Number of the line `partial` belongs to.
    line: u64,
    /// `inner` ended (it is not read again: a terminal would need another Ctrl-D).
    ended: bool,
    /// Long lines are left out rather than replaced by [`LONG_LINE`].
    leave_out: bool,
    /// Lines are counted, for the numbers of the long lines met (not when the parser
    /// numbers the markers itself: a pass over every byte saved).
    numbered: bool,
    long: Arc<LongLines>,
}

impl<R: BufRead> CappedLines<R> {
    /// Caps the lines of `inner` at `cap` bytes (their newline aside).
    pub fn new(inner: R, cap: usize) -> Self {
        Self {
            inner,
            cap,
            out: Vec::new(),
            pos: 0,
            pass: 0,
            partial: Vec::new(),
            skipping: false,
            line: 1,
            ended: false,
            leave_out: false,
            numbered: true,
            long: Arc::default(),
        }
    }

    /// From now on lines are not counted: the reader's parser numbers the lines itself,
    /// the [`LONG_LINE`] markers among them ([`skip_long`]), so the numbers of
    /// [`CappedLines::long_lines`] are not used.
    pub fn unnumbered(&mut self) {
        self.numbered = false;
    }

    /// The long lines met, as they are met.
    pub fn long_lines(&self) -> Arc<LongLines> {
        Arc::clone(&self.long)
    }

    /// From now on, long lines are left out instead of replaced by [`LONG_LINE`] (for
    /// inferno's collapsers); `prefix`, what was read so far, and what is ready to be read
    /// lose their markers. With `more` (the input goes on after the prefix), a line the
    /// prefix ends in the middle of goes back before what is ready, so that a marker cut
    /// there is found whole.
    pub fn leave_out(&mut self, prefix: &mut Vec<u8>, more: bool) {
        self.leave_out = true;
        let cut = if more && !prefix.ends_with(b"\n") {
            memchr::memrchr(b'\n', prefix).map_or(0, |i| i + 1)
        } else {
            prefix.len()
        };
        let mut ready = prefix.split_off(cut);
        *prefix = without_long(prefix);
        ready.extend_from_slice(self.out.get(self.pos..).unwrap_or_default());
        if self.pass > 0 {
            if let Ok(buf) = self.inner.fill_buf() {
                ready.extend_from_slice(&buf[..self.pass.min(buf.len())]);
            }
            self.inner.consume(self.pass);
            self.pass = 0;
        }
        self.out = without_long(&ready);
        self.pos = 0;
    }

    /// A line longer than the cap ended: its marker goes out in its place.
    fn long_line(&mut self) {
        self.long.met(self.line);
        self.line += 1;
        if !self.leave_out {
            self.out.extend_from_slice(LONG_LINE.as_bytes());
            self.out.push(b'\n');
        }
    }

    /// Reads on until some bytes are ready (in `out`, or `pass` bytes in `inner`) or the
    /// input has ended.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        while self.out.is_empty() && self.pass == 0 {
            if self.ended {
                // The last line, without its newline.
                std::mem::swap(&mut self.out, &mut self.partial);
                return Ok(());
            }
            let buf = self.inner.fill_buf()?;
            let n = buf.len();
            if n == 0 {
                self.ended = true;
                if std::mem::take(&mut self.skipping) {
                    self.long_line();
                }
                continue;
            }
            if self.skipping {
                let end = memchr::memchr(b'\n', buf);
                self.inner.consume(end.map_or(n, |i| i + 1));
                if end.is_some() {
                    self.skipping = false;
                    self.long_line();
                }
                continue;
            }
            self.take_lines(n);
        }
        Ok(())
    }

    /// Takes the `n` bytes `inner` holds: the whole lines among them, up to the first line
    /// longer than the cap, are read in place (or go to `out` after the gathered start of
    /// the first); a line past the cap is dropped if it ends there (else its start is
    /// dropped and the rest of it skipped); the start of a line left is gathered in
    /// `partial` when no whole line is there.
    fn take_lines(&mut self, n: usize) {
        let Ok(buf) = self.inner.fill_buf() else {
            return;
        };
        let start = whole_lines(buf, self.partial.len(), self.cap);
        if self.numbered {
            // (memchr counts without stopping at each match.)
            self.line += memchr::memchr_iter(b'\n', &buf[..start]).count() as u64;
        }
        if start > 0 && self.partial.is_empty() {
            self.pass = start;
        } else if start > 0 {
            // Whole lines, the first with what was gathered of it.
            std::mem::swap(&mut self.out, &mut self.partial);
            self.out.extend_from_slice(&buf[..start]);
            self.inner.consume(start);
        } else if let Some(end) = memchr::memchr(b'\n', buf) {
            // The line gathered so far ends here, past the cap.
            self.partial = Vec::new();
            self.inner.consume(end + 1);
            self.long_line();
        } else if self.partial.len() + n > self.cap {
            self.partial = Vec::new();
            self.skipping = true;
            self.inner.consume(n);
        } else {
            self.partial.extend_from_slice(buf);
            self.inner.consume(n);
        }
    }
}

/// The end of the whole lines at the start of `buf` (the first after the `gathered`
/// bytes of it read before) up to the first longer than `cap`: 0 when there is none.
fn whole_lines(buf: &[u8], gathered: usize, cap: usize) -> usize {
    if buf.len() <= cap {
        // Only the first line may be past the cap, with what was gathered of it.
        return match memchr::memchr(b'\n', buf) {
            Some(first) if gathered + first <= cap => {
                memchr::memrchr(b'\n', buf).map_or(0, |last| last + 1)
            }
            _ => 0,
        };
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', buf) {
        let before = if start == 0 { gathered } else { 0 };
        if before + end - start > cap {
            break;
        }
        start = end + 1;
    }
    start
}

impl<R: BufRead> BufRead for CappedLines<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pass == 0 && self.pos >= self.out.len() {
            self.refill()?;
        }
        if self.pass > 0 {
            // The buffer `take` looked at, as it was (a `BufRead` with bytes buffered
            // returns them without reading).
            let pass = self.pass;
            let buf = self.inner.fill_buf()?;
            return Ok(&buf[..pass.min(buf.len())]);
        }
        Ok(&self.out[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        if self.pass > 0 {
            let n = n.min(self.pass);
            self.inner.consume(n);
            self.pass -= n;
        } else {
            self.pos = (self.pos + n).min(self.out.len());
        }
    }
}

/// Reads of at least this many bytes go straight into the reader's buffer when nothing
/// but the start of a line is pending (the chunks of parallel parsing, 1 MiB: a copy
/// through a buffer made perf script 40 % slower to read).
const DIRECT: usize = 64 << 10;

impl<R: BufRead> CappedLines<R> {
    /// `dst` may be read into directly: nothing is pending but the start of a line,
    /// which leaves it room, and no line read into it can be past the cap.
    fn direct(&self, dst: &[u8]) -> bool {
        (DIRECT..=self.cap).contains(&dst.len())
            && self.pass == 0
            && self.pos >= self.out.len()
            && self.partial.len() < dst.len() / 2
            && !self.skipping
            && !self.ended
    }

    /// Reads straight into `dst`, after the start of a line gathered before, until a
    /// newline comes: the whole lines stay there, the start of a last one is gathered
    /// again. `None` when no line ended in `dst` (it is then all gathered).
    fn read_direct(&mut self, dst: &mut [u8]) -> io::Result<Option<usize>> {
        let mut filled = self.partial.len();
        dst[..filled].copy_from_slice(&self.partial);
        self.partial.clear();
        while filled < dst.len() {
            let n = match self.inner.read(&mut dst[filled..]) {
                Ok(n) => n,
                Err(e) => {
                    // Kept for a retry (`Interrupted`): the start of a line, no newline.
                    self.partial.extend_from_slice(&dst[..filled]);
                    return Err(e);
                }
            };
            if n == 0 {
                self.ended = true;
                break;
            }
            filled += n;
            if memchr::memchr(b'\n', &dst[filled - n..filled]).is_some() {
                break;
            }
        }
        let start = whole_lines(&dst[..filled], 0, self.cap);
        if self.numbered {
            self.line += memchr::memchr_iter(b'\n', &dst[..start]).count() as u64;
        }
        self.partial.extend_from_slice(&dst[start..filled]);
        Ok((start > 0 || (self.ended && self.partial.is_empty())).then_some(start))
    }
}

impl<R: BufRead> Read for CappedLines<R> {
    fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        if self.direct(dst)
            && let Some(n) = self.read_direct(dst)?
        {
            return Ok(n);
        }
        let src = self.fill_buf()?;
        let n = src.len().min(dst.len());
        dst[..n].copy_from_slice(&src[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything a capped reader passes on, read through `BufReader`s of `block` bytes.
    fn through(input: &[u8], cap: usize, block: usize) -> (String, Arc<LongLines>) {
        let mut r = CappedLines::new(io::BufReader::with_capacity(block, input), cap);
        let long = r.long_lines();
        let mut out = String::new();
        r.read_to_string(&mut out).unwrap();
        (out.replace(LONG_LINE, "LONG"), long)
    }

    #[test]
    fn lines_past_the_cap_become_the_marker_whatever_the_reads() {
        let input = b"ab\nabcdef\nabcd\n\nabcdefgh\nxyz";
        for block in [1, 2, 3, 5, 8, 64] {
            let (out, long) = through(input, 4, block);
            assert_eq!(out, "ab\nLONG\nabcd\n\nLONG\nxyz", "block {block}");
            assert_eq!(long.count(), 2);
            let mut stats = Stats::default();
            long.record(&mut stats);
            let lines: Vec<u64> = stats.bad_lines.iter().map(|b| b.line).collect();
            assert_eq!(lines, [2, 5], "block {block}");
            assert_eq!(stats.skipped[LONG_LINE_REASON], 2);
        }
        // An unterminated last line past the cap, and one line alone.
        assert_eq!(through(b"a\nabcdefg", 4, 3).0, "a\nLONG\n");
        assert_eq!(through(b"abcdefg\n", 4, 64).0, "LONG\n");
        assert_eq!(through(b"", 4, 64).0, "");
    }

    #[test]
    fn left_out_long_lines_are_still_counted() {
        let input = b"ab\nabcdefgh\ncd\nefghijkl\nb\n";
        let mut r = CappedLines::new(io::BufReader::with_capacity(2, &input[..]), 4);
        let long = r.long_lines();
        // What was read so far ends in the middle of a marker.
        let mut prefix = Vec::new();
        r.read_until(b'\n', &mut prefix).unwrap();
        (&mut r).take(5).read_until(b'\n', &mut prefix).unwrap();
        assert_eq!(prefix.len(), 3 + 5);
        r.leave_out(&mut prefix, true);
        assert_eq!(prefix, b"ab\n");
        let mut rest = String::new();
        r.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "cd\nb\n");
        assert_eq!(long.count(), 2);
        let mut stats = Stats::default();
        long.record(&mut stats);
        let lines: Vec<u64> = stats.bad_lines.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 4]);
        assert_eq!(
            without_long(format!("a\n{LONG_LINE}\nb").as_bytes()),
            b"a\nb"
        );
    }

    #[test]
    fn large_reads_straight_into_the_buffer_give_the_same_lines() {
        // Lines of 0 to 3,000 bytes, one of 1.5 MiB (past a 1 MiB cap), an unterminated
        // last one; read in 256 KiB reads (straight into the buffer) and line by line.
        let mut input = Vec::new();
        let mut want = Vec::new();
        for i in 0..3000usize {
            let line = vec![b'a' + (i % 26) as u8; i * 7 % 3001];
            input.extend_from_slice(&line);
            input.push(b'\n');
            want.extend_from_slice(&line);
            want.push(b'\n');
            if i == 1500 {
                input.extend(std::iter::repeat_n(b'x', 3 << 19));
                input.push(b'\n');
                want.extend_from_slice(LONG_LINE.as_bytes());
                want.push(b'\n');
            }
        }
        input.extend_from_slice(b"end");
        want.extend_from_slice(b"end");
        let cap = 1 << 20;
        let mut r = CappedLines::new(io::BufReader::with_capacity(1 << 16, &input[..]), cap);
        let mut got = Vec::new();
        let mut dst = vec![0; 1 << 18];
        loop {
            let n = r.read(&mut dst).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&dst[..n]);
        }
        assert!(got == want, "{} bytes for {}", got.len(), want.len());
        let mut lines = CappedLines::new(io::BufReader::with_capacity(1 << 12, &input[..]), cap);
        let mut by_line = Vec::new();
        while lines.read_until(b'\n', &mut by_line).unwrap() > 0 {}
        assert!(by_line == want);
        let mut stats = Stats::default();
        r.long_lines().record(&mut stats);
        assert_eq!(stats.bad_lines[0].line, 1502);
    }

    /// A reader that is interrupted before every other read.
    struct Interrupting<'a>(&'a [u8], bool);

    impl Read for Interrupting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 = !self.1;
            if self.1 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(self.0.len()).min(1000);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_interrupted_read_loses_nothing() {
        let input: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let inner = io::BufReader::with_capacity(1 << 16, Interrupting(&input, false));
        let mut r = CappedLines::new(inner, 1 << 20);
        let mut out = Vec::new();
        let mut dst = vec![0; 1 << 17];
        loop {
            match r.read(&mut dst) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&dst[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert!(out == input);
    }

    /// A reader that counts its reads after the end.
    struct Ends<'a>(&'a [u8], usize);

    impl Read for Ends<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                self.1 += 1;
            }
            self.0.read(buf)
        }
    }

    #[test]
    fn the_end_is_read_once() {
        let mut ends = Ends(b"a\nbcdefgh", 0);
        let mut r = CappedLines::new(io::BufReader::new(&mut ends), 4);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(r.read(&mut [0; 4]).unwrap(), 0);
        drop(r);
        assert_eq!(ends.1, 1);
    }
}
