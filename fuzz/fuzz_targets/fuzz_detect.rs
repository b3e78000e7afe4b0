//! Format detection alone on arbitrary bytes, then `load_reader` with auto-detection;
//! see `flametui_fuzz::check`.
#![no_main]

use flametui::input::{FormatChoice, detect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = detect::detect(data);
    let _ = detect::head(data);
    // The prefix as `load_reader` reads it is never longer than the input, and detection
    // of the input is detection of its prefix when the whole input fits in it.
    let mut reader = data;
    let detect::Prefix {
        bytes: prefix,
        error,
        ended,
    } = detect::read_prefix(&mut reader);
    assert!(error.is_none(), "reading a slice failed");
    assert!(!ended || prefix.len() == data.len(), "ended before the end");
    assert!(
        data.starts_with(&prefix),
        "the prefix is not a prefix of the input"
    );
    if prefix.len() == data.len() {
        assert_eq!(detect::detect(&prefix), detect::detect(data));
    }
    flametui_fuzz::check(data, FormatChoice::Auto);
});
