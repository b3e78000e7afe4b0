//! Stage: call tree. Frame names are interned once so that the tree, search and the
//! function table work on small integer ids instead of strings.
//!
//! A name is a function's or a task's: perf script's root frames are process (or thread)
//! names, not functions, so `rec` the process and `rec` the function get two ids. Function
//! totals, rankings and the finder then never merge them.

use rustc_hash::FxHashMap;

/// Index of an interned frame name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// Names by id, as some layer spells them: the interner's own text, or what the screen
/// shows (searches and the finder match the latter).
pub trait NameSource: Sync {
    /// How many ids there are (`0..count`).
    fn count(&self) -> usize;
    /// The text of name `id` (empty for an unknown id).
    fn text(&self, id: NameId) -> &str;
}

impl NameSource for Interner {
    fn count(&self) -> usize {
        self.len()
    }

    fn text(&self, id: NameId) -> &str {
        self.resolve(id)
    }
}

/// A string interner: each distinct name (of a function, or of a task) is stored once.
///
/// A function is its name *and* the library its frames were found in, and whether those
/// frames are inlined (perf's `(inlined)`): the kernel's `strlen` and ld.so's `strlen` are
/// two functions with one text, as in `perf report --sort dso,sym`. So a frame's library
/// belongs to the frame, and does not depend on which other frames share its name.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    /// The first function id of each text (the others follow in `same_text`).
    ids: FxHashMap<Box<str>, NameId>,
    task_ids: FxHashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
    /// Ids of task names, sorted (they are few: one per process or thread).
    tasks: Vec<NameId>,
    /// Ids of inlined functions, sorted.
    inlined: Vec<NameId>,
    /// The next function id with the same text as the key (another library or kind).
    same_text: FxHashMap<NameId, NameId>,
    /// The library (DSO, module) of each function name, by [`LibId`]; shorter than
    /// `names` when the last names have none.
    library_of: Vec<u32>,
    libraries: Vec<Box<str>>,
    library_ids: FxHashMap<Box<str>, u32>,
}

/// Index of a library name in an [`Interner`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LibId(pub u32);

/// No library.
const NO_LIB: u32 = u32::MAX;

/// What a function is besides its text: where its frames are, and whether they are
/// inlined into their caller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kind<'a> {
    /// Its library (a DSO's file name, a module), if the input said.
    pub library: Option<&'a str>,
    /// Inlined into the frame below it (it has no symbol of its own).
    pub inlined: bool,
}

impl<'a> Kind<'a> {
    /// A function of library `library`, not inlined.
    #[must_use]
    pub fn of(library: Option<&'a str>) -> Self {
        Kind {
            library,
            inlined: false,
        }
    }
}

impl Interner {
    /// The id of the task (process or thread) name `name`, adding it on first sight; never
    /// the id of a function with the same text.
    pub fn intern_task(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.task_ids.get(name) {
            return id;
        }
        let id = NameId(u32::try_from(self.names.len()).unwrap_or(u32::MAX));
        self.names.push(name.into());
        self.task_ids.insert(name.into(), id);
        self.tasks.push(id);
        id
    }

    /// True when `id` names a task (a process or thread), not a function.
    pub fn is_task(&self, id: NameId) -> bool {
        self.tasks.binary_search(&id).is_ok()
    }

    /// The id in this interner of name `id` of `from`, of the same kind (task, or
    /// function of the same library, inlined or not), added on first sight.
    pub fn intern_like(&mut self, from: &Interner, id: NameId) -> NameId {
        if from.is_task(id) {
            self.intern_task(from.resolve(id))
        } else {
            self.intern_kind(from.resolve(id), from.kind(id))
        }
    }

