//! Reading a text format: detection, serial or chunked parsing, line by line.

use std::io::{self, BufRead, BufReader, Cursor, Read};

use super::collector::{Collector, ParseState};
use super::common::LineReader;
use super::finish::finish;
use super::live::{LineSource, Live, Next, Tick};
use super::loaded::Loaded;
use super::options::{LoadOptions, default_threads, max_threads};
use super::parallel::ChunkParser;
use super::{bpftrace, capped, detect, folded, inferno, live, parallel, perf, stap, stream};
use crate::error::{Error, Result};
use crate::profile::threads::spawn_with;
use crate::profile::{CallTree, Format};

/// The format of a text input: forced, sniffed by flametui's detection, else guessed by
/// inferno's collapsers (which may read more of the input into the prefix).
pub(super) fn text_format<R: BufRead>(
    reader: &mut capped::CappedLines<R>,
    prefix: &mut Vec<u8>,
    ended: &mut bool,
    error: &mut Option<io::Error>,
    name: &str,
    opts: &LoadOptions,
) -> Result<Format> {
    if let Some(forced) = opts.format.forced() {
        // Forced pprof and JSON inputs are read whole before any text is.
        return Ok(forced);
    }
    if let Some(format) = detect::detect(prefix) {
        return Ok(format);
    }
    let long = reader.long_lines();
    if capped::without_long(prefix)
        .iter()
        .all(u8::is_ascii_whitespace)
        && long.count() > 0
    {
        // Nothing but lines too long to read: nothing to tell the format by.
        return Err(Error::NoSamples {
            source_name: name.to_owned(),
            format: "text".to_owned(),
            detail: format!(
                " (skipped: {} × {})",
                long.count(),
                capped::LONG_LINE_REASON
            ),
        });
    }
    // inferno's collapsers would read the marker of a long line as data.
    reader.leave_out(prefix, !*ended && error.is_none());
    let guessed = inferno::guess(prefix, reader, ended, error);
    guessed
        .map(inferno::Collapser::format)
        .ok_or_else(|| Error::UnknownFormat {
            source_name: name.to_owned(),
            head: detect::head(prefix),
        })
}

/// Reads a text input through one of inferno's collapsers: the prefix, then the rest, the
/// lines too long to read left out of both and counted as skipped.
pub(super) fn load_collapsed<R: BufRead + Send>(
    mut reader: capped::CappedLines<R>,
    mut prefix: detect::Prefix,
    name: &str,
    collapser: inferno::Collapser,
) -> Result<Collector> {
    let more = prefix.error.is_none() && !prefix.ended;
    reader.leave_out(&mut prefix.bytes, more);
    let long = reader.long_lines();
    let rest: Box<dyn Read + Send + '_> = if more {
        Box::new(reader)
    } else {
        Box::new(io::empty())
    };
    let input = BufReader::new(Cursor::new(prefix.bytes).chain(rest));
    let loaded = inferno::load(input, name, collapser);
    // A collapser that fails on a prefix cut by a read error failed because of it.
    let mut out = match (loaded, &prefix.error) {
        (Err(Error::Collapse { .. }), Some(e)) => {
            return Err(Error::Read {
                source_name: name.to_owned(),
                error: io::Error::new(e.kind(), e.to_string()),
            });
        }
        (loaded, _) => loaded?,
    };
    if let Some(e) = prefix.error {
        out.stats.read_error.get_or_insert(e.to_string());
    }
    long.record(&mut out.stats);
    Ok(out)
}

