//! Stage: profile → one metric of several. An input may weigh each stack several ways:
//! the events of a multi-event `perf script`, the sample types of a pprof profile
//! (`samples` and `cpu`, or the four of a heap profile), the on- and off-CPU halves of a
//! SystemTap profile. Each metric is a whole [`Profile`] of its own (its tree, unit and
//! sample table: weights of two metrics are never added); the one shown carries the
//! others in [`Profile::metrics`], and switching rotates them.

use super::Profile;

/// The metrics of the input a profile was read from.
#[derive(Debug, Clone, Default)]
pub struct Metrics {
    /// The name of every metric, in the input's order; empty when the input has one.
    pub names: Vec<String>,
    /// Which of `names` this profile is.
    pub shown: usize,
    /// The profiles of the other metrics, in the order of `names` without the shown one.
    pub others: Vec<Profile>,
}

/// The name by which the metric of the pseudo-frames `[on-cpu]` / `[off-cpu]` side by
/// side (SystemTap's default view) is picked.
pub const BOTH_HALVES: &str = "on+off-cpu";

impl Profile {
    /// The names of every metric of the input (empty when it has one).
    pub fn metric_names(&self) -> &[String] {
        &self.metrics.names
    }

    /// The name of the metric shown, when the input has several.
    pub fn metric_name(&self) -> Option<&str> {
        self.metrics
            .names
            .get(self.metrics.shown)
            .map(String::as_str)
    }

    /// What its weights are, for a message: its metric's name, else its unit.
    pub fn metric_label(&self) -> String {
        self.stats
            .metric
            .as_ref()
            .map_or_else(|| self.stats.unit.to_string(), |m| m.name.clone())
    }

    /// This profile with `others` as the other metrics of its input: `names` in order,
    /// this one at `shown`.
    #[must_use]
    pub fn with_metrics(mut self, names: Vec<String>, shown: usize, others: Vec<Profile>) -> Self {
        debug_assert_eq!(names.len(), others.len() + 1);
        let place = |index: usize| {
            Some(super::MetricPlace {
                name: names.get(index).cloned().unwrap_or_default(),
                index,
                count: names.len(),
            })
        };
        self.stats.metric = place(shown);
        let mut others = others;
        for (i, o) in others.iter_mut().enumerate() {
            o.stats.metric = place(if i < shown { i } else { i + 1 });
        }
        self.metrics = Metrics {
            names,
            shown,
            others,
        };
        self
    }

    /// This profile and the profiles of its other metrics, each through `f` (transforms
    /// and sorting given on the command line hold for every metric).
    #[must_use]
    pub fn map_metrics(mut self, mut f: impl FnMut(Profile) -> Profile) -> Profile {
        let mut metrics = std::mem::take(&mut self.metrics);
        metrics.others = metrics.others.into_iter().map(&mut f).collect();
        let mut p = f(self);
        p.metrics = metrics;
        p
    }

    /// The profile of metric `index` (of [`Profile::metric_names`]), carrying the others
    /// (this one among them). An index out of range gives this profile back.
    #[must_use]
    pub fn into_metric(mut self, index: usize) -> Profile {
        let Metrics {
            names,
            shown,
            others,
        } = std::mem::take(&mut self.metrics);
        if index == shown || index >= names.len() || others.len() + 1 != names.len() {
            self.metrics = Metrics {
                names,
                shown,
                others,
            };
            return self;
        }
        let mut all = others;
        all.insert(shown, self);
        let mut picked = all.remove(index);
        picked.metrics = Metrics {
            names,
            shown: index,
            others: all,
        };
        picked
    }

    /// The profile of the metric named `name`.
    ///
    /// # Errors
    /// This profile back, when no metric is `name` (its [`Profile::metric_names`] are
    /// the ones there are).
    pub fn into_metric_named(self, name: &str) -> Result<Profile, Box<Self>> {
        match self.metrics.names.iter().position(|n| n == name) {
            Some(i) => Ok(self.into_metric(i)),
            None => Err(Box::new(self)),
        }
    }

    /// The profile of the metric after the shown one (the first after the last).
    #[must_use]
    pub fn into_next_metric(self) -> Profile {
        let n = self.metrics.names.len();
        if n < 2 {
            return self;
        }
        let next = (self.metrics.shown + 1) % n;
        self.into_metric(next)
    }
}

/// The metrics of one input as the viewer holds them: every metric's profile shared, so
/// that switching costs no copy of a tree.
#[derive(Debug, Clone, Default)]
pub struct MetricShelf {
    /// The metrics' names (empty when the input has one).
    pub names: Vec<String>,
    /// The metric shown.
    pub shown: usize,
    /// Every metric's profile, by the index of its name (without [`Profile::metrics`]).
    pub profiles: Vec<std::sync::Arc<Profile>>,
}

impl MetricShelf {
    /// Shelves `p`'s metrics; the profile shown is returned with it (shared).
    pub fn new(mut p: Profile) -> (std::sync::Arc<Profile>, MetricShelf) {
        let Metrics {
            names,
            shown,
            others,
        } = std::mem::take(&mut p.metrics);
        let shown_profile = std::sync::Arc::new(p);
        let mut profiles: Vec<std::sync::Arc<Profile>> =
            others.into_iter().map(std::sync::Arc::new).collect();
        let shown = shown.min(profiles.len());
        profiles.insert(shown, std::sync::Arc::clone(&shown_profile));
        let shelf = MetricShelf {
            names,
            shown,
            profiles,
        };
        (shown_profile, shelf)
    }

    /// The name of the metric shown, when there are several.
    pub fn name(&self) -> Option<&str> {
        self.names.get(self.shown).map(String::as_str)
    }

