//! Placement schemes (`[ftl.placement_scheme]`, docs/placement.md): each
//! makes the two decisions of data placement — the class of a user write
//! and the class of a GC write — and may learn when a segment (here a
//! block) is reclaimed. A class is a frontier: the FTL opens a block per
//! class and carries the choice out. A scheme is a file here, a line in
//! `placement_schemes!` below and a variant of `PlacementSchemeConfig`
//! with its keys.
//!
//! Time is logical, in host page writes (the `Ssd`'s `now_pages`), as in
//! SepBIT's simulator, whose clock counts user block writes; the schemes
//! that read the trace's clock (SFS, WARCIP: SepBIT's simulator gives them
//! its `globalTimestampInUs`) get a request's arrival in microseconds, or
//! without one the write requests before it (1 µs apart, as SepBIT's
//! synthetic traces and `ftlsim trace synth` space them).
//!
//! Besides its two decisions a scheme may hear what SepBIT's simulator
//! tells its `Separator`: a host write request before its pages
//! (`addRequest`), a page's data dying in its block (`invalidate`), a block
//! filling, with its valid pages if the scheme asks (`sealSegment`; SFS's
//! `postAppend` sums, taken at once), and a block reclaimed
//! (`collectSegment`). Each hook is a no-op unless the scheme overrides it.
//!
//! A scheme may also say where GC takes its victim (`victim_choice`,
//! `victim_choice.rs`): 2R by region, MiDAS by the group over its size.

use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;
use crate::future::Lifetimes;

pub(crate) use victim_choice::{ClassBlocks, VictimChoice, VictimOrder};

/// The space a scheme works over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SchemeSpace {
    pub logical_pages: u32,
    /// Pages per block: a segment, in SepBIT's terms.
    pub block_pages: u32,
    /// Blocks of the device (per-block state is sized by it).
    pub blocks: u32,
    /// The run's seed, for a scheme that draws at random.
    pub seed: u64,
}

/// A host write request, before its pages are written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostRequest {
    /// Its first page (the request lies in the logical space).
    pub lpn: Lpn,
    pub pages: u32,
    /// Its arrival in µs, or the write requests before it (module comment).
    pub time_us: u64,
    /// Host page writes before it.
    pub writes_before: u64,
    /// Logical pages holding data before it.
    pub live_pages: u64,
}

/// A page's data died (an overwrite or a trim) in `block`, of `class`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Invalidated {
    pub lpn: Lpn,
    pub block: u32,
    pub class: u16,
}

/// A user write, as a scheme sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UserWrite {
    pub lpn: Lpn,
    /// The host page writes before this one: its index in a pre-pass's
    /// lifespans.
    pub write_index: u64,
    /// Host page writes since this page's last user write, when it holds
    /// data (an overwrite); `None` for a page never written or trimmed.
    pub lifespan_pages: Option<u64>,
    /// Logical pages holding data, this write included.
    pub live_pages: u64,
}

/// A GC write: a valid page of the victim being reclaimed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GcWrite {
    pub lpn: Lpn,
    /// The class of the block the page is copied out of.
    pub victim_class: u16,
    /// Host page writes since the page's data was written by the host.
    pub age_pages: u64,
    /// Host page writes so far.
    pub now_pages: u64,
}

/// A block reclaimed, before its valid pages are copied.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reclaimed {
    pub block: u32,
    pub class: u16,
    /// Host page writes from the block's opening to its reclaim.
    pub lifespan_pages: u64,
    /// Its valid pages, which its GC writes will copy.
    pub valid_pages: u32,
    /// By GC (false: by wear leveling, which SepBIT's simulator does not
    /// have and a scheme does not learn from).
    pub gc: bool,
}

