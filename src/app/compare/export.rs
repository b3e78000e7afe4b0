//! Stage: compare state → bytes. `e` while comparing writes the differential view: the
//! lines `stack before after` of both sides as shown (after the transforms, inside the
//! zoom), or inferno's differential SVG of them, chosen by the file's extension as in the
//! single-profile view.

use std::path::{Path, PathBuf};

use super::Compare;
use super::follow::twin;
use crate::app::effects::{Effect, ExportKind, default_export_name};
use crate::export;
use crate::profile::{CallTree, NodeId};
use crate::view::clip::clip;

impl Compare {
    /// The name the export prompt suggests: `before-vs-after.svg`, or `name-diff.svg` for
    /// two ranges of one recording.
    pub(crate) fn export_name(&self) -> String {
        let stem = |source: &str| {
            let name = default_export_name(source);
            name.strip_suffix(".svg").unwrap_or(&name).to_owned()
        };
        let (b, a) = (&self.before.profile.source, &self.after.profile.source);
        if b == a {
            format!("{}-diff.svg", stem(b))
        } else {
            format!("{}-vs-{}.svg", stem(b), stem(a))
        }
    }

    /// Both trees as shown: after the transforms and, when zoomed, the stacks inside the
    /// zoom (a side without the zoomed frame's path has none of them).
    pub(crate) fn shown_trees(&self) -> (CallTree, CallTree) {
        let d = self.driver();
        if d.zoom.root == NodeId::ROOT {
            return (
                self.before.profile.tree.clone(),
                self.after.profile.tree.clone(),
            );
        }
        let other = self.side(self.driver_side().other());
        let (_, exact) = twin(&d.profile.tree, d.zoom.root, &other.profile.tree);
        let mine = clip(&d.profile.tree, &d.index, &d.zoom);
        let theirs = if exact {
            clip(&other.profile.tree, &other.index, &other.zoom)
        } else {
            let mut empty = CallTree::with_scale(other.profile.tree.scale());
            empty.finish();
            empty
        };
        match self.driver_side() {
            super::Side::Before => (mine, theirs),
            super::Side::After => (theirs, mine),
        }
    }

    /// Writes the differential view to `path`: `stack before after` lines (`.folded`,
    /// `.txt`) or inferno's differential SVG (`.svg`).
    ///
    /// # Errors
    /// An unknown extension, an empty view, or inferno's own error.
    pub(crate) fn export_effect(&self, path: &str, replace: bool) -> Result<Effect, String> {
        let kind = ExportKind::of(path)?;
        let (before, after) = self.shown_trees();
        if before.is_empty() && after.is_empty() {
            return Err("Nothing to export: the view is empty".to_owned());
        }
        let lines = export::diff_folded_lines(&before, &after);
        let mut bytes = Vec::new();
        let what = match kind {
            ExportKind::Folded => {
                export::write_lines(&mut bytes, &lines, export::Destination::Data)
                    .map_err(|e| e.to_string())?;
                format!("{} differential stacks", lines.len())
            }
            ExportKind::Svg => {
                let unit = self.after.profile.stats.unit.to_string();
                export::diff_svg(&before, &after, &self.export_title(), &unit, &mut bytes)
                    .map_err(|e| e.to_string())?;
                format!("differential SVG of {} stacks", lines.len())
            }
        };
        Ok(Effect::Write {
            path: PathBuf::from(path),
            bytes,
            what,
            replace,
        })
    }

    /// `before → after · transforms · zoom: frame`.
    fn export_title(&self) -> String {
        let file = |source: &str| {
            Path::new(source)
                .file_name()
                .map_or_else(|| source.to_owned(), |f| f.to_string_lossy().into_owned())
        };
        let (b, a) = (&self.before.profile.source, &self.after.profile.source);
        let mut parts = vec![if b == a {
            format!("{}: BEFORE → AFTER", file(b))
        } else {
            format!("{} → {}", file(b), file(a))
        }];
        let view = self.applied().summary();
        if !view.is_empty() {
            parts.push(view);
        }
        let d = self.driver();
        if d.zoom.root != NodeId::ROOT {
            parts.push(format!("zoom: {}", d.shown_frame(d.zoom.root)));
        }
        parts.join(" · ")
    }
}
