//! Stage: text → file. Every file flametui writes (`-o`, the viewer's exports) goes
//! through here, so that no command ever destroys a user's file:
//!
//! * [`refuse_input`]: an output that is one of the inputs (the same device and inode
//!   once links are followed: a symlink, a hard link, `./x/../in`) is refused before
//!   anything is read or written;
//! * [`Replacement`]: the bytes go to a temporary file in the target's directory, which is
//!   renamed over the target only when complete — an interrupted or failed export leaves
//!   the target as it was, never half written. The temporary file takes the target's
//!   permissions; a symlinked target is written where the link points (the link stays);
//!   a target that is not a regular file (`/dev/null`, a FIFO, a terminal) is written in
//!   place, since renaming over it would replace the device.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::text::sanitize;

/// Whether `a` and `b` name the same existing file, links followed.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => same_meta(&x, &y),
        _ => false,
    }
}

#[cfg(unix)]
fn same_meta(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_meta(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.file_type() == b.file_type()
}

/// Refuses an `output` that is the same file as one of `inputs` (`-` is standard input
/// and never a file here): a usage error naming both, so the user's input survives.
///
/// # Errors
/// [`crate::Error::OutputIsInput`].
pub fn refuse_input<S: AsRef<str>>(output: &Path, inputs: &[S]) -> crate::Result<()> {
    let Ok(out) = fs::metadata(output) else {
        return Ok(());
    };
    // Writing to a device (`/dev/null`) or a pipe destroys nothing.
    if !out.is_file() {
        return Ok(());
    }
    for input in inputs.iter().map(AsRef::as_ref).filter(|i| *i != "-") {
        if fs::metadata(input).is_ok_and(|m| same_meta(&m, &out)) {
            return Err(crate::Error::OutputIsInput {
                output: output.display().to_string(),
                input: input.to_owned(),
            });
        }
    }
    Ok(())
}

/// A file being written that replaces its target only once complete
/// ([`Replacement::commit`]); dropped without a commit, it removes its temporary file and
/// the target is untouched.
#[derive(Debug)]
pub struct Replacement {
    out: BufWriter<File>,
    /// The temporary file, renamed over `target` by the commit (`None`: written in place).
    temp: Option<PathBuf>,
    target: PathBuf,
}

/// Distinguishes the temporary files of one process.
static NEXT: AtomicU32 = AtomicU32::new(0);

impl Replacement {
    /// Starts writing `path`: a temporary file beside it, or the path itself when it is
    /// not a regular file.
    ///
    /// # Errors
    /// The directory cannot be written to, or the device cannot be opened.
    pub fn create(path: &Path) -> io::Result<Self> {
        let existing = fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = OpenOptions::new().write(true).truncate(true).open(path)?;
            return Ok(Self {
                out: BufWriter::new(file),
                temp: None,
                target: path.to_owned(),
            });
        }
        // A link is followed: the file it points to is replaced, the link stays.
        let target = match &existing {
            Some(_) => fs::canonicalize(path)?,
            None => path.to_owned(),
        };
        let (temp, file) = temp_beside(&target)?;
        if let Some(m) = existing {
            // Best effort: the file keeps its mode (a failure leaves the default one).
            let _ = fs::set_permissions(&temp, m.permissions());
        }
        Ok(Self {
            out: BufWriter::with_capacity(256 << 10, file),
            temp: Some(temp),
            target,
        })
    }

    /// The temporary file being written, if any (to remove on a signal).
    pub fn temp_path(&self) -> Option<&Path> {
        self.temp.as_deref()
    }

    /// Flushes the bytes and renames the temporary file over the target.
    ///
    /// # Errors
    /// Flushing, syncing or renaming failed (the temporary file is removed).
    pub fn commit(mut self) -> io::Result<()> {
        self.out.flush()?;
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        // No fsync: it guards against a crash of the machine, not of the program, and
        // cost 0.25 s per 100 MB written (ext4 flushes a file renamed over another).
        let done = fs::rename(&temp, &self.target);
        if done.is_err() {
            let _ = fs::remove_file(&temp);
        }
        done
    }

    /// As [`Replacement::commit`], but fails with [`io::ErrorKind::AlreadyExists`] (and
    /// writes nothing) when the target appeared meanwhile.
    ///
    /// # Errors
    /// The target exists, or flushing or linking failed.
    pub fn commit_new(mut self) -> io::Result<()> {
        self.out.flush()?;
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let linked = fs::hard_link(&temp, &self.target);
        let result = match linked {
            // A file system without hard links: the check and the rename are two steps.
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists && !self.target.exists() => {
                fs::rename(&temp, &self.target)
            }
            other => other,
        };
        let _ = fs::remove_file(&temp);
        result
    }
}

