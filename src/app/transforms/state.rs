//! The state of this screen: plain data and pure functions, below the explorer
//! (which holds it) in the import order.

use std::sync::Arc;

use regex::Regex;

use crate::profile::group::{Group, regroup, tasks_label};
use crate::profile::order::{self, Order};
use crate::profile::slice::{Slice, range_label};
use crate::profile::transform::{self, Transform};
use crate::profile::{CallTree, Profile, SampleTable};
use crate::text::sanitize;

/// The slice of the recording (time range, tasks) and what its towers stand for, then
/// transforms in the order they apply, then inversion, then sibling order.
#[derive(Debug, Clone, Default)]
pub struct TransformStack {
    /// Which samples are shown: a time range and a set of tasks (profiles with a sample
    /// table only; the tree of the slice is summed from the samples).
    pub slice: Slice,
    /// What the root frames stand for: thread names (as read), processes, threads, or
    /// thread names with digits folded (profiles with a sample table only).
    pub group: Group,
    /// Exclude / focus / hide / collapse recursion, oldest first.
    pub transforms: Vec<Transform>,
    /// Bottom-up view: leaves become roots (applied after the transforms).
    pub inverted: bool,
    /// Sibling order.
    pub order: Order,
    /// What `u` goes back to, last change last: the view before each change still undoable.
    history: Vec<Shown>,
    /// The function selected as the view stands (the shell notes it after each action), kept
    /// with each change so that `u` selects it again.
    selection: Option<String>,
    /// Set by `u`: the function selected before the step undone, to select again.
    pub(crate) reselect: Option<String>,
}

/// What a view shows, without its history: what `u` restores.
#[derive(Debug, Clone)]
struct Shown {
    slice: Slice,
    group: Group,
    transforms: Vec<Transform>,
    inverted: bool,
    order: Order,
    /// The function selected then (not part of what is shown).
    selected: Option<String>,
}

impl TransformStack {
    /// A stack from command-line transforms; `Transform::Invert` becomes the bottom-up toggle.
    pub fn new(transforms: Vec<Transform>, order: Order) -> Self {
        let mut stack = Self {
            order,
            ..Self::default()
        };
        for t in transforms {
            if matches!(t, Transform::Invert) {
                stack.toggle_invert();
            } else {
                stack.push(t);
            }
        }
        stack
    }

    /// Bottom-up on or off (undoable).
    pub fn toggle_invert(&mut self) {
        self.change(|s| s.inverted = !s.inverted);
    }

    /// The other sibling order (undoable).
    pub fn toggle_order(&mut self) {
        self.change(|s| s.order = s.order.toggled());
    }

    fn shown(&self) -> Shown {
        Shown {
            slice: self.slice.clone(),
            group: self.group,
            transforms: self.transforms.clone(),
            inverted: self.inverted,
            order: self.order,
            selected: self.selection.clone(),
        }
    }

    fn restore(&mut self, shown: Shown) {
        let Shown {
            slice,
            group,
            transforms,
            inverted,
            order,
            selected,
        } = shown;
        self.reselect = selected;
        (self.slice, self.group, self.transforms) = (slice, group, transforms);
        (self.inverted, self.order) = (inverted, order);
    }

    /// Makes a change undoable: `u` restores exactly the view before it. A change that
    /// leads back to a view still in the history (`r r`, `o o`) ends the detour there, so
    /// `u` never walks through views the user came back from.
    fn change(&mut self, f: impl FnOnce(&mut Self)) {
        self.reselect = None;
        let before = self.shown();
        f(self);
        if same_view(before.parts(), self.parts()) {
            return;
        }
        let now = self.parts();
        match self.history.iter().position(|s| same_view(s.parts(), now)) {
            Some(i) => self.history.truncate(i),
            None => self.history.push(before),
        }
    }

    /// True when the view is the profile as read.
    pub fn is_identity(&self) -> bool {
        self.slice.is_everything()
            && self.group == Group::ThreadName
            && self.transforms.is_empty()
            && !self.inverted
            && self.order == Order::Alpha
    }

    /// Forgets every slice, the one shown and those `u` would restore: they name times
    /// and tasks of one sample table (another metric's samples have their own).
    pub fn forget_slices(&mut self) {
        self.slice = Slice::default();
        // Steps that only changed the slice are no steps any more.
        let mut kept: Vec<Shown> = Vec::with_capacity(self.history.len());
        for mut shown in std::mem::take(&mut self.history) {
            shown.slice = Slice::default();
            if !kept
                .last()
                .is_some_and(|k| same_view(k.parts(), shown.parts()))
            {
                kept.push(shown);
            }
        }
        while kept
            .last()
            .is_some_and(|k| same_view(k.parts(), self.parts()))
        {
            kept.pop();
        }
        self.history = kept;
    }