/// What every scheme answers. `classes` frontiers exist; a class returned
/// must be below the count `PlacementSchemeConfig::classes` gives.
pub(crate) trait ClassScheme {
    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self;
    fn user_class(&mut self, write: &UserWrite) -> u16;
    fn gc_class(&mut self, write: &GcWrite) -> u16;
    fn reclaimed(&mut self, _block: &Reclaimed) {}
    /// The remaining lifespan of every host page write of the run, from its
    /// pre-pass (a scheme that `foresees`; the others ignore it).
    fn foresee(&mut self, _future: &Lifetimes) {}
    /// A host write request, before its pages' `user_class`.
    fn request(&mut self, _request: &HostRequest) {}
    /// A page's data died where it was (before the overwrite's `user_class`).
    fn invalidated(&mut self, _page: &Invalidated) {}
    /// Whether `sealed` wants the sealed block's valid pages.
    fn wants_sealed_pages(&self) -> bool {
        false
    }
    /// `block`, opened for `class`, is full; `valid_pages` are the LPNs of
    /// its valid pages if the scheme `wants_sealed_pages` (else empty).
    fn sealed(&mut self, _block: u32, _class: u16, _valid_pages: &[Lpn]) {}
    /// Bytes of state the scheme keeps (per-page and per-block arrays).
    fn state_bytes(&self) -> usize {
        0
    }
    /// Whether the scheme chooses where GC takes its victims (asked once,
    /// at the start: only then does GC scan for `victim_choice`).
    fn chooses_victims(&self) -> bool {
        false
    }
    /// Where GC takes its next victim, from the sealed blocks of each class
    /// (`view[c]`); `None`: the regime's own victim.
    fn victim_choice(&mut self, _view: &[ClassBlocks]) -> Option<VictimChoice> {
        None
    }
    /// A victim the scheme names itself, asked before `victim_choice`:
    /// `valid_pages(b)` is block `b`'s valid pages if GC may take it now
    /// (sealed, in the range GC collects), else `None`. `None`: ask
    /// `victim_choice`.
    fn victim_block(&mut self, _valid_pages: &dyn Fn(u32) -> Option<u32>) -> Option<u32> {
        None
    }
}

/// The one list of schemes: `Variant(module::Type)`, the variant named as
/// `PlacementSchemeConfig`'s. Declares the modules and dispatches
/// statically (one `match`, no `Box<dyn>`).
macro_rules! placement_schemes {
    ($( $variant:ident($module:ident::$ty:ident), )*) => {
        $( mod $module; )*

        #[derive(Debug, Clone)]
        enum SchemeState {
            $( $variant($module::$ty), )*
        }

        impl SchemeState {
            fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
                match config {
                    $( PlacementSchemeConfig::$variant { .. } => {
                        Self::$variant($module::$ty::new(config, space))
                    } )*
                }
            }

            fn foresee(&mut self, future: &Lifetimes) {
                match self {
                    $( Self::$variant(s) => s.foresee(future), )*
                }
            }

            #[inline]
            fn user_class(&mut self, write: &UserWrite) -> u16 {
                match self {
                    $( Self::$variant(s) => s.user_class(write), )*
                }
            }

            #[inline]
            fn gc_class(&mut self, write: &GcWrite) -> u16 {
                match self {
                    $( Self::$variant(s) => s.gc_class(write), )*
                }
            }

            fn reclaimed(&mut self, block: &Reclaimed) {
                match self {
                    $( Self::$variant(s) => s.reclaimed(block), )*
                }
            }

            fn request(&mut self, request: &HostRequest) {
                match self {
                    $( Self::$variant(s) => s.request(request), )*
                }
            }

            #[inline]
            fn invalidated(&mut self, page: &Invalidated) {
                match self {
                    $( Self::$variant(s) => s.invalidated(page), )*
                }
            }

            fn wants_sealed_pages(&self) -> bool {
                match self {
                    $( Self::$variant(s) => s.wants_sealed_pages(), )*
                }
            }

            fn sealed(&mut self, block: u32, class: u16, valid_pages: &[Lpn]) {
                match self {
                    $( Self::$variant(s) => s.sealed(block, class, valid_pages), )*
                }
            }

            fn state_bytes(&self) -> usize {
                match self {
                    $( Self::$variant(s) => s.state_bytes(), )*
                }
            }

            fn chooses_victims(&self) -> bool {
                match self {
                    $( Self::$variant(s) => s.chooses_victims(), )*
                }
            }

            fn victim_choice(&mut self, view: &[ClassBlocks]) -> Option<VictimChoice> {
                match self {
                    $( Self::$variant(s) => s.victim_choice(view), )*
                }
            }

            fn victim_block(&mut self, valid_pages: &dyn Fn(u32) -> Option<u32>) -> Option<u32> {
                match self {
                    $( Self::$variant(s) => s.victim_block(valid_pages), )*
                }
            }
        }

        /// Every scheme's name as the config spells it (`type`), in the
        /// list's order: the variant's name in kebab case, as serde's
        /// `rename_all` spells `PlacementSchemeConfig`'s.
        pub fn scheme_names() -> Vec<String> {
            vec![$( kebab(stringify!($variant)), )*]
        }
    };
}

