//! Stage: frame → colour. FlameGraph's warm palette with the hue picked by a hash of the
//! name (the same name is always the same colour), its own hues for annotated kernel (`_[k]`,
//! violet), JIT (`_[j]`, green) and inline (`_[i]`, aqua) frames and blue for the
//! `[off-cpu]` subtree — at least 20° of hue apart in every colour depth — rendered for the
//! terminal's colour depth. Without colour, selection is reverse video and matches are
//! bold and underlined.

use ratatui::style::{Color, Modifier, Style};

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// 24-bit RGB.
    TrueColor,
    /// The xterm 256-colour palette.
    Ansi256,
    /// The 16 ANSI colours.
    Ansi16,
    /// No colour at all (`NO_COLOR`, `--color never`, `TERM=dumb`).
    Mono,
}

/// What the user asked for with `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Detect from the environment, honouring `NO_COLOR`.
    #[default]
    Auto,
    /// Colour even with `NO_COLOR` or `TERM=dumb` (depth still detected, at least 16).
    Always,
    /// No colour.
    Never,
    /// 24-bit colour.
    TrueColor,
    /// 256 colours.
    Ansi256,
    /// 16 colours.
    Ansi16,
}

/// The environment variables colour detection reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColorEnv {
    /// `NO_COLOR` is set to something non-empty.
    pub no_color: bool,
    /// `COLORTERM` (not forwarded by SSH).
    pub colorterm: Option<String>,
    /// `TERM`.
    pub term: Option<String>,
}

impl ColorEnv {
    /// Reads the process environment.
    pub fn from_env() -> Self {
        let var = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
        Self {
            no_color: var("NO_COLOR").is_some(),
            colorterm: var("COLORTERM"),
            term: var("TERM"),
        }
    }
}

/// Picks the colour mode for a choice and an environment.
pub fn detect(choice: ColorChoice, env: &ColorEnv) -> ColorMode {
    let depth = || {
        let ct = env.colorterm.as_deref().unwrap_or("");
        let term = env.term.as_deref().unwrap_or("");
        if ct.contains("truecolor") || ct.contains("24bit") || term.contains("direct") {
            ColorMode::TrueColor
        } else if term.contains("256") {
            ColorMode::Ansi256
        } else {
            ColorMode::Ansi16
        }
    };
    match choice {
        ColorChoice::Never => ColorMode::Mono,
        ColorChoice::TrueColor => ColorMode::TrueColor,
        ColorChoice::Ansi256 => ColorMode::Ansi256,
        ColorChoice::Ansi16 => ColorMode::Ansi16,
        ColorChoice::Auto if env.no_color || env.term.as_deref() == Some("dumb") => ColorMode::Mono,
        ColorChoice::Always | ColorChoice::Auto => depth(),
    }
}

/// The family of colours a frame is drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hue {
    /// User code: red to yellow.
    Hot,
    /// Kernel frames (`_[k]`): violet (magenta in 16 colours).
    Kernel,
    /// JIT-compiled frames (`_[j]`): green.
    Jit,
    /// Inlined frames (`_[i]`): aqua.
    Inline,
    /// Frames under `[off-cpu]`: blue.
    OffCpu,
    /// A cell of frames too narrow to draw one by one: grey.
    Group,
    /// Coloured by library (`C`): a hue of the whole wheel from the library's name, so
    /// that neighbouring libraries differ; the name hashed is the library's.
    Library,
}

/// The hue of a frame named `name`; `offcpu` when it lies under `[off-cpu]`.
pub fn hue(name: &str, offcpu: bool) -> Hue {
    if offcpu {
        Hue::OffCpu
    } else if name.ends_with("_[k]") {
        Hue::Kernel
    } else if name.ends_with("_[j]") {
        Hue::Jit
    } else if name.ends_with("_[i]") {
        Hue::Inline
    } else {
        Hue::Hot
    }
}

