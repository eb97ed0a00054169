//! What the FTL's unit tests share: a small device's config, and the cheap
//! deterministic draws their random overwrites use.

use crate::config::Config;

/// The default config on a device of `blocks` blocks of `pages_per_block`
/// pages with `spare_factor` spare.
pub(super) fn small_config(blocks: u32, pages_per_block: u32, spare_factor: f64) -> Config {
    let mut cfg = Config::default();
    cfg.device.blocks = blocks;
    cfg.device.pages_per_block = pages_per_block;
    cfg.device.spare_factor = spare_factor;
    cfg
}

/// Advances a 64-bit LCG (Knuth's MMIX constants) and returns its new
/// state: the tests draw from its high bits.
pub(super) fn lcg(x: &mut u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *x
}
