//! Stage: application state — the analysis tools around the graph: function table, fuzzy
//! finder, callers / callees, heat map, task list, transforms with undo, grouping of the
//! towers, bottom-up view and sibling order, export and copy. Their keys become [`ToolAction`]s (one [`Action::Tool`](super::Action::Tool) variant), applied here;
//! the explorer keeps their state in [`Tools`](super::state::Tools).

mod accept;
mod text;

use regex::Regex;

use super::action::ToolAction;
use super::effects::{copy_name, default_export_name};
use super::explorer::Explorer;
pub(crate) use super::screens::intercept;
use super::state::{Prompt, PromptKind, Screen};
use super::transforms::{TransformStack, exact};
use super::{App, Mode, Phase};
use crate::profile::scope::{scope_label, unit_scopes};
use crate::profile::transform::Transform;
use crate::profile::{NameId, NodeId};
use crate::text::share;
use crate::view::Target;

use accept::accept;
pub(crate) use text::text_key;

/// What a key of a single-profile tool says while comparing (after the key).
pub const NOT_WHILE_COMPARING: &str =
    "not while comparing (one profile only) · p find · v delta table";

/// A message cut to fit the status line at 80 columns.
fn fit_message(text: &str) -> String {
    crate::view::tooltip::ellipsize(text, 78)
}

/// The transform a regex typed after `X` asks for.
pub(crate) fn typed_exclude(text: &str) -> Result<Transform, String> {
    Regex::new(text)
        .map(Transform::Exclude)
        .map_err(|e| format!("Invalid regex: {}", super::search::short_error(&e)))
}

/// A key of the heat map; back to the graph when it shows a range.
fn heat_key(
    ex: &mut Explorer,
    mode: &mut Mode,
    view: &mut TransformStack,
    k: super::heat::HeatKey,
) {
    if k == super::heat::HeatKey::Type {
        return open_prompt(ex, mode, PromptKind::Range, String::new());
    }
    let seconds = super::heat::state::seconds_total(ex.original());
    if let Some(heat) = ex.tools.heat.as_mut() {
        match super::heat::key(heat, view, k, seconds) {
            Ok(true) => {
                ex.tools.enter(Screen::Graph);
                *mode = Mode::Normal;
            }
            Ok(false) => {}
            Err(m) => ex.tools.message = Some(m),
        }
    }
}

/// Opens the heat map (or says why there is none), or closes it.
fn toggle_heat(ex: &mut Explorer, mode: &mut Mode) {
    if ex.tools.screen == Screen::Heat {
        *mode = ex.tools.go_back();
        return;
    }
    if let Some(why) = super::heat::unavailable(ex.original()) {
        ex.tools.message = Some(why.to_owned());
        return;
    }
    ex.tools.heat.get_or_insert_with(Default::default);
    ex.tools.enter(Screen::Heat);
    *mode = Mode::Heat;
}

