//! The differential SVG: AFTER's shape, each frame coloured by how its share of the total
//! changed since BEFORE, as the viewer's differential view colours it.
//!
//! inferno colours a frame by its change in *counts*, on a linear scale from its largest
//! change: with sides of different totals (10,000 samples against 147) the frames closest
//! to the root take the difference of the totals and every other frame stays pale, a
//! −76 pp change among them. Here BEFORE's weights are first normalised to AFTER's total
//! (as `difffolded.pl -n` does), so inferno's change of a frame is its change of share in
//! percentage points (its tooltip's `; +12.34%`, once divided by the factor the counts
//! were scaled up by for precision), and each frame's fill is then the
//! viewer's colour of that change ([`crate::view::delta::rgb`]: on a square-root scale of
//! the largest change, so that a few pp stay visible beside tens).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::{for_xml, not_a_comment, render_svg_scaled};
use crate::profile::CallTree;
use crate::view::delta;

/// AFTER's counts are scaled up to at least this total before BEFORE is normalised to it,
/// so that rounding BEFORE's weights moves no change of share by more than 2^-20 of the
/// total; the tooltips divide the counts by the same factor again.
const PRECISION: u64 = 1 << 20;

/// Renders the differential SVG of `before` and `after` with inferno, titled `title`,
/// its counts named `unit`.
///
/// # Errors
/// Errors of the writer, or inferno's own.
pub fn diff_svg<W: Write>(
    before: &CallTree,
    after: &CallTree,
    title: &str,
    unit: &str,
    mut out: W,
) -> io::Result<()> {
    let scale = before.scale().max(after.scale());
    let up = |t: &CallTree, w: u64| w.saturating_mul(10u64.saturating_pow(scale - t.scale()));
    let (b_total, a_total) = (up(before, before.total()), up(after, after.total()));
    let k = PRECISION.div_ceil(a_total.max(1));
    let after_total = u128::from(a_total) * u128::from(k);
    let normalised = |w: u64| -> u64 {
        if b_total == 0 {
            return 0;
        }
        let b = u128::from(b_total);
        let n = (u128::from(w) * after_total + b / 2) / b;
        u64::try_from(n).unwrap_or(u64::MAX)
    };
    let mut all: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (s, w) in before.stacks() {
        let e = all
            .entry(not_a_comment(for_xml(&s).into_owned()))
            .or_default();
        e.0 = e.0.saturating_add(normalised(up(before, w)));
    }
    for (s, w) in after.stacks() {
        let e = all
            .entry(not_a_comment(for_xml(&s).into_owned()))
            .or_default();
        e.1 = e.1.saturating_add(up(after, w).saturating_mul(k));
    }
    let lines: Vec<String> = all
        .into_iter()
        .map(|(s, (b, a))| format!("{s} {b} {a}"))
        .collect();
    let mut svg = Vec::new();
    #[allow(clippy::cast_precision_loss)] // k is at most 2^20
    render_svg_scaled(&lines, title, unit, 1.0 / k as f64, &mut svg)?;
    out.write_all(recolour(&String::from_utf8_lossy(&svg), k).as_bytes())
}

/// The change a frame's title gives (`name (12 samples, 4.00%; -1.50%)`), and where its
/// number starts in the title.
fn change(title: &str) -> Option<(f64, usize)> {
    let rest = title.strip_suffix("%)")?;
    let (head, points) = rest.rsplit_once("; ")?;
    Some((points.parse().ok()?, head.len() + 2))
}

