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
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: FxHashMap<Box<str>, NameId>,
    task_ids: FxHashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
    /// Ids of task names, sorted (they are few: one per process or thread).
    tasks: Vec<NameId>,
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

    /// The id in this interner of name `id` of `from`, of the same kind, added on first
    /// sight.
    pub fn intern_like(&mut self, from: &Interner, id: NameId) -> NameId {
        if from.is_task(id) {
            self.intern_task(from.resolve(id))
        } else {
            let new = self.intern(from.resolve(id));
            if let Some(lib) = from.library(id) {
                self.set_library(new, from.library_name(lib));
            }
            new
        }
    }

    /// Records that function `id` lives in library `lib` (a DSO's file name, a module).
    /// A name met in several libraries keeps the first of them in byte order, whatever
    /// the order of reading (chunks are parsed in parallel).
    pub fn set_library(&mut self, id: NameId, lib: &str) {
        let i = id.0 as usize;
        if i >= self.names.len() || self.is_task(id) {
            return;
        }
        if let Some(old) = self.library(id)
            && *self.library_name(old) <= *lib
        {
            return;
        }
        let lib = if let Some(&l) = self.library_ids.get(lib) {
            l
        } else {
            let l = u32::try_from(self.libraries.len()).unwrap_or(NO_LIB);
            self.libraries.push(lib.into());
            self.library_ids.insert(lib.into(), l);
            l
        };
        if self.library_of.len() <= i {
            self.library_of.resize(i + 1, NO_LIB);
        }
        self.library_of[i] = lib;
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

    /// The id of `name`, adding it on first sight.
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = NameId(u32::try_from(self.names.len()).unwrap_or(u32::MAX));
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The id of `name` if it was interned: the function's, else the task's.
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
    fn libraries_follow_names_and_do_not_depend_on_order() {
        let mut i = Interner::default();
        let f = i.intern("f");
        let g = i.intern("g");
        let t = i.intern_task("proc");
        assert_eq!(i.library(f), None);
        i.set_library(g, "libz.so");
        i.set_library(t, "libz.so");
        assert_eq!(i.library(t), None, "tasks have no library");
        i.set_library(f, "libz.so");
        i.set_library(f, "liba.so");
        i.set_library(f, "libq.so");
        assert_eq!(i.library_name(i.library(f).unwrap()), "liba.so");
        assert_eq!(i.library_name(i.library(g).unwrap()), "libz.so");
        assert_eq!(i.library_count(), 2);
        let mut j = Interner::default();
        j.intern("other");
        let f2 = j.intern_like(&i, f);
        assert_eq!(j.library_name(j.library(f2).unwrap()), "liba.so");
        assert_eq!(j.lookup_library("liba.so"), j.library(f2));
        assert_eq!(j.lookup_library("libz.so"), None);
    }
}
