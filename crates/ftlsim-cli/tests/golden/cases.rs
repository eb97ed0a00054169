//! The golden run cases: every example config (shrunk with `--set` where it
//! is slow, so that GC, placement and the layers still do their work), each
//! feature's variants, the crash test and `validate --quick` (the quick grids
//! are built in case.rs). A case's name is its golden file's name.
//!
//! To add a case: a line below, then `FTLSIM_BLESS=1` once, from a binary
//! whose results are known good (the module comment of tests/golden.rs).

use super::case::{run, Case};
use super::traces::Generated;

/// Every run case.
pub fn runs(traces: &Generated) -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(plain());
    cases.extend(streams_and_fdp());
    cases.extend(placement());
    cases.extend(log_regime());
    cases.extend(logs());
    cases.extend(dedup());
    cases.extend(timing());
    cases.extend(power_loss());
    cases.extend(lsm());
    cases.extend(applications());
    cases.extend(trace_replay(traces));
    cases.push(Case::new(
        "validate-quick",
        vec!["validate".into(), "--quick".into(), "--json".into()],
    ));
    cases
}

/// basic.toml at 512 blocks of 64 pages: 6x logical capacity of writes.
const BASIC: &str = "examples/basic.toml";
const SMALL_BASIC: &[&str] = &["device.blocks=512", "device.pages_per_block=64"];

fn plain() -> Vec<Case> {
    let mut cases = vec![
        run(
            "defaults",
            "",
            &[&["device.blocks=128", "device.pages_per_block=32"]],
        ),
        run("basic-greedy", BASIC, &[SMALL_BASIC]),
        run("basic-seed-7", BASIC, &[SMALL_BASIC, &["workload.seed=7"]]),
        run(
            "basic-separate-frontiers",
            BASIC,
            &[SMALL_BASIC, &["ftl.frontiers=\"separate\""]],
        ),
        run(
            "basic-watermarks-wear-leveling",
            BASIC,
            &[
                SMALL_BASIC,
                &[
                    "ftl.gc_low_watermark=4",
                    "ftl.gc_high_watermark=12",
                    "ftl.wear_leveling_threshold=4",
                    "workload.type=\"hot-cold\"",
                ],
            ],
        ),
        // A P/E limit reached in the measured window: blocks retire and the
        // device ends its life half-way through it.
        run(
            "basic-wears-out",
            BASIC,
            &[SMALL_BASIC, &["device.pe_cycle_limit=30"]],
        ),
        run("basic-out", BASIC, &[SMALL_BASIC]).out(),
    ];
    for policy in ["cost-benefit", "fifo", "random", "d-choices"] {
        let set = format!("ftl.gc_policy=\"{policy}\"");
        cases.push(run(
            &format!("basic-{policy}"),
            BASIC,
            &[SMALL_BASIC, &[&set]],
        ));
    }
    let workloads: [(&str, &[&str]); 5] = [
        (
            "hot-cold",
            &[
                "workload.type=\"hot-cold\"",
                "workload.hot_write_fraction=0.8",
                "workload.hot_space_fraction=0.2",
                "workload.read_fraction=0.3",
                "workload.trim_fraction=0.05",
                "workload.request_pages=2",
                "workload.request_pages_max=6",
                "workload.requests=60000",
            ],
        ),
        (
            "zipf",
            &["workload.type=\"zipf\"", "workload.zipf_theta=0.99"],
        ),
        (
            "sequential",
            &["workload.type=\"sequential\"", "workload.request_pages=8"],
        ),
        (
            "tables",
            &[
                "workload.type=\"tables\"",
                "workload.tables=60",
                "workload.pareto_h=0.2",
                "workload.request_pages=4",
            ],
        ),
        (
            "requests",
            &["workload.requests=50000", "workload.read_fraction=0.5"],
        ),
    ];
    for (name, sets) in workloads {
        cases.push(run(
            &format!("workload-{name}"),
            BASIC,
            &[SMALL_BASIC, sets],
        ));
    }
    cases
}

/// streams.toml and fdp.toml at 256 blocks; the hot range shrunk with the space.
const SMALL_STREAMS: &[&str] = &["device.blocks=256", "host.layers[0].ranges=[[0, 1500, 1]]"];

