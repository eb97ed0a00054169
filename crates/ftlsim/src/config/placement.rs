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
    /// SFS (Min et al., "SFS: Random Write Considered Harmful in Solid State
    /// Drives", FAST'12): a page's hotness is its write count over the time
    /// since its last write; each write goes to the class whose centre is
    /// nearest; at every GC the centres are re-quantised from the hotness
    /// of every full block (iterative segment quantisation).
    Sfs {
        #[serde(default = "default_classes")]
        classes: u16,
        /// Rounds of the quantisation at each GC (3 in SepBIT's simulator).
        #[serde(default = "default_sfs_iterations")]
        quantization_iterations: u32,
    },
    /// MultiLog (Stoica and Ailamaki, "Improving Flash Write Performance by
    /// Using Update Frequency", VLDB'13): a page's level rises by one at each
    /// GC write (up to the highest level in use, which opens the next once
    /// its class holds a block's worth of valid pages), and may drop by one
    /// at a user write that comes sooner than its level's expected update
    /// distance.
    Multilog {
        #[serde(default = "default_classes")]
        classes: u16,
    },
    /// ETI, extent-based temperature identification (Shafaei, Desnoyers and
    /// Fitzpatrick, HotStorage'16): write counts kept per LBA extent (split
    /// on partial writes, merged when counts decay); hot extents in class 0,
    /// the rest in 1, GC writes in 2.
    Eti {
        /// Extents kept at most (1024 in SepBIT's simulator).
        #[serde(default = "default_eti_max_extents")]
        max_extents: u32,
        /// Write requests between halvings of every count (4096).
        #[serde(default = "default_eti_decay_period")]
        decay_period_requests: u32,
        /// A count at least this makes an extent hot (4).
        #[serde(default = "default_eti_hot_count")]
        hot_count: u32,
        /// Counts saturate here (15: four bits).
        #[serde(default = "default_eti_max_count")]
        max_count: u32,
    },
    /// AutoStream's MultiQueue (Yang et al., SYSTOR'17) as SepBIT's
    /// simulator runs it: a user write's class is ⌊ln⌋ of its chunk's write
    /// requests, capped at `classes` − 2; GC writes take the last class.
    Mq {
        #[serde(default = "default_classes")]
        classes: u16,
        /// Pages per chunk (256: 1 MiB of 4 KiB pages).
        #[serde(default = "default_mq_chunk_pages")]
        chunk_pages: u32,
    },
    /// AutoStream's SFR, sequentiality, frequency and recency (Yang et al.,
    /// SYSTOR'17): a chunk's write count halves every `decay_period_pages`
    /// host writes; a user write's class is ⌊ln⌋ of its chunk's count, capped
    /// at `classes` − 2, and a request that continues the previous one takes
    /// the previous class; GC writes take the last class.
    Sfr {
        #[serde(default = "default_classes")]
        classes: u16,
        /// Pages per chunk (512: 2 MiB of 4 KiB pages).
        #[serde(default = "default_sfr_chunk_pages")]
        chunk_pages: u32,
        /// Host page writes per halving of a chunk's count (16384: 64 MiB).
        #[serde(default = "default_sfr_decay_period")]
        decay_period_pages: u32,
    },
    /// FADaC (Kremer and Brinkmann, "FADaC: A Self-Adapting Data Classifier
    /// for Flash Memory", SYSTOR'19): a page's write count (+1 per user write,
    /// −1 per GC write) against a fading average of request sizes, in powers
    /// of ten.
    Fadac {
        #[serde(default = "default_classes")]
        classes: u16,
    },
    /// WARCIP (Yang et al., "WARCIP: Write Amplification Reduction by
    /// Clustering I/O Pages", SYSTOR'19): user writes clustered by rewrite
    /// interval (nearest centre, a running mean), GC writes in a class of
    /// their own; every `split_merge_period_segments` blocks the user
    /// clusters fill, a cluster taking over half the writes splits and a
    /// cluster filling less than a block merges away.
    Warcip {
        /// Clusters at most, the GC class included.
        #[serde(default = "default_classes")]
        classes: u16,
        /// User blocks filled between splits and merges (256).
        #[serde(default = "default_warcip_period")]
        split_merge_period_segments: u32,
    },
    /// MiDAS (Oh et al., "MiDAS: Minimizing Write Amplification in
    /// Log-Structured Systems through Adaptive Group Number and Size
    /// Configuration", FAST'24): a chain of groups; user writes enter the
    /// first, a GC write moves one group on (the last keeps its own). GC
    /// takes the oldest block of the first group over its size, else the
    /// last group's best. Every `epoch_capacities` logical spaces written,
    /// the update intervals of one LPN in `sampling_ratio` give a model of
    /// each group's valid ratio, and the group count and sizes it predicts
    /// best are applied when they beat the WA measured (docs/placement.md:
    /// the model is simplified from MiDAS's Markov chain).
    Midas {
        /// Groups at most, each a class (9: MiDAS searches 2 to 9).
        #[serde(default = "default_midas_max_groups")]
        max_groups: u16,
        /// Groups before the first model, GC taking the regime's victim
        /// (MiDAS's `GNUMBER`, 5).
        #[serde(default = "default_midas_initial_groups")]
        initial_groups: u16,
        /// One LPN in this many is sampled for update intervals (100).
        #[serde(default = "default_midas_sampling_ratio")]
        sampling_ratio: u32,
        /// Logical spaces written per model epoch, after the first logical
        /// space (4: MiDAS's `TIME_WINDOW`, 4 × the device's GB).
        #[serde(default = "default_midas_epoch")]
        epoch_capacities: f64,
    },
    /// 2R (Haas and Leis, SSD-iq, "2R-greedy" of its simulator): two
    /// regions, user writes in the normal one (class 0), every GC write in
    /// the cold one (class 1). GC takes the greedy victim of the cold
    /// region when it holds `min_region_garbage_blocks` blocks' worth of
    /// invalid pages and the normal region's best block is no emptier (or
    /// the normal region holds less garbage than that), else the normal
    /// region's. With `victim = "fifo"` (its "2R-FIFO") GC instead scans
    /// every sealed block in the order sealed, from where its last scan
    /// stopped, for one under a utilization bound (a second chance).
    Tworr {
        /// A region holding fewer invalid pages than this many blocks' worth
        /// is not collected while the other one is (1: a block's pages).
        #[serde(default = "default_tworr_min_garbage")]
        min_region_garbage_blocks: u32,
        /// How GC takes its victim: `"greedy"` (2R-greedy, the default) or
        /// `"fifo"` (2R-FIFO).
        #[serde(default)]
        victim: TworrVictim,
    },
    /// Future knowledge: a write's class is its page's remaining lifespan,
    /// for user and GC writes alike, mapped to classes as
    /// `lifespan_classes` says (SepBIT's FK: a class per block's worth of
    /// host writes, capped at the last). The lifespans come from a
    /// pre-pass over the same workload, as the oracle layer's do.
    Fk {
        /// Left out: as `lifespan_classes` resolves (`FkLifespanClasses`).
        #[serde(default)]
        classes: Option<u16>,
        #[serde(default)]
        lifespan_classes: FkLifespanClasses,
        /// How far the classes see, in logical spaces of host writes: where
        /// geometric classes reach the last, or death time's horizon
        /// (`FK_SPAN_CAPACITIES` when left out; not a key of `segments`).
        #[serde(default)]
        span_capacities: Option<f64>,
    },
}

