//! Symbol names demangled as perf prints them (C++ spelt as libiberty spells it).

use std::borrow::Cow;

/// A demangled name as perf prints it: C++ without parameters or clone suffixes, Rust
/// without its hash, anything else as it is.
pub fn demangle(name: &str) -> Cow<'_, str> {
    // A v0 Rust name has no `.`: what follows one is a suffix (BOLT's `.warm`/`.cold`,
    // LLVM's `.llvm.N`), which perf's demangler (libiberty) leaves out.
    let rust = if name.starts_with("_R") {
        name.split('.').next().unwrap_or(name)
    } else {
        name
    };
    if (rust.starts_with("_ZN") || rust.starts_with("_R"))
        && let Ok(d) = rustc_demangle::try_demangle(rust)
    {
        let s = format!("{d:#}");
        if !s.is_empty() && (name.starts_with("_R") || name.contains("17h")) {
            return s.into();
        }
    }
    if name.starts_with("_Z") {
        let base = name.find('.').map_or(name, |at| &name[..at]);
        let opts = cpp_demangle::DemangleOptions::new()
            .no_params()
            .no_return_type();
        if let Ok(sym) = cpp_demangle::Symbol::new(base)
            && let Ok(s) = sym.demangle_with_options(&opts)
        {
            return as_libiberty(s).into();
        }
        if let Some(s) = cpp_name_only(base, opts) {
            return as_libiberty(s).into();
        }
    }
    name.into()
}

/// Bytes of a symbol `cpp_name_only` searches for the end of its name.
const MOST_NAME_ONLY: usize = 512;

/// The function name of a C++ symbol `cpp_demangle` rejects somewhere after its name: GCC
/// still writes some types in a form the ABI replaced in 2010, `cpp_demangle` reads only
/// the new one, and libiberty (perf's) both; in a return type, as SFINAE's `enable_if`
/// gives (`_ZSt4swapIlENSt9enable_ifIXsrSt6__and_…`: `std::swap<long>`).
///
/// The shortest head of `base` that makes a whole function symbol once given a return and
/// parameter type (`vv`, or `v` alone for a function without return type), and makes the
/// same name with other types (`ii`, `i`): types taken into the name (a head that ends
/// inside a length-prefixed name) change it. The name comes first in a symbol and a head
/// cannot end inside a nested name (it needs its `E`), nor, here, where the name's
/// template arguments follow, so a symbol rejected inside its own name stays as it is.
/// Shortest first: the name is found in a few dozen tries, and a symbol with no such head
/// costs at most four parses a byte of its first [`MOST_NAME_ONLY`].
fn cpp_name_only(base: &str, opts: cpp_demangle::DemangleOptions) -> Option<String> {
    if !base.is_ascii() {
        return None;
    }
    let name_with = |head: &str, tail: &str| {
        let mangled = format!("{head}{tail}");
        let sym = cpp_demangle::Symbol::new(mangled.as_str()).ok()?;
        let full = sym
            .demangle_with_options(&cpp_demangle::DemangleOptions::new())
            .ok()?;
        if !full.ends_with(')') {
            return None;
        }
        sym.demangle_with_options(&opts).ok()
    };
    let bytes = base.as_bytes();
    for end in 3..base.len().min(MOST_NAME_ONLY) {
        if bytes[end] == b'I' {
            continue;
        }
        let head = &base[..end];
        for (one, other) in [("v", "i"), ("vv", "ii")] {
            if let Some(name) = name_with(head, one)
                && name_with(head, other).as_ref() == Some(&name)
            {
                return Some(name);
            }
        }
    }
    None
}

