//! Stage: pieces of one zstd stream (the payloads of perf's compressed records) → the
//! bytes they decompress to, decoded with `ruzstd` one frame header or one block at a time
//! so that no step gives out more than a block (128 KiB) or, when a frame ends, its window.
//!
//! ruzstd's `FrameDecoder` gives out bytes only once they leave the zstd window while a
//! frame is open; [`Inflater::decoded`] says how many bytes were decoded in all when that
//! is known (once bytes have left the window, exactly one window is held back), and
//! [`Inflater::finish`] closes an open frame with an empty last block to give out the rest.
//! Frame headers are read here first (ruzstd checks the window of a new decoder only when
//! it is reset): a window over [`MAX_WINDOW`] or a dictionary is refused.
//!
//! Content checksums are not verified: perf's frames carry none. perf 6.1 opens one frame
//! per recording (`ZSTD_initCStream`, whose checksum flag is off by default) and never
//! ends it, and a checksum would only follow a frame's last block; the frame headers of
//! every `-z` recording in testdata/ have their `Content_Checksum_flag` clear. A frame that
//! has one (not perf's) has its 4 checksum bytes passed over with its last block.

use std::io::Read;

use ruzstd::decoding::FrameDecoder;

/// The largest zstd window read: 128 MiB, that of `perf record -z` at level 22.
pub const MAX_WINDOW: u64 = 128 << 20;
/// A zstd block's largest size.
pub const MAX_BLOCK: u64 = 128 << 10;
const ZSTD_MAGIC: u32 = 0xFD2F_B528;

/// An open zstd frame.
struct Frame {
    dec: FrameDecoder,
    window: u64,
    checksum: bool,
    /// Bytes given out of this frame.
    given: u64,
    blocks: u64,
}

/// One zstd stream fed in pieces, decoded one block at a time.
#[derive(Default)]
pub struct Inflater {
    input: Vec<u8>,
    start: usize,
    /// Bytes of a skippable frame still to skip.
    skip: u64,
    frame: Option<Frame>,
    /// Bytes given out in all.
    given: u64,
    drain: Vec<u8>,
}

