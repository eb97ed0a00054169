//! Traces in a run: the adapter that feeds a trace to a simulation
//! (`workload.type = "trace"`), reader options from config keys or flags,
//! and the synthetic fio-like trace writer.

use std::cell::Cell;
use std::io::BufWriter;
use std::path::Path;
use std::rc::Rc;

use ftlsim::config::{Config, TimingMode, TraceTrims};
use ftlsim::request::{Op, Request, RequestSource};
use ftlsim::timing::MAX_TIME_NS;
use ftlsim::SimError;
use ftlsim_trace::{
    device_id, FioDedupeOptions, FioDedupeWriter, Format, NativeWriter, OutputFile, PageOptions,
    PageRequest, PageStream, ReaderOptions, TimeUnit, TraceError, TraceRecord, MAX_REQUEST_BYTES,
};

use crate::error::{Result, RunError};

/// Writes a fio-like dedupe trace to `output` in the native format, with
/// offsets in pages of `page_bytes`. Errors name the `ftlsim trace
/// generate` flags. The file is renamed into place when complete.
pub fn generate(output: &Path, opts: FioDedupeOptions, page_bytes: u32) -> Result<u64> {
    if page_bytes == 0 {
        return Err(RunError::Input("--page-bytes must be at least 1".into()));
    }
    // Every offset and length must be a byte count the native format and
    // its readers take: the end of the addressed space in u64 bytes, and
    // a request within the largest one a record may describe.
    let space_bytes = opts
        .logical_pages
        .checked_mul(u64::from(page_bytes))
        .filter(|&b| b <= u64::MAX - MAX_REQUEST_BYTES);
    if space_bytes.is_none() {
        return Err(RunError::Input(format!(
            "--logical-pages {} of --page-bytes {page_bytes}: the addressed space passes 2^64 bytes",
            opts.logical_pages
        )));
    }
    if u64::from(opts.block_pages) * u64::from(page_bytes) > MAX_REQUEST_BYTES {
        return Err(RunError::Input(format!(
            "--block-pages {} of --page-bytes {page_bytes}: a request over {MAX_REQUEST_BYTES} bytes",
            opts.block_pages
        )));
    }
    check_generate_size(output, &opts)?;
    let mut gen = FioDedupeWriter::new(opts).map_err(|error| RunError::Trace {
        what: None,
        error: Box::new(error),
    })?;
    let at = write_error(output);
    let mut writer = create_native(output)?;
    let (mut page, mut rec, mut n) = (PageRequest::default(), TraceRecord::default(), 0u64);
    while gen.next_request(&mut page) {
        rec.time_ns = page.time_ns;
        rec.op = Op::Write;
        // In range: lpn < logical_pages, checked above.
        rec.offset_bytes = page.lpn * u64::from(page_bytes);
        rec.length_bytes = u64::from(page.pages) * u64::from(page_bytes);
        rec.fingerprints.clone_from(&page.fingerprints);
        writer.write(&rec).map_err(&at)?;
        n += 1;
    }
    commit_native(writer, output)?;
    Ok(n)
}

/// A write error on `output`: the OS error after the file's name, as the
/// trace crate says it.
pub(crate) fn write_error(output: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |source| RunError::Trace {
        what: None,
        error: Box::new(TraceError::Io {
            file: output.display().to_string(),
            source,
        }),
    }
}

/// A native trace written beside `output` ([`OutputFile`]), put in its
/// place by [`commit_native`].
pub(crate) fn create_native(output: &Path) -> Result<NativeWriter<BufWriter<OutputFile>>> {
    let at = write_error(output);
    let file = OutputFile::create(output, &[]).map_err(&at)?;
    NativeWriter::new(BufWriter::new(file)).map_err(at)
}

/// Ends a trace from [`create_native`] and renames it over `output`.
pub(crate) fn commit_native(
    writer: NativeWriter<BufWriter<OutputFile>>,
    output: &Path,
) -> Result<()> {
    let at = write_error(output);
    writer
        .finish()
        .map_err(&at)?
        .into_inner()
        .map_err(|e| at(e.into_error()))?
        .commit()
        .map_err(&at)
}

/// Refuses a trace that could never be written: more requests than a run
/// may plan (`config::bounds::MAX_PLANNED_REQUESTS`), or more bytes than the
/// output's file system has free (each written page carries a 16-byte
/// fingerprint, so that is a lower bound on the size).
fn check_generate_size(output: &Path, opts: &FioDedupeOptions) -> Result<()> {
    use ftlsim::config::bounds::MAX_PLANNED_REQUESTS;
    if opts.requests > MAX_PLANNED_REQUESTS {
        return Err(RunError::Input(format!(
            "--requests {}: at most {MAX_PLANNED_REQUESTS} (2^40), the bound on requests a run may plan",
            opts.requests
        )));
    }
    let least_bytes = opts
        .requests
        .saturating_mul(u64::from(opts.block_pages.max(1)))
        .saturating_mul(16);
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // A file-size limit (`ulimit -f`) would kill the writer half way with
    // SIGXFSZ: say so before writing anything.
    if let Some(limit) = file_size_limit().filter(|&limit| least_bytes > limit) {
        return Err(RunError::Input(format!(
            "--requests {}: the trace takes at least {least_bytes} bytes, more than this process's file-size limit of {limit} bytes (ulimit -f)",
            opts.requests
        )));
    }
    if let Some(free) = free_bytes(dir).filter(|&free| least_bytes > free) {
        return Err(RunError::Input(format!(
            "--requests {}: the trace takes at least {:.1} GiB, more than the {:.1} GiB free in {}",
            opts.requests,
            least_bytes as f64 / f64::from(1u32 << 30),
            free as f64 / f64::from(1u32 << 30),
            dir.display()
        )));
    }
    Ok(())
}

