//! What a run drives: the SSD alone (static dispatch, the fast path) or a
//! stack of host layers over it. Either way the driver reaches the SSD for
//! sampling, timing and the report.

use crate::error::SimError;
use crate::ftl::Ssd;
use crate::host::Stack;
use crate::request::BlockDevice;

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

pub trait Target: BlockDevice {
    fn ssd(&self) -> &Ssd;
    fn ssd_mut(&mut self) -> &mut Ssd;
    fn check_invariants(&self) -> Result<(), SimError>;
    /// Starts fetching what a write of `content` to `lpn` will touch.
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64);
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

    #[inline]
    fn prefetch_write(&self, stage: Prefetch, lpn: u64, content: u64) {
        if self.transparent() {
            // Addresses reach the SSD unchanged: its own read-ahead applies.
            return Target::prefetch_write(self.ssd(), stage, lpn, content);
        }
        match stage {
            Prefetch::Drawn => BlockDevice::prefetch(self, lpn),
            Prefetch::Mapped => self.prefetch_mapped(lpn),
            Prefetch::Dying => {}
        }
    }
}
