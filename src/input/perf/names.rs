//! Frame names made from perf's symbols as inferno makes them: offsets stripped, argument
//! lists dropped, Rust and Java names tidied, unknown symbols named after their DSO.

use std::borrow::Cow;

/// Removes a trailing `+0x<hex>` offset (the last `+0x` in the symbol, when only hex
/// digits follow it). Read from the end, byte by byte: it runs on every stack line, and
/// the offset is a few bytes (a search for the `+` cost more than the rest of the line's
/// cleaning).
pub(super) fn strip_offset(symbol: &str) -> &str {
    let bytes = symbol.as_bytes();
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let at = bytes.len() - digits;
    match at.checked_sub(3) {
        // Only ASCII bytes are cut off: `at - 3` is a character boundary.
        Some(plus) if &bytes[plus..at] == b"+0x" => &symbol[..plus],
        _ => symbol,
    }
}

/// The library a DSO names, as tables and the collapse-library transform show it: the
/// file name of a path (`/usr/lib/libc.so.6` → `libc.so.6`), a bracketed name as perf
/// prints it (`[kernel.kallsyms]`, `[vdso]`), nothing for `[unknown]` or an empty DSO.
pub fn library_name(dso: &str) -> Option<&str> {
    let dso = dso.trim();
    // perf's `(inlined)` is not a library: the frame's is its caller's.
    if dso.is_empty() || dso == "[unknown]" || dso == INLINED {
        return None;
    }
    if dso.starts_with('[') {
        return Some(dso);
    }
    let base = &dso[dso.rfind('/').map_or(0, |i| i + 1)..];
    (!base.is_empty()).then_some(base)
}

/// What perf writes where the DSO goes for an inlined frame.
pub const INLINED: &str = "inlined";

/// True for DSOs that are the kernel (as inferno decides it).
#[allow(clippy::case_sensitive_file_extension_comparisons)] // DSO names are case-sensitive
pub fn is_kernel(dso: &str) -> bool {
    let vmlinux = dso.rfind("vmlinux").is_some_and(|at| {
        dso[at..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    });
    (dso.starts_with('[') || dso.ends_with(".ko") || vmlinux) && dso != "[unknown]"
}

#[allow(clippy::case_sensitive_file_extension_comparisons)] // DSO names are case-sensitive
pub(super) fn is_jit(dso: &str) -> bool {
    (dso.starts_with("/tmp/perf-") && dso.ends_with(".map"))
        || (dso.contains("/jitted-") && dso.ends_with(".so"))
}

/// `[unknown]` symbols are named after their DSO: `[libc.so.6]`, or `[unknown <pc>]`.
pub(super) fn unknown_fallback<'a>(
    func: &'a str,
    dso: &str,
    pc: &str,
    addrs: bool,
) -> Cow<'a, str> {
    if func != "[unknown]" {
        return func.into();
    }
    let base = match (dso, addrs) {
        ("[unknown]", true) => "unknown",
        ("[unknown]", false) => return func.into(),
        (dso, _) => &dso[dso.rfind('/').map_or(0, |i| i + 1)..],
    };
    if addrs {
        format!("[{base} <{pc}>]").into()
    } else {
        format!("[{base}]").into()
    }
}

/// Drops argument lists (`f(int)` → `f`), keeping Go methods `pkg.(*T).M`,
/// `(anonymous namespace)` and brackets inside templates; `;` becomes `:`.
#[cfg(test)]
pub fn tidy_generic(func: &str) -> String {
    let mut out = String::with_capacity(func.len());
    tidy_generic_into(func, &mut out);
    out
}

/// [`tidy_generic`] appending to a reused buffer.
pub(super) fn tidy_generic_into(func: &str, out: &mut String) {
    let start = out.len();
    let bytes = func.as_bytes();
    if memchr::memchr2(b'(', b';', bytes).is_none() {
        out.push_str(func);
        return;
    }
    let mut depth: i32 = 0;
    let mut after_dot = None;
    let mut end = func.len();
    for (idx, c) in func.char_indices() {
        match c {
            '<' | '{' | '[' => depth += 1,
            '>' | '}' | ']' | ')' => depth -= 1,
            '(' => {
                if depth == 0
                    && after_dot != Some(idx)
                    && !func[idx..].starts_with("(anonymous namespace)")
                {
                    end = idx;
                    break;
                }
                depth += 1;
            }
            '.' => after_dot = Some(idx + 1),
            _ => {}
        }
    }
    if func[..end].trim().is_empty() {
        // A name that is all argument list (`({...})`) keeps it rather than vanish.
        end = func.len();
    }
    out.push_str(&func[..end]);
    if memchr::memchr(b';', &bytes[..end]).is_some() {
        let fixed = out[start..].replace(';', ":");
        out.truncate(start);
        out.push_str(&fixed);
    }
}

/// Java frames lose the `L` of their class descriptor.
pub(super) fn tidy_java(func: &mut String) {
    if func.starts_with('L') && func.contains('/') {
        func.remove(0);
    }
}

