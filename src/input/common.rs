//! Stage: bytes → lines. A line reader that never holds the whole input, decodes
//! invalid UTF-8 lossily and counts line numbers; plus nom pieces shared by the parsers.

use std::borrow::Cow;
use std::io::{self, BufRead};

use nom::IResult;
use nom::Parser;
use nom::bytes::complete::take_while1;
use nom::character::complete::char;
use nom::combinator::{opt, recognize};

/// Reads lines one at a time into a reused buffer.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    line_no: u64,
    bytes: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps a buffered reader.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(256),
            line_no: 0,
            bytes: 0,
        }
    }

    /// The next line without its `\n` / `\r\n`, lossily decoded; `None` at the end.
    ///
    /// # Errors
    /// Any I/O error of the underlying reader.
    pub fn next_line(&mut self) -> io::Result<Option<Cow<'_, str>>> {
        self.buf.clear();
        let n = self.inner.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        self.bytes += n as u64;
        let mut end = self.buf.len();
        if end > 0 && self.buf[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        let bytes = &self.buf[..end];
        // Strict validation is much faster than the lossy decoder on the common (valid) case.
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        }))
    }

    #[cfg(test)]
    /// 1-based number of the line last returned.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    #[cfg(test)]
    /// Bytes consumed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Calls `f` with every line of an in-memory chunk (no copy: lines are borrowed, and
/// decoded lossily only when they are not valid UTF-8), without `\n` / `\r\n`.
pub fn for_each_line(bytes: &[u8], mut f: impl FnMut(&str)) {
    // Usually the whole chunk is valid: check it once rather than line by line.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            let line = &text[start..end];
            f(line.strip_suffix('\r').unwrap_or(line));
            start = end + 1;
        }
        if start < text.len() {
            let line = &text[start..];
            f(line.strip_suffix('\r').unwrap_or(line));
        }
        return;
    }
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for end in ends {
        if start >= bytes.len() && end == bytes.len() {
            break;
        }
        let mut line = &bytes[start..end];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        match std::str::from_utf8(line) {
            Ok(s) => f(s),
            Err(_) => f(&String::from_utf8_lossy(line)),
        }
        start = end + 1;
    }
}

impl<R: io::Read> LineReader<io::BufReader<R>> {
    /// True when every byte read so far was used: the next line may have to wait for the
    /// producer (a streaming pipe).
    pub fn drained(&self) -> bool {
        self.inner.buffer().is_empty()
    }
}

/// `hex := [0-9a-fA-F]+`
pub(crate) fn hex(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_hexdigit()).parse(i)
}

/// `decimal := [0-9]+ ( "." [0-9]* )?` — a sample count, as `FlameGraph` accepts it.
pub(crate) fn decimal(i: &str) -> IResult<&str, (&str, Option<&str>)> {
    (
        take_while1(|c: char| c.is_ascii_digit()),
        opt(nom::sequence::preceded(
            char('.'),
            nom::bytes::complete::take_while(|c: char| c.is_ascii_digit()),
        )),
    )
        .parse(i)
}

/// `uint := [0-9]+`
pub(crate) fn uint(i: &str) -> IResult<&str, &str> {
    recognize(take_while1(|c: char| c.is_ascii_digit())).parse(i)
}

/// Runs `parser` and requires it to consume all of `input`.
pub fn full<'a, O>(
    mut parser: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
    input: &'a str,
) -> Option<O> {
    match parser.parse(input) {
        Ok(("", out)) => Some(out),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_strip_crlf_and_decode_lossily() {
        let data: &[u8] = b"a;b 1\r\nbad \xff\xfe 2\nlast";
        let mut r = LineReader::new(data);
        assert_eq!(r.next_line().unwrap().unwrap(), "a;b 1");
        assert_eq!(r.next_line().unwrap().unwrap(), "bad \u{fffd}\u{fffd} 2");
        assert_eq!(r.next_line().unwrap().unwrap(), "last");
        assert_eq!(r.line_no(), 3);
        assert!(r.next_line().unwrap().is_none());
        assert_eq!(r.bytes(), data.len() as u64);
    }

    #[test]
    fn chunk_lines_match_the_reader() {
        for data in [&b"a\r\nb\n\nc"[..], b"a\n", b"", b"\n", b"x\xffy\n"] {
            let mut from_chunk = Vec::new();
            for_each_line(data, |l| from_chunk.push(l.to_owned()));
            let mut r = LineReader::new(data);
            let mut from_reader = Vec::new();
            while let Some(l) = r.next_line().unwrap() {
                from_reader.push(l.into_owned());
            }
            assert_eq!(from_chunk, from_reader, "{data:?}");
        }
    }

    #[test]
    fn decimal_table() {
        for (input, expected) in [
            ("12", Some(("12", None))),
            ("31.23", Some(("31", Some("23")))),
            ("6.", Some(("6", Some("")))),
            ("12V", None),
            ("", None),
            (".5", None),
        ] {
            assert_eq!(full(decimal, input), expected, "{input}");
        }
    }

    #[test]
    fn hex_and_uint() {
        assert_eq!(full(hex, "ffffffff8103ce3b"), Some("ffffffff8103ce3b"));
        assert_eq!(full(hex, "0xff"), None);
        assert_eq!(full(uint, "123"), Some("123"));
    }
}
