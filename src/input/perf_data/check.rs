//! Stage: perf.data bytes → a header known to be sane, before the parser allocates
//! anything from it: every section inside the file, sizes no larger than the file, event
//! descriptions whose counts fit their bytes. A pipe-mode stream is checked record by
//! record as it passes, its compressed records expanded ([`PipeGuard`]).

use std::io::{self, Read, Seek, SeekFrom};

use linux_perf_data::linux_perf_event_reader::{
    EventRecord, RawEventRecord, ReadFormat, RecordType, SampleFormat,
};

use super::compressed::{Expander, Report, read_up_to};

/// The file header: magic, size, attr size, three sections, 256 feature bits.
const FILE_HEADER: u64 = 104;
/// A pipe header: magic and size.
const PIPE_HEADER: u64 = 16;
/// `HEADER_EVENT_DESC`'s feature number.
const EVENT_DESC: u32 = 12;
/// `PERF_RECORD_HEADER_FEATURE`.
const RECORD_HEADER_FEATURE: u32 = 80;

/// Where a file-mode recording's parts lie, as its header says (checked against its size).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// A pipe-mode recording: nothing else is known.
    pub pipe: bool,
    /// The file's byte order is little-endian (`PERFILE2` as read).
    pub little_endian: bool,
    /// The data section (the records): offset and size.
    pub data: (u64, u64),
    /// The feature sections: feature number, offset and size, in the table's order (it
    /// follows the data section).
    pub features: Vec<(u32, u64, u64)>,
}

impl Layout {
    /// The offset of the feature table.
    pub fn table(&self) -> u64 {
        self.data.0 + self.data.1
    }

    /// A feature's section: offset and size.
    pub fn feature(&self, feature: u32) -> Option<(u64, u64)> {
        self.features
            .iter()
            .find(|f| f.0 == feature)
            .map(|f| (f.1, f.2))
    }
}

fn u64_at(b: &[u8], at: usize, little: bool) -> Option<u64> {
    let bytes: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
    Some(if little {
        u64::from_le_bytes(bytes)
    } else {
        u64::from_be_bytes(bytes)
    })
}

fn u32_at(b: &[u8], at: usize, little: bool) -> Option<u32> {
    let bytes: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(if little {
        u32::from_le_bytes(bytes)
    } else {
        u32::from_be_bytes(bytes)
    })
}

/// The byte order of a perf.data magic, `None` for no perf.data.
fn little_endian(head: &[u8]) -> Option<bool> {
    match head.get(..8)? {
        b"PERFILE2" => Some(true),
        b"2ELIFREP" => Some(false),
        _ => None,
    }
}

/// Whether `head` opens a pipe-mode recording.
pub fn is_pipe_header(head: &[u8]) -> bool {
    little_endian(head).is_some_and(|le| u64_at(head, 8, le) == Some(PIPE_HEADER))
}

