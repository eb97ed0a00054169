//! Traces in the CLI: `ftlsim trace stats|convert`, and the adapter that
//! feeds a trace to a simulation (`workload.type = "trace"`).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::{anyhow, Result};
use clap::Subcommand;
use ftlsim::config::Config;
use ftlsim::source::{RequestSource, SourceOp, SourceRequest};
use ftlsim::SimError;
use ftlsim_trace::{
    convert_file, device_id, open, FioDedupeOptions, FioDedupeWriter, Format, NativeWriter,
    OutputFormat, PageOptions, PageRequest, PageStream, ReaderOptions, TimeUnit, TraceOp,
    TraceRecord, TraceStats,
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
        /// Output format: native | disksim.
        #[arg(long, default_value = "native")]
        to: String,
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
}

/// Writes a fio-like dedupe trace to `output` in the native format.
pub fn generate(output: &Path, opts: FioDedupeOptions, page_bytes: u32) -> Result<u64> {
    let mut gen = FioDedupeWriter::new(opts).map_err(|e| anyhow!("{e}"))?;
    let file = std::fs::File::create(output).map_err(|e| anyhow!("{}: {e}", output.display()))?;
    let mut writer = NativeWriter::new(std::io::BufWriter::new(file))
        .map_err(|e| anyhow!("{}: {e}", output.display()))?;
    let (mut page, mut rec, mut n) = (PageRequest::default(), TraceRecord::default(), 0u64);
    while gen.next_request(&mut page) {
        rec.time_ns = page.time_ns;
        rec.op = TraceOp::Write;
        rec.offset_bytes = page.lpn * u64::from(page_bytes);
        rec.length_bytes = u64::from(page.pages) * u64::from(page_bytes);
        rec.fingerprints.clone_from(&page.fingerprints);
        writer
            .write(&rec)
            .map_err(|e| anyhow!("{}: {e}", output.display()))?;
        n += 1;
    }
    writer
        .finish()
        .map_err(|e| anyhow!("{}: {e}", output.display()))?;
    Ok(n)
}

#[derive(clap::Args, Clone)]
pub struct InputArgs {
    /// Input format (msr, fiu, blkparse, disksim, spc, alibaba, tencent, fio,
    /// libcachesim, native); detected when omitted.
    #[arg(long, alias = "from")]
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
}

/// Reader options from CLI flags or config keys; `key` prefixes error messages.
fn reader_options(
    format: Option<&str>,
    time_unit: Option<&str>,
    action: Option<&str>,
    device: Option<&str>,
    skip_bad_lines: bool,
    key: &str,
) -> Result<ReaderOptions> {
    let mut o = ReaderOptions::default();
    if let Some(f) = format {
        o.format = Some(
            f.parse::<Format>()
                .map_err(|e| anyhow!("{key}format: {e}"))?,
        );
    }
    if let Some(u) = time_unit {
        o.time_unit = Some(
            u.parse::<TimeUnit>()
                .map_err(|e| anyhow!("{key}time_unit: {e}"))?,
        );
    }
    if let Some(a) = action {
        let mut chars = a.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => {
                o.blkparse_action = c.to_ascii_uppercase()
            }
            _ => {
                return Err(anyhow!(
                    "{key}action: `{a}` is not a blkparse action letter (D, Q, C, ...)"
                ))
            }
        }
    }
    o.device = device.map(device_id);
    o.skip_bad_lines = skip_bad_lines;
    Ok(o)
}

impl InputArgs {
    fn options(&self) -> Result<ReaderOptions> {
        reader_options(
            self.format.as_deref(),
            self.time_unit.as_deref(),
            self.action.as_deref(),
            self.device.as_deref(),
            self.skip_bad_lines,
            "--",
        )
    }
}

pub fn run_trace_command(cmd: TraceCommand) -> Result<()> {
    match cmd {
        TraceCommand::Stats {
            file,
            input,
            page_bytes,
            json,
        } => {
            if page_bytes == 0 {
                return Err(anyhow!("--page-bytes must be at least 1"));
            }
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
        } => {
            let format = match to.as_str() {
                "native" => OutputFormat::Native,
                "disksim" => OutputFormat::Disksim(TimeUnit::Nanos),
                other => {
                    return Err(anyhow!(
                        "--to: `{other}` is not an output format (native, disksim)"
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
        }
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

fn report_skipped(file: &Path, skipped: u64) {
    if skipped > 0 {
        eprintln!("ftlsim: {}: skipped {skipped} bad lines", file.display());
    }
}

/// A trace as the simulation's request source.
struct TraceSource {
    stream: PageStream,
    page: PageRequest,
    skipped: Rc<Cell<u64>>,
}

/// Folds a 128-bit content hash into the core's 64-bit fingerprint.
fn fold(h: u128) -> u64 {
    (h as u64) ^ ((h >> 64) as u64)
}

impl RequestSource for TraceSource {
    fn next_request(&mut self, out: &mut SourceRequest) -> Result<bool, SimError> {
        let more = self
            .stream
            .next_request(&mut self.page)
            .map_err(|e| SimError::Source(e.to_string()))?;
        self.skipped.set(self.stream.skipped_bad_lines());
        if !more {
            return Ok(false);
        }
        let p = &self.page;
        out.time_ns = p.time_ns;
        out.op = match p.op {
            TraceOp::Read => SourceOp::Read,
            TraceOp::Write => SourceOp::Write,
            TraceOp::Trim => SourceOp::Trim,
            TraceOp::Flush => SourceOp::Flush,
        };
        out.lpn = p.lpn;
        out.pages = p.pages;
        out.stream = p.stream.unwrap_or(0);
        out.fingerprints.clear();
        out.fingerprints
            .extend(p.fingerprints.iter().map(|&h| fold(h)));
        Ok(true)
    }
}

/// Bad lines a trace source has skipped so far, readable after the run.
pub type SkippedLines = Rc<Cell<u64>>;

/// Opens the trace of a `workload.type = "trace"` config.
pub fn open_source(cfg: &Config) -> Result<(Box<dyn RequestSource>, SkippedLines)> {
    let t = &cfg.workload.trace;
    let ropts = reader_options(
        t.format.as_deref(),
        t.time_unit.as_deref(),
        t.blkparse_action.as_deref(),
        t.device.as_deref(),
        t.skip_bad_lines,
        "config key `workload.trace.",
    )
    .map_err(|e| anyhow!("{}", e.to_string().replacen(": ", "`: ", 1)))?;
    let popts = PageOptions {
        page_bytes: cfg.device.page_bytes,
        compact: t.compact,
        logical_pages: Some(cfg.span_pages()),
        repeat: t.repeat,
        rebase_time: true,
    };
    let path = Path::new(&t.path);
    // The trace error already names the file (and line): flatten, don't chain.
    let stream =
        PageStream::open(path, &ropts, &popts).map_err(|e| anyhow!("workload.trace.path: {e}"))?;
    let skipped = Rc::new(Cell::new(0));
    Ok((
        Box::new(TraceSource {
            stream,
            page: PageRequest::default(),
            skipped: skipped.clone(),
        }),
        skipped,
    ))
}
