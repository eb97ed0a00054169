//! The SSD as a [`BlockDevice`]: one request in, its pages carried out one
//! by one through the page-level operations.

use super::Ssd;
use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Hint, Op, Request};

impl Ssd {
    /// The write path, apart so that it inlines into the driver's loop
    /// while the rarer operations stay out of line. `SHARED`: many-to-one
    /// mapping is on (the caller checked), so each page goes straight to
    /// the shared write path (see [`Ssd::submit_shared`]).
    #[inline(always)]
    fn submit_write<const SHARED: bool>(&mut self, req: &Request) -> Result<Completion, SimError> {
        // Pages without a fingerprint carry content 0: a source whose device
        // deduplicates supplies fingerprints (the driver does). Per-stream
        // pages are counted per request, off the page path.
        if self.zones.is_some() {
            return self.submit_zoned_write(req);
        }
        // Under FDP an invalid placement id becomes handle 0 here, once per request.
        let stream = self.resolve_stream(req.stream)?;
        if let Some(c) = self.placement.classes_mut() {
            c.request(
                req.lpn,
                req.pages,
                req.arrival_ns,
                self.now_pages,
                self.logical_pages,
            );
        }
        // Without content keying a request carries no fingerprints: that
        // loop looks up none.
        let written = if req.fingerprints.is_empty() {
            self.write_pages_of_stream::<SHARED>(req.lpn, req.pages, stream, std::iter::repeat(0))
        } else {
            let contents = req.fingerprints.iter().copied().chain(std::iter::repeat(0));
            self.write_pages_of_stream::<SHARED>(req.lpn, req.pages, stream, contents)
        };
        let stream_pages = &mut self.stream_counters[usize::from(stream)].host_write_pages;
        match written {
            Ok(()) => {
                *stream_pages += u64::from(req.pages);
                if self.log.is_some() {
                    self.log_collect()?;
                }
                Ok(Completion::default())
            }
            Err((done, e)) => {
                *stream_pages += u64::from(done);
                Err(e)
            }
        }
    }

    /// Writes `pages` pages from `lpn` on, with contents from `contents`;
    /// on an error, how many were written before it.
    #[inline(always)]
    fn write_pages_of_stream<const SHARED: bool>(
        &mut self,
        lpn: u64,
        pages: u32,
        stream: u16,
        mut contents: impl Iterator<Item = u64>,
    ) -> Result<(), (u32, SimError)> {
        for i in 0..pages {
            let content = contents.next().unwrap_or(0);
            let lpn = lpn + u64::from(i);
            // A match, not `and_then`: the closure would be a function of
            // its own for the inliner to leave out of line.
            let written = if SHARED {
                match self.check_lpn(lpn) {
                    Ok(lpn) => self.write_page_shared(lpn, stream, content),
                    Err(e) => Err(e),
                }
            } else {
                self.write_page_of_stream(lpn, stream, content)
            };
            written.map_err(|e| (i, e))?;
        }
        Ok(())
    }

    /// [`BlockDevice::submit`] for a device with many-to-one mapping on
    /// (dedup, remap, clone): the driver runs such a device through a loop
    /// of its own ([`crate::run::target::SharedSsd`]), whose write path
    /// goes straight to the shared page write, so neither loop carries the
    /// other's code.
    #[inline(always)]
    pub(crate) fn submit_shared(&mut self, req: &Request) -> Result<Completion, SimError> {
        debug_assert!(self.sharing.is_some(), "submit_shared without sharing");
        if req.op == Op::Write {
            self.submit_write::<true>(req)
        } else {
            self.submit_other(req)
        }
    }

    /// Whether every host write takes the plain path, with none of the
    /// features that branch off it: no zones, sharing, power-loss tracking,
    /// DFTL cache, placement scheme, log regime, content kept, per-stream
    /// survival or reclaim groups; and the op log on exactly when `LOG`
    /// (a timed run's measured phase: the plain path then logs the same
    /// operations as the general one). Such a device (an untimed uniform
    /// or hot/cold run, say, or a timed one's measured phase) is driven through
    /// [`crate::run::target::PlainSsd`]. Asked once per phase: none of
    /// these changes within one (the op log is attached before the
    /// measured phase starts).
    pub(crate) fn writes_plain<const LOG: bool>(&self) -> bool {
        self.zones.is_none()
            && self.sharing.is_none()
            && self.durability.is_none()
            && self.cmt.is_none()
            && !self.placement.is_classified()
            && self.log.is_none()
            && self.content.is_none()
            && self.ops.is_some() == LOG
            && self.stream_survival.is_none()
            && self.group_victims.is_empty()
    }

