//! Stage: draw — the heat map (`FlameScope`): a legend line, the grid of cells two rows a
//! line with half blocks (one glyph a line without colour), the offsets within a second on
//! the left, a time axis with the selected range under it, and a line about the cursor.
//! It only reads a laid out [`Grid`] and the marks the app keeps.

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::view::color::ColorMode;
use crate::view::heatmap::{CHROME_LINES, GUTTER, Grid, SECOND, level};

/// What is drawn over the cells.
#[derive(Debug, Clone, Copy, Default)]
pub struct Marks<'a> {
    /// The cursor cell (column, row).
    pub cursor: (u16, u32),
    /// The range selected or being selected, ns from the first sample.
    pub range: Option<(u64, u64)>,
    /// Matching samples per cell (as [`Grid::counts`]) while a search is on.
    pub matches: Option<&'a [u64]>,
    /// Text for the line under the axis (cursor, range, hints).
    pub info: &'a str,
}

/// Colours of the ramp, empty excluded, for a colour depth (none without colour).
fn ramp(colors: ColorMode) -> &'static [Color] {
    const RGB: [Color; 9] = [
        Color::Rgb(0x2d, 0x11, 0x5e),
        Color::Rgb(0x5b, 0x16, 0x6e),
        Color::Rgb(0x87, 0x21, 0x6b),
        Color::Rgb(0xb3, 0x2f, 0x5a),
        Color::Rgb(0xd8, 0x47, 0x3f),
        Color::Rgb(0xf0, 0x6e, 0x23),
        Color::Rgb(0xfb, 0x9d, 0x0e),
        Color::Rgb(0xf7, 0xd1, 0x3d),
        Color::Rgb(0xfc, 0xfd, 0xbf),
    ];
    const XTERM: [Color; 9] = [
        Color::Indexed(54),
        Color::Indexed(90),
        Color::Indexed(126),
        Color::Indexed(161),
        Color::Indexed(196),
        Color::Indexed(202),
        Color::Indexed(208),
        Color::Indexed(220),
        Color::Indexed(229),
    ];
    const ANSI: [Color; 6] = [
        Color::Blue,
        Color::Magenta,
        Color::Red,
        Color::LightRed,
        Color::Yellow,
        Color::White,
    ];
    match colors {
        ColorMode::TrueColor => &RGB,
        ColorMode::Ansi256 => &XTERM,
        ColorMode::Ansi16 => &ANSI,
        ColorMode::Mono => &[],
    }
}

/// The ramp of cells holding search matches.
fn match_ramp(colors: ColorMode) -> &'static [Color] {
    const RGB: [Color; 4] = [
        Color::Rgb(0x0b, 0x4f, 0x3c),
        Color::Rgb(0x1a, 0x85, 0x5f),
        Color::Rgb(0x3c, 0xbf, 0x7f),
        Color::Rgb(0x9a, 0xf5, 0xc0),
    ];
    const XTERM: [Color; 4] = [
        Color::Indexed(22),
        Color::Indexed(28),
        Color::Indexed(41),
        Color::Indexed(121),
    ];
    const ANSI: [Color; 2] = [Color::Green, Color::LightGreen];
    match colors {
        ColorMode::TrueColor => &RGB,
        ColorMode::Ansi256 => &XTERM,
        ColorMode::Ansi16 => &ANSI,
        ColorMode::Mono => &[],
    }
}

/// Glyphs by level without colour, empty first.
const SHADES: [char; 9] = [' ', '.', ':', '-', '=', '+', '*', '#', '@'];

/// Background of an empty cell inside the selected range.
fn range_bg(colors: ColorMode) -> Color {
    match colors {
        ColorMode::TrueColor => Color::Rgb(0x3a, 0x3a, 0x3a),
        ColorMode::Ansi256 => Color::Indexed(237),
        _ => Color::DarkGray,
    }
}

/// The colour of one cell (`None`: drawn empty).
fn cell_color(
    grid: &Grid,
    marks: &Marks<'_>,
    colors: ColorMode,
    col: u16,
    row: u32,
) -> Option<Color> {
    let i = usize::from(col) * grid.rows as usize + row as usize;
    if let Some(m) = marks.matches.and_then(|m| m.get(i)).filter(|&&m| m > 0) {
        let max = marks
            .matches
            .map_or(0, |m| m.iter().copied().max().unwrap_or(0));
        let r = match_ramp(colors);
        let l = level(*m, max, u8::try_from(r.len()).unwrap_or(1));
        return r.get(usize::from(l).saturating_sub(1)).copied();
    }
    let r = ramp(colors);
    let l = level(
        grid.count(col, row),
        grid.max,
        u8::try_from(r.len()).unwrap_or(1),
    );
    if l == 0 {
        let inside = marks.range.is_some_and(|rg| grid.in_range(col, row, rg));
        return inside.then(|| range_bg(colors));
    }
    r.get(usize::from(l) - 1).copied()
}

