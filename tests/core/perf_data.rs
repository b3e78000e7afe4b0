//! The perf.data reader on real recordings of a tiny C program (testdata/perf-data-*,
//! recorded as testdata/README.md says): totals as `perf report --stdio` printed them
//! at recording time, tasks and times of every sample, frame-pointer, DWARF and pipe
//! mode, symbols from the committed binary found through `--symfs`, and hostile bytes
//! (cut short, flipped) that must give an error or a partial load, never a panic.
//!
//! The machine's own libraries are kept out: every load searches only a directory made
//! here (holding the tiny binary, or nothing), so the libc frames are `[libc.so.6]`
//! wherever the tests run.

use std::io::Read;
use std::path::PathBuf;

use flametui::input::PerfDataOptions;
use flametui::input::{self, LoadOptions, Loaded};
use flametui::profile::{Format, Profile, Unit};

use crate::{testdata, testdata_gunzipped as raw};

/// A directory holding the tiny binary under its recorded name (or nothing).
fn symfs(with_binary: bool) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "flametui-symfs-{}-{with_binary}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    if with_binary {
        let bin = raw("perf-data-tiny.gz");
        // Written aside and renamed: tests running at once never read a half-written file.
        let tmp = dir.join(format!("tiny.{:?}", std::thread::current().id()));
        std::fs::write(&tmp, bin).unwrap();
        std::fs::rename(&tmp, dir.join("tiny")).unwrap();
    }
    dir
}

fn opts(with_binary: bool) -> LoadOptions {
    LoadOptions {
        perf_data: PerfDataOptions {
            symfs: vec![symfs(with_binary)],
            kallsyms: Some(PathBuf::from("/dev/null")),
            buildid_dir: None,
            lines: false,
        },
        ..LoadOptions::default()
    }
}

fn load(name: &str, with_binary: bool) -> Profile {
    match input::load_path(&testdata(name), &opts(with_binary)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{name}: {:?}", other.map(|_| ())),
    }
}

#[test]
fn totals_are_those_of_perf_report() {
    // `perf report --stdio` headers: "# Samples: N of event 'cpu-clock:u'" and
    // "# Event count (approx.): W".
    for (name, samples, weight) in [
        ("perf-data-fp.data.gz", 542, 271_000_000),
        ("perf-data-dwarf.data.gz", 160, 400_000_000),
        ("perf-data-pipe.data.gz", 314, 314_000_000),
    ] {
        let p = load(name, true);
        assert_eq!(p.stats.samples, samples, "{name}");
        assert_eq!(p.tree.total(), weight, "{name}");
        assert_eq!(p.stats.format, Some(Format::PerfData), "{name}");
        // cpu-clock's period is a time.
        assert_eq!(p.stats.unit, Unit::Nanoseconds, "{name}");
        assert_eq!(p.stats.event.as_deref(), Some("cpu-clock"), "{name}");
    }
}

#[test]
fn every_sample_has_its_task_and_time() {
    let p = load("perf-data-fp.data.gz", true);
    let table = &p.samples;
    assert_eq!(table.len(), 542);
    assert!(table.has_timeline() && table.untimed() == 0);
    let tasks = table.tasks();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    assert_eq!(&*tasks[0].comm, "tiny");
    assert!(tasks[0].pid.is_some() && tasks[0].pid == tasks[0].tid);
    // At 2000 Hz for about 0.3 s, in time order, nanoseconds apart.
    let times: Vec<u64> = table.samples().iter().map(|s| s.time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let span = table.duration();
    assert!((200_000_000..1_000_000_000).contains(&span), "{span}");
    let weights: u64 = table.samples().iter().map(|s| s.weight).sum();
    assert_eq!(weights, p.tree.total());
}

#[test]
fn frames_are_named_from_the_binary_found_through_symfs() {
    let stacks = |p: &Profile| p.tree.stacks();
    // Frame pointers: the leaf `spin`, called from `main` (inlined into it: `work`
    // is a frame of its own only where perf's callchain has it).
    let fp = stacks(&load("perf-data-fp.data.gz", true));
    assert!(fp.iter().all(|(s, _)| s.starts_with("tiny;")), "{fp:?}");
    assert!(fp.iter().any(|(s, _)| s.ends_with(";main;spin")), "{fp:?}");
    // DWARF: the copied stack is unwound through the binary's .eh_frame, and the
    // inlined `twice` is a frame of its own.
    let dwarf = stacks(&load("perf-data-dwarf.data.gz", true));
    assert!(
        dwarf
            .iter()
            .any(|(s, _)| s.ends_with(";main;work;twice;spin")),
        "{dwarf:?}"
    );
    // Its library is the binary it is inlined into, not `inlined` (issue 30.2).
    let twice = load("perf-data-dwarf.data.gz", true);
    // Every frame of `twice` is marked inlined (issue 30.3).
    let names = twice.tree.names();
    let frames: Vec<_> = twice
        .tree
        .ids()
        .map(|n| twice.tree.node(n).name)
        .filter(|&id| names.resolve(id) == "twice")
        .collect();
    assert!(!frames.is_empty());
    for id in frames {
        assert_eq!(
            names.library(id).map(|l| names.library_name(l)),
            Some("tiny")
        );
        assert!(names.is_inlined(id));
    }
    // Without the binary: its frames are named after it, as perf script does.
    let bare = stacks(&load("perf-data-fp.data.gz", false));
    assert!(bare.iter().all(|(s, _)| !s.contains("spin")), "{bare:?}");
    assert!(bare.iter().any(|(s, _)| s.contains("[tiny]")), "{bare:?}");
    // The libc of the recording machine is not searched: `[libc.so.6]` everywhere.
    assert!(fp.iter().any(|(s, _)| s.contains("[libc.so.6]")), "{fp:?}");
}

#[test]
fn a_missing_binary_is_noted_once_with_its_path() {
    let p = load("perf-data-fp.data.gz", false);
    let notes: Vec<&str> = p.stats.bad_lines.iter().map(|b| b.text.as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("/tiny: not found: its frames are [unknown]")),
        "{notes:?}"
    );
    assert_eq!(notes.iter().filter(|n| n.contains("/tiny:")).count(), 1);
}