/// The size, window and checksum flag of a zstd frame header at the start of `b`;
/// `Ok(None)` when more bytes are needed.
fn frame_header(b: &[u8]) -> Result<Option<(usize, u64, bool)>, String> {
    let Some(&d) = b.get(4) else { return Ok(None) };
    let fcs_flag = d >> 6;
    let single = d & 0x20 != 0;
    if d & 0x08 != 0 {
        return Err("a zstd frame header with its reserved bit set".to_owned());
    }
    let dict = [0usize, 1, 2, 4][usize::from(d & 3)];
    let fcs = match fcs_flag {
        0 => usize::from(single),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let len = 5 + usize::from(!single) + dict + fcs;
    let Some(h) = b.get(..len) else {
        return Ok(None);
    };
    let field = |at: usize, n: usize| {
        h[at..at + n]
            .iter()
            .rev()
            .fold(0u64, |v, &x| (v << 8) | u64::from(x))
    };
    let dict_at = 5 + usize::from(!single);
    if dict > 0 && field(dict_at, dict) != 0 {
        return Err("a zstd frame that needs a dictionary".to_owned());
    }
    let window = if single {
        let v = field(dict_at + dict, fcs);
        if fcs == 2 { v + 256 } else { v }
    } else {
        let w = h[5];
        let base = 1u64 << (10 + u32::from(w >> 3));
        base + base / 8 * u64::from(w & 7)
    };
    if window > MAX_WINDOW {
        return Err(format!(
            "a zstd window of {window} bytes (the most read is {MAX_WINDOW})"
        ));
    }
    Ok(Some((len, window, d & 0x04 != 0)))
}

impl Inflater {
    /// Adds a piece of the stream.
    pub fn push(&mut self, piece: &[u8]) {
        if self.start > 0 && self.start * 2 >= self.input.len() {
            self.input.drain(..self.start);
            self.start = 0;
        }
        self.input.extend_from_slice(piece);
    }

    /// Bytes given out so far.
    pub fn given(&self) -> u64 {
        self.given
    }

    /// The bytes decoded so far (given out and held in the window), when known.
    pub fn decoded(&self) -> Option<u64> {
        match &self.frame {
            None => Some(self.given),
            Some(f) if f.blocks == 0 => Some(self.given),
            // Once bytes have left the window, exactly a window is held back.
            Some(f) if f.given > 0 => Some(self.given + f.window),
            Some(_) => None,
        }
    }

    /// Decodes a frame header or one block, appending what it gives out to `out`;
    /// `false` when more input is needed.
    ///
    /// # Errors
    /// The zstd data is not valid, in words.
    pub fn step(&mut self, out: &mut Vec<u8>) -> Result<bool, String> {
        let avail = &self.input[self.start..];
        if self.skip > 0 {
            let n = (avail.len() as u64).min(self.skip);
            self.skip -= n;
            self.start += n as usize;
            return Ok(n > 0);
        }
        let Some(frame) = self.frame.as_mut() else {
            let Some(magic) = avail.get(..4) else {
                return Ok(false);
            };
            let magic = u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]);
            if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
                let Some(len) = avail.get(4..8) else {
                    return Ok(false);
                };
                self.skip = u64::from(u32::from_le_bytes([len[0], len[1], len[2], len[3]]));
                self.start += 8;
                return Ok(true);
            }
            if magic != ZSTD_MAGIC {
                return Err(format!("no zstd frame here (magic {magic:#010x})"));
            }
            let Some((len, window, checksum)) = frame_header(avail)? else {
                return Ok(false);
            };
            let mut dec = FrameDecoder::new();
            dec.init(&avail[..len])
                .map_err(|e| format!("a zstd frame header: {e}"))?;
            self.start += len;
            self.frame = Some(Frame {
                dec,
                window,
                checksum,
                given: 0,
                blocks: 0,
            });
            return Ok(true);
        };
        let Some(h) = avail.get(..3) else {
            return Ok(false);
        };
        let h = u32::from(h[0]) | (u32::from(h[1]) << 8) | (u32::from(h[2]) << 16);
        let (last, kind, size) = (h & 1 == 1, (h >> 1) & 3, u64::from(h >> 3));
        if kind == 3 {
            return Err("a zstd block of the reserved type".to_owned());
        }
        if size > MAX_BLOCK {
            return Err(format!("a zstd block of {size} bytes"));
        }
        let body = if kind == 1 { 1 } else { size as usize };
        let need = 3 + body + if last && frame.checksum { 4 } else { 0 };
        let Some(block) = avail.get(..need) else {
            return Ok(false);
        };
        let (read, _) = frame
            .dec
            .decode_from_to(block, &mut [])
            .map_err(|e| format!("a zstd block: {e}"))?;
        if read != need {
            return Err("a zstd block that does not decode whole".to_owned());
        }
        self.start += need;
        frame.blocks += 1;
        let n = drain(frame, &mut self.drain, out)?;
        self.given += n;
        if last {
            self.frame = None;
        }
        Ok(true)
    }

    /// Ends the stream: an open frame is closed (an empty last block), giving out the
    /// bytes held in its window. `Err` names the bytes of an incomplete block or frame
    /// header left over (the stream was cut), after the rest was given out.
    ///
    /// # Errors
    /// As [`Inflater::step`]; input left over.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        let left = self.input.len() - self.start;
        if let Some(frame) = self.frame.as_mut() {
            frame
                .dec
                .decode_from_to(&[1, 0, 0], &mut [])
                .map_err(|e| format!("closing the zstd frame: {e}"))?;
            let n = drain(frame, &mut self.drain, out)?;
            self.given += n;
            self.frame = None;
        }
        if left > 0 || self.skip > 0 {
            return Err(format!(
                "the zstd data is cut short ({left} bytes of an incomplete block left)"
            ));
        }
        Ok(())
    }
}

