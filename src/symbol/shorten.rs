//! Short names: template and argument lists folded into `…`.

use std::borrow::Cow;

/// Operators whose spelling holds a bracket, longest first, so that `operator<` or
/// `operator()` is not read as the start of a list.
const OPERATORS: [&str; 13] = [
    "<=>", "<<=", ">>=", "->*", "()", "[]", "<<", ">>", "<=", ">=", "->", "<", ">",
];

/// `name` with every outermost template list (`<…>`) and argument list (`(…)`) that follows
/// a name folded into `…`: `std::vector<int, std::allocator<int> >::push_back(int const&)`
/// → `std::vector<…>::push_back(…)`. Nested brackets fold with their list; `operator<`,
/// `operator()` and the other operators keep their spelling; an empty or one-character
/// list, a bracket that does not follow a name (`(anonymous namespace)`, Rust's
/// `<T as Trait>::f`) and a list that never closes stay as they are. The result is never
/// longer (in characters) than `name`, and shortening it again changes nothing.
pub fn shorten(name: &str) -> Cow<'_, str> {
    if !name.contains(['<', '(']) {
        return Cow::Borrowed(name);
    }
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    let mut after_name = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if let Some(end) = operator_end(&chars, i) {
            out.extend(&chars[i..end]);
            after_name = true;
            i = end;
            continue;
        }
        if matches!(c, '<' | '(') && after_name {
            let Some(close) = closing(&chars, i) else {
                // Never closed: the rest is kept as it is.
                out.extend(&chars[i..]);
                break;
            };
            if close - i > 2 {
                out.push(c);
                out.push('…');
                out.push(chars[close]);
            } else {
                out.extend(&chars[i..=close]);
            }
            i = close + 1;
            after_name = true;
            continue;
        }
        out.push(c);
        after_name = c.is_alphanumeric() || matches!(c, '_' | '>' | ')' | ']' | '$');
        i += 1;
    }
    if out == name {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(out)
    }
}

