//! Run configs: every key of examples/*.toml and the docs with its kind and
//! typical small values, small base configs (one per feature, after the
//! example files, on devices of 16-256 blocks), and their mutation.

use rand::seq::IndexedRandom;
use rand::Rng;

use super::values::{value, Kind, Rng64};
use super::{Entry, Section, TomlDoc};

const GC: &[&str] = &["greedy", "cost-benefit", "fifo", "random", "d-choices"];
const WORKLOADS: &[&str] = &[
    "uniform",
    "hot-cold",
    "zipf",
    "sequential",
    "tables",
    "trace",
    "rocksdb",
    "sqlite",
    "gcc",
    "cassandra",
    "mix",
    "ycsb",
    "sepbit-synthetic",
];

use Kind::*;

/// `(dotted key, kind, typical values)`: the run config's contract.
pub const KEYS: &[(&str, Kind, &[&str])] = &[
    (
        "device.page_bytes",
        Uint(32),
        &["4096", "512", "8192", "16384"],
    ),
    (
        "device.pages_per_block",
        Size(32),
        &["4", "8", "16", "32", "64"],
    ),
    ("device.blocks", Size(32), &["16", "32", "64", "128", "256"]),
    ("device.spare_factor", Float, &["0.07", "0.1", "0.2", "0.5"]),
    ("device.pe_cycle_limit", Uint(32), &["0", "3", "10", "3000"]),
    ("device.channels", Uint(32), &["1", "2", "4", "8"]),
    ("device.luns_per_channel", Uint(32), &["1", "2", "4"]),
    ("device.planes_per_lun", Uint(32), &["1", "2"]),
    ("device.zoned", Bool, &[]),
    ("device.zone_blocks", Uint(32), &["1", "2", "4"]),
    ("device.max_open_zones", Uint(32), &["0", "1", "2", "14"]),
    ("ftl.gc_policy", Enum(GC), &[]),
    ("ftl.gc_choices", Uint(32), &["1", "2", "8"]),
    ("ftl.frontiers", Enum(&["shared", "separate"]), &[]),
    ("ftl.streams", Uint(16), &["1", "2", "4", "9"]),
    ("ftl.internal_streams", Bool, &[]),
    ("ftl.gc_low_watermark", Uint(32), &["0", "1", "2", "4"]),
    ("ftl.gc_high_watermark", Uint(32), &["0", "2", "4", "8"]),
    ("ftl.wear_leveling_threshold", Uint(32), &["0", "2", "10"]),
    ("ftl.dedup", Bool, &[]),
    ("ftl.remap", Bool, &[]),
    (
        "ftl.placement",
        Enum(&["normal", "coldmap", "coldmap-age"]),
        &[],
    ),
    ("ftl.coldmap_threshold", Uint(32), &["2", "3"]),
    ("ftl.verify_content", Bool, &[]),
    (
        "ftl.checkpoint_interval_pages",
        Uint(64),
        &["0", "64", "1024", "16384"],
    ),
    ("ftl.journal_batch", Uint(32), &["1", "8", "64"]),
    ("ftl.write_buffer_pages", Uint(32), &["0", "4", "16"]),
    ("ftl.power_loss_protection", Bool, &[]),
    ("ftl.fdp", Bool, &[]),
    ("ftl.fdp_reclaim_groups", Uint(32), &["1", "2"]),
    ("ftl.fdp_handles", Uint(16), &["1", "2", "4"]),
    ("ftl.fdp_ru_blocks", Uint(32), &["1", "2", "4"]),
    (
        "ftl.fdp_isolation",
        Enum(&["initially", "persistently"]),
        &[],
    ),
    (
        "ftl.mapping_cache_entries",
        Uint(64),
        &["0", "16", "100", "1000"],
    ),
    (
        "ftl.placement_scheme.type",
        Enum(&[
            "nosep", "sepgc", "dac", "sfs", "multilog", "eti", "mq", "sfr", "fadac", "warcip",
            "sepbit", "fk", "midas", "tworr",
        ]),
        &[],
    ),
    ("ftl.placement_scheme.classes", Uint(16), &["1", "2", "6"]),
    (
        "ftl.placement_scheme.quantization_iterations",
        Uint(32),
        &["1", "3"],
    ),
    ("ftl.placement_scheme.max_extents", Uint(32), &["3", "1024"]),
    (
        "ftl.placement_scheme.decay_period_requests",
        Uint(32),
        &["1", "4096"],
    ),
    ("ftl.placement_scheme.hot_count", Uint(32), &["1", "4"]),
    (
        "ftl.placement_scheme.max_count",
        Uint(32),
        &["1", "15", "255"],
    ),
    (
        "ftl.placement_scheme.chunk_pages",
        Uint(32),
        &["1", "256", "512"],
    ),
    (
        "ftl.placement_scheme.decay_period_pages",
        Uint(32),
        &["1", "16384"],
    ),
    (
        "ftl.placement_scheme.split_merge_period_segments",
        Uint(32),
        &["1", "256"],
    ),
    (
        "ftl.placement_scheme.lifespan_window_segments",
        Uint(32),
        &["1", "2", "16"],
    ),
    ("ftl.placement_scheme.gc_age_base", Float, &["2.0", "4.0"]),
    (
        "ftl.placement_scheme.lifespan_classes",
        Enum(&["auto", "segments", "geometric", "death-time"]),
        &[],
    ),
    (
        "ftl.placement_scheme.span_capacities",
        Float,
        &["0.5", "2.0", "8.0"],
    ),
    (
        "ftl.placement_scheme.max_groups",
        Uint(16),
        &["2", "4", "9"],
    ),
    ("ftl.placement_scheme.initial_groups", Uint(16), &["1", "5"]),
    (
        "ftl.placement_scheme.sampling_ratio",
        Uint(32),
        &["1", "100"],
    ),
    (
        "ftl.placement_scheme.epoch_capacities",
        Float,
        &["0.5", "4.0"],
    ),
    (
        "ftl.placement_scheme.min_region_garbage_blocks",
        Uint(32),
        &["1", "4"],
    ),
    (
        "ftl.placement_scheme.victim",
        Enum(&["greedy", "fifo"]),
        &[],
    ),
    ("ftl.regime", Enum(&["ssd", "log"]), &[]),
    (
        "ftl.log_gc_garbage_threshold",
        Float,
        &["0.1", "0.15", "0.5"],
    ),
    ("workload.type", Enum(WORKLOADS), &[]),
    (
        "workload.writes",
        Amount,
        &["\"1x\"", "\"0.5x\"", "100", "1000"],
    ),
    ("workload.requests", Count, &["100", "1000", "5000"]),
    (
        "workload.warmup",
        Amount,
        &["\"0.5x\"", "\"1x\"", "0", "100"],
    ),
    ("workload.seed", Uint(64), &["0", "1", "42", "7"]),
    ("workload.hot_write_fraction", Float, &["0.9", "0.8", "0.5"]),
    ("workload.hot_space_fraction", Float, &["0.1", "0.2"]),
    ("workload.zipf_theta", Float, &["0.99", "0.5", "1.2"]),
    ("workload.read_fraction", Float, &["0", "0.3"]),
    ("workload.trim_fraction", Float, &["0", "0.05"]),
    (
        "workload.precondition",
        Enum(&["none", "sequential-fill"]),
        &[],
    ),
    ("workload.request_pages", Uint(32), &["1", "2", "4", "8"]),
    ("workload.request_pages_max", Uint(32), &["1", "4", "8"]),
    ("workload.span", Amount, &["\"0.5x\"", "\"1x\"", "100"]),
    ("workload.dedup_fraction", Float, &["0", "0.3"]),
    (
        "workload.dedup_working_set",
        Amount,
        &["1000", "10", "\"0.1x\""],
    ),
    ("workload.tables", Uint(32), &["1", "4", "60"]),
    ("workload.pareto_h", Float, &["0.2", "0.5"]),
    ("workload.zipf_alpha", Float, &["0", "0.8", "1.0"]),
    (
        "workload.working_set_bytes",
        Uint(64),
        &["4096", "409600", "1048576"],
    ),
    (
        "workload.hot_shift_bytes",
        Uint(64),
        &["4096", "65536", "1048576"],
    ),
    (
        "workload.mix",
        Raw,
        &[
            "[\"rocksdb\", \"gcc\"]",
            "[\"sqlite\"]",
            "[]",
            "[\"mix\"]",
            "[\"uniform\"]",
        ],
    ),
    (
        "workload.ycsb",
        Enum(&["load", "a", "b", "c", "d", "e", "f"]),
        &[],
    ),
    ("workload.records", Count, &["100", "1000"]),
    ("workload.operations", Count, &["100", "1000"]),
    ("workload.key_bytes", Uint(32), &["16", "8"]),
    ("workload.value_bytes", Uint(32), &["100", "1024"]),
    (
        "workload.ycsb_distribution",
        Enum(&["zipfian", "latest", "uniform"]),
        &[],
    ),
    ("workload.trace.path", Str, &[]),
    (
        "workload.trace.format",
        Str,
        &[
            "\"msr\"",
            "\"disksim\"",
            "\"native\"",
            "\"vscsi\"",
            "\"blkparse\"",
        ],
    ),
    (
        "workload.trace.device",
        Str,
        &["\"0\"", "\"1\"", "\"hm_0\"", "\"8,0\""],
    ),
    ("workload.trace.compact", Bool, &[]),
    ("workload.trace.repeat", Uint(32), &["1", "2", "3"]),
    (
        "workload.trace.time_unit",
        Str,
        &["\"s\"", "\"ms\"", "\"us\"", "\"ns\""],
    ),
    (
        "workload.trace.blkparse_action",
        Str,
        &["\"D\"", "\"Q\"", "\"C\""],
    ),
    ("workload.trace.skip_bad_lines", Bool, &[]),
    ("workload.trace.spread_seconds", Bool, &[]),
    ("workload.trace.trims", Enum(&["keep", "drop"]), &[]),
    ("metrics.survival", Bool, &[]),
    ("metrics.window", Amount, &["\"0.05x\"", "100"]),
    ("timing.channels", Uint(32), &["1", "2", "4"]),
    ("timing.luns_per_channel", Uint(32), &["1", "2"]),
    ("timing.read_latency_us", Float, &["40.0", "1", "0"]),
    ("timing.program_latency_us", Float, &["200.0", "10"]),
    ("timing.erase_latency_us", Float, &["2000.0", "100"]),
    ("timing.transfer_us_per_page", Float, &["10.0", "0"]),
    ("timing.controller_overhead_us", Float, &["0.0", "5"]),
    ("timing.queue_depth", Uint(32), &["1", "4", "32"]),
    ("timing.mode", Enum(&["closed", "open"]), &[]),
    ("timing.arrival_rate_iops", Float, &["1000", "50000"]),
    ("timing.speedup", Float, &["1", "2", "0.5"]),
    ("timing.series_window", Uint(64), &["100", "1000"]),
    ("timing.background_gc", Bool, &[]),
    ("timing.background_gc_free_blocks", Uint(32), &["2", "4"]),
    ("timing.suspend", Bool, &[]),
    ("timing.suspend_overhead_us", Float, &["5"]),
    ("timing.resume_overhead_us", Float, &["5"]),
    ("timing.write_buffer_pages", Uint(32), &["0", "16"]),
    ("lsm.memtable_bytes", Uint(64), &["65536", "4194304"]),
    ("lsm.block_bytes", Uint(32), &["4096", "1024"]),
    ("lsm.sstable_bytes", Uint(64), &["262144", "2097152"]),
    ("lsm.l1_bytes", Uint(64), &["1048576", "10485760"]),
    ("lsm.level_ratio", Uint(32), &["10", "2"]),
    ("lsm.levels", Uint(32), &["7", "2"]),
    ("lsm.l0_trigger", Uint(32), &["4", "1"]),
    ("lsm.remap", Enum(&["off", "base", "full"]), &[]),
    ("lsm.seek_compaction", Bool, &[]),
    ("lsm.aligned_block_max_pages", Uint(32), &["8", "1"]),
];