    /// The index of metric `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Whether metric `i` has any weight to show.
    pub fn has_weight(&self, i: usize) -> bool {
        self.profiles.get(i).is_some_and(|p| p.tree.total() > 0)
    }

    /// `2/3 sched:sched_switch`: where the metric shown is among them.
    pub fn label(&self) -> String {
        format!(
            "{}/{} {}",
            self.shown + 1,
            self.names.len(),
            self.name().unwrap_or_default()
        )
    }
}

/// The next metric to show after the one shown: its index, with the names of metrics
/// passed over because they have no weight. `None` when there is no other to show.
pub fn next_metric(shelf: &MetricShelf) -> (Option<usize>, Vec<String>) {
    let n = shelf.names.len();
    let mut passed = Vec::new();
    for step in 1..n {
        let i = (shelf.shown + step) % n;
        if shelf.has_weight(i) {
            return (Some(i), passed);
        }
        passed.push(shelf.names[i].clone());
    }
    (None, passed)
}

/// The next metric both sides of a comparison have (by name, in BEFORE's order, then
/// AFTER's own): the indexes on each side, with the names passed over because one side
/// lacks them or has no weight in them. Sides without several metrics have none.
pub fn next_common_metric(
    before: &MetricShelf,
    after: &MetricShelf,
) -> (Option<(usize, usize)>, Vec<String>) {
    let mut order: Vec<&String> = before.names.iter().collect();
    order.extend(after.names.iter().filter(|n| !before.names.contains(n)));
    let n = order.len();
    let current = before.name().or(after.name());
    let at = current
        .and_then(|c| order.iter().position(|n| *n == c))
        .unwrap_or(0);
    let mut passed = Vec::new();
    for step in 1..n {
        let name = order[(at + step) % n];
        match (before.position(name), after.position(name)) {
            (Some(b), Some(a)) if before.has_weight(b) && after.has_weight(a) => {
                return (Some((b, a)), passed);
            }
            _ => passed.push(name.clone()),
        }
    }
    (None, passed)
}

/// The metric names of SystemTap's halves: both side by side (the default), each alone.
pub const HALF_METRICS: [&str; 3] = [BOTH_HALVES, "on-cpu", "off-cpu"];

/// A SystemTap profile with on- and off-CPU halves ([`super::scope::is_halved`]) with
/// each half as a metric of its own besides both side by side (each half's tree is
/// its stacks without the pseudo-frame, in its own unit); any other profile as it is.
#[must_use]
pub fn split_halves(p: Profile) -> Profile {
    use super::scope::{OFF_CPU, ON_CPU, is_halved};
    use super::tree::NodeId;
    use super::{Unit, samples::SampleTable};
    if !is_halved(&p.tree) {
        return p;
    }
    let half = |name: &str, unit: Unit| -> Profile {
        let mut tree = p.tree.empty_like();
        let mut samples = 0;
        if let Some(id) = p.tree.child_named(NodeId::ROOT, name) {
            let half = p.tree.node(id).name;
            p.tree.for_each_stack(|stack, w, n| {
                if let Some((&first, rest)) = stack.split_first()
                    && first == half
                {
                    tree.insert_ids_counted(rest.iter().copied(), w, n);
                    samples += n;
                }
            });
        }
        tree.finish();
        let mut stats = p.stats.clone();
        stats.offcpu_samples = if name == OFF_CPU { samples } else { 0 };
        stats.samples = samples;
        stats.unit = unit;
        Profile {
            source: p.source.clone(),
            tree,
            stats,
            samples: std::sync::Arc::new(SampleTable::default()),
            metrics: Metrics::default(),
        }
    };
    let on = half(ON_CPU, Unit::Samples);
    let off = half(
        OFF_CPU,
        Unit::Metric {
            name: "off-cpu".to_owned(),
            unit: "script units (usually µs)".to_owned(),
        },
    );
    let names = HALF_METRICS.iter().map(|&n| n.to_owned()).collect();
    p.with_metrics(names, 0, vec![on, off])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{CallTree, Stats};

    fn profile(stack: &str, weight: u64) -> Profile {
        let mut tree = CallTree::new();
        tree.insert(stack.split(';'), weight);
        tree.finish();
        Profile {
            source: "x".into(),
            tree,
            stats: Stats::default(),
            samples: std::sync::Arc::default(),
            metrics: Metrics::default(),
        }
    }

    fn three() -> Profile {
        let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        profile("b", 2).with_metrics(names, 1, vec![profile("a", 1), profile("c", 3)])
    }

    #[test]
    fn rotating_keeps_every_metric_with_its_own_tree() {
        let p = three();
        assert_eq!(p.metric_name(), Some("b"));
        assert_eq!(p.tree.total(), 2);
        let p = p.into_next_metric();
        assert_eq!((p.metric_name(), p.tree.total()), (Some("c"), 3));
        let p = p.into_next_metric();
        assert_eq!((p.metric_name(), p.tree.total()), (Some("a"), 1));
        assert_eq!(p.metrics.others.len(), 2);
        let totals: Vec<u64> = p.metrics.others.iter().map(|o| o.tree.total()).collect();
        assert_eq!(totals, [2, 3], "the others stay in the order of the names");
        let p = p.into_next_metric();
        assert_eq!((p.metric_name(), p.tree.total()), (Some("b"), 2));
    }

    #[test]
    fn picking_by_name_and_out_of_range() {
        let p = three().into_metric_named("a").unwrap();
        assert_eq!(p.tree.total(), 1);
        let p = p.into_metric(7);
        assert_eq!(p.metric_name(), Some("a"));
        let err = p.into_metric_named("nope").unwrap_err();
        assert_eq!(err.metric_names(), ["a", "b", "c"]);
        let single = profile("x", 1).into_next_metric();
        assert_eq!(single.metric_name(), None);
        assert!(single.metric_names().is_empty());
    }
}