pub(super) fn load_text<R: BufRead + Send>(
    reader: R,
    name: &str,
    opts: &LoadOptions,
    parts: Option<&mut Vec<CallTree>>,
) -> Result<Loaded> {
    let io_err = |error| Error::Read {
        source_name: name.to_owned(),
        error,
    };
    // No line longer than the cap goes on to detection or a parser (see `capped`).
    let mut reader = capped::CappedLines::new(reader, capped::MAX_LINE);
    let detect::Prefix {
        bytes: mut prefix,
        error: mut prefix_error,
        mut ended,
    } = detect::read_prefix(&mut reader);
    if let Some(error) = prefix_error.as_ref().filter(|_| prefix.is_empty()) {
        return Err(io_err(io::Error::new(error.kind(), error.to_string())));
    }
    if prefix.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty {
            source_name: name.to_owned(),
        });
    }
    let format = text_format(
        &mut reader,
        &mut prefix,
        &mut ended,
        &mut prefix_error,
        name,
        opts,
    )?;
    if let Some(collapser) = inferno::Collapser::of(format) {
        let prefix = detect::Prefix {
            bytes: prefix,
            error: prefix_error,
            ended,
        };
        let collapsed = load_collapsed(reader, prefix, name, collapser);
        return finish(collapsed?, name, collapser.format(), opts.metric.as_deref());
    }
    // By default only perf script is parsed on all cores: its samples repeat stacks, so
    // per-worker trees stay small. A folded file is already one line per distinct stack:
    // merging per-worker trees would cost as much as parsing (measured: 2x slower).
    let threads = opts
        .threads
        .unwrap_or_else(|| {
            if format == Format::Perf {
                default_threads()
            } else {
                1
            }
        })
        .min(max_threads());
    // Decided once from the first lines, so chunked and sequential parsing agree.
    let (diff, chunked) = decide(&prefix, format, opts);
    // The parsers number the lines, the markers of long lines among them.
    reader.unnumbered();
    // After a read error or the end of the input only the prefix is left to parse.
    let rest: Box<dyn Read + Send + '_> = if prefix_error.is_some() || ended {
        Box::new(io::empty())
    } else {
        Box::new(reader)
    };
    let input = Cursor::new(prefix).chain(rest);
    let chunk_size = opts.chunk_size.unwrap_or(1 << 20);
    // A consumer of the parts orders each family itself (the folded export as read).
    let as_read = parts.is_some();
    let mut out = match (chunked, opts.snapshots.as_ref()) {
        (Some(parser), None) if threads > 1 => {
            let input = BufReader::new(input);
            match parts {
                Some(parts) => parallel::parse_parts(input, &parser, threads, chunk_size, parts),
                None => parallel::parse(input, &parser, threads, chunk_size),
            }
            .map_err(io_err)?
        }
        (Some(parser), None) => parallel::parse_serial(BufReader::new(input), &parser, chunk_size),
        // A differential file is shown once whole (no snapshots of half a comparison).
        (Some(parser @ (ChunkParser::Perf(_) | ChunkParser::Folded(false))), Some(snapshots))
            if threads > 1 =>
        {
            let mut live = Live::new(snapshots, name, format);
            stream::parse(input, &parser, threads, chunk_size, &mut live).map_err(io_err)?
        }
        _ => {
            let mut out = Collector::default();
            let mut live = opts
                .snapshots
                .as_ref()
                .map(|snapshots| Live::new(snapshots, name, format));
            if let Some(wait) = live.as_ref().map(|l| l.snapshots.every) {
                read_live(input, wait, (format, opts, diff), live.as_mut(), &mut out);
            } else {
                let mut lines = LineReader::new(BufReader::new(input));
                parse_lines(&mut lines, format, opts, diff, None, &mut out);
            }
            out
        }
    };
    if let Some(e) = prefix_error {
        out.stats.read_error.get_or_insert(e.to_string());
    }
    if as_read {
        out.keep_parse_order();
    }
    finish(out, name, format, opts.metric.as_deref())
}

/// Parses `input` as it comes, a reader thread passing it on, so that a pause in the input
/// shows the profile so far (through `live`, when the input is quiet for `wait`).
fn read_live<R: Read + Send>(
    input: R,
    wait: std::time::Duration,
    (format, opts, diff): (Format, &LoadOptions, bool),
    live: Option<&mut Live<'_>>,
    out: &mut Collector,
) {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(8);
        match spawn_with(scope, input, move |i| live::read_batches(i, &tx)) {
            Ok(_reader) => {
                let mut lines = live::ChannelLines::new(rx, wait);
                parse_lines(&mut lines, format, opts, diff, live, out);
            }
            // No thread could be started (a memory limit): the input is read on this
            // one, shown once whole.
            Err(input) => {
                let mut lines = LineReader::new(BufReader::new(input));
                parse_lines(&mut lines, format, opts, diff, None, out);
            }
        }
    });
}

