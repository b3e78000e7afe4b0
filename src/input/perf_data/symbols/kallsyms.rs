//! The kernel's symbol table, from `/proc/kallsyms` or a file in its format.

use std::sync::Arc;

use super::{SymbolTable, rank};

/// The kernel's symbols from `/proc/kallsyms` (or a file in its format), with the module
/// each belongs to.
#[derive(Debug, Default)]
pub struct Kallsyms {
    table: SymbolTable,
    /// Module of each symbol by start address (`None`: the kernel itself).
    modules: Vec<(u64, Option<Arc<str>>)>,
    /// Whether every address read 0 (hidden by `kptr_restrict`).
    pub hidden: bool,
}

impl Kallsyms {
    /// Parses kallsyms text: `addr type name [module]` per line.
    pub fn parse(text: &str) -> Self {
        let mut raw = Vec::new();
        let mut modules = Vec::new();
        let mut lines = 0u64;
        let mut last_module: Option<Arc<str>> = None;
        for line in text.lines() {
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
            // Module names repeat line after line: one allocation per run of them.
            let module = it
                .next()
                .map(|m| m.trim_start_matches('[').trim_end_matches(']'));
            let module = match (module, &last_module) {
                (Some(m), Some(last)) if **last == *m => Some(last.clone()),
                (Some(m), _) => {
                    let m: Arc<str> = Arc::from(m);
                    last_module = Some(m.clone());
                    Some(m)
                }
                (None, _) => None,
            };
            let global = kind == "T" || kind == "W";
            raw.push((addr, 0, Arc::from(name), rank(true, global, false)));
            modules.push((addr, module));
        }
        modules.sort_by_key(|m| m.0);
        modules.dedup_by_key(|m| m.0);
        // perf gives each kernel symbol the length up to the next one, so of several at
        // one address all but the last in the file have none, and the last is chosen
        // before any other rule (`memcpy` then `__pi_memcpy`: `__pi_memcpy`).
        raw.sort_by_key(|r| r.0);
        for i in 0..raw.len() {
            if raw.get(i + 1).is_none_or(|next| next.0 != raw[i].0) {
                raw[i].3 += 8;
            }
        }
        Self {
            hidden: lines > 0 && raw.is_empty(),
            table: SymbolTable::new(raw),
            modules,
        }
    }

    /// This machine's table (empty when it cannot be read).
    pub fn from_machine() -> Self {
        std::fs::read_to_string("/proc/kallsyms")
            .map_or_else(|_| Self::default(), |t| Self::parse(&t))
    }

    /// The symbol at `addr` and its DSO as perf names it (`[kernel.kallsyms]` or `[module]`).
    pub fn find(&self, addr: u64) -> Option<(&Arc<str>, Option<&Arc<str>>)> {
        let (name, start) = self.table.find(addr)?;
        let at = self.modules.partition_point(|m| m.0 <= start);
        let module = self
            .modules
            .get(at.checked_sub(1)?)
            .and_then(|m| m.1.as_ref());
        Some((name, module))
    }

    /// Whether it has no symbol.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
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
            k.find(0xffff_ffff_821f_4330).map(|f| &**f.0),
            Some("__pi_memcpy")
        );
    }

    #[test]
    fn kallsyms_with_modules_and_hidden_addresses() {
        let k = Kallsyms::parse(
            "ffffffff81000000 T _stext\nffffffff81000100 t helper\nffffffffc0000000 t ext4_fn\t[ext4]\n",
        );
        assert_eq!(
            k.find(0xffff_ffff_8100_0104).map(|s| &**s.0),
            Some("helper")
        );
        let (name, module) = k.find(0xffff_ffff_c000_0001).unwrap();
        assert_eq!((&**name, module.map(|m| &**m)), ("ext4_fn", Some("ext4")));
        assert!(!k.hidden);
        let hidden = Kallsyms::parse("0000000000000000 T _stext\n0000000000000000 t x\n");
        assert!(hidden.hidden && hidden.is_empty());
    }
}
