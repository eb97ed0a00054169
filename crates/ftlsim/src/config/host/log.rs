//! `[[host.layers]] type = "log"`: a log layer's segments, append streams,
//! cleaning and metadata, and where its pages lie in the space below (the
//! layer: `host/log.rs`).

use serde::{Deserialize, Serialize};

use super::LowerSpace;
use crate::config::GcPolicyName;
use crate::error::ConfigError;

/// No page or segment (the layer's tables use the all-ones value).
const NONE: u32 = u32::MAX;

/// The most append streams a layer may have (F2FS's six logs).
pub const MAX_APPEND_STREAMS: u8 = 6;

/// How user writes are spread over the append streams.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Separation {
    /// No temperature: requests go to the streams in turn (concurrent
    /// writers appending to their own logs).
    #[default]
    None,
    /// Hot and cold by the page's update interval (or a stream tag of 1/2).
    HotCold,
    /// F2FS's six classes: hot/warm/cold × node/data. A request's stream tag
    /// 1..=6 names the class (hot, warm, cold node; hot, warm, cold data);
    /// untagged writes are data, their temperature from the update interval.
    F2fs,
}

/// Whether the layer tells the layer below when it cleans.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Coordination {
    #[default]
    None,
    /// Hint the layer below (`UpperGcStarted`/`Ended`) so that it postpones
    /// its own GC down to its hard watermark while this layer cleans.
    DeferLower,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// The layer's logical pages / the pages of the layer below, in (0, 1).
    pub capacity_ratio: f64,
    /// Pages per segment (the unit of allocation and cleaning).
    pub segment_pages: u32,
    /// The segment size in bytes instead (a multiple of the page below);
    /// overrides `segment_pages`.
    pub segment_bytes: Option<u64>,
    /// Open segments appended to at once, 1..=6.
    pub append_streams: u8,
    pub separation: Separation,
    pub gc_policy: GcPolicyName,
    /// d of d-choices.
    pub gc_choices: u32,
    /// Cleaning starts when a stream needs a segment and at most this many are free.
    pub free_segments_low: u32,
    /// Cleaning goes on until more than this many segments are free.
    pub free_segments_high: u32,
    /// Send trims below: of each cleaned segment, and of trims received.
    pub trim: bool,
    /// Write segment summaries, checkpoints and the mapping (see the module doc).
    pub metadata: bool,
    /// With `metadata`: a checkpoint every this many pages written from above.
    pub checkpoint_pages: u64,
    pub coordination: Coordination,
    /// Append stream `i` writes on device stream `i` (else stream 0).
    pub lower_streams: bool,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            capacity_ratio: 0.9,
            segment_pages: 512,
            segment_bytes: None,
            append_streams: 1,
            separation: Separation::None,
            gc_policy: GcPolicyName::Greedy,
            gc_choices: 8,
            free_segments_low: 0,
            free_segments_high: 0,
            trim: true,
            metadata: false,
            checkpoint_pages: 16_384,
            coordination: Coordination::None,
            lower_streams: false,
        }
    }
}

/// Where the layer's pages lie in the space below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub segments: u32,
    pub segment_pages: u32,
    /// Logical pages offered above.
    pub user_pages: u64,
    /// Internal mapping pages (`metadata`), logical pages `user_pages..`.
    pub node_pages: u64,
    /// First page of the in-place metadata area below.
    pub meta_start: u64,
    /// Pages of one checkpoint pack.
    pub pack_pages: u64,
    /// Mapping entries per mapping page.
    pub entries_per_node: u64,
}

impl LogConfig {
    pub fn logical_pages(&self, below_pages: u64) -> u64 {
        (below_pages as f64 * self.capacity_ratio).floor() as u64
    }

    /// Pages per segment, from `segment_bytes` when given.
    fn segment_pages(&self, page_bytes: u32) -> u64 {
        self.segment_bytes
            .map_or(u64::from(self.segment_pages), |b| {
                b / u64::from(page_bytes.max(1))
            })
    }

    pub fn layout(&self, below: &LowerSpace) -> Layout {
        let user_pages = self.logical_pages(below.pages);
        let seg = self
            .segment_pages(below.page_bytes)
            .clamp(1, u64::from(u32::MAX));
        let entries_per_node = u64::from(below.page_bytes / 4).max(1);
        let (node_pages, pack_pages, meta) = if self.metadata {
            let nodes = user_pages.div_ceil(entries_per_node);
            let pack = 1 + u64::from(self.append_streams);
            // Two checkpoint packs, then one summary page per segment.
            let segments_guess = below.pages / seg;
            (nodes, pack, 2 * pack + segments_guess)
        } else {
            (0, 0, 0)
        };
        let segments = (below.pages.saturating_sub(meta) / seg).min(u64::from(NONE - 1)) as u32;
        Layout {
            segments,
            segment_pages: seg as u32,
            user_pages,
            node_pages,
            meta_start: u64::from(segments) * seg,
            pack_pages,
            entries_per_node,
        }
    }