fn streams_and_fdp() -> Vec<Case> {
    let streams = "examples/streams.toml";
    let fdp = "examples/fdp.toml";
    vec![
        run("streams", streams, &[SMALL_STREAMS]),
        run(
            "streams-separate",
            streams,
            &[SMALL_STREAMS, &["ftl.frontiers=\"separate\""]],
        ),
        run(
            "streams-internal",
            streams,
            &[SMALL_STREAMS, &["ftl.internal_streams=true"]],
        ),
        run("fdp", fdp, &[SMALL_STREAMS]),
        run(
            "fdp-initially",
            fdp,
            &[SMALL_STREAMS, &["ftl.fdp_isolation=\"initially\""]],
        ),
        run(
            "fdp-two-groups",
            fdp,
            // Placement ids 2 and 3 are the second group's handles: each
            // group takes half the space.
            &[&[
                "ftl.fdp_reclaim_groups=2",
                "device.blocks=512",
                "device.spare_factor=0.2",
                "host.layers[0].ranges=[[0, 1500, 1], [13000, 14500, 3], [14500, 26000, 2]]",
            ]],
        ),
    ]
}

/// placement/sepbit.toml at 256 blocks of 64 pages, each scheme; and
/// SepBIT's synthetic workload.
fn placement() -> Vec<Case> {
    let example = "examples/placement/sepbit.toml";
    let small: &[&str] = &["device.blocks=256", "device.pages_per_block=64"];
    let schemes = [
        "nosep", "sepgc", "dac", "sfs", "multilog", "eti", "mq", "sfr", "fadac", "warcip",
        "sepbit", "fk", "midas", "tworr",
    ];
    let mut cases: Vec<Case> = schemes
        .iter()
        .map(|scheme| {
            let set = format!("ftl.placement_scheme.type=\"{scheme}\"");
            run(
                &format!("placement-{scheme}"),
                example,
                &[small, &[set.as_str()]],
            )
        })
        .collect();
    // 2R-FIFO: tworr with ssdiq's FIFO victim order.
    cases.push(run(
        "placement-tworr-fifo",
        example,
        &[
            small,
            &[
                "ftl.placement_scheme.type=\"tworr\"",
                "ftl.placement_scheme.victim=\"fifo\"",
            ],
        ],
    ));
    cases.push(run(
        "sepbit-synthetic",
        "examples/sepbit-synthetic.toml",
        &[&[
            "device.blocks=256",
            "device.pages_per_block=64",
            "workload.working_set_bytes=33554432",
            "workload.hot_shift_bytes=4194304",
        ]],
    ));
    cases
}

/// SepBIT's log regime (`ftl.regime = "log"`) on placement/synthetic.toml
/// at 128 blocks of 64 pages: nosep, sepbit and fk greedy, sepbit with
/// SepBIT's cost-benefit.
fn log_regime() -> Vec<Case> {
    let example = "examples/placement/synthetic.toml";
    let small: &[&str] = &[
        "device.blocks=128",
        "device.pages_per_block=64",
        "workload.hot_shift_bytes=1048576",
        "workload.writes=\"8x\"",
        "ftl.regime=\"log\"",
    ];
    let mut cases: Vec<Case> = ["nosep", "sepbit", "fk"]
        .iter()
        .map(|scheme| {
            let set = format!("ftl.placement_scheme.type=\"{scheme}\"");
            run(
                &format!("placement-log-{scheme}"),
                example,
                &[small, &[set.as_str()]],
            )
        })
        .collect();
    cases.push(run(
        "placement-log-sepbit-cost-benefit",
        example,
        &[
            small,
            &[
                "ftl.placement_scheme.type=\"sepbit\"",
                "ftl.gc_policy=\"cost-benefit\"",
            ],
        ],
    ));
    cases
}

const LOG: &str = "examples/log.toml";
const SMALL_LOG: &[&str] = &["device.blocks=256"];

