//! The WAF-over-time series: a sample every `window` host page writes.

use crate::error::SimError;
use crate::metrics::{Counters, Phase, SeriesRow};

use super::target::Target;

pub struct Recorder {
    pub window: u64,
    next_at: u64,
    pub last: Counters,
    pub measure_start: Option<Counters>,
    pub rows: Vec<SeriesRow>,
    pub check: bool,
}

impl Recorder {
    pub fn new(window: u64, check: bool) -> Self {
        Self {
            window,
            next_at: window,
            last: Counters::default(),
            measure_start: None,
            rows: Vec::new(),
            check,
        }
    }

    #[inline]
    pub fn due<D: Target>(&self, dev: &D) -> bool {
        dev.ssd().counters.host_write_pages >= self.next_at
    }

    pub fn sample<D: Target>(&mut self, dev: &D, phase: Phase) -> Result<(), SimError> {
        let ssd = dev.ssd();
        let c = ssd.counters;
        let window = c.since(&self.last);
        let measured_waf = self
            .measure_start
            .map_or(0.0, |start| c.since(&start).waf());
        self.rows.push(SeriesRow {
            phase,
            host_write_pages: c.host_write_pages,
            nand_write_pages: c.nand_write_pages,
            gc_copy_pages: c.gc_copy_pages,
            erase_count: c.erase_count,
            window_waf: window.waf(),
            measured_waf,
            free_blocks: ssd.free_blocks(),
        });
        self.last = c;
        self.next_at = c.host_write_pages + self.window;
        if self.check {
            dev.check_invariants()?;
        }
        Ok(())
    }
}