/// `MultiLog` as `multi-log`: serde's kebab case.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

mod fifo_scan;
#[cfg(test)]
mod java_probe;
mod victim_choice;

placement_schemes! {
    Nosep(nosep::Nosep),
    Sepgc(sepgc::Sepgc),
    Dac(dac::Dac),
    Sfs(sfs::Sfs),
    Multilog(multilog::Multilog),
    Eti(eti::Eti),
    Mq(mq::Mq),
    Sfr(sfr::Sfr),
    Fadac(fadac::Fadac),
    Warcip(warcip::Warcip),
    Sepbit(sepbit::Sepbit),
    Fk(fk::Fk),
    // After fk: the experiment's and the bench's order of the twelve
    // before them stays as it was.
    Midas(midas::Midas),
    Tworr(tworr::Tworr),
}

/// The FTL's side of a scheme: the scheme, and what it needs of each block
/// (its class and when it opened) and of the device (pages holding data).
#[derive(Debug, Clone)]
pub(crate) struct Classes {
    scheme: SchemeState,
    classes: u16,
    block_class: Vec<u16>,
    block_opened_at: Vec<u64>,
    live_pages: u64,
    /// The class of the block being reclaimed, for its copies.
    victim_class: u16,
    /// Write requests so far: the clock of a request without an arrival.
    write_requests: u64,
    /// The valid pages of the block being sealed, for a scheme that wants
    /// them (capacity: a block's pages, reserved once).
    sealed_pages: Vec<Lpn>,
    /// The scheme's `chooses_victims`, asked once.
    chooses_victims: bool,
    /// Per class, the sealed blocks GC sees (for `victim_choice`).
    view: Vec<ClassBlocks>,
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

    /// The class (the frontier) of a user write of `lpn`.
    #[inline]
    pub(crate) fn user_class(
        &mut self,
        lpn: Lpn,
        now_pages: u64,
        lifespan_pages: Option<u64>,
    ) -> u16 {
        if lifespan_pages.is_none() {
            self.live_pages += 1;
        }
        let class = self.scheme.user_class(&UserWrite {
            lpn,
            write_index: now_pages - 1,
            lifespan_pages,
            live_pages: self.live_pages,
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

    /// The class (the frontier) of a GC copy of `lpn` out of the victim
    /// `reclaiming` named, its data `age_pages` old.
    #[inline]
    pub(crate) fn gc_class(&mut self, lpn: Lpn, age_pages: u64, now_pages: u64) -> u16 {
        let class = self.scheme.gc_class(&GcWrite {
            lpn,
            victim_class: self.victim_class,
            age_pages,
            now_pages,
        });
        debug_assert!(class < self.classes, "GC class {class} of {}", self.classes);
        class
    }

    /// Bytes of the scheme's state per logical page, roughly (the block
    /// arrays and per-page state).
    pub(crate) fn state_bytes(&self) -> usize {
        self.block_class.len() * (2 + 8) + self.scheme.state_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::scheme_names;
    use crate::config::PlacementSchemeConfig;

    /// Each listed name is a `type` the config takes, and names itself.
    #[test]
    fn every_listed_name_is_a_config_type() {
        let names = scheme_names();
        assert!(names.iter().any(|n| n == "fk"), "{names:?}");
        for name in names {
            let c: PlacementSchemeConfig =
                toml::from_str(&format!("type = \"{name}\"")).expect("a config type");
            assert_eq!(c.name(), name);
        }
    }
}