/// Checks a recording's header against its length `len`, and says where its parts lie.
///
/// # Errors
/// What is wrong, in words.
pub fn check_header<R: Read + Seek>(r: &mut R, len: u64) -> Result<Layout, String> {
    let mut head = [0u8; FILE_HEADER as usize];
    let got = read_up_to(r, &mut head).map_err(|e| e.to_string())?;
    let head = &head[..got];
    let le = little_endian(head).ok_or("no perf.data magic (PERFILE2)")?;
    let size = u64_at(head, 8, le).ok_or("truncated in its header")?;
    if size == PIPE_HEADER {
        return Ok(Layout {
            pipe: true,
            little_endian: le,
            ..Layout::default()
        });
    }
    if got < FILE_HEADER as usize {
        return Err("truncated in its header".to_owned());
    }
    if !(FILE_HEADER..=4096).contains(&size) {
        return Err(format!(
            "header size {size} is not that of a perf.data header"
        ));
    }
    let attr_size = u64_at(head, 16, le).unwrap_or(0);
    if !(64..=4096).contains(&attr_size) {
        return Err(format!("attribute size {attr_size} is out of range"));
    }
    let section = |at: usize| -> Result<(u64, u64), String> {
        let off = u64_at(head, at, le).unwrap_or(u64::MAX);
        let sz = u64_at(head, at + 8, le).unwrap_or(u64::MAX);
        match off.checked_add(sz) {
            Some(end) if end <= len => Ok((off, sz)),
            _ => Err(format!(
                "a section at offset {off} of {sz} bytes lies outside the file ({len} bytes: truncated?)"
            )),
        }
    };
    let (_attrs_off, _attrs_size) = section(24)?;
    let (data_off, data_size) = section(40)?;
    section(56)?;
    let features: u32 = (0..4)
        .map(|i| u64_at(head, 72 + i * 8, le).unwrap_or(0).count_ones())
        .sum();
    // The feature sections' table follows the data.
    let table = data_off + data_size;
    let table_len = u64::from(features) * 16;
    if table.checked_add(table_len).is_none_or(|end| end > len) {
        return Err(format!(
            "its feature table at offset {table} lies outside the file ({len} bytes: truncated?)"
        ));
    }
    r.seek(SeekFrom::Start(table)).map_err(|e| e.to_string())?;
    let mut entries = vec![0u8; table_len as usize];
    r.read_exact(&mut entries).map_err(|e| e.to_string())?;
    let bits: Vec<u32> = (0..256u32)
        .filter(|&b| {
            let word = u64_at(head, 72 + (b / 64) as usize * 8, le).unwrap_or(0);
            word & (1 << (b % 64)) != 0
        })
        .collect();
    let mut features = Vec::with_capacity(bits.len());
    for (i, feature) in bits.iter().enumerate() {
        let off = u64_at(&entries, i * 16, le).unwrap_or(u64::MAX);
        let sz = u64_at(&entries, i * 16 + 8, le).unwrap_or(u64::MAX);
        features.push((*feature, off, sz));
        if off.checked_add(sz).is_none_or(|end| end > len) {
            return Err(format!(
                "feature section {feature} at offset {off} of {sz} bytes lies outside the file"
            ));
        }
        if *feature == EVENT_DESC {
            r.seek(SeekFrom::Start(off)).map_err(|e| e.to_string())?;
            let mut data = vec![0u8; sz as usize];
            r.read_exact(&mut data).map_err(|e| e.to_string())?;
            if !event_desc_ok(&data, le) {
                return Err("its event descriptions do not fit their section".to_owned());
            }
        }
    }
    Ok(Layout {
        pipe: false,
        little_endian: le,
        data: (data_off, data_size),
        features,
    })
}

/// Whether an `EVENT_DESC` section's counts fit its bytes: `nr`, `attr_size`, then per
/// event the attr, `nr_ids`, a string (`len` + bytes) and `nr_ids` ids.
pub fn event_desc_ok(data: &[u8], le: bool) -> bool {
    let (Some(nr), Some(attr_size)) = (u32_at(data, 0, le), u32_at(data, 4, le)) else {
        return false;
    };
    let mut at = 8usize;
    for _ in 0..nr {
        let Some(ids_at) = at.checked_add(attr_size as usize) else {
            return false;
        };
        let Some(nr_ids) = u32_at(data, ids_at, le) else {
            return false;
        };
        let Some(str_len) = u32_at(data, ids_at + 4, le) else {
            return false;
        };
        let end = (ids_at as u64 + 8)
            .saturating_add(u64::from(str_len))
            .saturating_add(u64::from(nr_ids) * 8);
        if end > data.len() as u64 {
            return false;
        }
        at = end as usize;
    }
    true
}

/// A record parsed by `linux-perf-data`, after the checks of what it reads unchecked
/// (`sample_fits`, `mmap2_fits`); `None` for a record that does not pass them or
/// does not parse.
pub fn parse_record<'a>(record: &RawEventRecord<'a>) -> Option<EventRecord<'a>> {
    if sample_fits(record) && mmap2_fits(record) {
        record.parse().ok()
    } else {
        None
    }
}

