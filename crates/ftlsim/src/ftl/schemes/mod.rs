//! Placement schemes: the one placement interface and every scheme behind
//! it (docs/placement.md). Each scheme makes the two decisions of data
//! placement — the class of a user write (`user_class`, from its LPN, the
//! time, its stream hint) and the class of a GC write (`gc_class`, from the
//! victim's class, the page's age since its last user write, its
//! references, and the scheme's own state) — and may learn when a segment
//! (here a block) is reclaimed (`reclaimed`). A class is a frontier: the
//! FTL opens a block per class and carries the choice out.
//!
//! Two families implement `PlacementScheme`, and `ftl/placement.rs`
//! dispatches over them statically (an enum, no `Box<dyn>`):
//! * the stream schemes, built in, chosen by `ftl.frontiers`,
//!   `ftl.internal_streams`, `ftl.placement` and FDP's isolation:
//!   `shared.rs` (one stream or several host streams; a copy returns to its
//!   stream), `separate_gc.rs` (a GC frontier per FDP reclaim group; FDP's
//!   initially isolated handles), `internal.rs` (PCStream's internal
//!   streams; FDP's persistently isolated handles) and `coldmap.rs` (a GC
//!   frontier and Coldmap's cold zone). Their user decision is the write's
//!   stream hint — the host stream or FDP placement handle it resolved to —
//!   which is how the host's stream assigners (PCStream, AutoStream, manual
//!   maps, FDP placement ids) place through this interface; their frontier
//!   indices are fixed (host 0.., then GC, then cold), so results do not
//!   move. They keep no state and learn nothing at a reclaim.
//! * the schemes of `[ftl.placement_scheme]`, each a file here, a line in
//!   `placement_schemes!` below and a variant of `PlacementSchemeConfig`
//!   with its keys; `classes.rs` (`Classes`) is the FTL's side of them: the
//!   class and opening time of each block, the pages holding data, and the
//!   victim's class, which it fills into their inputs.
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

pub(crate) use classes::Classes;
pub(crate) use coldmap::{Coldmap, ColdmapKeys};
pub(crate) use internal::InternalStreams;
pub(crate) use separate_gc::SeparateGc;
pub(crate) use shared::SharedStreams;
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

/// A user (host) write, the input of the user decision.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UserWrite {
    pub lpn: Lpn,
    /// The stream hint: the host stream or FDP placement handle the write
    /// resolved to (0 when the host gives none), as a host layer (PCStream,
    /// AutoStream, a manual map) or the request set it.
    pub stream: u16,
    /// The host page writes before this one (the time, and its index in a
    /// pre-pass's lifespans).
    pub write_index: u64,
    /// Host page writes since this page's last user write, when it holds
    /// data (an overwrite); `None` for a page never written or trimmed.
    pub lifespan_pages: Option<u64>,
    /// Logical pages holding data, this write included. `Classes` counts
    /// them for the schemes of `[ftl.placement_scheme]`; the FTL does not,
    /// and gives 0 (the stream schemes do not read it).
    pub live_pages: u64,
}

/// A GC write: a valid page of the victim being reclaimed, the input of
/// the GC decision.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GcWrite {
    /// The page (`Lpn::NONE` when the decision is asked once for a whole
    /// victim: below).
    pub lpn: Lpn,
    /// The victim's class: for a stream scheme the stream its block was
    /// opened for; for a scheme of `[ftl.placement_scheme]` the class it
    /// chose (`Classes` fills it in).
    pub victim_class: u16,
    /// Host page writes since the page's data was written by the host.
    pub age_pages: u64,
    /// Host page writes so far.
    pub now_pages: u64,
    /// LPNs sharing the page (1 without many-to-one mapping).
    pub refs: u32,
    /// The mean survival of single-mapped pages so far (0 when none died
    /// yet, or survival is not kept): Coldmap's age-aware threshold.
    pub mean_single_survival: f64,
}
// Without sharing a stream scheme's GC decision reads nothing of the page
// but its one reference, so the FTL asks it once per victim: `lpn` NONE,
// `refs` 1 and `age_pages` 0 (`Placement::classifies_each_copy` is false).

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

/// The one placement interface, which every scheme answers. A scheme's
/// frontiers are its classes: a class returned must be one of them (below
/// `PlacementSchemeConfig::classes`, or a stream scheme's frontier count).
pub(crate) trait PlacementScheme {
    /// What the scheme is built from: `PlacementSchemeConfig` for the
    /// schemes of `[ftl.placement_scheme]`, the stream layout (and keys)
    /// for the stream schemes.
    type Config;
    fn new(config: &Self::Config, space: SchemeSpace) -> Self;
    /// The user decision: the class of a host write.
    fn user_class(&mut self, write: &UserWrite) -> u16;
    /// The GC decision: the class of a GC write.
    fn gc_class(&mut self, write: &GcWrite) -> u16;
    /// A block was reclaimed (SepBIT learns its lifespan threshold here).
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

            #[inline(always)]
            fn user_class(&mut self, write: &UserWrite) -> u16 {
                match self {
                    $( Self::$variant(s) => s.user_class(write), )*
                }
            }

            #[inline(always)]
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

mod classes;
mod fifo_scan;
#[cfg(test)]
mod java_probe;
mod victim_choice;

// The stream schemes (module comment), built from the plan, not listed.
mod coldmap;
mod internal;
mod separate_gc;
mod shared;

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

#[cfg(test)]
pub(super) mod tests {
    use super::{scheme_names, GcWrite, SchemeSpace, UserWrite};
    use crate::config::PlacementSchemeConfig;
    use crate::flash::Lpn;

    /// A small space, for a scheme's unit tests.
    pub(in crate::ftl::schemes) fn space() -> SchemeSpace {
        SchemeSpace {
            logical_pages: 1024,
            block_pages: 64,
            blocks: 32,
            seed: 1,
        }
    }

    /// A first write of page 7 with stream hint `stream`.
    pub(in crate::ftl::schemes) fn user_write(stream: u16) -> UserWrite {
        UserWrite {
            lpn: Lpn::new(7),
            stream,
            write_index: 0,
            lifespan_pages: None,
            live_pages: 0,
        }
    }

    /// A GC write of page 7 out of a victim of class (stream)
    /// `victim_class`, with `refs` references, `age_pages` old, the mean
    /// single-mapped survival `mean`.
    pub(in crate::ftl::schemes) fn gc_write(
        victim_class: u16,
        refs: u32,
        age_pages: u64,
        mean: f64,
    ) -> GcWrite {
        GcWrite {
            lpn: Lpn::new(7),
            victim_class,
            age_pages,
            now_pages: 1_000_000,
            refs,
            mean_single_survival: mean,
        }
    }

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