/// Whether a folded input is differential, and how to parse it in chunks (`None`: not
/// at all), judged from the prefix. (Its decoded copy is dropped here, before parsing:
/// a first line may be long.)
pub(super) fn decide(
    prefix: &[u8],
    format: Format,
    opts: &LoadOptions,
) -> (bool, Option<ChunkParser>) {
    let text = String::from_utf8_lossy(prefix);
    let head: Vec<&str> = text.lines().filter(|l| *l != capped::LONG_LINE).collect();
    let diff = folded::FoldedParser::sniff_diff(&head);
    let chunked = match format {
        Format::Perf => {
            let mut perf = opts.perf.clone();
            perf.event = perf.event.or_else(|| perf::first_event(&head));
            perf.event.is_some().then_some(ChunkParser::Perf(perf))
        }
        Format::Folded | Format::DiffFolded => Some(ChunkParser::Folded(diff)),
        _ => None,
    };
    (diff, chunked)
}

/// Feeds every line to `f`; a read error ends the input early and is recorded, so what
/// was read before it still loads (a truncated gzip, a pipe that breaks).
pub(super) fn feed(
    lines: &mut dyn LineSource,
    state: &mut ParseState,
    out: &mut Collector,
    mut streaming: Option<&mut Live<'_>>,
    mut f: impl FnMut(&str, &mut ParseState, &mut Collector),
) {
    loop {
        match lines.next() {
            Next::Line(line) => {
                state.line_no += 1;
                if !capped::skip_long(&line, state, out) {
                    f(&line, state, out);
                }
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::Line);
                }
            }
            Next::CaughtUp => {
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::CaughtUp);
                }
            }
            Next::Idle => {
                if let Some(live) = streaming.as_deref_mut() {
                    live.tick(state, out, Tick::Idle);
                }
            }
            Next::End => break,
            Next::Failed(e) => {
                out.stats.read_error = Some(e.to_string());
                break;
            }
        }
    }
}

/// Runs the parser of `format` over every line.
pub(super) fn parse_lines(
    lines: &mut dyn LineSource,
    format: Format,
    opts: &LoadOptions,
    folded_diff: bool,
    mut live: Option<&mut Live<'_>>,
    out: &mut Collector,
) {
    let mut state = ParseState::default();
    match format {
        Format::Folded | Format::DiffFolded => {
            let mut p = folded::FoldedParser::with_diff(folded_diff);
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            out.stats.format = Some(if p.is_diff() {
                Format::DiffFolded
            } else {
                Format::Folded
            });
        }
        Format::Perf | Format::PerfData => {
            let mut p = perf::PerfParser::new(opts.perf.clone());
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(out);
            out.stats.format = Some(Format::Perf);
        }
        // The formats read whole never come here (pprof, JSON, inferno's).
        Format::Stap
        | Format::Pprof
        | Format::Speedscope
        | Format::Cpuprofile
        | Format::Dtrace
        | Format::Sample
        | Format::Vtune
        | Format::Xctrace
        | Format::Vsprof
        | Format::Ghcprof => {
            let mut p = stap::StapParser::default();
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(&mut state, out);
            out.stats.format = Some(Format::Stap);
        }
        Format::Bpftrace => {
            let mut p = bpftrace::BpftraceParser::new(bpftrace::BpftraceOptions {
                annotate_kernel: opts.perf.annotate_kernel,
                include_addrs: opts.perf.include_addrs,
            });
            feed(lines, &mut state, out, live.take(), |l, s, o| {
                p.line(l, s, o);
            });
            p.finish(&mut state, out);
            out.stats.format = Some(Format::Bpftrace);
        }
    }
    out.stats.lines = state.line_no;
}
