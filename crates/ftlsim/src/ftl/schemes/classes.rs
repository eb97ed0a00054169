//! The FTL's side of the schemes of `[ftl.placement_scheme]`: what they
//! need of each block (its class, when it opened) and of the device (the
//! pages holding data, the class of the victim being reclaimed), kept here
//! and filled into their inputs, and the dispatch over the list
//! (`SchemeState`, `placement_schemes!`).

use super::{
    ClassBlocks, GcWrite, HostRequest, Invalidated, Reclaimed, SchemeSpace, SchemeState, UserWrite,
};
use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;
use crate::ftl::frontier::{Frontier, FrontierKey, StreamLayout};
use crate::future::Lifetimes;
use crate::segments::WearPreference;

/// The FTL's side of a scheme: the scheme, and what it needs of each block
/// (its class and when it opened) and of the device (pages holding data).
#[derive(Debug, Clone)]
pub(crate) struct Classes {
    pub(super) scheme: SchemeState,
    pub(super) classes: u16,
    pub(super) block_class: Vec<u16>,
    pub(super) block_opened_at: Vec<u64>,
    pub(super) live_pages: u64,
    /// The class of the block being reclaimed, for its copies.
    pub(super) victim_class: u16,
    /// Write requests so far: the clock of a request without an arrival.
    pub(super) write_requests: u64,
    /// The valid pages of the block being sealed, for a scheme that wants
    /// them (capacity: a block's pages, reserved once).
    pub(super) sealed_pages: Vec<Lpn>,
    /// The scheme's `chooses_victims`, asked once.
    pub(super) chooses_victims: bool,
    /// Per class, the sealed blocks GC sees (for `victim_choice`).
    pub(super) view: Vec<ClassBlocks>,
}

impl Classes {
    pub(crate) fn new(config: &PlacementSchemeConfig, blocks: u32, space: SchemeSpace) -> Self {
        let scheme = SchemeState::new(config, space);
        Self {
            chooses_victims: scheme.chooses_victims(),
            view: Vec::new(),
            scheme,
            classes: config.classes(),
            block_class: vec![0; blocks as usize],
            block_opened_at: vec![0; blocks as usize],
            live_pages: 0,
            victim_class: 0,
            write_requests: 0,
            sealed_pages: Vec::with_capacity(space.block_pages as usize),
        }
    }

    /// A host write request of `pages` pages from `lpn`, before its pages,
    /// `writes_before` host page writes into the run. A request outside
    /// the logical space is not heard: its first page out of range fails
    /// it.
    pub(crate) fn request(
        &mut self,
        lpn: u64,
        pages: u32,
        arrival_ns: Option<u64>,
        writes_before: u64,
        logical_pages: u32,
    ) {
        let time_us = arrival_ns.map_or(self.write_requests, |ns| ns / 1_000);
        self.write_requests += 1;
        if pages == 0 || lpn + u64::from(pages) > u64::from(logical_pages) {
            return;
        }
        self.scheme.request(&HostRequest {
            lpn: Lpn::new(lpn as u32),
            pages,
            time_us,
            writes_before,
            live_pages: self.live_pages,
        });
    }

    /// The data of `lpn` in `block` died: an overwrite, before its
    /// `user_class`.
    #[inline]
    pub(crate) fn invalidated(&mut self, lpn: Lpn, block: u32) {
        let class = self.block_class[block as usize];
        self.scheme.invalidated(&Invalidated { lpn, block, class });
    }

    /// `block` is full; `valid_pages` lists its valid pages' LPNs into the
    /// buffer it is given, called only for a scheme that wants them.
    pub(crate) fn sealed(&mut self, block: u32, valid_pages: impl FnOnce(&mut Vec<Lpn>)) {
        let class = self.block_class[block as usize];
        self.sealed_pages.clear();
        if self.scheme.wants_sealed_pages() {
            valid_pages(&mut self.sealed_pages);
        }
        self.scheme.sealed(block, class, &self.sealed_pages);
    }

    /// The user decision of the scheme: the class (the frontier) of a
    /// host write, with the pages holding data counted in.
    #[inline]
    pub(crate) fn user_class(&mut self, write: &UserWrite) -> u16 {
        if write.lifespan_pages.is_none() {
            self.live_pages += 1;
        }
        let class = self.scheme.user_class(&UserWrite {
            live_pages: self.live_pages,
            ..*write
        });
        debug_assert!(
            class < self.classes,
            "user class {class} of {}",
            self.classes
        );
        class
    }

    /// The pre-pass's lifespans, for a scheme that foresees.
    pub(crate) fn foresee(&mut self, future: &Lifetimes) {
        self.scheme.foresee(future);
    }

    /// Logical pages holding data.
    pub(crate) fn live_pages(&self) -> u64 {
        self.live_pages
    }

    /// `lpn`, in `block`, stopped holding data (a trim).
    pub(crate) fn trimmed(&mut self, lpn: Lpn, block: u32) {
        self.live_pages -= 1;
        self.invalidated(lpn, block);
    }

    /// `block` opened for `class` at `now_pages`.
    pub(crate) fn opened(&mut self, block: u32, class: u16, now_pages: u64) {
        self.block_class[block as usize] = class;
        self.block_opened_at[block as usize] = now_pages;
    }

    /// `victim`, holding `valid_pages`, is about to be reclaimed (`gc`: by
    /// GC, not wear leveling): its copies take classes next.
    pub(crate) fn reclaiming(&mut self, victim: u32, valid_pages: u32, now_pages: u64, gc: bool) {
        let v = victim as usize;
        self.victim_class = self.block_class[v];
        self.scheme.reclaimed(&Reclaimed {
            block: victim,
            class: self.victim_class,
            lifespan_pages: now_pages - self.block_opened_at[v],
            valid_pages,
            gc,
        });
    }

    /// The GC decision of the scheme: the class (the frontier) of a GC
    /// copy out of the victim `reclaiming` named, whose class it fills in.
    #[inline]
    pub(crate) fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let class = self.scheme.gc_class(&GcWrite {
            victim_class: self.victim_class,
            ..*write
        });
        debug_assert!(class < self.classes, "GC class {class} of {}", self.classes);
        class
    }

    /// The frontiers of the scheme: one per class, in class order.
    pub(crate) fn frontiers(&self, layout: &StreamLayout) -> Vec<Frontier> {
        (0..self.classes)
            .map(|class| layout.frontier(FrontierKey::Class { class }, WearPreference::LeastErased))
            .collect()
    }

    /// Bytes of the scheme's state per logical page, roughly (the block
    /// arrays and per-page state).
    pub(crate) fn state_bytes(&self) -> usize {
        self.block_class.len() * (2 + 8) + self.scheme.state_bytes()
    }
}
