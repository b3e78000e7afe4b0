//! Stage: application state → the shell. What `update` asks the outside world to do — put
//! text on the clipboard, write a file — as plain data ([`Effect`]); `terminal` performs it
//! and reports back with a message. Building the bytes (folded text, inferno's SVG, the
//! OSC 52 sequence) is pure and lives here.

use std::path::{Path, PathBuf};

use super::explorer::Explorer;
use crate::export;
use crate::profile::{NodeId, Profile};
use crate::text::{for_clipboard, sanitize};
use crate::view::Target;
use crate::view::clip::clip;
use crate::view::tooltip::ellipsize;

/// Something for the shell to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Put `text` on the system clipboard with OSC 52; `what` describes it for the status line.
    Copy {
        /// The text copied, as the profile has it ([`osc52`] escapes it).
        text: String,
        /// What was copied, for the status line (sanitized).
        what: String,
    },
    /// Write `bytes` to `path`.
    Write {
        /// Where.
        path: PathBuf,
        /// The file's content.
        bytes: Vec<u8>,
        /// What was written, for the status line.
        what: String,
        /// Replace a file already there (the user said so); else such a file is kept and
        /// the shell asks ([`super::ToolAction::Exists`]).
        replace: bool,
    },
    /// Stop the recording under way (SIGINT to perf and the command).
    StopRecording,
}

/// What an exported file holds, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// Folded stacks (`.txt`, `.folded`, `.collapsed`).
    Folded,
    /// An interactive SVG flame graph (`.svg`).
    Svg,
}

impl ExportKind {
    /// The kind a path asks for.
    ///
    /// # Errors
    /// The extension is not one of `.svg`, `.txt`, `.folded`, `.collapsed`.
    pub fn of(path: &str) -> Result<Self, String> {
        let ext = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("svg") => Ok(ExportKind::Svg),
            Some("txt" | "folded" | "collapsed") => Ok(ExportKind::Folded),
            _ => Err(format!(
                "{}: end the name with .svg (flame graph) or .folded / .txt (folded stacks)",
                sanitize(path)
            )),
        }
    }
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that puts `text` on the clipboard, wrapped in tmux's passthrough
/// (`ESC P tmux; … ESC \`, inner ESCs doubled) when running inside tmux. The text travels
/// base64-encoded, so no byte of it reaches the terminal raw; and it goes through the
/// clipboard's sink ([`for_clipboard`]) first, here where every copy passes, so that what
/// is pasted later holds no control (a pasted `ESC [201~` would end a bracketed paste and
/// a CR run what follows). Copied stacks keep their `;` between frames.
pub fn osc52(text: &str, tmux: bool) -> String {
    let payload = for_clipboard(text);
    let seq = format!("\x1b]52;c;{}\x07", base64(payload.as_bytes()));
    if tmux {
        format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
    } else {
        seq
    }
}

/// A default file name for exporting `source`: its name without `.gz` and extension, `.svg`.
pub fn default_export_name(source: &str) -> String {
    let name = Path::new(source)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .filter(|f| !f.starts_with('<') && !f.is_empty())
        .unwrap_or_else(|| "flametui".to_owned());
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let stem = Path::new(name)
        .file_stem()
        .map_or_else(|| name.to_owned(), |s| s.to_string_lossy().into_owned());
    format!("{stem}.svg")
}

impl Explorer {
    /// Copies the selected frame's name, or with `stack` the whole stack root → frame joined
    /// by `;`.
    ///
    /// # Errors
    /// Nothing single is selected (the root or a group of narrow frames).
    pub(crate) fn copy_effect(&self, stack: bool) -> Result<Effect, String> {
        let id = match self.selected {
            Target::Frame(id) if id != NodeId::ROOT => id,
            _ => return Err("Select a frame to copy (not the root or a group)".to_owned()),
        };
        let tree = &self.profile.tree;
        // The whole names in the style shown (demangled when the screen demangles), never
        // shortened.
        let full = |id: NodeId| self.full_name(tree.node(id).name);
        Ok(if stack {
            let frames = tree.depth(id);
            let path: Vec<_> = tree.path(id).into_iter().map(full).collect();
            Effect::Copy {
                text: path.join(";"),
                what: format!(
                    "the stack of {} frame{}",
                    crate::text::thousands(u64::from(frames)),
                    if frames == 1 { "" } else { "s" },
                ),
            }
        } else {
            copy_name(&full(id))
        })
    }

