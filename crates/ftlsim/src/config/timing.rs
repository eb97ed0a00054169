//! The `[timing]` section: parallel units, latencies and the replay mode.
//!
//! Latencies are given in microseconds (as datasheets and FEMU do) and turned
//! into integer nanoseconds once, in `TimingParams`, so that the engine does
//! integer arithmetic only and its results are exact and reproducible.

use serde::{Deserialize, Serialize};

use super::DeviceConfig;
use crate::error::ConfigError;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TimingMode {
    /// A fixed number of requests outstanding (fio's iodepth).
    Closed,
    /// Requests arrive at their trace times (scaled by a speed-up factor) or,
    /// for synthetic workloads, as a Poisson process of `arrival_rate_iops`.
    Open,
}

/// Largest accepted latency, 1000 s: keeps every sum of times far from u64 overflow.
const MAX_LATENCY_US: f64 = 1e9;
/// Largest accepted number of LUNs and queue depth: bounds the engine's tables and heap.
const MAX_LUNS: u32 = 1 << 16;
const MAX_QUEUE_DEPTH: u32 = 1 << 20;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// Channels (buses shared by their LUNs). Absent: `device.channels`.
    pub channels: Option<u32>,
    /// LUNs (dies) on each channel. Absent: `device.luns_per_channel`.
    pub luns_per_channel: Option<u32>,
    /// Array time of a page read (tR).
    pub read_latency_us: f64,
    /// Array time of a page program (tPROG).
    pub program_latency_us: f64,
    /// Array time of a block erase (tBERS).
    pub erase_latency_us: f64,
    /// Channel time to move one page between controller and LUN.
    pub transfer_us_per_page: f64,
    /// Fixed controller time added to every request before its flash work
    /// (command processing, mapping lookup). Not a shared resource.
    pub controller_overhead_us: f64,
    /// Requests outstanding at once: the closed loop's iodepth, and in open
    /// loop the device's queue (arrivals beyond it wait in the host).
    pub queue_depth: u32,
    pub mode: TimingMode,
    /// Open loop, synthetic workloads: mean arrival rate of a Poisson process.
    pub arrival_rate_iops: Option<f64>,
    /// Open loop, traces: arrival times are divided by this (2 = twice as fast).
    pub speedup: f64,
    /// Requests per sample of the latency-over-time series. Absent: 1/100 of the measured window.
    pub series_window: Option<u64>,
    /// Background GC: while the device is idle between arrivals (open
    /// loop), reclaim victims until the free pool holds at least
    /// `background_gc_free_blocks`. A victim's work is not preempted, so an
    /// arrival during it waits.
    pub background_gc: bool,
    /// Free blocks background GC aims for. Absent: 1/64 of the blocks (at least 2).
    pub background_gc_free_blocks: Option<u32>,
    /// Program/erase suspend: a host read that finds its LUN programming
    /// or erasing (with nothing queued behind) suspends that operation,
    /// is served, and the operation resumes. Needs both overheads below.
    pub suspend: bool,
    /// Time to suspend a running program or erase before the read starts.
    pub suspend_overhead_us: Option<f64>,
    /// Time to resume the suspended operation after the reads it let in.
    pub resume_overhead_us: Option<f64>,
    /// The controller's DRAM write buffer, in pages (0 = off): writes are
    /// acknowledged once buffered and drain to flash in the background.
    pub write_buffer_pages: u32,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            channels: None,
            luns_per_channel: None,
            read_latency_us: 40.0,
            program_latency_us: 200.0,
            erase_latency_us: 2000.0,
            transfer_us_per_page: 10.0,
            controller_overhead_us: 0.0,
            queue_depth: 32,
            mode: TimingMode::Closed,
            arrival_rate_iops: None,
            speedup: 1.0,
            series_window: None,
            background_gc: false,
            background_gc_free_blocks: None,
            suspend: false,
            suspend_overhead_us: None,
            resume_overhead_us: None,
            write_buffer_pages: 0,
        }
    }
}

/// The resolved model: unit counts and times in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingParams {
    pub channels: u32,
    pub luns_per_channel: u32,
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    pub transfer_ns: u64,
    pub overhead_ns: u64,
    pub queue_depth: u32,
    pub mode: TimingMode,
    /// Program/erase suspend on: (suspend, resume) overheads.
    pub suspend_ns: Option<(u64, u64)>,
    /// Planes per LUN (`device.planes_per_lun`): programs of pages at the
    /// same offset on different planes go together.
    pub planes_per_lun: u32,
}

impl TimingParams {
    pub fn luns(&self) -> u32 {
        self.channels * self.luns_per_channel
    }

    /// The most page reads per second the LUNs can serve: LUNs / tR.
    pub fn lun_read_bound_iops(&self) -> f64 {
        f64::from(self.luns()) * 1e9 / self.read_ns as f64
    }

    /// The most page transfers per second the channels can carry: channels / transfer time.
    pub fn channel_bound_iops(&self) -> f64 {
        if self.transfer_ns == 0 {
            f64::INFINITY
        } else {
            f64::from(self.channels) * 1e9 / self.transfer_ns as f64
        }
    }

    /// The most page programs per second the LUNs can absorb: LUNs x
    /// planes / tPROG (a multi-plane program writes one page per plane).
    pub fn lun_program_bound_iops(&self) -> f64 {
        f64::from(self.luns()) * f64::from(self.planes_per_lun) * 1e9 / self.program_ns as f64
    }
}

fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

