//! `load_reader` with the format forced to one of inferno's collapsers' (the first byte
//! picks which: DTrace, sample, VTune, Visual Studio, GHC, xctrace); see
//! `flametui_fuzz::check`. A collapser's panic is caught by the library and must come out
//! as an error, never as a crash.
#![no_main]

use flametui::input::FormatChoice;
use libfuzzer_sys::fuzz_target;

const FORMATS: [FormatChoice; 6] = [
    FormatChoice::Dtrace,
    FormatChoice::Sample,
    FormatChoice::Vtune,
    FormatChoice::Vsprof,
    FormatChoice::Ghcprof,
    FormatChoice::Xctrace,
];

fuzz_target!(|data: &[u8]| {
    if let Some((&pick, rest)) = data.split_first() {
        flametui_fuzz::check(rest, FORMATS[usize::from(pick) % FORMATS.len()]);
    }
});
