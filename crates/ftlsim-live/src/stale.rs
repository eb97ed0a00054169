//! What a live device leaves behind when its process dies without cleaning
//! up (SIGKILL, a crash, the OOM killer): a FUSE mount whose server is gone,
//! a loop device over its file, a file system mounted from that loop device
//! and the scratch directory. Found from `/proc/self/mountinfo`, `losetup`
//! and the scratch directories' names, and taken down in reverse order
//! (`ftlsim device cleanup`). `device serve` uses the same take-down for the
//! loop devices and file systems a user left on its file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fuse::DISK_NAME;
use crate::system::{self, run_tool};

/// The FUSE file system's source in mountinfo (its `fsname`); the type is
/// `fuse` (`fuse.ftlsim` where the mount applied the subtype).
const FUSE_SOURCE: &str = "ftlsim";
/// The prefix of `device run`'s scratch directories (`ftlsim-live-PID-N`).
const SCRATCH_PREFIX: &str = "ftlsim-live-";

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: String,
    pub dir: PathBuf,
    pub fstype: String,
}

/// One attached loop device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// `/dev/loopN`.
    pub dev: String,
    pub backing: PathBuf,
    /// Set once `losetup -d` was asked while something still held the
    /// device: the kernel detaches it when its last user lets go.
    pub autoclear: bool,
    /// The backing file's inode and device major number: the FUSE file is
    /// inode 2 on an anonymous device (major 0).
    pub backing_inode: u64,
    pub backing_major: u32,
}

impl Loop {
    /// Whether the backing file is a live device's FUSE file: `disk`,
    /// inode 2 on an anonymous device (major 0).
    fn is_over_a_device_file(&self) -> bool {
        self.backing.file_name().is_some_and(|n| n == DISK_NAME)
            && self.backing_inode == 2
            && self.backing_major == 0
    }
}

/// Loop devices over a live device's file that were detached while still
/// in use (a file system unmounted lazily because a process holds it):
/// the kernel frees them when that process exits. Nothing to do but say so.
pub fn pending() -> Vec<Loop> {
    loops()
        .into_iter()
        .filter(|l| l.autoclear && l.is_over_a_device_file())
        .collect()
}

/// What one dead live device left, keyed by its FUSE directory.
#[derive(Debug, Clone, Default)]
pub struct Leftover {
    /// The FUSE mount point (`.../fuse` for `device run`, `DIR/dev` for
    /// `device serve`).
    pub fuse_dir: PathBuf,
    /// Whether the FUSE file system is still mounted there.
    pub fuse_mounted: bool,
    /// Loop devices over `fuse_dir/disk` (none pending detach).
    pub loops: Vec<Loop>,
    /// File systems mounted from those loop devices.
    pub mounts: Vec<Mount>,
    /// `device run`'s scratch directory, when this is one.
    pub scratch: Option<PathBuf>,
}

impl Leftover {
    /// One line: what is there.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for m in &self.mounts {
            parts.push(format!(
                "{} on {} ({})",
                m.source,
                m.dir.display(),
                m.fstype
            ));
        }
        for l in &self.loops {
            parts.push(format!("loop device {}", l.dev));
        }
        if self.fuse_mounted {
            parts.push(format!("FUSE mount {}", self.fuse_dir.display()));
        }
        if let Some(s) = &self.scratch {
            parts.push(format!("scratch directory {}", s.display()));
        }
        parts.join(", ")
    }
}

