//! Text helpers for function names, before any sink: [`demangle`] turns the linker's
//! mangled names (C++ Itanium, Rust legacy and v0) into the source's spelling through the
//! `cpp_demangle` and `rustc-demangle` crates, and [`shorten`] folds template and argument
//! lists into `…`. Both are pure `&str → Cow<str>` functions that leave a name they cannot
//! read as it is; what they return is as untrusted as their input and still goes through
//! a sink of [`crate::text`].

mod demangle;
mod shorten;

pub use demangle::demangle;
pub use shorten::shorten;