/// Three numbers in `[0, 1)` from a hash of the name (FNV-1a).
fn vectors(name: &str) -> (f32, f32, f32) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let part = |shift: u32| ((h >> shift) & 0xffff) as f32 / 65536.0;
    (part(0), part(16), part(32))
}

/// A colour channel from a float, clamped to `0..=255`.
#[allow(clippy::cast_sign_loss)] // clamped to a non-negative range first
fn channel(v: f32) -> u8 {
    v.clamp(0.0, 255.0) as u8
}

/// FlameGraph's RGB for a name in a hue.
pub fn rgb(name: &str, hue: Hue) -> (u8, u8, u8) {
    let (v1, v2, v3) = vectors(name);
    let c = |base: f32, range: f32, v: f32| channel(base + range * v);
    match hue {
        Hue::Hot => (c(205.0, 50.0, v3), c(0.0, 230.0, v1), c(0.0, 55.0, v2)),
        // Violet, not FlameGraph's orange: the hot palette's red to yellow holds orange too,
        // and in 256 colours both fell on the same cells of the cube.
        Hue::Kernel => (c(175.0, 40.0, v1), c(115.0, 30.0, v1), c(235.0, 20.0, v1)),
        Hue::Jit => (c(50.0, 60.0, v1), c(200.0, 55.0, v1), c(50.0, 60.0, v1)),
        Hue::Inline => (c(50.0, 60.0, v1), c(165.0, 55.0, v1), c(165.0, 55.0, v1)),
        Hue::OffCpu => (c(80.0, 60.0, v1), c(80.0, 60.0, v1), c(205.0, 50.0, v1)),
        Hue::Group => (150, 150, 150),
        Hue::Library => wheel(v1, 0.45 + 0.2 * v2, 0.92),
    }
}

/// An RGB colour of hue `h` (a turn, `[0, 1)`), saturation `s` and value `v`.
#[allow(clippy::many_single_char_names, clippy::cast_sign_loss)] // HSV's own names; clamped
fn wheel(h: f32, s: f32, v: f32) -> (u8, u8, u8) {
    let h6 = (h.fract() * 6.0).clamp(0.0, 5.999);
    let sector = h6.floor();
    let f = h6 - sector;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let (r, g, b) = match sector as u8 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    (channel(r * 255.0), channel(g * 255.0), channel(b * 255.0))
}

/// Nearest colour of the xterm 6×6×6 cube.
pub fn to_256((r, g, b): (u8, u8, u8)) -> u8 {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let near = |v: u8| {
        (0u8..6)
            .min_by_key(|&i| LEVELS[usize::from(i)].abs_diff(v))
            .unwrap_or(0)
    };
    16 + 36 * near(r) + 6 * near(g) + near(b)
}

fn ansi16(name: &str, hue: Hue) -> (Color, Color) {
    let (v1, _, _) = vectors(name);
    let pick = |colors: &[Color]| {
        let i = usize::from(channel(v1 * colors.len() as f32));
        colors
            .get(i)
            .or(colors.first())
            .copied()
            .unwrap_or(Color::Red)
    };
    match hue {
        Hue::Hot => (
            pick(&[
                Color::Red,
                Color::LightRed,
                Color::Yellow,
                Color::LightYellow,
            ]),
            Color::Black,
        ),
        Hue::Kernel => (Color::Magenta, Color::Black),
        Hue::Jit => (pick(&[Color::Green, Color::LightGreen]), Color::Black),
        Hue::Inline => (pick(&[Color::Cyan, Color::LightCyan]), Color::Black),
        Hue::OffCpu => (pick(&[Color::Blue, Color::LightBlue]), Color::White),
        Hue::Group => (Color::Gray, Color::DarkGray),
        Hue::Library => (
            pick(&[
                Color::Red,
                Color::Green,
                Color::Yellow,
                Color::Blue,
                Color::Magenta,
                Color::Cyan,
                Color::LightRed,
                Color::LightGreen,
                Color::LightYellow,
                Color::LightBlue,
                Color::LightMagenta,
                Color::LightCyan,
            ]),
            Color::Black,
        ),
    }
}