#[test]
fn pipe_mode_reads_from_a_stream_and_file_mode_too() {
    for name in ["perf-data-pipe.data.gz", "perf-data-fp.data.gz"] {
        let bytes = raw(name);
        let from_file = load(name, true);
        let streamed = match input::load_reader(&bytes[..], "<stdin>", &opts(true)) {
            Ok(Loaded::Single(p)) => p,
            other => panic!("{name}: {:?}", other.map(|_| ())),
        };
        assert_eq!(streamed.tree.stacks(), from_file.tree.stacks(), "{name}");
    }
}

#[test]
fn another_event_name_is_refused_with_the_events_recorded() {
    let o = LoadOptions {
        perf: flametui::input::PerfOptions {
            event: Some("cycles".to_owned()),
            ..Default::default()
        },
        ..opts(true)
    };
    match input::load_path(&testdata("perf-data-fp.data.gz"), &o) {
        Err(e) => assert!(e.to_string().contains("no usable sample"), "{e}"),
        Ok(_) => panic!("loaded samples of an event the recording lacks"),
    }
}

/// `--metric` naming no metric of a recording lists the metrics it has (as for perf script
/// text, exit status 2), where it said "no usable samples" (issue 30.8); a metric it has
/// still reads only that event's samples.
#[test]
fn an_unknown_metric_lists_the_recording_s_metrics() {
    let with = |metric: &str| LoadOptions {
        metric: Some(metric.to_owned()),
        ..opts(true)
    };
    for name in ["perf-waiter-switch.data.gz", "perf-data-fp.data.gz"] {
        match input::load_path(&testdata(name), &with("bogus")) {
            Err(e) => assert!(e.to_string().contains("no metric 'bogus'"), "{name}: {e}"),
            Ok(_) => panic!("{name}: loaded a metric it lacks"),
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flametui"))
        .args([
            "--metric",
            "bogus",
            "--print",
            &testdata("perf-waiter-switch.data.gz"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cpu-clock, off-cpu, on+off-cpu, sched:sched_switch"),
        "{err}"
    );
    match input::load_path(&testdata("perf-waiter-switch.data.gz"), &with("cpu-clock")) {
        Ok(Loaded::Single(p)) => assert_eq!(p.stats.samples, 605),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_recording_of_another_architecture_is_not_unwound_and_says_so() {
    let mut bytes = raw("perf-data-dwarf.data.gz");
    // The HEADER_ARCH feature's string, "x86_64" and its NUL: the last one (the feature
    // sections follow the records; paths have "x86_64-", stack copies hold it too).
    let at = bytes
        .windows(7)
        .rposition(|w| w == b"x86_64\0")
        .expect("arch string");
    bytes[at..at + 7].copy_from_slice(b"arm64\0\0");
    let p = match input::load_reader(&bytes[..], "arm.data", &opts(true)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    assert_eq!(p.stats.samples, 160);
    assert_eq!(p.tree.total(), 400_000_000);
    let notes: Vec<&str> = p.stats.bad_lines.iter().map(|b| b.text.as_str()).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("recorded on arm64")),
        "{notes:?}"
    );
    // No unwinding: the leaf alone under the process.
    assert!(
        p.tree
            .stacks()
            .iter()
            .all(|(s, _)| s.matches(';').count() <= 1)
    );
}

/// Loads `bytes` from a stream and from a file; both must return (error or profile).
fn survives(bytes: &[u8], dir: &std::path::Path, what: &str) {
    let _ = input::load_reader(bytes, what, &opts(false)).map_err(|e| e.to_string());
    let path = dir.join("hostile.data");
    std::fs::write(&path, bytes).unwrap();
    let _ = input::load_path(path.to_str().unwrap(), &opts(false)).map_err(|e| e.to_string());
}

#[test]
fn hostile_recordings_get_an_error_or_a_partial_load() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-hostile-pd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["perf-data-fp.data.gz", "perf-data-pipe.data.gz"] {
        let good = raw(name);
        // Cut short at many offsets: the header, the attributes, mid-record, the
        // feature sections at the end.
        let step = (good.len() / 97).max(1);
        for at in (0..good.len())
            .step_by(step)
            .chain([1, 8, 15, 16, 17, 103, 104])
        {
            survives(&good[..at.min(good.len())], &dir, "cut");
        }
        // Flipped bytes, and offsets or sizes set huge.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..300 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut bad = good.clone();
            let at = (seed as usize) % bad.len();
            bad[at] ^= (seed >> 32) as u8 | 1;
            survives(&bad, &dir, "flipped");
        }
        for field in [16, 24, 32, 40, 48, 56, 64] {
            let mut bad = good.clone();
            if let Some(b) = bad.get_mut(field..field + 8) {
                b.copy_from_slice(&(u64::MAX / 2).to_le_bytes());
            }
            survives(&bad, &dir, "huge");
        }
    }
    // A DWARF recording's registers and stack copies, flipped (fewer: it is larger).
    let good = raw("perf-data-dwarf.data.gz");
    for i in 0..40u64 {
        let mut bad = good.clone();
        let at = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20) as usize % bad.len();
        bad[at] ^= 0xa5;
        survives(&bad, &dir, "flipped dwarf");
    }
    // The header's complaints name what is wrong.
    let mut cut = raw("perf-data-fp.data.gz");
    cut.truncate(cut.len() / 2);
    std::fs::write(dir.join("cut.data"), &cut).unwrap();
    let err = input::load_path(dir.join("cut.data").to_str().unwrap(), &opts(false))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot read this perf.data recording"),
        "{err}"
    );
    assert!(err.contains("outside the file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The recording `recording` of `testdata/`, its binary (`binary`, gzipped there) found
/// under its recorded `name` in a `--symfs` directory of its own, no kernel symbols.
fn load_beside(recording: &str, binary: &str, name: &str) -> Profile {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-symfs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), raw(binary)).unwrap();
    let o = LoadOptions {
        perf_data: PerfDataOptions {
            symfs: vec![dir.clone()],
            kallsyms: Some(PathBuf::from("/dev/null")),
            buildid_dir: None,
            lines: false,
        },
        ..LoadOptions::default()
    };
    let p = match input::load_path(&testdata(recording), &o) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{recording}: {:?}", other.map(|_| ())),
    };
    let _ = std::fs::remove_dir_all(&dir);
    p
}

/// A C++ program linked with lld (its segments share pages, so a mapping's base is not
/// its first segment's), recorded with `--call-graph dwarf`: the stacks are those
/// `perf script` printed for that recording on the recording machine, from `main` down
/// (libc is not searched here: `[libc.so.6]` above it). Each name is perf's: the
/// template literal `4096ul` and the empty pack of `Pack<double>` as libiberty spells
/// them, and the inline `mid`, which binutils names after the `.isra` clone holding it
/// the first time it is asked, so the first return address perf looked up shows the
/// clone twice and the other `mid`.
#[test]
fn a_dwarf_recording_of_cxx_has_the_stacks_perf_script_printed() {
    let p = load_beside("perf-data-cxx-dwarf.data.gz", "perf-data-cxx.gz", "cxx");
    // `perf report --stdio`: 276 samples, event count 276000000.
    assert_eq!(p.stats.samples, 276);
    let mut got: Vec<(String, u64)> = p.tree.stacks();
    got.sort();
    let want = [
        (
            "cxx;[libc.so.6];main;Pack<double>::go;sized<4096ul>",
            99_000_000,
        ),
        (
            "cxx;[libc.so.6];main;Worker<double>::run;Worker<double>::run;(anonymous namespace)::leaf",
            100_000_000,
        ),
        ("cxx;[libc.so.6];main;Worker<double>::run;mid", 1_000_000),
        (
            "cxx;[libc.so.6];main;Worker<double>::run;mid;(anonymous namespace)::leaf",
            76_000_000,
        ),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(s, w)| ((*s).to_owned(), *w)).collect();
    assert_eq!(got, want);
}

/// A C++ program built by clang 14, recorded with `--call-graph dwarf`: the stacks are
/// those `perf script` printed for it on the recording machine (its text is
/// `perf-data-clang-dwarf.script.txt.gz`), from `main` down. clang's DWARF 5 gives the
/// ranges of many inlined subroutines as `DW_FORM_rnglistx`, which binutils 2.40 (perf's
/// `addr2line`) does not read, so perf leaves those frames out (`std::__unguarded_linear_insert`
/// inside `std::__unguarded_insertion_sort`): so does flametui, whose reading of the form
/// otherwise gave 2 of the 15 stacks one frame more.
#[test]
fn a_dwarf_recording_of_clang_cxx_leaves_out_the_frames_binutils_cannot_place() {
    let direct = load_beside(
        "perf-data-clang-dwarf.data.gz",
        "perf-data-clang.gz",
        "clang-sort",
    );
    // perf script's text: the perf.data options do not apply.
    let script = load("perf-data-clang-dwarf.script.txt.gz", false);
    // `perf report --stdio`: 36 samples, event count 36000000.
    assert_eq!(direct.stats.samples, 36);
    // From `main` down (libc is not searched here: its frames are `[libc.so.6]`); one
    // sample is in the dynamic loader, before `main`.
    let from_main = |p: &Profile| {
        let mut out: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
        for (stack, weight) in p.tree.stacks() {
            let frames: Vec<&str> = stack.split(';').collect();
            let Some(at) = frames.iter().position(|f| *f == "main") else {
                continue;
            };
            *out.entry(frames[at..].join(";")).or_default() += weight;
        }
        out
    };
    let (got, want) = (from_main(&direct), from_main(&script));
    assert_eq!(want.values().sum::<u64>(), 35_000_000);
    assert_eq!(got, want);
    let has = |name: &str| got.keys().any(|s| s.contains(name));
    assert!(has(";std::__unguarded_insertion_sort<") && !has("__unguarded_linear_insert"));
}

/// A binary gone from its path is read from perf's build-id cache, where `perf record`
/// copied it (`.build-id/xx/rest/elf`, under `--buildid-dir`), as perf script does.
#[test]
fn a_binary_gone_from_its_path_is_read_from_the_build_id_cache() {
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-buildid-{}", std::process::id()));
    // `readelf -n` of the committed binary: Build ID 95f4fd79…2441.
    let entry = cache.join(".build-id/95/f4fd7980b85f6472fd9410568a04aa69ec2441");
    std::fs::create_dir_all(&entry).unwrap();
    let bin = raw("perf-data-tiny.gz");
    std::fs::write(entry.join("elf"), bin).unwrap();
    let mut o = opts(false);
    o.perf_data.buildid_dir = Some(cache.clone());
    let p = match input::load_path(&testdata("perf-data-fp.data.gz"), &o) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    let _ = std::fs::remove_dir_all(&cache);
    let stacks = p.tree.stacks();
    assert!(
        stacks.iter().any(|(s, _)| s.ends_with(";main;spin")),
        "{stacks:?}"
    );
    let notes: Vec<&str> = p.stats.bad_lines.iter().map(|b| b.text.as_str()).collect();
    assert!(notes.iter().all(|n| !n.contains("/tiny:")), "{notes:?}");
}

/// The records of a file-mode recording's data section (little-endian), as (offset,
/// type, size).
fn records(bytes: &[u8]) -> Vec<(usize, u32, usize)> {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (mut at, end) = (u64_at(40), u64_at(40) + u64_at(48));
    let mut out = Vec::new();
    while at + 8 <= end {
        let kind = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes([bytes[at + 6], bytes[at + 7]]));
        out.push((at, kind, size));
        at += size.max(8);
    }
    out
}

