//! Stage: application state — a profile put on screen: the first opens the explorer, a
//! newer one (a live snapshot, the whole input, a refresh of `top`) replaces it keeping
//! zoom, selection and search by stack path; two open a comparison.

use std::sync::Arc;

use super::compare::Compare;
use super::explorer::Explorer;
use super::{App, Phase};
use crate::profile::Profile;
use crate::profile::metrics::MetricShelf;

/// Shows a (newer) profile: the first one opens the explorer; later ones (live snapshots,
/// then the whole input) replace the tree while keeping zoom, selection and search by
/// stack path. While frozen, the newest is held back.
pub(super) fn show_profile(app: &mut App, profile: Box<Profile>) {
    if app.frozen && matches!(app.phase, Phase::Ready(_)) {
        app.pending = Some(profile);
        return;
    }
    app.source.clone_from(&profile.source);
    let (profile, shelf) = MetricShelf::new(*profile);
    app.metrics = vec![shelf];
    if let Phase::Ready(ex) = &mut app.phase {
        // The viewer's own replacement (a new snapshot of a stream), not the widget's.
        let ex: &mut Explorer = ex;
        ex.replace_profile(profile, &app.view, &mut app.mode);
    } else {
        let ex = Explorer::with_view_shared(profile, &app.view);
        app.phase = Phase::Ready(Box::new(ex.into()));
    }
    // A recording's note, and its end once the stream is whole.
    super::recording::shown(app, app.streaming.is_none());
}

/// The two inputs of a comparison, on the same metric where the input has several: AFTER
/// takes BEFORE's when it has it, else BEFORE takes AFTER's; a note when they differ.
pub(super) fn compare_pair(
    app: &mut App,
    before: Profile,
    after: Profile,
) -> (Compare, Option<String>) {
    let (mut b, mut sb) = MetricShelf::new(before);
    let (mut a, mut sa) = MetricShelf::new(after);
    let mut note = None;
    if sb.name() != sa.name() {
        if let Some(i) = sb.name().and_then(|n| sa.position(n)) {
            sa.shown = i;
            a = Arc::clone(&sa.profiles[i]);
        } else if let Some(i) = sa.name().and_then(|n| sb.position(n)) {
            sb.shown = i;
            b = Arc::clone(&sb.profiles[i]);
        }
        if sb.name() != sa.name() {
            note = Some(
                crate::text::sanitize(&format!(
                    "Different metrics: BEFORE {}, AFTER {}",
                    b.metric_label(),
                    a.metric_label()
                ))
                .into_owned(),
            );
        }
    }
    app.metrics = vec![sb, sa];
    (Compare::shared(b, a), note)
}
