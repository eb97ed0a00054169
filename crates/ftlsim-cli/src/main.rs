//! `ftlsim`: the command-line front of the ftlsim library.

mod device_cmd;
mod progress;
mod reproduce;
mod trace_cmd;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "ftlsim",
    version,
    about = "Fast, deterministic flash storage stack simulator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a config and report the measured window.
    Run {
        /// TOML config; omitted, the built-in defaults are used.
        config: Option<PathBuf>,
        /// Override a config key, e.g. --set device.blocks=1024 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Print one JSON object on stdout instead of the table.
        #[arg(long)]
        json: bool,
        /// Write summary.json, summary.csv, timeseries.csv, waf.svg and index.html here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Run the invariant checker throughout the run (slow).
        #[arg(long)]
        check: bool,
    },
    /// Compare simulated WAF with the analytical models; non-zero exit on a miss.
    Validate {
        /// A smaller set of cases that fits in CI.
        #[arg(long)]
        quick: bool,
        #[arg(long)]
        json: bool,
    },
    /// Inspect and convert block traces.
    Trace {
        #[command(subcommand)]
        command: trace_cmd::TraceCommand,
    },
    /// Reproduce a paper's experiment: a grid of workloads x variants
    /// described by a file in experiments/ (docs/coldmap.md).
    Reproduce(reproduce::ReproduceArgs),
    /// Cut power at random points of a config's workload, recover from
    /// flash, and check nothing acknowledged was lost (docs/power-loss.md).
    /// Exit 1 when any cut fails.
    CrashTest {
        /// TOML config; omitted, the built-in defaults are used.
        config: Option<PathBuf>,
        /// Override a config key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Power cuts to make (at least 1).
        #[arg(long)]
        cuts: u64,
        /// Seed of the cut points and remap/clone traffic (default: workload.seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Share of requests that are remaps (and clones with ftl.remap or ftl.dedup).
        #[arg(long, default_value_t = 0.0)]
        remap_fraction: f64,
        /// A flush every this many requests (0 = none).
        #[arg(long, default_value_t = 0)]
        flush_every: u64,
        /// Test only: a deliberately broken recovery (ignore-journal, trust-lower-seq).
        #[arg(long, hide = true)]
        broken_recovery: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The simulated SSD as a live block device: real file systems and
    /// applications on it (docs/live-device.md).
    Device {
        #[command(subcommand)]
        command: device_cmd::DeviceCommand,
    },
    /// Run COMMAND with the program-context capture library preloaded:
    /// every file write logged with its PC signatures (docs/live-device.md).
    Capture {
        /// The log to write.
        #[arg(long, value_name = "CAP")]
        out: PathBuf,
        /// Also compute the frame-walk signature (glibc backtrace; microseconds per call).
        #[arg(long)]
        walk: bool,
        /// The command (after `--`).
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<std::ffi::OsString>,
    },
    /// Run one key-value load through ftlsim's LSM engine and a real
    /// LevelDB 1.23 and print their compaction bytes per level side by
    /// side (docs/remapcom.md, "The engine against LevelDB").
    LsmCompare {
        /// TOML config whose [lsm] section and workload key/value sizes
        /// and seed are used; omitted, the built-in defaults.
        config: Option<PathBuf>,
        /// Override a config key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// inserts-updates (inserts, then zipfian updates), ycsb-load or ycsb-a.
        #[arg(long, default_value = "inserts-updates")]
        load: String,
        /// Records inserted first (default: workload.records).
        #[arg(long)]
        records: Option<u64>,
        /// Operations after the inserts (default: as many as records).
        #[arg(long)]
        ops: Option<u64>,
        /// The LevelDB reference program (scripts/build-leveldb-ref.sh builds it).
        #[arg(long, value_name = "PROGRAM", default_value = ftlsim_run::lsm_compare::DEFAULT_REFERENCE)]
        reference: PathBuf,
        /// Folder for LevelDB's database (default: one in the temp folder).
        #[arg(long, value_name = "DIR")]
        db_dir: Option<PathBuf>,
        /// Let LevelDB compact in its background thread as in production
        /// (timing-dependent) instead of settling after each operation.
        #[arg(long)]
        background: bool,
        #[arg(long)]
        json: bool,
    },
    /// Measure simulation throughput and memory.
    Bench {
        /// A 4096-block device instead of the 64 GiB one.
        #[arg(long)]
        quick: bool,
        /// Timed segments per case (the median is reported).
        #[arg(long, default_value_t = 3)]
        segments: usize,
        /// Run one group of cases only (`assigners`: the gcc model without a
        /// layer, with autostream, with pcstream; `timed`: the timing model's
        /// closed-loop cases, JSON `{"timed_cases": [...]}`; `plain`: the two
        /// untimed uniform cases, JSON `{"cases": [...]}`; `placement`: every
        /// placement scheme and none on a Zipf workload; `lsm`: YCSB Load
        /// 1 M + 1 M A through the LSM engine with timing and background
        /// compaction, one run, `--quick` a tenth).
        #[arg(long, value_enum)]
        only: Option<BenchOnly>,
        #[arg(long)]
        json: bool,
    },
}

