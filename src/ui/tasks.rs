//! Stage: state → the task list in the graph area: a title row naming the columns, then
//! one row per process and per thread nested under it — mark, samples, weight, share of
//! the range with a bar in the colour of the task's tower, pid, tid, name with the
//! characters matching the filter highlighted — the selection in reverse video, and the
//! lines under the rows (the filter, counts, and how to get pids when the input has none).
//! It only reads the rows the app laid out.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use std::fmt::Write as _;

use super::cells::{fill, put};
use super::cells::{highlighted, mark};
use crate::app::explorer::Explorer;
use crate::app::mode::Mode;
use crate::app::tasks::state::{TaskRow, TaskState};
use crate::profile::group::frame_name;
use crate::profile::{Profile, Unit};
use crate::text::{sanitize, share, thousands};
use crate::view::color::{self, ColorMode, Hue};
use crate::view::tooltip::{display_width, ellipsize, time_text};

/// Width of the samples column.
const SAMPLES: usize = 9;
/// Width of the weight column.
const AMOUNT: usize = 10;
/// Width of the share column.
const SHARE: usize = 8;
/// Width of a pid or tid column.
const ID: usize = 8;

/// Width of an off-CPU time column.
const TIME: usize = 9;

/// What is drawn, by the screen's width.
struct Columns {
    weight: bool,
    bar: usize,
    pid: bool,
    /// With the off-CPU metric: its longest block, its time in R, S and D, the rest and
    /// the incomplete time, and the on-CPU time, as the width allows.
    longest: bool,
    states: bool,
    rest: bool,
    on_cpu: bool,
}

impl Columns {
    fn new(width: usize, p: &Profile, t: &TaskState) -> Self {
        let blocks = t.rows.first().is_some_and(|r| r.blocks.is_some());
        let on_cpu = t.rows.first().is_some_and(|r| r.on_cpu.is_some());
        Columns {
            weight: width >= 70 && p.stats.unit != Unit::Samples,
            bar: match width {
                _ if blocks && width < 110 => 0,
                0..60 => 0,
                60..100 => 8,
                _ if blocks => 8,
                _ => 16,
            },
            pid: t.has_pids,
            longest: blocks && width >= 70,
            states: blocks && width >= 100,
            rest: blocks && width >= 140,
            on_cpu: on_cpu && width >= 110,
        }
    }

    /// The off-CPU columns of a row.
    fn off_cells(&self, p: &Profile, row: &TaskRow, out: &mut String) {
        let Some(b) = &row.blocks else {
            return;
        };
        let t = |ns: u64| {
            if ns == 0 {
                "-".to_owned()
            } else {
                ellipsize(&time_text(ns, p.tree.scale()), TIME - 1)
            }
        };
        if self.on_cpu {
            let _ = write!(out, "{:>TIME$}", t(row.on_cpu.unwrap_or(0)));
        }
        if self.states {
            for s in crate::profile::blocks::SHOWN {
                let _ = write!(out, "{:>TIME$}", t(b.in_state(s)));
            }
        }
        if self.rest {
            let _ = write!(out, "{:>TIME$}", t(b.others()));
            let _ = write!(out, "{:>w$}", t(b.incomplete), w = TIME + 2);
        }
        if self.longest {
            let _ = write!(out, "{:>TIME$}", t(b.longest));
        }
    }

    /// The off-CPU columns' titles.
    fn off_head(&self, head: &mut String) {
        if self.on_cpu {
            let _ = write!(head, "{:>TIME$}", "on-CPU");
        }
        if self.states {
            for s in ["R", "S", "D"] {
                let _ = write!(head, "{s:>TIME$}");
            }
        }
        if self.rest {
            let _ = write!(head, "{:>TIME$}{:>w$}", "other", "incomplete", w = TIME + 2);
        }
        if self.longest {
            let _ = write!(head, "{:>TIME$}", "longest");
        }
    }

