//! Demangling of C++ (Itanium ABI) and Rust (legacy and v0) symbol names.

use std::borrow::Cow;

/// The annotation suffixes the readers append (`--kernel`, inlined and JIT frames), kept
/// after the demangled name.
const SUFFIXES: [&str; 3] = ["_[k]", "_[i]", "_[j]"];

/// Longest name tried: a longer one is left as it is (the demanglers' work grows with it).
const MAX_LEN: usize = 4096;

/// `name` demangled: `_Z10do_commandP3THD` → `do_command(THD*)`,
/// `_ZN3std2rt10lang_start17h0123456789abcdefE` → `std::rt::lang_start`, `_RNvCs1234_4main4main`
/// → `main::main`. Return types are left out, as in a profiler's view; annotation suffixes
/// (`_[k]`, `_[i]`, `_[j]`) are kept. A name that is not mangled, or that the demanglers
/// reject, comes back unchanged (borrowed).
pub fn demangle(name: &str) -> Cow<'_, str> {
    let (body, suffix) = SUFFIXES
        .iter()
        .find_map(|s| name.strip_suffix(s).map(|b| (b, *s)))
        .unwrap_or((name, ""));
    match demangle_body(body) {
        Some(mut d) if d != body => {
            d.push_str(suffix);
            Cow::Owned(d)
        }
        _ => Cow::Borrowed(name),
    }
}

/// The demangled text of a bare symbol, if it is mangled in a scheme known here.
fn demangle_body(s: &str) -> Option<String> {
    if s.len() > MAX_LEN || !looks_mangled(s) {
        return None;
    }
    if let Ok(d) = rustc_demangle::try_demangle(s) {
        // `{:#}` leaves out the legacy hash (`::h0123…`), as Rust's own backtraces do.
        let text = format!("{d:#}");
        if !text.is_empty() {
            return Some(text);
        }
    }
    let sym = cpp_demangle::Symbol::new(s).ok()?;
    // The crate's default recursion limits, which it chose not to overflow a stack.
    let options = cpp_demangle::DemangleOptions::new().no_return_type();
    sym.demangle_with_options(&options)
        .ok()
        .filter(|d| !d.is_empty())
}

/// A cheap test before the demanglers run: Itanium names start with `_Z` (`__Z` on macOS),
/// Rust v0 names with `_R`.
fn looks_mangled(s: &str) -> bool {
    let s = s.strip_prefix('_').unwrap_or(s);
    let s = s.strip_prefix('_').unwrap_or(s);
    (s.starts_with('Z') || s.starts_with('R'))
        && s.len() > 2
        && s.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_on_mangled_looking_garbage(
            s in "(_Z|_ZN|_ZL|__Z|_R|_RN)[A-Za-z0-9_$.]{0,80}(_\\[k\\])?"
        ) {
            let _ = demangle(&s);
        }

        #[test]
        fn never_panics_and_keeps_what_is_not_mangled(s in any::<String>()) {
            let out = demangle(&s);
            let bare = s.trim_start_matches('_');
            if !(bare.starts_with('Z') || bare.starts_with('R')) {
                prop_assert_eq!(out, s.as_str());
            }
        }

        #[test]
        fn deep_nesting_is_refused_not_overflowed(depth in 1usize..400) {
            // A template argument list nested `depth` times.
            let s = format!("_Z1f{}iE{}v", "I1A".repeat(depth), "E".repeat(depth - 1));
            let _ = demangle(&s);
        }
    }

    #[test]
    fn cpp_names_from_the_seed() {
        for (mangled, shown) in [
            ("_Z10do_commandP3THD", "do_command(THD*)"),
            (
                "_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command",
                "dispatch_command(THD*, COM_DATA const*, enum_server_command)",
            ),
            (
                "_ZL27log_write_flush_to_disk_lowv",
                "log_write_flush_to_disk_low()",
            ),
            (
                "_ZN13MYSQL_BIN_LOG6commitEP3THDb",
                "MYSQL_BIN_LOG::commit(THD*, bool)",
            ),
            ("_Z9fil_flushm", "fil_flush(unsigned long)"),
        ] {
            assert_eq!(demangle(mangled), shown, "{mangled}");
        }
    }

    #[test]
    fn templates_lose_their_return_type() {
        assert_eq!(demangle("_Z3maxIiET_S0_S0_"), "max<int>(int, int)");
    }

    #[test]
    fn rust_legacy_and_v0() {
        assert_eq!(
            demangle("_ZN3std2rt10lang_start17h0123456789abcdefE"),
            "std::rt::lang_start"
        );
        assert_eq!(
            demangle("_ZN4core3ptr13drop_in_place17h1a2b3c4d5e6f7a8bE"),
            "core::ptr::drop_in_place"
        );
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(
            demangle("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo"),
            "<mycrate::Example>::foo"
        );
    }

    #[test]
    fn suffixes_stay() {
        assert_eq!(demangle("_Z10do_commandP3THD_[k]"), "do_command(THD*)_[k]");
        assert_eq!(demangle("_Z10do_commandP3THD_[i]"), "do_command(THD*)_[i]");
        assert_eq!(
            demangle("_ZN3std2rt10lang_start17h0123456789abcdefE_[j]"),
            "std::rt::lang_start_[j]"
        );
        assert_eq!(demangle("_Z3foov.cold"), "foo() [clone .cold]");
    }

    #[test]
    fn other_names_are_unchanged() {
        for name in [
            "",
            "main",
            "_",
            "_Z",
            "_R",
            "_Zgarbage",
            "_ZN3foo",
            "Zebra",
            "Rust",
            "pthread_cond_wait@@GLIBC_2.3.2",
            "[unknown]",
            "std::rt::lang_start",
            "do_command(THD*)",
            "_Z10do_command P3THD",
            "_Z10do_\u{202e}commandP3THD",
            "[off-cpu]",
        ] {
            assert!(
                matches!(demangle(name), Cow::Borrowed(n) if n == name),
                "{name}"
            );
        }
    }

    #[test]
    fn hostile_text_in_a_mangled_name_survives_for_the_sinks() {
        // Rust's legacy escapes spell any character but controls: the sinks of
        // `crate::text` still escape what comes out.
        let shown = demangle("_ZN12evil$u202e$xE");
        assert_eq!(shown, "evil\u{202e}x");
        assert_eq!(crate::text::sanitize(&shown), "evil\\u{202e}x");
    }
}