/// Groups of `ftlsim bench` cases that can run alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BenchOnly {
    Assigners,
    Timed,
    Plain,
    Placement,
    Lsm,
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Trace { command } => {
            trace_cmd::run_trace_command(command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run {
            config,
            sets,
            json,
            out,
            check,
        } => {
            let cfg = ftlsim_run::load::load_config(config.as_deref(), &sets)?;
            // The files the run reads: no output may replace one.
            let trace = std::path::Path::new(&cfg.workload.trace.path);
            let inputs: Vec<&std::path::Path> = config
                .as_deref()
                .into_iter()
                .chain((!cfg.workload.trace.path.is_empty()).then_some(trace))
                .collect();
            if let Some(dir) = &out {
                ftlsim_run::output::check_outputs(dir, &inputs)?;
            }
            eprintln!("ftlsim: seed {}", cfg.workload.seed);
            let mut progress = progress::Progress::new();
            let started = std::time::Instant::now();
            let ftlsim_run::Simulated { report, warnings } =
                ftlsim_run::simulate(&cfg, check, &mut |p| {
                    progress.update(p.phase.name(), p.done, p.total);
                })?;
            progress.finish();
            for w in &warnings {
                eprintln!("ftlsim: {w}");
            }
            eprintln!(
                "ftlsim: simulated {} host page writes in {:.2} s",
                report.device.total_host_write_pages,
                started.elapsed().as_secs_f64()
            );
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print!("{}", ftlsim_run::output::summary_table(&cfg, &report));
            }
            if let Some(dir) = out {
                let about = ftlsim_run::output::RunAbout {
                    command_line: command_line(),
                    config_path: config.clone(),
                };
                ftlsim_run::output::write_outputs(&dir, &cfg, &report, &about, &inputs)?;
                eprintln!("ftlsim: wrote {}", dir.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate { quick, json } => {
            let mut progress = |i: usize, n: usize, name: &str| {
                if std::io::stderr().is_terminal() {
                    eprint!("\r\x1b[K[{}/{n}] {name}", i + 1);
                }
            };
            let results = ftlsim_run::validate::run_validation(quick, &mut progress)?;
            let timing = ftlsim_run::validate_timing::run_timing_validation(quick, &mut progress)?;
            if std::io::stderr().is_terminal() {
                eprint!("\r\x1b[K");
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string(
                        &serde_json::json!({ "cases": results, "timing_cases": timing })
                    )?
                );
            } else {
                print!("{}", ftlsim_run::validate::render(&results));
                println!();
                print!("{}", ftlsim_run::validate_timing::render(&timing));
            }
            Ok(
                if results.iter().all(|r| r.pass) && timing.iter().all(|r| r.pass) {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                },
            )
        }
        Command::Reproduce(args) => reproduce::run(args),
        Command::Device { command } => device_cmd::run_device_command(command),
        Command::Capture { out, walk, command } => {
            let status = ftlsim_live::capture::capture(&out, &command, walk)?;
            eprintln!("ftlsim: wrote {}", out.display());
            Ok(if status.success() {
                ExitCode::SUCCESS
            } else {
                eprintln!("ftlsim: the command failed ({status})");
                ExitCode::from(1)
            })
        }
        Command::CrashTest {
            config,
            sets,
            cuts,
            seed,
            remap_fraction,
            flush_every,
            broken_recovery,
            json,
        } => {
            use ftlsim::ftl::durability::BrokenRecovery;
            let cfg = ftlsim_run::load::load_config(config.as_deref(), &sets)?;
            let mut opts =
                ftlsim_run::crash::CrashOptions::new(cuts, seed.unwrap_or(cfg.workload.seed));
            opts.remap_fraction = remap_fraction;
            opts.flush_every_requests = flush_every;
            opts.broken = match broken_recovery.as_deref() {
                None => None,
                Some("ignore-journal") => Some(BrokenRecovery::IgnoreJournal),
                Some("trust-lower-seq") => Some(BrokenRecovery::TrustLowerSequence),
                Some(other) => anyhow::bail!(
                    "--broken-recovery `{other}`: expected ignore-journal or trust-lower-seq"
                ),
            };
            let mut progress = progress::Progress::new();
            let report = ftlsim_run::crash::crash_test(&cfg, &opts, &mut |done, total| {
                progress.update("crash-test", done, total);
            })?;
            progress.finish();
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print!("{}", ftlsim_run::crash::render(&report));
            }
            Ok(if report.failures == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::LsmCompare {
            config,
            sets,
            load,
            records,
            ops,
            reference,
            db_dir,
            background,
            json,
        } => {
            use ftlsim_run::lsm_compare::{self as cmp, CompareLoad, CompareOptions};
            let cfg = ftlsim_run::load::load_config(config.as_deref(), &sets)?;
            let records = records.unwrap_or(cfg.workload.records);
            let opts = CompareOptions {
                load: CompareLoad::from_name(&load)?,
                records,
                ops: ops.unwrap_or(records),
                reference,
                db_dir: db_dir.unwrap_or_else(|| cmp::default_db_dir(&std::env::temp_dir())),
                background,
            };
            eprintln!("ftlsim: seed {}", cfg.workload.seed);
            let c = cmp::compare(&cfg, &opts)?;
            if json {
                println!("{}", serde_json::to_string(&c)?);
            } else {
                print!("{}", cmp::render(&c));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            quick,
            segments,
            only,
            json,
        } => {
            if segments == 0 {
                anyhow::bail!(
                    "--segments must be at least 1 (the median of the timed segments is reported)"
                );
            }
            use ftlsim_run::bench;
            let progress = &mut |name: &str| eprintln!("bench: {name}");
            // Each group: its JSON (the object the docs name) or its text.
            let (value, text) = match only {
                Some(BenchOnly::Assigners) => {
                    let case = bench::assigner_case(quick, segments, progress)?;
                    (serde_json::to_value(&case)?, bench::render_assigners(&case))
                }
                Some(BenchOnly::Lsm) => {
                    progress("YCSB load + A through the LSM engine, full RemapCom");
                    let case = bench::lsm_case(quick)?;
                    (serde_json::to_value(&case)?, bench::render_lsm(&case))
                }
                Some(BenchOnly::Timed) => {
                    let cases = bench::timed_cases(quick, segments, progress)?;
                    (
                        serde_json::json!({ "timed_cases": cases }),
                        bench::render_timed(&cases),
                    )
                }
                Some(BenchOnly::Placement) => {
                    let case = bench::placement_case(quick, segments, progress)?;
                    (serde_json::to_value(&case)?, bench::render_placement(&case))
                }
                Some(BenchOnly::Plain) => {
                    let cases = bench::plain_cases(quick, segments, progress)?;
                    (
                        serde_json::json!({ "cases": cases }),
                        bench::render_plain(&cases),
                    )
                }
                None => {
                    let report = bench::run_bench(quick, segments, progress)?;
                    (serde_json::to_value(&report)?, bench::render(&report))
                }
            };
            if json {
                println!("{value}");
            } else {
                print!("{text}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// This process's command line, quoted for a shell: index.html shows it
/// so that a reader can make the same outputs again.
pub(crate) fn command_line() -> String {
    ftlsim_run::html::shell_words(std::env::args_os().map(|a| a.to_string_lossy().into_owned()))
}

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`ftlsim ... | head`) like other Unix
    // tools, instead of panicking in println!.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE at start-up,
    // before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ftlsim: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
