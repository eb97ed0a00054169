//! FK, future knowledge: the class of a write follows from its page's
//! remaining lifespan (the host page writes before the page dies); a page
//! that is never overwritten or trimmed takes the last class. User and GC
//! writes alike: a GC copy's remaining lifespan is its death time less now.
//! The lower bound the other schemes are set against.
//!
//! How a lifespan maps to a class (`lifespan_classes`, resolved by the
//! plan for the regime):
//! * `segments`, SepBIT's FK: a class per block's worth of host writes,
//!   capped at the last. It sees `classes` blocks ahead: in SepBIT's log
//!   (10 MiB segments over 1 GiB) a few percent of the space, on a 4 GiB
//!   SSD of 1 MiB blocks a thousandth of it.
//! * `geometric`: class 0 below a block's worth, the last from
//!   `span_capacities` logical spaces on, bounds growing by a constant
//!   ratio between, so that the classes cover every lifespan GC sees.
//! * `death-time`: pages whose deaths fall in the same window of the
//!   horizon (`span_capacities` logical spaces cut into a window per class
//!   but the last) share a class; later deaths take the last class.
//!
//! The lifespans are the oracle layer's: a pre-pass over the same workload
//! records every page write and trim, and each write's remaining lifetime
//! follows (`host::oracle::remaining_lifetimes`). In the pre-pass itself
//! there is no future yet, and every write takes class 0.

use super::{GcWrite, PlacementScheme, SchemeSpace, UserWrite};
use crate::config::placement::FK_SPAN_CAPACITIES;
use crate::config::{FkLifespanClasses, PlacementSchemeConfig};
use crate::future::{Lifetimes, NEVER};

#[derive(Debug, Clone)]
enum Rule {
    /// A class per `block_pages` of remaining lifespan.
    Segments,
    /// The class is the count of bounds at or below the lifespan.
    Geometric { bounds: Vec<u64> },
    /// Death windows of `window_pages`; the last class from `last`
    /// windows past the current one.
    DeathTime { window_pages: u64 },
}

#[derive(Debug, Clone)]
pub(crate) struct Fk {
    last: u16,
    block_pages: u64,
    rule: Rule,
    future: Option<Lifetimes>,
    /// Each logical page's death: the host page write that ends its data
    /// (`u64::MAX`: never).
    death: Vec<u64>,
}

impl Fk {
    /// The class of a page dying at `death` (`u64::MAX`: never), `now`
    /// host page writes into the run.
    fn class_of(&self, death: u64, now: u64) -> u16 {
        let remaining_pages = death.saturating_sub(now);
        match &self.rule {
            Rule::Segments => {
                let blocks = remaining_pages / self.block_pages;
                u16::try_from(blocks).map_or(self.last, |b| b.min(self.last))
            }
            Rule::Geometric { bounds } => {
                // At most `last` bounds: the count fits a class.
                bounds.partition_point(|&b| b <= remaining_pages) as u16
            }
            Rule::DeathTime { window_pages } => {
                let windows = u64::from(self.last);
                if death == u64::MAX || death / window_pages >= now / window_pages + windows {
                    return self.last;
                }
                // `windows` consecutive windows take distinct classes.
                ((death / window_pages) % windows) as u16
            }
        }
    }
}

/// Geometric bounds: `last` of them, the first a block's pages, the last
/// `span_pages`, a constant ratio between (one class: none; two: the
/// block's pages alone).
fn geometric_bounds(last: u16, block_pages: u64, span_pages: u64) -> Vec<u64> {
    match last {
        0 => Vec::new(),
        1 => vec![block_pages],
        _ => {
            let span = span_pages.max(block_pages) as f64;
            let first = block_pages as f64;
            let ratio = (span / first).powf(1.0 / f64::from(last - 1));
            (0..last)
                .map(|i| (first * ratio.powi(i32::from(i))).round() as u64)
                .collect()
        }
    }
}

impl PlacementScheme for Fk {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Fk {
            lifespan_classes,
            span_capacities,
            ..
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let last = config.classes() - 1;
        let block_pages = u64::from(space.block_pages);
        let span = span_capacities.unwrap_or(FK_SPAN_CAPACITIES);
        let span_pages = (span * f64::from(space.logical_pages)).ceil() as u64;
        let rule = match lifespan_classes {
            // The plan resolves auto; unresolved (a scheme built without a
            // plan) it is SepBIT's.
            FkLifespanClasses::Segments | FkLifespanClasses::Auto => Rule::Segments,
            FkLifespanClasses::Geometric => Rule::Geometric {
                bounds: geometric_bounds(last, block_pages, span_pages),
            },
            FkLifespanClasses::DeathTime => Rule::DeathTime {
                window_pages: span_pages.div_ceil(u64::from(last.max(1))).max(1),
            },
        };
        Self {
            last,
            block_pages,
            rule,
            future: None,
            death: vec![u64::MAX; space.logical_pages as usize],
        }
    }

    fn foresee(&mut self, future: &Lifetimes) {
        self.future = Some(future.clone());
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let Some(future) = &self.future else {
            return 0;
        };
        // A run writes what its pre-pass wrote, in the same order; past the
        // record's end (it cannot happen) the page counts as never dying.
        let lifespan = future
            .get(write.write_index as usize)
            .copied()
            .unwrap_or(NEVER);
        let death = match lifespan {
            NEVER => u64::MAX,
            l => write.write_index + u64::from(l),
        };
        self.death[write.lpn.index()] = death;
        self.class_of(death, write.write_index)
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        if self.future.is_none() {
            return 0;
        }
        let death = self.death[write.lpn.index()];
        // `now_pages` counts the writes so far; the next one's index is it.
        self.class_of(death, write.now_pages)
    }
}

#[cfg(test)]
mod tests {
    use super::geometric_bounds;

    #[test]
    fn geometric_bounds_run_from_a_block_to_the_span() {
        assert_eq!(geometric_bounds(0, 256, 1 << 20), Vec::<u64>::new());
        assert_eq!(geometric_bounds(1, 256, 1 << 20), vec![256]);
        assert_eq!(geometric_bounds(3, 256, 4096), vec![256, 1024, 4096]);
        let b = geometric_bounds(15, 256, 2_000_000);
        assert_eq!((b[0], b[14]), (256, 2_000_000));
        assert!(b.windows(2).all(|w| w[0] < w[1]), "{b:?}");
    }
}