/// Keys of a host layer (`host.layers[i].KEY`), by layer type.
pub const LAYER_KEYS: &[(&str, &str, Kind, &[&str])] = &[
    (
        "lba-streams",
        "ranges",
        Raw,
        &[
            "[[0, 100, 1]]",
            "[[0, 10, 0]]",
            "[]",
            "[[5, 1, 1]]",
            "[[0, 9223372036854775807, 1]]",
        ],
    ),
    ("log", "capacity_ratio", Float, &["0.9", "0.7"]),
    ("log", "segment_pages", Uint(32), &["16", "64", "4"]),
    ("log", "segment_bytes", Uint(64), &["65536", "4096"]),
    ("log", "append_streams", Uint(8), &["1", "2", "6"]),
    (
        "log",
        "separation",
        Enum(&["none", "hot-cold", "f2fs"]),
        &[],
    ),
    ("log", "gc_policy", Enum(GC), &[]),
    ("log", "gc_choices", Uint(32), &["1", "8"]),
    ("log", "free_segments_low", Uint(32), &["0", "1"]),
    ("log", "free_segments_high", Uint(32), &["0", "2"]),
    ("log", "trim", Bool, &[]),
    ("log", "metadata", Bool, &[]),
    ("log", "checkpoint_pages", Uint(64), &["16384", "64"]),
    ("log", "coordination", Enum(&["none", "defer-lower"]), &[]),
    ("log", "lower_streams", Bool, &[]),
    (
        "manual",
        "map",
        Raw,
        &["[[1, 1]]", "[]", "[[0, 0], [1, 2]]"],
    ),
    ("manual", "default_stream", Uint(16), &["0", "1"]),
    ("autostream", "algorithm", Enum(&["sfr", "mq"]), &[]),
    ("autostream", "rules", Enum(&["paper", "bdbm"]), &[]),
    ("autostream", "chunk_bytes", Uint(64), &["1048576", "4096"]),
    ("autostream", "decay_s", Float, &["1.0", "0.1"]),
    ("pcstream", "lba_granularity_bytes", Uint(64), &["4096"]),
    ("pcstream", "pc_table_bytes", Uint(64), &["65536"]),
    ("pcstream", "persistent", Bool, &[]),
    ("pcstream", "k", Uint(16), &["2", "4"]),
    ("pcstream", "recluster_fraction", Float, &["0.1", "0.5"]),
    ("oracle", "class_ratio", Float, &["2.0", "4.0"]),
];