    /// The id of function `name` of kind `kind`, adding it on first sight.
    pub fn intern_kind(&mut self, name: &str, kind: Kind<'_>) -> NameId {
        let lib = match kind.library {
            None => NO_LIB,
            Some(l) => self.library_ids.get(l).copied().unwrap_or_else(|| {
                let n = u32::try_from(self.libraries.len()).unwrap_or(NO_LIB);
                self.libraries.push(l.into());
                self.library_ids.insert(l.into(), n);
                n
            }),
        };
        let Some(&first) = self.ids.get(name) else {
            let id = self.push_function(name, lib, kind.inlined);
            self.ids.insert(name.into(), id);
            return id;
        };
        let mut at = first;
        loop {
            if self.lib_of(at) == lib && self.is_inlined(at) == kind.inlined {
                return at;
            }
            match self.same_text.get(&at) {
                Some(&next) => at = next,
                None => break,
            }
        }
        let id = self.push_function(name, lib, kind.inlined);
        self.same_text.insert(at, id);
        id
    }

    /// The id of function `name` of library `library` (not inlined), added on first sight.
    pub fn intern_in(&mut self, name: &str, library: Option<&str>) -> NameId {
        self.intern_kind(name, Kind::of(library))
    }

    fn push_function(&mut self, name: &str, lib: u32, inlined: bool) -> NameId {
        let id = NameId(u32::try_from(self.names.len()).unwrap_or(u32::MAX));
        self.names.push(name.into());
        if lib != NO_LIB {
            let i = id.0 as usize;
            self.library_of.resize(i + 1, NO_LIB);
            self.library_of[i] = lib;
        }
        if inlined {
            self.inlined.push(id);
        }
        id
    }

    fn lib_of(&self, id: NameId) -> u32 {
        self.library_of
            .get(id.0 as usize)
            .copied()
            .unwrap_or(NO_LIB)
    }

    /// True when function `id`'s frames are inlined into their callers.
    pub fn is_inlined(&self, id: NameId) -> bool {
        self.inlined.binary_search(&id).is_ok()
    }

    /// True when some function's frames are inlined.
    pub fn has_inlined(&self) -> bool {
        !self.inlined.is_empty()
    }

