//! `ftlsim trace synth`: a config's synthetic block workload written out as
//! a native trace, so that tools that read traces (the lifespan annotator,
//! SepBIT's simulator after `trace convert --to alibaba`) see the very
//! stream a run of the config draws.
//!
//! The trace holds the warm-up's writes and then the measured window (the
//! pages of `workload.writes`, or the `workload.requests` of a read/write/
//! trim mix), drawn from the generator in the order a run draws them; no
//! precondition (a sequential fill, which a replay adds with its own
//! `workload.precondition`). Requests are 1 µs apart from 1 µs, as SepBIT's
//! synthetic traces are; page contents are not written.

use std::io::BufWriter;
use std::path::Path;

use ftlsim::config::{Config, WorkloadType, DEFAULT_WRITES};
use ftlsim::request::Op;
use ftlsim::workload::Generator;
use ftlsim_trace::{NativeWriter, OutputFile, TraceRecord};

use crate::error::{Result, RunError};
use crate::trace_source::{commit_native, create_native, file_size_limit, free_bytes, write_error};

/// Bytes a native record of a request without contents takes at least.
const LEAST_RECORD_BYTES: u64 = 8;

/// What [`synth`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Synthesized {
    /// Requests (records) written.
    pub requests: u64,
    /// Pages those requests write.
    pub write_pages: u64,
}

/// Writes the synthetic workload of `cfg` (validated) to `output`, renamed
/// into place when complete.
/// Refuses a workload that is not a block-level synthetic one (application
/// models, YCSB and traces have request streams of their own); `doing` says
/// what the command does with it ("trace synth writes").
pub(crate) fn require_block_workload(cfg: &Config, doing: &str) -> Result<()> {
    match cfg.workload.kind {
        WorkloadType::Uniform
        | WorkloadType::HotCold
        | WorkloadType::Zipf
        | WorkloadType::Sequential
        | WorkloadType::Tables
        | WorkloadType::SepbitSynthetic => Ok(()),
        other => Err(RunError::Input(format!(
            "config key `workload.type`: {doing} a block-level synthetic workload (uniform, hot-cold, zipf, sequential, tables or sepbit-synthetic), not {}",
            serde_json::to_string(&other)?
        ))),
    }
}

pub fn synth(cfg: &Config, output: &Path) -> Result<Synthesized> {
    let w = &cfg.workload;
    require_block_workload(cfg, "trace synth writes")?;
    let logical = cfg.host_pages();
    let warmup_pages = cfg.warmup_pages();
    let writes = match (w.writes, w.requests) {
        (Some(a), _) => Some(a.to_pages(logical)),
        (None, None) => Some(DEFAULT_WRITES.to_pages(logical)),
        (None, Some(_)) => None,
    };
    let least_requests = warmup_pages.div_ceil(u64::from(w.request_pages.max(1)))
        + writes.map_or(w.requests.unwrap_or(0), |p| {
            p.div_ceil(u64::from(
                w.request_pages_max.unwrap_or(w.request_pages).max(1),
            ))
        });
    check_room(output, least_requests.saturating_mul(LEAST_RECORD_BYTES))?;
    let at = write_error(output);
    let mut out = Out {
        writer: create_native(output)?,
        rec: TraceRecord::default(),
        page_bytes: u64::from(cfg.device.page_bytes),
        done: Synthesized::default(),
    };
    let mut gen = Generator::new(cfg).map_err(ftlsim::SimError::from)?;
    out.writes(&mut gen, warmup_pages).map_err(&at)?;
    match writes {
        Some(pages) => out.writes(&mut gen, pages).map_err(&at)?,
        None => {
            for _ in 0..w.requests.unwrap_or(0) {
                let item = gen.next_request();
                out.put(item.op, item.lpn, item.pages).map_err(&at)?;
            }
        }
    }
    commit_native(out.writer, output)?;
    Ok(out.done)
}

/// The trace being written.
struct Out {
    writer: NativeWriter<BufWriter<OutputFile>>,
    rec: TraceRecord,
    page_bytes: u64,
    done: Synthesized,
}

impl Out {
    fn put(&mut self, op: Op, lpn: u64, pages: u32) -> std::io::Result<()> {
        self.done.requests += 1;
        if op == Op::Write {
            self.done.write_pages += u64::from(pages);
        }
        let rec = &mut self.rec;
        rec.reset();
        rec.time_ns = self.done.requests * 1_000;
        rec.op = op;
        // In range: the span is under 2^32 pages of at most 2^32 bytes.
        rec.offset_bytes = lpn * self.page_bytes;
        rec.length_bytes = u64::from(pages) * self.page_bytes;
        self.writer.write(rec)
    }

    /// `budget` pages of writes as the run's feed draws them: a start, then
    /// a size cut at what is left of the budget.
    fn writes(&mut self, gen: &mut Generator, budget: u64) -> std::io::Result<()> {
        let mut left = budget;
        while left > 0 {
            let start = gen.next_write();
            let pages = u64::from(gen.request_size(start)).min(left);
            self.put(Op::Write, start, pages as u32)?;
            left -= pages;
        }
        Ok(())
    }
}

/// Refuses a trace larger than the file-size limit or the free space.
fn check_room(output: &Path, least_bytes: u64) -> Result<()> {
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Some(limit) = file_size_limit().filter(|&limit| least_bytes > limit) {
        return Err(RunError::Input(format!(
            "{}: the trace takes at least {least_bytes} bytes, more than this process's file-size limit of {limit} bytes (ulimit -f)",
            output.display()
        )));
    }
    if let Some(free) = free_bytes(dir).filter(|&free| least_bytes > free) {
        return Err(RunError::Input(format!(
            "{}: the trace takes at least {least_bytes} bytes, more than the {free} bytes free there",
            output.display()
        )));
    }
    Ok(())
}