fn logs() -> Vec<Case> {
    let mut cases = vec![
        run("log", LOG, &[SMALL_LOG]),
        run("log-out", LOG, &[SMALL_LOG]).out(),
        run(
            "log-hot-cold-cost-benefit",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "workload.type=\"hot-cold\"",
                    "host.layers[0].separation=\"hot-cold\"",
                    "host.layers[0].append_streams=2",
                    "host.layers[0].gc_policy=\"cost-benefit\"",
                    "host.layers[0].free_segments_low=2",
                    "host.layers[0].free_segments_high=6",
                ],
            ],
        ),
        run(
            "log-f2fs-metadata-6-streams",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "host.layers[0].separation=\"f2fs\"",
                    "host.layers[0].append_streams=6",
                    "host.layers[0].metadata=true",
                    "host.layers[0].checkpoint_pages=2048",
                ],
            ],
        ),
        run(
            "log-no-trim-d-choices",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "host.layers[0].trim=false",
                    "host.layers[0].gc_policy=\"d-choices\"",
                ],
            ],
        ),
        run(
            "log-fifo-random",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "host.layers[0].gc_policy=\"fifo\"",
                    "ftl.gc_policy=\"random\"",
                ],
            ],
        ),
        run(
            "two-logs",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "host.layers=[{type = \"log\", capacity_ratio = 0.9, segment_pages = 128, \
                 append_streams = 2, separation = \"hot-cold\"}, {type = \"log\", \
                 capacity_ratio = 0.9, segment_pages = 32, gc_policy = \"cost-benefit\"}]",
                    "workload.type=\"hot-cold\"",
                ],
            ],
        ),
        run(
            "log-over-lba-streams",
            LOG,
            &[
                SMALL_LOG,
                &[
                    "ftl.streams=2",
                    "host.layers=[{type = \"log\", capacity_ratio = 0.9, segment_pages = 64}, \
                 {type = \"lba-streams\", ranges = [[0, 4000, 1]]}]",
                ],
            ],
        ),
    ];
    for example in [
        "coordination",
        "metadata",
        "skewed-70",
        "skewed-90",
        "trim",
        "uniform-70",
        "uniform-90",
        "zoned",
    ] {
        let config = format!("examples/log-on-log/{example}.toml");
        // Coordination's watermarks (8 and 16 free blocks) need the spare
        // blocks of 512.
        let blocks = if example == "coordination" {
            "device.blocks=512"
        } else {
            "device.blocks=256"
        };
        cases.push(run(&format!("log-on-log-{example}"), &config, &[&[blocks]]));
    }
    // The log on a zoned device (the experiment's on-zones variant), and
    // zones of four blocks with a limit on open zones.
    let zoned = "examples/log-on-log/zoned.toml";
    cases.push(run(
        "zoned",
        zoned,
        &[&[
            "device.blocks=256",
            "device.zoned=true",
            "device.zone_blocks=1",
            "host.layers[0].capacity_ratio=0.83699799",
        ]],
    ));
    cases.push(run(
        "zoned-4-block-zones",
        zoned,
        &[&[
            "device.blocks=256",
            "device.zoned=true",
            "device.zone_blocks=4",
            "device.max_open_zones=4",
            "host.layers[0].segment_pages=256",
            "host.layers[0].append_streams=2",
            "host.layers[0].capacity_ratio=0.8",
        ]],
    ));
    cases
}

/// The Coldmap configs (dedup, a timed closed loop at QD 32) at 64 blocks
/// of 256 pages, 2x warm-up.
const SMALL_COLDMAP: &[&str] = &["device.blocks=64", "workload.warmup=\"2x\""];

