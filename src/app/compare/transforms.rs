//! Stage: application state — the transform stack in compare mode. A transform (exclude,
//! focus, hide, collapse recursion, bottom-up, order, undo) applies to BOTH profiles, and
//! the comparison (Δ per frame, delta table) is rebuilt from the profiles as read.

use std::sync::Arc;

use super::Compare;
use crate::app::action::ToolAction;
use crate::app::transforms::TransformStack;
use crate::profile::transform::Transform;
use crate::profile::{NodeId, Profile};
use crate::view::Target;

impl Compare {
    /// Applies a tool action that changes the view of both profiles to `view` (what is
    /// shown follows: see `app::jobs`); other tools are not available while comparing.
    /// Returns whether the view changed.
    pub fn transform(&mut self, view: &mut TransformStack, action: &ToolAction) -> bool {
        let named = |make: fn(regex::Regex) -> Transform, c: &Compare| {
            let ex = c.driver();
            let Target::Frame(id) = ex.selected else {
                return None;
            };
            (id != NodeId::ROOT)
                .then(|| {
                    crate::app::transforms::exact(ex.profile.tree.name(id))
                        .ok()
                        .map(make)
                })
                .flatten()
        };
        match action {
            ToolAction::Exclude => named(Transform::Exclude, self)
                .map(|t| view.push(t))
                .is_some(),
            ToolAction::Focus => named(Transform::Focus, self)
                .map(|t| view.push(t))
                .is_some(),
            ToolAction::Hide => named(Transform::Hide, self).map(|t| view.push(t)).is_some(),
            ToolAction::CollapseRecursion => {
                view.push(Transform::CollapseRecursion);
                true
            }
            ToolAction::MergeInlined => {
                view.push(Transform::MergeInlined);
                true
            }
            ToolAction::Undo => view.undo(),
            ToolAction::Invert => {
                view.toggle_invert();
                true
            }
            ToolAction::Order => {
                view.toggle_order();
                true
            }
            _ => false,
        }
    }

    /// The view both sides are shown through.
    pub fn applied(&self) -> &TransformStack {
        &self.applied
    }

    /// Nodes of the two profiles as read: what recomputing the view costs.
    pub fn nodes(&self) -> usize {
        let (b, a) = self.originals();
        b.tree.len() + a.tree.len()
    }

    /// The two profiles as read (before the view).
    pub(crate) fn originals(&self) -> (&Arc<Profile>, &Arc<Profile>) {
        match &self.originals {
            Some((b, a)) => (b, a),
            None => (&self.before.profile, &self.after.profile),
        }
    }

    /// What recomputing both sides through `view` needs.
    pub(crate) fn view_job(&self, view: &TransformStack) -> CompareJob {
        let (b, a) = self.originals();
        CompareJob {
            originals: (Arc::clone(b), Arc::clone(a)),
            view: view.clone(),
        }
    }

    /// Shows a rebuilt comparison, keeping the view kind and the active side; returns the
    /// one shown before, to be freed.
    pub(crate) fn adopt(&mut self, mut fresh: Compare) -> Compare {
        fresh.view = self.view;
        fresh.graph_view = self.graph_view;
        fresh.active = self.active;
        fresh.size = self.size;
        std::mem::replace(self, fresh)
    }
}

/// Recomputing both sides of a comparison through a view, with its inputs owned (for
/// another thread).
#[derive(Debug, Clone)]
pub struct CompareJob {
    originals: (Arc<Profile>, Arc<Profile>),
    /// The view to show both through.
    pub view: TransformStack,
}

impl CompareJob {
    /// Comparing `originals` (before, after) through `view`.
    pub fn new(originals: (Arc<Profile>, Arc<Profile>), view: TransformStack) -> Self {
        Self { originals, view }
    }

    /// The two profiles as read that it compares.
    pub fn originals(&self) -> (&Arc<Profile>, &Arc<Profile>) {
        (&self.originals.0, &self.originals.1)
    }

    /// Both sides through the view, and the comparison of them; `stop` is asked between
    /// the stages (`None` once it says to stop).
    pub fn build(self, stop: &dyn Fn() -> bool) -> Option<Compare> {
        let (before, after) = self.originals;
        let side = |p: &Arc<Profile>| -> Option<Arc<Profile>> {
            if self.view.is_identity() {
                return Some(Arc::clone(p));
            }
            Some(Arc::new(Profile {
                metrics: crate::profile::metrics::Metrics::default(),
                samples: std::sync::Arc::default(),
                source: p.source.clone(),
                tree: self.view.apply_profile_until(p, stop)?,
                stats: p.stats.clone(),
            }))
        };
        let (b, a) = (side(&before)?, side(&after)?);
        if stop() {
            return None;
        }
        let mut fresh = Compare::shared(b, a);
        fresh.originals = Some((before, after));
        fresh.applied = self.view;
        Some(fresh)
    }
}
