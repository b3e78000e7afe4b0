//! Loading in the background: the inputs opened, read on a thread of their own while
//! another reports progress, and sent to the loop as loaded (or as snapshots while a pipe
//! streams in).

use std::io::{self, Read};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::Input;
use crate::app::Progress;
use crate::input::{self, LoadOptions, Loaded};
use crate::profile::threads::start;
use crate::profile::transform::Transform;
use crate::timeline::SliceArgs;

/// Opens an input for a loading job.
pub(super) fn open_job(
    path: &str,
    opts: &LoadOptions,
    transforms: &[Transform],
) -> io::Result<LoadJob> {
    let source = input::source_name(path);
    let opened =
        input::open_path(path).map_err(|e| io::Error::new(e.kind(), format!("{source}: {e}")))?;
    // The byte total the progress bar counts towards, when there is one.
    let (reader, total): (Box<dyn Read + Send>, Option<u64>) = match opened {
        input::Opened::Stdin => (Box::new(io::stdin()), None),
        input::Opened::Builtin(bytes) => (Box::new(bytes), Some(bytes.len() as u64)),
        input::Opened::File(file) => {
            let size = file
                .metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len());
            (Box::new(file), size)
        }
    };
    Ok(LoadJob {
        reader,
        total,
        name: source,
        opts: opts.clone(),
        transforms: transforms.to_vec(),
        slicing: SliceArgs::default(),
    })
}

/// A job reading a stream another program writes.
pub(super) fn reader_job(
    reader: Box<dyn Read + Send>,
    name: String,
    opts: &LoadOptions,
) -> LoadJob {
    LoadJob {
        reader,
        total: None,
        name,
        opts: opts.clone(),
        transforms: Vec::new(),
        slicing: SliceArgs::default(),
    }
}

/// Counts bytes as they are read.
struct Counting<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What the loading thread reads, and how.
pub(super) struct LoadJob {
    reader: Box<dyn Read + Send>,
    total: Option<u64>,
    pub(super) name: String,
    opts: LoadOptions,
    transforms: Vec<Transform>,
    /// Time and task flags, resolved once the input is read.
    pub(super) slicing: SliceArgs,
}

/// How often a streaming input refreshes the graph.
const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

/// Loads on a thread, one input after the other; another reports progress (over all the
/// inputs) ten times a second until it is done. One profile is sent as loaded, two (or the
/// two sides of a differential file) as a pair.
pub(super) fn spawn_loader(jobs: Vec<LoadJob>, tx: Sender<Input>) -> io::Result<()> {
    let total = jobs.iter().map(|j| j.total).sum::<Option<u64>>();
    let bytes = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    {
        let (bytes, done, tx) = (Arc::clone(&bytes), Arc::clone(&done), tx.clone());
        // Without it (no thread to be had) the load shows no progress.
        let _ = start(move || {
            let (mut last, mut since) = (0, Instant::now());
            while !done.load(Ordering::Relaxed) {
                let read = bytes.load(Ordering::Relaxed);
                if read != last {
                    (last, since) = (read, Instant::now());
                }
                let progress = Progress {
                    bytes: read,
                    total,
                    elapsed: started.elapsed(),
                    idle: since.elapsed(),
                };
                if tx.send(Input::Progress(progress)).is_err() {
                    break;
                }
                thread::sleep(Duration::from_millis(100));
            }
        });
    }
    // One input of unknown size (a pipe): show the graph while it streams in.
    let live = jobs.len() == 1 && jobs.iter().all(|j| j.total.is_none());
    let stop_progress = Arc::clone(&done);
    start(move || {
        let mut loaded = Vec::new();
        for mut job in jobs {
            if live {
                let tx = Mutex::new(tx.clone());
                job.opts.snapshots = Some(input::Snapshots {
                    every: SNAPSHOT_EVERY,
                    intervals: false,
                    sink: Arc::new(move |p| {
                        if let Ok(tx) = tx.lock() {
                            let _ = tx.send(Input::Snapshot(Box::new(p)));
                        }
                    }),
                });
            }
            let counting = Counting {
                inner: job.reader,
                bytes: Arc::clone(&bytes),
            };
            let name = job.name;
            let slicing = job.slicing;
            let one = std::panic::catch_unwind(AssertUnwindSafe(|| {
                input::load_reader(counting, &name, &job.opts)
                    .and_then(|l| crate::timeline::for_viewer(l, &slicing))
                    .map(|(l, slice)| (l.transformed(&job.transforms), slice))
            }));
            match one {
                Ok(Ok((l, slice))) => {
                    if let Some(slice) = slice {
                        let _ = tx.send(Input::Slice(slice));
                    }
                    loaded.push(l);
                }
                Ok(Err(e)) => loaded_err(&tx, &done, e.to_string()),
                Err(_) => loaded_err(&tx, &done, format!("{name}: internal error while reading")),
            }
            if done.load(Ordering::Relaxed) {
                return;
            }
        }
        done.store(true, Ordering::Relaxed);
        let input = match <[Loaded; 2]>::try_from(loaded) {
            Ok([a, b]) => Input::LoadedPair(
                a.into_side()
                    .and_then(|a| Ok(Box::new((a, b.into_side()?))))
                    .map_err(|e| e.to_string()),
            ),
            Err(mut one) => match one.pop() {
                Some(Loaded::Diff { before, after }) => {
                    Input::LoadedPair(Ok(Box::new((before, after))))
                }
                Some(Loaded::Single(p)) => Input::Loaded(Ok(Box::new(p))),
                None => Input::Loaded(Err("nothing to read".to_owned())),
            },
        };
        let _ = tx.send(input);
    })
    .map(drop)
    .inspect_err(|_| stop_progress.store(true, Ordering::Relaxed))
}

/// Ends loading with an error.
fn loaded_err(tx: &Sender<Input>, done: &AtomicBool, message: String) {
    done.store(true, Ordering::Relaxed);
    let _ = tx.send(Input::Loaded(Err(message)));
}
