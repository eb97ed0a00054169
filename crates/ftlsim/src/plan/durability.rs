//! What the FTL's durability features need: power-loss tracking (journal,
//! checkpoints, write buffer; docs/power-loss.md) and the DFTL mapping cache
//! (docs/dftl.md), each checked once here.

use crate::config::Config;
use crate::error::ConfigError;

/// Content verification needs dedup; the journal, checkpoints and the
/// mapping cache need sizes that fit the device.
pub(super) fn check(cfg: &Config) -> Result<(), ConfigError> {
    let f = &cfg.ftl;
    if f.verify_content && !f.dedup {
        return Err(ConfigError::new(
            "ftl.verify_content",
            "verifies dedup matches: it needs ftl.dedup = true",
        ));
    }
    if f.journal_batch == 0 {
        return Err(ConfigError::new(
            "ftl.journal_batch",
            "0 records per journal page: it must be at least 1",
        ));
    }
    if f.checkpoint_interval_pages > cfg.logical_pages() {
        return Err(ConfigError::new(
            "ftl.checkpoint_interval_pages",
            format!(
                "{} is larger than the device's {} logical pages (0 turns checkpoints off)",
                f.checkpoint_interval_pages,
                cfg.logical_pages()
            ),
        ));
    }
    if f.power_loss_tracking() {
        cfg.validate_power_loss()?;
    }
    if f.mapping_cache_entries > 0 {
        check_mapping_cache(cfg)?;
    }
    Ok(())
}

impl Config {
    /// What power-loss tracking needs beyond a valid config: two free blocks
    /// kept so that GC copies before it erases, and no page bytes (they are
    /// not kept on the flash image).
    pub fn validate_power_loss(&self) -> Result<(), ConfigError> {
        if self.ftl.fdp {
            // The crash test turns tracking on without the keys that
            // `validate` refuses under FDP: refuse it here too.
            return Err(ConfigError::new(
                "ftl.fdp",
                "power-loss tracking (the crash test) is not modelled with reclaim units yet",
            ));
        }
        if self.ftl.verify_content {
            return Err(ConfigError::new(
                "ftl.verify_content",
                "power-loss tracking keeps fingerprints, not page bytes: it cannot be combined with verify_content",
            ));
        }
        let ppb = u64::from(self.device.pages_per_block);
        let spare_blocks = (self.physical_pages() - self.logical_pages()) / ppb;
        let needed = u64::from(self.frontier_count()) + 1 + 2;
        if spare_blocks < needed {
            return Err(ConfigError::new(
                "device.spare_factor",
                format!("power-loss tracking keeps 2 free blocks for GC: the device needs at least {needed} spare blocks, it has {spare_blocks}"),
            ));
        }
        Ok(())
    }
}

/// The DFTL mapping cache (`ftl.mapping_cache_entries` > 0): at most the
/// logical space, room on flash for the translation pages and their
/// frontier, and none of the features that keep their own view of the
/// mapping (power-loss image, many-to-one mapping, zones, FDP).
fn check_mapping_cache(cfg: &Config) -> Result<(), ConfigError> {
    const KEY: &str = "ftl.mapping_cache_entries";
    let f = &cfg.ftl;
    let logical = cfg.logical_pages();
    if f.mapping_cache_entries > logical {
        return Err(ConfigError::new(
            KEY,
            format!(
                "{} entries is more than the device's {logical} logical pages (0 keeps the whole table in DRAM)",
                f.mapping_cache_entries
            ),
        ));
    }
    let conflict = if f.power_loss_tracking() {
        Some("power-loss tracking (ftl.checkpoint_interval_pages, ftl.write_buffer_pages): its flash image and recovery do not know translation pages")
    } else if cfg.sharing() {
        Some("many-to-one mapping (ftl.dedup, ftl.remap)")
    } else if cfg.device.zoned {
        Some("a zoned device (its mapping is the identity)")
    } else if f.fdp {
        Some("FDP (ftl.fdp)")
    } else {
        None
    };
    if let Some(what) = conflict {
        return Err(ConfigError::new(
            KEY,
            format!("the DFTL mapping cache cannot be combined with {what}"),
        ));
    }
    if cfg.device.page_bytes < 4 {
        return Err(ConfigError::new(
            KEY,
            "a translation page holds 4-byte entries: device.page_bytes must be at least 4",
        ));
    }
    let ppb = u64::from(cfg.device.pages_per_block);
    let spare_pages = cfg.physical_pages() - logical;
    // The frontiers, one block for GC, the translation frontier, and the
    // translation pages themselves.
    let needed = (u64::from(cfg.frontier_count()) + 2) * ppb + cfg.translation_pages();
    if spare_pages < needed {
        return Err(ConfigError::new(
            KEY,
            format!(
                "the {} translation pages and their open block do not fit in the device's {spare_pages} spare pages (raise device.spare_factor)",
                cfg.translation_pages()
            ),
        ));
    }
    Ok(())
}
