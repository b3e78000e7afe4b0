//! The formats flametui reads, listed once: [`FORMATS`] gives each [`Format`] its
//! `--format` name, the help `--format` shows for it and the name messages and the header
//! show. The CLI builds `--format`'s values and help from it (`cli.rs`), `--format` is read
//! into a [`FormatChoice`](crate::input::FormatChoice) through it, [`Format`]'s `Display`
//! is its `display` column, and tests hold the README's formats table and `--help`
//! against it.

use std::fmt;

/// Input formats flametui reads. A new variant gets its row in [`FORMATS`], at the same
/// place (a compile-time check holds the table to this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Brendan Gregg's collapsed stacks: `a;b;c COUNT`.
    Folded,
    /// Differential collapsed stacks: `a;b;c BEFORE AFTER`.
    DiffFolded,
    /// Linux `perf script` text.
    Perf,
    /// `SystemTap` `print_stack()` / `print_ustack()` blocks.
    Stap,
    /// bpftrace map output (`@[kstack, ustack, comm]: N`).
    Bpftrace,
    /// pprof's `profile.proto` (Go, continuous profilers).
    Pprof,
    /// speedscope's JSON file format (py-spy `--format speedscope`).
    Speedscope,
    /// Chrome / V8 `.cpuprofile` JSON (`node --cpu-prof`, DevTools).
    Cpuprofile,
    /// DTrace `ustack()` / `stack()` aggregations, read by inferno's collapser.
    Dtrace,
    /// macOS `sample` call graphs, read by inferno's collapser.
    Sample,
    /// Intel VTune `amplxe-cl` top-down CSV reports, read by inferno's collapser.
    Vtune,
    /// Xcode Instruments `xctrace export` time-profile XML, read by inferno's collapser.
    Xctrace,
    /// Visual Studio profiler call-tree CSV, read by inferno's collapser.
    Vsprof,
    /// GHC `.prof` cost-centre reports, read by inferno's collapser.
    Ghcprof,
    /// A perf.data recording (`perf record`), read without `perf script`.
    PerfData,
}

/// One row of [`FORMATS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatInfo {
    /// The format.
    pub format: Format,
    /// Its name on the command line (`--format NAME`); `None` when it cannot be forced
    /// (differential folded files are read by `folded`, perf.data is known by its magic
    /// bytes whatever `--format` says).
    pub cli: Option<&'static str>,
    /// What it is, as `--format`'s help says it (for the formats with a `cli` name).
    pub help: &'static str,
    /// Its name in messages, reports and the viewer's header (`Display`).
    pub display: &'static str,
}

/// Every format, in the order of [`Format`]'s variants, which is the order `--format`
/// lists them in (after `auto`).
pub const FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::Folded,
        cli: Some("folded"),
        help: "Folded stacks `a;b;c COUNT` (or `a;b;c BEFORE AFTER`)",
        display: "folded",
    },
    FormatInfo {
        format: Format::DiffFolded,
        cli: None,
        help: "Differential folded stacks `a;b;c BEFORE AFTER` (`--format folded` reads them)",
        display: "differential folded",
    },
    FormatInfo {
        format: Format::Perf,
        cli: Some("perf"),
        help: "`perf script` output",
        display: "perf script",
    },
    FormatInfo {
        format: Format::Stap,
        cli: Some("stap"),
        help: "`SystemTap` `print_stack()/print_ustack()` output",
        display: "SystemTap",
    },
    FormatInfo {
        format: Format::Bpftrace,
        cli: Some("bpftrace"),
        help: "bpftrace map output (`@[kstack, ustack, comm]: N`)",
        display: "bpftrace",
    },
    FormatInfo {
        format: Format::Pprof,
        cli: Some("pprof"),
        help: "pprof `profile.proto`, gzipped or not (Go `runtime/pprof`, `go tool pprof -proto`)",
        display: "pprof",
    },
    FormatInfo {
        format: Format::Speedscope,
        cli: Some("speedscope"),
        help: "speedscope JSON (py-spy `record --format speedscope`), sampled or evented",
        display: "speedscope",
    },
    FormatInfo {
        format: Format::Cpuprofile,
        cli: Some("cpuprofile"),
        help: "Chrome / V8 `.cpuprofile` JSON (`node --cpu-prof`, DevTools \"Save profile\")",
        display: "cpuprofile",
    },
    FormatInfo {
        format: Format::Dtrace,
        cli: Some("dtrace"),
        help: "DTrace `@[ustack()] = count()` / `stack()` aggregations (inferno's collapser)",
        display: "DTrace",
    },
    FormatInfo {
        format: Format::Sample,
        cli: Some("sample"),
        help: "macOS `sample PID -file out.txt` call graphs (inferno's collapser)",
        display: "macOS sample",
    },
    FormatInfo {
        format: Format::Vtune,
        cli: Some("vtune"),
        help: "VTune `amplxe-cl -R top-down` CSV reports (inferno's collapser)",
        display: "VTune",
    },
    FormatInfo {
        format: Format::Xctrace,
        cli: Some("xctrace"),
        help: "Xcode Instruments `xctrace export` time-profile XML (inferno's collapser)",
        display: "xctrace",
    },
    FormatInfo {
        format: Format::Vsprof,
        cli: Some("vsprof"),
        help: "Visual Studio profiler call-tree CSV (inferno's collapser)",
        display: "Visual Studio",
    },
    FormatInfo {
        format: Format::Ghcprof,
        cli: Some("ghcprof"),
        help: "GHC `+RTS -p` `.prof` reports (inferno's collapser)",
        display: "GHC prof",
    },
    FormatInfo {
        format: Format::PerfData,
        cli: None,
        help: "A perf.data recording (`perf record`), known by its magic bytes",
        display: "perf.data",
    },
];

// Row i is the variant numbered i, so `info` is an index and no format has two rows; the
// last variant closes the table.
const _: () = {
    let mut i = 0;
    while i < FORMATS.len() {
        assert!(
            FORMATS[i].format as usize == i,
            "FORMATS is out of Format's order"
        );
        i += 1;
    }
    assert!(
        FORMATS.len() == Format::PerfData as usize + 1,
        "FORMATS misses a format"
    );
};

impl Format {
    /// Its row of [`FORMATS`].
    pub const fn info(self) -> &'static FormatInfo {
        &FORMATS[self as usize]
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().display)
    }
}
