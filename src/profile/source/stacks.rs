//! The stacks of source lines of a profile's samples, interned: each sample keeps a `u32`
//! (beside it in the sample table) for the lines of its frames, so the lines of any set of
//! samples (a time range, some tasks) are summed again exactly, as the tree's weights are.

use std::hash::{BuildHasher, Hash};

use super::Line;

/// Interned stacks of lines, leaf first, each up to its last frame with a line. Stack 0 is
/// the empty one (a sample without lines).
#[derive(Debug, Clone)]
pub(super) struct Stacks {
    /// Every stack's lines, one after another.
    lines: Vec<Option<Line>>,
    /// Where each stack ends in `lines` (it begins where the one before ends).
    ends: Vec<u32>,
    /// Stack ids by the hash of their lines.
    table: hashbrown::HashTable<u32>,
}

impl Default for Stacks {
    fn default() -> Self {
        Self {
            lines: Vec::new(),
            ends: vec![0],
            table: hashbrown::HashTable::new(),
        }
    }
}

/// Stack `id` of `lines` cut at `ends` (empty for an unknown id).
fn stack_in<'a>(lines: &'a [Option<Line>], ends: &[u32], id: u32) -> &'a [Option<Line>] {
    let i = id as usize;
    match (i.checked_sub(1).and_then(|p| ends.get(p)), ends.get(i)) {
        (Some(&start), Some(&end)) => lines.get(start as usize..end as usize).unwrap_or(&[]),
        _ => &[],
    }
}

fn hash(lines: &[Option<Line>]) -> u64 {
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    lines.hash(&mut h);
    std::hash::Hasher::finish(&h)
}

impl Stacks {
    /// The lines of stack `id`, leaf first (empty for an unknown id).
    pub(super) fn get(&self, id: u32) -> &[Option<Line>] {
        stack_in(&self.lines, &self.ends, id)
    }

    /// The id of stack `lines` (leaf first; trailing frames without a line are dropped),
    /// added on first sight; 0 when no frame has a line.
    pub(super) fn intern(&mut self, lines: &[Option<Line>]) -> u32 {
        let used = lines.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        let lines = &lines[..used];
        if lines.is_empty() {
            return 0;
        }
        let h = hash(lines);
        let Self {
            lines: all,
            ends,
            table,
        } = self;
        let found = table.find(h, |&id| stack_in(all, ends, id) == lines);
        if let Some(&id) = found {
            return id;
        }
        let (Ok(id), Ok(end)) = (
            u32::try_from(ends.len()),
            u32::try_from(all.len() + lines.len()),
        ) else {
            // Past 4 G lines: the sample keeps none (its figures stay in the totals).
            return 0;
        };
        all.extend_from_slice(lines);
        ends.push(end);
        table.insert_unique(h, id, |&id| hash(stack_in(all, ends, id)));
        id
    }

    /// How many stacks, the empty one included.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::source::FileId;

    #[test]
    fn equal_stacks_share_an_id_and_read_back() {
        let mut stacks = Stacks::default();
        let l = |n| {
            Some(Line {
                file: FileId(0),
                number: n,
            })
        };
        assert_eq!(stacks.intern(&[None, None]), 0);
        let first = stacks.intern(&[l(3), None, l(5), None]);
        let again = stacks.intern(&[l(3), None, l(5)]);
        let other = stacks.intern(&[l(3)]);
        assert_eq!((first, again), (1, 1));
        assert_eq!(other, 2);
        assert_eq!(stacks.get(first), [l(3), None, l(5)]);
        assert_eq!(stacks.get(other), [l(3)]);
        assert_eq!(stacks.get(0), []);
        assert_eq!(stacks.get(99), []);
        assert_eq!(stacks.len(), 3);
    }
}