    /// Writes the view — after transforms and zoom — to `path`, as SVG or folded text by
    /// the extension. The SVG's title is the input's file name and the transforms.
    ///
    /// # Errors
    /// An unknown extension, an empty view, or inferno's own error.
    pub(crate) fn export_effect(&self, path: &str, replace: bool) -> Result<Effect, String> {
        let kind = ExportKind::of(path)?;
        let tree = clip(&self.profile.tree, &self.index, &self.zoom);
        if tree.is_empty() {
            return Err("Nothing to export: the view is empty".to_owned());
        }
        let stacks = tree.stacks().len();
        let (bytes, what) = match kind {
            ExportKind::Folded => {
                let mut bytes = Vec::new();
                export::write_lines(
                    &mut bytes,
                    &export::folded_lines(&tree),
                    export::Destination::Data,
                )
                .map_err(|e| e.to_string())?;
                (bytes, format!("{stacks} folded stacks"))
            }
            ExportKind::Svg => {
                let p = Profile {
                    metrics: crate::profile::metrics::Metrics::default(),
                    samples: std::sync::Arc::default(),
                    source: self.profile.source.clone(),
                    tree,
                    stats: self.profile.stats.clone(),
                };
                let mut bytes = Vec::new();
                export::svg(&p, &self.export_title(), &mut bytes).map_err(|e| e.to_string())?;
                (bytes, format!("SVG flame graph of {stacks} stacks"))
            }
        };
        Ok(Effect::Write {
            path: PathBuf::from(path),
            bytes,
            what,
            replace,
        })
    }

    /// `file · transforms · zoom: frame`.
    pub(crate) fn export_title(&self) -> String {
        let source = &self.profile.source;
        let mut parts = vec![
            Path::new(source)
                .file_name()
                .map_or_else(|| source.clone(), |f| f.to_string_lossy().into_owned()),
        ];
        let view = self.tools.applied.summary_named(&self.original().samples);
        if !view.is_empty() {
            parts.push(view);
        }
        if self.zoom.root != NodeId::ROOT {
            parts.push(format!("zoom: {}", self.shown_frame(self.zoom.root)));
        }
        parts.join(" · ")
    }
}

/// Copying one function name.
pub(crate) fn copy_name(name: &str) -> Effect {
    Effect::Copy {
        text: name.to_owned(),
        what: quoted(name),
    }
}

/// A name in a status message: sanitized, and short enough that the message fits 80
/// columns (`y` copies the whole name, whatever is shown).
fn quoted(name: &str) -> String {
    format!("\"{}\"", ellipsize(&sanitize(name), 24))
}

/// What the shell says after sending a copy: the terminal got an OSC 52 sequence; whether
/// it reaches the clipboard is up to the terminal (and tmux's `set-clipboard`).
pub fn copied_message(what: &str) -> String {
    format!("Sent {what} to the terminal as OSC 52 (clipboard if allowed)")
}

/// What the shell says after writing a file: the path cut in the middle, so that the line
/// fits `width` columns.
pub fn wrote_message(path: &str, what: &str, bytes: usize, width: usize) -> String {
    let tail = format!(": {what}, {} bytes", crate::text::thousands(bytes as u64));
    let room = width.saturating_sub(6 + crate::view::tooltip::display_width(&tail));
    format!(
        "Wrote {}{tail}",
        crate::view::tooltip::middle_cut(&sanitize(path), room.max(12))
    )
}

/// A file already there: what the prompt, opened again on its name, says.
pub fn exists_message(path: &str, width: usize) -> String {
    let tail = " exists · Enter replaces it · or edit the name";
    let room = width.saturating_sub(crate::view::tooltip::display_width(tail));
    format!(
        "{}{tail}",
        crate::view::tooltip::middle_cut(&sanitize(path), room.max(12))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn osc52_plain_and_through_tmux() {
        assert_eq!(osc52("foo", false), "\x1b]52;c;Zm9v\x07");
        assert_eq!(osc52("foo", true), "\x1bPtmux;\x1b\x1b]52;c;Zm9v\x07\x1b\\");
        // A hostile name never reaches the terminal raw.
        let seq = osc52("a\x1b]0;pwned\x07b", false);
        assert_eq!(seq.matches('\x1b').count(), 1);
        assert_eq!(seq.matches('\x07').count(), 1);
    }

    #[test]
    fn export_kind_by_extension() {
        assert_eq!(ExportKind::of("a/b.SVG"), Ok(ExportKind::Svg));
        assert_eq!(ExportKind::of("x.folded"), Ok(ExportKind::Folded));
        assert_eq!(ExportKind::of("x.txt"), Ok(ExportKind::Folded));
        assert!(ExportKind::of("x.png").is_err());
        assert!(ExportKind::of("noext").is_err());
    }

    #[test]
    fn export_names() {
        assert_eq!(
            default_export_name("testdata/perf-gzip-fp.txt.gz"),
            "perf-gzip-fp.svg"
        );
        assert_eq!(default_export_name("prof.folded"), "prof.svg");
        assert_eq!(default_export_name("<stdin>"), "flametui.svg");
    }
}
