//! `load_reader` with the format forced to cpuprofile (JSON decoding, index and link checks);
//! see `flametui_fuzz::check`.
#![no_main]

use flametui::input::FormatChoice;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| flametui_fuzz::check(data, FormatChoice::Cpuprofile));