    /// The text of a row before its name.
    fn cells(&self, p: &Profile, t: &TaskState, row: &TaskRow) -> String {
        let mark = match t.marked_row(row) {
            Some(true) => "[x]",
            Some(false) => "[-]",
            None => "[ ]",
        };
        let mut out = format!(" {mark}{:>SAMPLES$}", thousands(row.totals.samples));
        if self.weight {
            let _ = write!(
                out,
                "{:>AMOUNT$}",
                super::table::amount(p, row.totals.weight)
            );
        }
        let _ = write!(
            out,
            "{:>SHARE$}",
            format!("{:.2}%", share(row.totals.weight, t.total.weight))
        );
        self.off_cells(p, row, &mut out);
        if self.bar > 0 {
            out.push(' ');
        }
        out
    }

    /// The text after the bar and before the name: the ids.
    fn ids(&self, row: &TaskRow) -> String {
        let id = |v: Option<i64>| v.map_or_else(String::new, |v| v.to_string());
        let tid = if row.threads == 1 { row.tid } else { None };
        let mut out = String::new();
        if self.pid {
            let _ = write!(out, "{:>ID$}", id(row.pid));
        }
        let _ = write!(out, "{:>ID$}  ", id(tid));
        if row.nested {
            out.push_str("  ");
        }
        out
    }
}

/// `share` of `width` cells in eighths of a block.
#[allow(clippy::cast_sign_loss)] // clamped to a non-negative range first
fn bar(share: f64, width: usize) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (share.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    // Any sample shows: at least an eighth.
    let eighths = if share > 0.0 { eighths.max(1) } else { 0 };
    let mut out = "█".repeat(eighths / 8);
    out.push_str(PARTS[eighths % 8]);
    let used = eighths.div_ceil(8);
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}

impl Columns {
    /// The title row.
    fn head(&self, p: &Profile, t: &TaskState) -> String {
        // The off-CPU metric's samples are its blocks.
        let count = if self.longest { "Blocks" } else { "Samples" };
        let mut head = format!(" {count:>w$}", w = SAMPLES + 3);
        if self.weight {
            let label = if p.stats.unit.is_time() {
                "Time"
            } else {
                "Weight"
            };
            let _ = write!(head, "{label:>AMOUNT$}");
        }
        let _ = write!(head, "{:>SHARE$}", "Share");
        self.off_head(&mut head);
        if self.bar > 0 {
            head.push_str(&" ".repeat(self.bar + 1));
        }
        if self.pid {
            let _ = write!(head, "{:>ID$}", "pid");
        }
        let _ = write!(head, "{:>ID$}  ", "tid");
        head.push_str(if t.has_pids {
            "Process / thread"
        } else {
            "Name / thread"
        });
        head
    }
}

/// Draws the task list over the graph area.
pub fn render(ex: &Explorer, mode: Mode, colors: ColorMode, buf: &mut Buffer) {
    render_in(ex, ex.areas.graph, mode, colors, buf);
}

/// Draws the task list of `ex` in `area` (the library's widget gives its own).
pub fn render_in(ex: &Explorer, area: Rect, mode: Mode, colors: ColorMode, buf: &mut Buffer) {
    let t = &ex.tools.tasks;
    let p = ex.original();
    if area.height < 2 {
        return;
    }
    let width = usize::from(area.width);
    let cols = Columns::new(width, p, t);
    let head_style = color::chrome(colors).add_modifier(Modifier::BOLD);
    fill(buf, area.x, area.right(), area.y, " ", head_style);
    put(buf, area.x, area.y, &cols.head(p, t), width, head_style);
    let bottom = area.bottom().saturating_sub(t.chrome() - 1);
    let rows = t.rows.iter().enumerate().skip(t.offset);
    for ((i, row), y) in rows.zip(area.y + 1..bottom) {
        let selected = i == t.selected;
        draw_row((&cols, p, t), row, selected, colors, (area, y), buf);
    }
    if t.rows.is_empty() && area.height > 2 {
        let text = if t.query.is_empty() {
            "No task has a sample in the range shown"
        } else {
            "No task matches the filter (⌫ edits it, Esc clears it)"
        };
        put(
            buf,
            area.x + 2,
            area.y + 1,
            text,
            width.saturating_sub(2),
            Style::new(),
        );
    }
    let mut y = bottom;
    if !t.has_pids {
        use crate::profile::Format;
        let note = match p.stats.format {
            Some(Format::Pprof) => {
                " pprof: a task is a set of sample labels (as go tool pprof -tags lists them)"
            }
            Some(Format::Speedscope) => {
                " speedscope: a task is one of the file's profiles (py-spy: a thread)"
            }
            Some(Format::Cpuprofile) => " .cpuprofile: one task, the profiled thread",
            _ => " No process ids: threads are grouped by name · perf script -F +pid prints them",
        };
        put(
            buf,
            area.x,
            y,
            &ellipsize(note, width),
            width,
            Style::new().add_modifier(Modifier::DIM),
        );
        y += 1;
    }
    info_line(t, mode, (area.x, y, width), buf);
}

