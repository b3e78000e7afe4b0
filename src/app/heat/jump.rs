//! Stage: application state — big steps of the heat map's cursor (a tenth of a second, a
//! second, a tenth of the recording) and the range typed after `:` (`2.0,2.74`, seconds
//! from the first sample). Pure functions over the grid on screen.

use super::state::Span;
use crate::view::heatmap::{Grid, SECOND};

/// What a typed range looks like, for the messages.
const EXAMPLE: &str = "type start,end in seconds, e.g. 2.0,2.74";

/// Nanoseconds a step of `span` moves, on a recording `span_ns` long.
pub fn step_ns(span: Span, recording_ns: u64) -> u64 {
    match span {
        Span::Tenth => SECOND / 10,
        Span::Second => SECOND,
        Span::Recording => (recording_ns / 10).max(1),
    }
}

/// The cell holding time `t` (ns from the first sample), the nearest one on screen when
/// `t` is off it.
pub fn cell_at(grid: &Grid, t: u64) -> (u16, u32) {
    let second = t / SECOND;
    let col = second.saturating_sub(grid.scale.first) / grid.scale.per_col.max(1);
    let col = u16::try_from(col)
        .unwrap_or(u16::MAX)
        .min(grid.cols.saturating_sub(1));
    let row = u32::try_from((t % SECOND) / grid.row_ns.max(1)).unwrap_or(u32::MAX);
    (col, row.min(grid.rows.saturating_sub(1)))
}

/// The cursor moved `by` ns forwards (or back), within `[0, end]`. A step smaller than a
/// cell (a second when a column holds several) still moves a column.
pub fn jump(grid: &Grid, cursor: (u16, u32), by: u64, forward: bool, end: u64) -> (u16, u32) {
    let (c, r) = cursor;
    let t = grid.start(c, r);
    let to = if forward {
        t.saturating_add(by).min(end)
    } else {
        t.saturating_sub(by)
    };
    let next = cell_at(grid, to);
    if next != cursor || by == 0 {
        return next;
    }
    let last = grid.cols.saturating_sub(1);
    match forward {
        true if c < last => (c + 1, r),
        false if c > 0 => (c - 1, r),
        _ => cursor,
    }
}

/// The range typed after `:` — `start,end` in seconds from the first sample — as
/// `[start, end)` ns, the end cut to the recording (`recording_ns` long).
///
/// # Errors
/// A clear message for the status line: no comma, not a number, an empty or reversed
/// range, a start past the end of the recording.
pub fn parse_range(text: &str, recording_ns: u64) -> Result<(u64, u64), String> {
    let Some((a, b)) = text.split_once(',') else {
        return Err(format!("No range in \"{}\": {EXAMPLE}", text.trim()));
    };
    let (start, end) = (seconds_of(a)?, seconds_of(b)?);
    if end <= start {
        return Err(format!(
            "The end ({}) is not after the start ({}): {EXAMPLE}",
            b.trim(),
            a.trim()
        ));
    }
    let last = recording_ns.saturating_add(1);
    if start >= last {
        return Err(format!(
            "The recording is {:.2} s long: {} s is past its end",
            to_seconds(recording_ns),
            a.trim()
        ));
    }
    Ok((start, end.min(last)))
}

/// Seconds (`2.74`, `2.74s`) as ns, read exactly as `--time` reads them.
fn seconds_of(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let number = t.strip_suffix('s').unwrap_or(t);
    crate::profile::slice::seconds_ns(number)
        .ok_or_else(|| format!("\"{t}\" is not a number of seconds: {EXAMPLE}"))
}

