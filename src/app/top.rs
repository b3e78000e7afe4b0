//! Stage: application state — `flametui top`. Each refresh interval read from perf comes
//! in as a profile; it goes into a [`Ring`], and what is shown is the ring summed as the
//! [`LiveMode`] says: everything so far, the last N refreshes, perf top's decay, or the
//! last N against the N before (a comparison, in the differential colours). Switching
//! the mode sums the ring again at once; freezing keeps reading but holds the screen.
//! Zoom, selection and search survive each refresh by stack path (the explorer's
//! `replace_profile`), as they do for any stream.

use std::sync::Arc;
use std::time::Duration;

pub use super::action::Facts;
use super::compare::View;
use super::explorer::Explorer;
use super::recording::say;
use super::show::{compare_pair, show_profile};
use super::{App, Phase};
use crate::profile::metrics::MetricShelf;
use crate::profile::ring::{Combined, Interval, LiveMode, Ring, RingLimits};
use crate::profile::{CallTree, NodeId, Profile, SampleTable, Stats};

/// The refreshes the samples-per-second figure is taken over.
pub const RATE_OVER: usize = 5;

/// The state of a running `top`.
#[derive(Debug)]
pub struct TopState {
    ring: Ring,
    /// How the ring is summed.
    pub mode: LiveMode,
    /// The window of `Window` and `Diff`, in refreshes.
    pub window: u32,
    /// Refreshes read while frozen, not shown yet.
    pub pending: u32,
    /// Samples per second over the last few refreshes ([`RATE_OVER`]).
    pub rate: u64,
    /// The last few refreshes' samples and lengths, newest last.
    recent: std::collections::VecDeque<(u64, Duration)>,
    /// Samples perf lost, in all.
    pub lost: u64,
    /// The newest refresh's facts.
    pub last: Facts,
    /// Since `top` started, now (the shell's clock, for "updated N s ago").
    pub now: Duration,
    /// The event, unit and format of the recording (from its first refresh).
    stats: Option<Stats>,
    /// Said once the first profile shows (the call-graph mode and why).
    pub note: Option<String>,
}

impl TopState {
    /// A `top` starting in `mode`, its window `window` refreshes.
    pub fn new(mode: LiveMode, window: u32, note: String) -> Self {
        Self {
            ring: Ring::new(RingLimits::default()),
            mode,
            window: window.max(1),
            pending: 0,
            rate: 0,
            recent: std::collections::VecDeque::new(),
            lost: 0,
            last: Facts::default(),
            now: Duration::ZERO,
            stats: None,
            note: Some(note),
        }
    }

    /// The ring.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// The mode's name, as the badge shows it.
    pub fn mode_label(&self) -> String {
        match self.mode {
            LiveMode::Accumulate => format!("accumulate {} refreshes", self.ring.refreshes()),
            LiveMode::Window(n) => format!("window {n}"),
            LiveMode::Decay => "decay ×7/8".to_owned(),
            LiveMode::Diff(n) => format!("diff last {n} vs {n} before"),
        }
    }

    /// The mode in a word or two, for a narrow badge.
    pub fn mode_short(&self) -> String {
        match self.mode {
            LiveMode::Accumulate => "accumulate".to_owned(),
            LiveMode::Window(n) => format!("window {n}"),
            LiveMode::Decay => "decay".to_owned(),
            LiveMode::Diff(n) => format!("diff {n}"),
        }
    }

    /// The refreshes a window or diff can cover.
    pub fn most_window(&self) -> u32 {
        u32::try_from(self.ring.limits().fine).unwrap_or(u32::MAX)
    }
}

/// Whether `action` is one of `top`'s: its refreshes, clock, modes, window, and `z`
/// while `top` runs.
pub fn handles(app: &App, action: &super::Action) -> bool {
    use super::Action;
    match action {
        Action::TopInterval(_) | Action::TopTick(_) | Action::TopMode(_) | Action::TopWindow(_) => {
            true
        }
        Action::ToggleFreeze => app.top.is_some(),
        _ => false,
    }
}

