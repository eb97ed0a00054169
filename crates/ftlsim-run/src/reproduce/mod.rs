//! Experiments that reproduce a paper: each is data, one file in
//! `experiments/` (see [`spec`]), run by one generic runner ([`experiment`])
//! and rendered by [`render`].

pub mod experiment;
pub mod render;
pub mod spec;

pub use experiment::{load, run_experiment, Experiment, Options, RunProgress, WorkloadResult};

/// A built-in experiment: its file and every config it names, embedded so
/// that the binary needs no files. Paths are relative to the repository root.
pub struct BuiltIn {
    pub name: &'static str,
    pub file: (&'static str, &'static str),
    pub configs: &'static [(&'static str, &'static str)],
}

macro_rules! embed {
    ($path:literal) => {
        ($path, include_str!(concat!("../../../../", $path)))
    };
}

/// The built-in experiments; adding one is its TOML file and one entry here.
pub const BUILT_IN: &[BuiltIn] = &[
    BuiltIn {
        name: "coldmap",
        file: embed!("experiments/coldmap.toml"),
        configs: &[
            embed!("examples/coldmap/fio.toml"),
            embed!("examples/coldmap/tpcc.toml"),
            embed!("examples/coldmap/sysbench.toml"),
            embed!("examples/coldmap/ycsb.toml"),
            embed!("examples/coldmap/homes.toml"),
            embed!("examples/coldmap/corpus-256mib.toml"),
        ],
    },
    BuiltIn {
        name: "log-on-log",
        file: embed!("experiments/log-on-log.toml"),
        configs: &[
            embed!("examples/log-on-log/uniform-90.toml"),
            embed!("examples/log-on-log/uniform-70.toml"),
            embed!("examples/log-on-log/skewed-90.toml"),
            embed!("examples/log-on-log/skewed-70.toml"),
            embed!("examples/log-on-log/metadata.toml"),
            embed!("examples/log-on-log/trim.toml"),
            embed!("examples/log-on-log/coordination.toml"),
            embed!("examples/log-on-log/zoned.toml"),
        ],
    },
    BuiltIn {
        name: "pcstream",
        file: embed!("experiments/pcstream.toml"),
        configs: &[
            embed!("examples/pcstream/rocksdb.toml"),
            embed!("examples/pcstream/sqlite.toml"),
            embed!("examples/pcstream/gcc.toml"),
            embed!("examples/pcstream/cassandra.toml"),
            embed!("examples/pcstream/mixed1.toml"),
            embed!("examples/pcstream/mixed2.toml"),
        ],
    },
    BuiltIn {
        name: "pcstream-real",
        file: embed!("experiments/pcstream-real.toml"),
        configs: &[
            embed!("examples/pcstream-real/corpus-256mib.toml"),
            embed!("examples/pcstream-real/corpus-512mib.toml"),
        ],
    },
    BuiltIn {
        name: "pcstream-knobs",
        file: embed!("experiments/pcstream-knobs.toml"),
        configs: &[
            embed!("examples/pcstream-real/corpus-256mib.toml"),
            embed!("examples/pcstream-real/corpus-512mib.toml"),
        ],
    },
    BuiltIn {
        name: "placement",
        file: embed!("experiments/placement.toml"),
        configs: &[
            embed!("examples/placement/synthetic.toml"),
            embed!("examples/placement/cloudphysics.toml"),
        ],
    },
    BuiltIn {
        name: "remapcom",
        file: embed!("experiments/remapcom.toml"),
        configs: &[
            embed!("examples/remapcom/load.toml"),
            embed!("examples/remapcom/a.toml"),
            embed!("examples/remapcom/b.toml"),
            embed!("examples/remapcom/c.toml"),
            embed!("examples/remapcom/d.toml"),
            embed!("examples/remapcom/e.toml"),
            embed!("examples/remapcom/f.toml"),
            embed!("examples/remapcom/a-near-full.toml"),
            embed!("examples/remapcom/a-no-trim.toml"),
        ],
    },
];
