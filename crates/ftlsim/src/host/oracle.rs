//! The oracle assigner: knows when every page it writes will die, and puts
//! pages of similar remaining lifetime on the same stream. The bound the
//! learned assigners approach.
//!
//! The future comes from a pre-pass: the run (`run/mod.rs`) first runs the
//! same config with the stack recording the address of every page written
//! and trimmed as it enters the top ([`Record`], `Stack::start_recording`),
//! then turns the record into each page write's remaining lifetime (page
//! writes until the next write or trim of its address,
//! [`remaining_lifetimes`]), with which the real run's stack builds this
//! layer. The layer counts the pages written through it to know which
//! write is which, so it must be the top layer and the workload must
//! replay identically (synthetic generators and application models do; a
//! trace is read twice, `Simulation::with_source_foreseen`).
//!
//! Classes are log-spaced around the logical space N: with S streams, a page
//! that lives L page writes goes to stream ⌊log_r(L / N) + S/2⌋ (clamped to
//! 0..S), r = `class_ratio` (default 4); one that never dies goes to the last
//! stream. With two streams: shorter than N → stream 0, longer → stream 1.
//!
//! Memory: 4 bytes per page written over the whole run (the remaining
//! lifetimes), plus, in the pre-pass, 8 bytes per page written or trimmed
//! (the record) and 8 bytes per logical page (the next death of each).

use super::layer::{pass_down, HostLayer};
use super::LowerSpace;
pub use crate::config::host::oracle::OracleConfig;
use crate::error::SimError;
pub use crate::future::{Lifetimes, NEVER};
use crate::metrics::{AssignerStats, LayerStats};
use crate::request::{BlockDevice, Completion, Op, Request};

/// A trim in the pre-pass record (the rest of the word is its page).
const TRIM: u64 = 1 << 63;

/// The pre-pass's record: every page written or trimmed at the top of the
/// stack, in order (8 bytes each).
#[derive(Debug, Default)]
pub struct Record(Vec<u64>);

impl Record {
    /// Notes the pages `req` writes or trims.
    pub fn note(&mut self, req: &Request) {
        match req.op {
            Op::Write => self.0.extend(req.lpns()),
            Op::Trim => self.0.extend(req.lpns().map(|lpn| lpn | TRIM)),
            _ => {}
        }
    }

    pub fn as_slice(&self) -> &[u64] {
        &self.0
    }
}

/// The remaining lifetime of each page write of `record` (in page writes,
/// saturating at `NEVER - 1`; `NEVER` if the page is not overwritten or
/// trimmed later). `pages`: the logical space.
pub fn remaining_lifetimes(record: &[u64], pages: u64) -> Vec<u32> {
    let writes = record.iter().filter(|&&e| e & TRIM == 0).count();
    let mut out = vec![NEVER; writes];
    let mut next_death = vec![u64::MAX; pages as usize];
    // Backwards: each write's next death is the next event on its page.
    let mut w = writes as u64;
    for &e in record.iter().rev() {
        let lpn = (e & !TRIM) as usize;
        if e & TRIM != 0 {
            // A trim after write w - 1 ends the page at time w.
            next_death[lpn] = w;
        } else {
            w -= 1;
            if next_death[lpn] != u64::MAX {
                out[w as usize] = (next_death[lpn] - w).min(u64::from(NEVER - 1)) as u32;
            }
            next_death[lpn] = w;
        }
    }
    out
}

/// The layer: in the pre-pass (no future yet) it passes every request
/// down as it came.
pub struct Oracle {
    logical_pages: f64,
    streams: u16,
    log_ratio: f64,
    future: Option<Lifetimes>,
    /// Pages written through the layer: the index into `future`.
    written: u64,
    stats: LayerStats,
    assigner: AssignerStats,
    scratch: Request,
}

