//! Stage: application state — where a tool action goes: to the explorer's tools, to the
//! comparison of two profiles, or between them (two ranges of the heat map compared, and
//! back). The one place that knows both the explorer's screens and the comparison.

use super::action::ToolAction;
use super::compare::{Compare, Home};
use super::state::PromptKind;
use super::tools::{
    NOT_WHILE_COMPARING, close, open_prompt, shell_report, text_key, typed_exclude, update_explorer,
};
use super::transforms::TransformStack;
use super::{App, Mode, Phase, Progress};
use crate::profile::Profile;
use crate::profile::group::{Group, regroup};
use crate::profile::slice::{Slice, range_label};

/// Applies a tool action (in compare mode, the transforms apply to both profiles).
pub fn update(app: &mut App, action: ToolAction) {
    // Two ranges of one recording: the comparison replaces the explorer, and `T` brings
    // it back.
    if action == ToolAction::HeatKey(super::heat::state::HeatKey::Compare) {
        if let Err(m) = compare_ranges(app)
            && let Phase::Ready(ex) = &mut app.phase
        {
            ex.tools.message = Some(m);
        }
        return;
    }
    if action == ToolAction::Heat && go_home(app) {
        return;
    }
    if let Phase::Compare(cmp) = &mut app.phase
        && !matches!(action, ToolAction::HelpScroll(_))
    {
        if app.mode == Mode::Help {
            return;
        }
        if app.mode == Mode::Finder {
            let rows = super::compare::finder::list_rows(cmp);
            cmp.finder_key(&action, &mut app.mode, rows);
            return;
        }
        if app.mode == Mode::Prompt || matches!(action, ToolAction::Exists(_)) {
            let App {
                mode,
                view,
                effects,
                size,
                ..
            } = app;
            compare_prompt_key(cmp, mode, (view, effects), action, size.width);
            return;
        }
        let ex = cmp.driver_mut();
        ex.tools.message = None;
        match action {
            ToolAction::Finder => cmp.open_finder(&mut app.mode),
            ToolAction::Notify(message) => ex.tools.message = Some(message),
            ToolAction::ExcludeRegex => {
                open_prompt(ex, &mut app.mode, PromptKind::Exclude, String::new());
            }
            ToolAction::Export => {
                let name = cmp.export_name();
                open_prompt(cmp.driver_mut(), &mut app.mode, PromptKind::Export, name);
            }
            ToolAction::CopyName | ToolAction::CopyStack => {
                match ex.copy_effect(action == ToolAction::CopyStack) {
                    Ok(e) => app.effects.push(e),
                    Err(m) => ex.tools.message = Some(m),
                }
            }
            a if a.works_while_comparing() => {
                // What is shown follows the view (`app::jobs`), which says what it shows.
                if !cmp.transform(&mut app.view, &a) && a == ToolAction::Undo {
                    cmp.driver_mut().tools.message = Some("Nothing to undo".to_owned());
                }
            }
            other => {
                let key = super::keymap::key_of(&other);
                ex.tools.message = Some(format!("{key}: {NOT_WHILE_COMPARING}"));
            }
        }
        return;
    }
    update_explorer(app, action);
}

/// A key of the prompt while comparing (typed in the pane keys go to): `X` excludes the
/// regex from both profiles, `e` writes the differential view; and the shell's report that
/// the export's file is there.
fn compare_prompt_key(
    cmp: &mut Compare,
    mode: &mut Mode,
    (view, effects): (&mut TransformStack, &mut Vec<super::effects::Effect>),
    action: ToolAction,
    width: u16,
) {
    let ex = cmp.driver_mut();
    if !matches!(action, ToolAction::Exists(_)) {
        ex.tools.message = None;
    }
    match action {
        ToolAction::Exists(_) => shell_report(ex, mode, action, width),
        ToolAction::Type(_)
        | ToolAction::Paste(_)
        | ToolAction::Backspace
        | ToolAction::ClearLine => text_key(ex, *mode, action),
        ToolAction::Close => close(ex, mode),
        ToolAction::Accept => {
            let Some(p) = ex.tools.prompt.clone() else {
                *mode = Mode::Normal;
                return;
            };
            let done = match p.kind {
                PromptKind::Export => cmp
                    .export_effect(p.text.trim(), p.replace)
                    .map(|e| effects.push(e)),
                PromptKind::Exclude => typed_exclude(&p.text).map(|t| view.push(t)),
                PromptKind::Range => Err("No heat map while comparing".to_owned()),
            };
            let ex = cmp.driver_mut();
            match done {
                Ok(()) => {
                    ex.tools.prompt = None;
                    *mode = Mode::Normal;
                }
                Err(m) => ex.tools.message = Some(m),
            }
        }
        _ => {}
    }
}

/// The profile of `range` of the recording `original` (for the view's tasks, its towers
/// grouped as the view's), named after it: `perf.txt [37.20–37.40 s]`.
fn range_profile(original: &Profile, range: (u64, u64), tasks: &Slice, group: Group) -> Profile {
    let slice = Slice {
        range: Some(range),
        tasks: tasks.tasks.clone(),
    };
    Profile {
        metrics: crate::profile::metrics::Metrics::default(),
        source: format!("{} [{}]", original.source, range_label(range)),
        tree: regroup(&original.tree, &original.samples, &slice, group),
        stats: original.stats.clone(),
        samples: std::sync::Arc::default(),
    }
}

/// Opens compare mode on the baseline range (BEFORE) and the range marked (AFTER) of the
/// explorer's recording, normalised by their totals as any comparison; `T` comes back.
///
/// # Errors
/// No explorer, no baseline or no range marked.
pub fn compare_ranges(app: &mut App) -> Result<(), String> {
    let Phase::Ready(ex) = &app.phase else {
        return Err("Not while comparing".to_owned());
    };
    let heat = ex
        .tools
        .heat
        .as_ref()
        .ok_or("Open the heat map first (T)")?;
    let after = heat
        .shown_range()
        .ok_or("Mark a range to compare with the baseline (space, move, space)")?;
    let before = heat
        .baseline
        .ok_or("Mark the baseline range first: mark a range, then b")?;
    let original = std::sync::Arc::clone(ex.original_shared());
    let tasks = app.view.slice.clone();
    let pair = (
        range_profile(&original, before, &tasks, app.view.group),
        range_profile(&original, after, &tasks, app.view.group),
    );
    app.source = format!("{} → {}", pair.0.source, pair.1.source);
    let mut cmp = Compare::new(pair.0, pair.1);
    // Both sides are slices already, grouped: the view keeps its transforms but not its
    // slice and grouping.
    let mut view = app.view.clone();
    view.slice = Slice::default();
    view.group = Group::default();
    let home_view = std::mem::replace(&mut app.view, view);
    let Phase::Ready(explorer) =
        std::mem::replace(&mut app.phase, Phase::Loading(Progress::default()))
    else {
        return Ok(());
    };
    cmp.home = Some(Home {
        explorer,
        view: home_view,
    });
    cmp.before.tools.message = Some("Two ranges compared · T goes back to the heat map".to_owned());
    app.phase = Phase::Compare(Box::new(cmp));
    app.mode = Mode::Normal;
    Ok(())
}

/// Back from a comparison of two ranges to the recording's heat map.
pub fn go_home(app: &mut App) -> bool {
    let Phase::Compare(cmp) = &mut app.phase else {
        return false;
    };
    let Some(home) = cmp.home.take() else {
        return false;
    };
    app.source.clone_from(&home.explorer.profile.source);
    app.view = home.view;
    app.phase = Phase::Ready(home.explorer);
    app.mode = Mode::Heat;
    true
}