/// Applies one of `top`'s actions (others are ignored).
pub fn apply(app: &mut App, action: super::Action) {
    use super::Action;
    match action {
        Action::TopInterval(refresh) => {
            let (profile, facts) = *refresh;
            push(app, profile, facts);
        }
        Action::TopTick(now) => tick(app, now),
        Action::TopMode(m) => set_mode(app, m),
        Action::TopWindow(longer) => resize_window(app, longer),
        Action::ToggleFreeze => toggle_freeze(app),
        _ => {}
    }
}

/// A refresh came: into the ring, and on screen unless frozen.
pub fn push(app: &mut App, profile: Profile, facts: Facts) {
    let Some(top) = app.top.as_mut() else {
        return;
    };
    // A refresh is cut when perf's data comes, a quarter second either way: the rate is
    // taken over a few.
    top.recent.push_back((profile.stats.samples, facts.wall));
    if top.recent.len() > RATE_OVER {
        top.recent.pop_front();
    }
    let (n, wall) = top
        .recent
        .iter()
        .fold((0, Duration::ZERO), |(n, w), &(s, d)| (n + s, w + d));
    top.rate =
        u64::try_from(u128::from(n) * 1_000_000 / wall.as_micros().max(1)).unwrap_or(u64::MAX);
    top.lost += profile.stats.lost_samples;
    top.last = facts;
    top.now = facts.at;
    if top.stats.is_none() || profile.stats.event.is_some() {
        let mut s = Stats {
            format: profile.stats.format,
            unit: profile.stats.unit.clone(),
            event: profile.stats.event.clone(),
            ..Stats::default()
        };
        s.event_order.clone_from(&profile.stats.event_order);
        top.stats = Some(s);
    }
    let lost = profile.stats.lost_samples;
    let (tree, samples) = compact(&profile.tree, profile.samples);
    top.ring.push(Interval::new(tree, samples, lost));
    if app.frozen {
        top.pending += 1;
    } else {
        show(app);
    }
}

/// A refresh's tree with the names it uses only, and its samples moved onto it. The
/// reader's tree keeps every name seen since the start (its ids stay valid while it
/// reads), and each refresh cut from it would otherwise carry all of them.
fn compact(tree: &CallTree, samples: Arc<SampleTable>) -> (CallTree, SampleTable) {
    let mut small = CallTree::with_scale(tree.scale());
    let map = small.merge_from_mapped(tree);
    let mut samples = Arc::try_unwrap(samples).unwrap_or_else(|s| (*s).clone());
    samples.relabel(|_, s| map.get(s.leaf.0 as usize).copied().unwrap_or(NodeId::ROOT));
    (small, samples)
}

/// The shell's clock moved on.
pub fn tick(app: &mut App, now: Duration) {
    if let Some(top) = app.top.as_mut() {
        top.now = now;
    }
}

/// Switches the mode (`1`–`4`), keeping the window.
pub fn set_mode(app: &mut App, which: u8) {
    let Some(top) = app.top.as_mut() else {
        return not_top(app);
    };
    top.mode = match which {
        1 => LiveMode::Accumulate,
        2 => LiveMode::Window(top.window),
        3 => LiveMode::Decay,
        _ => LiveMode::Diff(top.window),
    };
    show(app);
}

/// `<` `>`: a shorter or longer window (1 to the fine ring's length).
pub fn resize_window(app: &mut App, longer: bool) {
    let Some(top) = app.top.as_mut() else {
        return not_top(app);
    };
    let most = top.most_window();
    top.window = if longer {
        (top.window + 1).min(most)
    } else {
        top.window.saturating_sub(1).max(1)
    };
    top.mode = match top.mode {
        LiveMode::Window(_) => LiveMode::Window(top.window),
        LiveMode::Diff(_) => LiveMode::Diff(top.window),
        other => other,
    };
    show(app);
}

/// `z` in `top`: holds the screen (refreshes go on into the ring), or shows the newest.
pub fn toggle_freeze(app: &mut App) {
    app.frozen = !app.frozen;
    if !app.frozen {
        show(app);
    }
}