#[test]
fn compressed_recordings_have_the_totals_of_perf_report() {
    // `perf report --stdio` on the `perf record -z` recordings (testdata/README.md).
    for (name, samples, weight) in [
        ("perf-data-z.data.gz", 523, 261_500_000),
        ("perf-data-zdwarf.data.gz", 361, 361_000_000),
        ("perf-data-zpipe.data.gz", 260, 260_000_000),
    ] {
        let p = load(name, true);
        assert_eq!(p.stats.samples, samples, "{name}");
        assert_eq!(p.tree.total(), weight, "{name}");
        assert_eq!(p.stats.read_error, None, "{name}");
        assert_eq!(p.stats.event.as_deref(), Some("cpu-clock"), "{name}");
        let times: Vec<u64> = p.samples.samples().iter().map(|s| s.time).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}");
        // From a stream too (file mode read whole, pipe mode as it comes).
        let streamed = match input::load_reader(&raw(name)[..], "<stdin>", &opts(true)) {
            Ok(Loaded::Single(p)) => p,
            other => panic!("{name}: {:?}", other.map(|_| ())),
        };
        assert_eq!(streamed.tree.stacks(), p.tree.stacks(), "{name}");
        assert_eq!(streamed.stats.samples, samples, "{name}");
    }
    // The frames are those of the binary (the symbols of decompressed maps).
    let dwarf = load("perf-data-zdwarf.data.gz", true).tree.stacks();
    assert!(
        dwarf
            .iter()
            .any(|(s, _)| s.ends_with(";main;work;twice;spin")),
        "{dwarf:?}"
    );
}

