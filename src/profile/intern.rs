//! Stage: call tree. Frame names are interned once so that the tree, search and the
//! function table work on small integer ids instead of strings.

use rustc_hash::FxHashMap;

/// Index of an interned frame name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// A string interner: each distinct name is stored once.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    ids: FxHashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
}

impl Interner {
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

    /// The id of `name` if it was interned.
    pub fn lookup(&self, name: &str) -> Option<NameId> {
        self.ids.get(name).copied()
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
    }
}