fn mix((r, g, b): (u8, u8, u8), (r2, g2, b2): (u8, u8, u8), keep: f32) -> (u8, u8, u8) {
    let m = |a: u8, b: u8| channel(f32::from(a) * keep + f32::from(b) * (1.0 - keep));
    (m(r, r2), m(g, g2), m(b, b2))
}

fn paint(mode: ColorMode, rgb: (u8, u8, u8)) -> Color {
    match mode {
        ColorMode::TrueColor => Color::Rgb(rgb.0, rgb.1, rgb.2),
        _ => Color::Indexed(to_256(rgb)),
    }
}

/// The style of a frame cell: background from the palette, dark text; `dim` for the
/// ancestors of the zoomed frame.
pub fn frame_style(mode: ColorMode, name: &str, hue: Hue, dim: bool) -> Style {
    const DARK: (u8, u8, u8) = (40, 40, 40);
    match mode {
        ColorMode::Mono if dim => Style::new().add_modifier(Modifier::DIM),
        ColorMode::Mono => Style::new(),
        ColorMode::Ansi16 if dim => Style::new().bg(Color::DarkGray).fg(Color::Gray),
        ColorMode::Ansi16 => {
            let (bg, fg) = ansi16(name, hue);
            Style::new().bg(bg).fg(fg)
        }
        ColorMode::TrueColor | ColorMode::Ansi256 => {
            let base = rgb(name, hue);
            let (bg, fg) = if dim {
                (mix(base, DARK, 0.35), (170, 170, 170))
            } else if hue == Hue::Group {
                (base, (90, 90, 90))
            } else {
                (base, (0, 0, 0))
            };
            Style::new().bg(paint(mode, bg)).fg(paint(mode, fg))
        }
    }
}

/// `style` marked as a search match (FlameGraph's magenta; bold and underlined without colour).
pub fn matched(mode: ColorMode, style: Style) -> Style {
    let marked = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    match mode {
        ColorMode::Mono => marked.remove_modifier(Modifier::DIM),
        ColorMode::Ansi16 => marked.bg(Color::LightMagenta).fg(Color::Black),
        _ => marked
            .bg(paint(mode, (230, 0, 230)))
            .fg(paint(mode, (0, 0, 0))),
    }
}

/// How the flame graph marks what is not a frame's own colour: the selection and the
/// frames matching the search. A host embedding the graph sets its own; the default is
/// the viewer's (reverse video and bold; bold underlined magenta).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Theme {
    /// Laid over the selected frame's style; `None`: reverse video and bold.
    pub selected: Option<Style>,
    /// Laid over a matching frame's style; `None`: bold, underlined, on magenta.
    pub matched: Option<Style>,
}

impl Theme {
    /// The viewer's theme with `style` laid over the selected frame.
    #[must_use]
    pub fn selected(mut self, style: Style) -> Self {
        self.selected = Some(style);
        self
    }

    /// The viewer's theme with `style` laid over the frames the search matches.
    #[must_use]
    pub fn matched(mut self, style: Style) -> Self {
        self.matched = Some(style);
        self
    }

    /// `style` of a frame marked as the selection.
    pub(crate) fn select(&self, style: Style) -> Style {
        match self.selected {
            Some(s) => style.remove_modifier(Modifier::DIM).patch(s),
            None => selected(style),
        }
    }

    /// `style` of a frame the search matches, in colour mode `mode`.
    pub(crate) fn mark(&self, mode: ColorMode, style: Style) -> Style {
        match self.matched {
            Some(s) => style.remove_modifier(Modifier::DIM).patch(s),
            None => matched(mode, style),
        }
    }
}

