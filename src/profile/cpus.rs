//! Stage: samples → stats. The CPUs a recording's samples were taken on, counted as
//! they are read (perf script's `[001]`, a perf.data sample's CPU), for the header's
//! "on 2 CPUs" when the recording's own header does not say how many it had.

/// A set of CPU numbers: one bit each, grown as higher numbers are seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuSet {
    words: Vec<u64>,
}

/// CPU numbers above this are not counted (a corrupt field, not a machine).
const MAX_CPU: u32 = 1 << 16;

impl CpuSet {
    /// Adds CPU `cpu`.
    pub fn insert(&mut self, cpu: u32) {
        if cpu >= MAX_CPU {
            return;
        }
        let (word, bit) = ((cpu / 64) as usize, cpu % 64);
        if self.words.len() <= word {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << bit;
    }

    /// Adds every CPU of `other`.
    pub fn union(&mut self, other: &CpuSet) {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            *w |= o;
        }
    }

    /// How many distinct CPUs were seen.
    pub fn len(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether no CPU was seen.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_cpus_and_unions() {
        let mut a = CpuSet::default();
        assert!(a.is_empty());
        for c in [0, 1, 1, 130] {
            a.insert(c);
        }
        a.insert(MAX_CPU);
        assert_eq!(a.len(), 3);
        let mut b = CpuSet::default();
        b.insert(1);
        b.insert(7);
        b.union(&a);
        assert_eq!(b.len(), 4);
    }

    /// The header's count wins, the CPUs seen stand in for it, and nothing is guessed;
    /// perf's dummy times are not part of the recording's length.
    #[test]
    fn the_cpu_count_and_the_span_of_the_stats() {
        use crate::profile::Stats;
        let mut s = Stats::default();
        assert_eq!((s.cpu_count(), s.sample_times), (None, None));
        s.saw_event("cpu-clock", Some(0), Some(7));
        s.saw_event("cpu-clock", Some(1), Some(3));
        s.saw_event(
            "offcpu-time",
            None,
            Some(crate::profile::samples::DUMMY_TIME_FROM),
        );
        assert_eq!((s.cpu_count(), s.sample_times), (Some(2), Some((3, 7))));
        assert_eq!(s.events.get("cpu-clock"), Some(&2));
        let mut other = Stats {
            nr_cpus: Some(8),
            ..Stats::default()
        };
        other.saw_time(20);
        s.merge(other);
        assert_eq!((s.cpu_count(), s.sample_times), (Some(8), Some((3, 20))));
    }
}
