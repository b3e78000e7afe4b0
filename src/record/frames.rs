//! Whether a binary keeps frame pointers, from its machine code: the call-graph default
//! of `flametui record` (frame pointers where they are kept, else DWARF).
//!
//! A function that keeps a frame pointer sets it up in its prologue with `push %rbp; mov
//! %rsp,%rbp` (`55 48 89 e5`; MSVC spells the move `48 8b ec`), after an optional `endbr64`
//! and, in Go, after the stack-bound check: so the pair is looked for in each function's
//! first 32 bytes. Up to [`MOST_CHECKED`] function symbols, spread over the binary, are
//! checked; a binary with fewer than [`FEWEST`] function symbols (stripped) cannot be told.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

/// At most this many functions are checked.
pub const MOST_CHECKED: usize = 400;
/// Fewer function symbols than this (a stripped binary) tell nothing.
pub const FEWEST: usize = 3;
/// The C runtime's start-up functions, linked into every program from objects built
/// without frame pointers: they say nothing about the program's own code.
const RUNTIME: [&str; 9] = [
    "_start",
    "_init",
    "_fini",
    "deregister_tm_clones",
    "register_tm_clones",
    "__do_global_dtors_aux",
    "frame_dummy",
    "__libc_csu_init",
    "__libc_csu_fini",
];
/// The bytes of a prologue looked through.
const PROLOGUE: usize = 32;
/// Functions shorter than this (stubs, thunks) are not checked.
const SHORTEST: u64 = 16;

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramePointers {
    /// Functions checked.
    pub checked: usize,
    /// Of them, those that set up a frame pointer.
    pub keeping: usize,
}

impl FramePointers {
    /// Enough functions keep them: at least a quarter. Built with frame pointers, a
    /// program's leaf functions may still skip them (GCC's `-momit-leaf-frame-pointer`,
    /// or no call at all); built without, only functions with a variable stack (alloca)
    /// keep one: a few percent.
    pub fn kept(self) -> bool {
        self.checked > 0 && self.keeping * 4 >= self.checked
    }
}

/// The check of an x86-64 ELF binary's bytes; `None` for another kind of file, another
/// architecture, or too few function symbols.
pub fn check(data: &[u8]) -> Option<FramePointers> {
    let file = object::File::parse(data).ok()?;
    if file.architecture() != object::Architecture::X86_64 {
        return None;
    }
    let mut funcs: Vec<(u64, u64)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == SymbolKind::Text && s.size() >= SHORTEST && s.is_definition())
        .filter(|s| s.name().is_ok_and(|n| !RUNTIME.contains(&n)))
        .map(|s| (s.address(), s.size()))
        .collect();
    funcs.sort_unstable();
    funcs.dedup_by_key(|f| f.0);
    if funcs.len() < FEWEST {
        return None;
    }
    let step = funcs.len().div_ceil(MOST_CHECKED);
    let mut found = FramePointers {
        checked: 0,
        keeping: 0,
    };
    for &(addr, size) in funcs.iter().step_by(step) {
        let Some(code) = code_at(&file, addr, size.min(PROLOGUE as u64)) else {
            continue;
        };
        found.checked += 1;
        if sets_up_frame(code) {
            found.keeping += 1;
        }
    }
    (found.checked >= FEWEST).then_some(found)
}

/// The bytes at `addr` in the section holding it.
fn code_at<'a>(file: &object::File<'a>, addr: u64, len: u64) -> Option<&'a [u8]> {
    file.sections()
        .find(|s| s.address() <= addr && addr < s.address() + s.size())
        .and_then(|s| s.data_range(addr, len).ok().flatten())
}

/// `push %rbp` followed, within the prologue's first instructions, by `mov %rsp,%rbp`
/// (compilers schedule other instructions between the two).
pub fn sets_up_frame(code: &[u8]) -> bool {
    use iced_x86::{Code, Decoder, DecoderOptions, Register};
    let mut decoder = Decoder::new(64, code, DecoderOptions::NONE);
    let mut pushed = false;
    // Where `mov %rbp,N(%rsp)` stored the caller's %rbp (Go's prologue), if it did.
    let mut stored_at = None;
    for _ in 0..12 {
        if !decoder.can_decode() {
            break;
        }
        let ins = decoder.decode();
        match ins.code() {
            Code::Push_r64 if ins.op0_register() == Register::RBP => pushed = true,
            Code::Mov_rm64_r64 | Code::Mov_r64_rm64
                if pushed
                    && ins.op0_register() == Register::RBP
                    && ins.op1_register() == Register::RSP =>
            {
                return true;
            }
            Code::Mov_rm64_r64
                if ins.op1_register() == Register::RBP && ins.memory_base() == Register::RSP =>
            {
                stored_at = Some(ins.memory_displacement64());
            }
            // Go: the caller's %rbp stored in the new frame, then `lea N(%rsp),%rbp` to
            // that slot. A `lea` into %rbp alone is %rbp used as any register (GCC's
            // -fomit-frame-pointer code pushes it as callee-saved, then computes an
            // address in it).
            Code::Lea_r64_m
                if ins.op0_register() == Register::RBP
                    && ins.memory_base() == Register::RSP
                    && stored_at == Some(ins.memory_displacement64()) =>
            {
                return true;
            }
            Code::INVALID => break,
            _ => {}
        }
    }
    false
}

