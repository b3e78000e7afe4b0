//! Stage: application state — what is shown of a profile: a stack of transforms (exclude,
//! focus, hide, collapse recursion) the user can undo, the bottom-up toggle and the sibling
//! order. The view is always recomputed from the original profile, one transform after the
//! other, so undoing is exact. Recomputing is a [`ViewJob`]: plain inputs (the shared
//! original, the view) and a pure [`ViewJob::build`], which `app::jobs` runs at once or has
//! the shell run on another thread; `Explorer::adopt` then shows the result. Compare mode
//! applies the same stack to both sides.

use std::sync::Arc;

use super::explorer::Explorer;
use crate::profile::{NodeId, Profile};
use crate::view::Target;

pub use state::*;

pub mod state;

/// Recomputing what an explorer shows through a view, with its inputs owned, so that it
/// can run on another thread while keys keep working on what is shown.
#[derive(Debug, Clone)]
pub struct ViewJob {
    /// The profile as read.
    pub original: Arc<Profile>,
    /// The view to show it through.
    pub view: TransformStack,
    /// The search to run on the result: query, case-insensitive.
    search: (String, bool),
    /// The function selected, to select again (its heaviest frame).
    keep: Option<String>,
}

/// A view recomputed by [`ViewJob::build`], for `Explorer::adopt`.
#[derive(Debug)]
pub struct BuiltView {
    fresh: Explorer,
    original: Option<Arc<Profile>>,
    view: TransformStack,
    /// The function to select and its heaviest frame in the new tree.
    keep: Option<(String, Option<NodeId>)>,
    /// `keep` is the function selected before the step undone: selected whatever is now.
    reselect: bool,
}

impl ViewJob {
    /// Computes the view: transforms, inversion, order, then the index and totals, the
    /// search and the frame to select. `stop` is asked between these stages: once it says
    /// so, the work is abandoned and nothing is returned.
    pub fn build(self, stop: &dyn Fn() -> bool) -> Option<BuiltView> {
        let ViewJob {
            original,
            view,
            search,
            keep,
        } = self;
        let shown = if view.is_identity() {
            Arc::clone(&original)
        } else {
            Arc::new(Profile {
                metrics: crate::profile::metrics::Metrics::default(),
                samples: std::sync::Arc::default(),
                source: original.source.clone(),
                tree: view.apply_profile_until(&original, stop)?,
                stats: original.stats.clone(),
            })
        };
        if stop() {
            return None;
        }
        let mut fresh = Explorer::shared(shown);
        if stop() {
            return None;
        }
        (fresh.search.query, fresh.search.ignore_case) = search;
        fresh.run_search();
        let tree = &fresh.profile.tree;
        let keep = keep.map(|name| {
            let id = tree
                .names()
                .lookup(&name)
                .and_then(|n| fresh.index.heaviest(n));
            (name, id)
        });
        let reselect = view.reselect.is_some();
        Some(BuiltView {
            fresh,
            original: (!view.is_identity()).then_some(original),
            view,
            keep,
            reselect,
        })
    }
}

impl Explorer {
    /// A new explorer showing `profile` (shared: a metric on the shelf) through `view`.
    pub fn with_view_shared(original: Arc<Profile>, view: &TransformStack) -> Self {
        if view.is_identity() {
            return Explorer::shared(original);
        }
        let job = ViewJob {
            original: Arc::clone(&original),
            view: view.clone(),
            search: (String::new(), false),
            keep: None,
        };
        // Never stopped, so always built; the profile as read otherwise.
        match job.build(&|| false) {
            Some(built) => {
                let mut ex = built.fresh;
                ex.tools.original = built.original;
                ex.tools.applied = built.view;
                ex
            }
            None => Explorer::shared(original),
        }
    }

