//! `lba-streams`: manual streams by address. Writes to an LPN range go to
//! the range's stream, the rest to stream 0 — the "manual streams"
//! baseline of the multi-stream literature, where an administrator maps
//! known hot regions (a log, a table) to their own stream.

use super::layer::{pass_down, HostLayer};
pub use crate::config::host::lba_streams::LbaStreamsConfig;
use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Op, Request};

/// The layer: a sorted, non-overlapping list of ranges.
pub struct LbaStreams {
    /// `(start, end, stream)`, sorted by start.
    ranges: Vec<(u64, u64, u16)>,
    stats: LayerStats,
    /// The request passed down, reused.
    scratch: Request,
}

impl LbaStreams {
    pub fn new(config: &LbaStreamsConfig) -> Self {
        let mut ranges: Vec<(u64, u64, u16)> = config
            .ranges
            .iter()
            .map(|&[s, e, stream]| (s, e, stream as u16))
            .collect();
        ranges.sort_unstable();
        Self {
            ranges,
            stats: LayerStats {
                name: "lba-streams".to_string(),
                ..LayerStats::default()
            },
            scratch: Request::default(),
        }
    }

    /// The stream of `lpn` and the end of the run of pages that share it.
    fn stream_at(&self, lpn: u64) -> (u16, u64) {
        // The first range that ends after lpn.
        let i = self.ranges.partition_point(|&(_, end, _)| end <= lpn);
        match self.ranges.get(i) {
            Some(&(start, end, stream)) if start <= lpn => (stream, end),
            Some(&(start, _, _)) => (0, start),
            None => (0, u64::MAX),
        }
    }
}

impl HostLayer for LbaStreams {
    fn keeps_addresses(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "lba-streams"
    }

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError> {
        if req.op != Op::Write {
            // Everything but writes passes unchanged (the stream applies to writes only).
            return pass_down(&mut self.stats, &mut self.scratch, req, 0, below);
        }
        let pages = u64::from(req.pages);
        self.stats.write_pages_in += pages;
        // A write may cross range boundaries: one request per run of pages
        // that share a stream.
        let mut done = Completion::default();
        let mut lpn = req.lpn;
        let end = req.lpn + pages;
        while lpn < end {
            let (stream, run_end) = self.stream_at(lpn);
            let run_end = run_end.min(end);
            let n = (run_end - lpn) as u32;
            self.scratch.copy_part_from(req, (lpn - req.lpn) as u32, n);
            self.scratch.stream = stream;
            below.submit(&self.scratch)?;
            self.stats.write_pages_out += u64::from(n);
            done.mapped_pages += n;
            lpn = run_end;
        }
        Ok(done)
    }

    fn stats(&self) -> LayerStats {
        self.stats.clone().with_wa()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_lookup_covers_gaps_and_ends() {
        let layer = LbaStreams::new(&LbaStreamsConfig {
            ranges: vec![[100, 200, 2], [10, 20, 1]],
        });
        assert_eq!(layer.stream_at(0), (0, 10));
        assert_eq!(layer.stream_at(10), (1, 20));
        assert_eq!(layer.stream_at(19), (1, 20));
        assert_eq!(layer.stream_at(20), (0, 100));
        assert_eq!(layer.stream_at(150), (2, 200));
        assert_eq!(layer.stream_at(200), (0, u64::MAX));
    }

    #[test]
    fn validation_names_the_range() {
        let c = |ranges| LbaStreamsConfig { ranges };
        let e = c(vec![[0, 10, 1], [5, 20, 1]])
            .validate("host.layers[0]", 100, 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("host.layers[0].ranges[1]") && e.contains("overlaps"),
            "{e}"
        );
        let e = c(vec![[0, 200, 1]])
            .validate("host.layers[0]", 100, 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ranges[0]") && e.contains("100 pages"), "{e}");
        let e = c(vec![[0, 10, 2]])
            .validate("host.layers[0]", 100, 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ftl.streams = 2"), "{e}");
    }
}