pub const LAYER_TYPES: &[&str] = &[
    "lba-streams",
    "log",
    "manual",
    "write-hint",
    "autostream",
    "pcstream",
    "oracle",
];

/// Whether an error may name `key` (dotted, `host.layers[0].x` written
/// `host.layers.x`): a key of the contract or a section of it.
pub fn is_known_key(key: &str) -> bool {
    let key = strip_indices(key);
    let known = |k: &str| k == key || k.starts_with(&format!("{key}."));
    KEYS.iter().any(|(k, _, _)| known(k))
        || LAYER_KEYS
            .iter()
            .any(|(_, k, _, _)| known(&format!("host.layers.{k}")))
        || ["host.layers", "host.layers.type", "host"].contains(&key.as_str())
}

fn strip_indices(key: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in key.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Small base configs after the example files (devices of 16-256 blocks,
/// windows of a logical capacity or less). `{trace}` is the trace's file.
pub const BASES: &[(&str, &str)] = &[
    ("basic", "[device]\npage_bytes = 4096\npages_per_block = 16\nblocks = 64\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\ngc_policy = \"greedy\"\ngc_choices = 8\nfrontiers = \"shared\"\n[workload]\ntype = \"uniform\"\nprecondition = \"sequential-fill\"\nwarmup = \"0.5x\"\nwrites = \"1x\"\nseed = 42\n[metrics]\nsurvival = true\n"),
    ("timing", "[device]\npages_per_block = 256\nblocks = 64\nspare_factor = 0.07\npe_cycle_limit = 0\nchannels = 8\nluns_per_channel = 4\n[workload]\ntype = \"uniform\"\nwarmup = \"0.5x\"\nwrites = \"0.5x\"\n[timing]\nread_latency_us = 40.0\nprogram_latency_us = 200.0\nerase_latency_us = 2000.0\ntransfer_us_per_page = 10.0\nmode = \"closed\"\nqueue_depth = 32\n"),
    ("streams", "[device]\npages_per_block = 16\nblocks = 128\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\nstreams = 2\ninternal_streams = false\n[workload]\ntype = \"hot-cold\"\nhot_write_fraction = 0.9\nhot_space_fraction = 0.1\nwarmup = \"0.5x\"\nwrites = \"1x\"\n[[host.layers]]\ntype = \"lba-streams\"\nranges = [[0, 100, 1]]\n"),
    ("log", "[device]\npages_per_block = 16\nblocks = 128\nspare_factor = 0.1\npe_cycle_limit = 0\n[workload]\ntype = \"uniform\"\nwarmup = \"0.5x\"\nwrites = \"1x\"\n[[host.layers]]\ntype = \"log\"\ncapacity_ratio = 0.9\nsegment_pages = 16\nappend_streams = 2\nseparation = \"hot-cold\"\ngc_policy = \"greedy\"\ntrim = true\nmetadata = true\ncheckpoint_pages = 256\n"),
    ("fdp", "[device]\npages_per_block = 16\nblocks = 128\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\ngc_policy = \"cost-benefit\"\nfdp = true\nfdp_reclaim_groups = 1\nfdp_handles = 2\nfdp_ru_blocks = 4\nfdp_isolation = \"persistently\"\n[workload]\ntype = \"hot-cold\"\nwarmup = \"0.5x\"\nwrites = \"1x\"\n[[host.layers]]\ntype = \"lba-streams\"\nranges = [[0, 100, 1]]\n"),
    ("dftl", "[device]\nblocks = 64\npages_per_block = 16\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\nmapping_cache_entries = 90\n[workload]\ntype = \"uniform\"\nwrites = \"1x\"\nwarmup = \"0.5x\"\n"),
    ("power-loss", "[device]\npages_per_block = 16\nblocks = 64\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\ncheckpoint_interval_pages = 256\njournal_batch = 8\nwrite_buffer_pages = 4\npower_loss_protection = false\n[workload]\ntype = \"uniform\"\nrequest_pages = 1\nrequest_pages_max = 4\nwarmup = \"0.5x\"\nrequests = 500\nread_fraction = 0.1\ntrim_fraction = 0.05\nseed = 42\n"),
    ("ycsb", "[device]\npages_per_block = 64\nblocks = 64\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\nremap = true\n[workload]\ntype = \"ycsb\"\nycsb = \"a\"\nrecords = 300\noperations = 300\nkey_bytes = 16\nvalue_bytes = 256\n[lsm]\nmemtable_bytes = 65536\nsstable_bytes = 65536\nl1_bytes = 262144\nremap = \"full\"\n"),
    ("apps", "[device]\npages_per_block = 16\nblocks = 256\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\nstreams = 9\n[workload]\ntype = \"mix\"\nmix = [\"rocksdb\", \"gcc\"]\nwarmup = \"0.5x\"\nwrites = \"0.5x\"\n[[host.layers]]\ntype = \"pcstream\"\n"),
    ("dedup", "[device]\npages_per_block = 16\nblocks = 64\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl]\ndedup = true\nplacement = \"coldmap\"\ncoldmap_threshold = 2\n[workload]\ntype = \"zipf\"\nzipf_theta = 0.99\ndedup_fraction = 0.3\ndedup_working_set = 100\nwarmup = \"0.5x\"\nwrites = \"1x\"\n"),
    ("zoned", "[device]\npages_per_block = 16\nblocks = 64\nzoned = true\nzone_blocks = 1\n[workload]\ntype = \"uniform\"\nwarmup = \"0.5x\"\nwrites = \"1x\"\n[[host.layers]]\ntype = \"log\"\ncapacity_ratio = 0.8\nsegment_pages = 16\n"),
    ("placement", "[device]\npages_per_block = 16\nblocks = 128\nspare_factor = 0.1\npe_cycle_limit = 0\n[ftl.placement_scheme]\ntype = \"sepbit\"\nlifespan_window_segments = 2\n[workload]\ntype = \"zipf\"\nwarmup = \"0.5x\"\nwrites = \"1x\"\n"),
    ("trace", "[device]\npages_per_block = 16\nblocks = 64\nspare_factor = 0.1\n[workload]\ntype = \"trace\"\nprecondition = \"none\"\n[workload.trace]\npath = \"{trace}\"\ncompact = true\nrepeat = 2\n"),
];

/// The example files themselves (the repository's examples/*.toml), made
/// small: a device of at most 64 blocks and short windows.
pub fn example_base(rng: &mut Rng64) -> Option<TomlDoc> {
    let names = [
        "basic",
        "timing",
        "streams",
        "log",
        "fdp",
        "dftl",
        "power-loss",
        "remapcom",
    ];
    let name = names.choose(rng)?;
    let path = super::repo_root().join(format!("examples/{name}.toml"));
    let mut doc = TomlDoc::parse(&std::fs::read_to_string(path).ok()?);
    let blocks: u64 = doc
        .get("device", "blocks")
        .and_then(|b| b.parse().ok())
        .unwrap_or(64);
    doc.set("device", "blocks", &blocks.min(64).to_string(), None);
    for (key, small) in [("warmup", "\"0.5x\""), ("writes", "\"0.5x\"")] {
        if doc.get("workload", key).is_some() {
            doc.set("workload", key, small, None);
        }
    }
    for key in ["requests", "records", "operations"] {
        if doc.get("workload", key).is_some() {
            doc.set("workload", key, "300", None);
        }
    }
    Some(doc)
}

/// A base config: a template (or, one time in four, an example file).
pub fn base(rng: &mut Rng64, trace: Option<&str>) -> TomlDoc {
    if trace.is_none() && rng.random_bool(0.25) {
        if let Some(doc) = example_base(rng) {
            return doc;
        }
    }
    let (_, text) = match trace {
        Some(_) => BASES.last().expect("trace base"),
        None => BASES[..BASES.len() - 1].choose(rng).expect("bases"),
    };
    let mut doc = TomlDoc::parse(&text.replace("{trace}", trace.unwrap_or("")));
    if trace.is_some_and(|t| t.ends_with(".blkparse")) {
        doc.set("workload.trace", "blkparse_action", "\"D\"", None);
    }
    if doc.has_section("timing") && rng.random_bool(0.5) {
        doc.set("timing", "mode", "\"open\"", None);
        doc.set("timing", "arrival_rate_iops", "20000", None);
    }
    doc
}

/// One mutation: a random key of the contract (biased to the sections the
/// config already has) and a value from the three pools. Returns the
/// dotted key and the value, for `--set` or for the file.
pub fn mutation(rng: &mut Rng64, doc: &TomlDoc) -> (String, super::values::Value) {
    let layer_type = doc
        .sections
        .iter()
        .find(|s| s.name == "host.layers")
        .and_then(|s| s.entries.iter().find(|e| e.key == "type"))
        .map(|e| e.value.trim_matches('"').to_string());
    if let Some(t) = layer_type.filter(|_| rng.random_bool(0.25)) {
        let keys: Vec<_> = LAYER_KEYS.iter().filter(|(lt, ..)| *lt == t).collect();
        if let Some((_, key, kind, typical)) = keys.choose(rng) {
            return (format!("host.layers[0].{key}"), value(rng, *kind, typical));
        }
    }
    // Mostly a key the config sets: its value matters to this run.
    if rng.random_bool(0.6) {
        let present: Vec<_> = KEYS
            .iter()
            .filter(|(k, ..)| {
                let (section, leaf) = k.rsplit_once('.').expect("dotted");
                doc.get(section, leaf).is_some()
            })
            .collect();
        if let Some((key, kind, typical)) = present.choose(rng) {
            return (key.to_string(), value(rng, *kind, typical));
        }
    }
    let own: Vec<_> = KEYS
        .iter()
        .filter(|(k, ..)| {
            let section = &k[..k.rfind('.').expect("dotted")];
            doc.has_section(section)
        })
        .collect();
    let (key, kind, typical) = if !own.is_empty() && rng.random_bool(0.7) {
        **own.choose(rng).expect("own")
    } else {
        *KEYS.choose(rng).expect("keys")
    };
    (key.to_string(), value(rng, kind, typical))
}

/// A structural mutation of the file: a section given as an array or a
/// scalar, an unknown key, a new host layer or timing section, or broken
/// syntax.
pub fn structural(rng: &mut Rng64, doc: &mut TomlDoc) {
    match rng.random_range(0..6) {
        0 | 1 => {
            // A section as an array of its values in order (a positional
            // struct) or as a scalar: never a valid config.
            let names: Vec<String> = doc
                .sections
                .iter()
                .filter(|s| !s.array && !s.name.contains('.'))
                .map(|s| s.name.clone())
                .collect();
            let Some(name) = names.choose(rng).cloned() else {
                return;
            };
            // In the struct's field order (the order of KEYS), a prefix of
            // any length: serde reads a sequence as a positional struct.
            let prefix = format!("{name}.");
            let fields: Vec<_> = KEYS
                .iter()
                .filter(|(k, ..)| {
                    k.strip_prefix(&prefix)
                        .is_some_and(|leaf| !leaf.contains('.'))
                })
                .collect();
            let n = rng.random_range(1..=fields.len().max(1));
            let values: Vec<String> = fields
                .iter()
                .take(n)
                .map(|(k, kind, typical)| {
                    let leaf = &k[prefix.len()..];
                    doc.get(&name, leaf)
                        .map(str::to_string)
                        .unwrap_or_else(|| match kind {
                            Enum(names) => format!("\"{}\"", names[0]),
                            Bool => "false".into(),
                            _ => typical.first().unwrap_or(&"0").to_string(),
                        })
                })
                .collect();
            doc.sections
                .retain(|s| s.name != name && !s.name.starts_with(&format!("{name}.")));
            let text = if rng.random_bool(0.7) {
                format!("[{}]", values.join(", "))
            } else {
                "42".to_string()
            };
            doc.top.push(Entry {
                key: name.clone(),
                value: text.clone(),
                reject: Some(format!("section `{name}` given as `{text}`, not a table")),
            });
        }
        2 => {
            let section = ["device", "ftl", "workload", "metrics", "timing", "lsm"]
                .choose(rng)
                .expect("sections");
            doc.set(
                section,
                "no_such_key",
                "1",
                Some(format!("unknown key {section}.no_such_key")),
            );
        }
        3 => {
            let t = LAYER_TYPES.choose(rng).expect("types");
            let mut entries = vec![Entry {
                key: "type".into(),
                value: format!("\"{t}\""),
                reject: None,
            }];
            for (_, key, kind, typical) in LAYER_KEYS.iter().filter(|(lt, ..)| lt == t) {
                if rng.random_bool(0.3) {
                    let v = value(rng, *kind, typical);
                    entries.push(Entry {
                        key: key.to_string(),
                        value: v.text,
                        reject: v.reject,
                    });
                }
            }
            doc.sections.push(Section {
                name: "host.layers".into(),
                array: true,
                entries,
            });
        }
        4 => {
            if !doc.has_section("timing") {
                doc.set("timing", "mode", "\"closed\"", None);
                doc.set("timing", "queue_depth", "4", None);
            }
        }
        _ => {
            let junk = [
                "[device\n",
                "x = \n",
                "= 1\n",
                "[ftl]\n[ftl]\n",
                "a = \"unterminated\n",
                "\u{0}\n",
            ];
            let text = junk.choose(rng).expect("junk").to_string();
            doc.tail = Some(text.clone());
            doc.top.push(Entry {
                key: "# broken".into(),
                value: String::new(),
                reject: Some(format!("invalid TOML {text:?}")),
            });
        }
    }
}
