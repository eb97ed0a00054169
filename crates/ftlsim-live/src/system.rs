//! The host side of a live run: what must be present (root, `/dev/fuse`,
//! the tools), and the steps around the FUSE file — loop device, file
//! system, mount — each undone in reverse order even when a later one fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use crate::error::{IoContext, LiveError, Result};

use crate::notice::{Notice, Notify};

/// File systems a live run can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    Ext4,
    Btrfs,
    Xfs,
}

impl std::str::FromStr for FsKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ext4" => Ok(FsKind::Ext4),
            "btrfs" => Ok(FsKind::Btrfs),
            "xfs" => Ok(FsKind::Xfs),
            _ => Err(format!(
                "`{s}` is not a file system this can make (ext4, btrfs, xfs)"
            )),
        }
    }
}

impl FsKind {
    pub fn name(self) -> &'static str {
        match self {
            FsKind::Ext4 => "ext4",
            FsKind::Btrfs => "btrfs",
            FsKind::Xfs => "xfs",
        }
    }

    /// The mkfs program and the Debian package that has it.
    fn mkfs(self) -> (&'static str, &'static str) {
        match self {
            FsKind::Ext4 => ("mkfs.ext4", "e2fsprogs"),
            FsKind::Btrfs => ("mkfs.btrfs", "btrfs-progs"),
            FsKind::Xfs => ("mkfs.xfs", "xfsprogs"),
        }
    }

    /// Quiet, forced mkfs arguments (mkfs discards the whole device first,
    /// which arrives as trims).
    fn mkfs_args(self) -> &'static [&'static str] {
        match self {
            FsKind::Ext4 => &["-q", "-F"],
            FsKind::Btrfs => &["-q", "-f"],
            FsKind::Xfs => &["-q", "-f"],
        }
    }

    /// Mount options: with `discard`, deletes go down as discards right
    /// away (btrfs's `discard` is its synchronous mode); without, the file
    /// system sends none (`nodiscard`, which all three know), so the FTL
    /// learns that data died only when it is overwritten.
    fn mount_options(self, discard: bool) -> &'static str {
        if discard {
            "discard"
        } else {
            "nodiscard"
        }
    }
}

/// Whether `prog` is on PATH (or in the sbin directories root has).
pub fn find_program(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

/// What a live run needs and does not find, as one line per item; empty
/// when it can run.
pub fn missing_requirements(fs: FsKind) -> Vec<String> {
    let mut missing = Vec::new();
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        missing.push("root (loop devices and mounts need it)".to_string());
    }
    if !Path::new("/dev/fuse").exists() {
        missing.push("/dev/fuse (load the fuse module, or give the container the device)".into());
    }
    let (mkfs, package) = fs.mkfs();
    for (prog, package) in [
        ("losetup", "mount"),
        ("mount", "mount"),
        ("umount", "mount"),
        (mkfs, package),
    ] {
        if find_program(prog).is_none() {
            missing.push(format!("{prog} (Debian package {package})"));
        }
    }
    missing
}

/// What serving a device (FUSE only, no file system) needs.
pub fn require_device() -> Result<()> {
    let missing: Vec<String> = missing_requirements(FsKind::Ext4)
        .into_iter()
        .filter(|m| m.starts_with("root") || m.starts_with("/dev/fuse"))
        .collect();
    if !missing.is_empty() {
        return Err(LiveError::Missing(missing.join(", ")));
    }
    Ok(())
}

/// Fails with one line naming everything missing.
pub fn require(fs: FsKind) -> Result<()> {
    let missing = missing_requirements(fs);
    if !missing.is_empty() {
        return Err(LiveError::Missing(missing.join(", ")));
    }
    Ok(())
}

