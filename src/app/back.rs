//! Stage: application state — the back stack of screens: where Esc goes back to. Each
//! screen opened from another (not from the graph) keeps the one it came from, with that
//! screen's selection and scroll, so Esc returns there as it was. Plain data, bounded: the
//! oldest places are forgotten first.

/// Places kept at most; older ones are dropped (Esc then ends on the graph).
pub const DEPTH: usize = 16;

/// A bounded stack of the places the user came from, newest last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackStack<T> {
    places: Vec<T>,
}

impl<T> Default for BackStack<T> {
    fn default() -> Self {
        Self { places: Vec::new() }
    }
}

impl<T> BackStack<T> {
    /// Remembers `place`; the oldest is forgotten when [`DEPTH`] are kept.
    pub fn push(&mut self, place: T) {
        if self.places.len() == DEPTH {
            self.places.remove(0);
        }
        self.places.push(place);
    }

    /// The place to go back to, newest first.
    pub fn pop(&mut self) -> Option<T> {
        self.places.pop()
    }

    /// Forgets every place (back on the graph, where the stack starts).
    pub fn clear(&mut self) {
        self.places.clear();
    }

    /// Keeps only the places `keep` accepts (those still valid after a new tree).
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.places.retain(keep);
    }

    /// How many places are kept.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// True when Esc goes to the graph.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_newest_first() {
        let mut s = BackStack::default();
        s.push(1);
        s.push(2);
        assert_eq!(s.pop(), Some(2));
        assert_eq!(s.pop(), Some(1));
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn forgets_the_oldest_beyond_its_depth() {
        let mut s = BackStack::default();
        for i in 0..DEPTH + 3 {
            s.push(i);
        }
        assert_eq!(s.len(), DEPTH);
        assert_eq!(s.pop(), Some(DEPTH + 2));
        let mut last = None;
        while let Some(i) = s.pop() {
            last = Some(i);
        }
        assert_eq!(last, Some(3));
        assert!(s.is_empty());
    }
}
