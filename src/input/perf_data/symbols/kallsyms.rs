//! The kernel's symbol table, from `/proc/kallsyms` or a file in its format.

use std::cell::RefCell;
use std::io::{BufRead as _, Read as _};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::demangle;

/// The kernel's symbols from `/proc/kallsyms` (or a file in its format), with the module
/// each belongs to.
///
/// A kernel has over 100,000 functions and a profile names a few hundred: the names are
/// kept in one string, 16 bytes an entry, and a name is made shareable when first found
/// (as an `Arc<str>` each and a general symbol table's 48-byte entries, they took 14 MB).
/// Read from a file (perf's copy in its build-id cache, `--kallsyms`), the names are not
/// kept at all: each entry says where its name is in the file, read again when found
/// (3 MB of names a kernel, against a few hundred reads).
#[derive(Debug, Default)]
pub struct Kallsyms {
    /// Every name kept, one after another; empty when they are read from `file`.
    names: String,
    /// The file whose names are read when found; [`Entry::name`] is then a place in it.
    file: Option<std::fs::File>,
    /// By start address; a symbol reaches to the next one.
    entries: Vec<Entry>,
    /// Module names; an entry's `module` is 1 + an index here (0: the kernel itself).
    modules: Vec<Arc<str>>,
    /// The names found so far, shareable, by entry.
    found: RefCell<FxHashMap<u32, Arc<str>>>,
    /// Whether every address read 0 (hidden by `kptr_restrict`).
    pub hidden: bool,
}

/// The longest line read: an address, a type, a name of at most 512 bytes (`KSYM_NAME_LEN`)
/// and a module's name, with room to spare.
const MOST_LINE: u64 = 4096;

/// A symbol: its start, where its name is (in [`Kallsyms::names`], or in the file), its
/// module.
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
    pub fn read(input: impl std::io::BufRead) -> Self {
        Self::read_names(input, true)
    }

    /// As [`Kallsyms::read`]; without `keep`, each entry keeps where its name is in
    /// `input` rather than the name (a name past 4 GiB is left out).
    fn read_names(mut input: impl std::io::BufRead, keep: bool) -> Self {
        let mut me = Self::default();
        let mut lines = 0u64;
        let mut buf = Vec::new();
        let mut line_at = 0usize;
        loop {
            buf.clear();
            let read = match (&mut input).take(MOST_LINE).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let at_line = line_at;
            line_at += read;
            if read as u64 == MOST_LINE && buf.last() != Some(&b'\n') {
                // No kernel's line: skipped whole, never held.
                match input.skip_until(b'\n') {
                    Ok(n) => line_at += n,
                    Err(_) => break,
                }
                continue;
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
            let at = if keep {
                me.names.len()
            } else {
                // `name` is a piece of `line`, which is `buf` from its start.
                at_line + (name.as_ptr() as usize - line.as_ptr() as usize)
            };
            let (Ok(len), Ok(at)) = (u16::try_from(name.len()), u32::try_from(at)) else {
                continue;
            };
            if keep {
                me.names.push_str(name);
            }
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

    /// The table in the file at `path` (empty when it cannot be read). Its names stay in
    /// the file when it is a regular one with a size: not `/proc/kallsyms`, whose size
    /// reads 0 and whose every read at a place formats it again up to there.
    pub fn from_file(path: &std::path::Path) -> Self {
        let Ok(f) = std::fs::File::open(path) else {
            return Self::default();
        };
        let sized = f.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
        let again = sized.then(|| f.try_clone().ok()).flatten();
        let input = std::io::BufReader::with_capacity(64 << 10, f);
        match again {
            Some(again) => Self {
                file: Some(again),
                ..Self::read_names(input, false)
            },
            None => Self::read(input),
        }
    }

    /// The raw name of `e`: from the names kept, or read again from the file (`None`
    /// when that read fails or gives other than a name: the file changed).
    fn raw_name(&self, e: Entry) -> Option<std::borrow::Cow<'_, str>> {
        let (from, len) = (e.name as usize, usize::from(e.len));
        let Some(file) = &self.file else {
            return Some(self.names.get(from..from + len).unwrap_or("").into());
        };
        let mut bytes = vec![0; len];
        std::os::unix::fs::FileExt::read_exact_at(file, &mut bytes, u64::from(e.name)).ok()?;
        let name = String::from_utf8(bytes).ok()?;
        (!name.is_empty() && !name.contains(|c: char| c.is_ascii_whitespace()))
            .then_some(name.into())
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
        let found = self.found.borrow().get(&index).cloned();
        let name = if let Some(name) = found {
            name
        } else {
            let name: Arc<str> = Arc::from(&*demangle(&self.raw_name(e)?));
            self.found.borrow_mut().insert(index, name.clone());
            name
        };
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
    fn a_file_s_names_are_read_from_it_when_found_and_not_kept() {
        // Two spaces before `helper`: a name's place is where it starts, not a column.
        // A line too long for a kernel's is skipped, and the places after it still hold.
        let text = format!(
            "ffffffff81000000 T _stext\nffffffff81000100 t  helper\n\
             ffffffff81000100 t helper_alias\nffffffff81000200 t {}\n\
             ffffffffc0000000 t ext4_fn\t[ext4]\nffffffffc0000200 t _RNvCs1234_4core3fmt\n",
            "x".repeat(10_000)
        );
        let text = text.as_str();
        let path = std::env::temp_dir().join(format!("flametui-kallsyms-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let from_file = Kallsyms::from_file(&path);
        let kept = Kallsyms::parse(text);
        assert!(from_file.names.is_empty() && from_file.file.is_some());
        assert!(!kept.names.is_empty());
        let all = |k: &Kallsyms| {
            [
                0xffff_ffff_8100_0004,
                0xffff_ffff_8100_0104,
                0xffff_ffff_c000_0001,
            ]
            .into_iter()
            .chain([0xffff_ffff_c000_0201, 0x10])
            .map(|a| {
                k.find(a)
                    .map(|(n, m)| (n.to_string(), m.map(ToString::to_string)))
            })
            .collect::<Vec<_>>()
        };
        assert_eq!(all(&from_file), all(&kept));
        assert_eq!(all(&from_file)[1], Some(("helper_alias".to_owned(), None)));
        // A name that cannot be read again (the file shrank) is no name; one found
        // before stays.
        let fresh = Kallsyms::from_file(&path);
        let stext = |k: &Kallsyms| k.find(0xffff_ffff_8100_0004).map(|f| f.0.to_string());
        assert_eq!(stext(&fresh).as_deref(), Some("_stext"));
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(40).unwrap();
        assert_eq!(stext(&fresh).as_deref(), Some("_stext"));
        assert!(fresh.find(0xffff_ffff_c000_0001).is_none());
        assert!(fresh.find(0xffff_ffff_8100_0104).is_none());
        std::fs::remove_file(&path).unwrap();
        // `/proc/kallsyms` reads a size of 0: its names are kept.
        let proc = Kallsyms::from_machine();
        assert!(proc.file.is_none());
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
