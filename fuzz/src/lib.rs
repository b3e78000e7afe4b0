//! Shared oracle of the fuzz targets: load arbitrary bytes through
//! `flametui::input::load_reader` sequentially and on two threads with a small chunk
//! size, run the exporters and the text report on what loaded, and panic on a broken
//! invariant:
//!
//! * every input line is accounted for (`Stats::accounted_lines() == Stats::lines`);
//! * the result does not depend on the number of threads or the chunk size (as
//!   `src/input/parallel.rs` promises): same outcome, same tree, same counts.
//!
//! A panic inside the library (on any thread) is caught by libFuzzer as a crash.

use flametui::input::{self, FormatChoice, LoadOptions, Loaded};
use flametui::{export, report};

/// Everything of one load that must not depend on threads or chunking.
#[derive(Debug, PartialEq)]
struct Outcome {
    ok: bool,
    diff: bool,
    folded: Vec<String>,
    before: Vec<String>,
    samples: u64,
    lines: u64,
    accounted: u64,
    skipped: Vec<(&'static str, u64)>,
    format: Option<flametui::profile::Format>,
    /// The input ended with a read error (a truncated or corrupt gzip stream).
    read_error: bool,
    /// A weight overflowed (clamped) or was out of range (skipped).
    overflow: bool,
}

fn load(data: &[u8], format: FormatChoice, threads: usize, chunk_size: usize) -> Outcome {
    let opts = LoadOptions {
        format,
        threads: Some(threads),
        chunk_size: Some(chunk_size),
        ..LoadOptions::default()
    };
    let loaded = match input::load_reader(data, "fuzz", &opts) {
        Ok(loaded) => loaded,
        Err(e) => {
            // The message is shown to the user: building it must not panic either.
            let _ = e.to_string();
            return Outcome {
                ok: false,
                diff: false,
                folded: Vec::new(),
                before: Vec::new(),
                samples: 0,
                lines: 0,
                accounted: 0,
                skipped: Vec::new(),
                format: None,
                read_error: false,
                overflow: false,
            };
        }
    };
    let main = loaded.main();
    let stats = &main.stats;
    assert_eq!(
        stats.accounted_lines(),
        stats.lines,
        "lines unaccounted for ({threads} threads, chunk {chunk_size}): {:?}",
        stats
    );
    let folded = export::folded_lines(&main.tree);
    let _ = report::report(main, 5, 1.0, report::Figures::Human);
    let _ = report::line_accounting(main);
    let (diff, before) = match &loaded {
        Loaded::Single(_) => (false, Vec::new()),
        Loaded::Diff { before, after } => {
            let _ = export::diff_folded_lines(&before.tree, &after.tree);
            (true, export::folded_lines(&before.tree))
        }
    };
    Outcome {
        ok: true,
        diff,
        folded,
        before,
        samples: stats.samples,
        lines: stats.lines,
        accounted: stats.accounted_lines(),
        skipped: stats.skipped.iter().map(|(k, v)| (*k, *v)).collect(),
        format: stats.format,
        read_error: stats.read_error.is_some(),
        overflow: main.tree.saturated() || stats.skipped.contains_key("count out of range"),
    }
}

/// Loads `data` as `format` on one thread and on two threads with a small chunk size
/// (picked from the input's length so it varies without taking bytes from the input),
/// and checks the invariants above.
pub fn check(data: &[u8], format: FormatChoice) {
    let sequential = load(data, format, 1, 1 << 20);
    // Small chunks cross record boundaries often (not below 16 bytes, for speed).
    let chunk_size = 16 + data.len().wrapping_mul(7919) % 97;
    let parallel = load(data, format, 2, chunk_size);
    assert_eq!(
        sequential, parallel,
        "1 thread and 2 threads (chunk {chunk_size}) disagree"
    );
}

/// A writer that keeps what it was given and its largest single write.
#[derive(Default)]
struct Largest {
    bytes: Vec<u8>,
    largest: usize,
}

impl std::io::Write for Largest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.largest = self.largest.max(buf.len());
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The export path: loads `data` (format auto-detected), then checks that the folded
/// export is the same text on one thread and on several (every tree taking the parallel
/// path), from the parser threads' trees left apart as from their merge, and equal to the
/// tree's lines without the stacks of weight 0; that no write is larger than a chunk plus
/// the longest line (memory does not grow with the output); that the streamed
/// differential export equals the one built in memory; and that the SVG export does not
/// panic.
pub fn check_export(data: &[u8]) {
    use export::Destination::Data;
    let opts = LoadOptions::default();
    let Ok(loaded) = input::load_reader(data, "fuzz", &opts) else {
        return;
    };
    let tree = &loaded.main().tree;
    let want: Vec<u8> = export::folded_lines(tree)
        .into_iter()
        .filter(|l| !l.ends_with(" 0"))
        .flat_map(|l| (l + "\n").into_bytes())
        .collect();
    let longest = want.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap_or(0) + 1;
    for threads in [1, 2, 3] {
        let mut out = Largest::default();
        export::write_folded_with(&mut out, tree, Data, threads, 0).expect("in memory");
        assert!(out.bytes == want, "{threads} threads: a different export");
        assert!(
            out.largest <= export::stream::CHUNK + longest,
            "a write of {} bytes",
            out.largest
        );
    }
    let parts_opts = LoadOptions {
        threads: Some(2),
        chunk_size: Some(16 + data.len() % 61),
        ..LoadOptions::default()
    };
    if let Ok((Loaded::Single(p), parts)) = input::load_reader_parts(data, "fuzz", &parts_opts) {
        let mut out = Largest::default();
        export::write_folded_parts(&mut out, &p.tree, &parts, Data).expect("in memory");
        assert!(out.bytes == want, "the parser threads' trees export differently");
    }
    let mut streamed = Vec::new();
    export::write_diff_folded(&mut streamed, tree, tree, false, Data).expect("in memory");
    let in_memory: Vec<u8> = export::diff_folded(tree, tree, false)
        .into_iter()
        .flat_map(|l| (l + "\n").into_bytes())
        .collect();
    assert!(streamed == in_memory, "the streamed differential export differs");
    let _ = export::svg(loaded.main(), "fuzz", std::io::sink());
}
