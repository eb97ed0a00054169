//! The WAF-over-time series: a sample every `window` host page writes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::SimError;
use crate::metrics::{Counters, LayerSeriesRow, LayerStats, Phase, SeriesRow};

use super::target::Target;

pub struct Recorder {
    pub window: u64,
    next_at: u64,
    pub last: Counters,
    pub measure_start: Option<Counters>,
    pub rows: Vec<SeriesRow>,
    /// Per-layer windows, stacks only.
    pub layer_rows: Vec<LayerSeriesRow>,
    last_layers: Vec<LayerStats>,
    pub check: bool,
    cancel: Option<Arc<AtomicBool>>,
}

impl Recorder {
    pub fn new(window: u64, check: bool, cancel: Option<Arc<AtomicBool>>) -> Self {
        Self {
            window,
            next_at: window,
            last: Counters::default(),
            measure_start: None,
            rows: Vec::new(),
            layer_rows: Vec::new(),
            last_layers: Vec::new(),
            check,
            cancel,
        }
    }

    /// Whether the run was asked to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    #[inline]
    pub fn due<D: Target>(&self, dev: &D) -> bool {
        dev.ssd().counters().host_write_pages >= self.next_at
    }

    /// Host pages until a sample is due (0 when one is).
    #[inline]
    pub fn pages_until_due<D: Target>(&self, dev: &D) -> u64 {
        self.next_at
            .saturating_sub(dev.ssd().counters().host_write_pages)
    }

    pub fn sample<D: Target>(&mut self, dev: &D, phase: Phase) -> Result<(), SimError> {
        let ssd = dev.ssd();
        let c = *ssd.counters();
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
        self.sample_layers(dev, phase, c.host_write_pages);
        self.last = c;
        self.next_at = c.host_write_pages + self.window;
        if self.check {
            dev.check_invariants()?;
        }
        Ok(())
    }

    /// Each layer's WA over the window, when there are layers above the device.
    fn sample_layers<D: Target>(&mut self, dev: &D, phase: Phase, host_write_pages: u64) {
        let mut now = Vec::new();
        dev.layer_stats(&mut now);
        if now.len() < 2 {
            return;
        }
        for (layer, stats) in now.iter().enumerate() {
            let window = match self.last_layers.get(layer) {
                Some(before) => stats.since(before),
                None => stats.clone().with_wa(),
            };
            self.layer_rows.push(LayerSeriesRow {
                phase,
                host_write_pages,
                layer,
                name: stats.name.clone(),
                window_write_pages_in: window.write_pages_in,
                window_write_pages_out: window.write_pages_out,
                window_wa: window.wa,
            });
        }
        self.last_layers = now;
    }
}
