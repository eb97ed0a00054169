//! `ftlsim reproduce`: the clap side of the experiments in `ftlsim_run::reproduce`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use ftlsim_run::reproduce::{self, render};

#[derive(Args)]
pub struct ReproduceArgs {
    /// A built-in experiment (coldmap: Seo and Koo's Coldmap, docs/coldmap.md)
    /// or the path of an experiment file like experiments/coldmap.toml.
    #[arg(value_name = "NAME|PATH")]
    experiment: String,
    /// The experiment's quick size (coldmap: a 1 GiB device instead of 16 GiB; a few seconds).
    #[arg(long)]
    quick: bool,
    /// Print `{"experiment": NAME, "workloads": {WORKLOAD: {VARIANT: report}}}` instead of the table.
    #[arg(long)]
    json: bool,
    /// Write results.csv, results.json, summary.txt, SVG charts and index.html here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Override a config key in every run, e.g. --set workload.seed=7 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Run only these workloads (comma-separated, e.g. fio,tpcc).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Folder holding the experiment's trace files. Default: ../shared/traces.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
}

pub fn run(args: ReproduceArgs) -> Result<ExitCode> {
    let exp = reproduce::load(&args.experiment)?;
    let opts = reproduce::Options {
        quick: args.quick,
        sets: args.sets,
        only: args.only,
        traces: args.traces,
    };
    let started = std::time::Instant::now();
    let mut progress = crate::progress::Progress::new();
    let results = reproduce::run_experiment(&exp, &opts, &mut |p| {
        progress.update(p.label, p.done as u64, p.total as u64);
    })?;
    progress.finish();
    eprintln!(
        "ftlsim: {} runs in {:.1} s",
        results.iter().map(|w| w.runs.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&render::to_json(&exp, &results))?
        );
    } else {
        print!("{}", render::render(&exp, &results, opts.quick));
    }
    if let Some(dir) = &args.out {
        render::write_outputs(dir, &exp, &results, opts.quick, &crate::command_line())?;
        eprintln!("ftlsim: wrote {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}
