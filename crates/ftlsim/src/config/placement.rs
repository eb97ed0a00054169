//! `[ftl.placement_scheme]`: a data-placement scheme that classifies each
//! user write and each GC write into one of its classes, each class an open
//! block of its own (docs/placement.md). `type` names the scheme; its keys
//! follow, with the paper's constants as defaults. Absent, the device places
//! by `ftl.frontiers`, `ftl.streams`, `ftl.internal_streams` and
//! `ftl.placement` as before.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// Classes a multi-class scheme uses when its key is left out: the six open
/// segments of SepBIT's evaluation (FAST'22, §5), which its simulator gives
/// every multi-class scheme.
pub const DEFAULT_CLASSES: u16 = 6;

/// At most this many classes: each is an open block, and the device must
/// keep one open per class besides the blocks its data fills.
pub const MAX_CLASSES: u16 = 64;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PlacementSchemeConfig {
    // Braces, not unit variants: serde refuses unknown keys only in a
    // variant with fields, even none.
    /// No separation: user writes and GC writes share one class.
    Nosep {},
    /// User writes in one class, GC writes in another.
    Sepgc {},
    /// Dynamic dAta Clustering (Chiang et al., 1999): a page climbs a class
    /// at each user write and drops one at each GC write.
    Dac {
        #[serde(default = "default_classes")]
        classes: u16,
    },
    /// SepBIT (Wang et al., FAST'22): user writes by the page's last
    /// lifespan against ℓ, the mean lifespan of recently reclaimed blocks
    /// of short-lived user writes (the paper's Class 1, ftlsim's class 0);
    /// GC writes by the age of their data in powers of `gc_age_base` · ℓ.
    /// Six classes, numbered from 0.
    Sepbit {
        /// Class-0 blocks reclaimed between updates of ℓ (16 in the paper).
        #[serde(default = "default_lifespan_window")]
        lifespan_window_segments: u32,
        /// Ratio between GC classes' age bounds (4 in the paper: 4ℓ, 16ℓ).
        #[serde(default = "default_gc_age_base")]
        gc_age_base: f64,
    },
    /// Future knowledge: a write's class is its page's remaining lifespan
    /// in blocks' worth of host writes, capped at the last class, for user
    /// and GC writes alike (SepBIT's FK). The lifespans come from a
    /// pre-pass over the same workload, as the oracle layer's do.
    Fk {
        #[serde(default = "default_classes")]
        classes: u16,
    },
}

fn default_classes() -> u16 {
    DEFAULT_CLASSES
}

fn default_lifespan_window() -> u32 {
    16
}

fn default_gc_age_base() -> f64 {
    4.0
}

impl PlacementSchemeConfig {
    /// The scheme's name as the config spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Nosep {} => "nosep",
            Self::Sepgc {} => "sepgc",
            Self::Dac { .. } => "dac",
            Self::Sepbit { .. } => "sepbit",
            Self::Fk { .. } => "fk",
        }
    }

    /// Classes (open blocks) the scheme writes to.
    pub fn classes(&self) -> u16 {
        match self {
            Self::Nosep {} => 1,
            Self::Sepgc {} => 2,
            Self::Dac { classes } => *classes,
            Self::Sepbit { .. } => 6,
            Self::Fk { classes } => *classes,
        }
    }

    /// Whether the scheme reads the future: a run gives it lifespans from
    /// a pre-pass over its workload.
    pub fn foresees(&self) -> bool {
        matches!(self, Self::Fk { .. })
    }

    /// The scheme's own keys, each named by its path.
    pub fn check_keys(&self) -> Result<(), ConfigError> {
        const KEY: &str = "ftl.placement_scheme";
        match *self {
            Self::Nosep {} | Self::Sepgc {} => Ok(()),
            Self::Dac { classes } | Self::Fk { classes } => {
                if !(1..=MAX_CLASSES).contains(&classes) {
                    return Err(ConfigError::new(
                        format!("{KEY}.classes"),
                        format!("{classes} is outside 1..={MAX_CLASSES}"),
                    ));
                }
                Ok(())
            }
            Self::Sepbit {
                lifespan_window_segments,
                gc_age_base,
            } => {
                if lifespan_window_segments == 0 {
                    return Err(ConfigError::new(
                        format!("{KEY}.lifespan_window_segments"),
                        "must be at least 1",
                    ));
                }
                if !(gc_age_base > 1.0 && gc_age_base.is_finite()) {
                    return Err(ConfigError::new(
                        format!("{KEY}.gc_age_base"),
                        format!("{gc_age_base} is not a finite number above 1"),
                    ));
                }
                Ok(())
            }
        }
    }
}
