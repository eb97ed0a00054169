//! What a run drives: the SSD alone (static dispatch, the fast path) or a
//! stack of host layers over it. Either way the driver reaches the SSD for
//! sampling, timing and the report.

use crate::error::SimError;
use crate::ftl::{PlainTables, Ssd};
use crate::host::Stack;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Hint, Request};

/// The stage of a synthetic write's read-ahead (see `feed::Synthetic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefetch {
    /// Just drawn: the map entry, and the index slot of its content.
    Drawn,
    /// Halfway: the sharing record its map entry points to.
    Mapped,
    /// Near its turn: the index slot of the content it will kill.
    Dying,
}

/// What a synthetic write's read-ahead fetches from: a target, or the
/// tables of a plain chunk (`Ssd::write_plain_chunk`).
pub trait ReadAhead {
    /// Starts fetching what a write of `content` to `lpn` will touch.
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64);
}

pub trait Target: BlockDevice + ReadAhead {
    fn ssd(&self) -> &Ssd;
    fn ssd_mut(&mut self) -> &mut Ssd;
    fn check_invariants(&self) -> Result<(), SimError>;
    /// The SSD when it may take the generator's single-page writes a
    /// chunk at a time (`run/drive.rs`): only a plain one driven alone.
    /// The caller checks its op log (`Ssd::writes_plain::<LOG>`): on for a
    /// timed phase, off otherwise.
    fn plain_writes(&mut self) -> Option<&mut Ssd> {
        None
    }
}

/// A plain chunk's read-ahead: what [`PlainSsd`]'s fetches.
impl ReadAhead for PlainTables<'_> {
    #[inline(always)]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, _content: u64) {
        match stage {
            Prefetch::Drawn => self.prefetch(lpn),
            Prefetch::Mapped => self.prefetch_mapped(lpn),
            Prefetch::Dying => {}
        }
    }
}

impl Target for Ssd {
    #[inline]
    fn ssd(&self) -> &Ssd {
        self
    }

    #[inline]
    fn ssd_mut(&mut self) -> &mut Ssd {
        self
    }

    fn check_invariants(&self) -> Result<(), SimError> {
        Ssd::check_invariants(self)
    }
}

impl ReadAhead for Ssd {
    #[inline(always)]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64) {
        match stage {
            Prefetch::Drawn => {
                self.prefetch(lpn);
                self.prefetch_content(content);
            }
            Prefetch::Mapped => self.prefetch_mapped(lpn, content),
            Prefetch::Dying => self.prefetch_dying_content(lpn, content),
        }
    }
}

/// A view of the `Ssd` that submits through a write path of its own
/// (`$submit`) and delegates the rest of `BlockDevice` to the `Ssd`: the
/// loop is monomorphized per view, so each gets a copy with only its path.
/// A view with a `bool` const parameter (`PlainSsd<LOG>`) passes it on to
/// its write path.
macro_rules! ssd_view {
    ($view:ident $(<$flag:ident>)?, $submit:ident) => {
        impl<$(const $flag: bool)?> BlockDevice for $view<'_ $(, $flag)?> {
            #[inline(always)]
            fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
                self.0.$submit$(::<$flag>)?(req)
            }

            fn logical_pages(&self) -> u64 {
                BlockDevice::logical_pages(&*self.0)
            }

            fn layer_stats(&self, out: &mut Vec<LayerStats>) {
                self.0.layer_stats(out);
            }

            fn hint(&mut self, hint: Hint) {
                self.0.hint(hint);
            }

            #[inline]
            fn prefetch(&self, lpn: u64) {
                self.0.prefetch(lpn);
            }
        }
    };
}

/// `Target`'s accessors of such a view; each view writes its own
/// `prefetch_write` (what its write path touches).
macro_rules! ssd_view_target {
    () => {
        #[inline]
        fn ssd(&self) -> &Ssd {
            self.0
        }

        #[inline]
        fn ssd_mut(&mut self) -> &mut Ssd {
            self.0
        }

        fn check_invariants(&self) -> Result<(), SimError> {
            self.0.check_invariants()
        }
    };
}

/// The SSD with many-to-one mapping on (dedup, remap, clone), driven
/// alone: the same device, given a driver loop of its own. Its write path
/// goes straight to the shared page write and its lookahead is inlined,
/// while the plain loop keeps none of that code (a loop serving both paid
/// about 60 instructions per dedup request in checks and spilled
/// registers).
pub struct SharedSsd<'a>(&'a mut Ssd);

impl<'a> SharedSsd<'a> {
    /// `None` when the device has no many-to-one mapping.
    pub fn of(ssd: &'a mut Ssd) -> Option<Self> {
        ssd.sharing().is_some().then_some(Self(ssd))
    }
}

ssd_view!(SharedSsd, submit_shared);

impl Target for SharedSsd<'_> {
    ssd_view_target!();
}

impl ReadAhead for SharedSsd<'_> {
    #[inline(always)]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64) {
        match stage {
            Prefetch::Drawn => {
                self.0.prefetch(lpn);
                self.0.prefetch_content(content);
            }
            Prefetch::Mapped => self.0.prefetch_mapped_inline(lpn, content),
            Prefetch::Dying => self.0.prefetch_dying_content_inline(lpn, content),
        }
    }
}

/// The SSD with none of the features that branch off its write path
/// ([`Ssd::writes_plain`]), driven alone: the commonest run (uniform or
/// hot/cold writes). Its loop checks those features once per phase instead
/// of per request and per page (`Ssd::submit_plain`), and its lookahead
/// has no sharing stage. `LOG`: the op log is on (a timed run's measured
/// phase), and the loop logs each flash operation for the timer as the
/// general path does; an untimed run's loop (`false`) has no test of it.
pub struct PlainSsd<'a, const LOG: bool>(&'a mut Ssd);

impl<'a, const LOG: bool> PlainSsd<'a, LOG> {
    /// `None` when some feature of the device needs the general path, or
    /// the op log is not as `LOG` says.
    pub fn of(ssd: &'a mut Ssd) -> Option<Self> {
        ssd.writes_plain::<LOG>().then_some(Self(ssd))
    }
}

ssd_view!(PlainSsd<LOG>, submit_plain);

impl<const LOG: bool> Target for PlainSsd<'_, LOG> {
    ssd_view_target!();

    fn plain_writes(&mut self) -> Option<&mut Ssd> {
        Some(self.0)
    }
}

impl<const LOG: bool> ReadAhead for PlainSsd<'_, LOG> {
    /// No content index and no sharing records: only the map entry, then
    /// the state of the block the write will leave.
    #[inline(always)]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, _content: u64) {
        match stage {
            Prefetch::Drawn => self.0.prefetch(lpn),
            Prefetch::Mapped => self.0.prefetch_mapped_plain(lpn),
            Prefetch::Dying => {}
        }
    }
}

impl Target for Stack {
    fn ssd(&self) -> &Ssd {
        Stack::ssd(self)
    }

    fn ssd_mut(&mut self) -> &mut Ssd {
        Stack::ssd_mut(self)
    }

    fn check_invariants(&self) -> Result<(), SimError> {
        Stack::check_invariants(self)
    }
}

impl ReadAhead for Stack {
    #[inline]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64) {
        if self.transparent() {
            // Addresses reach the SSD unchanged: its own read-ahead applies.
            return ReadAhead::prefetch_write(self.ssd(), stage, lpn, content);
        }
        match stage {
            Prefetch::Drawn => BlockDevice::prefetch(self, lpn),
            Prefetch::Mapped => self.prefetch_mapped(lpn),
            Prefetch::Dying => {}
        }
    }
}
