//! `ftlsim trace stats|convert|generate|synth|lifespans|pcs|layout`: the
//! clap side; the work is in `ftlsim_run` and the trace crate.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use clap::Subcommand;
use ftlsim_run::trace_source::{generate, reader_options, OptionNames};
use ftlsim_trace::{
    convert_file, open, FioDedupeOptions, Format, OutputFormat, ReaderOptions, TimeUnit, TraceStats,
};

#[derive(Subcommand)]
pub enum TraceCommand {
    /// What is inside a trace: requests, bytes, footprint, sizes, skew, duplicates.
    Stats {
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// Mapping unit for page counts.
        #[arg(long, default_value_t = 4096)]
        page_bytes: u32,
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace to ftlsim's native format (or DiskSim ASCII).
    Convert {
        input: PathBuf,
        output: PathBuf,
        #[command(flatten)]
        from: InputArgs,
        /// Output format: native | disksim | alibaba (the CSV SepBIT's
        /// simulator reads; trims and flushes are left out).
        #[arg(long, default_value = "native")]
        to: String,
        /// Time unit of DiskSim output: s, ms, us, ns. The default, ms, is
        /// DiskSim's own and what the DiskSim reader assumes, so the output
        /// reads back without flags; any other unit needs `--time-unit` to
        /// read back.
        #[arg(long, default_value = "ms")]
        to_time_unit: String,
    },
    /// Write a fio-like random-write trace in the native format: uniform
    /// random offsets, and a share of pages repeating earlier content
    /// (fio's dedupe_percentage), with per-page fingerprints.
    Generate {
        output: PathBuf,
        /// Write requests to generate.
        #[arg(long, default_value_t = 1_000_000)]
        requests: u64,
        /// Pages addressed (offsets fall in 0..logical_pages).
        #[arg(long, default_value_t = 262_144)]
        logical_pages: u64,
        /// Pages per request (fio's bs / page size).
        #[arg(long, default_value_t = 1)]
        block_pages: u32,
        /// Percent of written pages repeating earlier content (0-100).
        #[arg(long, default_value_t = 0)]
        dedupe_percentage: u8,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Page size the offsets are expressed in.
        #[arg(long, default_value_t = 4096)]
        page_bytes: u32,
    },
    /// Write a config's synthetic block workload (uniform, hot-cold, zipf,
    /// sequential, tables, sepbit-synthetic) as a native trace: its warm-up
    /// and measured requests in the order a run draws them, 1 µs apart.
    Synth {
        /// TOML config.
        config: PathBuf,
        /// The native trace to write.
        output: PathBuf,
        /// Override a config key, e.g. --set workload.zipf_alpha=0.8 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
    /// Each written page's lifespan (pages written until it is overwritten
    /// or trimmed; infinite if never), in write order: SepBIT's oracle
    /// format (--sepbit) and ftlsim's binary sidecar (--out).
    Lifespans {
        trace: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// SepBIT's oracle: one decimal per line, 18446744073709551615 for
        /// infinite (its FK placement reads ORACLE_DIR/VOLUME.oracle).
        #[arg(long, value_name = "FILE")]
        sepbit: Option<PathBuf>,
        /// ftlsim's sidecar: FTLSLIFE, version, page size, then a
        /// little-endian u64 per written page (u64::MAX = infinite).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Mapping unit (SepBIT's blocks are 4096 bytes).
        #[arg(long, default_value_t = 4096)]
        page_bytes: u32,
        /// Unresolved writes held at most; one outliving it is written as
        /// infinite and counted (memory: 8 bytes each).
        #[arg(long, default_value_t = ftlsim_trace::lifespan::DEFAULT_WINDOW_PAGES)]
        window_pages: u64,
        /// The counts as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Per program context of a PC-tagged native trace (`device run
    /// --capture`): pages written and their lifetimes in host page writes.
    Pcs {
        /// A native trace with contexts.
        trace: PathBuf,
        #[arg(long, default_value_t = 4096)]
        page_bytes: u64,
        /// One JSON array instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Lay the file writes of a capture log (`ftlsim capture`) out on
    /// ftlsim's own file layer, for captures taken without the live device:
    /// a native block trace whose writes carry their call's PC.
    Layout {
        /// The capture log.
        capture: PathBuf,
        /// The native trace to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Logical size of the device the files are laid out on (e.g. 1GiB).
        #[arg(long, default_value = "1GiB")]
        size: String,
        #[arg(long, default_value_t = 4096)]
        page_bytes: u64,
    },
}

#[derive(clap::Args, Clone)]
pub struct InputArgs {
    #[arg(long, alias = "from", help = format_help())]
    format: Option<String>,
    /// Time unit for DiskSim and fio v3 input: s, ms, us, ns.
    #[arg(long)]
    time_unit: Option<String>,
    /// blkparse event to replay (D, Q, C, ...).
    #[arg(long)]
    action: Option<String>,
    /// Keep only this device or volume (a number, maj,min, or a name).
    #[arg(long)]
    device: Option<String>,
    /// Skip unparsable lines and report how many, instead of stopping.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Spread each whole second's requests evenly over that second (SepBIT's
    /// treatment of Tencent CBS's 1-second timestamps).
    #[arg(long)]
    spread_seconds: bool,
}

/// The help of `--format`, from the trace crate's format table, so that a
/// new format shows up here without an edit.
fn format_help() -> String {
    format!(
        "Input format ({}); detected when omitted",
        Format::NAMES.join(", ")
    )
}

impl InputArgs {
    fn options(&self) -> Result<ReaderOptions> {
        let mut o = reader_options(
            self.format.as_deref(),
            self.time_unit.as_deref(),
            self.action.as_deref(),
            self.device.as_deref(),
            self.skip_bad_lines,
            OptionNames::Flags,
        )?;
        o.spread_seconds = self.spread_seconds;
        Ok(o)
    }
}

/// `--page-bytes` must name at least one byte.
fn check_page_bytes(page_bytes: u64) -> Result<()> {
    if page_bytes == 0 {
        return Err(anyhow!("--page-bytes must be at least 1"));
    }
    Ok(())
}

pub fn run_trace_command(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Layout {
            capture,
            out,
            size,
            page_bytes,
        } => {
            check_page_bytes(page_bytes)?;
            ftlsim_trace::check_not_input(&out, &[&capture])
                .map_err(|e| anyhow!("--out {}: {e}", out.display()))?;
            let size_bytes = ftlsim_live::parse_size(&size).map_err(|e| anyhow!("--size: {e}"))?;
            let text = std::fs::read_to_string(&capture)
                .with_context(|| format!("cannot read {}", capture.display()))?;
            let log = ftlsim_live::join::CaptureLog::parse(&text)
                .with_context(|| capture.display().to_string())?;
            let s = ftlsim_live::layout::layout(&log, &out, size_bytes, page_bytes)?;
            println!(
                "{}: {} files, {} write calls -> {} pages written ({} in holes), {} trimmed, \
                 {} files removed, {} PCs; {} partial truncates not applied",
                out.display(),
                s.files,
                s.write_records,
                s.write_pages,
                s.hole_pages,
                s.trim_pages,
                s.files_removed,
                s.pcs,
                s.partial_truncates
            );
        }
        TraceCommand::Pcs {
            trace,
            page_bytes,
            json,
        } => {
            check_page_bytes(page_bytes)?;
            let rows = ftlsim_live::pclife::pc_lifetimes(&trace, page_bytes)?;
            if json {
                println!("{}", serde_json::to_string(&rows)?);
            } else {
                print!("{}", ftlsim_live::pclife::table(&rows));
            }
        }
        TraceCommand::Stats {
            file,
            input,
            page_bytes,
            json,
        } => {
            check_page_bytes(u64::from(page_bytes))?;
            let mut reader = open(&file, &input.options()?).map_err(|e| anyhow!("{e}"))?;
            let stats =
                TraceStats::from_reader(reader.as_mut(), page_bytes).map_err(|e| anyhow!("{e}"))?;
            if json {
                println!("{}", serde_json::to_string(&stats)?);
            } else {
                print!("{}", stats.render_text());
            }
            report_skipped(&file, stats.skipped_bad_lines);
        }
        TraceCommand::Convert {
            input,
            output,
            from,
            to,
            to_time_unit,
        } => {
            let unit = to_time_unit
                .parse::<TimeUnit>()
                .map_err(|e| anyhow!("--to-time-unit: {e}"))?;
            let format = match to.as_str() {
                "native" => OutputFormat::Native,
                "disksim" => OutputFormat::Disksim(unit),
                "alibaba" => OutputFormat::Alibaba,
                other => {
                    return Err(anyhow!(
                        "--to: `{other}` is not an output format (native, disksim, alibaba)"
                    ))
                }
            };
            let summary = convert_file(&input, &from.options()?, &output, format)
                .map_err(|e| anyhow!("{e}"))?;
            eprintln!(
                "ftlsim: {} records read, {} written to {}, {} left out (not representable)",
                summary.records_read,
                summary.records_written,
                output.display(),
                summary.records_left_out
            );
            report_skipped(&input, summary.skipped_bad_lines);
            if matches!(format, OutputFormat::Disksim(u) if u != TimeUnit::Millis) {
                eprintln!(
                    "ftlsim: {}: times are in {unit}; read it back with --time-unit {unit}",
                    output.display()
                );
            }
        }
        TraceCommand::Synth {
            config,
            output,
            sets,
        } => synth(&config, &output, &sets)?,
        TraceCommand::Lifespans {
            trace,
            input,
            sepbit,
            out,
            page_bytes,
            window_pages,
            json,
        } => lifespans(
            &trace,
            &input,
            sepbit.as_deref(),
            out.as_deref(),
            page_bytes,
            window_pages,
            json,
        )?,
        TraceCommand::Generate {
            output,
            requests,
            logical_pages,
            block_pages,
            dedupe_percentage,
            seed,
            page_bytes,
        } => {
            let opts = FioDedupeOptions {
                logical_pages,
                block_pages,
                requests,
                dedupe_percentage,
                seed,
                ..FioDedupeOptions::default()
            };
            let n = generate(&output, opts, page_bytes)?;
            eprintln!(
                "ftlsim: wrote {n} requests to {} (seed {seed})",
                output.display()
            );
        }
    }
    Ok(())
}

/// `trace synth`: the config's synthetic workload as a native trace.
fn synth(config: &Path, output: &Path, sets: &[String]) -> Result<()> {
    ftlsim_trace::check_not_input(output, &[config])
        .map_err(|e| anyhow!("{}: {e}", output.display()))?;
    let cfg = ftlsim_run::load::load_config(Some(config), sets)?;
    let done = ftlsim_run::synth::synth(&cfg, output)?;
    eprintln!(
        "ftlsim: wrote {} requests ({} pages written) to {} (seed {})",
        done.requests,
        done.write_pages,
        output.display(),
        cfg.workload.seed
    );
    Ok(())
}

/// `trace lifespans`: each written page's lifespan, in one or both formats.
fn lifespans(
    trace: &Path,
    input: &InputArgs,
    sepbit: Option<&Path>,
    out: Option<&Path>,
    page_bytes: u32,
    window_pages: u64,
    json: bool,
) -> Result<()> {
    check_page_bytes(u64::from(page_bytes))?;
    if sepbit.is_none() && out.is_none() {
        return Err(anyhow!("give --sepbit FILE, --out FILE or both"));
    }
    if window_pages == 0 {
        return Err(anyhow!("--window-pages must be at least 1"));
    }
    let outputs = ftlsim_trace::LifespanOutputs {
        sepbit,
        native: out,
    };
    let s =
        ftlsim_trace::annotate_file(trace, &input.options()?, page_bytes, window_pages, outputs)
            .map_err(|e| anyhow!("{e}"))?;
    if json {
        println!("{}", serde_json::to_string(&s)?);
    } else {
        println!(
            "{}: {} pages written: {} overwritten, {} trimmed, {} never ({} of them cut by --window-pages)",
            trace.display(),
            s.written_pages,
            s.overwritten_pages,
            s.trimmed_pages,
            s.infinite_pages,
            s.cut_pages
        );
    }
    Ok(())
}

fn report_skipped(file: &Path, skipped: u64) {
    if skipped > 0 {
        eprintln!("ftlsim: {}: skipped {skipped} bad lines", file.display());
    }
}
