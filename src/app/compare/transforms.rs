//! Stage: application state — the transform stack in compare mode. A transform (exclude,
//! focus, hide, collapse recursion, bottom-up, order, undo) applies to BOTH profiles, and
//! the comparison (Δ per frame, delta table) is rebuilt from the profiles as read.

use std::sync::Arc;

use super::Compare;
use crate::app::tools::ToolAction;
use crate::app::transforms::TransformStack;
use crate::profile::NodeId;
use crate::profile::transform::Transform;
use crate::view::Target;

impl Compare {
    /// Applies a tool action that changes the view of both profiles; other tools are not
    /// available while comparing. Returns whether the comparison was rebuilt.
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
        let changed = match action {
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
        };
        if changed {
            self.reapply(view);
        }
        changed
    }

    /// Rebuilds the comparison from the profiles as read, through `view`; the view kind
    /// and the active side are kept.
    fn reapply(&mut self, view: &TransformStack) {
        let (before, after) = self.originals.take().unwrap_or_else(|| {
            (
                Arc::clone(&self.before.profile),
                Arc::clone(&self.after.profile),
            )
        });
        let mut fresh = Compare::shared(view.apply_shared(&before), view.apply_shared(&after));
        fresh.view = self.view;
        fresh.graph_view = self.graph_view;
        fresh.active = self.active;
        fresh.size = self.size;
        fresh.originals = Some((before, after));
        *self = fresh;
    }
}
