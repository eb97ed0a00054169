//! `ftlsim device run` interrupted: SIGINT, SIGTERM and SIGHUP stop the
//! command, take the file system, loop device and FUSE mount down, print
//! the report and exit 128 + the signal; after SIGKILL the next run warns
//! and `ftlsim device cleanup` removes what was left. Root and /dev/fuse
//! needed (skipped with a message otherwise), as the live tests.

use crate::common;

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why these tests cannot run here, if they cannot.
fn skip_reason() -> Option<String> {
    let missing = ftlsim_live::system::missing_requirements(ftlsim_live::FsKind::Ext4);
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// One at a time: loop devices and mounts are shared by the whole machine,
/// and the leftover checks look at all of them.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

macro_rules! require_live {
    () => {
        if let Some(why) = skip_reason() {
            eprintln!("SKIPPED: the live device needs root and /dev/fuse ({why})");
            return;
        }
        let _serial = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    };
}

/// A `device run` in the background, its output going to files.
struct Running {
    child: Child,
    dir: PathBuf,
    /// Written by the command once it runs: the pid of its process group.
    marker: PathBuf,
}

/// Starts `ftlsim device run --size 64MiB --fs ext4 [extra] -- sh -c SCRIPT`
/// where SCRIPT first writes its pid to the marker file, then runs `body`.
fn start(name: &str, extra: &[&str], body: &str) -> Running {
    let dir = common::temp_dir("signals", name);
    let marker = dir.join("started");
    let script = format!("echo $$ > '{}'; {body}", marker.display());
    let child = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(["device", "run", "--size", "64MiB", "--fs", "ext4"])
        .args(extra)
        .args(["--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(File::create(dir.join("stdout")).unwrap())
        .stderr(File::create(dir.join("stderr")).unwrap())
        .spawn()
        .expect("ftlsim starts");
    Running { child, dir, marker }
}

impl Running {
    /// The command's process group, once it has started (at most 60 s:
    /// start-up includes mkfs on a busy machine).
    fn wait_for_command(&mut self) -> i32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&self.marker).unwrap_or_default();
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("ftlsim ended ({status}) first: {}", self.stderr());
            }
            assert!(Instant::now() < deadline, "the command never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill has no memory-safety preconditions.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// Waits for ftlsim to exit; the time it took.
    fn wait(&mut self, limit: Duration) -> (ExitStatus, Duration) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, started.elapsed());
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                panic!("ftlsim still running after {limit:?}: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(self.dir.join("stdout")).unwrap_or_default()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }
}

/// What is left on the machine of the live device of ftlsim process `pid`:
/// its scratch directory, mounts in it or from loop devices over its file,
/// those loop devices. Empty when it cleaned up.
fn leftovers_of(pid: u32) -> Vec<String> {
    let scratch = format!("ftlsim-live-{pid}-");
    let mut left = Vec::new();
    let loops = Command::new("losetup")
        .args(["-l", "-n", "--raw", "-O", "NAME,BACK-FILE"])
        .output()
        .unwrap();
    let mut our_loops = Vec::new();
    for line in String::from_utf8_lossy(&loops.stdout).lines() {
        if line.contains(&scratch) {
            left.push(format!("loop: {line}"));
            our_loops.push(line.split(' ').next().unwrap().to_string());
        }
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let source = line.split(" - ").nth(1).and_then(|r| r.split(' ').nth(1));
        if f[4].contains(&scratch) || source.is_some_and(|s| our_loops.iter().any(|l| l == s)) {
            left.push(format!("mount: {line}"));
        }
    }
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&scratch) {
                left.push(format!("scratch: {}", e.path().display()));
            }
        }
    }
    left
}

/// Processes of the group that are not zombies.
fn group_members(group: i32) -> Vec<String> {
    let mut members = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 2 && f[0] != "Z" && f[2].parse() == Ok(group) {
            members.push(stat.clone());
        }
    }
    members
}

/// Signals a run once its command runs; checks that it exits within a few
/// seconds with 128 + the signal, prints the report and the note, and
/// leaves no mount, loop device, scratch directory or process.
fn interrupted_run(name: &str, signal: i32, body: &str, json: bool) {
    let extra: &[&str] = if json { &["--json"] } else { &[] };
    let mut run = start(name, extra, body);
    let group = run.wait_for_command();
    // Let the command get going (the writer writes a few files).
    std::thread::sleep(Duration::from_millis(300));
    run.signal(signal);
    // The command's grace period is 3 s, the teardown on a busy machine a
    // few more.
    let (status, took) = run.wait(Duration::from_secs(20));
    let (stdout, stderr) = (run.stdout(), run.stderr());
    assert_eq!(status.code(), Some(128 + signal), "{stderr}");
    assert!(took < Duration::from_secs(12), "took {took:?}: {stderr}");
    let name = ftlsim_live::interrupt::signal_name(signal);
    assert!(
        stderr.contains(&format!("interrupted by {name} during the command")),
        "{stderr}"
    );
    if json {
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("the JSON report");
        assert!(report["host_write_pages"].as_u64().unwrap() > 0, "{stdout}");
    } else {
        assert!(stdout.contains("WAF"), "the report: {stdout}");
    }
    assert_eq!(leftovers_of(run.child.id()), Vec::<String>::new());
    assert_eq!(group_members(group), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&run.dir);
}

