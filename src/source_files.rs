//! Stage: files → text. The source files the Source screen and `--annotate` show, found
//! as `go tool pprof` finds them: the path the profile names, rewritten by the first
//! `--source-prefix OLD=NEW` whose OLD starts it (pprof's `-trim_path`), looked for under
//! each `--source-path DIR` first (the whole path below it, then its file name), then
//! where it says. Files are read once and kept — once however many of the profile's
//! paths lead to one file (`a.c`, `./a.c`, `x/a.c` under `--source-path`); a file that is
//! not there is remembered with the paths looked at, for the screen to say.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest source file read (a generated file past it is not a source to read).
pub const MOST_BYTES: u64 = 16 << 20;

// A line's start is kept in a `u32`.
const _: () = assert!(MOST_BYTES <= u32::MAX as u64);

/// Where source files are looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceSearch {
    /// Directories searched first (`--source-path`), in order.
    pub dirs: Vec<PathBuf>,
    /// Path prefixes rewritten (`--source-prefix OLD=NEW`), the first match only.
    pub prefixes: Vec<(String, String)>,
}

/// A source file as read: its lines (tabs and all, unsanitised), or the paths tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceText {
    /// The file's lines, and where it was found.
    Found {
        /// The file read.
        path: PathBuf,
        /// Its lines (shared by every path the profile names it by).
        lines: Arc<FileLines>,
    },
    /// Not found (or unreadable) at any of these paths.
    Missing(Vec<PathBuf>),
}

impl SourceText {
    /// Line `number` (from 1), if the file was read and has it.
    pub fn line(&self, number: u32) -> Option<&str> {
        match self {
            Self::Found { lines, .. } => lines.get((number as usize).checked_sub(1)?),
            Self::Missing(_) => None,
        }
    }
}

/// A file's text and where each of its lines starts: four bytes a line, where a `String`
/// a line took 24 and an allocation (a 16 MiB file of empty lines held 400 MB). Its lines
/// are those of [`str::lines`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLines {
    text: String,
    starts: Vec<u32>,
}

impl FileLines {
    /// The lines of `text`.
    pub fn new(text: String) -> Self {
        let len = text.len();
        // Counted first, so that the starts take no more room than they need.
        let mut starts =
            Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
        starts.extend(
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
                .take_while(|&start| start < len)
                .map(|start| start as u32),
        );
        Self { text, starts }
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there is no line.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Line `index` (from 0), without its end (`\n` or `\r\n`).
    pub fn get(&self, index: usize) -> Option<&str> {
        let start = *self.starts.get(index)? as usize;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let line = self.text.get(start..end)?;
        Some(
            line.strip_suffix('\n')
                .map_or(line, |l| l.strip_suffix('\r').unwrap_or(l)),
        )
    }
}

impl SourceSearch {
    /// Parses `OLD=NEW` of `--source-prefix`.
    ///
    /// # Errors
    /// No `=` in it: what it should be.
    pub fn prefix(arg: &str) -> Result<(String, String), String> {
        arg.split_once('=')
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .ok_or_else(|| format!("`{arg}` is not OLD=NEW"))
    }

    /// The paths to try for `path`, in order.
    pub fn candidates(&self, path: &str) -> Vec<PathBuf> {
        let rewritten = self
            .prefixes
            .iter()
            .find_map(|(old, new)| {
                path.strip_prefix(old.as_str())
                    .map(|rest| format!("{new}{rest}"))
            })
            .unwrap_or_else(|| path.to_owned());
        let p = Path::new(&rewritten);
        let mut out = Vec::new();
        for dir in &self.dirs {
            out.push(dir.join(p.strip_prefix("/").unwrap_or(p)));
            if let Some(name) = p.file_name() {
                out.push(dir.join(name));
            }
        }
        out.push(p.to_path_buf());
        out.dedup();
        out
    }

    /// Reads `path`'s source at the first candidate that is a regular file of at most
    /// [`MOST_BYTES`], read no further than that (a file whose size says 0 and is not,
    /// `/proc/self/pagemap`, or one that grows, is not read to its end).
    pub fn read(&self, path: &str) -> SourceText {
        self.read_sharing(path, &mut FilesRead::default())
    }

