//! How the engine reads its `[lsm]` keys (`config/lsm.rs`): the block
//! layout the RemapCom mode asks for.

use super::sstable::Layout;
pub use crate::config::lsm::{LsmConfig, RemapMode, MAX_ALIGNED_BLOCK_PAGES, MAX_LEVELS};

impl LsmConfig {
    /// Packed blocks as LevelDB writes them; RemapCom aligns them to pages
    /// so that a block is whole pages it can remap.
    pub fn layout(&self) -> Layout {
        match self.remap {
            RemapMode::Off => Layout::Packed,
            RemapMode::Base | RemapMode::Full => Layout::Aligned {
                max_pages: u64::from(self.aligned_block_max_pages),
            },
        }
    }
}