/// A loop of small synced writes: the file system is busy when the signal
/// comes, and the command ignores SIGINT, so that the grace period and
/// SIGKILL are what stop it.
const WRITER: &str = "trap '' INT; i=0; while :; do \
    dd if=/dev/zero of=f$((i % 8)) bs=64k count=4 conv=fsync status=none; i=$((i+1)); done";

#[test]
fn sigint_stops_a_writer_that_ignores_it() {
    require_live!();
    interrupted_run("int", libc::SIGINT, WRITER, false);
}

#[test]
fn sigterm_stops_the_command_and_cleans_up() {
    require_live!();
    interrupted_run("term", libc::SIGTERM, "sleep 30", true);
}

#[test]
fn sighup_stops_the_command_and_cleans_up() {
    require_live!();
    interrupted_run("hup", libc::SIGHUP, "exec sleep 30", false);
}

/// When to signal a run that is setting up.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// This long after it started (before or while the FUSE mount goes up).
    AfterMs(u64),
    /// As soon as its FUSE file system is mounted (losetup under way).
    FuseMounted,
    /// As soon as its loop device is attached (mkfs under way, or mount).
    LoopAttached,
}

/// Whether anything of ftlsim process `pid`'s device shows in `/proc/self/mountinfo`
/// or among the loop devices' backing files (read from sysfs: polled, so cheap).
fn shows(pid: u32, in_loops: bool) -> bool {
    let scratch = format!("ftlsim-live-{pid}-");
    if !in_loops {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        return mountinfo.contains(&scratch);
    }
    std::fs::read_dir("/sys/block").is_ok_and(|d| {
        d.flatten().any(|e| {
            std::fs::read_to_string(e.path().join("loop/backing_file"))
                .is_ok_and(|b| b.contains(&scratch))
        })
    })
}

/// A signal at any moment of set-up (the FUSE mount, losetup, mkfs,
/// mount) undoes what was done: exit 143, nothing left behind. Which step
/// each signal lands in depends on timing; the test prints them.
#[test]
fn sigterm_during_setup_leaves_nothing() {
    require_live!();
    let moments = [
        Moment::AfterMs(0),
        Moment::AfterMs(10),
        Moment::FuseMounted,
        Moment::LoopAttached,
        Moment::AfterMs(40),
    ];
    for (i, moment) in moments.into_iter().enumerate() {
        let mut run = start(&format!("setup-{i}"), &[], "sleep 30");
        let pid = run.child.id();
        let deadline = Instant::now() + Duration::from_secs(30);
        match moment {
            Moment::AfterMs(ms) => std::thread::sleep(Duration::from_millis(ms)),
            Moment::FuseMounted | Moment::LoopAttached => {
                let in_loops = matches!(moment, Moment::LoopAttached);
                while !shows(pid, in_loops) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
        run.signal(libc::SIGTERM);
        let (status, _) = run.wait(Duration::from_secs(20));
        let stderr = run.stderr();
        if std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGTERM) {
            // Before ftlsim installed its handlers (the first millisecond):
            // the default action, with nothing set up yet.
            eprintln!("{moment:?}: before the handlers");
            assert_eq!(leftovers_of(pid), Vec::<String>::new(), "{moment:?}");
            continue;
        }
        assert_eq!(status.code(), Some(143), "{moment:?}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains("interrupted by SIGTERM during"))
            .unwrap_or_else(|| panic!("{moment:?}: no note in {stderr}"));
        eprintln!("{moment:?}: {line}");
        assert_eq!(leftovers_of(pid), Vec::<String>::new(), "{moment:?}");
        let _ = std::fs::remove_dir_all(&run.dir);
    }
}

fn cleanup() -> (i32, String, String) {
    let out = common::ftlsim(&["device", "cleanup"]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// SIGKILL cannot be caught: the mounts and loop device stay (the command,
/// which exec'd into `sleep`, dies with ftlsim). The next run warns and
/// goes on; `device cleanup` removes them, then finds nothing to do.
#[test]
fn after_sigkill_the_next_run_warns_and_cleanup_removes_the_leftovers() {
    require_live!();
    let mut run = start("kill", &[], "exec sleep 30");
    let group = run.wait_for_command();
    run.signal(libc::SIGKILL);
    run.wait(Duration::from_secs(10));
    let pid = run.child.id();
    let left = leftovers_of(pid);
    assert!(
        left.iter().any(|l| l.starts_with("loop:")) && left.iter().any(|l| l.contains("ext4")),
        "SIGKILL leaves the loop device and the file system: {left:?}"
    );
    // The command is killed with ftlsim (PR_SET_PDEATHSIG).
    let gone = Instant::now() + Duration::from_secs(5);
    while !group_members(group).is_empty() && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(group_members(group), Vec::<String>::new());

    let next = common::ftlsim(&[
        "device", "run", "--size", "64MiB", "--fs", "ext4", "--", "true",
    ]);
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning:") && stderr.contains("ftlsim device cleanup"),
        "{stderr}"
    );

    let (code, stdout, stderr) = cleanup();
    assert_eq!(code, 0, "{stdout}{stderr}");
    for removed in [
        "unmounted /dev/loop",
        "detached loop device",
        "unmounted FUSE",
        "removed",
    ] {
        assert!(stdout.contains(removed), "`{removed}` in: {stdout}");
    }
    assert_eq!(leftovers_of(pid), Vec::<String>::new());
    let (code, stdout, stderr) = cleanup();
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("nothing to clean up"), "{stderr}");
    let _ = std::fs::remove_dir_all(&run.dir);
}
