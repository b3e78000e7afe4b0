//! The DWARF reader's tests: addr2line's answers as the oracle.

use super::*;

/// addr2line's answer at `probe` (the oracle), in the terms of [`Inlined`]: the frames that
/// have a DIE, and the unit; `None` without a function there.
fn oracle(ctx: &addr2line::Context<Slice>, probe: u64) -> Option<Inlined> {
    let mut frames = Vec::new();
    let mut it = ctx.find_frames(probe).skip_all_loads().ok()?;
    let mut lang = None;
    while let Ok(Some(f)) = it.next() {
        let Some(die) = f.dw_die_offset else { continue };
        lang = f.function.as_ref().and_then(|n| n.language).or(lang);
        let line = f.location.as_ref().and_then(|l| {
            let line = l.line.filter(|&n| n > 0)?;
            Some((Arc::from(l.file?), line))
        });
        frames.push(Frame {
            die: die.0,
            name: f.function.map(|n| n.raw_name().unwrap().into_owned()),
            line,
        });
    }
    if frames.is_empty() {
        return None;
    }
    let unit = ctx.find_dwarf_and_unit(probe).skip_all_loads()?;
    let unit = unit.header.debug_info_offset()?.0;
    Some(Inlined { unit, lang, frames })
}

/// addr2line's context of the whole file, over the same sections.
fn whole(dwarf: &FileDwarf) -> addr2line::Context<Slice> {
    use gimli::{Reader as _, Section as _};
    let endian = dwarf.dwarf.debug_info.reader().endian();
    addr2line::Context::from_dwarf(gimli_dwarf(&dwarf.sections, endian).unwrap()).unwrap()
}

/// At each of `probes`, `dwarf` gives addr2line's frames and line; how many addresses
/// have frames, and how many of them inlined ones.
fn same_answers(
    dwarf: &FileDwarf,
    whole: &addr2line::Context<Slice>,
    probes: impl Iterator<Item = u64>,
) -> (usize, usize) {
    let (mut found, mut inlined) = (0, 0);
    for probe in probes {
        let mut got = dwarf.frames(probe, true);
        let want = oracle(whole, probe);
        // addr2line gives a function without a name no language.
        if let (Some(g), Some(w)) = (&mut got, &want)
            && w.lang.is_none()
        {
            g.lang = None;
        }
        assert_eq!(got, want, "{probe:#x}");
        let line = whole.find_location(probe).ok().flatten().and_then(|l| {
            let line = l.line.filter(|&n| n > 0)?;
            Some((Arc::<str>::from(l.file?), line))
        });
        assert_eq!(dwarf.line_of(probe), line, "{probe:#x}");
        // Without lines: the same frames, no lines.
        let bare = dwarf.frames(probe, false);
        let stripped = got.map(|mut g| {
            g.frames.iter_mut().for_each(|f| f.line = None);
            g
        });
        assert_eq!(
            bare.map(|mut b| {
                b.lang = stripped.as_ref().and_then(|s| s.lang);
                b
            }),
            stripped
        );
        if let Some(w) = want {
            found += 1;
            inlined += usize::from(w.frames.len() > 1);
        }
    }
    (found, inlined)
}

/// The C++ test binary (`testdata/perf-data-cxx.gz`), with its DWARF.
fn cxx_binary() -> Vec<u8> {
    binary("perf-data-cxx.gz")
}

