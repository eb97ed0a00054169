//! MultiQueue, AutoStream's first scheme (Yang et al., "AutoStream:
//! Automatic Stream Management for Multi-streamed SSDs", SYSTOR'17), as
//! SepBIT's simulator runs it (`placement/MultiQueue.java`): the logical
//! space in chunks of `chunk_pages`; each write request counts once for
//! every chunk it touches; a user write's class is ⌊ln n⌋ for its chunk's
//! count n, capped at `classes` − 2; GC writes take the last class.
//!
//! The paper's MultiQueue also demotes a chunk one queue when it has not
//! been written for the hottest chunk's lifetime. SepBIT's simulator keeps
//! those queues, but its demotion moves a chunk between queues without
//! changing the queue it records for the chunk, which alone the class is
//! read from; its classes are therefore exactly the rule above, and that
//! is what is kept here (a count per chunk).

use super::{PlacementScheme, GcWrite, HostRequest, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Mq {
    /// The last class, GC's; user classes are below it.
    gc_class: u16,
    chunk_pages: u32,
    /// Write requests that touched each chunk.
    requests: Vec<u32>,
}

/// ⌊ln n⌋ capped at `top` (0 for n ≤ 1): a count's queue in AutoStream's
/// MultiQueue and SFR. As SepBIT's simulator computes it, `(int)
/// Math.log(n)`: no integer lies within rounding of a power of e, so the
/// floor of the rounded logarithm is the true one.
pub(super) fn log_class(n: u64, top: u16) -> u16 {
    if n <= 1 {
        return 0;
    }
    let level = (n as f64).ln() as u64;
    u16::try_from(level).map_or(top, |l| l.min(top))
}

impl PlacementScheme for Mq {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Mq {
            classes,
            chunk_pages,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let chunks = space.logical_pages.div_ceil(chunk_pages);
        Self {
            gc_class: classes - 1,
            chunk_pages,
            requests: vec![0; chunks as usize],
        }
    }

    fn request(&mut self, request: &HostRequest) {
        let first = request.lpn.index() as u32 / self.chunk_pages;
        let last = (request.lpn.index() as u32 + (request.pages - 1)) / self.chunk_pages;
        for chunk in first..=last {
            let n = &mut self.requests[chunk as usize];
            *n = n.saturating_add(1);
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let n = self.requests[write.lpn.index() / self.chunk_pages as usize];
        log_class(u64::from(n), self.gc_class - 1)
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        self.gc_class
    }

    fn state_bytes(&self) -> usize {
        self.requests.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::log_class;

    /// ⌊ln n⌋ steps at e, e², e³, e⁴ (2.72, 7.39, 20.1, 54.6) and stops at the cap.
    #[test]
    fn log_class_steps_at_powers_of_e() {
        let classes: Vec<u16> = [0, 1, 2, 3, 7, 8, 20, 21, 54, 55, 1 << 40]
            .iter()
            .map(|&n| log_class(n, 4))
            .collect();
        assert_eq!(classes, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(log_class(1 << 40, 2), 2);
    }
}