/// Decodes the escapes of a kernel or util-linux listing: `prefix` then
/// `digits` digits in `radix` stand for one byte (mountinfo: `\040`, octal;
/// `losetup --raw`: `\x20`, hex).
fn unescape_bytes(s: &str, prefix: &str, digits: usize, radix: u32) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let start = i + prefix.len();
        if b[i..].starts_with(prefix.as_bytes()) && start + digits <= b.len() {
            let code = std::str::from_utf8(&b[start..start + digits]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(code, radix) {
                out.push(v);
                i = start + digits;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decodes mountinfo's octal escapes (`\040` for a space, ...).
fn unescape(s: &str) -> String {
    unescape_bytes(s, "\\", 3, 8)
}

/// Parses mountinfo: "id parent maj:min root DIR options [optional...] -
/// FSTYPE SOURCE superoptions".
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let dir = left.split(' ').nth(4)?;
            let mut r = right.split(' ');
            let (fstype, source) = (r.next()?, r.next()?);
            Some(Mount {
                source: unescape(source),
                dir: PathBuf::from(unescape(dir)),
                fstype: fstype.to_string(),
            })
        })
        .collect()
}

pub fn mounts() -> Vec<Mount> {
    parse_mountinfo(&std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default())
}

impl Mount {
    /// Whether this is a live device's FUSE mount.
    fn is_live_device(&self) -> bool {
        self.source == FUSE_SOURCE && (self.fstype == "fuse" || self.fstype.starts_with("fuse."))
    }
}

/// Decodes `losetup --raw`'s `\xHH` escapes (it writes spaces, also the
/// padding of a column, as `\x20`).
fn unhex(field: &str) -> String {
    unescape_bytes(field, "\\x", 2, 16)
}

/// Parses `losetup -l -n --raw -O NAME,AUTOCLEAR,BACK-INO,BACK-MAJ:MIN,BACK-FILE`
/// (fields apart by single spaces; spaces within a field escaped).
pub fn parse_losetup(text: &str) -> Vec<Loop> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<String> = line.split(' ').map(unhex).collect();
            let [dev, autoclear, inode, majmin, backing] = f.as_slice() else {
                return None;
            };
            let dev = dev.trim().to_string();
            let autoclear = autoclear.trim() == "1";
            let backing_inode = inode.trim().parse().unwrap_or(0);
            let backing_major = majmin.trim().split(':').next()?.parse().unwrap_or(u32::MAX);
            let backing = PathBuf::from(backing.trim_end().trim_end_matches(" (deleted)"));
            Some(Loop {
                dev,
                backing,
                autoclear,
                backing_inode,
                backing_major,
            })
        })
        .collect()
}

pub fn loops() -> Vec<Loop> {
    run_tool(
        "losetup",
        &[
            "-l",
            "-n",
            "--raw",
            "-O",
            "NAME,AUTOCLEAR,BACK-INO,BACK-MAJ:MIN,BACK-FILE",
        ],
    )
    .map(|out| parse_losetup(&out))
    .unwrap_or_default()
}

/// Whether a FUSE mount's server is gone: stat fails with ENOTCONN. A
/// server that does not answer within a second (stopped, busy) is taken as
/// alive; the stat is left to finish on its own thread.
fn fuse_is_dead(dir: &Path) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    let d = dir.to_path_buf();
    std::thread::spawn(move || {
        let dead = std::fs::metadata(&d)
            .err()
            .and_then(|e| e.raw_os_error())
            .is_some_and(|e| e == libc::ENOTCONN);
        let _ = tx.send(dead);
    });
    rx.recv_timeout(Duration::from_secs(1)).unwrap_or(false)
}

