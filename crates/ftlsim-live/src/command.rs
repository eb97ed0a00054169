//! The user's command in a live run: in a process group of its own, so
//! that an interrupted run can stop it and everything it started with one
//! signal to the group, and so that the run survives the command's own
//! Ctrl-C (the terminal's foreground is handed to the command's group).

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use crate::error::{IoContext, Result};

use crate::capture::Preload;
use crate::interrupt::Interrupt;

/// How long an interrupted command gets to exit after the signal is passed
/// on, before its process group is killed: long enough for a program to
/// flush and close its files, short enough for a person at Ctrl-C.
pub const GRACE: Duration = Duration::from_secs(3);

/// How often the wait looks at the child and at the interrupt flag.
const POLL: Duration = Duration::from_millis(20);

/// The most a stop waits for SIGKILLed members to exit (they close their
/// files on the mount as they do).
const KILL_WAIT: Duration = Duration::from_secs(2);

/// How the command ended.
#[derive(Debug, Clone, Copy)]
pub enum Ended {
    /// It exited (or died of a signal of its own).
    Exited(ExitStatus),
    /// A signal stopped the run: the command was sent `signal` and, if
    /// still there after [`GRACE`], killed (`killed`).
    Stopped {
        signal: i32,
        status: ExitStatus,
        killed: bool,
    },
}

impl Ended {
    pub fn status(&self) -> ExitStatus {
        match *self {
            Ended::Exited(s) | Ended::Stopped { status: s, .. } => s,
        }
    }
}

/// Runs the command with the mount as its working directory and its path in
/// `FTLSIM_MOUNT` (under the capture library when `preload` is given), and
/// waits for it; when `interrupt` is raised, passes the signal to its
/// process group, waits up to [`GRACE`] and then kills the group.
pub fn run_in(
    program: &OsString,
    args: &[OsString],
    dir: &Path,
    preload: Option<&Preload>,
    interrupt: &Interrupt,
) -> Result<Ended> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("FTLSIM_MOUNT", dir)
        .process_group(0);
    if let Some(p) = preload {
        p.apply(&mut cmd);
    }
    let terminal = Terminal::foreground();
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the child between fork and exec and only
    // makes async-signal-safe system calls (prctl, getppid, sigprocmask,
    // tcsetpgrp, getpid); it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || {
            // Should ftlsim die without cleaning up (SIGKILL), the command
            // is killed too instead of running on against a dead device
            // whose every write fails. Only the command itself: what it
            // starts is left to `ftlsim device cleanup`, which names it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            if libc::getppid() != parent {
                // ftlsim died before the line above took effect.
                libc::_exit(1);
            }
            if terminal.is_some() {
                take_terminal(libc::getpid());
            }
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .io_context(|| format!("cannot run {}", program.to_string_lossy()))?;
    let ended = wait(&mut child, interrupt);
    if let Some(t) = terminal {
        t.restore();
    }
    ended
}

/// Waits for the child, or stops it when the interrupt is raised.
fn wait(child: &mut Child, interrupt: &Interrupt) -> Result<Ended> {
    // The group's id is the child's pid (process_group(0)), set before
    // exec, so before spawn returned.
    let group = child.id() as libc::pid_t;
    loop {
        if let Some(status) = child
            .try_wait()
            .io_context(|| "waiting for the command".into())?
        {
            return Ok(Ended::Exited(status));
        }
        if let Some(signal) = interrupt.signal() {
            return stop_group(child, group, signal);
        }
        std::thread::sleep(POLL);
    }
}

/// Passes `signal` to the command's process group; after [`GRACE`], kills
/// whatever of the group is left (children the command started too: they
/// hold files open on the mount, which would keep it busy).
fn stop_group(child: &mut Child, group: libc::pid_t, signal: i32) -> Result<Ended> {
    signal_group(group, signal);
    // A stopped process (Ctrl-Z) cannot act on the signal until continued.
    signal_group(group, libc::SIGCONT);
    let deadline = Instant::now() + GRACE;
    let mut status = None;
    while Instant::now() < deadline {
        if status.is_none() {
            status = child
                .try_wait()
                .io_context(|| "waiting for the command".into())?;
        }
        if status.is_some() && !group_alive(group) {
            break;
        }
        std::thread::sleep(POLL);
    }
    let killed = group_alive(group);
    if killed {
        signal_group(group, libc::SIGKILL);
        // SIGKILL is delivered at once, but a member lets go of its files
        // only as it exits: until then the unmount finds the mount busy
        // (seen in the tests: "umount: target is busy"). Wait, bounded,
        // until only zombies are left.
        let deadline = Instant::now() + KILL_WAIT;
        while group_alive(group) && Instant::now() < deadline {
            std::thread::sleep(POLL);
        }
    }
    let status = match status {
        Some(s) => s,
        None => child
            .wait()
            .io_context(|| "waiting for the command".into())?,
    };
    // Members other than the leader are reaped by init; those SIGKILLed
    // have exited (above), so they hold no file on the mount.
    Ok(Ended::Stopped {
        signal,
        status,
        killed,
    })
}

fn signal_group(group: libc::pid_t, signal: i32) {
    // SAFETY: kill has no memory-safety preconditions; a group that is gone
    // (ESRCH) is fine.
    unsafe { libc::kill(-group, signal) };
}

/// Whether any process of the group is still there (zombies excepted: a
/// reaped leader is gone, and killed members have closed their files).
fn group_alive(group: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(-group, 0) } != 0 {
        return false;
    }
    // kill(2) also finds zombies (children of the command not yet reaped by
    // init): only a member that is not a zombie counts.
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return true;
    };
    procs.flatten().any(|e| {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and
        // parentheses, so fields are counted after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let f: Vec<&str> = rest.split_whitespace().take(3).collect();
        f.len() == 3 && f[0] != "Z" && f[2].parse::<libc::pid_t>() == Ok(group)
    })
}

/// The controlling terminal on standard input, when this process is in its
/// foreground: the command's group gets the foreground while it runs (as a
/// shell gives it to a job), so that an interactive command can read the
/// terminal and Ctrl-C goes to the command, not to ftlsim.
#[derive(Clone, Copy)]
struct Terminal {
    own_group: libc::pid_t,
}

impl Terminal {
    fn foreground() -> Option<Self> {
        // SAFETY: isatty, tcgetpgrp and getpgrp only read process state.
        unsafe {
            let own_group = libc::getpgrp();
            (libc::isatty(0) == 1 && libc::tcgetpgrp(0) == own_group).then_some(Self { own_group })
        }
    }

    /// Takes the foreground back for ftlsim's own group.
    fn restore(self) {
        take_terminal(self.own_group);
    }
}

/// Makes `group` the terminal's foreground group. A process outside the
/// foreground that calls tcsetpgrp is sent SIGTTOU (which would stop it),
/// unless the signal is blocked: blocked around the call.
fn take_terminal(group: libc::pid_t) {
    // SAFETY: sigset operations on a local set, pthread_sigmask and
    // tcsetpgrp on fd 0; all async-signal-safe (this runs in pre_exec too).
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTTOU);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        libc::tcsetpgrp(0, group);
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// What a status means in a sentence ("exit status 3", "killed by SIGKILL").
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("killed by {}", crate::interrupt::signal_name(s)),
        _ => status.to_string(),
    }
}
