//! `[[host.layers]] type = "lba-streams"`: a stream per LPN range
//! (the layer: `host/lba_streams.rs`).

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LbaStreamsConfig {
    /// `[start_lpn, end_lpn, stream]`, half-open `[start, end)`, not overlapping.
    pub ranges: Vec<[u64; 3]>,
}

impl LbaStreamsConfig {
    pub fn validate(&self, key: &str, below_pages: u64, streams: u16) -> Result<(), ConfigError> {
        let mut sorted: Vec<(usize, [u64; 3])> = self.ranges.iter().copied().enumerate().collect();
        for &(i, [start, end, stream]) in &sorted {
            let at = format!("{key}.ranges[{i}]");
            if start >= end {
                return Err(ConfigError::new(
                    at,
                    format!("[{start}, {end}) is empty: start must be below end"),
                ));
            }
            if end > below_pages {
                return Err(ConfigError::new(
                    at,
                    format!(
                        "[{start}, {end}) reaches past the logical space of {below_pages} pages"
                    ),
                ));
            }
            if stream >= u64::from(streams) {
                return Err(ConfigError::new(
                    at,
                    format!("stream {stream} is not below ftl.streams = {streams}"),
                ));
            }
        }
        sorted.sort_by_key(|&(_, [start, _, _])| start);
        for pair in sorted.windows(2) {
            let ((i, [_, end, _]), (j, [start, _, _])) = (pair[0], pair[1]);
            if start < end {
                return Err(ConfigError::new(
                    format!("{key}.ranges[{j}]"),
                    format!("overlaps {key}.ranges[{i}]"),
                ));
            }
        }
        Ok(())
    }
}

impl super::LayerKeys for LbaStreamsConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below.pages, below.streams)
    }
}
