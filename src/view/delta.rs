//! Stage: change of share → colour, for the differential view of compare mode. Each frame
//! is coloured by how its share of the total changed, in percentage points (pp): red for
//! growth, blue for shrinkage, more saturated the larger the change (relative to the largest
//! change of the comparison), a neutral grey when it did not change. As `flamegraph.pl`'s
//! differential palette, in the terminal's colour depth; without colour, a `+` / `-` marker.

use crate::text::Points;
use ratatui::style::{Color, Modifier, Style};

use super::color::{ColorMode, to_256};
use crate::profile::NodeId;

/// Changes smaller than this (in pp) are shown as unchanged: they print as `0.00`.
pub const NEUTRAL_POINTS: f64 = 0.005;

/// How the frames of a graph get their colour.
#[derive(Debug, Clone, Copy, Default)]
pub enum Paint<'a> {
    /// By name, FlameGraph's palette.
    #[default]
    Names,
    /// By change of share: pp per node of the drawn tree (indexed by `NodeId`), and the
    /// largest |pp| of the comparison, which gets the full colour.
    Delta(&'a [f64], f64),
}

impl Paint<'_> {
    /// The change of a node, when painting by change.
    pub fn points(&self, id: NodeId) -> Option<f64> {
        match self {
            Paint::Names => None,
            Paint::Delta(points, _) => Some(points.get(id.0 as usize).copied().unwrap_or(0.0)),
        }
    }

    /// The style of a frame whose share changed by `points`; `dim` for ancestors of the zoom.
    pub fn style(&self, mode: ColorMode, points: f64, dim: bool) -> Style {
        let max = match self {
            Paint::Names => 0.0,
            Paint::Delta(_, max) => *max,
        };
        style(mode, points, max, dim)
    }
}

/// Direction of a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The share grew.
    Grew,
    /// The share shrank.
    Shrank,
    /// Unchanged (below [`NEUTRAL_POINTS`]).
    Same,
}

/// The direction of a change in pp.
pub fn change(points: f64) -> Change {
    if points >= NEUTRAL_POINTS {
        Change::Grew
    } else if points <= -NEUTRAL_POINTS {
        Change::Shrank
    } else {
        Change::Same
    }
}

/// The text marker of a change, for terminals without colour: `+`, `-`, or `|` (the edge
/// that frames have without colour anyway).
pub fn marker(points: f64) -> &'static str {
    match change(points) {
        Change::Grew => "+",
        Change::Shrank => "-",
        Change::Same => "|",
    }
}

/// Intensity in `[0, 1]`: |points| against the largest change, on a square-root scale so
/// that changes of a few pp stay visible next to one of tens of pp.
pub fn intensity(points: f64, max: f64) -> f64 {
    if change(points) == Change::Same || max <= 0.0 {
        return 0.0;
    }
    (points.abs() / max).clamp(0.0, 1.0).sqrt()
}

/// Grey of unchanged frames.
const NEUTRAL: (u8, u8, u8) = (210, 210, 210);

/// The RGB of a change (flamegraph.pl's: the other channels fade from 210 to 0).
pub fn rgb(points: f64, max: f64) -> (u8, u8, u8) {
    let t = intensity(points, max);
    #[allow(clippy::cast_sign_loss)] // in 0..=210
    let fade = (210.0 * (1.0 - t)).round().clamp(0.0, 210.0) as u8;
    match change(points) {
        Change::Same => NEUTRAL,
        Change::Grew => (255, fade, fade),
        Change::Shrank => (fade, fade, 255),
    }
}