impl Write for Replacement {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Creates a new temporary file in `target`'s directory, named after it and hidden.
fn temp_beside(target: &Path) -> io::Result<(PathBuf, File)> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => return Ok((temp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < u32::MAX => {}
            Err(e) => return Err(e),
        }
    }
}

/// Writes `bytes` to `path` through a [`Replacement`]: replacing the file when `replace`,
/// else failing with [`io::ErrorKind::AlreadyExists`] when it is there.
///
/// # Errors
/// As [`Replacement::create`] and [`Replacement::commit`].
pub fn write_file(path: &Path, bytes: &[u8], replace: bool) -> io::Result<()> {
    if !replace && fs::symlink_metadata(path).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", sanitize(&path.display().to_string())),
        ));
    }
    let mut f = Replacement::create(path)?;
    f.write_all(bytes)?;
    if replace { f.commit() } else { f.commit_new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory, removed when the test ends (passed or failed).
    struct Dir(PathBuf);

    impl std::ops::Deref for Dir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn dir(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("flametui-output-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn an_uncommitted_replacement_leaves_the_target_and_no_temporary_file() {
        let d = dir("drop");
        let target = d.join("out.txt");
        fs::write(&target, b"before").unwrap();
        {
            let mut r = Replacement::create(&target).unwrap();
            r.write_all(b"half of the new").unwrap();
            r.flush().unwrap();
            assert_eq!(entries(&d).len(), 2, "the temporary file sits beside it");
        }
        assert_eq!(fs::read(&target).unwrap(), b"before");
        assert_eq!(entries(&d), ["out.txt"]);
    }

    #[test]
    fn a_commit_replaces_the_target_keeping_its_mode_and_its_links() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("commit");
        let target = d.join("real.txt");
        fs::write(&target, b"before").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut r = Replacement::create(&link).unwrap();
        r.write_all(b"after").unwrap();
        r.commit().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"after");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(entries(&d), ["link.txt", "real.txt"]);
    }

    #[test]
    fn a_device_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let mut r = Replacement::create(Path::new("/dev/null")).unwrap();
        assert!(r.temp_path().is_none());
        r.write_all(b"x").unwrap();
        r.commit().unwrap();
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[test]
    fn a_new_file_is_not_written_over_one_that_exists() {
        let d = dir("new");
        let target = d.join("x.svg");
        write_file(&target, b"one", false).unwrap();
        let e = write_file(&target, b"two", false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&target).unwrap(), b"one");
        write_file(&target, b"three", true).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"three");
        assert_eq!(entries(&d), ["x.svg"]);
    }

    #[test]
    fn the_same_file_is_found_through_links_and_dot_dots() {
        let d = dir("same");
        let input = d.join("in.data");
        fs::write(&input, b"PERFILE2").unwrap();
        fs::create_dir_all(d.join("x")).unwrap();
        std::os::unix::fs::symlink(&input, d.join("sym")).unwrap();
        fs::hard_link(&input, d.join("hard")).unwrap();
        let inputs = [input.to_str().unwrap().to_owned()];
        for out in [
            input.clone(),
            d.join("sym"),
            d.join("hard"),
            d.join("x").join("..").join("in.data"),
        ] {
            let e = refuse_input(&out, &inputs).unwrap_err();
            assert!(e.is_usage(), "{e}");
            assert!(e.to_string().contains("in.data"), "{e}");
        }
        refuse_input(&d.join("other"), &inputs).unwrap();
        refuse_input(Path::new("/dev/null"), &["/dev/null"]).unwrap();
        refuse_input(&input, &["-"]).unwrap();
    }
}
