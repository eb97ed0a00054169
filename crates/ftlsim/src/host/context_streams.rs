//! Stream assignment by program context: every write goes to the stream
//! its request's context tag maps to. Two of PCStream's baselines:
//!
//! * `manual` (ManualStream): a static map from context tag to stream, as a
//!   developer who knows the application writes it (`map = [[context,
//!   stream], …]`, `default_stream` for the rest).
//! * `write-hint`: Linux write-lifetime hints carried in the context tag
//!   (`fcntl(F_SET_RW_HINT)`: 0 not set, 1 none, 2 short, 3 medium, 4 long,
//!   5 extreme) to streams as the NVMe driver of Linux 4.13–5.17 did: short
//!   → 1, medium → 2, long → 3, extreme → 4, the rest → 0; a hint whose
//!   stream the device lacks goes to stream 0 (the driver's fallback).

use std::collections::HashMap;

use super::layer::{pass_down, HostLayer};
pub use crate::config::host::context_streams::{ManualConfig, WriteHintConfig};
use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Request};

/// Linux's hint values (`enum rw_hint`) and the stream each became.
const HINT_STREAMS: [u16; 6] = [0, 0, 1, 2, 3, 4];

#[derive(Debug, Clone)]
enum Policy {
    Manual {
        map: HashMap<u64, u16>,
        default_stream: u16,
    },
    WriteHint {
        streams: u16,
    },
}

/// The layer: a stream per request from its context tag.
pub struct ContextStreams {
    name: &'static str,
    policy: Policy,
    stats: LayerStats,
    scratch: Request,
}

impl ContextStreams {
    pub fn manual(config: &ManualConfig) -> Self {
        let map = config
            .map
            .iter()
            .map(|&[context, stream]| (context, stream as u16))
            .collect();
        Self::with(
            "manual",
            Policy::Manual {
                map,
                default_stream: config.default_stream,
            },
        )
    }

    pub fn write_hint(streams: u16) -> Self {
        Self::with("write-hint", Policy::WriteHint { streams })
    }

    fn with(name: &'static str, policy: Policy) -> Self {
        Self {
            name,
            policy,
            stats: LayerStats {
                name: name.to_string(),
                ..LayerStats::default()
            },
            scratch: Request::default(),
        }
    }

    /// The stream of a write tagged `context`.
    fn stream_of(&self, context: u64) -> u16 {
        match &self.policy {
            Policy::Manual {
                map,
                default_stream,
            } => map.get(&context).copied().unwrap_or(*default_stream),
            Policy::WriteHint { streams } => {
                let stream = usize::try_from(context)
                    .ok()
                    .and_then(|hint| HINT_STREAMS.get(hint))
                    .copied()
                    .unwrap_or(0);
                if stream < *streams {
                    stream
                } else {
                    0
                }
            }
        }
    }
}

impl HostLayer for ContextStreams {
    fn keeps_addresses(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError> {
        let stream = self.stream_of(req.context);
        pass_down(&mut self.stats, &mut self.scratch, req, stream, below)
    }

    fn stats(&self) -> LayerStats {
        self.stats.clone().with_wa()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_hints_map_as_the_nvme_driver_did() {
        let five = ContextStreams::write_hint(5);
        let streams: Vec<u16> = (0..8).map(|hint| five.stream_of(hint)).collect();
        assert_eq!(streams, [0, 0, 1, 2, 3, 4, 0, 0]);
        // A device with 3 streams: long and extreme fall back to stream 0.
        let three = ContextStreams::write_hint(3);
        let streams: Vec<u16> = (0..6).map(|hint| three.stream_of(hint)).collect();
        assert_eq!(streams, [0, 0, 1, 2, 0, 0]);
    }

    #[test]
    fn manual_map_and_its_errors() {
        let c = ManualConfig {
            map: vec![[7, 1], [9, 2]],
            default_stream: 0,
        };
        let layer = ContextStreams::manual(&c);
        assert_eq!([7, 9, 8].map(|ctx| layer.stream_of(ctx)), [1, 2, 0]);
        let e = c.validate("host.layers[0]", 2).unwrap_err().to_string();
        assert!(
            e.contains("host.layers[0].map[1]") && e.contains("ftl.streams = 2"),
            "{e}"
        );
        let dup = ManualConfig {
            map: vec![[7, 1], [7, 0]],
            default_stream: 0,
        };
        let e = dup.validate("k", 4).unwrap_err().to_string();
        assert!(e.contains("k.map[1]") && e.contains("k.map[0]"), "{e}");
    }

    #[test]
    fn manual_contexts_above_i64_are_hex_strings() {
        // fio's PC in the corpus: above TOML's i64.
        let c: ManualConfig =
            toml::from_str("map = [[7, 1], [\"0x986beda01b2af52c\", 2]]").unwrap();
        assert_eq!(c.map, [[7, 1], [0x986b_eda0_1b2a_f52c, 2]]);
        let layer = ContextStreams::manual(&c);
        assert_eq!(layer.stream_of(0x986b_eda0_1b2a_f52c), 2);
        // Written back the same way, so the TOML round-trips.
        let text = toml::to_string(&c).unwrap();
        assert!(text.contains("\"0x986beda01b2af52c\""), "{text}");
        assert_eq!(toml::from_str::<ManualConfig>(&text).unwrap(), c);
        let e = toml::from_str::<ManualConfig>("map = [[\"0xzz\", 1]]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"0xzz\"") && e.contains("hex string"), "{e}");
        let e = toml::from_str::<ManualConfig>("map = [[-1, 1]]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("-1") && e.contains("non-negative"), "{e}");
    }
}
