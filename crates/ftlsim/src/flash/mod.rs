//! The NAND flash array: geometry, per-block state and per-page out-of-band data.

pub mod blocks;
pub mod geometry;

pub use blocks::{BlockState, BlockTable};
pub use geometry::Geometry;

/// A logical page number. 32 bits keep the map at 4 bytes per page and address 16 TiB of 4 KiB pages.
pub type Lpn = u32;
/// A physical page number: `block * pages_per_block + offset`.
pub type Ppn = u32;
/// Marks an unmapped LPN, an unwritten OOB slot, or "no block".
pub const NONE: u32 = u32::MAX;
