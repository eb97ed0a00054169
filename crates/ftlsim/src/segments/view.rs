//! `SegmentView`: the per-segment facts a victim policy reads.

/// What a victim policy may know of segment `s`. Implemented by the block
/// table (`flash::BlockTable`) that both the FTL (blocks) and a log layer
/// (segments) keep, so the policies compile to direct array reads (static
/// dispatch, no copy). segments/ imports nothing of the FTL or the config:
/// they import it.
pub trait SegmentView {
    /// Pages of `s` that hold live data.
    fn valid_pages(&self, s: u32) -> u32;
    /// Logical time of the last page written into `s`.
    fn last_write_at(&self, s: u32) -> u64;
    /// The order in which `s` was opened; it changes when `s` is reopened.
    fn seq(&self, s: u32) -> u64;
    /// Whether `s` is full (sealed, and so a possible victim).
    fn is_full(&self, s: u32) -> bool;
}
