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
//!
//! Each victim policy is a file here implementing [`VictimPolicy`], and a
//! line in `victim_policies!` below, which declares its module, its
//! [`PolicyKind`] and its arm in the index's static dispatch (`victim.rs`).
//! Outside this module only its config name names it: the variant of the
//! same identifier in `config::GcPolicyName`, which the plan maps through
//! the same list (`plan/victims.rs`).

pub mod free_pool;
mod indexed_set;
pub mod policy;
pub mod victim;
pub mod view;

pub use free_pool::{FreePool, WearPreference};
pub use policy::{GcPolicy, PolicyKeys, VictimPolicy};
pub use victim::{PolicyKind, VictimIndex};
pub use view::SegmentView;

/// "No segment": an empty bucket, the end of a list, a segment not in a set.
const NONE: u32 = u32::MAX;

/// The one list of victim policies, a line each: `Kind(module::Type)`, where
/// `module` is the policy's file here and `Kind` is the identifier of its
/// name in `config::GcPolicyName` (kebab-case there, the TOML value). It
/// hands the list to `$then!`, so that each module that needs every policy
/// (the declarations below, the dispatch in `victim.rs`, the names in
/// `plan/victims.rs`) expands the same list and none keeps a copy.
macro_rules! victim_policies {
    ($then:ident) => {
        $then! {
            /// The segment with the fewest valid pages (O(1) buckets).
            Greedy(greedy::Greedy),
            /// Rosenblum and Ousterhout's age · (1 − u) / 2u.
            CostBenefit(cost_benefit::CostBenefit),
            /// The segment sealed first.
            Fifo(fifo::Fifo),
            /// A full segment drawn uniformly.
            Random(random::Random),
            /// The emptiest of `choices` full segments drawn uniformly.
            DChoices(d_choices::DChoices),
        }
    };
}
pub(crate) use victim_policies;

/// A module per policy, from the list.
macro_rules! policy_modules {
    ($( $(#[$doc:meta])* $kind:ident($module:ident::$policy:ident), )*) => {
        $( mod $module; )*
    };
}
victim_policies!(policy_modules);