#[allow(clippy::cast_precision_loss, reason = "shown to the hundredth")]
fn to_seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::heatmap::{Cell, HeatMap};
    use crate::view::heatmap::TimeScale;

    /// A 5 s recording at 20 ms rows, one second a column.
    fn grid() -> Grid {
        let map = HeatMap {
            row_ns: 20_000_000,
            rows: 50,
            seconds: 5,
            cells: vec![Cell {
                second: 4,
                row: 49,
                samples: 1,
            }],
        };
        Grid::fitted(&map, TimeScale::fit(5, 74), 74)
    }

    const END: u64 = 5 * SECOND - 1;

    #[test]
    fn big_steps_move_the_cursor_by_their_time() {
        let g = grid();
        // 2.00 s: a tenth of a second is five 20 ms rows down.
        assert_eq!(
            jump(&g, (2, 0), step_ns(Span::Tenth, END), true, END),
            (2, 5)
        );
        // 2.90 s + 0.1 s goes over the top of the next second.
        assert_eq!(
            jump(&g, (2, 45), step_ns(Span::Tenth, END), true, END),
            (3, 0)
        );
        assert_eq!(
            jump(&g, (2, 10), step_ns(Span::Second, END), true, END),
            (3, 10)
        );
        assert_eq!(
            jump(&g, (2, 10), step_ns(Span::Second, END), false, END),
            (1, 10)
        );
        // A tenth of 5 s is 0.5 s: 25 rows.
        assert_eq!(step_ns(Span::Recording, END), 499_999_999);
        assert_eq!(jump(&g, (0, 0), 500_000_000, true, END), (0, 25));
        // Held at the edges.
        assert_eq!(jump(&g, (0, 3), SECOND, false, END), (0, 0));
        assert_eq!(jump(&g, (4, 40), SECOND, true, END), (4, 49));
    }

    #[test]
    fn a_step_within_a_wide_column_still_moves_a_column() {
        let mut g = grid();
        g.scale.per_col = 4;
        assert_eq!(jump(&g, (0, 7), SECOND, true, END), (1, 7));
        assert_eq!(jump(&g, (1, 7), SECOND, false, END), (0, 7));
    }

    #[test]
    fn the_update_moves_the_cursor_and_marks_a_typed_range() {
        use crate::app::heat::{HeatKey, HeatState, key};
        let mut heat = HeatState {
            grid: Some(grid()),
            span: 5 * SECOND,
            ..HeatState::default()
        };
        let mut view = crate::app::transforms::state::TransformStack::default();
        let mut press = |heat: &mut HeatState, k| key(heat, &mut view, k, 6).unwrap();
        press(&mut heat, HeatKey::Jump(Span::Recording, true));
        press(&mut heat, HeatKey::Jump(Span::Second, true));
        press(&mut heat, HeatKey::Jump(Span::Tenth, true));
        // 0.5 s + 1 s + 0.1 s: column 1, row 30 (1.60 s).
        assert_eq!(heat.cursor, (1, 30));
        press(&mut heat, HeatKey::Jump(Span::Tenth, false));
        assert_eq!(heat.cursor, (1, 25));
        assert!(!press(&mut heat, HeatKey::Type), "the app opens the prompt");
        heat.type_range("3,3.4").unwrap();
        assert_eq!(heat.range, Some((3 * SECOND, 3_400_000_000)));
        assert_eq!(heat.cursor, (3, 0), "the cursor at the range's start");
        assert!(heat.type_range("3").is_err());
        assert_eq!(heat.range, Some((3 * SECOND, 3_400_000_000)), "kept");
    }

    #[test]
    fn typed_ranges_read_seconds() {
        let range = Ok((2 * SECOND, 2_740_000_000));
        assert_eq!(parse_range("2.0,2.74", END), range);
        assert_eq!(parse_range(" 2 , 2.74s ", END), range);
        assert_eq!(parse_range("0,9", END), Ok((0, END + 1)), "cut to the end");
    }

    #[test]
    fn bad_ranges_say_what_is_wrong() {
        let err = |t: &str| parse_range(t, END).unwrap_err();
        assert!(err("2.0").starts_with("No range in \"2.0\""));
        assert!(err("").contains("e.g. 2.0,2.74"));
        assert!(err("a,2").starts_with("\"a\" is not a number"));
        assert!(err("1,-2").starts_with("\"-2\" is not a number"));
        assert!(err("1,nan").contains("not a number"));
        assert!(err("2.74,2.0").starts_with("The end (2.0) is not after the start (2.74)"));
        assert!(err("1,1").contains("not after"));
        assert_eq!(
            err("6,7"),
            "The recording is 5.00 s long: 6 s is past its end"
        );
    }
}