/// The process id in a scratch directory's name `ftlsim-live-PID-N`.
fn scratch_owner(dir: &Path) -> Option<u32> {
    let name = dir.file_name()?.to_str()?.strip_prefix(SCRATCH_PREFIX)?;
    let (pid, n) = name.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Everything dead live devices left on this machine.
pub fn find() -> Vec<Leftover> {
    let all_mounts = mounts();
    let mut found: BTreeMap<PathBuf, Leftover> = BTreeMap::new();
    let mut live_fuse = Vec::new();
    for m in all_mounts.iter().filter(|m| m.is_live_device()) {
        if fuse_is_dead(&m.dir) {
            found.entry(m.dir.clone()).or_default().fuse_mounted = true;
        } else {
            live_fuse.push(m.dir.clone());
        }
    }
    for l in loops() {
        let Some(dir) = l.backing.parent() else {
            continue;
        };
        if !l.is_over_a_device_file() || l.autoclear || live_fuse.iter().any(|d| d == dir) {
            continue;
        }
        found.entry(dir.to_path_buf()).or_default().loops.push(l);
    }
    for (dir, left) in found.iter_mut() {
        left.fuse_dir = dir.clone();
        left.mounts = all_mounts
            .iter()
            .filter(|m| left.loops.iter().any(|l| l.dev == m.source))
            .cloned()
            .collect();
        left.scratch = dir
            .parent()
            .filter(|p| scratch_owner(p).is_some())
            .map(Path::to_path_buf);
    }
    // Scratch directories of dead runs with nothing mounted in them any more.
    let tmp = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for e in entries.flatten() {
            let p = e.path();
            let Some(pid) = scratch_owner(&p) else {
                continue;
            };
            let fuse_dir = p.join("fuse");
            if process_alive(pid) || found.contains_key(&fuse_dir) || !p.is_dir() {
                continue;
            }
            // A scratch directory with a mount in it belongs to a device
            // that is alive (its mount answered) or already found.
            if all_mounts.iter().any(|m| m.dir.starts_with(&p)) {
                continue;
            }
            found.insert(
                fuse_dir.clone(),
                Leftover {
                    fuse_dir,
                    scratch: Some(p),
                    ..Leftover::default()
                },
            );
        }
    }
    found.into_values().collect()
}

/// The loop devices over the live device file in `fuse_dir` and the file
/// systems mounted from them, whether or not its server is alive (`device
/// serve` takes down what the user left on its device before it stops).
pub fn users_of(fuse_dir: &Path) -> Leftover {
    // losetup names backing files by absolute path.
    let fuse_dir = std::path::absolute(fuse_dir).unwrap_or_else(|_| fuse_dir.to_path_buf());
    let disk = fuse_dir.join(DISK_NAME);
    let loops: Vec<Loop> = loops()
        .into_iter()
        .filter(|l| l.backing == disk && !l.autoclear)
        .collect();
    let mounts = mounts()
        .into_iter()
        .filter(|m| loops.iter().any(|l| l.dev == m.source))
        .collect();
    Leftover {
        fuse_dir,
        loops,
        mounts,
        ..Leftover::default()
    }
}

/// Processes with a working directory, root or open file under `dir`, as
/// "PID (name)".
pub fn processes_using(dir: &Path) -> Vec<String> {
    let mut users = Vec::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return users;
    };
    let under = |p: PathBuf| p.starts_with(dir);
    for e in procs.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let base = e.path();
        let mut uses = ["cwd", "root"]
            .iter()
            .any(|l| std::fs::read_link(base.join(l)).is_ok_and(&under));
        if !uses {
            if let Ok(fds) = std::fs::read_dir(base.join("fd")) {
                uses = fds
                    .flatten()
                    .any(|fd| std::fs::read_link(fd.path()).is_ok_and(&under));
            }
        }
        if uses {
            let comm = std::fs::read_to_string(base.join("comm")).unwrap_or_default();
            users.push(format!("{pid} ({})", comm.trim()));
        }
    }
    users
}

/// Unmounts `dir`; when it is busy, detaches it lazily (it goes once its
/// users let go) and says who holds it. One line on what was done.
fn unmount(what: &str, dir: &Path) -> String {
    let d = dir.to_string_lossy().into_owned();
    match run_tool("umount", &[&d]) {
        Ok(_) => format!("unmounted {what} {d}"),
        Err(first) => {
            let users = processes_using(dir);
            match run_tool("umount", &["-l", &d]) {
                Ok(_) if users.is_empty() => format!("unmounted {what} {d} (lazily: {first:#})"),
                Ok(_) => format!(
                    "detached {what} {d}; it goes once these let go: {} (kill them to free it now)",
                    users.join(", ")
                ),
                Err(e) => format!("could not unmount {what} {d}: {e:#}"),
            }
        }
    }
}