    /// [`BlockDevice::submit`] for a device that [`Ssd::writes_plain`]:
    /// the per-request tests of `submit_write` (zones, classes,
    /// fingerprints, the log regime) and the per-page ones of
    /// `write_page_of_stream` are known false and left out. A request's
    /// fingerprints change nothing here: no content is kept. Same effects,
    /// in the same order, as `submit_write::<false>`; with `LOG`, the same
    /// operations logged in the same order too (a host page's program after
    /// whatever GC its allocation ran, as `program_host_page` logs it).
    #[inline(always)]
    pub(crate) fn submit_plain<const LOG: bool>(
        &mut self,
        req: &Request,
    ) -> Result<Completion, SimError> {
        debug_assert!(
            self.writes_plain::<LOG>(),
            "submit_plain on a device with features"
        );
        if req.op != Op::Write {
            return self.submit_other(req);
        }
        let stream = self.resolve_stream(req.stream)?;
        let mut written = 0u32;
        let result = loop {
            if written == req.pages {
                break Ok(());
            }
            // A match, not `and_then`, as in `write_pages_of_stream`.
            let page = match self.check_lpn(req.lpn + u64::from(written)) {
                Ok(lpn) => self.write_page_mapped::<true, LOG>(lpn, stream, 0),
                Err(e) => Err(e),
            };
            if let Err(e) = page {
                break Err(e);
            }
            written += 1;
        };
        self.stream_counters[usize::from(stream)].host_write_pages += u64::from(written);
        result.map(|()| Completion::default())
    }

    #[inline(never)]
    fn submit_other(&mut self, req: &Request) -> Result<Completion, SimError> {
        let mut done = Completion::default();
        match req.op {
            Op::Write => return self.submit_write::<false>(req),
            Op::Read => {
                for lpn in req.lpns() {
                    match self.read_page(lpn)? {
                        Some(_) => done.mapped_pages += 1,
                        None => done.unmapped_pages += 1,
                    }
                }
            }
            Op::Trim if self.zones.is_some() => return self.submit_zoned_trim(req),
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
}

impl BlockDevice for Ssd {
    #[inline(always)]
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        if req.op == Op::Write {
            self.submit_write::<false>(req)
        } else {
            self.submit_other(req)
        }
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
                gc_count: c.gc_count + c.wl_count,
                metadata_pages: 0,
                wa: None,
                assigner: None,
            }
            .with_wa(),
        );
    }

    #[inline]
    fn prefetch(&self, lpn: u64) {
        Ssd::prefetch(self, lpn);
    }

    fn hint(&mut self, hint: Hint) {
        match hint {
            Hint::UpperGcStarted => self.defer_gc(true),
            Hint::UpperGcEnded => self.defer_gc(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ftl::test_support::{lcg, small_config};
    use crate::ftl::{FlashOp, Ssd, SsdOptions};
    use crate::request::{BlockDevice, Op, Request};

    /// The plain path with the op log on (`submit_plain::<true>`, a timed
    /// run's measured phase) logs the same operations, in the same order,
    /// as the general path, request by request, and leaves the same
    /// counters: the timer replays the log, so any difference would change
    /// timing results. Random overwrites of 1 to 4 pages with reads among
    /// them, through enough GC to close, collect and reopen blocks.
    #[test]
    fn logged_plain_path_logs_as_the_general_one() {
        let mut cfg = small_config(64, 32, 0.2);
        cfg.metrics.survival = true;
        let [mut general, mut plain] =
            [(); 2].map(|()| Ssd::new(&cfg, &SsdOptions::default()).expect("plans"));
        general.enable_op_log();
        plain.enable_op_log();
        assert!(plain.writes_plain::<true>() && !plain.writes_plain::<false>());
        let logical = u64::from(plain.logical_pages());
        let (mut x, mut req) = (7u64, Request::default());
        let mut general_ops: Vec<FlashOp> = Vec::new();
        for i in 0..12 * logical {
            lcg(&mut x);
            let pages = 1 + (x >> 60) as u32 % 4;
            let lpn = (x >> 33) % (logical - u64::from(pages) + 1);
            let op = if i % 7 == 3 { Op::Read } else { Op::Write };
            req.set(op, lpn, pages);
            general.submit(&req).expect("writes");
            plain.submit_plain::<true>(&req).expect("writes");
            general.take_ops(&mut general_ops);
            assert_eq!(plain.logged(), &general_ops[..], "request {i}");
            plain.clear_ops();
        }
        assert!(plain.counters().gc_count > logical / 32, "GC ran");
        assert_eq!(plain.counters(), general.counters());
        plain.check_invariants().expect("invariants hold");
    }
}