/// One row at line `y` of `area`.
fn draw_row(
    (cols, profile, state): (&Columns, &Profile, &TaskState),
    row: &TaskRow,
    selected: bool,
    colors: ColorMode,
    (area, y): (Rect, u16),
    buf: &mut Buffer,
) {
    let width = usize::from(area.width);
    let base = if selected {
        let style = color::selected(Style::new());
        fill(buf, area.x, area.right(), y, " ", style);
        style
    } else {
        Style::new()
    };
    let mut x = put(
        buf,
        area.x,
        y,
        &cols.cells(profile, state, row),
        width,
        base,
    );
    if cols.bar > 0 {
        // The colour of the task's tower in the graph.
        let tower = color::frame_style(colors, &frame_name(&row.name), Hue::Hot, false);
        let style = match tower.bg {
            Some(c) if !selected => base.fg(c),
            _ => base,
        };
        let part = share(row.totals.weight, state.total.weight).percent() / 100.0;
        x = put(buf, x, y, &bar(part, cols.bar), cols.bar, style);
    }
    x = put(buf, x, y, &cols.ids(row), width, base);
    let room = usize::from(area.right().saturating_sub(x));
    let hit = mark(colors, base);
    highlighted(buf, (x, y), room, &row.name, &row.indices, (base, hit));
    if row.threads > 1 {
        let name_w = display_width(&sanitize(&row.name));
        let end = x.saturating_add(u16::try_from(name_w).unwrap_or(u16::MAX));
        let threads = format!(" · {} threads", thousands(row.threads as u64));
        let room = usize::from(area.right().saturating_sub(end));
        put(
            buf,
            end,
            y,
            &threads,
            room,
            base.add_modifier(Modifier::DIM),
        );
    }
}

/// The filter (with a cursor while it is typed) and the counts.
fn info_line(t: &TaskState, mode: Mode, (x, y, width): (u16, u16, usize), buf: &mut Buffer) {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut x = x;
    let typing = mode == Mode::TaskFilter;
    if typing || !t.query.is_empty() {
        x = put(buf, x, y, " /", 2, bold);
        let query = sanitize(&t.query);
        x = put(buf, x, y, &query, width / 2, Style::new());
        if typing {
            x = put(
                buf,
                x,
                y,
                " ",
                1,
                Style::new().add_modifier(Modifier::REVERSED),
            );
        }
        x = put(buf, x, y, " ·", 2, Style::new());
    }
    let room = width.saturating_sub(usize::from(x));
    put(
        buf,
        x,
        y,
        &ellipsize(&format!(" {}", t.info), room),
        room,
        Style::new(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_eighths_of_their_width() {
        assert_eq!(bar(0.0, 4), "    ");
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.5, 4), "██  ");
        assert_eq!(bar(0.0001, 4), "▏   ");
        assert_eq!(bar(0.3, 4), "█▎  ");
        assert_eq!(bar(2.0, 2), "██");
    }
}
