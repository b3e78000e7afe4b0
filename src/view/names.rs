//! Stage: call tree → the names the screen shows. A [`NameTable`] maps each interned name
//! of one tree to its shown text — demangled ([`crate::symbol::demangle`]) and, on request,
//! shortened ([`crate::symbol::shorten`]) — without touching the tree's own names, which
//! transforms, exports and paths keep using. Each name is worked out once, the first time
//! it is asked for (a frame drawn, a search or the finder's pass over all names), and kept;
//! a name that is not mangled costs a prefix test. The shown text is as untrusted as the
//! name and still goes through a sink of [`crate::text`].

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::profile::{Interner, NameId, NameSource};
use crate::symbol::{demangle, shorten};

/// How names are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameStyle {
    /// Mangled C++ and Rust names are demangled (the default).
    pub demangle: bool,
    /// Template and argument lists are folded into `…`.
    pub short: bool,
}

impl Default for NameStyle {
    fn default() -> Self {
        Self {
            demangle: true,
            short: false,
        }
    }
}

impl NameStyle {
    /// The names as the input spells them.
    pub const RAW: NameStyle = NameStyle {
        demangle: false,
        short: false,
    };

    /// `name` in this style, worked out now.
    pub fn apply(self, name: &str) -> Cow<'_, str> {
        let full = self.full(name);
        if !self.short {
            return full;
        }
        match full {
            Cow::Borrowed(b) => shorten(b),
            Cow::Owned(o) => Cow::Owned(shorten(&o).into_owned()),
        }
    }

    /// `name` demangled if this style demangles, never shortened: what `y` copies.
    pub fn full(self, name: &str) -> Cow<'_, str> {
        if self.demangle {
            demangle(name)
        } else {
            Cow::Borrowed(name)
        }
    }
}

/// The shown text of every name of one tree, in one style, each worked out on first use.
#[derive(Debug, Default)]
pub struct NameTable {
    style: NameStyle,
    /// Per `NameId`: the shown text when it differs from the name; empty in the raw style.
    shown: Vec<OnceLock<Option<Box<str>>>>,
    /// Set once every name is worked out.
    filled: OnceLock<()>,
}

/// Tables of this many names are filled on several threads.
const PARALLEL_NAMES: usize = 4096;

impl NameTable {
    /// A table for the names of `names` in `style` (nothing is worked out yet).
    pub fn new(names: &Interner, style: NameStyle) -> Self {
        let len = if style == NameStyle::RAW {
            0
        } else {
            names.len()
        };
        Self {
            style,
            shown: (0..len).map(|_| OnceLock::new()).collect(),
            filled: OnceLock::new(),
        }
    }

    /// The style of the table.
    pub fn style(&self) -> NameStyle {
        self.style
    }

    /// The shown text of name `id` of `names` (the interner the table was made for).
    pub fn resolve<'a>(&'a self, names: &'a Interner, id: NameId) -> &'a str {
        let raw = names.resolve(id);
        let Some(slot) = self.shown.get(id.0 as usize) else {
            return raw;
        };
        // Task names (processes, threads) are shown as read.
        let shown = slot.get_or_init(|| match self.style.apply(raw) {
            Cow::Owned(s) if !names.is_task(id) => Some(s.into_boxed_str()),
            _ => None,
        });
        shown.as_deref().unwrap_or(raw)
    }

    /// The names of `names` as shown, for searches and the finder, which read every name:
    /// the ones not worked out yet are, first, on all cores.
    pub fn over<'a>(&'a self, names: &'a Interner) -> Shown<'a> {
        self.fill(names);
        Shown { names, table: self }
    }

    /// Works out every name not worked out yet: in parts on several threads for a large
    /// table (demangling costs some microseconds a C++ name), once.
    fn fill(&self, names: &Interner) {
        if self.shown.is_empty() || self.filled.get().is_some() {
            return;
        }
        let ids = |part: std::ops::Range<usize>| {
            for i in part {
                self.resolve(names, NameId(u32::try_from(i).unwrap_or(u32::MAX)));
            }
        };
        let len = self.shown.len();
        let threads = crate::profile::worker_threads();
        if len < PARALLEL_NAMES || threads < 2 {
            ids(0..len);
        } else {
            let per = len.div_ceil(threads);
            std::thread::scope(|s| {
                for start in (0..len).step_by(per) {
                    crate::profile::threads::spawn_or_run(s, move || {
                        ids(start..(start + per).min(len));
                    });
                }
            });
        }
        let _ = self.filled.set(());
    }
}

/// A tree's names as a [`NameTable`] shows them.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    names: &'a Interner,
    table: &'a NameTable,
}

impl NameSource for Shown<'_> {
    fn count(&self) -> usize {
        self.names.len()
    }

    fn text(&self, id: NameId) -> &str {
        self.table.resolve(self.names, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_demangled_and_short_names_and_keeps_the_rest() {
        let mut names = Interner::default();
        let cmd = names.intern("_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command");
        let plain = names.intern("main");
        let task = names.intern_task("_Z3foov");
        let t = NameTable::new(&names, NameStyle::default());
        assert_eq!(
            t.resolve(&names, cmd),
            "dispatch_command(THD*, COM_DATA const*, enum_server_command)"
        );
        assert_eq!(t.resolve(&names, plain), "main");
        assert_eq!(t.resolve(&names, task), "_Z3foov");
        assert_eq!(t.over(&names).text(cmd), t.resolve(&names, cmd));
        let short = NameStyle {
            demangle: true,
            short: true,
        };
        let s = NameTable::new(&names, short);
        assert_eq!(s.resolve(&names, cmd), "dispatch_command(…)");
        let raw = NameTable::new(&names, NameStyle::RAW);
        assert_eq!(
            raw.resolve(&names, cmd),
            "_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command"
        );
        assert_eq!(short.full("_Z3foov"), "foo()");
        assert_eq!(NameStyle::RAW.apply("_Z3foov"), "_Z3foov");
        // A large table is filled on several threads, to the same text.
        let mut many = Interner::default();
        let ids: Vec<NameId> = (0..10_000)
            .map(|i| many.intern(&format!("_ZN2ns{}f{i}Ev", 1 + i.to_string().len())))
            .collect();
        let big = NameTable::new(&many, NameStyle::default());
        let shown = big.over(&many);
        assert_eq!(shown.text(ids[1234]), "ns::f1234()");
        assert!(ids.iter().all(|&id| big.resolve(&many, id).ends_with("()")));
        // An id the table does not know is shown as the interner has it.
        assert_eq!(
            NameTable::default().resolve(&names, cmd),
            names.resolve(cmd)
        );
    }
}