    /// Checks the keys against the space below.
    pub fn validate(&self, key: &str, below: &LowerSpace) -> Result<(), ConfigError> {
        let at = |k: &str| format!("{key}.{k}");
        if !(self.capacity_ratio > 0.0 && self.capacity_ratio < 1.0) {
            return Err(ConfigError::new(
                at("capacity_ratio"),
                format!(
                    "{} is outside (0, 1): the layer's logical pages must be a fraction of the pages below",
                    self.capacity_ratio
                ),
            ));
        }
        if let Some(bytes) = self.segment_bytes {
            let page = u64::from(below.page_bytes);
            if bytes == 0 || bytes % page != 0 {
                return Err(ConfigError::new(
                    at("segment_bytes"),
                    format!("{bytes} is not a positive multiple of the page below ({page} bytes)"),
                ));
            }
        }
        let seg = self.segment_pages(below.page_bytes);
        if seg == 0 || seg >= u64::from(NONE) {
            return Err(ConfigError::new(
                at("segment_pages"),
                format!("{seg} is outside 1..2^32 pages"),
            ));
        }
        if !(1..=MAX_APPEND_STREAMS).contains(&self.append_streams) {
            return Err(ConfigError::new(
                at("append_streams"),
                format!(
                    "{} is outside 1..={MAX_APPEND_STREAMS}",
                    self.append_streams
                ),
            ));
        }
        self.gc_policy
            .check_choices(self.gc_choices, &at("gc_choices"))?;
        if self.free_segments_high < self.free_segments_low {
            return Err(ConfigError::new(
                at("free_segments_high"),
                format!(
                    "{} is below free_segments_low = {}",
                    self.free_segments_high, self.free_segments_low
                ),
            ));
        }
        if self.metadata && self.checkpoint_pages == 0 {
            return Err(ConfigError::new(
                at("checkpoint_pages"),
                "must be at least 1 page when metadata = true",
            ));
        }
        if self.lower_streams && u16::from(self.append_streams) > below.streams {
            return Err(ConfigError::new(
                at("lower_streams"),
                format!(
                    "{} append streams need as many device streams, but ftl.streams = {}",
                    self.append_streams, below.streams
                ),
            ));
        }
        if let Some(zone) = below.zone_pages {
            if seg != zone {
                return Err(ConfigError::new(
                    at("segment_pages"),
                    format!(
                        "{seg} pages is not the zone size of the zoned device below ({zone} pages): on zones a segment is a zone"
                    ),
                ));
            }
            if self.metadata {
                return Err(ConfigError::new(
                    at("metadata"),
                    "in-place metadata cannot live on a zoned device (zones are written sequentially)",
                ));
            }
            if u32::from(self.append_streams) > below.max_open_zones {
                return Err(ConfigError::new(
                    at("append_streams"),
                    format!(
                        "{} append streams need as many open zones, but device.max_open_zones = {}",
                        self.append_streams, below.max_open_zones
                    ),
                ));
            }
        }
        let l = self.layout(below);
        let seg = u64::from(l.segment_pages);
        // Each append stream holds an open segment, the high watermark's
        // segments stay free, and one more segment lets cleaning progress.
        let reserve = u64::from(self.append_streams) + u64::from(self.free_segments_high) + 1;
        let needed = (l.user_pages + l.node_pages).div_ceil(seg) + reserve;
        if u64::from(l.segments) < needed {
            return Err(ConfigError::new(
                at("capacity_ratio"),
                format!(
                    "{} of {} pages leaves {} segments of {} pages for {} logical pages; the layer needs at least {needed} (its pages, an open segment per append stream, the free-segment watermark and one to clean into)",
                    self.capacity_ratio,
                    below.pages,
                    l.segments,
                    l.segment_pages,
                    l.user_pages + l.node_pages
                ),
            ));
        }
        if l.user_pages + l.node_pages >= u64::from(NONE) || below.pages >= u64::from(NONE) {
            return Err(ConfigError::new(
                at("capacity_ratio"),
                "the layer maps at most 2^32 - 1 pages",
            ));
        }
        Ok(())
    }
}

impl super::LayerKeys for LogConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below)
    }

    fn pages_above(&self, below_pages: u64) -> u64 {
        self.logical_pages(below_pages)
    }
}
