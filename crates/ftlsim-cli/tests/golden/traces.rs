//! Traces the golden cases replay, made by the test itself so that a fresh
//! checkout (without `../shared/traces`) still covers trace replay: a
//! synthetic fio v3 iolog with reads, writes, trims and syncs at increasing
//! times (written here, from a fixed seed), the same converted to the native
//! format, and a fio-like native trace with duplicate content from
//! `ftlsim trace generate`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

/// Requests in the synthetic fio log.
const FIO_REQUESTS: u64 = 40_000;
/// Pages it addresses: 64 MiB of 4 KiB pages.
const FIO_SPACE_PAGES: u64 = 16_384;
const PAGE_BYTES: u64 = 4096;

pub struct Generated {
    dir: PathBuf,
    /// Removes `dir` when dropped (not for `names_only`).
    owned: bool,
}

impl Generated {
    /// Writes the traces into a fresh temporary folder.
    pub fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("ftlsim-golden-traces-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let traces = Generated { dir, owned: true };
        std::fs::write(traces.fio(), fio_log()).unwrap();
        ftlsim(&[
            "trace",
            "convert",
            "--format",
            "fio",
            &traces.fio(),
            &traces.fio_native(),
        ]);
        ftlsim(&[
            "trace",
            "generate",
            "--requests",
            "30000",
            "--logical-pages",
            "12000",
            "--block-pages",
            "2",
            "--dedupe-percentage",
            "40",
            "--seed",
            "7",
            &traces.dedup_native(),
        ]);
        traces
    }

    /// The paths only, for listing case names.
    pub fn names_only() -> Self {
        Generated {
            dir: PathBuf::from("unused"),
            owned: false,
        }
    }

    /// The synthetic fio v3 iolog (times in microseconds).
    pub fn fio(&self) -> String {
        self.path("synthetic.fio")
    }

    /// The same, converted to the native format.
    pub fn fio_native(&self) -> String {
        self.path("synthetic-fio.trace")
    }

    /// `trace generate`: 2-page writes, 40 % repeating earlier content.
    pub fn dedup_native(&self) -> String {
        self.path("dedup.trace")
    }

    fn path(&self, name: &str) -> String {
        self.dir
            .join(name)
            .to_str()
            .expect("UTF-8 path")
            .to_string()
    }
}

impl Drop for Generated {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn ftlsim(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(args)
        .output()
        .expect("ftlsim runs");
    assert!(
        out.status.success(),
        "ftlsim {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// SplitMix64: the log must not depend on a crate's generator.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fio v3 iolog: 60 % writes (a quarter of them to a hot sixteenth of the
/// space), 30 % reads, 8 % trims, 2 % syncs, 1 to 8 pages each, 20 to 80 µs
/// apart.
fn fio_log() -> String {
    let mut state = 2026_u64;
    let mut time_us = 0_u64;
    let mut log = String::from("fio version 3 iolog\n0 /dev/golden add\n0 /dev/golden open\n");
    for _ in 0..FIO_REQUESTS {
        time_us += 20 + next(&mut state) % 61;
        let kind = next(&mut state) % 100;
        let pages = 1 + next(&mut state) % 8;
        let hot = next(&mut state).is_multiple_of(4);
        let space = if hot {
            FIO_SPACE_PAGES / 16
        } else {
            FIO_SPACE_PAGES
        };
        let page = next(&mut state) % (space - pages);
        let (offset, length) = (page * PAGE_BYTES, pages * PAGE_BYTES);
        let action = match kind {
            0..=59 => "write",
            60..=89 => "read",
            90..=97 => "trim",
            _ => {
                writeln!(log, "{time_us} /dev/golden sync").unwrap();
                continue;
            }
        };
        writeln!(log, "{time_us} /dev/golden {action} {offset} {length}").unwrap();
    }
    log.push_str(&format!("{time_us} /dev/golden close\n"));
    log
}
