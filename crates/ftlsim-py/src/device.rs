//! `ftlsim.Device`: Python as the host. A device (with its host layers)
//! built from a config; requests arrive as numpy arrays of pages and run in
//! Rust with the GIL released, one request per page, so that a placement
//! idea prototyped in Python costs one call per batch, not per page.

use ftlsim::host::Stack;
use ftlsim::metrics::LayerStats;
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{SimError, SsdOptions};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::config::{guarded, load, sim_err, to_py_err};

/// The content tag of top-level page `lpn`, without counting a read.
fn content(stack: &Stack, lpn: u64) -> Option<u64> {
    stack.ssd().content_of(stack.device_lpn(lpn)?)
}

/// A simulated device driven page by page from Python.
#[pyclass(module = "ftlsim._native", unsendable)]
pub struct Device {
    /// The SSD and its host layers (none: the SSD alone).
    inner: Stack,
    req: Request,
}

impl Device {
    /// Runs `f` on every page of `lpns` as a one-page request of `op`.
    fn each_page(
        &mut self,
        op: Op,
        lpns: &[u64],
        stream: u16,
        context: u64,
        content: Option<&[u64]>,
    ) -> Result<(), SimError> {
        // How far ahead the map entry of a coming page is fetched: the
        // driver's own read-ahead distance.
        const AHEAD: usize = 16;
        let dev = &mut self.inner;
        let req = &mut self.req;
        for &lpn in lpns.iter().take(AHEAD) {
            dev.prefetch(lpn);
        }
        for (i, &lpn) in lpns.iter().enumerate() {
            if let Some(&next) = lpns.get(i + AHEAD) {
                dev.prefetch(next);
            }
            req.set(op, lpn, 1);
            req.stream = stream;
            req.context = context;
            if let Some(c) = content {
                req.fingerprints.push(c[i]);
            }
            dev.submit(req)?;
        }
        Ok(())
    }
}

#[pymethods]
impl Device {
    #[new]
    #[pyo3(signature = (kind, text, origin, sets, track_content=true))]
    fn new(
        kind: &str,
        text: &str,
        origin: &str,
        sets: Vec<String>,
        track_content: bool,
    ) -> PyResult<Self> {
        let cfg = guarded(|| load(kind, text, origin, &sets).map_err(to_py_err))?;
        ftlsim_run::check_memory(&cfg).map_err(to_py_err)?;
        // Content is tracked (8 bytes per physical page) so that reads
        // return what was written; without it they return 0 for data.
        let options = SsdOptions {
            track_content,
            survival: cfg.metrics.survival,
        };
        let inner = Stack::build(&cfg, &options).map_err(sim_err)?;
        Ok(Self {
            inner,
            req: Request::default(),
        })
    }

    /// Pages of the logical space at the top of the stack.
    #[getter]
    fn logical_pages(&self) -> u64 {
        self.inner.logical_pages()
    }

    /// Writes one page per entry of `lpns` (in order) on `stream`, tagged
    /// `context`, with content tags `content` (one per page) when given.
    #[pyo3(signature = (lpns, stream=0, context=0, content=None))]
    fn write(
        &mut self,
        py: Python<'_>,
        lpns: PyReadonlyArray1<'_, u64>,
        stream: u16,
        context: u64,
        content: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<()> {
        let lpns = lpns.as_slice()?;
        let content = match &content {
            Some(c) => Some(c.as_slice()?),
            None => None,
        };
        if let Some(c) = content {
            if c.len() != lpns.len() {
                return Err(PyValueError::new_err(format!(
                    "content has {} entries for {} pages",
                    c.len(),
                    lpns.len()
                )));
            }
        }
        py.detach(|| {
            guarded(|| {
                self.each_page(Op::Write, lpns, stream, context, content)
                    .map_err(sim_err)
            })
        })
    }

    /// Reads the pages; returns each page's content tag, -1 where it holds
    /// no data.
    fn read<'py>(
        &mut self,
        py: Python<'py>,
        lpns: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let lpns = lpns.as_slice()?;
        let out = py
            .detach(|| -> Result<Vec<i64>, SimError> {
                self.each_page(Op::Read, lpns, 0, 0, None)?;
                Ok(lpns
                    .iter()
                    .map(|&lpn| content(&self.inner, lpn).map_or(-1, |c| c as i64))
                    .collect())
            })
            .map_err(sim_err)?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// Discards the pages.
    fn trim(&mut self, py: Python<'_>, lpns: PyReadonlyArray1<'_, u64>) -> PyResult<()> {
        let lpns = lpns.as_slice()?;
        py.detach(|| guarded(|| self.each_page(Op::Trim, lpns, 0, 0, None).map_err(sim_err)))
    }

    /// `dst..dst+n` takes the data of `src..src+n` (moved, not copied).
    fn remap(&mut self, src: u64, dst: u64, n: u32) -> PyResult<()> {
        self.move_pages(Op::Remap, src, dst, n)
    }

    /// `dst..dst+n` shares the data of `src..src+n`.
    fn clone_pages(&mut self, src: u64, dst: u64, n: u32) -> PyResult<()> {
        self.move_pages(Op::Clone, src, dst, n)
    }

    fn flush(&mut self) -> PyResult<()> {
        self.req.set(Op::Flush, 0, 0);
        self.inner.submit(&self.req).map(|_| ()).map_err(sim_err)
    }

    /// Counters since the device was built, as JSON: `counters` (the
    /// device's), `waf`, `free_blocks` and `layers` (top to bottom, the
    /// device last).
    fn stats_json(&self) -> PyResult<String> {
        let ssd = self.inner.ssd();
        let mut layers: Vec<LayerStats> = Vec::new();
        self.inner.layer_stats(&mut layers);
        let c = ssd.counters();
        let value = serde_json::json!({
            "counters": c,
            "waf": (c.host_write_pages > 0).then(|| c.waf()),
            "free_blocks": ssd.free_blocks(),
            "layers": layers,
        });
        crate::run::json(&value)
    }

    /// Checks every invariant of the device and its layers (slow).
    fn check(&self) -> PyResult<()> {
        self.inner.check_invariants().map_err(sim_err)
    }
}

impl Device {
    fn move_pages(&mut self, op: Op, src: u64, dst: u64, n: u32) -> PyResult<()> {
        self.req.set(op, dst, n);
        self.req.src_lpn = src;
        self.inner.submit(&self.req).map(|_| ()).map_err(sim_err)
    }
}