/// `style` marked as the selection: reverse video and bold in every mode.
pub fn selected(style: Style) -> Style {
    style
        .add_modifier(Modifier::REVERSED | Modifier::BOLD)
        .remove_modifier(Modifier::DIM)
}

/// Style of bars of chrome (header, footer) in this mode.
pub fn chrome(mode: ColorMode) -> Style {
    match mode {
        ColorMode::Mono => Style::new().add_modifier(Modifier::REVERSED),
        ColorMode::Ansi16 => Style::new().bg(Color::DarkGray).fg(Color::White),
        _ => Style::new()
            .bg(paint(mode, (50, 50, 60)))
            .fg(paint(mode, (230, 230, 230))),
    }
}

/// Style of error text.
pub fn error(mode: ColorMode) -> Style {
    match mode {
        ColorMode::Mono => Style::new().add_modifier(Modifier::BOLD),
        _ => Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(no_color: bool, colorterm: Option<&str>, term: Option<&str>) -> ColorEnv {
        ColorEnv {
            no_color,
            colorterm: colorterm.map(str::to_owned),
            term: term.map(str::to_owned),
        }
    }

    #[test]
    fn detection() {
        use ColorChoice as C;
        use ColorMode as M;
        let ssh = env(false, None, Some("xterm-256color"));
        assert_eq!(detect(C::Auto, &ssh), M::Ansi256);
        assert_eq!(
            detect(C::Auto, &env(false, Some("truecolor"), None)),
            M::TrueColor
        );
        assert_eq!(detect(C::Auto, &env(false, None, Some("xterm"))), M::Ansi16);
        assert_eq!(
            detect(C::Auto, &env(true, Some("truecolor"), None)),
            M::Mono
        );
        assert_eq!(detect(C::Auto, &env(false, None, Some("dumb"))), M::Mono);
        assert_eq!(
            detect(C::Always, &env(true, None, Some("xterm"))),
            M::Ansi16
        );
        assert_eq!(detect(C::Never, &ssh), M::Mono);
        assert_eq!(detect(C::Ansi16, &ssh), M::Ansi16);
        assert_eq!(detect(C::TrueColor, &ssh), M::TrueColor);
    }

    #[test]
    fn hues_and_stable_colours() {
        assert_eq!(hue("do_syscall_64_[k]", false), Hue::Kernel);
        assert_eq!(hue("Interpreter_[j]", false), Hue::Jit);
        assert_eq!(hue("inlined_[i]", false), Hue::Inline);
        assert_eq!(hue("main", false), Hue::Hot);
        assert_eq!(hue("do_syscall_64_[k]", true), Hue::OffCpu);
        assert_eq!(rgb("main", Hue::Hot), rgb("main", Hue::Hot));
        let (r, _, b) = rgb("main", Hue::Hot);
        assert!(r >= 205 && b < 55);
        let (r, g, b) = rgb("x", Hue::OffCpu);
        assert!(b > r && b > g);
    }

    /// The RGB a terminal shows for a colour of a frame (the xterm defaults for the 16).
    fn shown_rgb(c: Color) -> (u8, u8, u8) {
        const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
        match c {
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(i) if (16..232).contains(&i) => {
                let i = usize::from(i - 16);
                (LEVELS[i / 36], LEVELS[i / 6 % 6], LEVELS[i % 6])
            }
            Color::Black => (0, 0, 0),
            Color::Red => (205, 0, 0),
            Color::Green => (0, 205, 0),
            Color::Yellow => (205, 205, 0),
            Color::Blue => (0, 0, 238),
            Color::Magenta => (205, 0, 205),
            Color::Cyan => (0, 205, 205),
            Color::Gray => (229, 229, 229),
            Color::DarkGray => (127, 127, 127),
            Color::LightRed => (255, 0, 0),
            Color::LightGreen => (0, 255, 0),
            Color::LightYellow => (255, 255, 0),
            Color::LightBlue => (92, 92, 255),
            Color::LightMagenta => (255, 0, 255),
            Color::LightCyan => (0, 255, 255),
            other => panic!("unexpected frame colour {other:?}"),
        }
    }

    /// Hue in degrees, or `None` for a grey.
    #[allow(clippy::many_single_char_names)] // the textbook formula
    fn hue_of((r, g, b): (u8, u8, u8)) -> Option<f32> {
        let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
        let (max, min) = (r.max(g).max(b), r.min(g).min(b));
        let d = max - min;
        if d < 1.0 {
            return None;
        }
        let h = if (max - r).abs() < f32::EPSILON {
            60.0 * ((g - b) / d)
        } else if (max - g).abs() < f32::EPSILON {
            60.0 * ((b - r) / d + 2.0)
        } else {
            60.0 * ((r - g) / d + 4.0)
        };
        Some(h.rem_euclid(360.0))
    }

    /// In each colour depth, every colour of one family of frames (user code, kernel, JIT,
    /// inlined, off-CPU) is at least `MIN_APART` degrees of hue from every colour of another,
    /// over many names: kernel frames no longer take the oranges of user code in 256 colours
    /// (nor in truecolor, where the hot palette's red-to-yellow holds orange too).
    fn families_apart(mode: ColorMode) {
        const MIN_APART: f32 = 20.0;
        let families = [Hue::Hot, Hue::Kernel, Hue::Jit, Hue::Inline, Hue::OffCpu];
        let names: Vec<String> = (0..400).map(|i| format!("fn{i}::work")).collect();
        let hues: Vec<Vec<f32>> = families
            .iter()
            .map(|&h| {
                names
                    .iter()
                    .map(|n| {
                        let bg = frame_style(mode, n, h, false).bg.unwrap_or(Color::Reset);
                        hue_of(shown_rgb(bg)).unwrap_or_else(|| panic!("{h:?} {bg:?} is grey"))
                    })
                    .collect()
            })
            .collect();
        for (i, a) in hues.iter().enumerate() {
            for (j, b) in hues.iter().enumerate().skip(i + 1) {
                let closest = a
                    .iter()
                    .flat_map(|x| {
                        b.iter()
                            .map(move |y| (x - y).abs().min(360.0 - (x - y).abs()))
                    })
                    .fold(f32::MAX, f32::min);
                assert!(
                    closest >= MIN_APART,
                    "{mode:?}: {:?} and {:?} are {closest}° apart",
                    families[i],
                    families[j]
                );
            }
        }
        // Group cells stay grey.
        let group = frame_style(mode, "x", Hue::Group, false)
            .bg
            .unwrap_or(Color::Reset);
        assert_eq!(hue_of(shown_rgb(group)), None, "{mode:?}");
    }

    #[test]
    fn kernel_jit_and_inline_hues_in_truecolor() {
        families_apart(ColorMode::TrueColor);
    }

    #[test]
    fn kernel_jit_and_inline_hues_in_256_colours() {
        families_apart(ColorMode::Ansi256);
    }

    #[test]
    fn kernel_jit_and_inline_hues_in_16_colours() {
        families_apart(ColorMode::Ansi16);
    }

    #[test]
    fn cube_mapping() {
        assert_eq!(to_256((0, 0, 0)), 16);
        assert_eq!(to_256((255, 255, 255)), 231);
        assert_eq!(to_256((255, 0, 0)), 196);
    }

    #[test]
    fn mono_uses_modifiers_only() {
        let s = frame_style(ColorMode::Mono, "main", Hue::Hot, false);
        assert_eq!(s.bg, None);
        let m = matched(ColorMode::Mono, s);
        assert!(
            m.add_modifier
                .contains(Modifier::BOLD | Modifier::UNDERLINED)
        );
        assert!(selected(s).add_modifier.contains(Modifier::REVERSED));
    }
}
