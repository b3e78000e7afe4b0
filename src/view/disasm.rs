//! Stage: view model — a function without source lines listed per instruction, as `perf
//! annotate` shows one: its machine code disassembled (x86-64, with `iced-x86`, in the
//! GNU assembler's syntax that `perf annotate` and `objdump` print), each instruction with
//! the weight of the samples at an address inside it (a sample's own address for its
//! leaf; a caller's return address less one, inside its call). A row's number is the
//! instruction's offset from the function's start.

use iced_x86::{Decoder, DecoderOptions, Formatter, GasFormatter, Instruction};

use super::source::{CONTEXT, Listing, MOST_SPAN, SourceRow};
use crate::profile::source::{Arch, Code, Cost, FileId, Line};

/// The listing of function code `code` (file `file`) with the costs `here` at its offsets
/// (sorted). Past [`MOST_SPAN`] instructions, only those within [`CONTEXT`] of one with
/// samples are listed; offsets past the code read (or of another instruction set) are
/// rows of their own, without text.
pub fn code_listing(file: FileId, code: &Code, here: &[(Line, Cost)]) -> Listing {
    let mut rows: Vec<SourceRow> = instructions(code)
        .into_iter()
        .map(|(offset, len, text)| {
            let end = offset.saturating_add(len);
            let mut cost = Cost::default();
            for (l, c) in here
                .iter()
                .filter(|(l, _)| (offset..end).contains(&l.number))
            {
                debug_assert_eq!(l.file, file);
                cost.self_weight = cost.self_weight.saturating_add(c.self_weight);
                cost.total = cost.total.saturating_add(c.total);
            }
            SourceRow {
                number: offset,
                cost,
                text: Some(text),
            }
        })
        .collect();
    // Addresses no instruction read holds.
    let decoded = rows.last().map_or(0, |r| {
        let last = u32::try_from(code.bytes.len()).unwrap_or(u32::MAX);
        last.max(r.number)
    });
    for (l, c) in here.iter().filter(|(l, _)| l.number >= decoded) {
        rows.push(SourceRow {
            number: l.number,
            cost: *c,
            text: None,
        });
    }
    rows.sort_by_key(|r| r.number);
    if rows.len() > MOST_SPAN as usize {
        let hot: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].cost.total > 0)
            .collect();
        let near = |i: usize| hot.iter().any(|&h| i.abs_diff(h) <= CONTEXT as usize);
        let mut i = 0;
        rows.retain(|_| {
            i += 1;
            near(i - 1)
        });
    }
    let mut sum = Cost::default();
    for r in &rows {
        sum.self_weight = sum.self_weight.saturating_add(r.cost.self_weight);
        sum.total = sum.total.saturating_add(r.cost.total);
    }
    Listing {
        file,
        rows,
        sum,
        code: true,
    }
}

/// `(offset, length, text)` of each instruction of `code`; none for another instruction
/// set than x86-64. Bytes that do not decode are `(bad)` one byte long, as objdump says.
fn instructions(code: &Code) -> Vec<(u32, u32, String)> {
    if code.arch != Arch::X86_64 {
        return Vec::new();
    }
    let mut decoder = Decoder::with_ip(64, &code.bytes, code.start, DecoderOptions::NONE);
    let mut formatter = GasFormatter::new();
    // As objdump prints them (`add $0x1,%rcx`), branch targets `0x11e0`.
    let o = formatter.options_mut();
    o.set_first_operand_char_index(8);
    o.set_uppercase_hex(false);
    o.set_small_hex_numbers_in_decimal(false);
    o.set_branch_leading_zeros(false);
    let mut out = Vec::new();
    let mut instruction = Instruction::default();
    let mut text = String::new();
    while decoder.can_decode() {
        let offset = u32::try_from(decoder.position()).unwrap_or(u32::MAX);
        decoder.decode_out(&mut instruction);
        text.clear();
        if instruction.is_invalid() {
            text.push_str("(bad)");
        } else {
            formatter.format(&instruction, &mut text);
        }
        let len = u32::try_from(instruction.len().max(1)).unwrap_or(1);
        out.push((offset, len, text.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::source::SourceLines;

    #[test]
    fn each_instruction_holds_the_samples_at_addresses_inside_it() {
        let mut s = SourceLines::default();
        // push rbp; mov rbp,rsp; call +0 (5 bytes); pop rbp; ret; then 2 bytes past the
        // code read.
        let bytes = vec![0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x5d, 0xc3];
        let file = s.code_file("/bin/app", 0x1000, || Some((bytes, Arch::X86_64)));
        let code = s.code(file).unwrap().clone();
        let at = |number| Line { file, number };
        let c = |self_weight, total| Cost { self_weight, total };
        // A leaf at `mov`, a caller's return address less one (inside the call), an
        // address past the code.
        let here = [(at(1), c(2, 2)), (at(8), c(0, 5)), (at(40), c(1, 1))];
        let l = code_listing(file, &code, &here);
        let rows: Vec<(u32, Cost, Option<&str>)> = l
            .rows
            .iter()
            .map(|r| (r.number, r.cost, r.text.as_deref()))
            .collect();
        assert_eq!(rows.len(), 6, "{rows:?}");
        assert_eq!(rows[0], (0, c(0, 0), Some("push    %rbp")));
        assert_eq!(rows[1], (1, c(2, 2), Some("mov     %rsp,%rbp")));
        assert_eq!(rows[2].0, 4);
        assert!(rows[2].2.unwrap().starts_with("call"), "{rows:?}");
        assert_eq!(rows[2].1, c(0, 5));
        assert_eq!(rows[5], (40, c(1, 1), None));
        assert_eq!(l.sum, c(3, 8));
        assert!(l.code);
    }

    #[test]
    fn another_instruction_set_lists_offsets_only() {
        let mut s = SourceLines::default();
        let file = s.code_file("/bin/arm", 0, || Some((vec![0; 16], Arch::Other)));
        let code = s.code(file).unwrap().clone();
        let here = [(Line { file, number: 4 }, Cost::default())];
        let l = code_listing(file, &code, &here);
        assert_eq!(l.rows.len(), 1);
        assert_eq!(l.rows[0].text, None);
    }

    #[test]
    fn a_long_function_lists_the_instructions_near_its_samples() {
        let mut s = SourceLines::default();
        // 2,000 one-byte `nop`s.
        let file = s.code_file("/bin/app", 0, || Some((vec![0x90; 2000], Arch::X86_64)));
        let code = s.code(file).unwrap().clone();
        let here = [(
            Line { file, number: 1000 },
            Cost {
                self_weight: 1,
                total: 1,
            },
        )];
        let l = code_listing(file, &code, &here);
        let numbers: Vec<u32> = l.rows.iter().map(|r| r.number).collect();
        assert_eq!(numbers, (995..=1005).collect::<Vec<_>>());
    }
}