/// Takes a leftover down: file systems (synced by umount), loop devices,
/// the FUSE mount, the scratch directory (only empty directories are
/// removed, never files). One line per thing done; `with_fuse` false
/// leaves the FUSE mount (a served device unmounts its own).
pub fn take_down(left: &Leftover, with_fuse: bool) -> Vec<String> {
    let mut done = Vec::new();
    for m in &left.mounts {
        done.push(unmount(&format!("{} ({})", m.source, m.fstype), &m.dir));
    }
    for l in &left.loops {
        done.push(match run_tool("losetup", &["-d", &l.dev]) {
            Ok(_) => format!("detached loop device {}", l.dev),
            Err(e) => format!("could not detach loop device {}: {e:#}", l.dev),
        });
    }
    if with_fuse && left.fuse_mounted {
        // The kernel lets go of a detached loop device's file a moment
        // later; until then the FUSE unmount fails as busy.
        // If it does not within 5 s, the unmount below goes lazily.
        system::wait_until(Duration::from_secs(5), || {
            left.loops.iter().all(|l| {
                let name = l.dev.trim_start_matches("/dev/");
                !Path::new(&format!("/sys/block/{name}/loop/backing_file")).exists()
            })
        });
        done.push(unmount("FUSE", &left.fuse_dir));
    }
    if let Some(s) = &left.scratch {
        for sub in ["fuse", "mnt"] {
            let _ = std::fs::remove_dir(s.join(sub));
        }
        done.push(match std::fs::remove_dir(s) {
            Ok(()) => format!("removed {}", s.display()),
            Err(e) => format!("left {}: {e}", s.display()),
        });
    }
    done
}

/// The one message a new live device prints when it finds leftovers.
pub fn warning(found: &[Leftover]) -> String {
    let what: Vec<String> = found.iter().map(Leftover::describe).collect();
    format!(
        "a live device that was killed without cleaning up left {}; `ftlsim device cleanup` \
         removes them (docs/live-device.md, Interruption and recovery)",
        what.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_parse_with_escapes() {
        let text = "36 35 98:0 / /mnt/a\\040b rw,noatime master:1 - ext4 /dev/loop3 rw,errors=continue\n\
                    40 28 0:52 / /tmp/ftlsim-live-77-0/fuse rw,nosuid,nodev,relatime - fuse ftlsim rw,user_id=0,group_id=0\n";
        let m = parse_mountinfo(text);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].dir, PathBuf::from("/mnt/a b"));
        assert_eq!(m[0].source, "/dev/loop3");
        assert_eq!(m[0].fstype, "ext4");
        assert!(m[1].is_live_device() && !m[0].is_live_device());
        assert_eq!(m[1].dir, PathBuf::from("/tmp/ftlsim-live-77-0/fuse"));
    }

    #[test]
    fn losetup_lines_parse() {
        // As losetup 2.38 writes it: the major:minor column padded.
        let text = "/dev/loop0 0 2 \\x20\\x20\\x20\\x20\\x20\\x20\\x200:39\\x20 /tmp/ftlsim-live-77-0/fuse/disk\n\
                    /dev/loop1 1 12 8:1 /srv/my\\x20disk.img\n";
        let l = parse_losetup(text);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].dev, "/dev/loop0");
        assert!(!l[0].autoclear);
        assert_eq!((l[0].backing_inode, l[0].backing_major), (2, 0));
        assert_eq!(
            l[0].backing,
            PathBuf::from("/tmp/ftlsim-live-77-0/fuse/disk")
        );
        assert!(l[1].autoclear);
        assert_eq!(l[1].backing, PathBuf::from("/srv/my disk.img"));
    }

    #[test]
    fn scratch_directories_name_their_owner() {
        assert_eq!(scratch_owner(Path::new("/tmp/ftlsim-live-77-0")), Some(77));
        assert_eq!(scratch_owner(Path::new("/tmp/ftlsim-live-test-77-x")), None);
        assert_eq!(scratch_owner(Path::new("/tmp/ftlsim-live-77")), None);
    }
}