#[test]
fn a_compressed_recording_loads_as_its_decompressed_copy() {
    // Each `-plain` file holds the records of the compressed one, decompressed by zstd(1)
    // (scripts/perf-data-decompress.py): the same stacks, samples, tasks and times. The
    // DWARF one decompresses to 812 KiB in 52 rounds, more than zstd's 512 KiB window,
    // so its rounds are held back as its records come out of the window.
    for name in ["perf-data-z", "perf-data-zdwarf"] {
        let z = load(&format!("{name}.data.gz"), true);
        let plain = load(&format!("{name}-plain.data.gz"), true);
        assert!(
            records(&raw(&format!("{name}.data.gz")))
                .iter()
                .any(|r| r.1 == 81)
        );
        assert!(
            records(&raw(&format!("{name}-plain.data.gz")))
                .iter()
                .all(|r| r.1 != 81)
        );
        assert_eq!(z.tree.stacks(), plain.tree.stacks(), "{name}");
        let rows = |p: &Profile| -> Vec<(u64, u64, String)> {
            p.samples
                .samples()
                .iter()
                .map(|s| {
                    let task = p.samples.task_of(s.task).unwrap();
                    (s.time, s.weight, format!("{task:?}"))
                })
                .collect()
        };
        assert_eq!(rows(&z), rows(&plain), "{name}");
        assert_eq!(z.stats.samples, plain.stats.samples, "{name}");
    }
}

