//! Stage: draw — the heat map (`FlameScope`): a legend line, the grid of cells two rows a
//! line with half blocks (one glyph a line without colour), the offsets within a second on
//! the left, a time axis with the selected range under it, and a line about the cursor.
//! It only reads a laid out [`Grid`] and the marks the app keeps.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::view::color::ColorMode;
use crate::view::heatmap::{Grid, SECOND, level};

/// Width of the offsets on the left (`980ms`).
pub const GUTTER: u16 = 6;

/// Lines the heat map needs besides its grid: legend, axis, cursor line.
pub const CHROME_LINES: u16 = 3;

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
    if area.height < CHROME_LINES + 1 || area.width <= GUTTER {
        return;
    }
    legend(grid, colors, area, buf);
    let lines = area.height - CHROME_LINES;
    let per_line: u32 = if colors == ColorMode::Mono { 1 } else { 2 };
    let x0 = area.x + GUTTER;
    for line in 0..lines {
        let y = area.y + 1 + line;
        let upper = u32::from(line) * per_line;
        if upper >= grid.rows {
            break;
        }
        offset_label(grid, upper, area.x, y, buf);
        for col in 0..grid.cols.min(area.width - GUTTER) {
            let cell = &mut buf[(x0 + col, y)];
            let cursor = marks.cursor.0 == col
                && (marks.cursor.1 == upper || (per_line == 2 && marks.cursor.1 == upper + 1));
            if colors == ColorMode::Mono {
                let i = usize::from(col) * grid.rows as usize + upper as usize;
                let m = marks.matches.and_then(|m| m.get(i)).copied().unwrap_or(0);
                let l = level(grid.count(col, upper), grid.max, 8);
                cell.set_char(SHADES[usize::from(l)]);
                let mut style = Style::new();
                if marks.range.is_some_and(|rg| grid.in_range(col, upper, rg)) {
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
                continue;
            }
            let top = cell_color(grid, marks, colors, col, upper);
            let bottom = (upper + 1 < grid.rows)
                .then(|| cell_color(grid, marks, colors, col, upper + 1))
                .flatten();
            let (top, bottom) = if cursor {
                // The cursor's half is drawn white over the other half's colour.
                if marks.cursor.1 == upper {
                    (Some(Color::White), bottom)
                } else {
                    (top, Some(Color::White))
                }
            } else {
                (top, bottom)
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
        }
    }
    axis(grid, marks, area, buf);
    let y = area.bottom() - 1;
    buf.set_stringn(area.x, y, marks.info, usize::from(area.width), Style::new());
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
    let cols = grid.cols.min(area.width - GUTTER);
    for col in 0..cols {
        buf[(x0 + col, y)].set_char('─');
    }
    labels(grid, cols, x0, y, buf);
    for col in 0..cols {
        let covered = marks.range.is_some_and(|(s, e)| {
            let c0 = grid.scale.second(col) * SECOND;
            let c1 = (grid.scale.second(col) + grid.scale.per_col) * SECOND;
            c0 < e && s < c1
        });
        if covered {
            buf[(x0 + col, y)].set_char('━');
        }
    }
}

fn labels(grid: &Grid, cols: u16, x0: u16, y: u16, buf: &mut Buffer) {
    let mut col = 0;
    while col < cols {
        let label = format!("{}s", grid.scale.second(col));
        let w = u16::try_from(label.len()).unwrap_or(u16::MAX);
        if col + w > cols {
            break;
        }
        buf[(x0 + col, y)].set_char('┬');
        buf.set_stringn(x0 + col + 1, y, &label, usize::from(w), Style::new());
        col += w.max(9) + 1;
    }
}