impl Oracle {
    /// The layer over `below`; `future`: the pre-pass's lifetimes (`None`
    /// in the pre-pass itself).
    pub fn new(config: &OracleConfig, below: &LowerSpace, future: Option<&Lifetimes>) -> Self {
        let logical_pages = below.pages.max(1) as f64;
        let state_bytes = future.map_or(0, |f| (f.len() * 4) as u64);
        Self {
            logical_pages,
            streams: below.streams.max(1),
            log_ratio: config.class_ratio.ln(),
            future: future.cloned(),
            written: 0,
            stats: LayerStats {
                name: "oracle".to_string(),
                ..LayerStats::default()
            },
            assigner: AssignerStats {
                state_bytes,
                state_bytes_per_logical_page: state_bytes as f64 / logical_pages,
                ..AssignerStats::default()
            },
            scratch: Request::default(),
        }
    }

    /// The stream of a page that dies `lifetime` page writes from now.
    fn class(&self, lifetime: u32) -> u16 {
        let last = self.streams - 1;
        if lifetime == NEVER {
            return last;
        }
        let x = (f64::from(lifetime.max(1)) / self.logical_pages).ln() / self.log_ratio
            + f64::from(self.streams) / 2.0;
        (x.floor().max(0.0) as u64).min(u64::from(last)) as u16
    }

    fn lifetime_of(&self, write: u64) -> u32 {
        self.future
            .as_ref()
            .and_then(|f| f.get(write as usize).copied())
            .unwrap_or(NEVER)
    }
}

impl HostLayer for Oracle {
    fn keeps_addresses(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "oracle"
    }

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError> {
        let foreseeing = self.future.is_some();
        match req.op {
            Op::Write if foreseeing => {
                // One request below per run of pages of the same class.
                let pages = u64::from(req.pages);
                self.stats.write_pages_in += pages;
                let mut done = Completion::default();
                let mut first = 0u64;
                while first < pages {
                    let stream = self.class(self.lifetime_of(self.written + first));
                    let mut end = first + 1;
                    while end < pages && self.class(self.lifetime_of(self.written + end)) == stream
                    {
                        end += 1;
                    }
                    let n = (end - first) as u32;
                    self.scratch.copy_part_from(req, first as u32, n);
                    self.scratch.stream = stream;
                    below.submit(&self.scratch)?;
                    self.stats.write_pages_out += u64::from(n);
                    if stream == 0 {
                        self.assigner.stream0_write_pages += u64::from(n);
                    }
                    done.mapped_pages += n;
                    first = end;
                }
                self.written += pages;
                Ok(done)
            }
            _ => pass_down(&mut self.stats, &mut self.scratch, req, 0, below),
        }
    }

    fn stats(&self) -> LayerStats {
        LayerStats {
            assigner: Some(self.assigner),
            ..self.stats.clone()
        }
        .with_wa()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_count_page_writes_to_the_next_write_or_trim() {
        // Writes: 0 1 0 (trim 1) 2 0
        let record = [0, 1, 0, 1 | TRIM, 2, 0];
        assert_eq!(remaining_lifetimes(&record, 3), [2, 2, 2, NEVER, NEVER]);
    }

    #[test]
    fn classes_are_log_spaced_around_the_logical_space() {
        let space = |streams| LowerSpace {
            pages: 1000,
            streams,
            page_bytes: 4096,
            zone_pages: None,
            max_open_zones: 0,
            seed: 1,
        };
        let two = Oracle::new(&OracleConfig::default(), &space(2), None);
        assert_eq!(
            [1, 999, 1000, 50_000, NEVER].map(|l| two.class(l)),
            [0, 0, 1, 1, 1]
        );
        let four = Oracle::new(&OracleConfig::default(), &space(4), None);
        // Bounds at N/4, N, 4N.
        assert_eq!(
            [100, 300, 1000, 3999, 4000, NEVER].map(|l| four.class(l)),
            [0, 1, 2, 2, 3, 3]
        );
    }
}