impl TimingConfig {
    /// Checks the values serde cannot; the error names the key.
    pub fn validate(&self, device: &DeviceConfig) -> Result<(), ConfigError> {
        let channels = self.channels.unwrap_or(device.channels);
        let luns_per_channel = self.luns_per_channel.unwrap_or(device.luns_per_channel);
        let (ch_key, lpc_key) = (
            if self.channels.is_some() {
                "timing.channels"
            } else {
                "device.channels"
            },
            if self.luns_per_channel.is_some() {
                "timing.luns_per_channel"
            } else {
                "device.luns_per_channel"
            },
        );
        if channels == 0 {
            return Err(ConfigError::new(ch_key, "must be at least 1"));
        }
        if luns_per_channel == 0 {
            return Err(ConfigError::new(lpc_key, "must be at least 1"));
        }
        if u64::from(channels) * u64::from(luns_per_channel) > u64::from(MAX_LUNS) {
            return Err(ConfigError::new(
                lpc_key,
                format!("{channels} channels x {luns_per_channel} LUNs exceeds the {MAX_LUNS} LUNs the timing model supports"),
            ));
        }
        let times = [
            ("timing.read_latency_us", self.read_latency_us, false),
            ("timing.program_latency_us", self.program_latency_us, false),
            ("timing.erase_latency_us", self.erase_latency_us, true),
            (
                "timing.transfer_us_per_page",
                self.transfer_us_per_page,
                true,
            ),
            (
                "timing.controller_overhead_us",
                self.controller_overhead_us,
                true,
            ),
        ];
        for (key, us, zero_ok) in times {
            if !us.is_finite() || us < 0.0 {
                return Err(ConfigError::new(
                    key,
                    format!("{us} is not a latency: expected a finite number >= 0"),
                ));
            }
            if us > MAX_LATENCY_US {
                return Err(ConfigError::new(
                    key,
                    format!("{us} us exceeds the largest accepted latency, {MAX_LATENCY_US} us"),
                ));
            }
            if !zero_ok && us_to_ns(us) == 0 {
                return Err(ConfigError::new(
                    key,
                    format!("{us} us rounds to 0 ns; an array operation takes time"),
                ));
            }
        }
        device.check_planes(u64::from(channels) * u64::from(luns_per_channel))?;
        if self.queue_depth == 0 || self.queue_depth > MAX_QUEUE_DEPTH {
            return Err(ConfigError::new(
                "timing.queue_depth",
                format!("{} is outside [1, {MAX_QUEUE_DEPTH}]", self.queue_depth),
            ));
        }
        if let Some(rate) = self.arrival_rate_iops {
            if !(rate.is_finite() && rate > 0.0) {
                return Err(ConfigError::new(
                    "timing.arrival_rate_iops",
                    format!("{rate} must be a positive number"),
                ));
            }
        }
        if !(self.speedup.is_finite() && self.speedup > 0.0) {
            return Err(ConfigError::new(
                "timing.speedup",
                format!("{} must be a positive number", self.speedup),
            ));
        }
        if let Some(target) = self.background_gc_free_blocks {
            if target == 0 || target >= device.blocks {
                return Err(ConfigError::new(
                    "timing.background_gc_free_blocks",
                    format!("{target} is outside [1, device.blocks)"),
                ));
            }
        }
        let overheads = [
            ("timing.suspend_overhead_us", self.suspend_overhead_us),
            ("timing.resume_overhead_us", self.resume_overhead_us),
        ];
        for (key, value) in overheads {
            match (self.suspend, value) {
                (true, None) => {
                    return Err(ConfigError::new(
                        key,
                        "timing.suspend = true needs both timing.suspend_overhead_us and timing.resume_overhead_us",
                    ))
                }
                (false, Some(_)) => {
                    return Err(ConfigError::new(
                        key,
                        "is used only with timing.suspend = true",
                    ))
                }
                (_, Some(us)) if !us.is_finite() || !(0.0..=MAX_LATENCY_US).contains(&us) => {
                    return Err(ConfigError::new(
                        key,
                        format!("{us} is not an overhead: expected a number in [0, {MAX_LATENCY_US}] us"),
                    ))
                }
                _ => {}
            }
        }
        // The buffer holds distinct pages; more than the device has cannot fill.
        let device_pages = u64::from(device.blocks) * u64::from(device.pages_per_block);
        if u64::from(self.write_buffer_pages) > device_pages {
            return Err(ConfigError::new(
                "timing.write_buffer_pages",
                format!(
                    "{} pages is larger than the device ({device_pages} pages)",
                    self.write_buffer_pages
                ),
            ));
        }
        if self.series_window == Some(0) {
            return Err(ConfigError::new(
                "timing.series_window",
                "must be at least 1 request",
            ));
        }
        Ok(())
    }

    /// The model in nanoseconds. The config must have passed `validate`.
    pub fn params(&self, device: &DeviceConfig) -> TimingParams {
        TimingParams {
            channels: self.channels.unwrap_or(device.channels),
            luns_per_channel: self.luns_per_channel.unwrap_or(device.luns_per_channel),
            read_ns: us_to_ns(self.read_latency_us),
            program_ns: us_to_ns(self.program_latency_us),
            erase_ns: us_to_ns(self.erase_latency_us),
            transfer_ns: us_to_ns(self.transfer_us_per_page),
            overhead_ns: us_to_ns(self.controller_overhead_us),
            queue_depth: self.queue_depth,
            mode: self.mode,
            planes_per_lun: device.planes_per_lun,
            suspend_ns: match (
                self.suspend,
                self.suspend_overhead_us,
                self.resume_overhead_us,
            ) {
                (true, Some(suspend), Some(resume)) => Some((us_to_ns(suspend), us_to_ns(resume))),
                _ => None,
            },
        }
    }
}
