//! RemapCom's unchanged-data-block (UDB) state machine, run over a merge.
//!
//! A merge walks its input entries in key order; each is either reserved
//! (kept in the output) or dropped (an older version, or a tombstone that
//! can go). An input data block passes through the merge unchanged when
//! its entries are all reserved, one after the other, with no entry of
//! another block between them: then the output can hold the very same
//! block, and a remap-capable device can take its pages over instead of
//! programming them again.
//!
//! The machine follows one input block at a time, the *candidate*, with
//! the states and events of the paper (Wang et al., DATE'25):
//!
//! * `Begin`: no candidate yet.
//! * `block_start` (the first reserved entry of a block other than the
//!   candidate's, which ends the candidate first: `block_switch`): the
//!   block is `InProgress` if the entry is the block's first and nothing of
//!   the block was dropped, `Changed` otherwise.
//! * `KV_reserved` of the candidate's next entry keeps it `InProgress`;
//!   its last entry ends it (`block_end`) as `Unchanged`.
//! * `KV_dropped` of one of the candidate's entries, or a reserved entry
//!   out of order, makes it `Changed`.
//!
//! What the engine does with a verdict is up to the output side
//! ([`super::merge_output`]): RemapCom-Base remaps an output block that is
//! one unchanged input block, full RemapCom holds the candidate's entries
//! back until the verdict (lazy write-back) and gives an unchanged one an
//! output block of its own (UDB retention).

use super::files::FileId;

/// Where an entry of a merge's input came from: input block `block` (an
/// index into the merge's [`InputBlock`]s) and its position there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tag {
    pub block: u32,
    pub index: u32,
}

/// One data block of a merge's input tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputBlock {
    pub file: FileId,
    pub first_page: u64,
    pub pages: u64,
    pub entries: u32,
}

/// The candidate's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdbState {
    Begin,
    InProgress,
    Changed,
    Unchanged,
}

/// What a reserved entry did to the candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The entry belongs to the candidate (whatever its state).
    Same,
    /// The entry started a new candidate; the previous one (if any) ended
    /// with the given block and state.
    Switched(Option<(u32, UdbState)>),
}

/// The state machine over one merge.
#[derive(Debug)]
pub struct UdbTracker {
    entries: Vec<u32>,
    dropped: Vec<bool>,
    state: UdbState,
    current: u32,
    next_index: u32,
    /// Input blocks found unchanged.
    pub unchanged_blocks: u64,
}

impl UdbTracker {
    /// A machine over input blocks holding `entries[b]` entries each.
    pub fn new(entries: Vec<u32>) -> Self {
        let n = entries.len();
        Self {
            entries,
            dropped: vec![false; n],
            state: UdbState::Begin,
            current: 0,
            next_index: 0,
            unchanged_blocks: 0,
        }
    }

    pub fn state(&self) -> UdbState {
        self.state
    }

    /// The candidate block (meaningless in `Begin`).
    pub fn current(&self) -> u32 {
        self.current
    }

    /// `KV_dropped`: the entry at `tag` is not in the output.
    pub fn kv_dropped(&mut self, tag: Tag) {
        self.dropped[tag.block as usize] = true;
        if self.state != UdbState::Begin && tag.block == self.current {
            self.state = UdbState::Changed;
        }
    }

    /// `KV_reserved`: the entry at `tag` is the output's next entry.
    pub fn kv_reserved(&mut self, tag: Tag) -> Step {
        if self.state != UdbState::Begin && tag.block == self.current {
            if self.state == UdbState::InProgress && tag.index == self.next_index {
                self.next_index += 1;
                if self.next_index == self.entries[tag.block as usize] {
                    self.block_end();
                }
            } else if self.state != UdbState::Changed {
                // Out of order, or past a completed block: not one block any more.
                if self.state == UdbState::Unchanged {
                    self.unchanged_blocks -= 1;
                }
                self.state = UdbState::Changed;
            }
            return Step::Same;
        }
        // block_switch: the candidate ends, the entry's block starts.
        let ended = self.finish();
        self.current = tag.block;
        self.next_index = tag.index + 1;
        self.state = if tag.index == 0 && !self.dropped[tag.block as usize] {
            UdbState::InProgress
        } else {
            UdbState::Changed
        };
        if self.state == UdbState::InProgress && self.next_index == self.entries[tag.block as usize]
        {
            self.block_end();
        }
        Step::Switched(ended)
    }

    fn block_end(&mut self) {
        self.state = UdbState::Unchanged;
        self.unchanged_blocks += 1;
    }

    /// Ends the candidate (at a switch, or at the end of the merge): its
    /// block and final state; a block left `InProgress` lost entries.
    pub fn finish(&mut self) -> Option<(u32, UdbState)> {
        let state = match self.state {
            UdbState::Begin => return None,
            UdbState::InProgress => UdbState::Changed,
            s => s,
        };
        self.state = UdbState::Begin;
        Some((self.current, state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(block: u32, index: u32) -> Tag {
        Tag { block, index }
    }

    #[test]
    fn whole_blocks_in_order_are_unchanged_and_anything_else_changed() {
        // Blocks 0 (3 entries), 1 (2), 2 (2), 3 (1).
        let mut m = UdbTracker::new(vec![3, 2, 2, 1]);
        assert_eq!(m.kv_reserved(t(0, 0)), Step::Switched(None));
        assert_eq!(m.kv_reserved(t(0, 1)), Step::Same);
        assert_eq!(m.state(), UdbState::InProgress);
        m.kv_reserved(t(0, 2));
        assert_eq!(
            m.state(),
            UdbState::Unchanged,
            "block_end on the last entry"
        );
        // Block 1 loses its second entry.
        assert_eq!(
            m.kv_reserved(t(1, 0)),
            Step::Switched(Some((0, UdbState::Unchanged)))
        );
        m.kv_dropped(t(1, 1));
        assert_eq!(m.state(), UdbState::Changed);
        // Block 2 is interleaved with block 3.
        assert_eq!(
            m.kv_reserved(t(2, 0)),
            Step::Switched(Some((1, UdbState::Changed)))
        );
        assert_eq!(
            m.kv_reserved(t(3, 0)),
            Step::Switched(Some((2, UdbState::Changed))),
            "block 2 ended with an entry missing"
        );
        assert_eq!(m.state(), UdbState::Unchanged, "a one-entry block");
        m.kv_reserved(t(2, 1));
        assert_eq!(m.finish(), Some((2, UdbState::Changed)));
        assert_eq!(m.unchanged_blocks, 2);
    }

    #[test]
    fn a_block_whose_first_entry_was_dropped_starts_changed() {
        let mut m = UdbTracker::new(vec![2]);
        m.kv_dropped(t(0, 0));
        m.kv_reserved(t(0, 1));
        assert_eq!(m.state(), UdbState::Changed);
        assert_eq!(m.finish(), Some((0, UdbState::Changed)));
        assert_eq!(m.unchanged_blocks, 0);
    }
}