    /// Shows `slice` of the recording instead (undoable).
    pub fn set_slice(&mut self, slice: Slice) {
        self.change(|s| s.slice = slice);
    }

    /// Groups the towers by `group` instead (undoable); nothing when it is the grouping.
    pub fn set_group(&mut self, group: Group) {
        self.change(|s| s.group = group);
    }

    /// Adds a transform on top (undoable).
    pub fn push(&mut self, t: Transform) {
        self.change(|s| s.transforms.push(t));
    }

    /// Undoes the last change — a slice, a grouping, a transform, bottom-up or the order;
    /// false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.history.pop() {
            Some(before) => {
                self.restore(before);
                true
            }
            None => false,
        }
    }

    /// Notes the function selected now: a change made next remembers it for `u`.
    pub fn note_selection(&mut self, name: Option<&str>) {
        if self.selection.as_deref() != name {
            self.selection = name.map(str::to_owned);
        }
    }

    /// How many changes `u` can undo.
    pub fn undoable(&self) -> usize {
        self.history.len()
    }

    /// The tree as shown: transforms, inversion, order.
    pub fn apply_tree(&self, tree: &CallTree) -> CallTree {
        self.apply_tree_until(tree, &|| false).unwrap_or_default()
    }

    /// As [`TransformStack::apply_tree`], asking `stop` before each step (each transform
    /// rebuilds the tree): `None` once it says to stop.
    pub fn apply_tree_until(&self, tree: &CallTree, stop: &dyn Fn() -> bool) -> Option<CallTree> {
        let invert = Transform::Invert;
        let all = self
            .transforms
            .iter()
            .chain(self.inverted.then_some(&invert));
        let mut out: Option<CallTree> = None;
        for t in all {
            if stop() {
                return None;
            }
            out = Some(transform::apply(out.as_ref().unwrap_or(tree), t));
        }
        if stop() {
            return None;
        }
        let mut out = out.unwrap_or_else(|| tree.clone());
        order::sort(&mut out, self.order);
        Some(out)
    }

    /// True when both show the same: the same slice, grouping, transforms, inversion and order,
    /// however they came about (`r r` shows what was shown before it).
    pub fn shows_the_same(&self, other: &TransformStack) -> bool {
        same_view(self.parts(), other.parts())
    }

    /// The profile as shown (source and stats kept).
    pub fn apply(&self, profile: &Profile) -> Profile {
        Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: std::sync::Arc::default(),
            source: profile.source.clone(),
            tree: self
                .apply_profile_until(profile, &|| false)
                .unwrap_or_default(),
            stats: profile.stats.clone(),
        }
    }

    /// The tree shown of `profile`: its slice with its towers grouped (when it has
    /// samples), then the rest of the view, asking `stop` between steps.
    pub fn apply_profile_until(
        &self,
        profile: &Profile,
        stop: &dyn Fn() -> bool,
    ) -> Option<CallTree> {
        let as_read = self.slice.is_everything() && self.group == Group::ThreadName;
        if as_read || profile.samples.is_empty() {
            return self.apply_tree_until(&profile.tree, stop);
        }
        let sliced = regroup(&profile.tree, &profile.samples, &self.slice, self.group);
        if stop() {
            return None;
        }
        self.apply_tree_until(&sliced, stop)
    }

    /// As [`TransformStack::apply`], sharing the profile itself when the view is the
    /// profile as read (no copy of the tree).
    pub fn apply_shared(&self, profile: &Arc<Profile>) -> Arc<Profile> {
        if self.is_identity() {
            Arc::clone(profile)
        } else {
            Arc::new(self.apply(profile))
        }
    }

    /// Short labels of the slice, the grouping and the transforms, oldest first (for
    /// breadcrumbs), sanitized: `37.20–37.40 s`, `by process`, `exclude my_sync`.
    pub fn crumbs(&self) -> Vec<String> {
        self.crumbs_in(None)
    }

    /// As [`TransformStack::crumbs`], the task set named from `table` (the sample table
    /// of the profile as read): `sysw-sort 17349` rather than `1 task`.
    pub fn crumbs_named(&self, table: &SampleTable) -> Vec<String> {
        self.crumbs_in(Some(table))
    }

    fn crumbs_in(&self, table: Option<&SampleTable>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(range) = self.slice.range {
            out.push(range_label(range));
        }
        if let Some(tasks) = &self.slice.tasks {
            let n = tasks.len();
            out.push(match table {
                Some(t) => sanitize(&tasks_label(t, tasks)).into_owned(),
                None => format!("{n} task{}", if n == 1 { "" } else { "s" }),
            });
        }
        out.extend(self.group.crumb().map(str::to_owned));
        out.extend(self.transforms.iter().map(label));
        out
    }

    /// The toggles that differ from the default: `bottom-up`, `by weight`.
    pub fn flags(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.inverted {
            out.push("bottom-up");
        }
        if self.order == Order::Weight {
            out.push("by weight");
        }
        out
    }

    /// Everything as one line: `exclude my_sync › bottom-up` (empty for the identity).
    pub fn summary(&self) -> String {
        self.summary_of(self.crumbs())
    }

    /// As [`TransformStack::summary`], the task set named from `table` (see
    /// [`TransformStack::crumbs_named`]).
    pub fn summary_named(&self, table: &SampleTable) -> String {
        self.summary_of(self.crumbs_named(table))
    }

    fn summary_of(&self, mut parts: Vec<String>) -> String {
        parts.extend(self.flags().into_iter().map(str::to_owned));
        parts.join(" › ")
    }
}

