//! Traces in a run: the adapter that feeds a trace to a simulation
//! (`workload.type = "trace"`), reader options from config keys or flags,
//! and the synthetic fio-like trace writer.

use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;

use anyhow::{anyhow, Result};
use ftlsim::config::{Config, TraceTrims};
use ftlsim::request::{Op, Request, RequestSource};
use ftlsim::SimError;
use ftlsim_trace::{
    device_id, FioDedupeOptions, FioDedupeWriter, Format, NativeWriter, PageOptions, PageRequest,
    PageStream, ReaderOptions, TimeUnit, TraceRecord,
};

/// Writes a fio-like dedupe trace to `output` in the native format.
pub fn generate(output: &Path, opts: FioDedupeOptions, page_bytes: u32) -> Result<u64> {
    let mut gen = FioDedupeWriter::new(opts).map_err(|e| anyhow!("{e}"))?;
    let file = std::fs::File::create(output).map_err(|e| anyhow!("{}: {e}", output.display()))?;
    let mut writer = NativeWriter::new(std::io::BufWriter::new(file))
        .map_err(|e| anyhow!("{}: {e}", output.display()))?;
    let (mut page, mut rec, mut n) = (PageRequest::default(), TraceRecord::default(), 0u64);
    while gen.next_request(&mut page) {
        rec.time_ns = page.time_ns;
        rec.op = Op::Write;
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

/// Reader options from CLI flags or config keys; `key` prefixes error messages.
pub fn reader_options(
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

/// A trace as the simulation's request source.
struct TraceSource {
    stream: PageStream,
    page: PageRequest,
    skipped: Rc<Cell<u64>>,
    /// `workload.trace.trims = "drop"`: trims are read and left out.
    drop_trims: bool,
}

impl RequestSource for TraceSource {
    fn next_request(&mut self, out: &mut Request) -> Result<bool, SimError> {
        loop {
            let more = self
                .stream
                .next_request(&mut self.page)
                .map_err(|e| SimError::Source(e.to_string()))?;
            self.skipped.set(self.stream.skipped_bad_lines());
            if !more {
                return Ok(false);
            }
            if !(self.drop_trims && self.page.op == Op::Trim) {
                break;
            }
        }
        let p = &self.page;
        // The trace crate speaks the core's `Op`: remap and clone pass through.
        out.set(p.op, p.lpn, p.pages);
        out.src_lpn = p.src_lpn;
        out.arrival_ns = Some(p.time_ns);
        out.stream = p.stream.unwrap_or(0);
        out.context = p.context.unwrap_or(0);
        out.fingerprints
            .extend(p.fingerprints.iter().map(|&h| ftlsim::hash::fold128(h)));
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
            drop_trims: t.trims == TraceTrims::Drop,
        }),
        skipped,
    ))
}
