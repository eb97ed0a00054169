//! `Placement`: the dispatch over every placement scheme (`schemes/`), the
//! one way the FTL asks where a page goes. The plan picks the scheme
//! (`PlacementPlan`); each write asks its decision here: a host write its
//! user decision (`user_frontier`), a GC copy its GC decision
//! (`gc_frontier`), and a reclaimed block its hook (`reclaiming`). The
//! dispatch is static (one `match` over an enum, no `Box<dyn>`), and every
//! stream scheme's user decision is the write's stream, so on the paths a
//! scheme of `[ftl.placement_scheme]` never takes the match folds away:
//! the plain FTL's host write still goes to frontier `stream` with no work
//! per write (`stream_user_frontier`).
//!
//! The frontiers a scheme writes to are laid out by the scheme; the stream
//! schemes keep the indices of earlier versions (host `0..streams`, then
//! GC frontiers, then the cold zone), so results do not move.

use super::frontier::{Frontier, StreamLayout};
use super::schemes::{
    Classes, Coldmap, ColdmapKeys, GcWrite, InternalStreams, PlacementScheme, SchemeSpace,
    SeparateGc, SharedStreams, UserWrite,
};
use crate::flash::Lpn;
pub use crate::plan::{PlacementPlan, Scheme};

/// The scheme in force.
#[derive(Debug, Clone)]
enum Active {
    Shared(SharedStreams),
    Separate(SeparateGc),
    Internal(InternalStreams),
    Coldmap(Coldmap),
    /// A scheme of `[ftl.placement_scheme]`: its state is `classes`.
    Classified,
}

/// The placement a device runs: its scheme, over its stream layout.
#[derive(Debug, Clone)]
pub struct Placement {
    scheme: Scheme,
    layout: StreamLayout,
    active: Active,
    /// A scheme of `[ftl.placement_scheme]` with the FTL's side of it, set
    /// exactly when `active` is `Classified`. A field of its own, not the
    /// variant's: a null test is what each request, trim and block pays
    /// for the hooks only those schemes hear, where a tag and a pointer
    /// cost two more instructions per request (cachegrind, basic.toml at
    /// 512 blocks: +3.4 M).
    classes: Option<Box<Classes>>,
    /// The frontiers GC copies can go to.
    gc_destinations: Vec<usize>,
    /// What the GC decision reads of the victim being reclaimed, kept from
    /// `reclaiming` for its copies (`gc_write`), as `Classes` keeps its
    /// class: not passed with each copy, which cost a class scheme's GC
    /// loop about 3 instructions per copy.
    victim: VictimContext,
}

/// The victim being reclaimed, as its GC writes carry it.
#[derive(Debug, Clone, Copy, Default)]
struct VictimContext {
    /// The stream its block was opened for.
    stream: u16,
    /// The mean survival of single-mapped pages when it was chosen.
    mean_single_survival: f64,
}

impl Placement {
    /// The scheme the plan picks, over `space`.
    pub(crate) fn from_plan(plan: &PlacementPlan, space: SchemeSpace) -> Self {
        assert!(
            plan.groups == 1 || matches!(plan.scheme, Scheme::Separate | Scheme::Internal),
            "only FDP's schemes have groups"
        );
        let layout = StreamLayout::new(plan.group_streams, plan.groups);
        let active = match plan.scheme {
            Scheme::Shared => Active::Shared(SharedStreams::new(&layout, space)),
            Scheme::Separate => Active::Separate(SeparateGc::new(&layout, space)),
            Scheme::Internal => Active::Internal(InternalStreams::new(&layout, space)),
            Scheme::Coldmap {
                threshold,
                age_aware,
            } => Active::Coldmap(Coldmap::new(
                &ColdmapKeys {
                    layout,
                    threshold,
                    age_aware,
                },
                space,
            )),
            Scheme::Classified(_) => Active::Classified,
        };
        let classes = match plan.scheme {
            Scheme::Classified(config) => {
                Some(Box::new(Classes::new(&config, space.blocks, space)))
            }
            _ => None,
        };
        let gc_destinations = match &active {
            Active::Shared(s) => s.gc_destinations(),
            Active::Separate(s) => s.gc_destinations(),
            Active::Internal(s) => s.gc_destinations(),
            Active::Coldmap(s) => s.gc_destinations(),
            // Any class may receive copies.
            Active::Classified => {
                (0..classes.as_ref().map_or(0, |c| c.frontiers(&layout).len())).collect()
            }
        };
        Self {
            scheme: plan.scheme,
            layout,
            active,
            classes,
            gc_destinations,
            victim: VictimContext::default(),
        }
    }

