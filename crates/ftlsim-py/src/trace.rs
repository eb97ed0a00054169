//! Traces from Python: records in chunks of numpy columns, and statistics.

use std::path::Path;

use ftlsim_trace::{Format, ReaderOptions, TimeUnit, TraceReader, TraceRecord, TraceStats};
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::config::{guarded, other_err, FtlsimError};

fn options(
    format: Option<&str>,
    time_unit: Option<&str>,
    skip_bad_lines: bool,
) -> PyResult<ReaderOptions> {
    let mut opts = ReaderOptions {
        skip_bad_lines,
        format_option: "format=",
        skip_option: "skip_bad_lines=True",
        ..ReaderOptions::default()
    };
    if let Some(f) = format {
        opts.format = Some(
            f.parse::<Format>()
                .map_err(|e| FtlsimError::new_err(format!("format: {e}")))?,
        );
    }
    if let Some(u) = time_unit {
        opts.time_unit = Some(
            u.parse::<TimeUnit>()
                .map_err(|e| FtlsimError::new_err(format!("time_unit: {e}")))?,
        );
    }
    Ok(opts)
}

/// A trace read in chunks: each `next_chunk(n)` returns up to `n` records
/// as numpy columns, or None at the end.
#[pyclass(module = "ftlsim._native", unsendable)]
pub struct TraceChunks {
    reader: Box<dyn TraceReader>,
    rec: TraceRecord,
}

type Columns<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<u64>>,
);

#[pymethods]
impl TraceChunks {
    #[new]
    #[pyo3(signature = (path, format=None, time_unit=None, skip_bad_lines=false))]
    fn new(
        path: &str,
        format: Option<&str>,
        time_unit: Option<&str>,
        skip_bad_lines: bool,
    ) -> PyResult<Self> {
        let opts = options(format, time_unit, skip_bad_lines)?;
        let reader = ftlsim_trace::open(Path::new(path), &opts).map_err(other_err)?;
        Ok(Self {
            reader,
            rec: TraceRecord::default(),
        })
    }

    /// The format being read (its name).
    #[getter]
    fn format(&self) -> String {
        self.reader.format().to_string()
    }

    /// Up to `n` records: `(time_ns, op, offset_bytes, length_bytes,
    /// src_offset_bytes, device (-1: none), stream (-1: none), context (0:
    /// none))`; `op` is the operation code (read 0, write 1, trim 2, flush
    /// 3, remap 4, clone 5). None at the end of the trace.
    fn next_chunk<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Option<Columns<'py>>> {
        let n = n.max(1);
        let mut cols = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (reader, rec) = (&mut self.reader, &mut self.rec);
        py.detach(|| -> Result<(), ftlsim_trace::TraceError> {
            while cols.0.len() < n && reader.next_record(rec)? {
                cols.0.push(rec.time_ns);
                cols.1.push(rec.op.code());
                cols.2.push(rec.offset_bytes);
                cols.3.push(rec.length_bytes);
                cols.4.push(rec.src_offset_bytes);
                cols.5.push(rec.device.map_or(-1, i64::from));
                cols.6.push(rec.stream.map_or(-1, i32::from));
                cols.7.push(rec.context.unwrap_or(0));
            }
            Ok(())
        })
        .map_err(other_err)?;
        if cols.0.is_empty() {
            return Ok(None);
        }
        Ok(Some((
            PyArray1::from_vec(py, cols.0),
            PyArray1::from_vec(py, cols.1),
            PyArray1::from_vec(py, cols.2),
            PyArray1::from_vec(py, cols.3),
            PyArray1::from_vec(py, cols.4),
            PyArray1::from_vec(py, cols.5),
            PyArray1::from_vec(py, cols.6),
            PyArray1::from_vec(py, cols.7),
        )))
    }
}

/// Statistics of a whole trace, as JSON (the keys of `ftlsim trace stats --json`).
#[pyfunction]
#[pyo3(signature = (path, format=None, time_unit=None, page_bytes=4096, skip_bad_lines=false))]
pub fn trace_stats(
    py: Python<'_>,
    path: &str,
    format: Option<&str>,
    time_unit: Option<&str>,
    page_bytes: u32,
    skip_bad_lines: bool,
) -> PyResult<String> {
    // Page counts divide by the page size: 0 would be a silent fallback
    // (TraceStats uses 1) or a division by zero, never what was meant.
    if page_bytes == 0 {
        return Err(FtlsimError::new_err("page_bytes must be at least 1"));
    }
    let opts = options(format, time_unit, skip_bad_lines)?;
    let mut reader = ftlsim_trace::open(Path::new(path), &opts).map_err(other_err)?;
    let stats = py.detach(|| {
        guarded(|| TraceStats::from_reader(reader.as_mut(), page_bytes).map_err(other_err))
    })?;
    crate::run::json(&stats)
}
