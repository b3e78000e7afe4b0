//! Enter on a tool: the table's or the finder's function shown, a library collapsed, the
//! prompt's export written or its regex excluded.

use super::{fit_message, typed_exclude};
use crate::app::Mode;
use crate::app::effects::Effect;
use crate::app::explorer::Explorer;
use crate::app::state::{PromptKind, Screen};
use crate::app::transforms::{TransformStack, exact};
use crate::profile::transform::Transform;

pub(super) fn accept(
    ex: &mut Explorer,
    mode: &mut Mode,
    view: &mut TransformStack,
    effects: &mut Vec<Effect>,
) {
    match *mode {
        Mode::Table if ex.tools.table.by_library => {
            let Some(row) = ex.tools.table.current_library() else {
                return;
            };
            let tree = &ex.profile.tree;
            let Some(lib) = row.lib else {
                ex.tools.message =
                    Some("These frames name no library: nothing to collapse".to_owned());
                return;
            };
            let name = tree.names().library_name(lib).to_owned();
            match exact(&name) {
                Ok(re) => {
                    view.push(Transform::CollapseLibrary(re));
                    ex.tools.enter(Screen::Graph);
                    *mode = Mode::Normal;
                    ex.tools.message = Some(fit_message(&format!(
                        "Each run of {}'s frames is one frame now · u undoes",
                        crate::text::sanitize(&name)
                    )));
                }
                Err(_) => ex.tools.message = Some("That library name is too long".to_owned()),
            }
        }
        Mode::Table => {
            if let Some(name) = ex.tools.table.current() {
                ex.show_function(name);
                *mode = Mode::Normal;
            }
        }
        Mode::Finder => {
            let f = &ex.tools.finder;
            if let Some(hit) = f.hits.get(f.selected) {
                let name = hit.name;
                ex.show_function(name);
                *mode = Mode::Normal;
            }
        }
        Mode::Prompt => {
            let Some(p) = ex.tools.prompt.clone() else {
                *mode = ex.tools.home_mode();
                return;
            };
            let done = match p.kind {
                PromptKind::Export => ex
                    .export_effect(p.text.trim(), p.replace)
                    .map(|e| effects.push(e)),
                PromptKind::Exclude => typed_exclude(&p.text).map(|t| view.push(t)),
                PromptKind::Range => match ex.tools.heat.as_mut() {
                    Some(heat) => heat.type_range(&p.text),
                    None => Err("No heat map open".to_owned()),
                },
            };
            match done {
                Ok(()) => {
                    ex.tools.prompt = None;
                    *mode = ex.tools.home_mode();
                }
                Err(m) => ex.tools.message = Some(m),
            }
        }
        _ => {}
    }
}
