//! What a pre-pass foresees of a run: the remaining lifetime of each host
//! page write, in write order. The run (`run/`) makes it from a pre-pass's
//! record (`host::oracle::remaining_lifetimes`); the oracle layer and the
//! `fk` placement scheme (`ftl/schemes/fk.rs`) read it. A module of its
//! own so that the device and the host layers share the type without
//! importing each other.

use std::sync::Arc;

/// A page that is never written or trimmed again.
pub const NEVER: u32 = u32::MAX;

/// Each page write's remaining lifetime in page writes (`NEVER`: it is not
/// overwritten or trimmed later), in the order the run writes them.
pub type Lifetimes = Arc<Vec<u32>>;
