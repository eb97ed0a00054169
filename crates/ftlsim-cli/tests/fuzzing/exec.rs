//! Running one case: a fresh directory with the case's input files, the
//! binary spawned there with a wall-clock budget (killed when it runs out)
//! and resource limits (address space, file size, no core dumps), so that
//! an absurd config fails the case instead of the machine.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Case;

/// Limits of one run.
#[derive(Clone, Debug)]
pub struct Limits {
    pub timeout: Duration,
    /// Address space of the child (RLIMIT_AS).
    pub memory_bytes: u64,
    /// Largest file the child may write (RLIMIT_FSIZE).
    pub file_bytes: u64,
}

impl Limits {
    /// From FTLSIM_FUZZ_TIMEOUT_S (default 20) and FTLSIM_FUZZ_MEM_MB
    /// (default 4096).
    pub fn from_env() -> Limits {
        let num = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        Limits {
            timeout: Duration::from_secs(num("FTLSIM_FUZZ_TIMEOUT_S", 20)),
            memory_bytes: num("FTLSIM_FUZZ_MEM_MB", 4096) << 20,
            file_bytes: 256 << 20,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Exit code; `None` when killed by a signal or by the budget.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// Input files whose bytes changed (or that vanished).
    pub inputs_changed: Vec<String>,
    pub elapsed: Duration,
}

static DIRS: AtomicU64 = AtomicU64::new(0);

/// The binary under test: FTLSIM_FUZZ_BIN, or the one cargo built for
/// these tests.
pub fn binary() -> PathBuf {
    std::env::var_os("FTLSIM_FUZZ_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ftlsim")))
}

/// A fresh working directory for one run, removed by the caller.
pub fn fresh_dir() -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ftlsim-fuzz-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a case directory");
    dir
}

fn rlimit(bytes: u64) -> libc::rlimit {
    libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    }
}

/// Runs `case` once.
pub fn run(case: &Case, limits: &Limits) -> Outcome {
    let dir = fresh_dir();
    let outcome = run_in(case, limits, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

fn run_in(case: &Case, limits: &Limits, dir: &Path) -> Outcome {
    let mut inputs = Vec::new();
    for f in &case.files {
        let bytes = f.bytes();
        std::fs::write(dir.join(&f.name), &bytes).expect("write a case input");
        inputs.push((f.name.clone(), bytes));
    }
    let out_path = dir.join(".stdout");
    let err_path = dir.join(".stderr");
    let (mem, fsize) = (limits.memory_bytes, limits.file_bytes);
    let mut cmd = Command::new(binary());
    cmd.args(case.argv())
        .current_dir(dir)
        .env_remove("FTLSIM_PIPELINE")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"));
    // SAFETY: the closure only calls async-signal-safe setrlimit.
    unsafe {
        cmd.pre_exec(move || {
            libc::setrlimit(libc::RLIMIT_AS, &rlimit(mem));
            libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit(fsize));
            libc::setrlimit(libc::RLIMIT_CORE, &rlimit(0));
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn the ftlsim binary");
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for ftlsim") {
            break status;
        }
        if started.elapsed() > limits.timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("reap ftlsim");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    use std::os::unix::process::ExitStatusExt;
    let inputs_changed = inputs
        .iter()
        .filter(|(name, bytes)| std::fs::read(dir.join(name)).ok().as_ref() != Some(bytes))
        .map(|(name, _)| name.clone())
        .collect();
    Outcome {
        code: if timed_out { None } else { status.code() },
        signal: if timed_out { None } else { status.signal() },
        timed_out,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned(),
        inputs_changed,
        elapsed,
    }
}
