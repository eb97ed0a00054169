//! The log layer's invariant checker: mapping and reverse map agree, each
//! segment's valid count, state and victim-index membership.

use super::{LogLayer, NONE};
use crate::error::SimError;
use crate::flash::BlockState;

impl LogLayer {
    /// Checks the layer's invariants (`--check`, tests).
    pub(super) fn check_invariants(&self) -> Result<(), SimError> {
        let bad = |m: String| Err(SimError::Invariant(format!("log layer: {m}")));
        let seg_pages = self.layout.segment_pages;
        let mut valid = vec![0u32; self.layout.segments as usize];
        for (lpn, &lp) in self.l2p.iter().enumerate() {
            if lp == NONE {
                continue;
            }
            if self.p2l.get(lp as usize) != Some(&(lpn as u32)) {
                return bad(format!(
                    "page {lpn} maps to {lp}, whose reverse map disagrees"
                ));
            }
            valid[(lp / seg_pages) as usize] += 1;
        }
        for (lp, &lpn) in self.p2l.iter().enumerate() {
            if lpn != NONE && self.l2p[lpn as usize] != lp as u32 {
                return bad(format!(
                    "page below {lp} claims page {lpn}, which maps elsewhere"
                ));
            }
        }
        let (mut free, mut open) = (0usize, 0usize);
        for (s, &count) in valid.iter().enumerate() {
            if self.segs.valid[s] != count {
                return bad(format!(
                    "segment {s} counts {} valid pages, the mapping {}",
                    self.segs.valid[s], count
                ));
            }
            match self.segs.state[s] {
                BlockState::Free => {
                    free += 1;
                    if count != 0 {
                        return bad(format!("free segment {s} holds {} pages", count));
                    }
                }
                BlockState::Open => open += 1,
                BlockState::Full => {
                    if !self.cleaning {
                        self.victims.check_member(s as u32, count).or_else(&bad)?;
                    }
                }
                BlockState::Retired => return bad(format!("segment {s} retired")),
            }
        }
        if free != self.free.len() {
            return bad(format!(
                "{free} segments are free but the free list holds {}",
                self.free.len()
            ));
        }
        if open != self.open.iter().filter(|&&s| s != NONE).count() {
            return bad(format!("{open} segments are open, not one per stream"));
        }
        Ok(())
    }
}
