//! What every log shares: the pool of free segments and the victim policies
//! that choose which full segment to clean next.
//!
//! A segment is a log's unit of allocation and cleaning: the FTL's segment is
//! a flash block (a reclaim unit under FDP), a log layer's is a run of pages
//! of the layer below. Both keep their segments in a `flash::BlockTable`, and
//! the policies read it through [`SegmentView`], the few facts a choice needs
//! (valid pages, when a segment was last written, whether and when it was
//! sealed). A policy proposes a victim; the log that owns the segments
//! carries the choice out (copies the valid pages, frees the segment) and
//! applies its own rules on top, such as the FTL's durability rule
//! (`ftl/copy_first.rs`).

pub mod free_pool;
pub mod policy;
pub mod victim;
pub mod view;

pub use free_pool::{FreePool, WearPreference};
pub use policy::GcPolicy;
pub use victim::VictimIndex;
pub use view::SegmentView;