fn dedup() -> Vec<Case> {
    let fio = "examples/coldmap/fio.toml";
    let mut cases = Vec::new();
    let variants: [(&str, &[&str]); 5] = [
        ("baseline", &["ftl.dedup=false"]),
        ("remap", &[]),
        ("coldmap", &["ftl.placement=\"coldmap\""]),
        ("coldmap-age", &["ftl.placement=\"coldmap-age\""]),
        ("remap-separate", &["ftl.frontiers=\"separate\""]),
    ];
    for (variant, sets) in variants {
        cases.push(run(
            &format!("coldmap-fio-{variant}"),
            fio,
            &[SMALL_COLDMAP, &["workload.writes=16384"], sets],
        ));
    }
    for (example, window) in [
        ("tpcc", "workload.requests=20000"),
        ("sysbench", "workload.writes=16384"),
        ("ycsb", "workload.requests=20000"),
    ] {
        let config = format!("examples/coldmap/{example}.toml");
        cases.push(run(
            &format!("coldmap-{example}"),
            &config,
            &[SMALL_COLDMAP, &[window]],
        ));
    }
    cases.push(run(
        "coldmap-tpcc-coldmap-age",
        "examples/coldmap/tpcc.toml",
        &[
            SMALL_COLDMAP,
            &["workload.requests=20000", "ftl.placement=\"coldmap-age\""],
        ],
    ));
    cases.push(run(
        "dedup-untimed-remap-verify",
        BASIC,
        &[
            SMALL_BASIC,
            &[
                "ftl.dedup=true",
                "ftl.remap=true",
                "ftl.verify_content=true",
                "workload.dedup_fraction=0.5",
            ],
        ],
    ));
    cases.push(
        run("coldmap-homes", "examples/coldmap/homes.toml", &[])
            .needs("../shared/traces/homes.replay.0"),
    );
    cases.push(run(
        "dftl",
        "examples/dftl.toml",
        &[&["device.blocks=256", "ftl.mapping_cache_entries=1500"]],
    ));
    cases.push(run(
        "dftl-timed-log",
        "examples/dftl.toml",
        &[&[
            "device.blocks=256",
            "ftl.mapping_cache_entries=800",
            "workload.requests=30000",
            "workload.read_fraction=0.3",
            "timing.queue_depth=8",
        ]],
    ));
    cases
}

/// timing.toml with 1024-page blocks (32 LUNs x 32 pages) and 64 of them.
const TIMING: &str = "examples/timing.toml";
const SMALL_TIMING: &[&str] = &["device.pages_per_block=1024", "device.blocks=64"];

fn timing() -> Vec<Case> {
    vec![
        run("timing-closed", TIMING, &[SMALL_TIMING]),
        // The timer on the loop's own thread: the same bytes as on a thread of its own.
        run("timing-closed", TIMING, &[SMALL_TIMING]).env("FTLSIM_PIPELINE", "0"),
        run("timing-out", TIMING, &[SMALL_TIMING]).out(),
        run(
            "timing-open-loop",
            TIMING,
            &[
                SMALL_TIMING,
                &[
                    "timing.mode=\"open\"",
                    "timing.arrival_rate_iops=20000",
                    "timing.channels=2",
                    "timing.luns_per_channel=8",
                ],
            ],
        ),
        // Arrivals slow enough that some GC (about one in five) runs in idle time.
        run(
            "timing-background-gc",
            TIMING,
            &[
                SMALL_TIMING,
                &[
                    "timing.background_gc=true",
                    "timing.background_gc_free_blocks=8",
                    "timing.mode=\"open\"",
                    "timing.arrival_rate_iops=700",
                ],
            ],
        ),
        run(
            "timing-mix-suspend-buffer-planes",
            TIMING,
            &[
                SMALL_TIMING,
                &[
                    "workload.requests=60000",
                    "workload.read_fraction=0.7",
                    "device.planes_per_lun=2",
                    "timing.channels=4",
                    "timing.luns_per_channel=8",
                    "timing.suspend=true",
                    "timing.suspend_overhead_us=5.0",
                    "timing.resume_overhead_us=5.0",
                    "timing.write_buffer_pages=64",
                ],
            ],
        ),
        run(
            "timing-qd1-8-page-requests",
            TIMING,
            &[
                SMALL_TIMING,
                &[
                    "timing.queue_depth=1",
                    "workload.request_pages=8",
                    "timing.transfer_us_per_page=20.0",
                    "timing.controller_overhead_us=3.0",
                ],
            ],
        ),
        // Wears out in the middle of the measured window, inside a batch of
        // the timer's thread.
        run(
            "timing-wears-out",
            TIMING,
            &[SMALL_TIMING, &["device.pe_cycle_limit=22"]],
        ),
    ]
}

const POWER_LOSS: &str = "examples/power-loss.toml";
const SMALL_POWER_LOSS: &[&str] = &[
    "device.blocks=256",
    "workload.requests=20000",
    "ftl.checkpoint_interval_pages=4096",
];

fn crash(name: &str, extra: &[&str], sets: &[&str]) -> Case {
    let mut args: Vec<String> = ["crash-test", POWER_LOSS, "--cuts", "6", "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    for set in SMALL_POWER_LOSS.iter().chain(sets) {
        args.push("--set".into());
        args.push(set.to_string());
    }
    Case::new(name, args)
}

