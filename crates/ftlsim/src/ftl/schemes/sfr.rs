//! SFR, AutoStream's sequentiality, frequency and recency scheme (Yang et
//! al., SYSTOR'17), as SepBIT's simulator runs it (`placement/SFR.java`):
//! the logical space in chunks of `chunk_pages`, each with a write count
//! that halves for every `decay_period_pages` host page writes since the
//! chunk's last request, then counts the request (+1 for each chunk it
//! touches). A user write's class is ⌊ln n⌋ of its chunk's count, capped at
//! `classes` − 2; a request that starts where the previous one ended
//! (sequential) takes the class the last non-sequential write took. GC
//! writes take the last class.

use super::mq::log_class;
use super::{PlacementScheme, GcWrite, HostRequest, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Sfr {
    gc_class: u16,
    chunk_pages: u32,
    decay_period_pages: u64,
    /// Each chunk's decayed write count (0: never written).
    count: Vec<u64>,
    /// Host page writes before each chunk's last request.
    last_request_at: Vec<u64>,
    /// Where the previous request ended (0 at first, as SepBIT's does).
    previous_end: u64,
    /// Whether the request being written continues the previous one.
    sequential: bool,
    /// The class of the last write of a request that was not sequential.
    previous_class: u16,
}

impl PlacementScheme for Sfr {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Sfr {
            classes,
            chunk_pages,
            decay_period_pages,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let chunks = space.logical_pages.div_ceil(chunk_pages) as usize;
        Self {
            gc_class: classes - 1,
            chunk_pages,
            decay_period_pages: u64::from(decay_period_pages),
            count: vec![0; chunks],
            last_request_at: vec![0; chunks],
            previous_end: 0,
            sequential: false,
            previous_class: 0,
        }
    }

    fn request(&mut self, request: &HostRequest) {
        let start = request.lpn.index() as u64;
        let end = start + u64::from(request.pages);
        self.sequential = start == self.previous_end;
        self.previous_end = end;
        let now = request.writes_before;
        let chunk_pages = u64::from(self.chunk_pages);
        for chunk in start / chunk_pages..end.div_ceil(chunk_pages) {
            let c = chunk as usize;
            let (n, last) = match self.count[c] {
                0 => (0, now),
                n => (n, self.last_request_at[c]),
            };
            // SepBIT's `n /= 2^k` on a long: the floor, which a shift is.
            let halvings = (now - last) / self.decay_period_pages;
            let decayed = u32::try_from(halvings)
                .ok()
                .and_then(|k| n.checked_shr(k))
                .unwrap_or(0);
            self.count[c] = decayed + 1;
            self.last_request_at[c] = now;
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        if self.sequential {
            return self.previous_class;
        }
        let n = self.count[write.lpn.index() / self.chunk_pages as usize];
        self.previous_class = log_class(n, self.gc_class - 1);
        self.previous_class
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        self.gc_class
    }

    fn state_bytes(&self) -> usize {
        self.count.len() * 16
    }
}