    /// As [`SourceSearch::read`], a file in `files` taken from there, one read added.
    fn read_sharing(&self, path: &str, files: &mut FilesRead) -> SourceText {
        let tried = self.candidates(path);
        for c in &tried {
            if let Some(lines) = read_bounded(c, files) {
                return SourceText::Found {
                    path: c.clone(),
                    lines,
                };
            }
        }
        SourceText::Missing(tried)
    }
}

/// The files read, by device and inode.
type FilesRead = HashMap<(u64, u64), Arc<FileLines>>;

/// The lines of the regular file at `path` when it has at most [`MOST_BYTES`] (checked on
/// the file opened, then while reading); `None` otherwise. Opened without blocking, so a
/// FIFO named as a source cannot hang the viewer; taken from `files` when read already,
/// else added there.
fn read_bounded(path: &Path, files: &mut FilesRead) -> Option<Arc<FileLines>> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MOST_BYTES {
        return None;
    }
    let id = (meta.dev(), meta.ino());
    if let Some(lines) = files.get(&id) {
        return Some(Arc::clone(lines));
    }
    // Room for what the size says (and a byte to see the end), not twice as much.
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.take(MOST_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MOST_BYTES {
        return None;
    }
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let lines = Arc::new(FileLines::new(text));
    files.insert(id, Arc::clone(&lines));
    Some(lines)
}

/// Source files read so far, by the path the profile names.
#[derive(Debug, Default)]
pub struct SourceCache {
    /// How files are looked for.
    pub search: SourceSearch,
    read: HashMap<String, SourceText>,
    files: FilesRead,
}

impl SourceCache {
    /// A cache looking for files as `search` says.
    pub fn new(search: SourceSearch) -> Self {
        Self {
            search,
            read: HashMap::new(),
            files: FilesRead::default(),
        }
    }

    /// The text of `path` if [`SourceCache::get`] read it already; else a file not
    /// looked for (missing at no path).
    pub fn peek(&self, path: &str) -> &SourceText {
        static NOT_READ: SourceText = SourceText::Missing(Vec::new());
        self.read.get(path).unwrap_or(&NOT_READ)
    }

    /// The text of `path`, read the first time it is asked for.
    pub fn get(&mut self, path: &str) -> &SourceText {
        if !self.read.contains_key(path) {
            let text = self.search.read_sharing(path, &mut self.files);
            self.read.insert(path.to_owned(), text);
        }
        &self.read[path]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_bigger_than_its_size_says_or_not_a_file_is_not_read() {
        // `/proc/self/pagemap` says 0 bytes and holds gigabytes; a directory is no source.
        let mut files = FilesRead::default();
        if std::path::Path::new("/proc/self/pagemap").exists() {
            assert_eq!(
                read_bounded(Path::new("/proc/self/pagemap"), &mut files),
                None
            );
        }
        assert_eq!(read_bounded(Path::new("/"), &mut files), None);
        assert_eq!(
            read_bounded(Path::new("/nonexistent/x.c"), &mut files),
            None
        );
        assert!(files.is_empty());
    }

    #[test]
    fn a_files_lines_are_those_of_str_lines() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "\r\n\r\nx\n\ny",
            "é\n\tü\n",
        ] {
            let lines = FileLines::new(text.to_owned());
            let got: Vec<&str> = (0..lines.len()).map(|i| lines.get(i).unwrap()).collect();
            assert_eq!(got, text.lines().collect::<Vec<_>>(), "{text:?}");
            assert_eq!(lines.get(lines.len()), None);
        }
        let lines = FileLines::new("\n".repeat(1 << 20));
        assert_eq!(lines.len(), 1 << 20);
        assert_eq!(lines.get((1 << 20) - 1), Some(""));
    }

    #[test]
    fn prefixes_are_rewritten_and_source_dirs_come_first() {
        let s = SourceSearch {
            dirs: vec![PathBuf::from("src-copy")],
            prefixes: vec![("/build/".to_owned(), "/home/me/".to_owned())],
        };
        assert_eq!(
            s.candidates("/build/app/main.go"),
            [
                PathBuf::from("src-copy/home/me/app/main.go"),
                PathBuf::from("src-copy/main.go"),
                PathBuf::from("/home/me/app/main.go"),
            ]
        );
        assert_eq!(
            SourceSearch::prefix("a=b"),
            Ok(("a".to_owned(), "b".to_owned()))
        );
        assert!(SourceSearch::prefix("ab").is_err());
    }

    #[test]
    fn a_file_is_read_by_lines_and_a_missing_one_says_where_it_was_looked_for() {
        let dir = std::env::temp_dir().join(format!("flametui-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.c"), "int main() {\n\treturn 0;\n}\n").unwrap();
        let mut cache = SourceCache::new(SourceSearch {
            dirs: vec![dir.clone()],
            prefixes: Vec::new(),
        });
        assert_eq!(cache.get("/elsewhere/a.c").line(2), Some("\treturn 0;"));
        assert_eq!(cache.get("/elsewhere/a.c").line(9), None);
        // Every path that leads to a.c shares the one read of it.
        let mut lines_of = |p: &str| match cache.get(p) {
            SourceText::Found { lines, .. } => Arc::clone(lines),
            SourceText::Missing(_) => panic!("{p} not found"),
        };
        let a = lines_of("/elsewhere/a.c");
        for p in ["x/a.c", "./a.c", "a.c"] {
            assert!(Arc::ptr_eq(&a, &lines_of(p)), "{p}");
        }
        assert_eq!(cache.files.len(), 1);
        match cache.get("/elsewhere/b.c") {
            SourceText::Missing(tried) => assert_eq!(tried.len(), 3),
            SourceText::Found { .. } => panic!("found a file that is not there"),
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
