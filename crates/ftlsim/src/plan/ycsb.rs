//! The checks of a `workload.type = "ycsb"` config: the engine's keys
//! against the workload's sizes, the device and the stack.

use crate::config::lsm::{block_bytes, RemapMode, ENTRY_OVERHEAD_BYTES};
use crate::config::Config;
use crate::error::ConfigError;

/// A YCSB run: the engine's keys, sizes that fit, and a device that
/// takes remaps when RemapCom is on.
pub(super) fn check(cfg: &Config) -> Result<(), ConfigError> {
    let w = &cfg.workload;
    cfg.lsm.validate("lsm")?;
    cfg.lsm.threads(cfg.timing.is_some())?;
    if w.records == 0 {
        return Err(ConfigError::new(
            "workload.records",
            "0 records: the load must insert at least one",
        ));
    }
    if !(8..=64).contains(&w.key_bytes) {
        return Err(ConfigError::new(
            "workload.key_bytes",
            format!(
                "{} is outside 8..=64 (\"user\" and at least 4 digits)",
                w.key_bytes
            ),
        ));
    }
    if w.value_bytes == 0 {
        return Err(ConfigError::new(
            "workload.value_bytes",
            "0 bytes: a value must have at least one byte",
        ));
    }
    // RemapCom remaps whole data blocks of whole pages: an entry must
    // fit one block, or blocks would straddle pages unevenly.
    let entry = block_bytes(
        1,
        u64::from(w.key_bytes) + ENTRY_OVERHEAD_BYTES + u64::from(w.value_bytes),
    );
    if cfg.lsm.remap != RemapMode::Off && entry > u64::from(cfg.lsm.block_bytes) {
        return Err(ConfigError::new(
            "workload.value_bytes",
            format!(
                "{} bytes: an entry of {entry} bytes does not fit one data block of lsm.block_bytes = {}, which lsm.remap = \"{}\" needs",
                w.value_bytes,
                cfg.lsm.block_bytes,
                cfg.lsm.remap.name()
            ),
        ));
    }
    if cfg.lsm.remap != RemapMode::Off && !cfg.ftl.remap {
        return Err(ConfigError::new(
            "lsm.remap",
            format!(
                "\"{}\" issues remap requests: the device needs ftl.remap = true",
                cfg.lsm.remap.name()
            ),
        ));
    }
    if !cfg.lsm.block_bytes.is_multiple_of(cfg.device.page_bytes) && cfg.lsm.remap != RemapMode::Off
    {
        return Err(ConfigError::new(
            "lsm.block_bytes",
            format!(
                "{} is not a whole number of device.page_bytes = {}: RemapCom remaps whole pages",
                cfg.lsm.block_bytes, cfg.device.page_bytes
            ),
        ));
    }
    if !cfg.host.layers.is_empty() {
        return Err(ConfigError::new(
            "host.layers",
            "workload.type = \"ycsb\" runs its engine on the device directly; host layers under it are not supported yet",
        ));
    }
    if cfg.device.zoned {
        return Err(ConfigError::new(
            "device.zoned",
            "the LSM engine's file layer writes in place: it needs a page-mapped device",
        ));
    }
    if w.writes.is_some() || w.requests.is_some() {
        return Err(ConfigError::new(
            if w.writes.is_some() {
                "workload.writes"
            } else {
                "workload.requests"
            },
            "a YCSB run counts key-value operations: use workload.records and workload.operations",
        ));
    }
    Ok(())
}
