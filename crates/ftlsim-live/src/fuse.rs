//! The FUSE file system: a root directory holding one file, `disk`, whose
//! reads, writes, discards (`fallocate(PUNCH_HOLE)`, which a loop device
//! with discards on sends) and fsyncs go to the [`Handler`].
//!
//! The file is opened with `direct_io` so that no page cache sits between
//! the loop device and the simulated SSD: every I/O the block layer issues
//! reaches the handler, as it would reach a drive.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, KernelConfig,
    LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen,
    ReplyStatfs, ReplyWrite, Request, WriteFlags,
};

use crate::handler::{Handler, IoError, RequestSink};
use crate::notice::{Notice, Notify};

/// The one file's name and inode.
pub const DISK_NAME: &str = "disk";
const DISK_INO: INodeNo = INodeNo(2);
/// Attributes do not change (the size is fixed), so the kernel may cache them.
const TTL: Duration = Duration::from_secs(3600);
/// Largest read or write the kernel sends in one request.
const MAX_IO_BYTES: u32 = 1 << 20;

const FALLOC_FL_KEEP_SIZE: i32 = 0x01;
const FALLOC_FL_PUNCH_HOLE: i32 = 0x02;
const FALLOC_FL_ZERO_RANGE: i32 = 0x10;

/// The handler shared between the FUSE session and whoever reads its
/// counters (the statistics writer).
pub type SharedHandler<S> = Arc<Mutex<Handler<S>>>;

pub struct LiveFs<S: RequestSink + Send + 'static> {
    handler: SharedHandler<S>,
    size_bytes: u64,
    started: SystemTime,
    /// Where a backing-file error is told (the host sees only EIO).
    notify: Notify,
}

impl<S: RequestSink + Send + 'static> LiveFs<S> {
    pub fn new(handler: SharedHandler<S>, notify: Notify) -> Self {
        let size_bytes = handler.lock().expect("not poisoned").size_bytes();
        Self {
            handler,
            size_bytes,
            started: SystemTime::now(),
            notify,
        }
    }

    fn attr(&self, ino: INodeNo) -> Option<FileAttr> {
        let (kind, perm, size, nlink) = match ino {
            INodeNo::ROOT => (FileType::Directory, 0o755, 0, 2),
            DISK_INO => (FileType::RegularFile, 0o600, self.size_bytes, 1),
            _ => return None,
        };
        Some(FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: self.started,
            mtime: self.started,
            ctime: self.started,
            crtime: self.started,
            kind,
            perm,
            nlink,
            uid: 0,
            gid: 0,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }

    fn with<T>(&self, f: impl FnOnce(&mut Handler<S>) -> Result<T, IoError>) -> Result<T, Errno> {
        let mut h = self.handler.lock().map_err(|_| Errno::EIO)?;
        f(&mut h).map_err(|e| match e {
            IoError::OutOfRange => Errno::EINVAL,
            IoError::DeviceGone => Errno::EIO,
            IoError::Backing(e) => {
                (self.notify)(Notice::BackingFile(e));
                Errno::EIO
            }
        })
    }
}

impl<S: RequestSink + Send + 'static> Filesystem for LiveFs<S> {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Best effort: the kernel caps it (or the default stands).
        let _ = config.set_max_write(MAX_IO_BYTES);
        let _ = config.set_max_readahead(MAX_IO_BYTES);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.attr(DISK_INO) {
            Some(attr) if parent == INodeNo::ROOT && name == DISK_NAME => {
                reply.entry(&TTL, &attr, fuser::Generation(0))
            }
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.attr(ino) {
            Some(attr) => reply.attr(&TTL, &attr),
            None => reply.error(Errno::ENOENT),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // The device's size is fixed; opening with O_TRUNC asks for the
        // size it already has, which is fine.
        if size.is_some_and(|s| s != self.size_bytes) {
            return reply.error(Errno::EPERM);
        }
        match self.attr(ino) {
            Some(attr) => reply.attr(&TTL, &attr),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino != DISK_INO {
            return reply.error(Errno::EISDIR);
        }
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
    }

    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match self.with(|h| h.read(offset, u64::from(size))) {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(e),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match self.with(|h| h.write(offset, data)) {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        // close(): nothing is buffered here, so nothing to do.
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        match self.with(Handler::flush) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        let result = if mode == 0 || mode == FALLOC_FL_KEEP_SIZE {
            // Preallocation: every byte of the device exists already.
            Ok(())
        } else if mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE) != 0 {
            // A discard (loop: REQ_OP_DISCARD) or write-zeroes: the range
            // reads as zeros afterwards either way.
            self.with(|h| h.discard(offset, length))
        } else {
            Err(Errno::EOPNOTSUPP)
        };
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, "."),
            (INodeNo::ROOT, FileType::Directory, ".."),
            (DISK_INO, FileType::RegularFile, DISK_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let blocks = self.size_bytes / 4096;
        reply.statfs(blocks, 0, 0, 2, 0, 4096, 255, 4096);
    }
}

/// Mounts the live file system at `dir` on background threads; dropping
/// (or `umount_and_join`) the session unmounts it.
pub fn mount<S: RequestSink + Send + 'static>(
    handler: SharedHandler<S>,
    dir: &Path,
    notify: Notify,
) -> std::io::Result<fuser::BackgroundSession> {
    let mut config = fuser::Config::default();
    config.mount_options = vec![
        fuser::MountOption::FSName("ftlsim".into()),
        fuser::MountOption::Subtype("ftlsim".into()),
        fuser::MountOption::RW,
    ];
    fuser::spawn_mount(LiveFs::new(handler, notify), dir, &config)
}
