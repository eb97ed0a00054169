//! SFS (Min, Kim, Cho, Lee and Eom, "SFS: Random Write Considered Harmful
//! in Solid State Drives", FAST'12), as SepBIT's simulator runs it
//! (`placement/SFS.java`).
//!
//! * A page's hotness is its write count over the time since its last user
//!   write (in the trace's µs: the module comment of `schemes`); a page's
//!   first write is as hot as can be (`f64::MAX`). A user write counts,
//!   then takes its hotness; a GC write takes its hotness without counting.
//! * Each write, user or GC, goes to the class whose centre is nearest its
//!   hotness (ties to the higher class).
//! * At every GC (before the victim's pages are copied) the centres are
//!   re-quantised from the full blocks, the victim included: a block's
//!   hotness is the sum of its valid pages' write counts over the sum of
//!   their times since their last writes; with at most `classes` full
//!   blocks the centres are those blocks' hotness in turn, otherwise
//!   `quantization_iterations` rounds of k-means (each block to its nearest
//!   centre, ties to the lower; an empty group's centre is 0) from the
//!   previous centres. The centres are then sorted hottest first, in
//!   Java's order of doubles (NaN, from a block with no valid page, above
//!   everything), which the nearest-centre rule then never picks.
//!
//! A full block's sums (SepBIT's `postAppend` adds each page's count and
//! time to its segment, `invalidate` takes them off) are taken when it
//! fills, from its valid pages, and a page's death takes its share off; a
//! page's count and time change only at its user writes, each of which
//! kills the copy before, so the sums are SepBIT's (in exact integers while
//! they stay below 2^53, as on SepBIT's synthetic traces' µs). An open
//! block's sums are not kept: the quantisation reads full blocks only.
//!
//! SepBIT's simulator iterates its segments in its hash map's order; here
//! they go in block order. Only the centres' last bits can differ (a
//! group's sum in another order).

use std::cmp::Ordering;

use super::{PlacementScheme, GcWrite, HostRequest, Invalidated, Reclaimed, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;

#[derive(Debug, Clone)]
pub(crate) struct Sfs {
    iterations: u32,
    now_us: u64,
    /// Each page's user writes.
    writes: Vec<u32>,
    /// Each page's last user write, µs (`NEVER`: none).
    last_us: Vec<u64>,
    /// The hotness of the page being classified.
    hotness: f64,
    /// One per class, hottest first.
    centres: Vec<f64>,
    /// Per full block: sums over its valid pages of their write counts and
    /// last-write times (as SepBIT's doubles), its valid pages; and whether
    /// it is full.
    block_writes: Vec<f64>,
    block_time_us: Vec<f64>,
    block_valid: Vec<u32>,
    block_full: Vec<bool>,
    /// Scratch of a quantisation: the full blocks' hotness, each group's
    /// sum and size.
    hotness_of_full: Vec<f64>,
    group_sum: Vec<f64>,
    group_len: Vec<u32>,
}

const NEVER: u64 = u64::MAX;

/// Java's `Double.compare`: NaN above +∞, and −0 below +0.
fn java_compare(a: f64, b: f64) -> Ordering {
    let key = |x: f64| {
        if x.is_nan() {
            0x7ff8_0000_0000_0000_i64
        } else {
            x.to_bits() as i64
        }
    };
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        key(a).cmp(&key(b))
    }
}

/// The class whose centre is nearest `hotness`, from the last class down:
/// ties go to the higher class; none nearer than `f64::MAX`: class 0.
fn nearest_from_top(centres: &[f64], hotness: f64) -> usize {
    let mut nearest = 0;
    let mut least = f64::MAX;
    for (i, c) in centres.iter().enumerate().rev() {
        let d = (c - hotness).abs();
        if d < least {
            nearest = i;
            least = d;
        }
    }
    nearest
}

impl Sfs {
    fn hotness_since(&self, lpn: Lpn) -> f64 {
        let l = lpn.index();
        let elapsed = self.now_us as i64 - self.last_us[l] as i64;
        f64::from(self.writes[l]) / elapsed as f64
    }