/// A view's parts, borrowed, to compare views without copying them.
#[derive(Clone, Copy)]
struct Parts<'a> {
    slice: &'a Slice,
    group: Group,
    transforms: &'a [Transform],
    inverted: bool,
    order: Order,
}

impl Shown {
    fn parts(&self) -> Parts<'_> {
        Parts {
            slice: &self.slice,
            group: self.group,
            transforms: &self.transforms,
            inverted: self.inverted,
            order: self.order,
        }
    }
}

impl TransformStack {
    fn parts(&self) -> Parts<'_> {
        Parts {
            slice: &self.slice,
            group: self.group,
            transforms: &self.transforms,
            inverted: self.inverted,
            order: self.order,
        }
    }
}

fn same_view(a: Parts<'_>, b: Parts<'_>) -> bool {
    a.slice == b.slice
        && a.group == b.group
        && a.inverted == b.inverted
        && a.order == b.order
        && a.transforms.len() == b.transforms.len()
        && a.transforms
            .iter()
            .zip(b.transforms)
            .all(|(x, y)| same_transform(x, y))
}

fn same_transform(a: &Transform, b: &Transform) -> bool {
    match (a, b) {
        (Transform::Exclude(x), Transform::Exclude(y))
        | (Transform::Focus(x), Transform::Focus(y))
        | (Transform::Hide(x), Transform::Hide(y))
        | (Transform::CollapseLibrary(x), Transform::CollapseLibrary(y)) => {
            x.as_str() == y.as_str()
        }
        (Transform::CollapseRecursion, Transform::CollapseRecursion)
        | (Transform::MergeInlined, Transform::MergeInlined)
        | (Transform::Invert, Transform::Invert) => true,
        _ => false,
    }
}

/// A regex matching exactly `name`, case-sensitively.
///
/// # Errors
/// The name is too long for the regex engine's size limit.
pub fn exact(name: &str) -> Result<Regex, regex::Error> {
    Regex::new(&exact_pattern(name))
}

fn exact_pattern(name: &str) -> String {
    format!("^{}$", regex::escape(name))
}

/// The name a regex made by [`exact`] stands for.
fn exact_name(re: &Regex) -> Option<String> {
    let inner = re.as_str().strip_prefix('^')?.strip_suffix('$')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            c if regex_syntax_char(c) => return None,
            c => out.push(c),
        }
    }
    (exact_pattern(&out) == re.as_str()).then_some(out)
}

fn regex_syntax_char(c: char) -> bool {
    matches!(
        c,
        '.' | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

/// A transform as a breadcrumb: `exclude my_sync` for an exact name (demangled:
/// `focus do_command(THD*)`), else `exclude /re/`.
pub fn label(t: &Transform) -> String {
    let named = |verb: &str, re: &Regex| match exact_name(re) {
        Some(name) => format!("{verb} {}", sanitize(&crate::symbol::demangle(&name))),
        None => format!("{verb} /{}/", sanitize(re.as_str())),
    };
    match t {
        Transform::Exclude(re) => named("exclude", re),
        Transform::Focus(re) => named("focus", re),
        Transform::Hide(re) => named("hide", re),
        Transform::CollapseLibrary(re) => named("collapse lib", re),
        Transform::CollapseRecursion => "collapse recursion".to_owned(),
        Transform::MergeInlined => "merge inlined".to_owned(),
        Transform::Invert => "bottom-up".to_owned(),
    }
}
