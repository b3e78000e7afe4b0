//! What an input turned out to hold: one profile, or the two sides of a differential file.

use crate::error::{Error, Result};
use crate::profile::Profile;

/// What an input turned out to hold.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // made once per input
pub enum Loaded {
    /// One profile.
    Single(Profile),
    /// A differential folded file: the BEFORE and AFTER profiles.
    Diff {
        /// First count of each line.
        before: Profile,
        /// Second count of each line.
        after: Profile,
    },
}

impl Loaded {
    /// Applies transforms to every tree of the input.
    #[must_use]
    pub fn transformed(self, ts: &[crate::profile::transform::Transform]) -> Loaded {
        if ts.is_empty() {
            return self;
        }
        let apply = |mut p: Profile| {
            p.tree = crate::profile::transform::apply_all(&p.tree, ts);
            p
        };
        match self {
            Loaded::Single(p) => Loaded::Single(p.map_metrics(apply)),
            Loaded::Diff { before, after } => Loaded::Diff {
                before: apply(before),
                after: apply(after),
            },
        }
    }

    /// Every tree of the input with its mangled names demangled, when `on` (`--demangle`
    /// for the text outputs, which otherwise keep the input's names).
    #[must_use]
    pub fn demangled(self, on: bool) -> Loaded {
        if !on {
            return self;
        }
        let apply = |mut p: Profile| {
            p.tree = crate::profile::transform::renamed(&p.tree, crate::symbol::demangle);
            p
        };
        match self {
            Loaded::Single(p) => Loaded::Single(p.map_metrics(apply)),
            Loaded::Diff { before, after } => Loaded::Diff {
                before: apply(before),
                after: apply(after),
            },
        }
    }

    /// Orders the siblings of every tree of the input.
    #[must_use]
    pub fn sorted(mut self, order: crate::profile::order::Order) -> Loaded {
        if order == crate::profile::order::Order::Alpha {
            return self; // trees are finished alphabetical
        }
        match &mut self {
            Loaded::Single(p) => {
                crate::profile::order::sort(&mut p.tree, order);
                for o in &mut p.metrics.others {
                    crate::profile::order::sort(&mut o.tree, order);
                }
            }
            Loaded::Diff { before, after } => {
                crate::profile::order::sort(&mut before.tree, order);
                crate::profile::order::sort(&mut after.tree, order);
            }
        }
        self
    }

    /// The sample records of the main profile (none for a differential file).
    pub fn samples(&self) -> &crate::profile::samples::SampleTable {
        &self.main().samples
    }

    /// The (AFTER, for a differential file) profile.
    pub fn main(&self) -> &Profile {
        match self {
            Loaded::Single(p) | Loaded::Diff { after: p, .. } => p,
        }
    }

    /// This input as one side of a comparison of two inputs (the text modes and the
    /// viewer both ask here, so they refuse alike).
    ///
    /// # Errors
    /// [`Error::DiffAsSide`] for a differential folded file: which of its columns is meant
    /// cannot be known.
    pub fn side(&self) -> Result<&Profile> {
        match self {
            Loaded::Single(p) => Ok(p),
            Loaded::Diff { after, .. } => Err(diff_as_side(after)),
        }
    }

    /// [`Loaded::side`], taking the input.
    ///
    /// # Errors
    /// As [`Loaded::side`].
    pub fn into_side(self) -> Result<Profile> {
        match self {
            Loaded::Single(p) => Ok(p),
            Loaded::Diff { after, .. } => Err(diff_as_side(&after)),
        }
    }
}

pub(super) fn diff_as_side(p: &Profile) -> Error {
    Error::DiffAsSide {
        source_name: p.source.clone(),
    }
}