/// How `fk` maps a remaining lifespan `L` (host page writes) to a class.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FkLifespanClasses {
    /// `segments` in the log regime, where SepBIT's simulator is the
    /// reference; `geometric` on ftlsim's SSD (the plan resolves it).
    #[default]
    Auto,
    /// SepBIT's FK: class ⌊L / B⌋ (B a block's pages), capped at the last;
    /// `classes` defaults to 6.
    Segments,
    /// Class 0 below B, then classes whose bounds grow by a constant ratio
    /// up to `span_capacities` logical spaces, where the last begins;
    /// `classes` defaults to `FK_GEOMETRIC_CLASSES`.
    Geometric,
    /// By death time: windows of `span_capacities` logical spaces over the
    /// classes but the last, a page going to its death's window (modulo the
    /// classes); dying later than that, the last class.
    DeathTime,
}

/// Classes of geometric and death-time `fk` when `classes` is left out:
/// on the SSDs measured (docs/placement.md) more classes separated
/// better, up to 32; 16 leaves a device of 25 spare blocks room to collect.
pub const FK_GEOMETRIC_CLASSES: u16 = 16;

/// `fk`'s span when `span_capacities` is left out: 8 logical spaces, the
/// lowest WA of 1 to 16 on the SSD table's workloads but uniform writes.
pub const FK_SPAN_CAPACITIES: f64 = 8.0;