/// The style of a frame whose share changed by `points` (of at most `max`).
pub fn style(mode: ColorMode, points: f64, max: f64, dim: bool) -> Style {
    match mode {
        ColorMode::Mono if dim => Style::new().add_modifier(Modifier::DIM),
        ColorMode::Mono => Style::new(),
        ColorMode::Ansi16 if dim => Style::new().bg(Color::DarkGray).fg(Color::Gray),
        ColorMode::Ansi16 => {
            let strong = intensity(points, max) >= 0.5;
            let (bg, fg) = match (change(points), strong) {
                (Change::Same, _) => (Color::White, Color::Black),
                (Change::Grew, false) => (Color::LightRed, Color::Black),
                (Change::Grew, true) => (Color::Red, Color::White),
                (Change::Shrank, false) => (Color::LightBlue, Color::Black),
                (Change::Shrank, true) => (Color::Blue, Color::White),
            };
            Style::new().bg(bg).fg(fg)
        }
        ColorMode::TrueColor | ColorMode::Ansi256 => {
            let (r, g, b) = rgb(points, max);
            let (bg, fg) = if dim {
                // A weighted mean of two bytes is a byte.
                let m = |v: u8| ((u16::from(v) * 35 + 40 * 65) / 100) as u8;
                ((m(r), m(g), m(b)), (170, 170, 170))
            } else {
                // Dark text on light colours, light text on saturated ones.
                let light = u16::from(r.min(g).min(b)) >= 100 || change(points) == Change::Same;
                ((r, g, b), if light { (0, 0, 0) } else { (255, 255, 255) })
            };
            let paint = |(r, g, b): (u8, u8, u8)| match mode {
                ColorMode::TrueColor => Color::Rgb(r, g, b),
                _ => Color::Indexed(to_256((r, g, b))),
            };
            Style::new().bg(paint(bg)).fg(paint(fg))
        }
    }
}

/// A change in pp as text: `+1.25 pp`, `-31.23 pp`, `0.00 pp`.
pub fn points_text(points: Points) -> String {
    if change(points.value()) == Change::Same {
        "0.00 pp".to_owned()
    } else {
        format!("{points:+.2} pp")
    }
}

/// A relative change as text: `+12.3%`, `-100.0%`, or `new` when there was nothing before.
pub fn relative_text(relative: Option<f64>, after: u64) -> String {
    match relative {
        Some(r) => format!("{:+.1}%", r * 100.0),
        None if after > 0 => "new".to_owned(),
        None => "—".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_intensity_and_neutral() {
        assert_eq!(change(0.004), Change::Same);
        assert_eq!(change(-31.23), Change::Shrank);
        assert_eq!(change(0.01), Change::Grew);
        assert!((intensity(-31.23, 31.23) - 1.0).abs() < 1e-12);
        assert!(intensity(1.0, 36.0) > intensity(0.5, 36.0));
        assert_eq!(rgb(0.0, 10.0), NEUTRAL);
        assert_eq!(rgb(10.0, 10.0), (255, 0, 0));
        assert_eq!(rgb(-10.0, 10.0), (0, 0, 255));
        let (r, g, b) = rgb(0.1, 10.0);
        assert!(r == 255 && g > 100 && g == b, "light red: {r} {g} {b}");
    }

    #[test]
    fn every_mode_tells_growth_from_shrinkage() {
        for mode in [ColorMode::TrueColor, ColorMode::Ansi256, ColorMode::Ansi16] {
            let up = style(mode, 5.0, 10.0, false);
            let down = style(mode, -5.0, 10.0, false);
            let same = style(mode, 0.0, 10.0, false);
            assert_ne!(up.bg, down.bg, "{mode:?}");
            assert_ne!(up.bg, same.bg, "{mode:?}");
            assert_ne!(down.bg, same.bg, "{mode:?}");
        }
        assert_eq!(
            style(ColorMode::Ansi256, 10.0, 10.0, false).bg,
            Some(Color::Indexed(196))
        );
        assert_eq!(style(ColorMode::Mono, 5.0, 10.0, false).bg, None);
        assert_eq!((marker(5.0), marker(-5.0), marker(0.0)), ("+", "-", "|"));
    }

    #[test]
    fn texts() {
        let pp = |a, b, c, d| Points {
            from: crate::text::share(a, b),
            to: crate::text::share(c, d),
        };
        assert_eq!(points_text(pp(3123, 10_000, 0, 1)), "-31.23 pp");
        assert_eq!(points_text(pp(1, 2, 50_001, 100_000)), "0.00 pp");
        assert_eq!(points_text(pp(0, 1, 1, 40)), "+2.50 pp");
        assert_eq!(relative_text(Some(-1.0), 0), "-100.0%");
        assert_eq!(relative_text(None, 5), "new");
    }
}