/// A test binary of `testdata/`, gzipped there.
fn binary(name: &str) -> Vec<u8> {
    use std::io::Read as _;
    let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// At every address of the C++ test binary's code, the frames, their names, DIEs and
/// lines are addr2line's, through `.debug_aranges` and through every unit's own
/// ranges, with line tables kept or dropped after each question, and with sections
/// read from the file in pages.
#[test]
fn frames_are_addr2lines_at_every_address_of_a_cxx_binary() {
    use object::{Object, ObjectSection};
    let bytes = cxx_binary();
    let file = object::File::parse(&bytes[..]).unwrap();
    let mut dwarf = FileDwarf::load(&file, &|_, _| None).unwrap();
    assert!(!dwarf.linked && !dwarf.aranges.is_empty());
    let whole = whole(&dwarf);
    let text = file.section_by_name(".text").unwrap();
    let text = text.address()..text.address() + text.size();
    let (found, inlined) = same_answers(&dwarf, &whole, text.clone());
    // Most of the code is in a function, some of it inlined.
    assert!(found > 0x100, "{found}");
    assert!(inlined > 0, "{inlined}");

    // Every unit's own ranges, as for a file without aranges.
    dwarf.aranges.clear();
    assert_eq!(same_answers(&dwarf, &whole, text.clone()), (found, inlined));

    // Line tables dropped after each question.
    let mut small = FileDwarf::load(&file, &|_, _| None).unwrap();
    small.kept_limit = 1;
    assert_eq!(same_answers(&small, &whole, text.clone()), (found, inlined));
    assert_eq!(small.kept.borrow().len(), 1);

    // Every section that is not compressed read from the file in pages.
    let path = std::env::temp_dir().join(format!("flametui-dwarf-{}", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let open = |at, size| {
        let f = std::fs::File::open(&path).ok()?;
        Some(Paged::new(f, at, usize::try_from(size).ok()?))
    };
    let paged = FileDwarf::load_with(&file, &open, 0).unwrap();
    let _ = std::fs::remove_file(&path);
    let info = paged.section(SectionId::DebugInfo).unwrap();
    assert!(info.in_memory().is_none());
    assert_eq!(same_answers(&paged, &whole, text), (found, inlined));
}

/// At addresses across this test program's own code (Rust, whose units refer into
/// one another, with std's units that have aranges), the answers are addr2line's.
#[test]
fn frames_are_addr2lines_across_a_rust_binary() {
    use object::{Object, ObjectSection};
    let exe = std::env::current_exe().unwrap();
    let bytes = std::fs::read(&exe).unwrap();
    let file = object::File::parse(&bytes[..]).unwrap();
    let Some(mut dwarf) = FileDwarf::load(&file, &|_, _| None) else {
        eprintln!("skipped: this test program was built without DWARF");
        return;
    };
    dwarf.kept_limit = 1 << 14;
    let whole = whole(&dwarf);
    let text = file.section_by_name(".text").unwrap();
    // About 3,000 addresses spread over the code, none a multiple of the step's
    // factors only.
    let step = (text.size() / 3_000).max(1) | 1;
    let probes = (text.address()..text.address() + text.size()).step_by(step as usize);
    let (found, inlined) = same_answers(&dwarf, &whole, probes);
    assert!(found > 1_000, "{found}");
    assert!(inlined > 100, "{inlined}");
}

/// Any ELF file with DWARF named by `FLAMETUI_DWARF_ORACLE` (a debug file too: its code
/// sections hold no bytes but keep their addresses), at 5,000 addresses spread over its
/// code: the answers are addr2line's (not on a binary whose DWARF writes ranges as
/// `DW_FORM_rnglistx`, as clang's does: there perf's binutils, and flametui, differ). Run
/// by hand on binaries the tests do not hold:
/// `FLAMETUI_DWARF_ORACLE=/path/to/binary cargo test --lib oracle_file -- --ignored`.
#[test]
#[ignore = "needs FLAMETUI_DWARF_ORACLE, a path"]
fn frames_are_addr2lines_in_the_oracle_file() {
    use object::{Object, ObjectSection};
    let path = std::env::var_os("FLAMETUI_DWARF_ORACLE").expect("FLAMETUI_DWARF_ORACLE");
    let bytes = std::fs::read(&path).unwrap();
    let file = object::File::parse(&bytes[..]).unwrap();
    let dwarf = FileDwarf::load(&file, &|_, _| None).expect("no DWARF in the file");
    let whole = whole(&dwarf);
    let (mut found, mut inlined) = (0, 0);
    for text in file
        .sections()
        .filter(|s| s.kind() == object::SectionKind::Text || s.name() == Ok(".text"))
    {
        let step = (text.size() / 5_000).max(1) | 1;
        let probes = (text.address()..text.address() + text.size()).step_by(step as usize);
        let (f, i) = same_answers(&dwarf, &whole, probes);
        (found, inlined) = (found + f, inlined + i);
    }
    eprintln!("{found} addresses with frames, {inlined} with inlined ones");
}

/// DWARF with damaged bytes, read in pages from a file and in memory, answers with
/// frames or with nothing: never a panic. g++'s DWARF (the C++ test binary) and clang's
/// DWARF 5 (indexed strings, addresses and range lists).
#[test]
fn damaged_dwarf_in_pages_or_in_memory_never_panics() {
    for name in ["perf-data-cxx.gz", "perf-data-clang.gz"] {
        damaged_answers_or_nothing(&binary(name), name);
    }
}

/// [`damaged_dwarf_in_pages_or_in_memory_never_panics`] of one binary.
fn damaged_answers_or_nothing(bytes: &[u8], name: &str) {
    use object::{Object, ObjectSection};
    let (text, ranges) = {
        let file = object::File::parse(bytes).unwrap();
        let text = file.section_by_name(".text").unwrap();
        let ranges: Vec<(usize, usize)> = SECTIONS
            .iter()
            .filter_map(|id| file.section_by_name(id.name())?.file_range())
            .map(|(at, size)| (at as usize, size as usize))
            .collect();
        (text.address()..text.address() + text.size(), ranges)
    };
    let path = std::env::temp_dir().join(format!("flametui-damaged-{}-{name}", std::process::id()));
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut answered = 0;
    // Each section in turn, 8 of its bytes set to pseudo-random values, twice.
    for &(at, size) in ranges.iter().chain(&ranges) {
        let mut named = 0;
        let mut damaged = bytes.to_vec();
        for _ in 0..8 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let pos = at + (state >> 33) as usize % size.max(1);
            damaged[pos] = (state >> 25) as u8;
        }
        std::fs::write(&path, &damaged).unwrap();
        let file = object::File::parse(&damaged[..]).unwrap();
        let open = |at, size| {
            let f = std::fs::File::open(&path).ok()?;
            Some(Paged::new(f, at, usize::try_from(size).ok()?))
        };
        let loads = [
            FileDwarf::load_with(&file, &open, 0),
            FileDwarf::load(&file, &|_, _| None),
        ];
        for dwarf in loads.iter().flatten() {
            for probe in text.clone().step_by(5) {
                if let Some(found) = dwarf.frames(probe, true) {
                    named += found.frames.iter().filter(|f| f.name.is_some()).count();
                    for f in &found.frames {
                        let _ = dwarf.die_start(found.unit, f.die);
                    }
                }
                let _ = dwarf.line_of(probe);
            }
        }
        answered += usize::from(named > 0);
    }
    let _ = std::fs::remove_file(&path);
    // Some damage leaves answers (a name, a line), some leaves none.
    assert!(
        answered > 2 && answered < ranges.len() * 2,
        "{name}: {answered}"
    );
}
