//! Stage: state → the fuzzy finder popup over the graph: the query with a cursor, then the
//! ranked functions, each with its total share (both shares while comparing) and the
//! characters that matched the query highlighted. Names are sanitized one grapheme cluster at a time, so the highlight stays
//! on the right characters.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Clear, Widget};

use super::cells::{fill, highlighted, mark, put};
use crate::app::Explorer;
use crate::app::compare::Compare;
use crate::app::finder::{FinderState, LIMIT, popup_area};
use crate::profile::finder::FinderHit;
use crate::profile::functions::table_label;
use crate::profile::{NameId, NameSource};
use std::borrow::Cow;
use std::fmt::Write as _;

use crate::profile::scope::OFF_CPU;
use crate::text::{sanitize, share, thousands};
use crate::view::color::{self, ColorMode};

/// Draws the popup.
pub fn render(ex: &Explorer, colors: ColorMode, buf: &mut Buffer) {
    let f = &ex.tools.finder;
    let total = ex.profile.tree.total();
    let title = "Find a function";
    let tree = &ex.profile.tree;
    popup(popup_area(ex.areas.body()), title, f, colors, buf, |hit| {
        let i = hit.name.0 as usize;
        let shares = if ex.half_functions.is_empty() {
            let weight = ex.functions.get(i).map_or(0, |f| f.total);
            format!("{:>7.2}%  ", share(weight, total))
        } else {
            // On/off-CPU input: the share within each half, never of their sum.
            let mut text = String::new();
            for (h, functions) in &ex.half_functions {
                let w = functions.get(i).map_or(0, |f| f.total);
                let label = if tree.name(*h) == OFF_CPU {
                    "off"
                } else {
                    "on"
                };
                let _ = write!(text, "{label} {:>6.2}%  ", share(w, tree.node(*h).total));
            }
            text
        };
        // Marked as the function table marks it: `(inlined)`, or its library when
        // another library has a function of its text. The matched characters are in
        // the name, which comes first.
        let weighed = |o: NameId| ex.functions.get(o.0 as usize).is_some_and(|f| f.total > 0);
        let label = table_label(tree.names(), hit.name, ex.shown(hit.name), weighed);
        (shares, label)
    });
}

/// Draws the compare-mode popup: each function with its share before → after.
pub fn render_compare(cmp: &Compare, colors: ColorMode, buf: &mut Buffer) {
    let Some(cf) = &cmp.finder else {
        return;
    };
    let title = "Find a function in either profile";
    let area = popup_area(cmp.areas.body);
    popup(area, title, &cf.state, colors, buf, |hit| {
        let row = cmp.table.rows.get(hit.name.0 as usize);
        let none = share(0, 0);
        let (before, after) = row.map_or((none, none), |r| {
            (r.delta.before_share, r.delta.after_share)
        });
        (
            format!("{before:>6.2}% → {after:>6.2}%  "),
            Cow::Borrowed(cf.shown.text(hit.name)),
        )
    });
}

/// The popup in `rect`: title with counts, the query with a cursor, then one row a hit:
/// the text `row` gives before the name, and the name with its matched characters marked.
fn popup<'a>(
    rect: Rect,
    title: &str,
    f: &FinderState,
    colors: ColorMode,
    buf: &mut Buffer,
    row: impl Fn(&FinderHit) -> (String, Cow<'a, str>),
) {
    if rect.width < 12 || rect.height < 4 {
        return;
    }
    Clear.render(rect, buf);
    let more = if f.hits.len() >= LIMIT { "+" } else { "" };
    let title = format!(
        " {title}: {}{more} of {} ",
        thousands(f.hits.len() as u64),
        thousands(f.candidates as u64)
    );
    let block = Block::bordered().title(title);
    let inner = block.inner(rect);
    block.render(rect, buf);
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let width = usize::from(inner.width);
    let x = put(buf, inner.x, inner.y, "> ", 2, bold);
    let query = sanitize(&f.query);
    let x = put(
        buf,
        x,
        inner.y,
        &query,
        width.saturating_sub(3),
        Style::new(),
    );
    put(
        buf,
        x,
        inner.y,
        " ",
        1,
        Style::new().add_modifier(Modifier::REVERSED),
    );
    let rows = f.hits.iter().enumerate().skip(f.offset);
    for ((i, hit), y) in rows.zip(inner.y + 1..inner.bottom()) {
        let base = if i == f.selected {
            fill(
                buf,
                inner.x,
                inner.right(),
                y,
                " ",
                color::selected(Style::new()),
            );
            color::selected(Style::new())
        } else {
            Style::new()
        };
        let (prefix, name) = row(hit);
        let x = put(buf, inner.x, y, &prefix, width, base);
        let room = usize::from(inner.right().saturating_sub(x));
        highlighted(
            buf,
            (x, y),
            room,
            &name,
            &hit.indices,
            (base, mark(colors, base)),
        );
    }
    if f.hits.is_empty() && inner.height > 1 {
        put(
            buf,
            inner.x + 2,
            inner.y + 1,
            "No function matches",
            width,
            Style::new(),
        );
    }
}
