//! `ftlsim reproduce`: experiments that reproduce a paper. Each one is data
//! (a config per workload under `examples/`, variants as key overrides) plus
//! the code that runs the grid and presents it next to the paper's numbers.

pub mod coldmap;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum ReproduceCmd {
    /// Coldmap (Seo and Koo): baseline, remap-based dedup SSD, Coldmap and our
    /// refinement on a fio-like workload, TPC-C/sysbench/YCSB stand-ins and a
    /// real trace with content hashes (docs/coldmap.md).
    Coldmap {
        /// A 1 GiB device instead of 16 GiB (CI; a few seconds).
        #[arg(long)]
        quick: bool,
        /// Print `{"workloads": {NAME: {VARIANT: report}}}` on stdout instead of the table.
        #[arg(long)]
        json: bool,
        /// Write results.csv, results.json and SVG bar charts here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Override a config key in every run, e.g. --set workload.seed=7 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Run only these workloads (comma-separated: fio,tpcc,sysbench,ycsb,homes).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Folder holding homes.replay.0. Default: ../shared/traces.
        #[arg(long, value_name = "DIR")]
        traces: Option<PathBuf>,
    },
}

pub fn run(cmd: ReproduceCmd) -> Result<ExitCode> {
    match cmd {
        ReproduceCmd::Coldmap {
            quick,
            json,
            out,
            sets,
            only,
            traces,
        } => coldmap::command(&coldmap::Options {
            quick,
            json,
            out,
            sets,
            only,
            traces,
        }),
    }
}
