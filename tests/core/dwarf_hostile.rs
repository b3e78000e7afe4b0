//! A DWARF recording whose binary is damaged, read by the real binary under a memory and
//! a time limit (`limited.rs`): each debug, unwind and symbol section of a C++ test binary
//! in turn gets bytes changed, and the recording of it must still load by itself, every
//! sample counted, with whatever frames the damaged sections still name: never a panic,
//! an abort on the limit or a hang. Two binaries: g++'s (`testdata/perf-data-cxx.gz`) and
//! clang's DWARF 5 (`perf-data-clang.gz`: indexed strings, addresses and range lists).
//! (The library's own test reads the same damage in pages and in memory, in-process; this
//! one holds the whole program to a limit.)

use crate::limited::{assert_held, run_limited};
use crate::{testdata, testdata_gunzipped};

/// The writable memory of a run (`ulimit -d`): the undamaged recording loads under 4 MiB
/// in a debug build (3 MiB aborts), and this is four times that.
const LIMIT_MIB: u64 = 16;

/// The seconds a run may take (a debug build takes well under one).
const SECS: u64 = 30;

/// A recording and its binary.
struct Fixture {
    /// The recording, in `testdata/`.
    recording: &'static str,
    /// Its binary, gzipped in `testdata/`, and the name it was recorded under.
    binary: &'static str,
    name: &'static str,
    /// `perf report --stdio` of the recording: its event count.
    total: u64,
    /// A part of a stack the undamaged binary gives.
    clean: &'static str,
}

const FIXTURES: [Fixture; 2] = [
    Fixture {
        recording: "perf-data-cxx-dwarf.data.gz",
        binary: "perf-data-cxx.gz",
        name: "cxx",
        total: 276_000_000,
        clean: ";main;Worker<double>::run;mid;",
    },
    Fixture {
        recording: "perf-data-clang-dwarf.data.gz",
        binary: "perf-data-clang.gz",
        name: "clang-sort",
        total: 36_000_000,
        clean: ";main;std::sort<",
    },
];

/// The sections damaged, each alone: where the frames' names, inline chains and lines
/// come from, and the unwind tables the DWARF stacks are unwound with.
fn damaged_sections(name: &str) -> bool {
    name.starts_with(".debug_")
        || [".eh_frame", ".eh_frame_hdr", ".symtab", ".strtab"].contains(&name)
}

/// The folded stacks of the fixture's recording read with `bin` as its binary, under the
/// limits.
fn folded_with(f: &Fixture, dir: &std::path::Path, bin: &[u8], what: &str) -> String {
    std::fs::write(dir.join(f.name), bin).unwrap();
    let (rec, symfs) = (testdata(f.recording), dir.to_str().unwrap());
    let cache = dir.join("no-cache");
    let args = [
        rec.as_str(),
        "--symfs",
        symfs,
        "--kallsyms",
        "/dev/null",
        "--buildid-dir",
        cache.to_str().unwrap(),
        "--export",
        "folded",
    ];
    let r = run_limited(&args, None, LIMIT_MIB, SECS);
    assert_held(&r, &[0], what);
    let out = String::from_utf8(r.stdout).unwrap_or_else(|e| panic!("{what}: {e}"));
    // Every sample is still there, whatever its frames.
    let total: u64 = out
        .lines()
        .map(|l| {
            let (stack, w) = l.rsplit_once(' ').unwrap();
            assert!(!stack.is_empty() && !stack.contains('\n'), "{what}: {l}");
            w.parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(total, f.total, "{what}: {out}");
    out
}

#[test]
fn a_binary_with_damaged_dwarf_loads_under_a_memory_limit() {
    let dir = super::busy::scratch("dwarf-hostile");
    for f in &FIXTURES {
        damaged_binary_loads(f, &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// [`a_binary_with_damaged_dwarf_loads_under_a_memory_limit`] of one fixture.
fn damaged_binary_loads(f: &Fixture, dir: &std::path::Path) {
    use object::{Object as _, ObjectSection as _};
    let bin = testdata_gunzipped(f.binary);
    let sections: Vec<(String, usize, usize)> = {
        let file = object::File::parse(&bin[..]).unwrap();
        file.sections()
            .filter_map(|s| {
                let name = s.name().ok()?.to_owned();
                let (at, size) = s.file_range()?;
                (damaged_sections(&name) && size > 0).then_some((name, at as usize, size as usize))
            })
            .collect()
    };
    assert!(sections.len() >= 8, "{}: {sections:?}", f.binary);
    let clean = folded_with(f, dir, &bin, &format!("{}, undamaged", f.binary));
    assert!(clean.contains(f.clean), "{clean}");
    let mut changed = 0;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    // Each section in turn, 8 of its bytes set to pseudo-random values, twice.
    for round in 0..2 {
        for (name, at, size) in &sections {
            let mut damaged = bin.clone();
            for _ in 0..8 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                damaged[at + (state >> 33) as usize % size] = (state >> 25) as u8;
            }
            let what = format!("{}: {name} damaged (round {round})", f.binary);
            let out = folded_with(f, dir, &damaged, &what);
            changed += usize::from(out != clean);
        }
    }
    // Some damage shows (a frame lost or renamed), so the runs read what was damaged.
    assert!(changed > 0, "{}: no damage changed the stacks", f.binary);
}