pub(crate) fn update_explorer(app: &mut App, action: ToolAction) {
    let App {
        mode,
        phase,
        view,
        effects,
        help_scroll,
        size,
        sources,
        ..
    } = app;
    if let ToolAction::HelpScroll(rows) = action {
        let comparing = matches!(phase, Phase::Compare(_));
        let max = super::keymap::help_max_scroll(*size, comparing);
        let rows = i16::try_from(rows).unwrap_or(if rows < 0 { i16::MIN } else { i16::MAX });
        *help_scroll = help_scroll.saturating_add_signed(rows).min(max);
        return;
    }
    let Phase::Ready(ex) = phase else {
        return;
    };
    if *mode == Mode::Help {
        return;
    }
    ex.hover = None;
    if let ToolAction::Notify(_) | ToolAction::Exists(_) = action {
        return shell_report(ex, mode, action, size.width);
    }
    ex.tools.message = None;
    if matches!(*mode, Mode::Tasks | Mode::TaskFilter)
        && super::tasks::list_key(ex, mode, view, &action)
    {
        return;
    }
    let page = i32::from(ex.areas.graph.height.saturating_sub(2).max(1));
    match action {
        ToolAction::Table => toggle_table(ex, mode),
        ToolAction::Libraries => toggle_libraries(ex, mode),
        ToolAction::Finder => {
            ex.open_finder();
            *mode = Mode::Finder;
        }
        ToolAction::Sandwich => toggle_sandwich(ex, mode),
        ToolAction::Heat => toggle_heat(ex, mode),
        ToolAction::HeatKey(k) => heat_key(ex, mode, view, k),
        ToolAction::Tasks => super::tasks::toggle(ex, mode),
        ToolAction::Source => super::source::toggle(ex, mode, sources),
        ToolAction::SourceKey(k) => super::source::key(ex, mode, k),
        ToolAction::TaskKey(k) => super::tasks::key(ex, mode, view, k),
        ToolAction::Group => match super::tasks::unavailable(ex.original()) {
            Some(why) => ex.tools.message = Some(why.to_owned()),
            None => view.set_group(view.group.next(ex.original().samples.has_pids())),
        },
        // A change of the view is a change of `view`, the view wanted; what is shown
        // follows it (`app::jobs`), at once on a small tree.
        ToolAction::Invert => view.toggle_invert(),
        ToolAction::Order => view.toggle_order(),
        ToolAction::Exclude => push_named(ex, view, Transform::Exclude),
        ToolAction::Focus => push_named(ex, view, Transform::Focus),
        ToolAction::Hide => push_named(ex, view, Transform::Hide),
        ToolAction::CollapseRecursion => view.push(Transform::CollapseRecursion),
        ToolAction::MergeInlined => merge_inlined(ex, view),
        ToolAction::Undo => {
            if !view.undo() {
                ex.tools.message = Some("Nothing to undo".to_owned());
            }
        }
        ToolAction::ExcludeRegex => open_prompt(ex, mode, PromptKind::Exclude, String::new()),
        ToolAction::Export => {
            let name = default_export_name(&ex.profile.source);
            open_prompt(ex, mode, PromptKind::Export, name);
        }
        ToolAction::CopyName | ToolAction::CopyStack => {
            let stack = action == ToolAction::CopyStack;
            match copy(ex, *mode, stack) {
                Ok(e) => effects.push(e),
                Err(m) => ex.tools.message = Some(m),
            }
        }
        ToolAction::Step(rows) => step(ex, *mode, rows),
        ToolAction::Page(down) => step(ex, *mode, if down { page } else { -page }),
        ToolAction::Edge(last) => match *mode {
            Mode::Table => ex.tools.table.edge(last),
            Mode::Finder => ex.tools.finder.edge(last),
            _ => {}
        },
        ToolAction::Sort => ex.tools.table.sort = ex.tools.table.sort.next(),
        ToolAction::Accept => accept(ex, mode, view, effects),
        ToolAction::Pane | ToolAction::Move(_) => sandwich_key(ex, &action),
        ToolAction::Recenter => recenter(ex),
        ToolAction::Close => close(ex, mode),
        ToolAction::Type(_)
        | ToolAction::Paste(_)
        | ToolAction::Backspace
        | ToolAction::ClearLine => text_key(ex, *mode, action),
        ToolAction::HelpScroll(_) | ToolAction::Notify(_) | ToolAction::Exists(_) => {}
    }
}

/// What the shell said about an effect: a message, or that the export's file is there —
/// then the prompt opens again on its name, and Enter replaces it.
pub(crate) fn shell_report(ex: &mut Explorer, mode: &mut Mode, report: ToolAction, width: u16) {
    let path = match report {
        ToolAction::Exists(path) => path,
        ToolAction::Notify(message) => {
            ex.tools.message = Some(message);
            return;
        }
        _ => return,
    };
    ex.tools.message = Some(super::effects::exists_message(&path, usize::from(width)));
    ex.tools.prompt = Some(Prompt {
        kind: PromptKind::Export,
        text: path,
        suggested: false,
        replace: true,
    });
    *mode = Mode::Prompt;
}

fn toggle_table(ex: &mut Explorer, mode: &mut Mode) {
    if ex.tools.screen == Screen::Table {
        *mode = ex.tools.go_back();
    } else {
        open_table(ex, mode, false);
    }
}

fn open_table(ex: &mut Explorer, mode: &mut Mode, by_library: bool) {
    ex.tools.enter(Screen::Table);
    let t = &mut ex.tools.table;
    t.by_library = by_library;
    t.selected = 0;
    t.offset = 0;
    *mode = Mode::Table;
}

/// `I`: inlined frames merge into their callers, or a profile without any says so.
fn merge_inlined(ex: &mut Explorer, view: &mut TransformStack) {
    if ex.profile.tree.names().has_inlined() {
        view.push(Transform::MergeInlined);
    } else {
        ex.tools.message = Some(crate::profile::transform::NO_INLINED.to_owned());
    }
}

/// `L`: the table by library; in the table, functions ⇄ libraries. An input that names no
/// library says so instead.
fn toggle_libraries(ex: &mut Explorer, mode: &mut Mode) {
    if ex.profile.tree.names().library_count() == 0 {
        ex.tools.message = Some(crate::profile::libraries::NO_LIBRARIES.to_owned());
        return;
    }
    let by_library = !(ex.tools.screen == Screen::Table && ex.tools.table.by_library);
    open_table(ex, mode, by_library);
}

/// Tab and the arrows in the callers / callees view.
fn sandwich_key(ex: &mut Explorer, action: &ToolAction) {
    let Some(s) = ex.tools.sandwich.as_mut() else {
        return;
    };
    match *action {
        ToolAction::Pane => s.focus = 1 - s.focus.min(1),
        ToolAction::Move(dir) => s.focused().step(dir),
        _ => {}
    }
}

