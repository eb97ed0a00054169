//! `ftlsim reproduce`: the clap side of the experiments in `ftlsim_run::reproduce`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use ftlsim_run::reproduce::{self, render};

#[derive(Args)]
pub struct ReproduceArgs {
    #[arg(value_name = "NAME|PATH", help = experiment_help(false), long_help = experiment_help(true))]
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
    /// Folder holding the experiment's trace files. Default: the experiment's
    /// committed corpus (pcstream-real: traces/real), else ../shared/traces.
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
    /// Skip a workload whose trace is missing from the experiment's corpus
    /// (with a warning) instead of failing.
    #[arg(long)]
    allow_missing: bool,
}

/// The help of NAME|PATH, from the registry `reproduce::load` looks names up
/// in, so that a new built-in experiment shows up here without an edit. With
/// `titles`, each experiment's title from its own file (`--help`; `-h` lists
/// the names only).
fn experiment_help(titles: bool) -> String {
    let mut help = String::from(
        "A built-in experiment, or the path of an experiment file like experiments/coldmap.toml.",
    );
    if !titles {
        let names: Vec<&str> = reproduce::BUILT_IN.iter().map(|b| b.name).collect();
        help.push_str(&format!(" Built in: {}.", names.join(", ")));
        return help;
    }
    // The titles come from parsing every built-in experiment (about 3 ms):
    // clap builds this text for every command line, so only when help is
    // being asked for; the short form above still names them all.
    let asks_for_help = std::env::args().any(|a| a == "--help" || a == "-h" || a == "help");
    if !asks_for_help {
        let names: Vec<&str> = reproduce::BUILT_IN.iter().map(|b| b.name).collect();
        help.push_str(&format!(" Built in: {}.", names.join(", ")));
        return help;
    }
    help.push_str("\n\nBuilt in:");
    for b in reproduce::BUILT_IN {
        // A built-in file that does not parse is a bug the unit tests catch;
        // --help still lists its name.
        let title = reproduce::load(b.name)
            .map(|e| e.spec.title)
            .unwrap_or_default();
        help.push_str(&format!("\n  {:<14} {title}", b.name));
    }
    help
}

pub fn run(args: ReproduceArgs) -> Result<ExitCode> {
    let exp = reproduce::load(&args.experiment)?;
    let opts = reproduce::Options {
        quick: args.quick,
        sets: args.sets,
        only: args.only,
        traces: args.traces,
        allow_missing: args.allow_missing,
    };
    let started = std::time::Instant::now();
    let mut progress = crate::progress::Progress::new();
    let results = reproduce::run_experiment(
        &exp,
        &opts,
        &mut |p| progress.update(p.label, p.done as u64, p.total as u64),
        &mut |w| eprintln!("ftlsim: {w}"),
    )?;
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