/// Draws the heat map into `area`.
pub fn render(grid: &Grid, marks: &Marks<'_>, colors: ColorMode, area: Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    if area.height < CHROME_LINES + 1 || area.width <= GUTTER {
        return;
    }
    legend(grid, colors, area, buf);
    let lines = area.height - CHROME_LINES;
    let per_line: u32 = 2;
    let x0 = area.x + GUTTER;
    for line in 0..lines {
        let y = area.y + 1 + line;
        let upper = u32::from(line) * per_line;
        if upper >= grid.rows {
            break;
        }
        offset_label(grid, upper, area.x, y, buf);
        let w = grid.col_width.max(1);
        for col in 0..grid.cols.min((area.width - GUTTER) / w) {
            let cell = paint(grid, marks, colors, col, upper);
            for k in 0..w {
                buf[(x0 + col * w + k, y)] = cell.clone();
            }
        }
    }
    axis(grid, marks, area, buf);
    let y = area.bottom() - 1;
    buf.set_stringn(area.x, y, marks.info, usize::from(area.width), Style::new());
}

/// The terminal cell for the two rows `upper` and `upper + 1` of column `col`.
fn paint(grid: &Grid, marks: &Marks<'_>, colors: ColorMode, col: u16, upper: u32) -> Cell {
    let mut cell = Cell::default();
    let cursor = marks.cursor.0 == col && (marks.cursor.1 == upper || marks.cursor.1 == upper + 1);
    if colors == ColorMode::Mono {
        // One glyph for both rows of the line: the denser one's.
        let rows = [upper, upper + 1].map(|r| r.min(grid.rows - 1));
        let i = |r: u32| usize::from(col) * grid.rows as usize + r as usize;
        let m: u64 = rows
            .iter()
            .map(|&r| {
                marks
                    .matches
                    .and_then(|m| m.get(i(r)))
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        let l = rows
            .iter()
            .map(|&r| level(grid.count(col, r), grid.max, 8))
            .max()
            .unwrap_or(0);
        cell.set_char(SHADES[usize::from(l)]);
        let mut style = Style::new();
        if marks
            .range
            .is_some_and(|rg| rows.iter().any(|&r| grid.in_range(col, r, rg)))
        {
            style = style.add_modifier(Modifier::REVERSED);
        }
        if m > 0 {
            style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
        }
        if cursor {
            cell.set_char('▒');
            style = style.add_modifier(Modifier::BOLD);
        }
        cell.set_style(style);
        return cell;
    }
    let top = cell_color(grid, marks, colors, col, upper);
    let bottom = (upper + 1 < grid.rows)
        .then(|| cell_color(grid, marks, colors, col, upper + 1))
        .flatten();
    let (top, bottom) = match (cursor, marks.cursor.1 == upper) {
        // The cursor's half is drawn white over the other half's colour.
        (true, true) => (Some(Color::White), bottom),
        (true, false) => (top, Some(Color::White)),
        _ => (top, bottom),
    };
    match (top, bottom) {
        (None, None) => {
            cell.set_char(' ');
        }
        (Some(t), b) => {
            cell.set_char('▀');
            cell.set_fg(t);
            cell.set_bg(b.unwrap_or(Color::Reset));
        }
        (None, Some(b)) => {
            cell.set_char('▄');
            cell.set_fg(b);
            cell.set_bg(Color::Reset);
        }
    }
    cell
}

/// The top line: what a cell is, the largest count, the ramp.
fn legend(grid: &Grid, colors: ColorMode, area: Rect, buf: &mut Buffer) {
    let row_ms = crate::profile::tree::format_scaled(grid.row_ns, 6);
    let secs = if grid.scale.per_col == 1 {
        "1 s".to_owned()
    } else {
        format!("{} s", grid.scale.per_col)
    };
    let text = format!(
        " heat map · a cell is {row_ms} ms of {secs} · darkest 1, brightest {} samples ",
        grid.max
    );
    let end = buf.set_stringn(area.x, area.y, &text, usize::from(area.width), Style::new());
    let mut x = end.0;
    for &c in ramp(colors) {
        if x >= area.right() {
            break;
        }
        buf[(x, area.y)].set_char('█').set_fg(c);
        x += 1;
    }
    if colors == ColorMode::Mono {
        buf.set_stringn(
            x,
            area.y,
            SHADES[1..].iter().collect::<String>(),
            usize::from(area.right().saturating_sub(x)),
            Style::new(),
        );
    }
}

/// `200ms`-style labels every 200 ms (or every 5 lines when rows are coarse).
fn offset_label(grid: &Grid, row: u32, x: u16, y: u16, buf: &mut Buffer) {
    let offset = u64::from(row) * grid.row_ns;
    let every = (200_000_000 / grid.row_ns).max(1);
    if u64::from(row) % every == 0 || row == 0 {
        let ms = offset / 1_000_000;
        let text = format!("{ms:>4}ms");
        buf.set_stringn(x, y, &text, usize::from(GUTTER), Style::new());
    }
}

/// Second labels every ten columns or so, and the selected range drawn over them.
fn axis(grid: &Grid, marks: &Marks<'_>, area: Rect, buf: &mut Buffer) {
    let y = area.bottom() - 2;
    let x0 = area.x + GUTTER;
    let w = grid.col_width.max(1);
    let cols = grid.cols.min((area.width - GUTTER) / w);
    for x in 0..cols * w {
        buf[(x0 + x, y)].set_char('─');
    }
    for col in 0..cols {
        let covered = marks.range.is_some_and(|(s, e)| {
            let c0 = grid.scale.second(col) * SECOND;
            let c1 = (grid.scale.second(col) + grid.scale.per_col) * SECOND;
            c0 < e && s < c1
        });
        if covered {
            for k in 0..w {
                buf[(x0 + col * w + k, y)].set_char('━');
            }
        }
    }
    labels(grid, cols, x0, y, buf);
}

fn labels(grid: &Grid, cols: u16, x0: u16, y: u16, buf: &mut Buffer) {
    // A label at a column start, then none closer than ten terminal columns.
    let w = grid.col_width.max(1);
    let width = cols * w;
    let mut next = 0u16;
    for col in 0..cols {
        let x = col * w;
        if x < next {
            continue;
        }
        let label = format!("{}s", grid.scale.second(col));
        let len = u16::try_from(label.chars().count()).unwrap_or(u16::MAX);
        if x + len + 1 > width {
            break;
        }
        buf[(x0 + x, y)].set_char('┬');
        buf.set_stringn(x0 + x + 1, y, &label, usize::from(len), Style::new());
        next = x + len.max(9) + 1;
    }
}

/// Bars by level, empty first.
const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The timeline strip of the graph view: ` time ` and a bar per column for the samples
/// taken in its span of the recording; the columns of `range` (the slice shown) stand out.
pub fn strip(
    strip: &crate::app::heat::Strip,
    range: Option<(u64, u64)>,
    colors: ColorMode,
    area: Rect,
    buf: &mut Buffer,
) {
    // Areas are placed before a resize reaches the buffer: never draw past it.
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    let label = crate::app::heat::STRIP_LABEL;
    buf.set_stringn(
        area.x,
        area.y,
        " time ",
        usize::from(label),
        Style::new().add_modifier(Modifier::DIM),
    );
    let max = strip.counts.iter().copied().max().unwrap_or(0);
    let bins = u64::try_from(strip.counts.len()).unwrap_or(u64::MAX).max(1);
    for (i, &count) in strip.counts.iter().enumerate() {
        let Ok(dx) = u16::try_from(i) else { break };
        let x = area.x + label + dx;
        if x >= area.right() {
            break;
        }
        let i = i as u64;
        let (t0, t1) = (i * strip.span / bins, (i + 1) * strip.span / bins);
        let inside = range.is_some_and(|(s, e)| t0 < e && s < t1);
        let mut style = Style::new();
        if colors == ColorMode::Mono {
            if inside {
                style = style.add_modifier(Modifier::REVERSED);
            }
        } else {
            style = style.fg(if inside { Color::Yellow } else { Color::Blue });
            if inside {
                style = style.bg(range_bg(colors));
            }
        }
        let l = level(count, max, 8);
        buf[(x, area.y)]
            .set_char(BARS[usize::from(l)])
            .set_style(style);
    }
}
