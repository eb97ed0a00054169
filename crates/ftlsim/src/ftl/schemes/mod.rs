//! Placement schemes (`[ftl.placement_scheme]`, docs/placement.md): each
//! makes the two decisions of data placement — the class of a user write
//! and the class of a GC write — and may learn when a segment (here a
//! block) is reclaimed. A class is a frontier: the FTL opens a block per
//! class and carries the choice out. A scheme is a file here, a line in
//! `placement_schemes!` below and a variant of `PlacementSchemeConfig`
//! with its keys.
//!
//! Time is logical, in host page writes (the `Ssd`'s `now_pages`), as in
//! SepBIT's simulator, whose clock counts user block writes.

use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;
use crate::future::Lifetimes;

/// The space a scheme works over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SchemeSpace {
    pub logical_pages: u32,
    /// Pages per block: a segment, in SepBIT's terms.
    pub block_pages: u32,
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

/// A block reclaimed by GC, before its valid pages are copied.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reclaimed {
    pub class: u16,
    /// Host page writes from the block's opening to its reclaim.
    pub lifespan_pages: u64,
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

placement_schemes! {
    Nosep(nosep::Nosep),
    Sepgc(sepgc::Sepgc),
    Dac(dac::Dac),
    Sepbit(sepbit::Sepbit),
    Fk(fk::Fk),
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
}

impl Classes {
    pub(crate) fn new(config: &PlacementSchemeConfig, blocks: u32, space: SchemeSpace) -> Self {
        Self {
            scheme: SchemeState::new(config, space),
            classes: config.classes(),
            block_class: vec![0; blocks as usize],
            block_opened_at: vec![0; blocks as usize],
            live_pages: 0,
            victim_class: 0,
        }
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

    /// A page stopped holding data (a trim).
    pub(crate) fn trimmed(&mut self) {
        self.live_pages -= 1;
    }

    /// `block` opened for `class` at `now_pages`.
    pub(crate) fn opened(&mut self, block: u32, class: u16, now_pages: u64) {
        self.block_class[block as usize] = class;
        self.block_opened_at[block as usize] = now_pages;
    }

    /// `victim` is about to be reclaimed (`gc`: by GC, not wear leveling,
    /// which the scheme does not learn from): its copies take classes next.
    pub(crate) fn reclaiming(&mut self, victim: u32, now_pages: u64, gc: bool) {
        let v = victim as usize;
        self.victim_class = self.block_class[v];
        if gc {
            self.scheme.reclaimed(&Reclaimed {
                class: self.victim_class,
                lifespan_pages: now_pages - self.block_opened_at[v],
            });
        }
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
        self.block_class.len() * (2 + 8)
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