    /// What recomputing the view through `view` needs: the original profile, the search
    /// and the selected function.
    pub(crate) fn view_job(&self, view: &TransformStack) -> ViewJob {
        let keep = match self.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(self.profile.tree.name(id).to_owned()),
            _ => None,
        };
        let keep = view.reselect.clone().or(keep);
        ViewJob {
            original: Arc::clone(self.tools.original.as_ref().unwrap_or(&self.profile)),
            view: view.clone(),
            search: (self.search.query.clone(), self.search.ignore_case),
            keep,
        }
    }

    /// As [`Explorer::view_job`], on another profile as read (another metric of the input).
    pub(crate) fn view_job_of(&self, original: Arc<Profile>, view: &TransformStack) -> ViewJob {
        ViewJob {
            original,
            ..self.view_job(view)
        }
    }

    /// Recomputes what is shown from the original profile through `view`, here and now.
    pub(crate) fn apply_view(&mut self, view: &TransformStack) {
        if let Some(built) = self.view_job(view).build(&|| false) {
            self.adopt(built);
        }
    }

    /// Shows a recomputed view. Zoom history is reset; the search typed meanwhile is run
    /// again (the job ran the one typed before); the selected function stays selected (its
    /// heaviest frame) when it is still there. Returns what was shown, to be freed.
    pub(crate) fn adopt(&mut self, built: BuiltView) -> Explorer {
        let BuiltView {
            mut fresh,
            original,
            view,
            keep,
            reselect,
        } = built;
        let selected = match self.selected {
            Target::Frame(id) if id != NodeId::ROOT => Some(self.profile.tree.name(id).to_owned()),
            _ => None,
        };
        let searched = (fresh.search.query.as_str(), fresh.search.ignore_case)
            == (self.search.query.as_str(), self.search.ignore_case);
        if !searched {
            fresh.search.query = std::mem::take(&mut self.search.query);
            fresh.search.ignore_case = self.search.ignore_case;
        }
        fresh.flame = self.flame;
        fresh.tools = std::mem::take(&mut self.tools);
        fresh.tools.original = original;
        fresh.tools.applied = view;
        fresh.tools.rebuilt();
        let old = std::mem::replace(self, fresh);
        if !searched {
            self.run_search();
        }
        let id = match (selected, keep) {
            (_, Some((_, Some(id)))) if reselect => Some(id),
            (Some(name), Some((kept, id))) if name == kept => id,
            (Some(name), _) => self
                .profile
                .tree
                .names()
                .lookup(&name)
                .and_then(|n| self.index.heaviest(n)),
            (None, _) => None,
        };
        if let Some(id) = id {
            self.selected = Target::Frame(id);
        }
        old
    }

    /// The profile before the view's transforms.
    pub fn original(&self) -> &Profile {
        self.tools.original.as_deref().unwrap_or(&self.profile)
    }

    /// As [`Explorer::original`], shared.
    pub fn original_shared(&self) -> &Arc<Profile> {
        self.tools.original.as_ref().unwrap_or(&self.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::folded_lines;
    use crate::profile::CallTree;
    use crate::profile::group::Group;
    use crate::profile::order::Order;
    use crate::profile::transform::Transform;
    use regex::Regex;

    fn profile(stacks: &[(&str, u64)]) -> Profile {
        let mut t = CallTree::new();
        for (s, w) in stacks {
            t.insert(s.split(';'), *w);
        }
        t.finish();
        Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: std::sync::Arc::default(),
            source: "t".into(),
            tree: t,
            stats: crate::profile::Stats::default(),
        }
    }

    const SEED: &[(&str, u64)] = &[
        ("mysqld;commit;sync_binlog;my_sync;fsync", 37),
        ("mysqld;commit;flush;fsync", 31),
        ("mysqld;select;exec", 32),
    ];

    #[test]
    fn stack_applies_in_order_and_undoes_exactly() {
        let p = profile(SEED);
        let mut s = TransformStack::default();
        assert!(s.is_identity());
        s.push(Transform::Exclude(exact("my_sync").unwrap()));
        s.push(Transform::Focus(exact("commit").unwrap()));
        assert_eq!(folded_lines(&s.apply(&p).tree), ["commit;flush;fsync 31"]);
        assert_eq!(s.crumbs(), ["exclude my_sync", "focus commit"]);
        assert!(s.undo());
        assert_eq!(s.apply(&p).tree.total(), 63);
        assert!(s.undo());
        assert!(!s.undo());
        assert_eq!(folded_lines(&s.apply(&p).tree), folded_lines(&p.tree));
    }

    #[test]
    fn invert_and_order_come_last() {
        let p = profile(SEED);
        let mut s = TransformStack::new(
            vec![Transform::Invert, Transform::Hide(exact("commit").unwrap())],
            Order::Weight,
        );
        assert!(s.inverted);
        assert_eq!(s.transforms.len(), 1);
        let t = s.apply(&p).tree;
        let roots: Vec<&str> = t.children(NodeId::ROOT).map(|c| t.name(c)).collect();
        assert_eq!(roots, ["fsync", "exec"]);
        assert_eq!(s.summary(), "hide commit › bottom-up › by weight");
        // u undoes the last change, toggles included, newest first (the order given on
        // the command line is a setting, not a change).
        s.toggle_order();
        assert_eq!(s.order, Order::Alpha);
        assert!(s.undo());
        assert_eq!(s.order, Order::Weight);
        assert!(s.undo());
        assert!(s.inverted && s.transforms.is_empty());
        assert!(s.undo());
        assert!(!s.inverted);
        assert!(!s.undo());
        s.order = Order::Alpha;
        assert!(s.is_identity());
    }

    #[test]
    fn a_grouping_is_a_crumb_and_undone_like_a_transform() {
        let mut s = TransformStack::default();
        s.set_group(Group::ThreadName);
        assert!(!s.undo(), "the grouping it has is no change");
        s.set_group(Group::Process);
        s.push(Transform::CollapseRecursion);
        assert_eq!(s.crumbs(), ["by process", "collapse recursion"]);
        assert!(!s.is_identity());
        assert!(!s.shows_the_same(&TransformStack::default()));
        assert!(s.undo() && s.undo());
        assert_eq!(s.group, Group::ThreadName);
        assert!(s.is_identity());
        // Without a sample table there is nothing to regroup: the tree as read.
        let p = profile(SEED);
        s.set_group(Group::Thread);
        assert_eq!(folded_lines(&s.apply(&p).tree), folded_lines(&p.tree));
    }

    #[test]
    fn labels_show_names_or_regexes() {
        assert_eq!(
            label(&Transform::Exclude(exact("a.b(c)").unwrap())),
            "exclude a.b(c)"
        );
        assert_eq!(
            label(&Transform::Hide(Regex::new("^my_.*").unwrap())),
            "hide /^my_.*/"
        );
        assert_eq!(
            label(&Transform::Focus(exact("x\u{1b}y").unwrap())),
            "focus x\\x1by"
        );
        assert_eq!(
            label(&Transform::Focus(exact("_Z10do_commandP3THD").unwrap())),
            "focus do_command(THD*)"
        );
        assert_eq!(label(&Transform::CollapseRecursion), "collapse recursion");
        assert!(exact("a+b").unwrap().is_match("a+b") && !exact("a+b").unwrap().is_match("aab"));
        assert!(!exact("f").unwrap().is_match("ff"));
    }
}
