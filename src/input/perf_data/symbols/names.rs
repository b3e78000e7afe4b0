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
    }
    name.into()
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
