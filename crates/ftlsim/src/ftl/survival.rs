//! Survival per stream: how long pages lived, by the stream (host or
//! internal) of the block they died in.

use super::Ssd;
use crate::metrics::LogHistogram;

impl Ssd {
    /// Empties the survival histograms as the measured window starts: the
    /// device's and, with sharing, those of single- and multi-reference
    /// pages. Survival per stream counts the whole run.
    pub fn reset_survival(&mut self) {
        if let Some(h) = &mut self.survival {
            *h = LogHistogram::default();
        }
        if let Some(sh) = &mut self.sharing {
            sh.survival_single = LogHistogram::default();
            sh.survival_multi = LogHistogram::default();
        }
    }

    /// A page of `block` died at `age`: count it for the block's stream,
    /// host or internal.
    #[inline(never)]
    pub(super) fn record_stream_survival(&mut self, block: usize, age: u64) {
        let streams = usize::from(self.placement.streams());
        let stream = usize::from(self.blocks.stream[block]).min(streams - 1);
        let i = stream
            + if self.blocks.internal[block] {
                streams
            } else {
                0
            };
        if let Some(hs) = &mut self.stream_survival {
            hs[i].record(age);
        }
    }

    /// Survival of the pages that died in blocks of host stream `stream`
    /// (`internal` false) or of its internal stream; `None` when
    /// per-stream survival is off (one stream and no internal streams, or
    /// survival off).
    pub fn stream_survival(&self, stream: u16, internal: bool) -> Option<&LogHistogram> {
        let hs = self.stream_survival.as_ref()?;
        let streams = usize::from(self.placement.streams());
        hs.get(usize::from(stream) + if internal { streams } else { 0 })
    }
}