#[test]
fn hostile_compressed_records_get_an_error_or_a_partial_load() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-hostile-z-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = raw("perf-data-zdwarf.data.gz");
    let compressed: Vec<_> = records(&good).into_iter().filter(|r| r.1 == 81).collect();
    assert!(compressed.len() > 20);
    // Flipped bytes in the payloads: the first (the frame header), a middle and the last.
    for (at, _, size) in [
        compressed[0],
        compressed[compressed.len() / 2],
        compressed[compressed.len() - 1],
    ] {
        for i in (8..size).step_by((size / 40).max(1)) {
            for flip in [0x01, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[at + i] ^= flip;
                survives(&bad, &dir, "flipped zstd");
            }
        }
    }
    // A middle record's payload made a reserved zstd block: the records before it load,
    // and the error names the record's offset.
    let (at, _, size) = compressed[compressed.len() / 2];
    let mut bad = good.clone();
    bad[at + 8..at + size].fill(0xff);
    let p = match input::load_reader(&bad[..], "bad.data", &opts(true)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    let err = p.stats.read_error.clone().unwrap_or_default();
    assert!(err.contains("compressed record at offset"), "{err}");
    assert!(
        p.stats.samples > 0 && p.stats.samples < 361,
        "{}",
        p.stats.samples
    );
    // Pipe mode cut inside its last compressed record: what was decoded before loads.
    let pipe = raw("perf-data-zpipe.data.gz");
    let last = pipe
        .windows(8)
        .rposition(|w| w[..4] == 81u32.to_le_bytes() && w[4..6] == [0, 0])
        .unwrap();
    for cut in [last + 4, last + 8, last + 20, last + 200, pipe.len() - 9] {
        survives(&pipe[..cut], &dir, "cut pipe");
    }
    match input::load_reader(&pipe[..last + 200], "cut.data", &opts(true)) {
        Ok(Loaded::Single(p)) => {
            assert!(p.stats.samples > 0 && p.stats.samples < 260);
            let err = p.stats.read_error.unwrap_or_default();
            assert!(err.contains("cut short"), "{err}");
        }
        Err(e) => assert!(e.to_string().contains("cut short"), "{e}"),
        Ok(_) => panic!("not one profile"),
    }
    // Before the first compressed record: COMPRESSED2 with a payload size larger than the
    // record, and a zip bomb: 1,000 RLE blocks of 128 KiB each (125 MiB from 4 KiB) in
    // one record, stopped at the ratio limit (17 MiB here).
    let first = pipe
        .windows(8)
        .position(|w| w[..4] == 81u32.to_le_bytes() && w[4..6] == [0, 0])
        .unwrap();
    let mut c2 = pipe[..first].to_vec();
    c2.extend_from_slice(&83u32.to_le_bytes());
    c2.extend_from_slice(&[0, 0, 24, 0]);
    c2.extend_from_slice(&u64::MAX.to_le_bytes());
    c2.extend_from_slice(&[0; 8]);
    survives(&c2, &dir, "compressed2");
    let mut bomb = pipe[..first].to_vec();
    let mut payload = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x48];
    let rle = (128u32 << 10 << 3) | (1 << 1);
    for _ in 0..1_000 {
        payload.extend_from_slice(&rle.to_le_bytes()[..3]);
        payload.push(0x08);
    }
    bomb.extend_from_slice(&81u32.to_le_bytes());
    bomb.extend_from_slice(&[0, 0]);
    bomb.extend_from_slice(&u16::try_from(payload.len() + 8).unwrap().to_le_bytes());
    bomb.extend_from_slice(&payload);
    let start = std::time::Instant::now();
    match input::load_reader(&bomb[..], "bomb.data", &opts(true)) {
        Ok(Loaded::Single(p)) => {
            let err = p.stats.read_error.unwrap_or_default();
            assert!(err.contains("decompresses to over"), "{err}");
        }
        Err(e) => assert!(e.to_string().contains("decompresses to over"), "{e}"),
        Ok(_) => panic!("not one profile"),
    }
    assert!(start.elapsed().as_secs() < 30);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A pipe-mode recording with each COMPRESSED record rewritten as perf 6.x's COMPRESSED2
