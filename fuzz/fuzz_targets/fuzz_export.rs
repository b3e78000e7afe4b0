//! The export path on whatever loads (format auto-detected); see
//! `flametui_fuzz::check_export`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| flametui_fuzz::check_export(data));