/// Whether a sample record's callchain length fits the record: the parser multiplies
/// it by 8 unchecked, which overflows on a length of 2⁶¹ or more (a panic with overflow
/// checks, a wrapped slice length without). Its offset is found as the parser finds it,
/// past the read values of `PERF_SAMPLE_READ` as the parser reads them (found by
/// fuzzing: a count of values there moved the callchain length out of this check).
fn sample_fits(record: &RawEventRecord<'_>) -> bool {
    if record.record_type != RecordType::SAMPLE {
        return true;
    }
    let format = record.parse_info.sample_format;
    if !format.contains(SampleFormat::CALLCHAIN) {
        return true;
    }
    let before = [
        SampleFormat::IDENTIFIER,
        SampleFormat::IP,
        SampleFormat::TID,
        SampleFormat::TIME,
        SampleFormat::ADDR,
        SampleFormat::ID,
        SampleFormat::STREAM_ID,
        SampleFormat::CPU,
        SampleFormat::PERIOD,
    ];
    let data = record.data.as_slice();
    let le = record.parse_info.endian == linux_perf_data::Endianness::LittleEndian;
    let mut at = 8 * before.iter().filter(|f| format.contains(**f)).count();
    if format.contains(SampleFormat::READ) {
        let Some(read) = read_values_size(record.parse_info.read_format, &data, at, le) else {
            return false;
        };
        at += read;
    }
    let Some(len) = u64_at(&data, at, le) else {
        return false;
    };
    len <= (data.len().saturating_sub(at + 8) / 8) as u64
}

/// The bytes of a sample's read values at `at`, as the parser reads them; `None` when
/// they do not fit the record. (The parser has the kernel's two layouts swapped: one
/// value with `PERF_FORMAT_GROUP`, a count of values without; what counts here is
/// where it then reads the callchain.)
fn read_values_size(read: ReadFormat, data: &[u8], at: usize, le: bool) -> Option<usize> {
    let times = [
        ReadFormat::TOTAL_TIME_ENABLED,
        ReadFormat::TOTAL_TIME_RUNNING,
    ]
    .iter()
    .filter(|f| read.contains(**f))
    .count();
    let id = usize::from(read.contains(ReadFormat::ID));
    let size = if read.contains(ReadFormat::GROUP) {
        8 * (1 + times + id)
    } else {
        let nr = usize::try_from(u64_at(data, at, le)?).ok()?;
        nr.checked_mul(8 * (1 + id))?.checked_add(8 * (1 + times))?
    };
    (at.checked_add(size)? <= data.len()).then_some(size)
}

/// Whether an MMAP2 record's build-id length is at most 20 (the parser asserts it).
fn mmap2_fits(record: &RawEventRecord<'_>) -> bool {
    /// `PERF_RECORD_MISC_MMAP_BUILD_ID`.
    const MMAP_BUILD_ID: u16 = 1 << 14;
    if record.record_type != RecordType::MMAP2 || record.misc & MMAP_BUILD_ID == 0 {
        return true;
    }
    // pid, tid, address, length and page offset come first.
    record.data.as_slice().get(32).is_none_or(|&len| len <= 20)
}

/// [`Check`](super::compressed::Check) of a pipe's records: an event description that
/// does not fit its record (the parser would allocate from its counts), a compression
/// method other than zstd.
fn check_record(kind: u32, record: &[u8], le: bool) -> Result<(), String> {
    let body = record.get(8..).unwrap_or_default();
    // The parser reads the feature number as a u64 cut to a u32: so is it here.
    if kind == RECORD_HEADER_FEATURE
        && u64_at(body, 0, le).map(|f| f as u32) == Some(EVENT_DESC)
        && !event_desc_ok(body.get(8..).unwrap_or_default(), le)
    {
        return Err("its event descriptions do not fit their record".to_owned());
    }
    super::compressed::check_feature(kind, record, le)
}

/// A pipe-mode stream that passes records through whole, after checking what the parser
/// would allocate from (`check_record`: a refusal ends the stream with an error), with
/// its compressed records (`perf record -z`) replaced by the records they hold.
pub struct PipeGuard<R> {
    inner: R,
    head: Vec<u8>,
    pos: usize,
    expander: Option<Expander>,
    report: Report,
}

impl<R: Read> PipeGuard<R> {
    /// Guards `inner`, which starts at the pipe header; what the decompression finds
    /// goes to `report`.
    pub fn new(inner: R, report: Report) -> Self {
        Self {
            inner,
            head: Vec::new(),
            pos: 0,
            expander: None,
            report,
        }
    }
}