/// `svg` with each frame's change divided by `k` in its title (inferno's change is in the
/// counts it read, which are `k` times the weights its titles show) and its fill the
/// viewer's colour of that change, in pp.
fn recolour(svg: &str, k: u64) -> String {
    const TITLE: &str = "<title>";
    const END: &str = "</title>";
    const FILL: &str = "fill=\"rgb(";
    #[allow(clippy::cast_precision_loss)] // k is at most 2^20
    let k = k as f64;
    let titles = || {
        svg.match_indices(TITLE).filter_map(|(at, _)| {
            let start = at + TITLE.len();
            let end = start + svg[start..].find(END)?;
            let (counts, number) = change(&svg[start..end])?;
            Some((start + number, end, counts / k))
        })
    };
    let max = titles().fold(0.0f64, |m, (_, _, p)| m.max(p.abs()));
    let mut out = String::with_capacity(svg.len());
    let mut copied = 0;
    for (number, end, points) in titles() {
        out.push_str(&svg[copied..number]);
        if points == 0.0 {
            out.push_str("0.00%)");
        } else {
            let _ = write!(out, "{points:+.2}%)");
        }
        copied = end;
        // The frame's rectangle follows its title.
        let Some(fill) = svg[end..].find(FILL).map(|i| end + i + FILL.len()) else {
            continue;
        };
        let Some(close) = svg[fill..].find(')').map(|i| fill + i) else {
            continue;
        };
        let (r, g, b) = delta::rgb(points, max);
        out.push_str(&svg[copied..fill]);
        let _ = write!(out, "{r},{g},{b}");
        copied = close;
    }
    out.push_str(&svg[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(lines: &str) -> CallTree {
        let mut t = CallTree::new();
        for line in lines.lines() {
            let (stack, w) = line.rsplit_once(' ').unwrap();
            t.insert(stack.split(';'), w.parse().unwrap());
        }
        t.finish();
        t
    }

    /// `(title, fill)` of every frame.
    fn frames(svg: &str) -> Vec<(String, String)> {
        svg.split("<title>")
            .skip(1)
            .map(|piece| {
                let title = piece.split("</title>").next().unwrap().to_owned();
                let fill = piece.split("fill=\"").nth(1).unwrap();
                let fill = fill.split('"').next().unwrap().to_owned();
                (title, fill)
            })
            .collect()
    }

    fn svg(before: &CallTree, after: &CallTree) -> String {
        let mut out = Vec::new();
        diff_svg(before, after, "t", "samples", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_change_of_share_is_coloured_as_the_viewer_colours_it() {
        // BEFORE 10,000 samples, AFTER 147: `io` went from 80% of BEFORE to 4.08% of AFTER
        // (-75.92 pp), `cpu` from 20% to 95.92% (+75.92 pp).
        let before = tree("main;io 8000\nmain;cpu 2000\n");
        let after = tree("main;io 6\nmain;cpu 141\n");
        let f = frames(&svg(&before, &after));
        let io = f.iter().find(|(t, _)| t.starts_with("io ")).unwrap();
        let cpu = f.iter().find(|(t, _)| t.starts_with("cpu ")).unwrap();
        let main = f.iter().find(|(t, _)| t.starts_with("main ")).unwrap();
        // The tooltips keep AFTER's own counts and give the change in pp.
        assert_eq!(io.0, "io (6 samples, 4.08%; -75.92%)");
        assert_eq!(cpu.0, "cpu (141 samples, 95.92%; +75.92%)");
        // The largest changes get the viewer's full colours; main did not change.
        let (r, g, b) = delta::rgb(-75.92, 75.92);
        assert_eq!(io.1, format!("rgb({r},{g},{b})"));
        assert_eq!(io.1, "rgb(0,0,255)");
        assert_eq!(cpu.1, "rgb(255,0,0)");
        assert_eq!(main.0, "main (147 samples, 100.00%; 0.00%)");
        let (r, g, b) = delta::rgb(0.0, 75.92);
        assert_eq!(main.1, format!("rgb({r},{g},{b})"));
    }

    #[test]
    fn a_small_change_stays_visible_beside_a_large_one() {
        // a: +40 pp, b: -30 pp, c: -10 pp (a quarter of the largest: half the colour).
        let before = tree("m;a 10\nm;b 50\nm;c 40\n");
        let after = tree("m;a 50\nm;b 20\nm;c 30\n");
        let f = frames(&svg(&before, &after));
        let c = f.iter().find(|(t, _)| t.starts_with("c ")).unwrap();
        assert_eq!(c.0, "c (30 samples, 30.00%; -10.00%)");
        assert_eq!(c.1, "rgb(105,105,255)");
    }

    #[test]
    fn titles_without_a_change_keep_their_colour() {
        let svg = r#"<g><title>all (3 samples, 100%)</title><rect fill="rgb(250,250,250)"/>"#;
        assert_eq!(recolour(svg, 1), svg);
        assert_eq!(change("x (1 samples, 2.00%; +1.50%)"), Some((1.5, 21)));
        assert_eq!(change("x (1 samples, 2.00%)"), None);
    }
}
