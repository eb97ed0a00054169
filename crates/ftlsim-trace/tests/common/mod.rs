//! Test helpers: unique temp dirs, writing plain/gzip/zstd files, reading
//! every record.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use ftlsim_trace::{open, Format, ReaderOptions, TraceError, TraceRecord};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "ftlsim-trace-test-{}-{tag}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `content` to `name` and returns its path.
    pub fn write(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, content).expect("write test file");
        p
    }

    pub fn write_gz(&self, name: &str, content: &[u8]) -> PathBuf {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(content).unwrap();
        self.write(name, &enc.finish().unwrap())
    }

    pub fn write_zst(&self, name: &str, content: &[u8]) -> PathBuf {
        self.write(name, &zstd::encode_all(content, 3).unwrap())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn opts(format: Option<Format>) -> ReaderOptions {
    ReaderOptions {
        format,
        ..ReaderOptions::default()
    }
}

/// Reads every record of `path`.
pub fn read_all(path: &Path, opts: &ReaderOptions) -> Result<Vec<TraceRecord>, TraceError> {
    let mut reader = open(path, opts)?;
    let mut out = Vec::new();
    let mut rec = TraceRecord::default();
    while reader.next_record(&mut rec)? {
        out.push(rec.clone());
    }
    Ok(out)
}

/// The error message of reading `content` as `format` (file name `name`).
pub fn error_of(dir: &TempDir, name: &str, content: &str, format: Option<Format>) -> String {
    let p = dir.write(name, content.as_bytes());
    match read_all(&p, &opts(format)) {
        Ok(recs) => panic!("expected an error for {name}, got {} records", recs.len()),
        Err(e) => {
            let msg = e.to_string();
            // Every message names the file.
            assert!(msg.contains(name), "message does not name the file: {msg}");
            msg
        }
    }
}

/// Path of a real sample trace, or None (with a message) when absent.
pub fn real_trace(name: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/traces")
        .join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: real trace {} not found", p.display());
        None
    }
}
