//! Per-block state, kept as parallel arrays (struct of arrays) so that the
//! fields touched on every page write (valid count, write pointer) stay dense in cache.

use crate::segments::SegmentView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// Erased and in the free pool.
    Free,
    /// Owned by a frontier and being programmed.
    Open,
    /// Fully programmed; a GC victim candidate.
    Full,
    /// Past the P/E cycle limit; never used again.
    Retired,
}

#[derive(Debug, Clone)]
pub struct BlockTable {
    pub state: Vec<BlockState>,
    /// Pages in the block that hold live data.
    pub valid: Vec<u32>,
    /// Next page offset to program.
    pub write_ptr: Vec<u32>,
    pub erase_count: Vec<u32>,
    /// Index of the frontier that opened the block (`NO_OWNER` when not open).
    pub owner: Vec<u32>,
    /// The stream of the frontier that opened the block, kept until its erase,
    /// so that GC can send a victim's copies back to where they came from.
    pub stream: Vec<u16>,
    /// Whether a GC frontier opened the block (an internal stream, a GC or
    /// cold frontier) rather than a host frontier.
    pub internal: Vec<bool>,
    /// Order in which blocks were opened: FIFO victim order and a tiebreak.
    pub seq: Vec<u64>,
    /// Logical time (host page writes) when the block was last programmed.
    pub last_write_at: Vec<u64>,
}

impl BlockTable {
    /// The owner of a block no frontier holds open.
    pub const NO_OWNER: u32 = u32::MAX;

    pub fn new(blocks: u32) -> Self {
        let n = blocks as usize;
        Self {
            state: vec![BlockState::Free; n],
            valid: vec![0; n],
            write_ptr: vec![0; n],
            erase_count: vec![0; n],
            owner: vec![Self::NO_OWNER; n],
            stream: vec![0; n],
            internal: vec![false; n],
            seq: vec![0; n],
            last_write_at: vec![0; n],
        }
    }

    pub fn len(&self) -> u32 {
        self.state.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }
}

/// The table as the victim policies read it (`segments::VictimIndex`).
impl SegmentView for BlockTable {
    #[inline(always)]
    fn valid_pages(&self, s: u32) -> u32 {
        self.valid[s as usize]
    }

    #[inline(always)]
    fn last_write_at(&self, s: u32) -> u64 {
        self.last_write_at[s as usize]
    }

    #[inline(always)]
    fn seq(&self, s: u32) -> u64 {
        self.seq[s as usize]
    }

    #[inline(always)]
    fn is_full(&self, s: u32) -> bool {
        self.state[s as usize] == BlockState::Full
    }
}