/// `cpp_demangle`'s spelling of two things turned into libiberty's (`__cxa_demangle`,
/// which perf's names come from): an empty template parameter pack prints nothing
/// (`Foo<int, >` → `Foo<int>`), and an integer literal of a builtin type prints with
/// its suffix (`(unsigned long)4096` → `4096ul`, `(int)-1` → `-1`, `(bool)1` → `true`).
fn as_libiberty(mut s: String) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    while let Some(at) = s.find(", >") {
        s.replace_range(at..at + 2, "");
    }
    if !s.contains(')') {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    'outer: while let Some(open) = rest.find('(') {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        let digits_after = |cast: &str| {
            let tail = &from[cast.len()..];
            let neg = usize::from(tail.starts_with('-'));
            let n = tail[neg..].bytes().take_while(u8::is_ascii_digit).count();
            (n > 0).then_some(neg + n)
        };
        for (cast, suffix) in SUFFIXES {
            if from.starts_with(cast)
                && let Some(n) = digits_after(cast)
            {
                out.push_str(&from[cast.len()..cast.len() + n]);
                out.push_str(suffix);
                rest = &from[cast.len() + n..];
                continue 'outer;
            }
        }
        for (lit, word) in [("(bool)0", "false"), ("(bool)1", "true")] {
            if from.starts_with(lit) && !from[lit.len()..].starts_with(|c: char| c.is_ascii_digit())
            {
                out.push_str(word);
                rest = &from[lit.len()..];
                continue 'outer;
            }
        }
        out.push('(');
        rest = &from[1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expected name is what binutils' `c++filt -p` (libiberty, as perf) prints.
    #[test]
    fn cpp_names_are_spelt_as_libiberty_spells_them() {
        let cases = [
            (
                "_ZN4llvm15AnalysisManagerINS_8FunctionEJEE13getResultImplEPNS_11AnalysisKeyERS1_",
                "llvm::AnalysisManager<llvm::Function>::getResultImpl",
            ),
            (
                "_ZN4llvm20BumpPtrAllocatorImplINS_15MallocAllocatorELm4096ELm4096ELm128EE12AllocateSlowEmmNS_5AlignE",
                "llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 4096ul, 4096ul, 128ul>::AllocateSlow",
            ),
            (
                "_ZN4llvm11PassManagerINS_8FunctionENS_15AnalysisManagerIS1_JEEEJEE3runERS1_RS3_",
                "llvm::PassManager<llvm::Function, llvm::AnalysisManager<llvm::Function>>::run",
            ),
            (
                "_ZNSt10moneypunctIcLb0EE2idE",
                "std::moneypunct<char, false>::id",
            ),
            ("_ZN1AILin5EE1fEv", "A<-5>::f"),
            ("_ZN1AILx7ELy8ELj3ELl9EE1fEv", "A<7ll, 8ull, 3u, 9l>::f"),
            ("_ZN1AILc65EE1fEv", "A<(char)65>::f"),
            ("_ZN6WorkerIdE3runEd.isra.0", "Worker<double>::run"),
        ];
        for (raw, want) in cases {
            assert_eq!(demangle(raw), want, "{raw}");
        }
    }

    /// GCC's encoding of a dependent name in a return type (libstdc++'s `std::swap`,
    /// from a g++ 12 `-O2 -g` binary's DWARF), which `cpp_demangle` rejects: named as
    /// `c++filt -p` names it. The same construct inside the name's own template arguments
    /// leaves the symbol as it is, not cut to a shorter name.
    #[test]
    fn a_name_cpp_demangle_rejects_after_its_name_is_still_named() {
        let swap = "_ZSt4swapIlENSt9enable_ifIXsrSt6__and_IJSt6__not_ISt15__is_tuple_likeIT_EESt21is_move_constructibleIS4_ESt18is_move_assignableIS4_EEE5valueEvE4typeERS4_SE_";
        assert!(cpp_demangle::Symbol::new(swap).is_err());
        assert_eq!(demangle(swap), "std::swap<long>");
        let clone = format!("{swap}.isra.0");
        assert_eq!(demangle(&clone), "std::swap<long>");
        let nested =
            "_ZN2ns4sortIlEENSt9enable_ifIXsrSt6__and_IJSt6is_podIT_EEE5valueEvE4typeEPS3_S6_";
        assert_eq!(demangle(nested), "ns::sort<long>");
        let inside = "_Z3fooIXsrSt6__and_IJbEE5valueEEvv";
        assert_eq!(demangle(inside), inside);
        // A name whose end is past the bytes searched: as it is.
        let long = format!(
            "_ZN{}4sortIlEENSt9enable_ifIXsrSt6__and_IJSt6is_podIT_EEE5valueEvE4typeEPS3_S6_",
            "2ns".repeat(200)
        );
        assert_eq!(demangle(&long), long);
    }

    #[test]
    fn names_are_demangled_as_perf_prints_them() {
        assert_eq!(
            demangle("_ZN6WorkerIdE3runEd.isra.0"),
            "Worker<double>::run"
        );
        assert_eq!(
            demangle("_ZN12_GLOBAL__N_14leafEd"),
            "(anonymous namespace)::leaf"
        );
        assert_eq!(
            demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
            "core::ptr::drop_in_place"
        );
        assert_eq!(demangle("main"), "main");
        // A v0 name with a BOLT suffix, from rustc's own library: perf prints it without.
        assert_eq!(
            demangle(
                "_RNvXsC_NtCsdadwybgsbvk_12rustc_middle3mirNtB5_4BodyNtNtCsgEmfK2I1SDS_4core5clone5Clone5clone.warm"
            ),
            "<rustc_middle::mir::Body as core::clone::Clone>::clone"
        );
    }
}
