//! The kernel's symbol table, from `/proc/kallsyms` or a file in its format.

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::demangle;

/// The kernel's symbols from `/proc/kallsyms` (or a file in its format), with the module
/// each belongs to.
///
/// A kernel has over 100,000 functions and a profile names a few hundred: the names are
/// kept in one string, 16 bytes an entry, and a name is made shareable when first found
/// (as an `Arc<str>` each and a general symbol table's 48-byte entries, they took 14 MB).
#[derive(Debug, Default)]
pub struct Kallsyms {
    /// Every name kept, one after another.
    names: String,
    /// By start address; a symbol reaches to the next one.
    entries: Vec<Entry>,
    /// Module names; an entry's `module` is 1 + an index here (0: the kernel itself).
    modules: Vec<Arc<str>>,
    /// The names found so far, shareable, by entry.
    found: RefCell<FxHashMap<u32, Arc<str>>>,
    /// Whether every address read 0 (hidden by `kptr_restrict`).
    pub hidden: bool,
}

/// A symbol: its start, where its name is in [`Kallsyms::names`], its module.
#[derive(Debug, Clone, Copy)]
struct Entry {
    start: u64,
    name: u32,
    len: u16,
    module: u16,
}

impl Kallsyms {
    /// Parses kallsyms text: `addr type name [module]` per line.
    ///
    /// perf gives each kernel symbol the length up to the next one, so of several at one
    /// address all but the last in the file have none, and the last is chosen before any
    /// other rule (`memcpy` then `__pi_memcpy`: `__pi_memcpy`); the module is the first's.
    #[cfg(test)]
    pub fn parse(text: &str) -> Self {
        Self::read(text.as_bytes())
    }

    /// As [`Kallsyms::parse`], line by line from `input` (the text is never held whole:
    /// 5 MB for a kernel's 120,000 lines); a line that is not UTF-8 is skipped, a read
    /// error ends the table.
    pub fn read(mut input: impl std::io::BufRead) -> Self {
        let mut me = Self::default();
        let mut lines = 0u64;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let Ok(line) = std::str::from_utf8(&buf) else {
                continue;
            };
            let mut it = line.split_ascii_whitespace();
            let (Some(addr), Some(kind), Some(name)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            lines += 1;
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            if addr == 0 || !matches!(kind, "T" | "t" | "W" | "w") {
                continue;
            }
            // Module names repeat line after line: one entry per run of them.
            let module = it
                .next()
                .map(|m| m.trim_start_matches('[').trim_end_matches(']'));
            let module = match module {
                None => 0,
                Some(m) => {
                    if me.modules.last().is_none_or(|last| **last != *m) {
                        me.modules.push(Arc::from(m));
                    }
                    u16::try_from(me.modules.len()).unwrap_or(u16::MAX)
                }
            };
            // A kernel name is at most 512 bytes (KSYM_NAME_LEN): a longer one is no
            // kernel's.
            let (Ok(len), Ok(at)) = (u16::try_from(name.len()), u32::try_from(me.names.len()))
            else {
                continue;
            };
            me.names.push_str(name);
            me.entries.push(Entry {
                start: addr,
                name: at,
                len,
                module,
            });
        }
        // Stable: at one address, the file's order; the first entry stays, named as the
        // last.
        me.entries.sort_by_key(|e| e.start);
        me.entries.dedup_by(|later, first| {
            let same = later.start == first.start;
            if same {
                (first.name, first.len) = (later.name, later.len);
            }
            same
        });
        me.hidden = lines > 0 && me.entries.is_empty();
        // Kept for the whole load: no room to spare.
        me.names.shrink_to_fit();
        me.entries.shrink_to_fit();
        me
    }

    /// The table in the file at `path` (empty when it cannot be read).
    pub fn from_file(path: &std::path::Path) -> Self {
        std::fs::File::open(path).map_or_else(
            |_| Self::default(),
            |f| Self::read(std::io::BufReader::with_capacity(64 << 10, f)),
        )
    }

