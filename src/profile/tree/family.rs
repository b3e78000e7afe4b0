//! Families: a node's children, linked as a sibling list. A small family is scanned to
//! find a child by name; one past [`SCAN_CHILDREN`] children is also in the tree's
//! `(parent, name) → child` index. Finishing a tree orders every family (by name, or by
//! weight) by relinking the lists, on all cores for big trees.

use rustc_hash::FxHashMap;

use super::{CallTree, NONE, NodeId, SCAN_CHILDREN, Slot, TAIL, slot};
use crate::profile::intern::NameId;
use crate::profile::threads::{Job, spawn_or_run};

impl CallTree {
    fn is_indexed(&self, parent: NodeId) -> bool {
        let i = parent.index();
        self.indexed
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    fn mark_indexed(&mut self, parent: NodeId) {
        let i = parent.index();
        if self.indexed.len() <= i / 64 {
            self.indexed.resize(i / 64 + 1, 0);
        }
        self.indexed[i / 64] |= 1 << (i % 64);
    }

    /// The child of `parent` named `name`, if any.
    pub(super) fn child(&self, parent: NodeId, name: NameId) -> Option<NodeId> {
        if self.is_indexed(parent) {
            self.index.get(&(parent, name)).copied()
        } else {
            self.children(parent)
                .find(|&c| self.slots[c.index()].name == name)
        }
    }

    pub(super) fn child_or_insert(&mut self, parent: NodeId, name: NameId) -> NodeId {
        let indexed = self.is_indexed(parent);
        // The family's last child and its size, found by the same scan as the name.
        let (last, count) = if indexed {
            if let Some(&id) = self.index.get(&(parent, name)) {
                return id;
            }
            (self.index.get(&(parent, TAIL)).map_or(NONE, |t| t.0), 0)
        } else {
            let mut last = NONE;
            let mut count = 0;
            let mut c = self.slots[parent.index()].first_child;
            while c != NONE {
                let s = &self.slots[c as usize];
                if s.name == name {
                    return NodeId(c);
                }
                last = c;
                count += 1;
                c = s.next_sibling;
            }
            (last, count)
        };
        let id = NodeId(u32::try_from(self.slots.len()).unwrap_or(NONE - 1));
        self.slots.push(slot(name, parent.0));
        if last == NONE {
            self.slots[parent.index()].first_child = id.0;
        } else {
            self.slots[last as usize].next_sibling = id.0;
        }
        if indexed {
            self.index.insert((parent, name), id);
            self.index.insert((parent, TAIL), id);
        } else if count + 1 > SCAN_CHILDREN {
            // The family outgrew scanning: index all of it.
            let all: Vec<NodeId> = self.children(parent).collect();
            for c in all {
                let n = self.slots[c.index()].name;
                self.index.insert((parent, n), c);
            }
            self.index.insert((parent, TAIL), id);
            self.mark_indexed(parent);
        }
        id
    }

    /// The child of `parent` called `name`, if any: a function's (of any library, the
    /// heaviest when several), else a task's.
    pub fn child_named(&self, parent: NodeId, name: &str) -> Option<NodeId> {
        let mut best: Option<NodeId> = None;
        for id in self.names.lookup_all(name) {
            if let Some(c) = self.child(parent, id)
                && best.is_none_or(|b| self.node(c).total > self.node(b).total)
            {
                best = Some(c);
            }
        }
        best.or_else(|| {
            self.names
                .lookup_task(name)
                .and_then(|id| self.child(parent, id))
        })
    }

    /// Sorts every child list alphabetically (byte order of the names).
    pub fn finish(&mut self) {
        let names = &self.names;
        sort_children(&mut self.slots, &mut self.index, &self.indexed, |s| {
            names.resolve(s.name)
        });
    }

    /// Sorts every child list heaviest first, ties alphabetically ([`CallTree::finish`]
    /// restores the alphabetical order).
    pub fn sort_by_weight(&mut self) {
        let names = &self.names;
        sort_children(&mut self.slots, &mut self.index, &self.indexed, |s| {
            (std::cmp::Reverse(s.total), names.resolve(s.name))
        });
    }
}

/// Puts the children of every node in the order of `key` by relinking the sibling lists
/// (node ids do not change). Big trees are checked and sorted on all cores, each thread
/// taking a range of parents, and relinked on this one.
fn sort_children<K: Ord + Send>(
    slots: &mut [Slot],
    index: &mut FxHashMap<(NodeId, NameId), NodeId>,
    indexed: &[u64],
    key: impl Fn(&Slot) -> K + Sync,
) {
    let n = slots.len();
    let threads = if n < 200_000 {
        1
    } else {
        crate::profile::worker_threads()
    };
    let shared: &[Slot] = slots;
    let key = &key;
    let orders: Vec<Vec<(usize, Vec<u32>)>> = if threads == 1 {
        vec![sorted_families(shared, 0..n, key)]
    } else {
        // Families are handed out in blocks, small at first and growing as the square of
        // their number: the wide families sit at low ids (made by the first samples), so
        // equal shares of the ids left one thread with most of the work.
        let blocks = threads * 64;
        let bound = |b: usize| (n as u128 * (b * b) as u128 / (blocks * blocks) as u128) as usize;
        let next = std::sync::atomic::AtomicUsize::new(0);
        let next = &next;
        std::thread::scope(|scope| {
            let parts: Vec<_> = (0..threads)
                .map(|_| {
                    spawn_or_run(scope, move || {
                        let mut out = Vec::new();
                        loop {
                            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if b >= blocks {
                                break out;
                            }
                            let range = bound(b)..bound(b + 1);
                            out.append(&mut sorted_families(shared, range, key));
                        }
                    })
                })
                .collect();
            parts.into_iter().map(Job::join).collect()
        })
    };
    for (p, order) in orders.into_iter().flatten() {
        let (Some(&first), Some(&tail)) = (order.first(), order.last()) else {
            continue;
        };
        slots[p].first_child = first;
        for w in order.windows(2) {
            slots[w[0] as usize].next_sibling = w[1];
        }
        slots[tail as usize].next_sibling = NONE;
        if indexed.get(p / 64).is_some_and(|w| w >> (p % 64) & 1 == 1) {
            let parent = NodeId(u32::try_from(p).unwrap_or(NONE));
            index.insert((parent, TAIL), NodeId(tail));
        }
    }
}

/// The new child order of every parent in `parents` whose children are not in the order
/// of `key` already.
fn sorted_families<K: Ord>(
    slots: &[Slot],
    parents: std::ops::Range<usize>,
    key: &impl Fn(&Slot) -> K,
) -> Vec<(usize, Vec<u32>)> {
    let mut out = Vec::new();
    let mut keyed: Vec<(K, u32)> = Vec::new();
    for p in parents {
        let first = slots[p].first_child;
        if first == NONE || slots[first as usize].next_sibling == NONE {
            continue;
        }
        keyed.clear();
        let mut c = first;
        while c != NONE {
            keyed.push((key(&slots[c as usize]), c));
            c = slots[c as usize].next_sibling;
        }
        if keyed.is_sorted_by(|a, b| a.0 <= b.0) {
            continue;
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        out.push((p, keyed.iter().map(|k| k.1).collect()));
    }
    out
}
