//! The op log: the flash operations the timing model places on LUNs and
//! channels, recorded only while it is on.

use super::Ssd;
use crate::flash::Ppn;

/// A flash operation, as the timing model sees it. Recorded only when the op
/// log is on, so WAF-only studies pay nothing for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashOp {
    /// A page read: a host read (`gc` false) or a GC / wear-leveling migration read.
    Read {
        ppn: Ppn,
        gc: bool,
    },
    /// A page program: host data (`gc` false) or a migrated page.
    Program {
        ppn: Ppn,
        gc: bool,
    },
    Erase {
        block: u32,
    },
    /// A translation page read (DFTL mapping cache): the request's later
    /// operations need the mapping it holds, so they wait for it.
    MapRead {
        ppn: Ppn,
    },
}

impl Ssd {
    /// Starts recording flash operations (for the timing model).
    pub fn enable_op_log(&mut self) {
        self.ops.get_or_insert_with(Vec::new);
    }

    /// Operations recorded since the last [`Ssd::take_ops`].
    #[inline]
    pub fn logged_ops(&self) -> usize {
        self.ops.as_ref().map_or(0, Vec::len)
    }

    /// [`Ssd::logged_ops`] as where a request's operations end, the
    /// boundary a timer's batch records (a batch holds fewer than
    /// `u32::MAX` operations).
    #[inline]
    pub(crate) fn logged_ops_end(&self) -> u32 {
        u32::try_from(self.logged_ops()).expect("a batch's operations fit in u32")
    }

    /// The operations recorded since the log was last taken or cleared,
    /// read in place (the timer on the loop's thread schedules them
    /// straight from here: no vector changes hands per request).
    #[inline]
    pub fn logged(&self) -> &[FlashOp] {
        self.ops.as_deref().unwrap_or(&[])
    }

    /// Forgets the operations recorded (after [`Ssd::logged`] was read).
    #[inline]
    pub fn clear_ops(&mut self) {
        if let Some(ops) = &mut self.ops {
            ops.clear();
        }
    }

    /// Moves the operations recorded since the last call into `out` (cleared first).
    pub fn take_ops(&mut self, out: &mut Vec<FlashOp>) {
        out.clear();
        if let Some(ops) = &mut self.ops {
            std::mem::swap(ops, out);
        }
    }

    #[inline]
    pub(super) fn log(&mut self, op: FlashOp) {
        if let Some(ops) = &mut self.ops {
            ops.push(op);
        }
    }
}
