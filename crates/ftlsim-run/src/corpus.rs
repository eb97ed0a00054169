//! The committed trace corpus (`traces/real/`, docs/real-workloads.md):
//! each trace `NAME.ftlt.zst` has `NAME.provenance.toml` beside it, which
//! says how it was made and holds the file's size and SHA-256. Before a
//! corpus trace is replayed its bytes are checked against that record, so a
//! truncated download, a half-finished re-capture or a trace swapped
//! without its record is a one-line error naming the file, not a result
//! quietly computed from other data.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Result, RunError};

/// How a corpus trace's name ends; the provenance record replaces it.
pub const TRACE_SUFFIX: &str = ".ftlt.zst";
/// How a provenance record's name ends.
pub const PROVENANCE_SUFFIX: &str = ".provenance.toml";

/// The part of a provenance record the loader checks; the rest (command,
/// versions, device, aging) is for people and is not read.
#[derive(Deserialize)]
struct Record {
    trace: TraceRecord,
}

#[derive(Deserialize)]
struct TraceRecord {
    file: String,
    bytes: u64,
    sha256: String,
}

/// The provenance record of `trace` if it is a corpus trace (its name ends
/// in `.ftlt.zst`), else `None`.
pub fn provenance_path(trace: &Path) -> Option<PathBuf> {
    let name = trace.file_name()?.to_str()?;
    let stem = name.strip_suffix(TRACE_SUFFIX)?;
    Some(trace.with_file_name(format!("{stem}{PROVENANCE_SUFFIX}")))
}

/// Checks a corpus trace against its provenance record: the record exists
/// and parses, names this file, and the file has the recorded size and
/// SHA-256. A trace whose name is not a corpus name passes unchecked.
pub fn check(trace: &Path) -> Result<()> {
    let Some(record_path) = provenance_path(trace) else {
        return Ok(());
    };
    let shown = trace.display();
    let bad = |why: String| RunError::Input(format!("corpus trace {shown}: {why}"));
    let text = std::fs::read_to_string(&record_path).map_err(|e| {
        bad(format!(
            "cannot read its provenance record {}: {e}",
            record_path.display()
        ))
    })?;
    let record: Record = toml::from_str(&text).map_err(|e| {
        let first_line = e.to_string().lines().next().unwrap_or("").to_string();
        bad(format!(
            "its provenance record {} has no valid [trace] file, bytes and sha256: {first_line}",
            record_path.display()
        ))
    })?;
    let r = record.trace;
    let name = trace.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if r.file != name {
        return Err(bad(format!(
            "its provenance record {} is for `{}`",
            record_path.display(),
            r.file
        )));
    }
    let bytes = std::fs::read(trace).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let size = bytes.len() as u64;
    if size < r.bytes {
        return Err(bad(format!(
            "truncated: {size} bytes, its provenance record says {}",
            r.bytes
        )));
    }
    if size != r.bytes {
        return Err(bad(format!(
            "{size} bytes, its provenance record says {}",
            r.bytes
        )));
    }
    let digest = hex_sha256(&bytes);
    if !digest.eq_ignore_ascii_case(&r.sha256) {
        return Err(bad(format!(
            "sha256 {digest} does not match its provenance record ({})",
            r.sha256
        )));
    }
    Ok(())
}

/// The SHA-256 of `bytes` in lower-case hex, as `sha256sum` prints it (the
/// capture scripts write the records with it).
pub fn hex_sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn digests_are_sha256sum_s() {
        // FIPS 180-4's examples, as `sha256sum` prints them.
        assert_eq!(
            hex_sha256(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex_sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ftlsim-corpus-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn record(file: &str, bytes: &[u8]) -> String {
        format!(
            "[trace]\nfile = \"{file}\"\nbytes = {}\nsha256 = \"{}\"\n[capture]\ncommand = \"x\"\n",
            bytes.len(),
            hex_sha256(bytes)
        )
    }

    #[test]
    fn provenance_path_replaces_the_suffix() {
        assert_eq!(
            provenance_path(Path::new("t/real/sqlite-aged.ftlt.zst")),
            Some(PathBuf::from("t/real/sqlite-aged.provenance.toml"))
        );
        assert_eq!(provenance_path(Path::new("t/x.trace")), None);
    }

    #[test]
    fn a_matching_trace_passes_and_others_are_one_line_errors() {
        let d = dir("check");
        let data = b"FTLSIMTR and some bytes".to_vec();
        let t = d.join("w.ftlt.zst");
        std::fs::write(&t, &data).unwrap();
        let p = d.join("w.provenance.toml");
        std::fs::write(&p, record("w.ftlt.zst", &data)).unwrap();
        check(&t).unwrap();
        let err = |f: &dyn Fn()| {
            f();
            let m = check(&t).unwrap_err().to_string();
            assert!(!m.contains('\n'), "{m}");
            assert!(
                m.starts_with(&format!("corpus trace {}: ", t.display())),
                "{m}"
            );
            m
        };
        // Truncated.
        let m = err(&|| std::fs::write(&t, &data[..10]).unwrap());
        assert!(m.contains("truncated: 10 bytes"), "{m}");
        // Same size, other bytes.
        let m = err(&|| {
            let mut other = data.clone();
            other[3] ^= 1;
            std::fs::write(&t, &other).unwrap()
        });
        assert!(m.contains("does not match its provenance record"), "{m}");
        // Longer.
        let m = err(&|| std::fs::write(&t, [&data[..], b"x"].concat()).unwrap());
        assert!(m.contains("24 bytes, its provenance record says 23"), "{m}");
        // A record for another file.
        std::fs::write(&t, &data).unwrap();
        let m = err(&|| std::fs::write(&p, record("v.ftlt.zst", &data)).unwrap());
        assert!(m.contains("is for `v.ftlt.zst`"), "{m}");
        // A record without the digest.
        let m =
            err(&|| std::fs::write(&p, "[trace]\nfile = \"w.ftlt.zst\"\nbytes = 23\n").unwrap());
        assert!(
            m.contains("has no valid [trace] file, bytes and sha256"),
            "{m}"
        );
        // No record.
        let m = err(&|| std::fs::remove_file(&p).unwrap());
        assert!(m.contains("cannot read its provenance record"), "{m}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