/// The keys of `top` pressed elsewhere.
fn not_top(app: &mut App) {
    say(app, "1–4 and < > switch the modes of `flametui top`");
}

/// Puts the ring, summed as the mode says, on screen.
fn show(app: &mut App) {
    let Some(top) = app.top.as_mut() else {
        return;
    };
    top.pending = 0;
    let stats = top.stats.clone().unwrap_or_default();
    let note = top.note.take();
    let profile = |iv: Interval, label: &str| -> Profile {
        let mut stats = stats.clone();
        stats.samples = iv.tree.node(crate::profile::NodeId::ROOT).samples;
        stats.lost_samples = iv.lost;
        Profile {
            metrics: crate::profile::metrics::Metrics::default(),
            samples: Arc::new(iv.samples),
            source: format!("perf top · {label}"),
            tree: iv.tree,
            stats,
        }
    };
    let label = top.mode_label();
    match top.ring.view(top.mode) {
        Combined::One(iv) => {
            // Out of a diff: the AFTER side's explorer goes on, with its zoom and selection.
            let loading = Phase::Loading(super::Progress::default());
            match std::mem::replace(&mut app.phase, loading) {
                Phase::Compare(cmp) => app.phase = Phase::Ready(Box::new(cmp.after.into())),
                other => app.phase = other,
            }
            show_profile(app, Box::new(profile(iv, &label)));
        }
        Combined::Two { before, after } => {
            let before = profile(before, "before");
            let after = profile(after, "after");
            if let Phase::Compare(cmp) = &mut app.phase {
                // The metric shelves name what the sides show: a stale one would be put
                // back by the view's reconciliation.
                let (b, sb) = MetricShelf::new(before);
                let (a, sa) = MetricShelf::new(after);
                app.metrics = vec![sb, sa];
                cmp.replace(b, a, &mut app.mode);
            } else {
                let (mut cmp, _) = compare_pair(app, before, after);
                cmp.view = View::Differential;
                cmp.graph_view = View::Differential;
                // Into a diff: the explorer on screen becomes the AFTER side, keeping its
                // zoom and selection.
                if let Phase::Ready(ready) = &mut app.phase {
                    let shown = Arc::clone(&cmp.after.profile);
                    let ex: &mut Explorer = ready;
                    let mut old = std::mem::replace(ex, Explorer::shared(Arc::clone(&shown)));
                    old.replace_profile(shown, &app.view, &mut app.mode);
                    cmp.after = old;
                }
                app.phase = Phase::Compare(Box::new(cmp));
            }
            app.source = format!("perf top · {label}");
        }
    }
    if let Some(note) = note {
        say(app, &note);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Action, Dir, update};
    use crate::view::Target;
    use crate::view::color::ColorMode;

    /// A refresh of folded stacks, each line one sample (its count the weight).
    fn refresh(folded: &str) -> Action {
        let mut p = Profile::from_folded(folded).unwrap();
        let mut samples = SampleTable::default();
        let task = samples.task("t", Some(1), Some(1));
        let mut t = 0;
        let leaves: Vec<(NodeId, u64)> = p
            .tree
            .ids()
            .filter(|&id| p.tree.self_weight(id) > 0)
            .map(|id| (id, p.tree.self_weight(id)))
            .collect();
        for (leaf, w) in leaves {
            t += 1;
            samples.push(Some(t), task, leaf, w);
        }
        p.stats.samples = samples.len() as u64;
        p.samples = Arc::new(samples);
        let facts = Facts {
            wall: Duration::from_secs(1),
            at: Duration::from_secs(t),
            cpu: Some(0.01),
        };
        Action::TopInterval(Box::new((p, facts)))
    }

    fn app(mode: LiveMode) -> App {
        let mut app = App::loading("perf top", ColorMode::Mono);
        app.top = Some(TopState::new(mode, 2, "note".to_owned()));
        update(&mut app, Action::Resize(100, 30));
        app
    }

    fn total(app: &App) -> u64 {
        app.explorer().unwrap().profile.tree.total()
    }

    fn selected(app: &App) -> String {
        let ex = app.explorer().unwrap();
        match ex.selected {
            Target::Frame(id) => ex.profile.tree.path_string(id),
            Target::Span { .. } => "span".to_owned(),
        }
    }

    #[test]
    fn modes_are_sums_of_the_refreshes_and_switch_at_once() {
        let mut app = app(LiveMode::Accumulate);
        for f in ["main;a 1\n", "main;b 2\n", "main;a 4\n"] {
            update(&mut app, refresh(f));
        }
        assert_eq!(total(&app), 7, "accumulate");
        assert_eq!(app.top.as_ref().unwrap().rate, 1, "1 sample a second");
        update(&mut app, Action::TopMode(2));
        assert_eq!(total(&app), 6, "the last 2 refreshes");
        update(&mut app, Action::TopWindow(false));
        assert_eq!(total(&app), 4, "the last one");
        update(&mut app, Action::TopMode(3));
        // 1 × (7/8)² + 2 × 7/8 + 4, in thousandths, each frame's own rounded: 766 + 1750
        // + 4000.
        assert_eq!(total(&app), 6_516);
        update(&mut app, Action::TopMode(4));
        let cmp = app.comparison().expect("diff is a comparison");
        assert_eq!(cmp.view, View::Differential);
        assert_eq!(cmp.before.profile.tree.total(), 2);
        assert_eq!(cmp.after.profile.tree.total(), 4);
        update(&mut app, refresh("main;c 8\n"));
        let cmp = app.comparison().unwrap();
        assert_eq!(
            cmp.before.profile.tree.total(),
            4,
            "sides replaced in place"
        );
        assert_eq!(cmp.after.profile.tree.total(), 8);
        update(&mut app, Action::TopMode(1));
        assert!(!app.comparing());
        assert_eq!(total(&app), 15);
    }

    #[test]
    fn selection_survives_refreshes_and_modes_by_path() {
        let mut app = app(LiveMode::Accumulate);
        update(&mut app, refresh("main;a 1\nmain;b 2\n"));
        update(&mut app, Action::Move(Dir::Down));
        update(&mut app, Action::Move(Dir::Down));
        let path = selected(&app);
        assert!(path.starts_with("main;"), "{path}");
        update(&mut app, refresh("main;z 5\nmain;a 1\nmain;b 1\n"));
        assert_eq!(selected(&app), path, "a new refresh");
        update(&mut app, Action::TopMode(4));
        let driver = app.comparison().unwrap().driver();
        let Target::Frame(id) = driver.selected else {
            panic!("a frame")
        };
        assert_eq!(driver.profile.tree.path_string(id), path, "into diff");
        update(&mut app, Action::TopMode(2));
        assert_eq!(selected(&app), path, "out of diff");
    }

    #[test]
    fn freezing_holds_the_screen_and_counts_what_waits() {
        let mut app = app(LiveMode::Accumulate);
        update(&mut app, refresh("main;a 1\n"));
        update(&mut app, Action::ToggleFreeze);
        update(&mut app, refresh("main;a 2\n"));
        update(&mut app, refresh("main;a 3\n"));
        assert_eq!(total(&app), 1);
        assert_eq!(app.top.as_ref().unwrap().pending, 2);
        update(&mut app, Action::ToggleFreeze);
        assert_eq!(total(&app), 6);
        assert_eq!(app.top.as_ref().unwrap().pending, 0);
    }

    #[test]
    fn refreshes_keep_only_their_own_names() {
        let mut big = CallTree::new();
        big.insert(["main", "used"], 3);
        big.insert(["main", "gone"], 0);
        for i in 0..100 {
            big.intern(&format!("unused{i}"));
        }
        let mut samples = SampleTable::default();
        let task = samples.task("t", None, Some(1));
        let leaf = big.child_named(big.child_named(NodeId::ROOT, "main").unwrap(), "used");
        samples.push(Some(1), task, leaf.unwrap(), 3);
        let (small, samples) = compact(&big, Arc::new(samples));
        assert!(small.names().len() < 10, "{}", small.names().len());
        let s = samples.samples()[0];
        assert_eq!(small.path_string(s.leaf), "main;used");
    }
}
