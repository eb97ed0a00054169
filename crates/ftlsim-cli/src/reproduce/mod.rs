//! `ftlsim reproduce`: the clap side of the experiments in `ftlsim_run::reproduce`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use ftlsim_run::reproduce::coldmap;

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
    let ReproduceCmd::Coldmap {
        quick,
        json,
        out,
        sets,
        only,
        traces,
    } = cmd;
    let opts = coldmap::Options {
        quick,
        json,
        out,
        sets,
        only,
        traces,
    };
    let started = std::time::Instant::now();
    let bar = crate::progress_bar(1);
    let results = coldmap::run_experiment(&opts, &mut |p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.label.to_string());
    })?;
    bar.finish_and_clear();
    eprintln!(
        "ftlsim: {} runs in {:.1} s",
        results.iter().map(|w| w.variants.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    if opts.json {
        println!("{}", serde_json::to_string(&coldmap::to_json(&results)?)?);
    } else {
        print!("{}", coldmap::render(&results, opts.quick));
    }
    if let Some(dir) = &opts.out {
        coldmap::write_outputs(dir, &results, opts.quick)?;
        eprintln!("ftlsim: wrote {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}