/// Moves every byte the frame can give out to `out`; how many.
fn drain(frame: &mut Frame, buf: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<u64, String> {
    buf.resize(MAX_BLOCK as usize, 0);
    let mut n = 0u64;
    loop {
        let got = frame
            .dec
            .read(buf)
            .map_err(|e| format!("draining zstd output: {e}"))?;
        if got == 0 {
            break;
        }
        out.extend_from_slice(&buf[..got]);
        n += got as u64;
    }
    frame.given += n;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruzstd::encoding::{CompressionLevel, compress_to_vec};

    /// Bytes that compress, but not to nothing: counters and a few words.
    fn sample_bytes(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if i % 16 < 10 {
                    (i / 64) as u8
                } else {
                    (x >> 24) as u8
                }
            })
            .collect()
    }

    fn inflate_in_pieces(stream: &[u8], piece: usize) -> Result<Vec<u8>, String> {
        let mut inflater = Inflater::default();
        let mut out = Vec::new();
        for chunk in stream.chunks(piece) {
            inflater.push(chunk);
            while inflater.step(&mut out)? {}
        }
        inflater.finish(&mut out)?;
        Ok(out)
    }

    #[test]
    fn a_stream_fed_in_any_pieces_comes_back_whole() {
        // Two frames with a skippable frame between them, cut anywhere.
        let (a, b) = (sample_bytes(300_000, 1), sample_bytes(70_000, 2));
        let mut stream = compress_to_vec(&a[..], CompressionLevel::Fastest);
        stream.extend_from_slice(&0x184D_2A53u32.to_le_bytes());
        stream.extend_from_slice(&5u32.to_le_bytes());
        stream.extend_from_slice(b"skip!");
        stream.extend(compress_to_vec(&b[..], CompressionLevel::Fastest));
        let whole = [a, b].concat();
        for piece in [1, 7, 1000, 65_536, stream.len()] {
            assert_eq!(inflate_in_pieces(&stream, piece).unwrap(), whole, "{piece}");
        }
    }

    #[test]
    fn an_open_frame_holds_a_window_back_until_closed() {
        // A frame without its end (as perf writes it): the last window of bytes stays in
        // the decoder until the stream's end closes the frame.
        let data = sample_bytes(200_000, 3);
        let stream = compress_to_vec(&data[..], CompressionLevel::Uncompressed);
        // Clear the last block's flag: the frame stays open.
        let mut open = stream.clone();
        let (len, window, _) = frame_header(&open).unwrap().unwrap();
        assert!(window < data.len() as u64, "{window}");
        let (mut at, mut last) = (len, 0);
        while at + 3 <= open.len() {
            let h = u32::from(open[at]) | (u32::from(open[at + 1]) << 8);
            let h = h | (u32::from(open[at + 2]) << 16);
            last = at;
            at += 3 + (h >> 3) as usize;
            if h & 1 == 1 {
                break;
            }
        }
        open[last] &= !1;
        // And without the checksum that follows a last block (when the encoder writes one).
        open.truncate(at);
        let mut inflater = Inflater::default();
        let mut out = Vec::new();
        inflater.push(&open);
        while inflater.step(&mut out).unwrap() {}
        let held = data.len() - out.len();
        assert!(held > 0);
        assert_eq!(inflater.decoded(), Some(data.len() as u64));
        inflater.finish(&mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn bad_frames_are_refused_in_words() {
        let refuse = |stream: &[u8]| inflate_in_pieces(stream, 4096).unwrap_err();
        // A 256 MiB window (exponent 18).
        let big = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 18 << 3, 1, 0, 0];
        assert!(refuse(&big).contains("window"), "{}", refuse(&big));
        assert!(refuse(b"not zstd at all").contains("magic"));
        // A dictionary, and a reserved block type.
        let dict = [0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x48, 7, 1, 0, 0];
        assert!(refuse(&dict).contains("dictionary"));
        let reserved = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x48, 0x07, 0, 0];
        assert!(refuse(&reserved).contains("reserved"));
        // Cut inside a block.
        let data = sample_bytes(10_000, 4);
        let stream = compress_to_vec(&data[..], CompressionLevel::Fastest);
        assert!(refuse(&stream[..stream.len() - 10]).contains("cut short"));
    }
}
