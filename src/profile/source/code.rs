//! The machine code of functions without source lines (a stripped binary, a library
//! without debug information): their samples are summed per instruction address instead,
//! as `perf annotate` does, each address a "line" of a file of its own — the function's
//! code — numbered by its offset from the function's start. The bytes are kept (a
//! function's, at most [`MOST_CODE_BYTES`]) so the listing can disassemble them without
//! the binary at hand.

use super::{FileId, SourceLines};

/// The most bytes of one function's code kept (a listing of a larger function stops
/// there: its addresses past it still have their figures).
pub const MOST_CODE_BYTES: usize = 256 << 10;

/// The most bytes of code kept in all (past it, functions have offsets without
/// instructions).
pub const MOST_CODE_TOTAL: usize = 64 << 20;

/// A function's machine code as read, shared: its bytes and instruction set.
pub type SharedCode = (std::sync::Arc<[u8]>, Arch);

/// A function's machine code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    /// Its address in its binary.
    pub start: u64,
    /// Its bytes (at most [`MOST_CODE_BYTES`]; empty when they could not be read).
    pub bytes: Box<[u8]>,
    /// Which instruction set the bytes are.
    pub arch: Arch,
}

/// The instruction sets a listing disassembles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// x86-64.
    X86_64,
    /// Any other: offsets without instructions.
    Other,
}

impl SourceLines {
    /// The id of the code of the function at `start` in binary `path` (a file of its own:
    /// lines of it are offsets from `start`), its bytes given by `bytes` on first sight.
    pub fn code_file(
        &mut self,
        path: &str,
        start: u64,
        bytes: impl FnOnce() -> Option<(Vec<u8>, Arch)>,
    ) -> FileId {
        if let Some(&id) = self.code_ids.get(&(Box::from(path), start)) {
            return id;
        }
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(path.into());
        self.code_ids.insert((path.into(), start), id);
        let room = MOST_CODE_TOTAL.saturating_sub(self.code_bytes);
        let (mut bytes, arch) = bytes().unwrap_or((Vec::new(), Arch::Other));
        bytes.truncate(MOST_CODE_BYTES.min(room));
        self.code_bytes += bytes.len();
        self.codes.insert(
            id,
            Code {
                start,
                bytes: bytes.into(),
                arch,
            },
        );
        id
    }

    /// The code file `id` is, when it is one ([`SourceLines::code_file`]).
    pub fn code(&self, id: FileId) -> Option<&Code> {
        self.codes.get(&id)
    }
}
