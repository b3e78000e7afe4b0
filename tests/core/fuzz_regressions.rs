//! Inputs found by fuzzing (`scripts/fuzz.sh`, targets in `fuzz/fuzz_targets/`), minimised.
//! Each must load without a panic, account for every line, and give the same result on
//! one thread as on two threads with small chunks (`src/input/parallel.rs` promises that
//! the result depends on neither).

use flametui::export;
use flametui::input::{self, FormatChoice, LoadOptions, Loaded};

/// What a load gave: an error, or whether it is differential, the folded lines of the
/// (AFTER) tree, the lines read and the samples.
#[derive(Debug, PartialEq)]
enum Outcome {
    Err,
    Ok {
        diff: bool,
        folded: Vec<String>,
        lines: u64,
        samples: u64,
    },
}

fn load(bytes: &[u8], format: FormatChoice, threads: usize, chunk_size: usize) -> Outcome {
    let opts = LoadOptions {
        format,
        threads: Some(threads),
        chunk_size: Some(chunk_size),
        ..LoadOptions::default()
    };
    let Ok(loaded) = input::load_reader(bytes, "fuzz", &opts) else {
        return Outcome::Err;
    };
    let p = loaded.main();
    assert_eq!(
        p.stats.accounted_lines(),
        p.stats.lines,
        "{threads} threads: lines unaccounted for"
    );
    let _ = flametui::report::report(p, 5, 1.0, flametui::report::Figures::Exact);
    Outcome::Ok {
        diff: matches!(loaded, Loaded::Diff { .. }),
        folded: export::folded_lines(&p.tree),
        lines: p.stats.lines,
        samples: p.stats.samples,
    }
}

/// Loads on one thread, then on two with a few small chunk sizes; all must agree.
fn same_on_one_and_two_threads(bytes: &[u8], format: FormatChoice) -> Outcome {
    let one = load(bytes, format, 1, 1 << 20);
    for chunk_size in [16, 100, 1 << 16] {
        let two = load(bytes, format, 2, chunk_size);
        assert_eq!(
            one, two,
            "1 thread vs 2 threads, chunks of {chunk_size} bytes"
        );
    }
    one
}

/// A gzip stream cut short, after more lines than format detection reads (64): the
/// decoder's last output is the unterminated line `b 2`, then a read error. On one
/// thread `LineReader::next_line` drops that partial line with the error; the parallel
/// splitter (`parallel::split`) keeps it and parses it, so the two threads' tree has
/// `b 2` and one more line. (`gzip -9n` of 70 × "a 1\n" + "b 2\n", less its last 10 bytes.)
#[test]
fn truncated_gzip_gives_the_same_profile_on_one_and_two_threads() {
    let cut: &[u8] =
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x4b\x54\x30\xe4\x4a\x1c\xc5\x18\x38\x49\xc1\x88";
    for format in [FormatChoice::Auto, FormatChoice::Folded] {
        let out = same_on_one_and_two_threads(cut, format);
        assert!(matches!(out, Outcome::Ok { .. }), "{out:?}");
    }
    // The same when that partial line is the only sample (70 × "x\n" + "a 5\n", cut):
    // one thread fails ("no samples", the read error), two threads load `a 5`.
    let only: &[u8] =
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xab\xe0\xaa\x18\x34\x30\x51\xc1\x94";
    let _ = same_on_one_and_two_threads(only, FormatChoice::Folded);
    // perf script, parsed on all cores by default: one sample of 69 frames whose last
    // (root) frame line is cut to `\t1 g` (`gzip -9n`, less its last 10 bytes).
    let perf: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xab\x50\x30\x54\x30\xd4\x33\xb0\x02\x52\xc9\x95\xc9\x39\xa9\xc5\x56\x0a\x5c\x9c\x86\x0a\x69\xda\x06\x15\x86\x0a\x1a\xfa\x49\x99\x79\xfa\x15\x9a\xa3\x22\xa3\x22\xa3\x22\xa3\x22\x43\x4f\x24\x1d\x55";
    for format in [FormatChoice::Auto, FormatChoice::Perf] {
        let _ = same_on_one_and_two_threads(perf, format);
    }
}

/// Forced folded format, first line without a count: the sequential parser decides
/// "differential" from the first line that has a count (`a 1 2`: BEFORE 1, AFTER 2, as
/// the module doc says), while the parallel path decides it with
/// `FoldedParser::sniff_diff`, which looks only at the first non-blank, non-comment line
/// (`x`, no count: not differential) and then reads `a 1 2` as frame `a 1`, count 2.
#[test]
fn differential_folded_after_a_line_without_count_is_differential_on_any_thread_count() {
    let out = same_on_one_and_two_threads(b"x\na 1 2\n", FormatChoice::Folded);
    assert!(matches!(out, Outcome::Ok { diff: true, .. }), "{out:?}");
}

