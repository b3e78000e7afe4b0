//! The profile `flametui --demo` opens: a real recording compiled into the binary
//! (`assets/demo/`), so that a first look needs no file and no perf.

/// The path that names the demo. No argument can spell it (it holds a NUL byte, which no
/// path and no command-line argument can): only `--demo` opens it.
pub const PATH: &str = "\0demo";

/// What the demo is called on screen and in messages.
pub const NAME: &str = "demo: web service";

/// The recording: `perf script --show-switch-events` of `assets/demo/webdemo.c`, gzipped.
const BYTES: &[u8] = include_bytes!("../../assets/demo/webdemo.perf.gz");

/// The demo's bytes when `path` names it.
pub fn builtin(path: &str) -> Option<&'static [u8]> {
    (path == PATH).then_some(BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_demo_path_is_builtin() {
        assert!(builtin(PATH).is_some_and(|b| b.starts_with(&[0x1f, 0x8b])));
        assert!(builtin("demo").is_none());
        assert!(builtin("-").is_none());
    }
}