    /// The kind of function `id` (a task's is the default).
    pub fn kind(&self, id: NameId) -> Kind<'_> {
        Kind {
            library: self.library(id).map(|l| self.library_name(l)),
            inlined: self.is_inlined(id),
        }
    }

    /// Every function id whose text is `name` (one per library and kind), first the first
    /// interned.
    pub fn lookup_all<'s>(&'s self, name: &str) -> impl Iterator<Item = NameId> + 's {
        let mut next = self.ids.get(name).copied();
        std::iter::from_fn(move || {
            let at = next?;
            next = self.same_text.get(&at).copied();
            Some(at)
        })
    }

    /// True when some text names several functions (in several libraries, or inlined and
    /// not).
    pub fn has_same_text(&self) -> bool {
        !self.same_text.is_empty()
    }

    /// Per id, whether another function has its text (in another library, or inlined
    /// where it is not): two nodes under one caller may then have one text.
    pub fn ambiguous_ids(&self) -> Vec<bool> {
        let mut out = vec![false; self.names.len()];
        for (a, b) in &self.same_text {
            out[a.0 as usize] = true;
            out[b.0 as usize] = true;
        }
        out
    }

    /// The library of function `id`, if its input said.
    pub fn library(&self, id: NameId) -> Option<LibId> {
        self.library_of
            .get(id.0 as usize)
            .filter(|&&l| l != NO_LIB)
            .map(|&l| LibId(l))
    }

    /// The name of a library.
    pub fn library_name(&self, lib: LibId) -> &str {
        self.libraries.get(lib.0 as usize).map_or("", |s| s)
    }

    /// The id of library `name`, if a function lives there.
    pub fn lookup_library(&self, name: &str) -> Option<LibId> {
        self.library_ids.get(name).map(|&l| LibId(l))
    }

    /// Number of distinct libraries.
    pub fn library_count(&self) -> usize {
        self.libraries.len()
    }

    /// The id of task name `name`, if it was interned.
    pub fn lookup_task(&self, name: &str) -> Option<NameId> {
        self.task_ids.get(name).copied()
    }

    /// The id of function `name` with no library, adding it on first sight.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name)
            && self.lib_of(id) == NO_LIB
            && !self.is_inlined(id)
        {
            return id;
        }
        self.intern_kind(name, Kind::default())
    }

    /// The id of `name` if it was interned: the (first) function's, else the task's.
    pub fn lookup(&self, name: &str) -> Option<NameId> {
        self.ids
            .get(name)
            .or_else(|| self.task_ids.get(name))
            .copied()
    }

    /// The text of an interned name.
    pub fn resolve(&self, id: NameId) -> &str {
        self.names.get(id.0 as usize).map_or("", |s| s)
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no name was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All names with their ids, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (NameId, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, s)| (NameId(u32::try_from(i).unwrap_or(u32::MAX)), &**s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn interns_once() {
        let mut i = Interner::default();
        let a = i.intern("main");
        let b = i.intern("read");
        assert_eq!(i.intern("main"), a);
        assert_ne!(a, b);
        assert_eq!(i.resolve(b), "read");
        assert_eq!(i.lookup("read"), Some(b));
        assert_eq!(i.lookup("nope"), None);
        assert_eq!(i.len(), 2);
        let t = i.intern_task("main");
        assert_ne!(t, a);
        assert!(i.is_task(t) && !i.is_task(a));
        assert_eq!(
            (i.resolve(t), i.lookup("main"), i.lookup_task("main")),
            ("main", Some(a), Some(t))
        );
        let mut j = Interner::default();
        let u = j.intern_like(&i, t);
        assert!(j.is_task(u));
    }

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn a_function_is_its_name_library_and_kind() {
        let mut i = Interner::default();
        let f = i.intern("f");
        let t = i.intern_task("strlen");
        // One text in two libraries: two functions, whatever the order of reading.
        let k = i.intern_in("strlen", Some("[kernel.kallsyms]"));
        let l = i.intern_in("strlen", Some("ld-linux-x86-64.so.2"));
        assert_ne!(k, l);
        assert_eq!(i.intern_in("strlen", Some("[kernel.kallsyms]")), k);
        assert_eq!(i.intern_in("strlen", Some("ld-linux-x86-64.so.2")), l);
        let lib = |i: &Interner, id| i.library(id).map(|l| i.library_name(l).to_owned());
        assert_eq!(lib(&i, k).as_deref(), Some("[kernel.kallsyms]"));
        assert_eq!(lib(&i, l).as_deref(), Some("ld-linux-x86-64.so.2"));
        assert_eq!(i.library(f), None);
        assert_eq!(i.library(t), None, "tasks have no library");
        // Inlined frames of a function are apart from its called frames.
        let mix = i.intern_in("mix", Some("tiny"));
        let inl = i.intern_kind(
            "mix",
            Kind {
                library: Some("tiny"),
                inlined: true,
            },
        );
        assert_ne!(mix, inl);
        assert!(i.is_inlined(inl) && !i.is_inlined(mix) && i.has_inlined());
        assert_eq!(i.lookup_all("strlen").collect::<Vec<_>>(), [k, l]);
        assert_eq!(i.lookup("strlen"), Some(k));
        let ambiguous = i.ambiguous_ids();
        let at = |id: NameId| ambiguous[id.0 as usize];
        assert!(at(k) && at(mix) && !at(f) && !at(t));
        // Without a library, `intern` is its own function, found again.
        let none = i.intern("strlen");
        assert!(none != k && none != l && i.intern("strlen") == none);
        assert_eq!(i.library_count(), 3);
        // Another interner keeps each function apart, with its library and kind.
        let mut j = Interner::default();
        j.intern("other");
        let (l2, k2, inl2) = (
            j.intern_like(&i, l),
            j.intern_like(&i, k),
            j.intern_like(&i, inl),
        );
        assert_eq!(lib(&j, l2).as_deref(), Some("ld-linux-x86-64.so.2"));
        assert_eq!(lib(&j, k2).as_deref(), Some("[kernel.kallsyms]"));
        assert!(j.is_inlined(inl2) && lib(&j, inl2).as_deref() == Some("tiny"));
        assert_eq!(j.lookup_library("libz.so"), None);
    }
}