/// The binary a command runs ([`find`]), a script's interpreter (`#!`) instead of the
/// script.
pub fn binary_of(program: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let found = find(program, path_var)?;
    Some(interpreter_of(&found).unwrap_or(found))
}

/// The file a command runs (a script itself, not its interpreter): its path as given when
/// it has a slash and exists, else the first executable of that name on `PATH`.
pub fn find(program: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if program.components().count() > 1 {
        program.exists().then(|| program.to_owned())
    } else {
        std::env::split_paths(path_var?)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }
}

/// A file that can be run.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The interpreter named on a script's `#!` line (`/usr/bin/env python3` → python3 on PATH).
fn interpreter_of(script: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = std::str::from_utf8(line.split(|&b| b == b'\n').next()?).ok()?;
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|f| f == "env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        return binary_of(Path::new(name), std::env::var_os("PATH").as_deref());
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prologues() {
        // endbr64; push %rbp; mov %rsp,%rbp
        assert!(sets_up_frame(&[
            0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5
        ]));
        // Go: cmp 0x10(%r14),%rsp; jbe …; push %rbp; mov %rsp,%rbp
        assert!(sets_up_frame(&[
            0x49, 0x3b, 0x66, 0x10, 0x76, 0x20, 0x55, 0x48, 0x89, 0xe5
        ]));
        // Go: sub $0x18,%rsp; mov %rbp,0x10(%rsp); lea 0x10(%rsp),%rbp
        assert!(sets_up_frame(&[
            0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x6c, 0x24, 0x10, 0x48, 0x8d, 0x6c, 0x24, 0x10
        ]));
        // GCC -fomit-frame-pointer: push %r14; mov $1,%edi; push %rbp; push %rbx;
        // xor %ebx,%ebx; sub $0x20,%rsp; lea 0x10(%rsp),%rbp: %rbp as any register
        assert!(!sets_up_frame(&[
            0x41, 0x56, 0xbf, 0x01, 0x00, 0x00, 0x00, 0x55, 0x53, 0x31, 0xdb, 0x48, 0x83, 0xec,
            0x20, 0x48, 0x8d, 0x6c, 0x24, 0x10
        ]));
        // The Go store and lea must name the same slot.
        assert!(!sets_up_frame(&[
            0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x6c, 0x24, 0x08, 0x48, 0x8d, 0x6c, 0x24, 0x10
        ]));
        // GCC: push %rbp; xor %edi,%edi; mov %rsp,%rbp
        assert!(sets_up_frame(&[0x55, 0x31, 0xff, 0x48, 0x89, 0xe5]));
        // sub $0x8,%rsp; push %rbp; push %rbx: saves %rbp as any register, no frame
        assert!(!sets_up_frame(&[0x48, 0x83, 0xec, 0x08, 0x55, 0x53, 0xc3]));
        // The bytes inside another instruction (mov $0xe5894855,%eax) are no prologue.
        assert!(!sets_up_frame(&[0xb8, 0x55, 0x48, 0x89, 0xe5, 0xc3]));
        assert!(!sets_up_frame(&[]));
    }

    #[test]
    fn a_text_file_is_not_checked() {
        assert_eq!(check(b"#!/bin/sh\necho hi\n"), None);
    }

    #[test]
    fn kept_is_most() {
        let fp = |checked, keeping| FramePointers { checked, keeping };
        assert!(fp(10, 3).kept());
        assert!(!fp(10, 2).kept());
        assert!(!fp(0, 0).kept());
    }

    #[test]
    fn scripts_are_judged_by_their_interpreter() {
        let dir = std::env::temp_dir().join(format!("flametui-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("s.sh");
        std::fs::write(&script, "#!/bin/sh -e\necho hi\n").unwrap();
        assert_eq!(binary_of(&script, None), Some(PathBuf::from("/bin/sh")));
        let env = dir.join("e.sh");
        std::fs::write(&env, "#!/usr/bin/env -S sh\n").unwrap();
        let got = binary_of(&env, None).unwrap();
        assert!(got.ends_with("sh"), "{got:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
