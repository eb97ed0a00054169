//! Errors the core reports. Every one names what is wrong in words a user can act on.

use thiserror::Error;

/// A configuration value that cannot describe a device or workload.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("config key `{key}`: {message}")]
pub struct ConfigError {
    /// Dotted path of the offending key, e.g. `device.spare_factor`.
    pub key: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// Errors raised while simulating.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Garbage collection found no block whose reclamation frees space: every
    /// candidate is fully valid. The device is full; looping would never end.
    #[error("device full: no reclaimable block (all {closed_blocks} closed blocks hold only valid pages; free blocks: {free_blocks})")]
    DeviceFull {
        closed_blocks: u32,
        free_blocks: u32,
    },
    /// With power-loss tracking GC copies a victim's pages before it erases
    /// the victim, and no closed block's valid pages fit in the room there is
    /// without erasing one first: the device is full for a safe GC.
    #[error("device full: power-loss tracking copies before it erases, and no closed block's valid pages (fewest: {fewest_valid_pages}) fit in the {room_pages} pages GC has without erasing first")]
    NoSafeVictim {
        fewest_valid_pages: u32,
        room_pages: u64,
    },
    /// The log regime's volume needs a free block and the device has none:
    /// the log (live data, garbage up to the threshold, open blocks) is
    /// larger than the flash.
    #[error("the log regime's volume outgrew the device's {blocks} blocks: raise device.blocks or device.spare_factor")]
    LogOutgrewDevice { blocks: u32 },
    /// Enough blocks reached the P/E cycle limit that the device can no
    /// longer hold its logical capacity.
    #[error("end of life: {retired_blocks} blocks retired at the P/E limit; the device cannot hold its logical space")]
    EndOfLife { retired_blocks: u32 },
    #[error("logical page {lpn} is outside the logical space of {logical_pages} pages")]
    OutOfRange { lpn: u64, logical_pages: u64 },
    /// The request source (a trace) failed: the message names file and line.
    #[error("{0}")]
    Source(String),
    /// A request that cannot be carried out; it changed nothing.
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("invariant violated: {0}")]
    Invariant(String),
    /// The run was asked to stop (`RunOptions::cancel`: Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
}
