//! Stage: application state — a comparison whose two sides are replaced live (the diff
//! mode of `flametui top`): each side keeps its zoom, selection and search by stack path,
//! and the changes, their colours and the delta table are computed again.

use std::sync::Arc;

use super::{Compare, DeltaTable, Mode};
use crate::profile::Profile;
use crate::profile::diff::{function_deltas, points_by_node};

impl Compare {
    /// Shows `before` and `after` in place of the two sides.
    pub fn replace(&mut self, before: Arc<Profile>, after: Arc<Profile>, mode: &mut Mode) {
        let view = self.applied.clone();
        self.before.replace_profile(before, &view, mode);
        self.after.replace_profile(after, &view, mode);
        let (b, a) = (&self.before.profile.tree, &self.after.profile.tree);
        self.points = [points_by_node(b, a, false), points_by_node(a, b, true)];
        self.max_points = self
            .points
            .iter()
            .flatten()
            .fold(0.0_f64, |m, p| m.max(p.abs()));
        let kept = self.table.selected;
        self.table = DeltaTable::new(function_deltas(b, a));
        self.table.selected = kept.min(self.table.rows.len().saturating_sub(1));
        self.refresh(self.size, mode);
    }
}
