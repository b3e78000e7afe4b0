//! A sample's addresses turned into frames: its callchain, its user stack unwound with
//! DWARF, kernel addresses named from kallsyms and user ones from the mapped ELF files.

use std::sync::Arc;

use linux_perf_data::linux_perf_event_reader::SampleRecord;

use super::{CONTEXT_KERNEL, CONTEXT_MAX, CONTEXTS, Frame, Reader, read_kallsyms, unwind};
use crate::input::{Collector, ParseState};

impl Reader<'_> {
    /// The frames of a sample, leaf first, into `self.frames`.
    pub(super) fn resolve(
        &mut self,
        attr: usize,
        pid: i32,
        s: &SampleRecord<'_>,
        state: &mut ParseState,
        out: &mut Collector,
    ) {
        let mut user_seen = false;
        if let Some(chain) = &s.callchain {
            let mut kernel = false;
            for i in 0..chain.len().min(4096) {
                let Some(ip) = chain.get(i) else { break };
                if ip >= CONTEXT_MAX {
                    if !CONTEXTS.contains(&ip) {
                        // perf drops the whole chain of a sample with an unknown context
                        // value (a -1 ends some user chains): no frames, as perf script.
                        self.frames.clear();
                        self.kernel_at.clear();
                        return;
                    }
                    kernel = ip == CONTEXT_KERNEL;
                    continue;
                }
                if kernel {
                    self.kernel_later(ip);
                } else {
                    user_seen = true;
                    self.user_frame(pid, ip, false, false);
                }
            }
        } else if let Some(ip) = s.ip {
            if ip >= 0xffff_8000_0000_0000 {
                self.kernel_later(ip);
            } else {
                self.user_frame(pid, ip, false, false);
                user_seen = true;
            }
        }
        // `--call-graph dwarf`: the user part is unwound from the copied stack.
        if let (Some(regs), Some((stack, _))) = (&s.user_regs, &s.user_stack)
            && !user_seen
            && !self.foreign
        {
            let mask = self.regs_user.get(attr).copied().unwrap_or(0);
            let addrs = self.unwind(pid, regs, mask, stack);
            for (i, addr) in addrs.into_iter().enumerate() {
                // As perf's unwinder, stop at a caller outside every mapped file (a
                // guess from a frame without unwind information).
                let file_backed = self
                    .processes
                    .get(&pid)
                    .and_then(|p| p.find(addr.saturating_sub(1)))
                    .and_then(|m| self.dsos.get(m.dso as usize))
                    .is_some_and(|d| !d.path.starts_with('[') && !d.path.starts_with("//"));
                if i > 0 && !file_backed {
                    break;
                }
                self.user_frame(pid, addr, i > 0, true);
            }
        }
        let _ = (state, out);
    }

    /// Keeps the place of a kernel frame, named by [`Reader::name_kernel_frames`] once
    /// the kernel's symbols are read (samples do not wait for them on another thread:
    /// their binaries and DWARF are read meanwhile).
    fn kernel_later(&mut self, ip: u64) {
        self.kernel_at.push(self.frames.len());
        self.frames.push(Frame {
            pc: ip,
            symbol: self.unknown.clone(),
            dso: self.kernel.clone(),
            inlined: false,
            line: None,
            code: None,
        });
    }

    /// Names the kernel frames [`Reader::kernel_later`] kept the place of.
    pub(super) fn name_kernel_frames(&mut self) {
        let mut at = std::mem::take(&mut self.kernel_at);
        for &i in &at {
            if let Some(ip) = self.frames.get(i).map(|f| f.pc) {
                let frame = self.kernel_frame(ip);
                self.frames[i] = frame;
            }
        }
        at.clear();
        self.kernel_at = at;
    }

    fn unwind(
        &mut self,
        pid: i32,
        regs: &linux_perf_data::linux_perf_event_reader::Regs<'_>,
        mask: u64,
        stack: &linux_perf_data::linux_perf_event_reader::RawData<'_>,
    ) -> Vec<u64> {
        let _ = mask;
        let (Some(ip), Some(sp), Some(bp)) = (regs.get(8), regs.get(7), regs.get(6)) else {
            return Vec::new();
        };
        let stack = stack.as_slice();
        let Some(process) = self.processes.get(&pid) else {
            return vec![ip];
        };
        if process.unwinder.is_none() {
            let maps = process.maps.clone();
            let mut modules = Vec::new();
            for m in maps {
                let Some(elf) = self.elf(m.dso) else { continue };
                if let Some(module) = unwind::module(elf, m.start, m.end, m.pgoff) {
                    modules.push(module);
                }
            }
            let u = unwind::ProcessUnwinder::new(modules);
            if let Some(p) = self.processes.get_mut(&pid) {
                p.unwinder = Some(u);
            }
        }
        match self
            .processes
            .get_mut(&pid)
            .and_then(|p| p.unwinder.as_mut())
        {
            Some(u) => u.unwind(ip, sp, bp, &stack),
            None => vec![ip],
        }
    }

    fn kernel_frame(&mut self, ip: u64) -> Frame {
        if self.kallsyms.is_none() {
            let k = match self.kallsyms_job.take().map(std::thread::JoinHandle::join) {
                Some(Ok(k)) => k,
                // No thread was started for it (none to be had, or no kernel frames
                // were expected): the table it would have read.
                _ => read_kallsyms(
                    self.kallsyms_path
                        .as_deref()
                        .or(self.opts.kallsyms.as_deref()),
                ),
            };
            self.kallsyms = Some(k);
        }
        let found = self.kallsyms.as_ref().and_then(|k| {
            k.find(ip).map(|(name, module)| {
                let dso =
                    module.map_or_else(|| self.kernel.clone(), |m| Arc::from(format!("[{m}]")));
                Frame {
                    pc: ip,
                    symbol: name,
                    dso,
                    inlined: false,
                    line: None,
                    code: None,
                }
            })
        });
        found.unwrap_or_else(|| Frame {
            pc: ip,
            symbol: self.unknown.clone(),
            dso: self.kernel.clone(),
            inlined: false,
            line: None,
            code: None,
        })
    }

    /// The frames of a user address (a caller's return address less one when
    /// `caller`, as perf's DWARF unwinding gives it), with the frames inlined there when
    /// `inline` (perf script shows them for DWARF-unwound stacks only).
    fn user_frame(&mut self, pid: i32, ip: u64, caller: bool, inline: bool) {
        let addr = if caller { ip.saturating_sub(1) } else { ip };
        let map = self.processes.get(&pid).and_then(|p| p.find(addr)).copied();
        let Some(map) = map else {
            self.frames.push(Frame {
                pc: addr,
                symbol: self.unknown.clone(),
                dso: self.unknown.clone(),
                inlined: false,
                line: None,
                code: None,
            });
            return;
        };
        // A hostile page offset may wrap (perf computes it in u64 alike).
        let offset = (addr - map.start).wrapping_add(map.pgoff);
        if let Some(frames) = self.cache.get(&(map.dso, offset, inline)) {
            self.frames.extend(frames.iter().cloned());
            return;
        }
        let path = self.dsos[map.dso as usize].path.clone();
        let unknown = self.unknown.clone();
        let lines = self.opts.lines;
        let resolved: Vec<Frame> = match self.elf(map.dso) {
            None => vec![Frame {
                pc: offset,
                symbol: unknown,
                dso: path,
                inlined: false,
                line: None,
                code: None,
            }],
            Some(elf) => {
                let pc = elf.address_of_offset(offset).unwrap_or(offset);
                match elf.symbols.find(pc) {
                    None => vec![Frame {
                        pc,
                        symbol: unknown,
                        dso: path,
                        inlined: false,
                        line: None,
                        code: None,
                    }],
                    Some((name, _)) => {
                        let name = name.clone();
                        // Without `lines`, the chain comes without them.
                        let chain = if inline {
                            elf.inline_frames(pc, lines)
                        } else {
                            Vec::new()
                        };
                        if chain.is_empty() {
                            let line = if lines { elf.line_of(pc) } else { None };
                            let code = if lines && line.is_none() {
                                elf.symbols.range_of(pc)
                            } else {
                                None
                            };
                            vec![Frame {
                                pc,
                                symbol: name,
                                dso: path,
                                inlined: false,
                                line,
                                code,
                            }]
                        } else {
                            // perf: an entry named as the symbol is the symbol's own frame.
                            let frame = |(n, line): (Arc<str>, _)| Frame {
                                pc,
                                inlined: n != name,
                                dso: path.clone(),
                                symbol: n,
                                line,
                                code: None,
                            };
                            chain.into_iter().map(frame).collect()
                        }
                    }
                }
            }
        };
        let resolved: Arc<[Frame]> = resolved.into();
        self.frames.extend(resolved.iter().cloned());
        self.cache.insert((map.dso, offset, inline), resolved);
    }
}
