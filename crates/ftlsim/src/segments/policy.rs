//! What a victim policy is: the trait every policy implements, and
//! `GcPolicy`, which policy a log runs with the keys it was given.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::victim::PolicyKind;
use super::view::SegmentView;

/// The keys a victim policy is built with, checked by the plan
/// (`plan/victims.rs`). One struct for every policy, since the FTL's
/// `[ftl]` and a log layer's keys name the same ones; a policy reads what
/// it needs and ignores the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyKeys {
    /// d of d-choices (`gc_choices`): at least 1.
    pub choices: u32,
}

/// A victim policy as a log runs it: which one, and its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcPolicy {
    pub kind: PolicyKind,
    pub keys: PolicyKeys,
}

/// A victim policy: its own index of the full segments, kept up to date by
/// the hooks below, and a choice. It proposes; the log that owns the
/// segments carries the choice out, or puts it back. `VictimIndex` calls
/// the policy through an enum generated from `victim_policies!` (static
/// dispatch: `on_invalidate` runs once per invalidated page), and counts the
/// segments it holds, so a hook is only ever called for a segment in the
/// state it names.
pub trait VictimPolicy: Sized {
    /// Whether `choose` always returns a segment with the fewest valid pages:
    /// then a fully valid choice means no victim can gain space, and the log
    /// gives up at once instead of trying every segment.
    const EMPTIEST_FIRST: bool = false;

    /// An empty index over segments `0..segments` of `pages_per_segment`.
    fn new(keys: PolicyKeys, segments: u32, pages_per_segment: u32) -> Self;

    /// `s` became full, and may be chosen from now on.
    fn insert(&mut self, s: u32, view: &impl SegmentView);

    /// `s` is taken out by the log without being chosen (wear leveling, or
    /// the durability rule, picks its own victim).
    fn remove(&mut self, s: u32, view: &impl SegmentView);

    /// `s`, which `choose` just returned, was not taken: it goes back as if
    /// never chosen (an order-keeping policy keeps its place).
    fn put_back(&mut self, s: u32, view: &impl SegmentView) {
        self.insert(s, view);
    }

    /// Full segment `s` lost a valid page (`valid_after` is its new count).
    #[inline]
    fn on_invalidate(&mut self, _s: u32, _valid_after: u32) {}

    /// Full segment `s` gained a valid page (dedup remaps can re-reference one).
    #[inline]
    fn on_revalidate(&mut self, _s: u32, _valid_after: u32) {}

    /// `s` will soon lose a valid page: start fetching what
    /// `on_invalidate` will touch (the write lookahead calls it).
    #[inline(always)]
    fn prefetch(&self, _s: u32) {}

    /// A victim among the full segments (the index holds at least one),
    /// forgotten as if removed; `None` only if the policy finds none.
    fn choose(
        &mut self,
        view: &impl SegmentView,
        rng: &mut Xoshiro256PlusPlus,
        now_pages: u64,
    ) -> Option<u32>;

    /// The valid pages of the segment `choose` would return next, when the
    /// policy can tell without choosing (background GC's estimate).
    fn peek_min_valid(&mut self) -> Option<u32> {
        None
    }

    /// For the invariant checkers: is full segment `s`, with `valid` valid
    /// pages, indexed where the policy would look for it?
    fn check_member(&self, s: u32, valid: u32) -> Result<(), String>;
}