/// When `operator` followed by an operator spelled with brackets starts at `at` (as a
/// word), where the operator ends.
fn operator_end(chars: &[char], at: usize) -> Option<usize> {
    const WORD: [char; 8] = ['o', 'p', 'e', 'r', 'a', 't', 'o', 'r'];
    let word_start = at == 0 || chars.get(at - 1).is_none_or(|c| !is_ident(*c));
    if !word_start || !chars.get(at..)?.starts_with(&WORD) {
        return None;
    }
    let op = at + WORD.len();
    OPERATORS.iter().find_map(|o| {
        let len = o.chars().count();
        chars
            .get(op..op + len)
            .is_some_and(|s| s.iter().copied().eq(o.chars()))
            .then_some(op + len)
    })
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index of the bracket that closes the one at `open`, if any: brackets of all four
/// kinds nest; a `>` that closes nothing (a comparison, `->`) is text; a `)`, `]` or `}`
/// closes the `<` still open inside it (an expression's less-than).
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut stack: Vec<char> = Vec::new();
    let mut i = open;
    while let Some(&c) = chars.get(i) {
        if let Some(end) = operator_end(chars, i) {
            i = end;
            continue;
        }
        match c {
            '<' | '(' | '[' | '{' => stack.push(c),
            '>' if i > 0 && chars.get(i - 1) == Some(&'-') => {}
            '>' | ')' | ']' | '}' => {
                let opener = match c {
                    '>' => '<',
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if c != '>' {
                    while stack.last() == Some(&'<') && opener != '<' {
                        stack.pop();
                    }
                }
                if stack.last() == Some(&opener) {
                    stack.pop();
                    if stack.is_empty() {
                        return Some(i);
                    }
                } else if c != '>' {
                    return None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lists_fold() {
        for (long, short) in [
            (
                "std::vector<int, std::allocator<int> >::push_back(int const&)",
                "std::vector<…>::push_back(…)",
            ),
            (
                "llvm::MemorySSAAnalysis::run(llvm::Function&, llvm::AnalysisManager<llvm::Function>&)",
                "llvm::MemorySSAAnalysis::run(…)",
            ),
            (
                "dispatch_command(THD*, COM_DATA const*, enum_server_command)",
                "dispatch_command(…)",
            ),
            ("foo<std::map<int, std::pair<a, b>>>(x, y)", "foo<…>(…)"),
            ("foo(int) const", "foo(…) const"),
            ("do_command(THD*)_[k]", "do_command(…)_[k]"),
            (
                "core::ptr::drop_in_place<alloc::vec::Vec<u8>>",
                "core::ptr::drop_in_place<…>",
            ),
            ("foo() [clone .cold]", "foo() [clone .cold]"),
        ] {
            assert_eq!(shorten(long), short, "{long}");
        }
    }

    #[test]
    fn operators_keep_their_spelling() {
        for (long, short) in [
            ("bool operator<(A const&, A const&)", "bool operator<(…)"),
            (
                "std::less<int>::operator()(int const&, int const&) const",
                "std::less<…>::operator()(…) const",
            ),
            ("operator<<(std::ostream&, Foo const&)", "operator<<(…)"),
            ("A::operator<=><int>(B)", "A::operator<=><…>(B)"),
            ("X::operator->() const", "X::operator->() const"),
            ("X::operator>>=(int)", "X::operator>>=(…)"),
            ("cooperator<int>(a)", "cooperator<…>(a)"),
            ("f<&A::operator<, 3>(x)", "f<…>(x)"),
        ] {
            assert_eq!(shorten(long), short, "{long}");
        }
    }

    #[test]
    fn lambdas_and_namespaces() {
        assert_eq!(
            shorten("main::{lambda()#1}::operator()() const"),
            "main::{lambda()#1}::operator()() const"
        );
        assert_eq!(
            shorten("run(int)::{lambda(int, char)#2}::operator()(int, char) const"),
            "run(…)::{lambda(…)#2}::operator()(…) const"
        );
        assert_eq!(
            shorten("(anonymous namespace)::Pass::run(llvm::Module&)"),
            "(anonymous namespace)::Pass::run(…)"
        );
        assert_eq!(
            shorten("<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop"),
            "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop"
        );
        assert_eq!(
            shorten("<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop"),
            "<alloc::vec::Vec<…> as core::ops::drop::Drop>::drop"
        );
    }

    #[test]
    fn unbalanced_and_plain_names_stay() {
        for name in [
            "main",
            "",
            "a<b",
            "f(int",
            "f<a(b>",
            "x>y",
            "a)b(",
            "f()",
            "f<T>",
            "g(x)",
            "a->b",
            "<",
            "(",
            "operator<",
            "operator(",
        ] {
            assert!(
                matches!(shorten(name), Cow::Borrowed(n) if n == name),
                "{name}"
            );
        }
        assert_eq!(shorten("f(a, b) g(c"), "f(…) g(c");
    }

    /// A name made of identifiers, separators and balanced brackets.
    fn balanced() -> impl Strategy<Value = String> {
        let leaf = "[a-z_:, *&]{0,4}".prop_map(String::from);
        leaf.prop_recursive(4, 64, 4, |inner| {
            (
                "[a-z]{1,3}",
                prop::sample::select(vec![('<', '>'), ('(', ')'), ('[', ']'), ('{', '}')]),
                prop::collection::vec(inner, 0..4),
            )
                .prop_map(|(head, (o, c), parts)| format!("{head}{o}{}{c}", parts.concat()))
        })
    }

    proptest! {
        #[test]
        fn never_panics_never_grows_and_settles(s in any::<String>()) {
            let once = shorten(&s);
            prop_assert!(once.chars().count() <= s.chars().count());
            prop_assert_eq!(shorten(&once), once.clone());
        }

        #[test]
        fn bracket_soup_too(s in "[a-z<>(){}\\[\\]:, -]{0,40}") {
            let once = shorten(&s);
            prop_assert!(once.chars().count() <= s.chars().count());
            prop_assert_eq!(shorten(&once), once.clone());
        }

        #[test]
        fn balanced_names_stay_balanced(parts in prop::collection::vec(balanced(), 1..4)) {
            let s = parts.concat();
            let once = shorten(&s);
            let mut depth = 0i32;
            for c in once.chars() {
                match c {
                    '<' | '(' | '[' | '{' => depth += 1,
                    '>' | ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
                prop_assert!(depth >= 0, "{} → {}", s, once);
            }
            prop_assert_eq!(depth, 0, "{} → {}", s, once);
        }
    }
}