/// The soft limit on the size of a file this process writes, if any.
pub(crate) fn file_size_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid rlimit that the call fills in.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim) };
    (rc == 0 && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// Bytes an unprivileged writer may still use in the file system holding
/// `dir`; `None` where it cannot be asked.
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `st` a valid statvfs
    // that the call fills in.
    let rc = unsafe { libc::statvfs(path.as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail.saturating_mul(st.f_frsize))
}

/// Where reader options come from, so that an error names what the user
/// typed: a command-line flag or a config key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionNames {
    /// `--format`, `--time-unit`, `--action` (`ftlsim trace ...`).
    Flags,
    /// `workload.trace.format`, `.time_unit`, `.blkparse_action`.
    Config,
}

impl OptionNames {
    /// How an error names the format option.
    pub fn format(self) -> &'static str {
        match self {
            OptionNames::Flags => "--format",
            OptionNames::Config => "config key `workload.trace.format`",
        }
    }

    fn time_unit(self) -> &'static str {
        match self {
            OptionNames::Flags => "--time-unit",
            OptionNames::Config => "config key `workload.trace.time_unit`",
        }
    }

    fn action(self) -> &'static str {
        match self {
            OptionNames::Flags => "--action",
            OptionNames::Config => "config key `workload.trace.blkparse_action`",
        }
    }
}

/// Reader options from CLI flags or config keys; `names` says which, for
/// error messages.
pub fn reader_options(
    format: Option<&str>,
    time_unit: Option<&str>,
    action: Option<&str>,
    device: Option<&str>,
    skip_bad_lines: bool,
    names: OptionNames,
) -> Result<ReaderOptions> {
    let mut o = ReaderOptions {
        format_option: match names {
            OptionNames::Flags => "--format",
            OptionNames::Config => "workload.trace.format",
        },
        skip_option: match names {
            OptionNames::Flags => "--skip-bad-lines",
            OptionNames::Config => "workload.trace.skip_bad_lines",
        },
        ..ReaderOptions::default()
    };
    if let Some(f) = format {
        o.format = Some(f.parse::<Format>().map_err(|error| RunError::Trace {
            what: Some(names.format().into()),
            error: Box::new(error),
        })?);
    }
    if let Some(u) = time_unit {
        o.time_unit = Some(u.parse::<TimeUnit>().map_err(|error| RunError::Trace {
            what: Some(names.time_unit().into()),
            error: Box::new(error),
        })?);
    }
    if let Some(a) = action {
        let mut chars = a.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => {
                o.blkparse_action = c.to_ascii_uppercase()
            }
            _ => {
                return Err(RunError::Input(format!(
                    "{}: `{a}` is not a blkparse action letter (D, Q, C, ...)",
                    names.action()
                )))
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
    /// Open-loop timing's `timing.speedup`: request times must stay within
    /// the timing model's horizon once divided by it.
    open_loop_speedup: Option<f64>,
}

impl TraceSource {
    /// Refuses a request whose time, in the timing model's open loop, lies
    /// past its horizon: said here, where the file and line are known,
    /// rather than by the timer.
    fn check_time(&self) -> Result<(), SimError> {
        let Some(speedup) = self.open_loop_speedup else {
            return Ok(());
        };
        // Times are rebased: nanoseconds since the trace's first request.
        let t = self.page.time_ns;
        if t as f64 / speedup <= MAX_TIME_NS as f64 {
            return Ok(());
        }
        let reader = self.stream.reader();
        let speedup_note = if speedup == 1.0 {
            String::new()
        } else {
            format!(" divided by timing.speedup = {speedup:?}")
        };
        Err(SimError::Source(format!(
            "{}: line {}: the request {t} ns after the trace's first{speedup_note} arrives \
             past the timing model's horizon of 2^62 ns (about 146 years)",
            reader.name(),
            reader.position()
        )))
    }
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
        self.check_time()?;
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
    let mut ropts = reader_options(
        t.format.as_deref(),
        t.time_unit.as_deref(),
        t.blkparse_action.as_deref(),
        t.device.as_deref(),
        t.skip_bad_lines,
        OptionNames::Config,
    )?;
    ropts.spread_seconds = t.spread_seconds;
    let popts = PageOptions {
        page_bytes: cfg.device.page_bytes,
        compact: t.compact,
        logical_pages: Some(cfg.span_pages()),
        repeat: t.repeat,
        rebase_time: true,
    };
    let path = Path::new(&t.path);
    // A corpus trace (NAME.ftlt.zst) must match its provenance record
    // before anything is computed from it.
    crate::corpus::check(path)?;
    // The trace error already names the file (and line): flatten, don't chain.
    let stream = PageStream::open(path, &ropts, &popts).map_err(|error| RunError::Trace {
        what: Some("workload.trace.path".into()),
        error: Box::new(error),
    })?;
    let skipped = Rc::new(Cell::new(0));
    Ok((
        Box::new(TraceSource {
            stream,
            page: PageRequest::default(),
            skipped: skipped.clone(),
            drop_trims: t.trims == TraceTrims::Drop,
            open_loop_speedup: cfg
                .timing
                .as_ref()
                .filter(|t| t.mode == TimingMode::Open)
                .map(|t| t.speedup),
        }),
        skipped,
    ))
}