    /// Host streams (FDP placement handles) the device offers.
    pub fn streams(&self) -> u16 {
        self.layout.streams()
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The frontiers the scheme writes to, in index order.
    pub fn frontiers(&self) -> Vec<Frontier> {
        match &self.active {
            Active::Shared(s) => s.frontiers(),
            Active::Separate(s) => s.frontiers(),
            Active::Internal(s) => s.frontiers(),
            Active::Coldmap(s) => s.frontiers(),
            Active::Classified => self
                .classes
                .as_ref()
                .map_or_else(Vec::new, |c| c.frontiers(&self.layout)),
        }
    }

    /// The frontiers GC copies can go to.
    pub fn gc_destinations(&self) -> &[usize] {
        &self.gc_destinations
    }

    /// The host frontier of `stream` under a stream scheme (already checked
    /// to be below `streams`): frontier `stream`, as every stream scheme's
    /// user decision says. For the frontier of a handle (FDP's handle
    /// update) and of the DFTL's translation pages.
    #[inline]
    pub fn host_frontier(&self, stream: u16) -> usize {
        debug_assert!(stream < self.streams(), "stream {stream} unchecked");
        usize::from(stream)
    }

    /// The user decision: the frontier of a host write.
    #[inline(always)]
    pub(crate) fn user_frontier(&mut self, write: &UserWrite) -> usize {
        match &mut self.classes {
            Some(c) => usize::from(c.user_class(write)),
            None => self.stream_user_frontier(write),
        }
    }

    /// The user decision on the write paths a scheme of
    /// `[ftl.placement_scheme]` never takes (the plain, shared, tracked and
    /// cached writes: `write_page_of_stream` sends its writes to
    /// `write_page_classified`, and the plan refuses it beside sharing,
    /// tracking and the DFTL cache). Every arm answers the write's stream,
    /// so the match folds to nothing: the plain FTL pays no dispatch per
    /// host write (cachegrind, docs/hotpath.md).
    #[inline(always)]
    pub(crate) fn stream_user_frontier(&mut self, write: &UserWrite) -> usize {
        usize::from(match &mut self.active {
            Active::Shared(s) => s.user_class(write),
            Active::Separate(s) => s.user_class(write),
            Active::Internal(s) => s.user_class(write),
            Active::Coldmap(s) => s.user_class(write),
            Active::Classified => {
                debug_assert!(false, "a class scheme's write took a stream path");
                write.stream
            }
        })
    }

    /// The GC decision: the frontier of a GC copy.
    #[inline(always)]
    pub(crate) fn gc_frontier(&mut self, write: &GcWrite) -> usize {
        match &mut self.classes {
            Some(c) => usize::from(c.gc_class(write)),
            None => self.stream_gc_frontier(write),
        }
    }

    /// The GC decision of a stream scheme, for the paths a class scheme
    /// never takes (a victim-wide ask, sharing, FDP: the plan refuses a
    /// class scheme beside sharing and FDP), without `gc_frontier`'s test.
    #[inline(always)]
    pub(crate) fn stream_gc_frontier(&mut self, write: &GcWrite) -> usize {
        usize::from(match &mut self.active {
            Active::Shared(s) => s.gc_class(write),
            Active::Separate(s) => s.gc_class(write),
            Active::Internal(s) => s.gc_class(write),
            Active::Coldmap(s) => s.gc_class(write),
            Active::Classified => {
                debug_assert!(false, "a class scheme has its state");
                0
            }
        })
    }

    /// Whether a GC copy's frontier may depend on the page (its LPN, age or
    /// references) rather than on its victim alone: then GC asks for each
    /// copy, else once per victim (GcWrite's note). Coldmap's does, but
    /// only through references and age, which differ between pages only
    /// with sharing, which it needs.
    #[inline]
    pub(crate) fn classifies_each_copy(&self) -> bool {
        matches!(self.active, Active::Classified | Active::Coldmap(_))
    }

    /// `victim`, opened for `victim_stream` and holding `valid_pages`, is
    /// about to be reclaimed (`gc`: by GC, not wear leveling), with the
    /// mean single-mapped survival at `mean_single_survival`: the reclaim
    /// hook, and the victim its copies' `gc_write`s carry. The stream
    /// schemes keep no state and learn nothing (their `reclaimed` is the
    /// interface's no-op); a scheme of `[ftl.placement_scheme]` hears the
    /// block's class and lifespan, which its `Classes` keeps.
    #[inline]
    pub(crate) fn reclaiming(
        &mut self,
        victim: u32,
        victim_stream: u16,
        valid_pages: u32,
        mean_single_survival: f64,
        now_pages: u64,
        gc: bool,
    ) {
        self.victim = VictimContext {
            stream: victim_stream,
            mean_single_survival,
        };
        if let Some(c) = &mut self.classes {
            c.reclaiming(victim, valid_pages, now_pages, gc);
        }
    }

    /// The GC write of `lpn` (`Lpn::NONE`: the whole victim, `GcWrite`'s
    /// note), its data `age_pages` old and mapped by `refs` LPNs, out of
    /// the victim `reclaiming` named.
    #[inline(always)]
    pub(crate) fn gc_write(&self, lpn: Lpn, age_pages: u64, refs: u32, now_pages: u64) -> GcWrite {
        GcWrite {
            lpn,
            victim_class: self.victim.stream,
            age_pages,
            now_pages,
            refs,
            mean_single_survival: self.victim.mean_single_survival,
        }
    }

    /// The FTL's side of a scheme of `[ftl.placement_scheme]`, for the
    /// hooks only those schemes hear (requests, invalidations, blocks
    /// opened and sealed, the pre-pass, the victim hook).
    #[inline]
    pub(crate) fn classes(&self) -> Option<&Classes> {
        self.classes.as_deref()
    }

    #[inline]
    pub(crate) fn classes_mut(&mut self) -> Option<&mut Classes> {
        self.classes.as_deref_mut()
    }

    /// Whether a scheme of `[ftl.placement_scheme]` places the writes.
    #[inline(always)]
    pub(crate) fn is_classified(&self) -> bool {
        self.classes.is_some()
    }

    /// Whether the scheme chooses where GC takes its victims.
    #[inline]
    pub(crate) fn chooses_victims(&self) -> bool {
        self.classes().is_some_and(Classes::chooses_victims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PlacementSchemeConfig;

    fn space() -> SchemeSpace {
        SchemeSpace {
            logical_pages: 1024,
            block_pages: 64,
            blocks: 32,
            seed: 1,
        }
    }

    fn placement(scheme: Scheme, group_streams: u16, groups: u16) -> (PlacementPlan, Placement) {
        let plan = PlacementPlan {
            scheme,
            group_streams,
            groups,
        };
        (plan, Placement::from_plan(&plan, space()))
    }

    /// Every scheme the plan can pick lays out as many frontiers as the
    /// plan counts (GC's room is reserved by that count), its GC
    /// destinations among them; a stream scheme's host write of stream s
    /// goes to frontier s, through either user dispatch.
    #[test]
    fn each_scheme_lays_out_the_planned_frontiers() {
        let sepbit: PlacementSchemeConfig = toml::from_str("type = \"sepbit\"").expect("a scheme");
        let cases = [
            (Scheme::Shared, 1, 1),
            (Scheme::Shared, 3, 1),
            (Scheme::Separate, 3, 1),
            (Scheme::Separate, 2, 2),
            (Scheme::Internal, 3, 1),
            (Scheme::Internal, 2, 2),
            (
                Scheme::Coldmap {
                    threshold: 2,
                    age_aware: true,
                },
                2,
                1,
            ),
            (Scheme::Classified(sepbit), 1, 1),
        ];
        for (scheme, group_streams, groups) in cases {
            let (plan, mut p) = placement(scheme, group_streams, groups);
            let frontiers = p.frontiers();
            assert_eq!(frontiers.len() as u32, plan.frontier_count(), "{scheme:?}");
            assert!(p.gc_destinations().iter().all(|&f| f < frontiers.len()));
            assert_eq!(p.is_classified(), matches!(scheme, Scheme::Classified(_)));
            if p.is_classified() {
                continue;
            }
            for stream in 0..p.streams() {
                let write = UserWrite {
                    lpn: Lpn::new(3),
                    stream,
                    write_index: 9,
                    lifespan_pages: Some(4),
                    live_pages: 0,
                };
                assert_eq!(p.user_frontier(&write), usize::from(stream));
                assert_eq!(p.stream_user_frontier(&write), usize::from(stream));
                assert_eq!(p.host_frontier(stream), usize::from(stream));
            }
        }
    }

    /// The GC decision reads the victim `reclaiming` named: under internal
    /// streams a copy follows its victim's stream.
    #[test]
    fn copies_carry_the_victim_reclaiming_named() {
        let (_, mut p) = placement(Scheme::Internal, 3, 1);
        p.reclaiming(7, 2, 10, 0.0, 100, true);
        let write = p.gc_write(Lpn::new(5), 40, 1, 100);
        assert_eq!(write.victim_class, 2);
        assert_eq!(p.gc_frontier(&write), 5);
        assert_eq!(p.stream_gc_frontier(&write), 5);
        assert!(!p.classifies_each_copy());
    }
}
