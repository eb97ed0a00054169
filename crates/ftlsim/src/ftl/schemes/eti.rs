//! ETI, extent-based temperature identification (Shafaei, Desnoyers and
//! Fitzpatrick, "Write Amplification Reduction in Flash-Based SSDs Through
//! Extent-Based Temperature Identification", HotStorage'16), as SepBIT's
//! simulator runs it (`placement/ETI.java`). Three classes: a user write to
//! a hot extent (count ≥ `hot_count`) is class 0, any other user write
//! class 1, every GC write class 2.
//!
//! The logical space is tiled by extents, each with a write count (at most
//! `max_count`). A write request adds one to the count of each extent it
//! covers; where it covers an extent only in part, the extent is split at
//! the request's edges first (while fewer than `max_extents` exist;
//! otherwise the extent is left as it is). Every `decay_period_requests`
//! requests every count halves and neighbours merge: two hot ones of equal
//! count, or two cold ones (the merged extent keeps the first one's
//! count). A saturated extent is skipped as it is.
//!
//! The extents are a sorted vector (at most `max_extents` + 1 of them) with
//! its capacity reserved up front: no allocation per request.

use super::{PlacementScheme, GcWrite, HostRequest, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone, Copy)]
struct Extent {
    start: u64,
    pages: u64,
    count: u8,
}

#[derive(Debug, Clone)]
pub(crate) struct Eti {
    max_extents: usize,
    decay_period_requests: u32,
    hot_count: u8,
    max_count: u8,
    /// Sorted by start, tiling `0..logical_pages + 1024`.
    extents: Vec<Extent>,
    /// The next tiling, built by a decay.
    merged: Vec<Extent>,
    requests: u32,
}

impl Eti {
    /// The extent holding `page`.
    fn holding(&self, page: u64) -> usize {
        self.extents.partition_point(|e| e.start <= page) - 1
    }

    /// Sets the extent starting at `start` (a new one, or replacing one).
    fn put(&mut self, start: u64, pages: u64, count: u8) {
        let extent = Extent {
            start,
            pages,
            count,
        };
        match self.extents.binary_search_by_key(&start, |e| e.start) {
            Ok(i) => self.extents[i] = extent,
            Err(i) => self.extents.insert(i, extent),
        }
    }

    fn decay(&mut self) {
        let hot = self.hot_count;
        self.merged.clear();
        let mut run = Extent {
            count: self.extents[0].count / 2,
            ..self.extents[0]
        };
        for e in &self.extents[1..] {
            let count = e.count / 2;
            if (run.count >= hot && run.count == count) || (run.count < hot && count < hot) {
                run.pages += e.pages;
            } else {
                self.merged.push(run);
                run = Extent { count, ..*e };
            }
        }
        self.merged.push(run);
        std::mem::swap(&mut self.extents, &mut self.merged);
    }
}

impl PlacementScheme for Eti {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Eti {
            max_extents,
            decay_period_requests,
            hot_count,
            max_count,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        // Checked: 1..=255, hot_count at most max_count.
        let max_count = u8::try_from(max_count).expect("checked: max_count fits a byte");
        let hot_count = u8::try_from(hot_count).expect("checked: hot_count fits a byte");
        // SepBIT's first extent runs 1024 pages past the largest address,
        // so no request covers it to its end; so does this one.
        let first = Extent {
            start: 0,
            pages: u64::from(space.logical_pages) + 1024,
            count: 0,
        };
        // A request may add two extents to `max_extents` − 1.
        let capacity = max_extents as usize + 2;
        let mut extents = Vec::with_capacity(capacity);
        extents.push(first);
        Self {
            max_extents: max_extents as usize,
            decay_period_requests,
            hot_count,
            max_count,
            extents,
            merged: Vec::with_capacity(capacity),
            requests: 0,
        }
    }

    fn request(&mut self, request: &HostRequest) {
        self.requests += 1;
        if self.requests >= self.decay_period_requests {
            self.decay();
            self.requests = 0;
        }
        let end = request.lpn.index() as u64 + u64::from(request.pages);
        let mut at = request.lpn.index() as u64;
        while at < end {
            let i = self.holding(at);
            let e = self.extents[i];
            let e_end = e.start + e.pages;
            if e_end <= at {
                // The tiling covers every page; a defence against a loop.
                debug_assert!(false, "extent {e:?} ends before page {at}");
                break;
            }
            let left = end - at;
            let room = self.extents.len() < self.max_extents;
            if e.count == self.max_count {
                // Saturated: skipped whole.
            } else if e.start == at && left >= e.pages {
                self.extents[i].count += 1;
            } else if e.start == at {
                if room {
                    self.put(e.start, left, e.count + 1);
                    self.put(e.start + left, e.pages - left, e.count);
                }
            } else if at + left >= e_end {
                if room {
                    self.put(e.start, at - e.start, e.count);
                    self.put(at, e_end - at, e.count + 1);
                }
            } else if room {
                self.put(e.start, at - e.start, e.count);
                self.put(at, left, e.count + 1);
                self.put(at + left, e_end - (at + left), e.count);
            }
            at = e_end;
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let e = self.extents[self.holding(write.lpn.index() as u64)];
        if e.count >= self.hot_count {
            0
        } else {
            1
        }
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        2
    }

    fn state_bytes(&self) -> usize {
        (self.extents.capacity() + self.merged.capacity()) * std::mem::size_of::<Extent>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::Lpn;

    fn eti(max_extents: u32, decay: u32) -> Eti {
        let config = PlacementSchemeConfig::Eti {
            max_extents,
            decay_period_requests: decay,
            hot_count: 2,
            max_count: 3,
        };
        let space = SchemeSpace {
            logical_pages: 100,
            block_pages: 4,
            blocks: 10,
            seed: 0,
        };
        Eti::new(&config, space)
    }

    fn write(e: &mut Eti, lpn: u32, pages: u32) {
        e.request(&HostRequest {
            lpn: Lpn::new(lpn),
            pages,
            time_us: 0,
            writes_before: 0,
            live_pages: 0,
        });
    }

    fn tiling(e: &Eti) -> Vec<(u64, u64, u8)> {
        e.extents.iter().map(|x| (x.start, x.pages, x.count)).collect()
    }

    /// A write inside an extent splits it in three; one over a boundary
    /// counts the extents it covers whole and splits the last; a full
    /// table splits nothing; counts saturate; a decay halves them and
    /// merges cold neighbours, and hot ones of equal count.
    #[test]
    fn splits_counts_and_decays_as_sepbits() {
        let mut e = eti(8, 1000);
        write(&mut e, 10, 5);
        assert_eq!(tiling(&e), [(0, 10, 0), (10, 5, 1), (15, 1109, 0)]);
        write(&mut e, 10, 7);
        assert_eq!(tiling(&e), [(0, 10, 0), (10, 5, 2), (15, 2, 1), (17, 1107, 0)]);
        for _ in 0..3 {
            write(&mut e, 10, 5);
        }
        assert_eq!(tiling(&e)[1], (10, 5, 3), "saturated at max_count");
        e.decay();
        assert_eq!(tiling(&e), [(0, 1124, 0)]);
        let mut full = eti(3, 1000);
        write(&mut full, 10, 5);
        write(&mut full, 50, 1);
        assert_eq!(tiling(&full).len(), 3, "no room to split");
        // The decay every `decay_period_requests`, before the request.
        let mut d = eti(8, 2);
        write(&mut d, 0, 1);
        write(&mut d, 0, 1);
        assert_eq!(tiling(&d), [(0, 1, 1), (1, 1123, 0)]);
    }
}
