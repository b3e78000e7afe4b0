//! Stage: a `--call-graph dwarf` sample's user registers and copied stack → return
//! addresses, with `framehop` over the `.eh_frame`/`.debug_frame` of the process's
//! mapped files (x86-64).

use std::sync::Arc;

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder};

use super::symbols::Elf;

/// The most frames unwound from one sample.
const MAX_FRAMES: usize = 1024;

/// The unwinder of one process: a module per mapped file with unwind information.
pub struct ProcessUnwinder {
    unwinder: UnwinderX86_64<Arc<[u8]>>,
    cache: CacheX86_64,
}

/// The framehop module of a file mapped at `start..end` from file offset `pgoff`.
pub fn module(elf: &Elf, start: u64, end: u64, pgoff: u64) -> Option<Module<Arc<[u8]>>> {
    let u = elf.unwind_sections()?;
    if u.eh_frame.is_none() && u.debug_frame.is_none() {
        return None;
    }
    // avma = svma + bias, with the file offset pgoff at `start`.
    let (seg_off, seg_vaddr) = elf.segment_of_offset(pgoff)?;
    let svma = pgoff.wrapping_sub(seg_off).wrapping_add(seg_vaddr);
    let bias = start.wrapping_sub(svma);
    let info = ExplicitModuleSectionInfo {
        base_svma: 0,
        text_svma: u.text.clone(),
        got_svma: u.got.clone(),
        eh_frame_svma: u.eh_frame.as_ref().map(|t| t.0.clone()),
        eh_frame: u.eh_frame.as_ref().map(|t| t.1.clone()),
        eh_frame_hdr_svma: u.eh_frame_hdr.as_ref().map(|t| t.0.clone()),
        eh_frame_hdr: u.eh_frame_hdr.as_ref().map(|t| t.1.clone()),
        debug_frame: u.debug_frame.clone(),
        ..ExplicitModuleSectionInfo::default()
    };
    Some(Module::new(String::new(), start..end, bias, info))
}

impl ProcessUnwinder {
    /// An unwinder over `modules`.
    pub fn new(modules: Vec<Module<Arc<[u8]>>>) -> Self {
        let mut unwinder = UnwinderX86_64::new();
        for m in modules {
            unwinder.add_module(m);
        }
        Self {
            unwinder,
            cache: CacheX86_64::new(),
        }
    }

    /// The instruction pointer and the return addresses of the stack `stack` copied at
    /// `sp`, leaf first.
    pub fn unwind(&mut self, ip: u64, sp: u64, bp: u64, stack: &[u8]) -> Vec<u64> {
        let mut read = |addr: u64| -> Result<u64, ()> {
            let off = usize::try_from(addr.checked_sub(sp).ok_or(())?).map_err(|_| ())?;
            let bytes: [u8; 8] = stack
                .get(off..off.checked_add(8).ok_or(())?)
                .ok_or(())?
                .try_into()
                .map_err(|_| ())?;
            Ok(u64::from_le_bytes(bytes))
        };
        let regs = UnwindRegsX86_64::new(ip, sp, bp);
        let mut iter = self
            .unwinder
            .iter_frames(ip, regs, &mut self.cache, &mut read);
        let mut out = Vec::new();
        while let Ok(Some(frame)) = iter.next() {
            out.push(match frame {
                FrameAddress::InstructionPointer(a) => a,
                FrameAddress::ReturnAddress(a) => a.get(),
            });
            if out.len() >= MAX_FRAMES {
                break;
            }
        }
        out
    }
}
