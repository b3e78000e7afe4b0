//! A DWARF recording whose binary is damaged, read by the real binary under a memory and
//! a time limit (`limited.rs`): each debug, unwind and symbol section of the C++ test
//! binary (`testdata/perf-data-cxx.gz`) in turn gets bytes changed, and the recording of
//! it (`perf-data-cxx-dwarf.data.gz`) must still load by itself, every sample counted,
//! with whatever frames the damaged sections still name: never a panic, an abort on the
//! limit or a hang. (The library's own test reads the same damage in pages and in memory,
//! in-process; this one holds the whole program to a limit.)

use crate::limited::{assert_held, run_limited};
use crate::{testdata, testdata_gunzipped};

/// The writable memory of a run (`ulimit -d`): the undamaged recording loads under 4 MiB
/// in a debug build (3 MiB aborts), and this is four times that.
const LIMIT_MIB: u64 = 16;

/// The seconds a run may take (a debug build takes well under one).
const SECS: u64 = 30;

/// `perf report --stdio` of the recording: 276 samples of 1,000,000 each.
const TOTAL: u64 = 276_000_000;

/// The sections damaged, each alone: where the frames' names, inline chains and lines
/// come from, and the unwind tables the DWARF stacks are unwound with.
fn damaged_sections(name: &str) -> bool {
    name.starts_with(".debug_")
        || [".eh_frame", ".eh_frame_hdr", ".symtab", ".strtab"].contains(&name)
}

/// The folded stacks of the recording read with `bin` as its binary, under the limits.
fn folded_with(dir: &std::path::Path, bin: &[u8], what: &str) -> String {
    std::fs::write(dir.join("cxx"), bin).unwrap();
    let (rec, symfs) = (
        testdata("perf-data-cxx-dwarf.data.gz"),
        dir.to_str().unwrap(),
    );
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
    assert_eq!(total, TOTAL, "{what}: {out}");
    out
}

#[test]
fn a_binary_with_damaged_dwarf_loads_under_a_memory_limit() {
    use object::{Object as _, ObjectSection as _};
    let dir = super::busy::scratch("dwarf-hostile");
    let bin = testdata_gunzipped("perf-data-cxx.gz");
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
    assert!(sections.len() >= 8, "{sections:?}");
    let clean = folded_with(&dir, &bin, "the undamaged binary");
    assert!(clean.contains(";main;Worker<double>::run;mid;"), "{clean}");
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
            let out = folded_with(&dir, &damaged, &format!("{name} damaged (round {round})"));
            changed += usize::from(out != clean);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Some damage shows (a frame lost or renamed), so the runs read what was damaged.
    assert!(changed > 0, "no damage changed the stacks");
}
