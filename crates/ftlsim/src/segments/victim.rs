//! Victim selection: which full segment (an FTL block, a log layer's
//! segment) cleaning reclaims next.
//!
//! `VictimIndex` holds the configured policy's state and counts the full
//! segments; the policy (a file per policy, `VictimPolicy`) keeps its own
//! index of them and returns a choice, which the log carries out. The
//! policies are reached through `Policies`, an enum declared from the list
//! in `victim_policies!` (`segments/mod.rs`), so each call is one match on
//! the policy, inlined: no `Box<dyn>` on the per-page path.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::policy::{GcPolicy, VictimPolicy};
use super::view::SegmentView;

/// Declares, from the list, `PolicyKind` (which policy) and `Policies`
/// (the policy's state), and forwards each `VictimPolicy` call to the
/// state's policy.
macro_rules! policy_dispatch {
    ($( $(#[$doc:meta])* $kind:ident($module:ident::$policy:ident), )*) => {
        /// Which victim policy a log runs (its name in config is
        /// `config::GcPolicyName`'s variant of the same identifier).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum PolicyKind {
            $( $(#[$doc])* $kind, )*
        }

        impl PolicyKind {
            /// Whether the policy always chooses a segment with the fewest
            /// valid pages (`VictimPolicy::EMPTIEST_FIRST`).
            pub fn emptiest_first(self) -> bool {
                match self {
                    $( Self::$kind => <super::$module::$policy as VictimPolicy>::EMPTIEST_FIRST, )*
                }
            }
        }

        /// The state of the policy a log runs.
        #[derive(Debug, Clone)]
        enum Policies {
            $( $kind(super::$module::$policy), )*
        }

        impl Policies {
            fn new(policy: GcPolicy, segments: u32, pages_per_segment: u32) -> Self {
                match policy.kind {
                    $( PolicyKind::$kind => Self::$kind(
                        VictimPolicy::new(policy.keys, segments, pages_per_segment),
                    ), )*
                }
            }

            #[inline]
            fn insert(&mut self, s: u32, view: &impl SegmentView) {
                match self {
                    $( Self::$kind(p) => p.insert(s, view), )*
                }
            }

            fn remove(&mut self, s: u32, view: &impl SegmentView) {
                match self {
                    $( Self::$kind(p) => p.remove(s, view), )*
                }
            }

            fn put_back(&mut self, s: u32, view: &impl SegmentView) {
                match self {
                    $( Self::$kind(p) => p.put_back(s, view), )*
                }
            }

            #[inline]
            fn on_invalidate(&mut self, s: u32, valid_after: u32) {
                match self {
                    $( Self::$kind(p) => p.on_invalidate(s, valid_after), )*
                }
            }

            #[inline]
            fn on_revalidate(&mut self, s: u32, valid_after: u32) {
                match self {
                    $( Self::$kind(p) => p.on_revalidate(s, valid_after), )*
                }
            }

            #[inline(always)]
            fn prefetch(&self, s: u32) {
                match self {
                    $( Self::$kind(p) => p.prefetch(s), )*
                }
            }

            fn choose(
                &mut self,
                view: &impl SegmentView,
                rng: &mut Xoshiro256PlusPlus,
                now_pages: u64,
            ) -> Option<u32> {
                match self {
                    $( Self::$kind(p) => p.choose(view, rng, now_pages), )*
                }
            }

            fn peek_min_valid(&mut self) -> Option<u32> {
                match self {
                    $( Self::$kind(p) => p.peek_min_valid(), )*
                }
            }

            fn check_member(&self, s: u32, valid: u32) -> Result<(), String> {
                match self {
                    $( Self::$kind(p) => p.check_member(s, valid), )*
                }
            }
        }
    };
}
super::victim_policies!(policy_dispatch);

/// The index of full segments that a victim policy chooses from.
#[derive(Debug, Clone)]
pub struct VictimIndex {
    policy: GcPolicy,
    state: Policies,
    /// Full segments the index holds (the policy's own index may also
    /// hold stale entries, as FIFO's queue does).
    len: u32,
}

impl VictimIndex {
    pub fn new(policy: GcPolicy, segments: u32, pages_per_segment: u32) -> Self {
        Self {
            policy,
            state: Policies::new(policy, segments, pages_per_segment),
            len: 0,
        }
    }

    pub fn policy(&self) -> GcPolicy {
        self.policy
    }

    /// Whether the policy always chooses a segment with the fewest valid
    /// pages, so that a fully valid choice means nothing can be gained.
    pub fn emptiest_first(&self) -> bool {
        self.policy.kind.emptiest_first()
    }

    /// Full segments the index holds.
    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A segment became full and may now be chosen.
    #[inline]
    pub fn insert(&mut self, s: u32, view: &impl SegmentView) {
        self.len += 1;
        self.state.insert(s, view);
    }

    /// Returns a segment that `choose` just handed out and the log did not
    /// take: it goes back where it was, so FIFO keeps its order.
    pub fn put_back(&mut self, s: u32, view: &impl SegmentView) {
        self.len += 1;
        self.state.put_back(s, view);
    }

    /// A full segment lost a valid page (`valid_after` = its new count).
    #[inline]
    pub fn on_invalidate(&mut self, s: u32, valid_after: u32) {
        self.state.on_invalidate(s, valid_after);
    }

    /// Segment `s` will soon lose a valid page: the write lookahead's hint
    /// (the policy fetches what `on_invalidate` will touch).
    #[inline(always)]
    pub fn prefetch(&self, s: u32) {
        self.state.prefetch(s);
    }

    /// A full segment gained a valid page (dedup remaps can re-reference one).
    #[inline]
    pub fn on_revalidate(&mut self, s: u32, valid_after: u32) {
        self.state.on_revalidate(s, valid_after);
    }

    /// Takes a specific full segment out of the index (wear leveling picks
    /// its own victim).
    pub fn remove(&mut self, s: u32, view: &impl SegmentView) {
        self.len -= 1;
        self.state.remove(s, view);
    }

    /// Chooses a victim among the full segments and removes it from the index.
    pub fn choose(
        &mut self,
        view: &impl SegmentView,
        rng: &mut Xoshiro256PlusPlus,
        now_pages: u64,
    ) -> Option<u32> {
        // A policy is asked only when there is something to choose (a
        // uniform draw from nothing has no answer).
        if self.len == 0 {
            return None;
        }
        let victim = self.state.choose(view, rng, now_pages)?;
        self.len -= 1;
        Some(victim)
    }

    /// The valid pages of the segment `choose` would return next, when the
    /// policy can tell without choosing (greedy).
    pub fn peek_min_valid(&mut self) -> Option<u32> {
        self.state.peek_min_valid()
    }

    /// For the invariant checker: is `s` indexed under `valid`?
    pub fn check_member(&self, s: u32, valid: u32) -> Result<(), String> {
        self.state.check_member(s, valid)
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::segments::PolicyKeys;

    /// Segments with a valid count and a seq each, all full.
    struct Table {
        valid: Vec<u32>,
    }

    impl SegmentView for Table {
        fn valid_pages(&self, s: u32) -> u32 {
            self.valid[s as usize]
        }
        fn last_write_at(&self, _s: u32) -> u64 {
            0
        }
        fn seq(&self, s: u32) -> u64 {
            u64::from(s)
        }
        fn is_full(&self, _s: u32) -> bool {
            true
        }
    }

    fn index(kind: PolicyKind, table: &Table) -> VictimIndex {
        let policy = GcPolicy {
            kind,
            keys: PolicyKeys { choices: 64 },
        };
        let mut index = VictimIndex::new(policy, table.valid.len() as u32, 8);
        for s in 0..table.valid.len() as u32 {
            index.insert(s, table);
        }
        index
    }

    #[test]
    fn each_policy_chooses_every_segment_once_and_then_none() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for kind in [
            PolicyKind::Greedy,
            PolicyKind::CostBenefit,
            PolicyKind::Fifo,
            PolicyKind::Random,
            PolicyKind::DChoices,
        ] {
            let table = Table {
                valid: vec![5, 1, 7, 3],
            };
            let mut index = index(kind, &table);
            let mut chosen: Vec<u32> = (0..4)
                .map(|_| index.choose(&table, &mut rng, 100).expect("a victim"))
                .collect();
            assert!(index.is_empty() && index.choose(&table, &mut rng, 100).is_none());
            if kind.emptiest_first() {
                assert_eq!(chosen, [1, 3, 0, 2], "{kind:?}: emptiest first");
            }
            chosen.sort_unstable();
            assert_eq!(chosen, [0, 1, 2, 3], "{kind:?}");
        }
    }

    #[test]
    fn greedy_follows_invalidations_and_fifo_keeps_its_place_on_put_back() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut table = Table {
            valid: vec![5, 1, 7],
        };
        let mut greedy = index(PolicyKind::Greedy, &table);
        for valid in (0..7).rev() {
            table.valid[2] = valid;
            greedy.on_invalidate(2, valid);
        }
        assert_eq!(greedy.peek_min_valid(), Some(0));
        assert_eq!(greedy.choose(&table, &mut rng, 0), Some(2));

        let mut fifo = index(PolicyKind::Fifo, &table);
        let first = fifo.choose(&table, &mut rng, 0).expect("a victim");
        fifo.put_back(first, &table);
        assert_eq!((first, fifo.len()), (0, 3));
        assert_eq!(fifo.choose(&table, &mut rng, 0), Some(0));
    }
}