fn power_loss() -> Vec<Case> {
    let buffered: &[&str] = &["ftl.write_buffer_pages=32", "ftl.journal_batch=8"];
    vec![
        run("power-loss", POWER_LOSS, &[SMALL_POWER_LOSS]),
        run(
            "power-loss-buffered",
            POWER_LOSS,
            &[SMALL_POWER_LOSS, buffered],
        ),
        run(
            "power-loss-plp-timed",
            POWER_LOSS,
            &[
                SMALL_POWER_LOSS,
                buffered,
                &["ftl.power_loss_protection=true", "timing.queue_depth=4"],
            ],
        ),
        crash("crash-test", &[], &[]),
        crash(
            "crash-test-buffered-flushes",
            &["--flush-every", "50"],
            buffered,
        ),
        crash(
            "crash-test-remap-dedup",
            &["--remap-fraction", "0.1", "--seed", "9"],
            &["ftl.dedup=true", "workload.dedup_fraction=0.3"],
        ),
        crash(
            "crash-test-plp",
            &[],
            &[
                "ftl.write_buffer_pages=16",
                "ftl.power_loss_protection=true",
            ],
        ),
    ]
}

/// The RemapCom experiment's quick engine sizes, on 5 000 records.
const SMALL_LSM: &[&str] = &[
    "workload.records=5000",
    "workload.operations=5000",
    "lsm.memtable_bytes=262144",
    "lsm.sstable_bytes=131072",
    "lsm.l1_bytes=655360",
    "device.blocks=32",
];

fn lsm() -> Vec<Case> {
    let mut cases = vec![run("remapcom", "examples/remapcom.toml", &[SMALL_LSM])];
    for ycsb in ["load", "a", "b", "c", "d", "e", "f"] {
        let config = format!("examples/remapcom/{ycsb}.toml");
        cases.push(run(&format!("remapcom-{ycsb}"), &config, &[SMALL_LSM]));
    }
    let a = "examples/remapcom/a.toml";
    cases.push(run(
        "remapcom-a-off-100",
        a,
        &[
            SMALL_LSM,
            &["lsm.remap=\"off\"", "workload.value_bytes=100"],
        ],
    ));
    cases.push(run(
        "remapcom-a-base",
        a,
        &[SMALL_LSM, &["lsm.remap=\"base\""]],
    ));
    cases.push(run(
        "remapcom-b-seek-compaction-1-page-blocks",
        "examples/remapcom/b.toml",
        &[
            SMALL_LSM,
            &["lsm.seek_compaction=true", "lsm.aligned_block_max_pages=1"],
        ],
    ));
    cases.push(run("remapcom-out", a, &[SMALL_LSM]).out());
    // A device small enough that the engine's writes make it collect garbage.
    cases.push(run(
        "remapcom-a-device-gc",
        a,
        &[
            SMALL_LSM,
            &[
                "workload.records=20000",
                "workload.operations=20000",
                "device.pages_per_block=256",
                "device.blocks=40",
            ],
        ],
    ));
    cases
}

/// The emulator-shaped device of the PCStream experiment, shrunk: 256
/// blocks of 64 pages.
const SMALL_APP: &[&str] = &["device.blocks=256"];