    fn quantise(&mut self) {
        let now = self.now_us as f64;
        self.hotness_of_full.clear();
        for b in 0..self.block_full.len() {
            if self.block_full[b] {
                let spread = f64::from(self.block_valid[b]) * now - self.block_time_us[b];
                self.hotness_of_full.push(self.block_writes[b] / spread);
            }
        }
        let k = self.centres.len();
        let n = self.hotness_of_full.len();
        if n == 0 {
            return;
        }
        if n <= k {
            for i in 0..k {
                self.centres[i] = self.hotness_of_full[i % n];
            }
        } else {
            for _ in 0..self.iterations {
                self.group_sum.iter_mut().for_each(|s| *s = 0.0);
                self.group_len.iter_mut().for_each(|l| *l = 0);
                for &h in &self.hotness_of_full {
                    let mut group = 0;
                    let mut least = f64::MAX;
                    for (i, c) in self.centres.iter().enumerate() {
                        let d = (h - c).abs();
                        if d < least {
                            least = d;
                            group = i;
                        }
                    }
                    self.group_sum[group] += h;
                    self.group_len[group] += 1;
                }
                for i in 0..k {
                    self.centres[i] = match self.group_len[i] {
                        0 => 0.0,
                        len => self.group_sum[i] / f64::from(len),
                    };
                }
            }
        }
        self.centres.sort_by(|a, b| java_compare(*b, *a));
    }
}

impl PlacementScheme for Sfs {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Sfs {
            classes,
            quantization_iterations,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let k = usize::from(classes);
        let pages = space.logical_pages as usize;
        let blocks = space.blocks as usize;
        Self {
            iterations: quantization_iterations,
            now_us: 0,
            writes: vec![0; pages],
            last_us: vec![NEVER; pages],
            hotness: 0.0,
            centres: vec![0.0; k],
            block_writes: vec![0.0; blocks],
            block_time_us: vec![0.0; blocks],
            block_valid: vec![0; blocks],
            block_full: vec![false; blocks],
            hotness_of_full: Vec::with_capacity(blocks),
            group_sum: vec![0.0; k],
            group_len: vec![0; k],
        }
    }

    fn request(&mut self, request: &HostRequest) {
        self.now_us = request.time_us;
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let l = write.lpn.index();
        if self.last_us[l] == NEVER {
            self.hotness = f64::MAX;
            self.writes[l] = 1;
        } else {
            self.hotness = self.hotness_since(write.lpn);
            self.writes[l] = self.writes[l].saturating_add(1);
        }
        self.last_us[l] = self.now_us;
        nearest_from_top(&self.centres, self.hotness) as u16
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        self.hotness = self.hotness_since(write.lpn);
        nearest_from_top(&self.centres, self.hotness) as u16
    }

    fn invalidated(&mut self, page: &Invalidated) {
        let (l, b) = (page.lpn.index(), page.block as usize);
        if self.block_full[b] {
            self.block_writes[b] -= f64::from(self.writes[l]);
            self.block_time_us[b] -= self.last_us[l] as f64;
            self.block_valid[b] -= 1;
        }
    }

    fn wants_sealed_pages(&self) -> bool {
        true
    }

    fn sealed(&mut self, block: u32, _: u16, valid_pages: &[Lpn]) {
        let b = block as usize;
        let (mut writes, mut time_us) = (0.0, 0.0);
        for lpn in valid_pages {
            writes += f64::from(self.writes[lpn.index()]);
            time_us += self.last_us[lpn.index()] as f64;
        }
        self.block_writes[b] = writes;
        self.block_time_us[b] = time_us;
        self.block_valid[b] = valid_pages.len() as u32;
        self.block_full[b] = true;
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        let b = block.block as usize;
        debug_assert_eq!(self.block_valid[b], block.valid_pages);
        if block.gc {
            self.quantise();
        }
        // Its pages move out (GC writes land elsewhere, or back here once
        // it is erased): it starts over.
        self.block_full[b] = false;
        self.block_writes[b] = 0.0;
        self.block_time_us[b] = 0.0;
        self.block_valid[b] = 0;
    }

    fn state_bytes(&self) -> usize {
        self.writes.len() * (4 + 8) + self.block_full.len() * (8 + 8 + 4 + 1 + 8)
    }
}

#[cfg(test)]
mod tests {
    use super::{java_compare, nearest_from_top};

    /// Java's descending order of doubles puts NaN first, then +∞, and +0
    /// before −0; the nearest centre never is a NaN one, ties go to the
    /// higher class, and a first write (`f64::MAX`) to class 0.
    #[test]
    fn java_order_and_nearest_centre() {
        let mut c = [1.0, f64::NAN, -0.0, f64::INFINITY, 0.0, 3.0];
        c.sort_by(|a, b| java_compare(*b, *a));
        assert!(c[0].is_nan());
        assert_eq!(&c[1..4], &[f64::INFINITY, 3.0, 1.0]);
        assert!(c[4].is_sign_positive() && c[5].is_sign_negative());
        assert_eq!(nearest_from_top(&[f64::NAN, 4.0, 2.0, 0.0], 3.0), 2);
        assert_eq!(nearest_from_top(&[f64::NAN, 4.0, 2.0, 0.0], 100.0), 1);
        assert_eq!(nearest_from_top(&[0.0; 6], 5.0), 5);
        assert_eq!(nearest_from_top(&[4.0, 2.0, 0.0], f64::MAX), 0);
    }
}