/// Runs a tool; its stderr is part of the error when it fails. It runs in
/// a process group of its own, so that a Ctrl-C at the terminal (which
/// signals the whole foreground group) reaches ftlsim, which then undoes
/// its steps, and not the `umount` or `losetup -d` doing the undoing.
pub(crate) fn run_tool(prog: &str, args: &[&str]) -> Result<String> {
    use std::os::unix::process::CommandExt;
    let exe = find_program(prog).ok_or_else(|| LiveError::Tool(format!("{prog} not found")))?;
    let out = Command::new(&exe)
        .args(args)
        .process_group(0)
        .output()
        .io_context(|| format!("cannot run {prog}"))?;
    if !out.status.success() {
        return Err(LiveError::Tool(format!(
            "{prog} {} failed ({}): {}",
            args.join(" "),
            out.status,
            // The first lines say why; the rest is usually a usage text.
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" / ")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Polls `done` every 20 ms until it holds or `limit` has passed; whether
/// it held.
pub(crate) fn wait_until(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A loop device over a file; detached on drop (a failure there is told
/// to `notify`: a drop cannot return it).
pub struct LoopDevice {
    pub path: String,
    notify: Notify,
}

impl LoopDevice {
    /// Attaches `file` with 4 KiB logical sectors (the simulated page
    /// size, so the file system's I/O arrives page-aligned) and buffered
    /// I/O; the kernel turns discards into `fallocate(PUNCH_HOLE)` on
    /// the file, which the FUSE side takes as trims.
    pub fn attach(file: &Path, sector_bytes: u32, notify: &Notify) -> Result<Self> {
        let file = file
            .to_str()
            .ok_or_else(|| LiveError::Input("the FUSE file's path is not UTF-8".into()))?;
        let sector = sector_bytes.to_string();
        let path = run_tool(
            "losetup",
            &["--find", "--show", "--sector-size", &sector, file],
        )?;
        Ok(Self {
            path,
            notify: Arc::clone(notify),
        })
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if let Err(e) = run_tool("losetup", &["-d", &self.path]) {
            (self.notify)(Notice::Teardown(e.one_line()));
            return;
        }
        // The kernel detaches a loop device lazily, once its last user
        // (a file system that just unmounted, udev's probe) lets go; until
        // then it holds the FUSE file open and the FUSE unmount fails with
        // EBUSY. Wait for the detach, at most 10 s.
        let name = Path::new(&self.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bound = PathBuf::from(format!("/sys/block/{name}/loop/backing_file"));
        if !wait_until(std::time::Duration::from_secs(10), || !bound.exists()) {
            (self.notify)(Notice::Teardown(format!(
                "{} still attached after 10 s",
                self.path
            )));
        }
    }
}

/// Makes a file system on `dev`.
pub fn mkfs(fs: FsKind, dev: &str) -> Result<()> {
    let (prog, _) = fs.mkfs();
    let mut args: Vec<&str> = fs.mkfs_args().to_vec();
    args.push(dev);
    run_tool(prog, &args).map(|_| ()).map_err(|e| {
        // mkfs.btrfs stats every mount point to check that `dev` is not in
        // use, and gives up on a FUSE mount whose server has died; say which.
        if e.one_line().contains("Transport endpoint is not connected") {
            e.context(format!(
                "a dead FUSE mount is in the way (`ftlsim device cleanup` removes ftlsim's; \
                 `umount -l DIR` any other): {}",
                dead_fuse_mounts().join(", ")
            ))
        } else {
            e
        }
    })
}

/// Mount points of FUSE file systems whose server is gone (stat fails
/// with ENOTCONN).
fn dead_fuse_mounts() -> Vec<String> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, dir, kind) = (f.next()?, f.next()?, f.next()?);
            let dead = kind.starts_with("fuse")
                && std::fs::metadata(dir).err()?.raw_os_error() == Some(libc::ENOTCONN);
            dead.then(|| dir.to_string())
        })
        .collect()
}

/// A mounted file system; synced and unmounted on drop (or by `unmount`,
/// which reports errors), lazily if it is still busy then (a failure of
/// that is told to `notify`).
pub struct Mounted {
    dir: PathBuf,
    mounted: bool,
    notify: Notify,
}

impl Mounted {
    /// Mounts `dev` at `dir`; `discard` as in [`FsKind::mount_options`].
    pub fn mount(
        fs: FsKind,
        dev: &str,
        dir: &Path,
        discard: bool,
        notify: &Notify,
    ) -> Result<Self> {
        let d = dir
            .to_str()
            .ok_or_else(|| LiveError::Input("the mount directory's path is not UTF-8".into()))?;
        run_tool(
            "mount",
            &["-t", fs.name(), "-o", fs.mount_options(discard), dev, d],
        )?;
        Ok(Self {
            dir: dir.to_path_buf(),
            mounted: true,
            notify: Arc::clone(notify),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Syncs the file system (its data and metadata reach the device) and
    /// unmounts it.
    pub fn unmount(mut self) -> Result<()> {
        sync_fs(&self.dir);
        let d = self.dir.to_string_lossy().into_owned();
        // On failure `mounted` stays true, so that drop still detaches it
        // (lazily) and the loop device and FUSE mount behind can go.
        run_tool("umount", &[&d])?;
        self.mounted = false;
        Ok(())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if self.mounted {
            // A step after the mount failed or was interrupted: the data
            // written so far still goes down before the unmount.
            sync_fs(&self.dir);
            let d = self.dir.to_string_lossy().into_owned();
            if run_tool("umount", &[&d]).is_err() {
                if let Err(e) = run_tool("umount", &["-l", &d]) {
                    (self.notify)(Notice::Teardown(e.one_line()));
                }
            }
        }
    }
}

/// `syncfs` on the file system holding `dir`.
fn sync_fs(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid open descriptor; syncfs only flushes.
        unsafe { libc::syncfs(f.as_raw_fd()) };
    }
}

/// A scratch directory removed (when empty) on drop.
pub struct ScratchDir {
    pub path: PathBuf,
}

impl ScratchDir {
    pub fn new(tag: &str) -> Result<Self> {
        // Unique per process and per device, so that devices can run side
        // by side (tests do).
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("ftlsim-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path)
            .io_context(|| format!("cannot create {}", path.display()))?;
        Ok(Self { path })
    }

    pub fn sub(&self, name: &str) -> Result<PathBuf> {
        let p = self.path.join(name);
        std::fs::create_dir_all(&p).io_context(|| format!("cannot create {}", p.display()))?;
        Ok(p)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // Only empty directories: never delete what a mount might hold.
        if let Ok(entries) = std::fs::read_dir(&self.path) {
            for e in entries.flatten() {
                let _ = std::fs::remove_dir(e.path());
            }
        }
        let _ = std::fs::remove_dir(&self.path);
    }
}