fn applications() -> Vec<Case> {
    let mut cases = Vec::new();
    for app in ["rocksdb", "sqlite", "gcc", "cassandra", "mixed1", "mixed2"] {
        let config = format!("examples/pcstream/{app}.toml");
        cases.push(run(&format!("app-{app}"), &config, &[SMALL_APP]));
    }
    // The experiment's manual map, its first entries (rocksdb's and sqlite's contexts).
    let manual = "host.layers=[{type = \"manual\", map = [[4311744513, 1], [4328521730, 2], \
                  [4345298947, 3], [4362076163, 4], [4378853379, 5], [4378853380, 5], \
                  [8606711809, 1], [8623489026, 2], [8640266242, 3]]}]";
    let assigners: [(&str, &str, &[&str]); 13] = [
        ("rocksdb", "pcstream", &["host.layers=[{type = \"pcstream\"}]"]),
        ("gcc", "pcstream-internal", &["host.layers=[{type = \"pcstream\"}]", "ftl.internal_streams=true"]),
        ("gcc", "pcstream-table-4k", &["host.layers=[{type = \"pcstream\", pc_table_bytes = 4096}]"]),
        (
            "gcc",
            "pcstream-transient-k4",
            &["host.layers=[{type = \"pcstream\", pc_table_bytes = 368640, persistent = false, k = 4}]"],
        ),
        ("cassandra", "autostream-sfr", &["host.layers=[{type = \"autostream\", algorithm = \"sfr\"}]"]),
        ("mixed1", "autostream-mq", &["host.layers=[{type = \"autostream\", algorithm = \"mq\"}]"]),
        (
            "sqlite",
            "autostream-bdbm",
            &["host.layers=[{type = \"autostream\", algorithm = \"sfr\", rules = \"bdbm\", decay_s = 0.5}]"],
        ),
        ("rocksdb", "manual", &[manual]),
        ("sqlite", "manual-internal", &[manual, "ftl.internal_streams=true"]),
        ("rocksdb", "oracle", &["host.layers=[{type = \"oracle\"}]"]),
        ("mixed2", "oracle-internal", &["host.layers=[{type = \"oracle\", class_ratio = 2.0}]", "ftl.internal_streams=true"]),
        ("rocksdb", "write-hint", &["host.layers=[{type = \"write-hint\"}]"]),
        (
            "sqlite",
            "pcstream-fdp",
            &[
                "host.layers=[{type = \"pcstream\"}]",
                "ftl.streams=1",
                "ftl.fdp=true",
                "ftl.fdp_handles=9",
                "ftl.fdp_ru_blocks=1",
                "ftl.fdp_isolation=\"initially\"",
            ],
        ),
    ];
    for (app, variant, sets) in assigners {
        let config = format!("examples/pcstream/{app}.toml");
        cases.push(run(
            &format!("app-{app}-{variant}"),
            &config,
            &[SMALL_APP, sets],
        ));
    }
    cases.push(run(
        "app-gcc-pcstream-timed",
        "examples/pcstream/gcc.toml",
        &[
            SMALL_APP,
            &[
                "host.layers=[{type = \"pcstream\"}]",
                "timing.queue_depth=32",
                "timing.channels=4",
                "timing.luns_per_channel=2",
            ],
        ],
    ));
    cases
}

fn trace_replay(traces: &Generated) -> Vec<Case> {
    let fio_path = format!("workload.trace.path=\"{}\"", traces.fio());
    let native_path = format!("workload.trace.path=\"{}\"", traces.fio_native());
    let dedup_path = format!("workload.trace.path=\"{}\"", traces.dedup_native());
    let fio: &[&str] = &[
        &fio_path,
        "workload.trace.format=\"fio\"",
        "workload.trace.compact=false",
    ];
    let mut cases = vec![
        run(
            "trace-tpcc",
            "examples/trace.toml",
            &[&["workload.trace.repeat=3"]],
        )
        .needs("../shared/traces/tpcc-small.trace"),
        run(
            "trace-fio",
            "examples/trace.toml",
            &[&["device.blocks=512"], fio],
        ),
        run(
            "trace-fio-open-loop",
            "examples/trace.toml",
            &[
                &["device.blocks=512"],
                fio,
                &["timing.mode=\"open\"", "timing.speedup=2.0"],
            ],
        ),
        run(
            "trace-fio-closed-loop-drop-trims",
            "examples/trace.toml",
            &[
                &["device.blocks=512"],
                fio,
                &["workload.trace.trims=\"drop\"", "timing.queue_depth=16"],
            ],
        ),
        run(
            "trace-dedup-coldmap",
            "examples/coldmap/fio.toml",
            &[&[
                "device.blocks=64",
                "workload.type=\"trace\"",
                dedup_path.as_str(),
                "workload.trace.format=\"native\"",
                "workload.trace.repeat=4",
                "workload.trace.compact=true",
                "ftl.placement=\"coldmap\"",
            ]],
        ),
    ];
    // The pcstream-real configs replay native traces captured on the live
    // device (not in the repository); here, the synthetic log converted.
    for example in [
        "device-192mib",
        "device-256mib",
        "device-256mib-droptrims",
        "device-512mib",
        "device-512mib-droptrims",
    ] {
        let config = format!("examples/pcstream-real/{example}.toml");
        cases.push(run(
            &format!("pcstream-real-{example}"),
            &config,
            &[&[&native_path]],
        ));
    }
    cases
}