/// The same, with the first line that has a count beyond the 64 lines that detection
/// reads: the parallel path could not see it in the prefix at all. (Since the fix, the
/// decision is made from the prefix on any number of threads, so such a file reads as
/// not differential; what matters here is that both agree.)
#[test]
fn differential_folded_after_the_sniffed_prefix_is_read_alike_on_any_thread_count() {
    let mut text = b"x\n".repeat(64);
    text.extend_from_slice(b"a 1 2\nb 3 4\n");
    let out = same_on_one_and_two_threads(&text, FormatChoice::Folded);
    assert!(matches!(out, Outcome::Ok { .. }), "{out:?}");
}

/// A perf script record longer than a chunk is carried into the next read, and
/// `parallel::boundary` searches the whole carried buffer again for `\n\n` after every
/// `chunk_size` bytes: quadratic in the record's length. A perf script with CRLF line
/// endings has no `\n\n` at all, so the whole file is one record: 200 MB took 21 s and
/// 204 MB of memory on two threads (default 1 MiB chunks) against 1.8 s and 4.5 MB on one.
/// Found as a libFuzzer timeout (a gzip stream inflating to an 87 KB line, 13-byte chunks).
#[test]
fn a_perf_record_longer_than_many_chunks_is_split_in_linear_time() {
    let mut text = Vec::new();
    // About 500 KB in one record (CRLF: no `\n\n`), 16-byte chunks: some 8·10⁹ bytes
    // searched by the quadratic splitter (about 20 s in a debug build), 1 MB by a linear one.
    for i in 0..10_000 {
        text.extend_from_slice(
            format!(
                "x 1 {i}.0: 1 cycles: \r\n\t1 f{}+0x1 (/bin/x)\r\n\r\n",
                i % 9
            )
            .as_bytes(),
        );
    }
    // (No timing here: a quadratic splitter shows as a test that takes seconds.)
    let two = load(&text, FormatChoice::Perf, 2, 16);
    assert_eq!(two, load(&text, FormatChoice::Perf, 1, 1 << 20));
}

/// A count that fits in u64 but not once scaled for a fraction seen on another line:
/// when the fraction came first in the same tree, `folded::scaled` skips the line
/// ("count out of range"); when it came later (`CallTree::rescale`) or in a tree merged
/// later (`CallTree::merge_from`), the weight is clamped to `u64::MAX` and kept. So the
/// result depends on the order of the lines and, on two threads, on which worker parsed
/// which chunk: the fuzzer saw it in 1 run of 10 of the same input.
#[test]
fn a_count_that_overflows_once_scaled_is_treated_alike_in_any_order_and_chunking() {
    let big = "18446744073709551615";
    let fraction_first = format!("a 1.5\nb {big}\n");
    let fraction_last = format!("b {big}\na 1.5\n");
    let first = load(fraction_first.as_bytes(), FormatChoice::Folded, 1, 1 << 20);
    let last = load(fraction_last.as_bytes(), FormatChoice::Folded, 1, 1 << 20);
    assert_eq!(first, last, "the order of the lines changed the profile");
    for _ in 0..50 {
        assert_eq!(
            load(fraction_first.as_bytes(), FormatChoice::Folded, 2, 16),
            first
        );
    }
}

/// inferno 0.12.8's fix of half-demangled Rust names (used by its DTrace, sample and
/// xctrace collapsers) slices a frame name 17 bytes before its end without checking for a
/// character boundary, and panics when a multi-byte character sits there — here `é`, or
/// an invalid byte that inferno reads as the 3-byte U+FFFD. Found by `fuzz_inferno` on two
/// threads, where DTrace's own worker thread panicked outside flametui's guard: the
/// collapser now runs on one thread, and the panic must be an error naming the file (and
/// the same on any thread count), never a crash.
#[test]
fn a_name_inferno_cannot_slice_is_an_error_not_a_panic() {
    let stack = |name: &[u8]| {
        let mut t = b"CPU     ID                    FUNCTION:NAME\n\n\n              kvd`".to_vec();
        t.extend_from_slice(name);
        t.extend_from_slice(b"+0x10\n              kvd`main+0x88\n                3\n\n");
        t
    };
    // `é` (2 bytes) across the 17th byte from the end: 29 + 2 + 16 bytes.
    let accented = stack("kv_checksum_over_the_segment_é0123456789abcdef".as_bytes());
    // An invalid byte, read as U+FFFD (3 bytes), across it: 20 + 3 + 15 bytes.
    let invalid = stack(b"kv_checksum_segment_\xff0123456789abcde");
    for text in [accented, invalid] {
        for format in [FormatChoice::Auto, FormatChoice::Dtrace] {
            assert_eq!(same_on_one_and_two_threads(&text, format), Outcome::Err);
            let e = match input::load_reader(&text[..], "k.stacks", &LoadOptions::default()) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("inferno read it: the test no longer finds its bug"),
            };
            assert!(
                e.starts_with("k.stacks: not readable as DTrace input: inferno's collapser failed"),
                "{e}"
            );
        }
    }
}