impl<R: Read> Read for PipeGuard<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.expander.is_none() {
            let mut head = [0u8; PIPE_HEADER as usize];
            let got = read_up_to(&mut self.inner, &mut head)?;
            self.head.extend_from_slice(&head[..got]);
            let le = little_endian(&head[..got]).unwrap_or(true);
            self.expander = Some(
                Expander::new(le, got as u64, None, self.report.clone()).with_check(check_record),
            );
        }
        if self.pos < self.head.len() {
            let n = out.len().min(self.head.len() - self.pos);
            out[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        match self.expander.as_mut() {
            Some(e) => e.read(&mut self.inner, out),
            None => Ok(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linux_perf_data::Endianness;
    use linux_perf_data::linux_perf_event_reader::{
        BranchSampleFormat, RawData, RecordIdParseInfo, RecordParseInfo,
    };

    fn info(sample_format: SampleFormat, read_format: ReadFormat) -> RecordParseInfo {
        RecordParseInfo {
            endian: Endianness::LittleEndian,
            sample_format,
            branch_sample_format: BranchSampleFormat::empty(),
            read_format,
            common_data_offset_from_end: None,
            sample_regs_user: 0,
            user_regs_count: 0,
            sample_regs_intr: 0,
            intr_regs_count: 0,
            id_parse_info: RecordIdParseInfo {
                nonsample_record_id_offset_from_end: None,
                sample_record_id_offset_from_start: None,
            },
            nonsample_record_time_offset_from_end: None,
            sample_record_time_offset_from_start: None,
        }
    }

    /// A sample's body: pid/tid, time, the read values, the callchain length, two ips.
    fn body(read: &[u64], callchain_len: u64) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&7i32.to_le_bytes());
        b.extend_from_slice(&7i32.to_le_bytes());
        let tail = [callchain_len, 0x40_1000, 0x40_2000];
        for w in [1000u64].iter().chain(read).chain(&tail) {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b
    }

    fn callchain_of(format: ReadFormat, read: &[u64], len: u64) -> Option<usize> {
        let sample = SampleFormat::TID | SampleFormat::TIME | SampleFormat::READ;
        let info = info(sample | SampleFormat::CALLCHAIN, format);
        let bytes = body(read, len);
        let record = RawEventRecord::new(RecordType::SAMPLE, 0, RawData::from(&bytes[..]), info);
        match parse_record(&record)? {
            EventRecord::Sample(s) => s.callchain.map(|c| c.len()),
            _ => None,
        }
    }

    /// Found by `fuzz_perf_data`: a callchain length of 2⁶¹ after read values. The parser
    /// multiplies it by 8: in a build with overflow checks (debug, fuzzing) that panics
    /// unless the record is refused first.
    #[test]
    fn a_callchain_length_that_overflows_after_read_values_is_refused() {
        let one_value = ReadFormat::empty();
        let group = ReadFormat::GROUP | ReadFormat::ID;
        let times = ReadFormat::TOTAL_TIME_ENABLED | ReadFormat::TOTAL_TIME_RUNNING;
        for len in [1 << 61, u64::MAX, 3] {
            // A count of one value, one value and its id, a count with the two times.
            assert_eq!(callchain_of(one_value, &[1, 5], len), None, "{len}");
            assert_eq!(callchain_of(group, &[5, 9], len), None, "{len}");
            assert_eq!(callchain_of(times, &[1, 10, 10, 5], len), None, "{len}");
        }
        // The same records with their true length parse, callchain and all.
        assert_eq!(callchain_of(one_value, &[1, 5], 2), Some(2));
        assert_eq!(callchain_of(group, &[5, 9], 2), Some(2));
        assert_eq!(callchain_of(times, &[1, 10, 10, 5], 2), Some(2));
        // A count of read values past the record's end: refused, not multiplied either.
        assert_eq!(callchain_of(one_value, &[u64::MAX, 5], 2), None);
        assert_eq!(callchain_of(one_value, &[1 << 61, 5], 2), None);
    }
}