fn toggle_sandwich(ex: &mut Explorer, mode: &mut Mode) {
    if ex.tools.screen == Screen::Sandwich {
        close(ex, mode);
        return;
    }
    let name = match *mode {
        Mode::Table => ex.tools.table.current(),
        _ => selected_function(ex),
    };
    let Some(name) = name else {
        ex.tools.message = Some("Select a frame to see its callers and callees".to_owned());
        return;
    };
    // Built, and shown, by `app::jobs`: at once unless the function's frames hold much of
    // a large tree.
    ex.tools.wanted_sandwich = Some(name);
}

pub(crate) fn close(ex: &mut Explorer, mode: &mut Mode) {
    match *mode {
        Mode::Finder | Mode::Prompt => {
            ex.tools.prompt = None;
            *mode = ex.tools.home_mode();
        }
        // Back where the user came from, as it was.
        _ => *mode = ex.tools.go_back(),
    }
}

pub(crate) fn open_prompt(ex: &mut Explorer, mode: &mut Mode, kind: PromptKind, text: String) {
    let suggested = !text.is_empty();
    ex.tools.prompt = Some(Prompt {
        kind,
        text,
        suggested,
        replace: false,
    });
    *mode = Mode::Prompt;
}

/// The function of the selected frame (not the root, not a group).
fn selected_function(ex: &Explorer) -> Option<NameId> {
    match ex.selected {
        Target::Frame(id) if id != NodeId::ROOT => Some(ex.profile.tree.node(id).name),
        _ => None,
    }
}

fn push_named(ex: &mut Explorer, view: &mut TransformStack, make: fn(Regex) -> Transform) {
    let Some(name) = selected_function(ex) else {
        ex.tools.message = Some("Select a frame first (not the root or a group)".to_owned());
        return;
    };
    match exact(ex.profile.tree.names().resolve(name)) {
        Ok(re) => view.push(make(re)),
        Err(e) => ex.tools.message = Some(format!("Cannot match that name: {e}")),
    }
}

/// What the view shown now is, and what it left of the weight (after exclude or focus).
pub(crate) fn view_message(ex: &Explorer) -> String {
    let summary = ex.tools.applied.summary_named(&ex.original().samples);
    let (was, now) = (&ex.original().tree, &ex.profile.tree);
    if summary.is_empty() {
        "Showing the profile as read".to_owned()
    } else if now.total() == was.total() {
        // Hide, invert, collapse: every sample is still there.
        format!("{summary} · u undoes")
    } else {
        // What exclude and focus left, per half for on/off-CPU input (units differ).
        let parts: Vec<String> = unit_scopes(was)
            .into_iter()
            .map(|scope| {
                let before = was.node(scope).total;
                let after = match scope {
                    NodeId::ROOT => now.total(),
                    s => now
                        .child_named(NodeId::ROOT, was.name(s))
                        .map_or(0, |h| now.node(h).total),
                };
                match scope_label(was, scope) {
                    "" => format!("{:.2}%", share(after, before)),
                    label => format!("{label} {:.2}%", share(after, before)),
                }
            })
            .collect();
        format!(
            "{summary}: {} of the weight shown · u undoes",
            parts.join(", ")
        )
    }
}

fn copy(ex: &Explorer, mode: Mode, stack: bool) -> Result<super::effects::Effect, String> {
    match mode {
        Mode::Table => ex
            .tools
            .table
            .current()
            .map(|n| copy_name(&ex.full_name(n)))
            .ok_or_else(|| "No function selected".to_owned()),
        Mode::Sandwich => ex
            .tools
            .sandwich
            .as_ref()
            .and_then(|s| s.panes[s.focus.min(1)].selected_name())
            .map(|n| copy_name(&ex.names.style().full(n)))
            .ok_or_else(|| "Select a frame to copy (not a group)".to_owned()),
        _ => ex.copy_effect(stack),
    }
}

fn step(ex: &mut Explorer, mode: Mode, rows: i32) {
    match mode {
        Mode::Table => ex.tools.table.step(rows),
        Mode::Finder => ex.tools.finder.step(rows),
        _ => {}
    }
}

fn recenter(ex: &mut Explorer) {
    let Some(s) = ex.tools.sandwich.as_ref() else {
        return;
    };
    let pane = &s.panes[s.focus.min(1)];
    let Some(name) = pane
        .selected_name()
        .and_then(|n| ex.profile.tree.names().lookup(n))
    else {
        return;
    };
    if name != s.name {
        ex.tools.wanted_sandwich = Some(name);
    }
}

#[cfg(test)]
mod back_tests;
#[cfg(test)]
mod tests;