/// (the payload's size before it, padded to 8 bytes).
fn as_compressed2(pipe: &[u8]) -> Vec<u8> {
    let mut out = pipe[..16].to_vec();
    let mut at = 16;
    while at + 8 <= pipe.len() {
        let kind = u32::from_le_bytes(pipe[at..at + 4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes([pipe[at + 6], pipe[at + 7]]));
        if kind == 81 {
            let payload = &pipe[at + 8..at + size];
            let padded = (16 + payload.len()).div_ceil(8) * 8;
            out.extend_from_slice(&83u32.to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(&u16::try_from(padded).unwrap().to_le_bytes());
            out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            out.extend_from_slice(payload);
            out.resize(out.len() + padded - 16 - payload.len(), 0);
        } else {
            out.extend_from_slice(&pipe[at..at + size]);
        }
        at += size;
    }
    out
}

#[test]
fn compressed2_records_of_perf_6_load_as_compressed_ones() {
    let pipe = raw("perf-data-zpipe.data.gz");
    let c2 = as_compressed2(&pipe);
    assert_ne!(c2, pipe);
    let load = |bytes: &[u8]| match input::load_reader(bytes, "<stdin>", &opts(true)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    let (a, b) = (load(&pipe), load(&c2));
    assert_eq!(b.stats.samples, 260);
    assert_eq!(a.tree.stacks(), b.tree.stacks());
    assert_eq!(b.stats.read_error, None);
}

#[test]
fn another_compression_method_is_refused_by_name() {
    // The HEADER_COMPRESSED feature (27) says the method: zstd is 1; make it 2.
    let mut file = raw("perf-data-z.data.gz");
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let table = (word(&file, 40) + word(&file, 48)) as usize;
    let bits = (0..27).filter(|&b| word(&file, 72) >> b & 1 == 1).count();
    assert_eq!(word(&file, 72) >> 27 & 1, 1);
    let section = word(&file, table + 16 * bits) as usize;
    file[section + 4..section + 8].copy_from_slice(&2u32.to_le_bytes());
    // In pipe mode, the HEADER_FEATURE record of feature 27.
    let mut pipe = raw("perf-data-zpipe.data.gz");
    let at = pipe
        .windows(16)
        .position(|w| w[..4] == 80u32.to_le_bytes() && w[8..] == 27u64.to_le_bytes())
        .unwrap();
    pipe[at + 20..at + 24].copy_from_slice(&2u32.to_le_bytes());
    for bytes in [file, pipe] {
        let err = input::load_reader(&bytes[..], "m.data", &opts(true))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("compressed with method 2, not zstd"), "{err}");
    }
}

#[test]
fn compressed_records_without_their_feature_are_named_not_read() {
    // The HEADER_COMPRESSED feature bit cleared and its entry taken out of the feature
    // table (the sections after it move up by 16 bytes; its own stays, unnamed).
    let mut file = raw("perf-data-z.data.gz");
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let table = (word(&file, 40) + word(&file, 48)) as usize;
    let bits = (0..27).filter(|&b| word(&file, 72) >> b & 1 == 1).count();
    let cleared = word(&file, 72) & !(1 << 27);
    file[72..80].copy_from_slice(&cleared.to_le_bytes());
    file.drain(table + 16 * bits..table + 16 * bits + 16);
    let entries = (0..4)
        .map(|i| word(&file, 72 + 8 * i).count_ones() as usize)
        .sum::<usize>();
    for i in 0..entries {
        let at = table + 16 * i;
        let moved = word(&file, at) - 16;
        file[at..at + 8].copy_from_slice(&moved.to_le_bytes());
    }
    // Nothing loads before the first compressed record: an error, in words.
    let err = input::load_reader(&file[..], "nofeature.data", &opts(true))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("without the HEADER_COMPRESSED feature"),
        "{err}"
    );
}

#[test]
fn inputs_found_by_fuzzing_give_an_error_or_a_partial_load() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-fuzzed-pd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Found by fuzz_perf_data: two bytes of the first compressed record's payload changed
    // make a decoded map's page offset overflow the file offset of a sample's address.
    let mut fuzzed = raw("perf-data-z.data.gz");
    fuzzed[616..618].copy_from_slice(&[0xf9, 0xb0]);
    survives(&fuzzed, &dir, "fuzzed pgoff");
    // Found by fuzz_perf_data: an MMAP2 record whose build id is longer than 20 bytes (the
    // parser asserts it is not): the record is skipped, the rest loads.
    let mut plain_pipe = raw("perf-data-pipe.data.gz");
    let mut at = 16;
    while at + 8 <= plain_pipe.len() {
        let kind = u32::from_le_bytes(plain_pipe[at..at + 4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes([plain_pipe[at + 6], plain_pipe[at + 7]]));
        if kind == 10 {
            plain_pipe[at + 5] |= 0x40; // PERF_RECORD_MISC_MMAP_BUILD_ID
            plain_pipe[at + 8 + 32] = 254;
            break;
        }
        at += size.max(8);
    }
    assert!(at + 8 < plain_pipe.len(), "no MMAP2 record");
    survives(&plain_pipe, &dir, "long build id");
    // Found by fuzz_perf_data: a pipe's EVENT_DESC feature record whose feature number
    // has high bits set (the parser reads it as a u32) and whose counts do not fit.
    let mut desc = raw("perf-data-pipe.data.gz");
    let at = desc
        .windows(16)
        .position(|w| w[..4] == 80u32.to_le_bytes() && w[8..] == 12u64.to_le_bytes())
        .unwrap();
    desc[at + 12..at + 16].copy_from_slice(&[0, 0, 0, 0x7f]);
    desc[at + 16..at + 20].copy_from_slice(&u32::MAX.to_le_bytes());
    survives(&desc, &dir, "event desc feature number");
    // Found by fuzz_perf_data: an AUXTRACE record in a pipe whose data size is 85 TB (the
    // parser would allocate it): its data is passed over, to the end of the stream.
    let mut aux = raw("perf-data-pipe.data.gz");
    // After the second sample (the first real record is read apart), at a record's start.
    let (mut first, mut samples) = (16, 0);
    while samples < 2 {
        let kind = u32::from_le_bytes(aux[first..first + 4].try_into().unwrap());
        samples += usize::from(kind == 9);
        first += usize::from(u16::from_le_bytes([aux[first + 6], aux[first + 7]]));
    }
    let mut record = 71u32.to_le_bytes().to_vec();
    record.extend_from_slice(&[0, 0, 48, 0]);
    record.extend_from_slice(&(85u64 << 40).to_le_bytes());
    record.resize(48, 0);
    aux.splice(first..first, record);
    survives(&aux, &dir, "auxtrace");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file-mode recording whose record claims an AUXTRACE data size of a terabyte: the
/// parser would allocate it; the record filter ends the input there instead.
#[test]
fn a_file_mode_auxtrace_record_of_a_terabyte_is_refused() {
    let mut bytes = raw("perf-data-fp.data.gz");
    let (at, _, _) = *records(&bytes)
        .iter()
        .find(|&&(_, kind, size)| kind == 9 && size >= 48)
        .expect("a sample record");
    // PERF_RECORD_AUXTRACE (71), 48 bytes: header, then size, offset, reference, ….
    bytes[at..at + 4].copy_from_slice(&71u32.to_le_bytes());
    bytes[at + 6..at + 8].copy_from_slice(&48u16.to_le_bytes());
    bytes[at + 8..at + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-aux-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("aux.data");
    std::fs::write(&path, &bytes).unwrap();
    let loaded = input::load_path(path.to_str().unwrap(), &opts(true));
    let _ = std::fs::remove_dir_all(&dir);
    if let Ok(Loaded::Single(p)) = loaded {
        // What came before the record loads; the rest does not.
        assert!(p.stats.samples < 542, "{}", p.stats.samples);
    }
}

/// Gives `parts` one after the other, pausing `pause` before each but the first, and
/// says when it resumed.
struct Pausing {
    parts: Vec<Vec<u8>>,
    pause: std::time::Duration,
    resumed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Read for Pausing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.parts.first().is_some_and(Vec::is_empty) {
            self.parts.remove(0);
            if !self.parts.is_empty() {
                std::thread::sleep(self.pause);
                self.resumed
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let Some(part) = self.parts.first_mut() else {
            return Ok(0);
        };
        let n = part.len().min(buf.len());
        buf[..n].copy_from_slice(&part[..n]);
        part.drain(..n);
        Ok(n)
    }
}

/// The records of a pipe-mode recording (little-endian), as (offset, type, size).
fn pipe_records(bytes: &[u8]) -> Vec<(usize, u32, usize)> {
    let mut at = 16;
    let mut out = Vec::new();
    while at + 8 <= bytes.len() {
        let kind = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let size = usize::from(u16::from_le_bytes([bytes[at + 6], bytes[at + 7]]));
        out.push((at, kind, size));
        at += size.max(8);
    }
    out
}

/// What a load gives, to compare two loads: stacks, stats, and every sample's time,
/// weight, task and stack.
fn everything(p: &Profile) -> impl PartialEq + std::fmt::Debug {
    let rows: Vec<(u64, u64, String, String)> = p
        .samples
        .samples()
        .iter()
        .map(|s| {
            let task = p.samples.task_of(s.task);
            (
                s.time,
                s.weight,
                format!("{task:?}"),
                p.tree.path_string(s.leaf),
            )
        })
        .collect();
    (
        p.tree.stacks(),
        p.stats.clone(),
        rows,
        p.metric_names().to_vec(),
    )
}

/// Loads `bytes` from a stream that pauses after `cut` bytes, with snapshots every
/// 50 ms: the snapshots sent during the pause (samples, total weight), and the profile.
fn load_pausing(bytes: &[u8], cut: usize) -> (Vec<(u64, u64)>, Profile) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let resumed = Arc::new(AtomicBool::new(false));
    let during = Arc::new(Mutex::new(Vec::new()));
    let (flag, sink) = (Arc::clone(&resumed), Arc::clone(&during));
    let o = LoadOptions {
        snapshots: Some(input::Snapshots {
            every: std::time::Duration::from_millis(50),
            intervals: false,
            sink: Arc::new(move |p: Profile| {
                assert_eq!(p.samples.len() as u64, p.stats.samples);
                assert_eq!(p.stats.format, Some(Format::PerfData));
                if !flag.load(Ordering::SeqCst) {
                    sink.lock().unwrap().push((p.stats.samples, p.tree.total()));
                }
            }),
        }),
        ..opts(true)
    };
    let reader = Pausing {
        parts: vec![bytes[..cut].to_vec(), bytes[cut..].to_vec()],
        pause: std::time::Duration::from_millis(600),
        resumed,
    };
    let loaded = match input::load_reader(reader, "<stdin>", &o) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    let during = during.lock().unwrap().clone();
    (during, loaded)
}

#[test]
fn a_pause_in_a_piped_recording_shows_the_samples_before_it() {
    // `perf record --no-buffering` writes each sample as it comes, a FINISHED_ROUND
    // after each: paused in the middle, the stream shows what came before the pause
    // (but for the last round, which the reader gives out when the next one is read).
    let bytes = raw("perf-data-live.data.gz");
    let records = pipe_records(&bytes);
    let rounds: Vec<usize> = records
        .iter()
        .filter(|r| r.1 == 68)
        .map(|r| r.0 + r.2)
        .collect();
    assert!(rounds.len() > 100, "{} rounds", rounds.len());
    let cut = rounds[rounds.len() / 2];
    let before = records.iter().filter(|r| r.1 == 9 && r.0 < cut).count() as u64;
    let (during, streamed) = load_pausing(&bytes, cut);
    let whole = match input::load_reader(&bytes[..], "<stdin>", &opts(true)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    assert_eq!(whole.stats.samples, 137);
    assert!(
        during
            .iter()
            .any(|&(n, w)| (before - 1..=before).contains(&n) && w == n * 1_000_000),
        "{before} samples before the pause; snapshots during it: {during:?}"
    );
    assert!(during.iter().all(|&(n, _)| n <= before), "{during:?}");
    // The profile at the end is the one a load without snapshots gives.
    assert_eq!(everything(&streamed), everything(&whole));
}

#[test]
fn a_piped_compressed_recording_streams_to_the_same_profile() {
    // Paused between two compressed records: the records decoded so far are still in
    // zstd's window (this recording decompresses to less than it), so the pause may show
    // nothing yet; the end is what a load without snapshots gives.
    let bytes = raw("perf-data-zpipe.data.gz");
    let records = pipe_records(&bytes);
    let cut = records.iter().rfind(|r| r.1 == 81).map(|r| r.0).unwrap();
    let (during, streamed) = load_pausing(&bytes, cut);
    let whole = match input::load_reader(&bytes[..], "<stdin>", &opts(true)) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    };
    assert_eq!(whole.stats.samples, 260);
    assert!(during.iter().all(|&(n, _)| n < 260), "{during:?}");
    assert_eq!(everything(&streamed), everything(&whole));
}

/// Loads the recording with kernel frames (testdata/perf-data-kernel.data.gz) with the
/// kernel symbols read from `kallsyms`.
fn load_kernel(kallsyms: PathBuf) -> Profile {
    load_with_kallsyms("perf-data-kernel.data.gz", kallsyms)
}

fn load_with_kallsyms(name: &str, kallsyms: PathBuf) -> Profile {
    let o = LoadOptions {
        perf_data: PerfDataOptions {
            kallsyms: Some(kallsyms),
            ..opts(false).perf_data
        },
        ..LoadOptions::default()
    };
    match input::load_path(&testdata(name), &o) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn samples_read_before_the_kernel_symbols_wait_for_them_and_load_the_same() {
    let excerpt = PathBuf::from(testdata("perf-data-kernel.kallsyms"));
    let plain = load_kernel(excerpt.clone());
    // `perf report --stdio`: 102 samples of cpu-clock, 51,000,000 ns.
    assert_eq!(plain.stats.samples, 102);
    assert_eq!(plain.tree.total(), 51_000_000);
    let stacks = plain.tree.stacks();
    assert!(
        stacks
            .iter()
            .any(|(s, _)| s.contains("entry_SYSCALL_64_after_hwframe;do_syscall_64")),
        "{stacks:?}"
    );
    // The same symbols through a FIFO written 300 ms after the load began: every
    // sample is read while the kernel's symbols are not, waits, and is named after.
    let fifo = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("flametui-kallsyms-{}.fifo", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let text = std::fs::read(&excerpt).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(&fifo, text).unwrap();
        })
    };
    let slow = load_kernel(fifo.clone());
    writer.join().unwrap();
    let _ = std::fs::remove_file(&fifo);
    assert_eq!(everything(&slow), everything(&plain));
}

#[test]
fn the_idle_task_is_named_swapper_as_perf_names_it() {
    // A system-wide recording of an idle machine: every sample is the idle task (pid
    // and tid 0), which has no COMM record. `perf report --stdio --sort comm`: 100.00%
    // swapper, 99 samples, 497,487,375 ns.
    let p = load_with_kallsyms(
        "perf-data-idle.data.gz",
        PathBuf::from(testdata("perf-data-idle.kallsyms")),
    );
    assert_eq!(p.stats.samples, 99);
    assert_eq!(p.tree.total(), 497_487_375);
    for (stack, _) in p.tree.stacks() {
        assert!(stack.starts_with("swapper;"), "{stack}");
        assert!(stack.contains(";do_idle;"), "{stack}");
    }
}

/// One word for one thing (issue 30.7): a tracepoint's weights are samples whether its
/// period (1, one per event) is in the record (perf.data) or not (perf script text).
#[test]
fn a_tracepoint_counts_samples_from_perf_data_as_from_text() {
    use flametui::profile::Unit;
    let metric = LoadOptions {
        metric: Some("sched:sched_switch".to_owned()),
        ..opts(true)
    };
    let from_data = load_with("perf-waiter-switch.data.gz", &metric);
    let from_text = load_with("perf-waiter-switch.txt.gz", &metric);
    assert_eq!(from_data.stats.unit, Unit::Samples);
    assert_eq!(from_text.stats.unit, Unit::Samples);
    assert_eq!(from_data.tree.total(), 210);
}

fn load_with(name: &str, o: &LoadOptions) -> Profile {
    match input::load_path(&testdata(name), o) {
        Ok(Loaded::Single(p)) => p,
        other => panic!("{name}: {:?}", other.map(|_| ())),
    }
}

#[test]
fn the_event_shown_first_is_the_headers_first_with_samples() {
    // `perf record -e cpu-clock -e page-faults -g`: the first sample in the file is a
    // page fault, but the header lists cpu-clock first and `perf report --stdio` shows it
    // first: "# Samples: 23 of event 'cpu-clock'", "# Event count (approx.): 5750000",
    // then "# Samples: 12 of event 'page-faults'", "# Event count (approx.): 160".
    let p = load("perf-clock-faults.data.gz", false);
    assert_eq!(p.stats.event.as_deref(), Some("cpu-clock"));
    assert_eq!((p.stats.samples, p.tree.total()), (23, 5_750_000));
    assert_eq!(p.stats.unit, Unit::Nanoseconds);
    // What is said of the whole input (every event's count) goes with the shown one.
    assert_eq!(p.stats.events.get("page-faults"), Some(&12));
    let faults = p.into_metric_named("page-faults").unwrap();
    assert_eq!((faults.stats.samples, faults.tree.total()), (12, 160));
    // Asked for, the other comes first.
    let asked = LoadOptions {
        metric: Some("page-faults".to_owned()),
        ..opts(false)
    };
    match input::load_path(&testdata("perf-clock-faults.data.gz"), &asked) {
        Ok(Loaded::Single(p)) => assert_eq!(p.stats.event.as_deref(), Some("page-faults")),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// The header's total of CPU time says what it was taken over: the recording's length
/// (first to last sample) and the CPUs perf.data's header counts (`nrcpus online`).
#[test]
fn the_total_of_cpu_time_says_its_length_and_cpus() {
    let p = load("perf-data-fp.data.gz", true);
    assert_eq!(p.stats.nr_cpus, Some(2));
    let head = flametui::report::header(&p, flametui::report::Figures::Human);
    assert!(
        head.contains("total 271 ms CPU in 293 ms on 2 CPUs, event cpu-clock"),
        "{head}"
    );
    // For a script the total stays one exact number.
    let exact = flametui::report::header(&p, flametui::report::Figures::Exact);
    assert!(
        exact.contains("total 271,000,000 ns, event cpu-clock"),
        "{exact}"
    );
}
