//! The NAND flash array: geometry, per-block state and per-page out-of-band data.

pub mod addr;
pub mod blocks;
pub mod geometry;

pub use addr::{Lpn, Ppn, NO_BLOCK};
pub use blocks::{BlockState, BlockTable};
pub use geometry::Geometry;