    /// This machine's table (empty when it cannot be read).
    pub fn from_machine() -> Self {
        Self::from_file(std::path::Path::new("/proc/kallsyms"))
    }

    /// The symbol at `addr` (demangled) and its module, when it is in one.
    pub fn find(&self, addr: u64) -> Option<(Arc<str>, Option<&Arc<str>>)> {
        let at = self
            .entries
            .partition_point(|e| e.start <= addr)
            .checked_sub(1)?;
        let e = self.entries[at];
        let index = u32::try_from(at).ok()?;
        let name = self
            .found
            .borrow_mut()
            .entry(index)
            .or_insert_with(|| {
                let from = e.name as usize;
                let raw = self
                    .names
                    .get(from..from + usize::from(e.len))
                    .unwrap_or("");
                Arc::from(&*demangle(raw))
            })
            .clone();
        let module = usize::from(e.module)
            .checked_sub(1)
            .and_then(|m| self.modules.get(m));
        Some((name, module))
    }

    /// Whether it has no symbol.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_kernel_symbols_at_one_address_the_last_is_named() {
        let k = Kallsyms::parse(
            "ffffffff821f4320 T memcpy\nffffffff821f4320 T __pi_memcpy\nffffffff821f4400 T next\n",
        );
        assert_eq!(
            k.find(0xffff_ffff_821f_4330)
                .map(|f| f.0.to_string())
                .as_deref(),
            Some("__pi_memcpy")
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_skipped_and_the_rest_read() {
        let mut text = b"ffffffff81000000 T _stext\nffffffff81000100 t bad_\xff\n".to_vec();
        text.extend_from_slice(b"ffffffff81000200 t helper\r\nffffffff81000300 T last");
        let k = Kallsyms::read(&text[..]);
        let name = |a| k.find(a).map(|f| f.0.to_string());
        // The bad line's symbol is missing: its addresses fall to the one before.
        assert_eq!(name(0xffff_ffff_8100_0104).as_deref(), Some("_stext"));
        assert_eq!(name(0xffff_ffff_8100_0204).as_deref(), Some("helper"));
        // The last line has no newline.
        assert_eq!(name(0xffff_ffff_8100_0304).as_deref(), Some("last"));
    }

    #[test]
    fn kallsyms_with_modules_and_hidden_addresses() {
        let k = Kallsyms::parse(
            "ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffffc0000000 t ext4_fn\t[ext4]\n",
        );
        assert_eq!(
            k.find(0xffff_ffff_8100_0104)
                .map(|s| s.0.to_string())
                .as_deref(),
            Some("helper")
        );
        let (name, module) = k.find(0xffff_ffff_c000_0001).unwrap();
        assert_eq!((&*name, module.map(|m| &**m)), ("ext4_fn", Some("ext4")));
        assert!(!k.hidden);
        let hidden = Kallsyms::parse("0000000000000000 T _stext\n0000000000000000 t x\n");
        assert!(hidden.hidden && hidden.is_empty());
    }

    #[test]
    fn names_are_shared_once_found_and_an_overlong_one_is_no_kernels() {
        let long = "x".repeat(70_000);
        let text = format!(
            "ffffffffc0000000 t first\t[mod_a]\nffffffffc0000000 t second\t[mod_b]\n\
             ffffffffc0000100 t {long}\nffffffffc0000200 t _RNvCs1234_4core3fmt\n"
        );
        let k = Kallsyms::parse(&text);
        let (a, module) = k.find(0xffff_ffff_c000_0150).unwrap();
        // The overlong name is left out: its address falls to the symbol before.
        assert_eq!((&*a, module.map(|m| &**m)), ("second", Some("mod_a")));
        let (b, _) = k.find(0xffff_ffff_c000_0001).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Names are demangled as a binary's are.
        let (rust, module) = k.find(0xffff_ffff_c000_0200).unwrap();
        assert_eq!((&*rust, module), (&*demangle("_RNvCs1234_4core3fmt"), None));
        assert!(k.find(0x10).is_none());
    }
}