/// 2R's victim rule (`ftl.placement_scheme.victim` of `tworr`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TworrVictim {
    /// 2R-greedy: the region by ssdiq's rule, greedy within it.
    #[default]
    Greedy,
    /// 2R-FIFO: a second-chance scan of every sealed block, oldest first,
    /// under a utilization bound.
    Fifo,
}

fn default_classes() -> u16 {
    DEFAULT_CLASSES
}

fn default_sfs_iterations() -> u32 {
    3
}

fn default_eti_max_extents() -> u32 {
    1024
}

fn default_eti_decay_period() -> u32 {
    4096
}

fn default_eti_hot_count() -> u32 {
    4
}

fn default_eti_max_count() -> u32 {
    15
}

fn default_mq_chunk_pages() -> u32 {
    256
}

fn default_sfr_chunk_pages() -> u32 {
    512
}

fn default_sfr_decay_period() -> u32 {
    16384
}

fn default_warcip_period() -> u32 {
    256
}

fn default_midas_max_groups() -> u16 {
    9
}

fn default_midas_initial_groups() -> u16 {
    5
}

fn default_midas_sampling_ratio() -> u32 {
    100
}

fn default_midas_epoch() -> f64 {
    4.0
}

fn default_tworr_min_garbage() -> u32 {
    1
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
            Self::Sfs { .. } => "sfs",
            Self::Multilog { .. } => "multilog",
            Self::Eti { .. } => "eti",
            Self::Mq { .. } => "mq",
            Self::Sfr { .. } => "sfr",
            Self::Fadac { .. } => "fadac",
            Self::Warcip { .. } => "warcip",
            Self::Sepbit { .. } => "sepbit",
            Self::Midas { .. } => "midas",
            Self::Tworr { .. } => "tworr",
            Self::Fk { .. } => "fk",
        }
    }

    /// Classes (open blocks) the scheme writes to.
    pub fn classes(&self) -> u16 {
        match self {
            Self::Nosep {} => 1,
            Self::Sepgc {} => 2,
            Self::Dac { classes }
            | Self::Sfs { classes, .. }
            | Self::Multilog { classes }
            | Self::Mq { classes, .. }
            | Self::Sfr { classes, .. }
            | Self::Fadac { classes }
            | Self::Warcip { classes, .. } => *classes,
            Self::Eti { .. } => 3,
            Self::Sepbit { .. } => 6,
            Self::Midas { max_groups, .. } => *max_groups,
            Self::Tworr { .. } => 2,
            Self::Fk {
                classes,
                lifespan_classes,
                ..
            } => classes.unwrap_or(match lifespan_classes {
                FkLifespanClasses::Segments => DEFAULT_CLASSES,
                // Auto as the SSD resolves it; the plan resolves it first.
                FkLifespanClasses::Auto
                | FkLifespanClasses::Geometric
                | FkLifespanClasses::DeathTime => FK_GEOMETRIC_CLASSES,
            }),
        }
    }

    /// Whether the scheme reads the future: a run gives it lifespans from
    /// a pre-pass over its workload.
    pub fn foresees(&self) -> bool {
        matches!(self, Self::Fk { .. })
    }

    /// The scheme's own keys, each named by its path.
    pub fn check_keys(&self) -> Result<(), ConfigError> {
        match *self {
            Self::Nosep {} | Self::Sepgc {} => Ok(()),
            Self::Fk {
                classes,
                lifespan_classes,
                span_capacities,
            } => check_fk(classes, lifespan_classes, span_capacities),
            Self::Dac { classes } | Self::Multilog { classes } | Self::Fadac { classes } => {
                check_classes(classes, 1)
            }
            Self::Sfs {
                classes,
                quantization_iterations,
            } => {
                check_classes(classes, 1)?;
                // Each round scans every full block at every GC.
                if !(1..=MAX_SFS_ITERATIONS).contains(&quantization_iterations) {
                    return Err(ConfigError::new(
                        format!("{KEY}.quantization_iterations"),
                        format!("{quantization_iterations} is outside 1..={MAX_SFS_ITERATIONS}"),
                    ));
                }
                Ok(())
            }
            Self::Eti {
                max_extents,
                decay_period_requests,
                hot_count,
                max_count,
            } => {
                // At least three: a partial write in the middle of an
                // extent splits it in three. At most 2^20 (24 MiB, kept
                // sorted: a split moves the extents after it).
                if !(3..=MAX_ETI_EXTENTS).contains(&max_extents) {
                    return Err(ConfigError::new(
                        format!("{KEY}.max_extents"),
                        format!("{max_extents} is outside 3..={MAX_ETI_EXTENTS}"),
                    ));
                }
                check_positive("decay_period_requests", decay_period_requests)?;
                if !(1..=255).contains(&max_count) {
                    return Err(ConfigError::new(
                        format!("{KEY}.max_count"),
                        format!("{max_count} is outside 1..=255"),
                    ));
                }
                if !(1..=max_count).contains(&hot_count) {
                    return Err(ConfigError::new(
                        format!("{KEY}.hot_count"),
                        format!("{hot_count} is outside 1..={max_count} (max_count)"),
                    ));
                }
                Ok(())
            }
            // One class at least for user writes besides GC's.
            Self::Mq {
                classes,
                chunk_pages,
            } => {
                check_classes(classes, 2)?;
                check_positive("chunk_pages", chunk_pages)
            }
            Self::Sfr {
                classes,
                chunk_pages,
                decay_period_pages,
            } => {
                check_classes(classes, 2)?;
                check_positive("chunk_pages", chunk_pages)?;
                check_positive("decay_period_pages", decay_period_pages)
            }
            Self::Warcip {
                classes,
                split_merge_period_segments,
            } => {
                check_classes(classes, 2)?;
                check_positive("split_merge_period_segments", split_merge_period_segments)
            }
            Self::Tworr {
                min_region_garbage_blocks,
                ..
            } => check_positive("min_region_garbage_blocks", min_region_garbage_blocks),
            Self::Midas {
                max_groups,
                initial_groups,
                sampling_ratio,
                epoch_capacities,
            } => {
                // Two at least: a chain of one is nosep.
                if !(2..=MAX_CLASSES).contains(&max_groups) {
                    return Err(ConfigError::new(
                        format!("{KEY}.max_groups"),
                        format!("{max_groups} is outside 2..={MAX_CLASSES}"),
                    ));
                }
                if !(1..=max_groups).contains(&initial_groups) {
                    return Err(ConfigError::new(
                        format!("{KEY}.initial_groups"),
                        format!("{initial_groups} is outside 1..={max_groups} (max_groups)"),
                    ));
                }
                check_positive("sampling_ratio", sampling_ratio)?;
                if !(epoch_capacities > 0.0 && epoch_capacities <= MAX_MIDAS_EPOCH) {
                    return Err(ConfigError::new(
                        format!("{KEY}.epoch_capacities"),
                        format!("{epoch_capacities} is outside (0, {MAX_MIDAS_EPOCH}]"),
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

const KEY: &str = "ftl.placement_scheme";

/// ETI's extents at most.
const MAX_ETI_EXTENTS: u32 = 1 << 20;

/// MiDAS's epoch at most, in logical spaces (its histogram has a bucket
/// per block of writes in an epoch).
const MAX_MIDAS_EPOCH: f64 = 1024.0;

/// fk's span at most, in logical spaces.
const MAX_FK_SPAN: f64 = 1024.0;

/// SFS's rounds of quantisation at most.
const MAX_SFS_ITERATIONS: u32 = 64;

fn check_classes(classes: u16, least: u16) -> Result<(), ConfigError> {
    if !(least..=MAX_CLASSES).contains(&classes) {
        return Err(ConfigError::new(
            format!("{KEY}.classes"),
            format!("{classes} is outside {least}..={MAX_CLASSES}"),
        ));
    }
    Ok(())
}

fn check_fk(
    classes: Option<u16>,
    lifespan_classes: FkLifespanClasses,
    span_capacities: Option<f64>,
) -> Result<(), ConfigError> {
    if let Some(classes) = classes {
        check_classes(classes, 1)?;
    }
    let Some(span) = span_capacities else {
        return Ok(());
    };
    if lifespan_classes == FkLifespanClasses::Segments {
        return Err(ConfigError::new(
            format!("{KEY}.span_capacities"),
            "applies to lifespan_classes = \"geometric\" or \"death-time\" (segments see a block per class): leave it out",
        ));
    }
    // The lifespans are u32 page counts: a span past them sees no further.
    if !(span > 0.0 && span <= MAX_FK_SPAN) {
        return Err(ConfigError::new(
            format!("{KEY}.span_capacities"),
            format!("{span} is outside (0, {MAX_FK_SPAN}]"),
        ));
    }
    Ok(())
}

fn check_positive(key: &str, value: u32) -> Result<(), ConfigError> {
    if value == 0 {
        return Err(ConfigError::new(
            format!("{KEY}.{key}"),
            "must be at least 1",
        ));
    }
    Ok(())
}
