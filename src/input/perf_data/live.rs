//! Stage: a pipe-mode recording still being written (`perf record -o - | flametui -`) →
//! snapshots of the profile so far, as `perf script` text gets them ([`super::super::live`]).
//!
//! A reader thread hands the bytes over in chunks ([`live::read_chunks`]); the parser reads
//! them through [`live::ChannelBytes`], which, while it waits for more, asks for a snapshot:
//! when it has caught up with the producer (at most one per `every`) and when no byte came
//! for `every` (perf writes nothing while the profiled program sleeps). The parser is then
//! inside a read of `linux-perf-data`, between two records: the collector is complete up
//! to the last record handed out, so the snapshot is taken from it there, through the
//! state both sides share ([`Shared`]). While records flow, one is also checked every few
//! thousand records, as text checks lines.
//!
//! What a snapshot cannot show yet: `linux-perf-data` gives a round's records out once
//! the next round's `FINISHED_ROUND` is read (perf guarantees only that a round does not
//! overlap the one after next), and a `-z` stream's last 512 KiB of records (zstd's window
//! at perf's level) are held by the decoder until more come ([`super::zstd`]). The final
//! profile is the one a load without snapshots gives: the same records in the same order.

use std::cell::RefCell;
use std::io::BufRead;
use std::rc::Rc;

use linux_perf_data::PerfFileReader;

use super::super::live::{self, Live, Snapshots, Tick};
use super::super::{Collector, ParseState};
use super::{PerfDataOptions, check, compressed};
use crate::error::{Error, Result};
use crate::input::perf::PerfOptions;
use crate::profile::Format;
use crate::profile::threads::spawn_with;

/// What the record loop and the waiting reader share.
pub struct Shared<'a> {
    /// The samples so far.
    pub out: Collector,
    /// When the last snapshot went, and where they go.
    pub live: Live<'a>,
    /// Records read so far.
    pub records: u64,
}

impl Shared<'_> {
    /// Sends a snapshot if one is due after `why`.
    pub fn tick(&mut self, why: Tick) {
        if self.live.snapshots.intervals {
            self.cut_interval(why);
            return;
        }
        let state = ParseState {
            line_no: self.records,
        };
        self.live.tick(&state, &self.out, why);
    }

    /// [`Snapshots::intervals`]: every `every`, sends what was read since the last one
    /// and empties the collector (keeping its names, event and unit for the next).
    fn cut_interval(&mut self, why: Tick) {
        let due = match why {
            Tick::Line => self.records.is_multiple_of(256),
            Tick::CaughtUp | Tick::Idle => true,
        };
        if !due || !self.live.due() {
            return;
        }
        let started = std::time::Instant::now();
        let kept = &self.out.stats;
        let (format, unit, event, order) = (
            kept.format,
            kept.unit.clone(),
            kept.event.clone(),
            kept.event_order.clone(),
        );
        let mut part = Collector::default();
        self.out.drain_into(&mut part);
        let s = &mut self.out.stats;
        (s.format, s.unit, s.event, s.event_order) = (format, unit, event, order);
        self.live
            .emit(started, (part.tree, part.samples), part.stats, self.records);
    }
}

/// Reads a pipe-mode recording from `reader` (at its header), sending snapshots of it to
/// `snapshots` while it streams.
///
/// # Errors
/// As [`super::load_stream`].
pub fn load_pipe<R: BufRead + Send>(
    reader: R,
    name: &str,
    perf: &PerfOptions,
    opts: &PerfDataOptions,
    snapshots: &Snapshots,
) -> Result<Collector> {
    let shared = Rc::new(RefCell::new(Shared {
        out: Collector::default(),
        live: Live::new(snapshots, name, Format::PerfData),
        records: 0,
    }));
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(8);
        if let Err(reader) = spawn_with(scope, reader, move |r| live::read_chunks(r, &tx)) {
            // No thread could be started (a memory limit): read on this one, shown once
            // whole.
            return super::read_pipe(reader, name, perf, opts);
        }
        let waiting = Rc::clone(&shared);
        let bytes = live::ChannelBytes::new(rx, snapshots.every, move |why| {
            // Never borrowed by the record loop while it reads.
            if let Ok(mut s) = waiting.try_borrow_mut() {
                s.tick(why);
            }
        });
        let report = compressed::Report::default();
        let guard = check::PipeGuard::new(bytes, report.clone());
        let r = PerfFileReader::parse_pipe(guard).map_err(|e| Error::PerfData {
            source_name: name.to_owned(),
            message: e.to_string(),
        })?;
        Ok(super::read_records(r, perf, opts, &report, Some(&*shared)))
    })
}
