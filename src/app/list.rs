//! Stage: application state — the selection and scroll arithmetic shared by the lists (the
//! function table, the fuzzy finder, the delta table).

/// `selected` moved by `by` rows in a list of `len` rows, stopping at the ends.
pub fn step(selected: usize, by: isize, len: usize) -> usize {
    selected
        .saturating_add_signed(by)
        .min(len.saturating_sub(1))
}

/// The first (`false`) or last row of a list of `len` rows.
pub fn edge(len: usize, last: bool) -> usize {
    if last { len.saturating_sub(1) } else { 0 }
}

/// The first row on screen, moved as little as possible from `offset` so that `selected`
/// is among the `height` rows shown (at least one).
pub fn scroll(selected: usize, offset: usize, height: usize) -> usize {
    let h = height.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + h {
        selected + 1 - h
    } else {
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_at_the_ends_and_scrolling_follows() {
        assert_eq!(step(0, -1, 5), 0);
        assert_eq!(step(3, 9, 5), 4);
        assert_eq!(step(0, 1, 0), 0);
        assert_eq!((edge(5, false), edge(5, true), edge(0, true)), (0, 4, 0));
        assert_eq!(scroll(3, 0, 2), 2);
        assert_eq!(scroll(1, 2, 2), 1);
        assert_eq!(scroll(2, 1, 3), 1);
        assert_eq!(scroll(4, 0, 0), 4);
    }
}
