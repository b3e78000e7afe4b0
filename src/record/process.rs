//! The `perf record` process: started in a process group of its own (so the viewer's keys
//! never reach it and Ctrl-C reaches it and the command as a terminal's would), woken
//! through its control FIFO, its pipe output copied to the `-o` file as it is read, and
//! stopped on request.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use super::plan::PINGS_PER_SECOND;
use crate::output::Replacement;
use crate::profile::threads::start;

/// A directory only this user can enter, in the temporary directory, removed on drop.
#[derive(Debug)]
pub struct PrivateDir(PathBuf);

impl PrivateDir {
    /// Creates one named after this process.
    ///
    /// # Errors
    /// The temporary directory cannot be written.
    pub fn new(what: &str) -> io::Result<Self> {
        let name = |n| format!("flametui-{what}-{}-{n}", std::process::id());
        fresh(name, |dir| {
            std::fs::DirBuilder::new().mode(0o700).create(dir)
        })
        .map(|(d, ())| Self(d))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A FIFO in it.
    ///
    /// # Errors
    /// It cannot be made.
    pub fn fifo(&self, name: &str) -> io::Result<PathBuf> {
        let path = self.0.join(name);
        nix::unistd::mkfifo(
            &path,
            nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
        )
        .map_err(io::Error::from)?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A log file of the command's output, created new (never over another file).
///
/// # Errors
/// It cannot be created.
pub fn new_log(asked: Option<&Path>) -> io::Result<(PathBuf, File)> {
    if let Some(path) = asked {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        return Ok((path.to_owned(), file));
    }
    let name = |n| format!("flametui-record-{}-{n}.log", std::process::id());
    fresh(name, |path| {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
    })
}

/// Makes something new in the temporary directory with `make`, under the first of
/// `name(0)`, `name(1)`, … not taken yet (never over another user's file).
fn fresh<T>(
    name: impl Fn(u32) -> String,
    make: impl Fn(&Path) -> io::Result<T>,
) -> io::Result<(PathBuf, T)> {
    let base = std::env::temp_dir();
    for n in 0..100 {
        let path = base.join(name(n));
        match make(&path) {
            Ok(thing) => return Ok((path, thing)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free name in the temporary directory",
    ))
}

/// A running `perf record`.
#[derive(Debug)]
pub struct Perf {
    child: Child,
    /// It leads a process group of its own.
    group: bool,
    pinger: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

/// How perf's standard streams are set up.
#[derive(Debug)]
pub struct Streams {
    /// Standard input: nothing (`/dev/null`) while the viewer reads the terminal.
    pub stdin_null: bool,
    /// Standard output is read (pipe mode).
    pub stdout_piped: bool,
    /// Standard error: to this file, or piped to flametui, or inherited.
    pub stderr: Stderr,
}

/// Where perf's standard error goes.
#[derive(Debug)]
pub enum Stderr {
    /// A file (the log).
    File(File),
    /// A pipe read by flametui.
    Piped,
    /// flametui's own.
    Inherit,
}

impl Perf {
    /// Starts `program` with `args`; with `own_group`, in a new process group; with
    /// `control`, pings that FIFO [`PINGS_PER_SECOND`] times a second while it runs.
    ///
    /// # Errors
    /// The program cannot be started (`NotFound` when there is no such program).
    pub fn spawn(
        program: &std::ffi::OsStr,
        args: &[OsString],
        streams: Streams,
        own_group: bool,
        control: Option<&Path>,
    ) -> io::Result<Self> {
        let mut cmd = Command::new(program);
        cmd.args(args);
        if streams.stdin_null {
            cmd.stdin(Stdio::null());
        }
        if streams.stdout_piped {
            cmd.stdout(Stdio::piped());
        }
        cmd.stderr(match streams.stderr {
            Stderr::File(f) => Stdio::from(f),
            Stderr::Piped => Stdio::piped(),
            Stderr::Inherit => Stdio::inherit(),
        });
        if own_group {
            cmd.process_group(0);
        }
        // The pinger first: a thread that cannot start (a memory limit) then leaves no
        // perf running.
        let pinger = match control {
            Some(fifo) => {
                let stop = Arc::new(AtomicBool::new(false));
                let handle = spawn_pinger(fifo.to_owned(), Arc::clone(&stop))?;
                Some((stop, handle))
            }
            None => None,
        };
        let child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => {
                if let Some((stop, handle)) = pinger {
                    stop.store(true, Ordering::Relaxed);
                    let _ = handle.join();
                }
                return Err(e);
            }
        };
        Ok(Self {
            child,
            group: own_group,
            pinger,
        })
    }

    /// Its standard output, once.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// Its standard error, once (when piped).
    pub fn take_stderr(&mut self) -> Option<std::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGINT as Ctrl-C in a terminal would: to perf and the command (its whole
    /// group), or to perf alone when it shares flametui's group.
    pub fn interrupt(&self) {
        self.signal(Signal::SIGINT);
    }

    fn signal(&self, signal: Signal) {
        let Ok(pid) = i32::try_from(self.child.id()) else {
            return;
        };
        let pid = Pid::from_raw(pid);
        let _ = if self.group {
            killpg(pid, signal)
        } else {
            kill(pid, signal)
        };
    }

    /// Whether it has ended.
    pub fn ended(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for it to end. Past `patience` after an interrupt, a command that ignores
    /// SIGINT and perf's SIGTERM is killed (SIGKILL to the group).
    ///
    /// # Errors
    /// Waiting failed.
    pub fn wait(&mut self, patience: Option<Duration>) -> io::Result<ExitStatus> {
        let status = match patience {
            None => self.child.wait()?,
            Some(patience) => {
                let start = Instant::now();
                loop {
                    if let Some(s) = self.child.try_wait()? {
                        break s;
                    }
                    if start.elapsed() > patience {
                        self.signal(Signal::SIGKILL);
                        break self.child.wait()?;
                    }
                    thread::sleep(Duration::from_millis(20));
                }
            }
        };
        self.stop_pinging();
        Ok(status)
    }

    fn stop_pinging(&mut self) {
        if let Some((stop, handle)) = self.pinger.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
    }
}

impl Drop for Perf {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.interrupt();
            let _ = self.wait(Some(Duration::from_secs(5)));
        }
        self.stop_pinging();
    }
}

/// Writes `ping` to the control FIFO [`PINGS_PER_SECOND`] times a second until `stop`.
/// The FIFO is opened for reading too, so the open never blocks and a write never fails
/// for want of a reader; non-blocking, so a perf that stopped reading never holds it.
fn spawn_pinger(fifo: PathBuf, stop: Arc<AtomicBool>) -> io::Result<JoinHandle<()>> {
    start(move || {
        let Ok(mut ctl) = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
        else {
            return;
        };
        let every = Duration::from_secs(1) / PINGS_PER_SECOND;
        let nap = Duration::from_millis(10);
        let mut waited = Duration::ZERO;
        while !stop.load(Ordering::Relaxed) {
            thread::sleep(nap);
            waited += nap;
            if waited >= every {
                waited = Duration::ZERO;
                let _ = ctl.write_all(b"ping\n");
            }
        }
    })
}

/// Chunks of perf's output on their way to the viewer.
type Chunk = io::Result<Vec<u8>>;

/// Reads perf's output on a thread of its own: each chunk is copied to `keep` (the `-o`
/// file) and handed to the returned reader. When the reader is dropped (the viewer quit),
/// the thread goes on draining perf into the file, so perf never blocks on a full pipe
/// and the file is complete. The thread returns the file, to be committed.
///
/// # Errors
/// The thread cannot be started (a memory limit).
pub fn tee(
    mut from: ChildStdout,
    mut keep: Option<Replacement>,
) -> io::Result<(ChannelReader, JoinHandle<io::Result<Option<Replacement>>>)> {
    let (tx, rx): (SyncSender<Chunk>, Receiver<Chunk>) = sync_channel(64);
    let handle = start(move || {
        let mut buf = vec![0u8; 256 << 10];
        let mut viewer = Some(tx);
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(tx) = &viewer {
                        let _ = tx.send(Err(io::Error::new(e.kind(), e.to_string())));
                    }
                    return Err(e);
                }
            };
            if let Some(file) = keep.as_mut() {
                file.write_all(&buf[..n])?;
            }
            if let Some(tx) = &viewer
                && tx.send(Ok(buf[..n].to_vec())).is_err()
            {
                viewer = None;
            }
        }
        Ok(keep)
    })?;
    Ok((
        ChannelReader {
            rx,
            chunk: Vec::new(),
            pos: 0,
        },
        handle,
    ))
}

/// The viewer's side of [`tee`].
#[derive(Debug)]
pub struct ChannelReader {
    rx: Receiver<Chunk>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.chunk.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.chunk = chunk?;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The exit status a shell would give for `status`: the code, or 128 + the signal.
pub fn shell_status(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c & 0xff).unwrap_or(1),
        (None, Some(s)) => u8::try_from(128 + s).unwrap_or(1),
        (None, None) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tee_keeps_every_byte_and_outlives_its_reader() {
        let dir = PrivateDir::new("tee-test").unwrap();
        let out = dir.path().join("kept.data");
        let mut child = Command::new("sh")
            .args(["-c", "head -c 3000000 /dev/zero | tr '\\0' x"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (mut reader, handle) = tee(stdout, Some(Replacement::create(&out).unwrap())).unwrap();
        let mut first = [0u8; 10];
        reader.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"xxxxxxxxxx");
        drop(reader);
        let file = handle.join().unwrap().unwrap().unwrap();
        file.commit().unwrap();
        child.wait().unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().len(), 3_000_000);
    }

    #[test]
    fn statuses_as_a_shell_says_them() {
        let run = |script: &str| {
            let s = Command::new("sh").args(["-c", script]).status().unwrap();
            shell_status(s)
        };
        assert_eq!(run("exit 7"), 7);
        assert_eq!(run("kill -TERM $$"), 143);
    }

    #[test]
    fn an_interrupt_reaches_the_whole_group() {
        let mut p = Perf::spawn(
            "sh".as_ref(),
            &["-c".into(), "sleep 30 & wait".into()],
            Streams {
                stdin_null: true,
                stdout_piped: false,
                stderr: Stderr::Inherit,
            },
            true,
            None,
        )
        .unwrap();
        thread::sleep(Duration::from_millis(200));
        p.interrupt();
        let status = p.wait(Some(Duration::from_secs(10))).unwrap();
        assert!(!status.success());
    }
}
