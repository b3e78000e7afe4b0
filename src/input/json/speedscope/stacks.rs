//! A sampled profile's `samples` decoded into one vector of frame indices, without a
//! `Vec` per sample.

use serde::Deserialize;

/// Every sample's frame indices, root first, in one vector: a `Vec` per sample would cost
/// a 24-byte header and a heap block each (a third of the memory of a py-spy file's
/// samples), and as many allocations.
#[derive(Debug, Default)]
pub(crate) struct Stacks {
    frames: Vec<u32>,
    /// Where each sample's frames end in `frames`.
    ends: Vec<usize>,
}

impl Stacks {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Each sample's frames.
    pub(super) fn iter(&self) -> impl Iterator<Item = &[u32]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(a, b)| self.frames.get(a..b).unwrap_or_default())
    }
}

impl<'de> Deserialize<'de> for Stacks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Outer;
        impl<'de> serde::de::Visitor<'de> for Outer {
            type Value = Stacks;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of arrays of frame indices")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Stacks, A::Error> {
                let mut s = Stacks::default();
                while seq.next_element_seed(Append(&mut s.frames))?.is_some() {
                    s.ends.push(s.frames.len());
                }
                Ok(s)
            }
        }
        d.deserialize_seq(Outer)
    }
}

/// Appends one sample's frame indices.
struct Append<'a>(&'a mut Vec<u32>);

impl<'de> serde::de::DeserializeSeed<'de> for Append<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Append<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of frame indices")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(i) = seq.next_element::<u32>()? {
            self.0.push(i);
        }
        Ok(())
    }
}
