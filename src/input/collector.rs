//! Where parsers put samples, and the per-line state they share.

use crate::profile::{CallTree, Profile, SampleTable, Stats};

/// Where parsers put samples and bookkeeping.
#[derive(Debug, Default)]
pub struct Collector {
    /// The tree being built (BEFORE for differential input).
    pub tree: CallTree,
    /// AFTER tree of differential folded input.
    pub after: Option<CallTree>,
    /// How the input is being read.
    pub stats: Stats,
    /// One record per sample, for inputs that have them (perf script); its leaves are
    /// nodes of `tree`.
    pub samples: SampleTable,
    /// perf: the samples of each other event, one collector per event (its
    /// `stats.event`), in the order first seen. While a parser fills them their trees
    /// hold names of `tree` ([`Collector::other_event`]); merging or finishing gives
    /// them their own.
    pub others: Vec<Collector>,
    /// The trees of `others` still use the names of `tree`.
    others_share_names: bool,
    /// The piece of the input being parsed ([`Collector::begin_piece`]).
    piece: Option<u64>,
    /// The tree's families are left in the order the parse met them
    /// ([`Collector::keep_parse_order`]).
    pub(super) in_parse_order: bool,
}

impl Collector {
    /// Moves everything collected so far into `into`, leaving this collector empty
    /// with its tree's names kept under the same ids, so that a parser holding ids of
    /// them goes on filling it (a streamed input's snapshots gather the workers' pieces
    /// this way). `into` gets the same as from [`Collector::merge`].
    pub fn drain_into(&mut self, into: &mut Collector) {
        self.own_names();
        into.own_names();
        if into.stats.event.is_none() {
            into.stats.event.clone_from(&self.stats.event);
        }
        into.absorb(self);
        self.tree.clear_nodes();
    }

    /// Adds another piece's samples and counts.
    pub fn merge(&mut self, mut other: Collector) {
        // Before the trees move: each side's other-event trees copy the names they were
        // filled with.
        self.own_names();
        other.own_names();
        // The smaller tree goes into the larger (an empty one is simply replaced): the
        // merge costs one lookup per node of the tree merged in. Each sample table goes
        // with its tree.
        if other.tree.len() > self.tree.len() {
            std::mem::swap(&mut self.tree, &mut other.tree);
            std::mem::swap(&mut self.samples, &mut other.samples);
        }
        self.absorb(&mut other);
    }

    /// Takes `other`'s other events, samples (its tree merged into this one, which it
    /// leaves as it is), AFTER tree and counts. Both own their names.
    fn absorb(&mut self, other: &mut Collector) {
        for o in std::mem::take(&mut other.others) {
            let same = self
                .others
                .iter()
                .position(|m| m.stats.event == o.stats.event);
            match same {
                Some(i) => self.others[i].merge(o),
                None if self.others.len() < MAX_OTHER_EVENTS => self.others.push(o),
                None => self.stats.filtered_samples += o.stats.samples,
            }
        }
        let leaves = self.tree.merge_from_mapped(&other.tree);
        let mut stacks = Vec::new();
        if !other.samples.lines().is_empty() {
            // The other tree's names by this tree's ids, through the nodes that hold them.
            let mut names = vec![crate::profile::NameId(0); other.tree.names().len()];
            for (i, &to) in leaves.iter().enumerate() {
                let from = other.tree.node(crate::profile::NodeId(i as u32)).name;
                names[from.0 as usize] = self.tree.node(to).name;
            }
            let lines = std::mem::take(other.samples.lines_mut());
            stacks = self
                .samples
                .lines_mut()
                .merge_mapped(&lines, &leaves, Some(&names));
        }
        self.samples
            .append_mapped(std::mem::take(&mut other.samples), &leaves, &stacks);
        match (&mut self.after, other.after.take()) {
            (Some(a), Some(b)) => a.merge_from(&b),
            (None, Some(b)) => self.after = Some(b),
            _ => {}
        }
        self.stats.merge(std::mem::take(&mut other.stats));
    }
}

/// The most events kept besides the one shown (each is a tree of its own); the samples of
/// any more are left out and counted (a text can name any number of events).
pub const MAX_OTHER_EVENTS: usize = 63;

impl Collector {
    /// The index in `others` of the collector of the samples of another event than the
    /// kept one, made on first sight (indexes stay while a parser fills this collector);
    /// its tree takes frame names interned in `self.tree`. `None` past
    /// [`MAX_OTHER_EVENTS`], or once this collector has been merged into (its others have
    /// names of their own).
    pub fn other_event(&mut self, event: &str) -> Option<usize> {
        if !self.others_share_names && !self.others.is_empty() {
            return None;
        }
        let found = self
            .others
            .iter()
            .position(|o| o.stats.event.as_deref() == Some(event));
        if found.is_none() && self.others.len() >= MAX_OTHER_EVENTS {
            return None;
        }
        self.others_share_names = true;
        Some(found.unwrap_or_else(|| {
            let mut o = Collector::default();
            o.stats.event = Some(event.to_owned());
            o.stats.format = self.stats.format;
            if let Some(key) = self.piece {
                o.samples.begin_piece(key);
            }
            self.others.push(o);
            self.others.len() - 1
        }))
    }

    /// Marks that what comes next is piece `key` of the input (pieces numbered in input
    /// order, as a parser thread's chunks by their first line): the sample tables of
    /// collectors of pieces are joined in input order however the pieces were shared out.
    pub fn begin_piece(&mut self, key: u64) {
        self.piece = Some(key);
        self.samples.begin_piece(key);
        for o in &mut self.others {
            o.samples.begin_piece(key);
        }
    }

    /// Leaves the tree's families in the order the parse met them when it becomes a
    /// profile of its own ([`Collector::into_profile`]): for a consumer that orders every
    /// family itself as it reads it, the folded export of an input as read, where ordering
    /// them first was 4–7% of a run on distinct stacks (the trees of the other parser
    /// threads, left apart beside it, are never ordered either).
    pub(super) fn keep_parse_order(&mut self) {
        self.in_parse_order = true;
    }

    /// The finished profile of this collector's tree, samples and stats (its `others` and
    /// `after`, if any, are left out: taken before). Its families are ordered by name,
    /// unless [`Collector::keep_parse_order`] said otherwise.
    pub(super) fn into_profile(mut self, source: &str) -> Profile {
        if !self.in_parse_order {
            self.tree.finish();
        }
        self.samples.finish();
        Profile {
            source: source.to_owned(),
            tree: self.tree,
            stats: self.stats,
            samples: std::sync::Arc::new(self.samples),
            metrics: crate::profile::metrics::Metrics::default(),
        }
    }

    /// Gives the trees of `others` names of their own (a copy of `tree`'s, whose ids
    /// they hold).
    pub(super) fn own_names(&mut self) {
        if std::mem::take(&mut self.others_share_names) {
            for o in &mut self.others {
                o.tree.adopt_names(&self.tree);
            }
        }
    }
}

/// Per-line context handed to parsers.
#[derive(Debug, Default)]
pub struct ParseState {
    /// Number of the line being parsed.
    pub line_no: u64,
}

impl ParseState {
    /// Records the current line as skipped.
    pub fn skip(&self, out: &mut Collector, reason: &'static str, text: &str) {
        out.stats.skip(self.line_no, reason, text);
    }
}