/// Escapes of Rust's legacy symbol mangling.
const CODES: [(&str, &str); 20] = [
    ("$SP$", "@"),
    ("$BP$", "*"),
    ("$RF$", "&"),
    ("$LT$", "<"),
    ("$GT$", ">"),
    ("$LP$", "("),
    ("$RP$", ")"),
    ("$C$", ","),
    ("$u7e$", "~"),
    ("$u20$", " "),
    ("$u27$", "'"),
    ("$u3d$", "="),
    ("$u5b$", "["),
    ("$u5d$", "]"),
    ("$u7b$", "{"),
    ("$u7d$", "}"),
    ("$u3b$", ";"),
    ("$u2b$", "+"),
    ("$u21$", "!"),
    ("$u22$", "\""),
];

/// Rust legacy symbols that a profiler demangled only half (`…::h0123…` with `$LT$`).
pub fn fix_rust_symbol(symbol: &str) -> std::borrow::Cow<'_, str> {
    const HASH_LEN: usize = 17;
    let is_hash = |s: &str| s.starts_with('h') && s[1..].chars().all(|c| c.is_ascii_hexdigit());
    if symbol.len() < HASH_LEN
        || !symbol.is_char_boundary(symbol.len() - HASH_LEN)
        || !is_hash(&symbol[symbol.len() - HASH_LEN..])
    {
        return symbol.into();
    }
    let mut rest = &symbol[..symbol.len() - HASH_LEN];
    rest = rest.strip_suffix("::").unwrap_or(rest);
    if rest.starts_with("_$") {
        rest = &rest[1..];
    }
    let mut out = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("..") {
            out.push_str("::");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('.') {
            out.push('.');
            rest = r;
        } else if rest.starts_with('$') {
            if let Some((code, text)) = CODES.iter().find(|(code, _)| rest.starts_with(code)) {
                out.push_str(text);
                rest = &rest[code.len()..];
            } else {
                out.push_str(rest);
                break;
            }
        } else {
            let at = rest.find(['$', '.']).unwrap_or(rest.len());
            out.push_str(&rest[..at]);
            rest = &rest[at..];
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The way offsets were stripped before: the last `+` followed by `0x`, then only
    /// hex digits. [`strip_offset`] must agree with it on every symbol.
    fn strip_offset_searching(symbol: &str) -> &str {
        use crate::input::common::{full, hex};
        let bytes = symbol.as_bytes();
        let last = memchr::memrchr_iter(b'+', bytes).find(|&at| bytes[at + 1..].starts_with(b"0x"));
        if let Some(at) = last
            && (full(hex, &symbol[at + 3..]).is_some() || symbol.len() == at + 3)
        {
            return &symbol[..at];
        }
        symbol
    }

    proptest::proptest! {
        #[test]
        fn stripping_offsets_from_the_end_agrees_with_searching_for_them(
            s in "[a-f0-9x+:() é]{0,16}"
        ) {
            proptest::prop_assert_eq!(strip_offset(&s), strip_offset_searching(&s));
        }
    }

    #[test]
    fn name_cleanup_table() {
        for (input, expected) in [
            (
                "go/build.(*importReader).readByte",
                "go/build.(*importReader).readByte",
            ),
            ("foo<Vec::<usize>>(Vec<usize>)", "foo<Vec::<usize>>"),
            ("java_start(Thread*)", "java_start"),
            (
                "std::function<void (int, int)>::operator(int, int)",
                "std::function<void (int, int)>::operator",
            ),
            (
                "(anonymous namespace)::myBar()",
                "(anonymous namespace)::myBar",
            ),
            (
                "(anonymous namespace)::C::~C()",
                "(anonymous namespace)::C::~C",
            ),
            (
                "(anonymous namespace)::with_lambda(unsigned long)::{lambda(unsigned long)#1}::operator()",
                // inferno's naming: a local entity is named after its enclosing function.
                "(anonymous namespace)::with_lambda",
            ),
            ("f(int) const", "f"),
            ("({...})", "({...})"),
            ("(unsigned long)", "(unsigned long)"),
            ("LBusy;::main", "LBusy:::main"),
        ] {
            assert_eq!(tidy_generic(input), expected, "{input}");
        }
        assert_eq!(strip_offset("read+0x10"), "read");
        assert_eq!(strip_offset("a+b"), "a+b");
        for (input, expected) in [
            ("f+0x", "f"),
            ("f+0xab+0x", "f+0xab"),
            ("f+0x1+0x2F", "f+0x1"),
            ("f+0x0x", "f+0x0x"),
            ("f+0xb0x1", "f+0xb0x1"),
            ("é+0xé", "é+0xé"),
            ("+0x1", ""),
            ("0x1", "0x1"),
            ("", ""),
        ] {
            assert_eq!(strip_offset(input), expected, "{input}");
            assert_eq!(strip_offset_searching(input), expected, "{input}");
        }
        assert_eq!(
            fix_rust_symbol(
                "_$LT$std..fs..ReadDir$u20$as$u20$core..iter..Iterator$GT$::next::hc14f1750ca79129b"
            ),
            "<std::fs::ReadDir as core::iter::Iterator>::next"
        );
        assert_eq!(fix_rust_symbol("plain"), "plain");
        assert!(
            is_kernel("[kernel.kallsyms]")
                && is_kernel("/boot/vmlinux-5.4.14")
                && !is_kernel("[unknown]")
        );
        assert_eq!(
            unknown_fallback("[unknown]", "/lib/libc.so.6", "7f", false),
            "[libc.so.6]"
        );
        assert_eq!(
            unknown_fallback("[unknown]", "[unknown]", "7f", true),
            "[unknown <7f>]"
        );
    }
}
