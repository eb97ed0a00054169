//! The SSD as a [`BlockDevice`]: one request in, its pages carried out one
//! by one through the page-level operations.

use super::Ssd;
use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Op, Request};

impl BlockDevice for Ssd {
    #[inline]
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        let mut done = Completion::default();
        match req.op {
            Op::Write => {
                // Pages without a fingerprint carry content 0: a source whose
                // device deduplicates supplies fingerprints (the driver does).
                for (i, lpn) in req.lpns().enumerate() {
                    let content = req.fingerprints.get(i).copied().unwrap_or(0);
                    self.write_page(lpn, req.stream, content)?;
                }
            }
            Op::Read => {
                for lpn in req.lpns() {
                    match self.read_page(lpn)? {
                        Some(_) => done.mapped_pages += 1,
                        None => done.unmapped_pages += 1,
                    }
                }
            }
            Op::Trim => {
                for lpn in req.lpns() {
                    self.trim_page(lpn)?;
                }
            }
            Op::Flush => self.flush(),
            Op::Remap => self.remap(req.src_lpn, req.lpn, u64::from(req.pages))?,
            Op::Clone => self.clone_range(req.src_lpn, req.lpn, u64::from(req.pages))?,
        }
        Ok(done)
    }

    fn logical_pages(&self) -> u64 {
        u64::from(self.logical_pages)
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        let c = &self.counters;
        out.push(
            LayerStats {
                name: "ssd".to_string(),
                write_pages_in: c.host_write_pages,
                write_pages_out: c.nand_write_pages,
                read_pages_in: c.host_read_pages,
                // Host reads of mapped pages plus GC and wear-leveling migration reads.
                read_pages_out: c.host_read_pages - c.host_read_unmapped_pages + c.nand_read_pages,
                trim_pages_in: c.host_trim_pages,
                trim_pages_out: 0,
                gc_copy_pages: c.gc_copy_pages + c.wl_copy_pages,
                wa: None,
            }
            .with_wa(),
        );
    }

    #[inline]
    fn prefetch(&self, lpn: u64) {
        Ssd::prefetch(self, lpn);
    }
}
