//! The live device end to end: real file systems on it (root and
//! /dev/fuse needed; skipped with a message otherwise), and its recorded
//! trace replayed by the ordinary trace path.

use std::path::{Path, PathBuf};

use ftlsim_live::{FsKind, RunOutcome, RunRequest};

/// Why the live tests cannot run here, if they cannot.
fn skip_reason() -> Option<&'static str> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root");
    }
    if !Path::new("/dev/fuse").exists() {
        return Some("no /dev/fuse");
    }
    None
}

/// One live test at a time: mkfs.btrfs stats every mount in /proc/mounts
/// and fails with ENOTCONN when it meets another test's FUSE mount while
/// that one is being torn down (seen in CI), and loop devices are a shared
/// system resource anyway.
static LIVE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

macro_rules! require_live {
    () => {
        if let Some(why) = skip_reason() {
            eprintln!("SKIPPED: the live device needs root and /dev/fuse ({why})");
            return;
        }
        // Held to the end of the test; a failed test poisons it, which
        // must not fail the others.
        let _serial = LIVE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    };
}

/// What the device tells while it runs, on the test's stderr as the CLI
/// prints it.
fn notify() -> ftlsim_live::Notify {
    std::sync::Arc::new(|n| eprintln!("ftlsim: {n}"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftlsim-live-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Deterministic bytes that no two pages share.
fn pattern(bytes: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..bytes / 8)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()
        })
        .collect()
}

const SIZE_BYTES: u64 = 256 << 20;
const DATA_BYTES: usize = 8 << 20;
const DELETED_BYTES: u64 = 4 << 20;

/// Writes DATA_BYTES with O_DIRECT, syncs, reads them back with O_DIRECT
/// (from the device, not the page cache), and writes then deletes a
/// DELETED_BYTES file, so that the file system discards its blocks.
fn write_verify_delete(
    fs: FsKind,
    record: Option<PathBuf>,
    discard: bool,
    backing: Option<PathBuf>,
) -> (RunOutcome, Vec<u8>, Vec<u8>) {
    let dir = scratch(&format!("{}-{discard}", fs.name()));
    let src = dir.join("pattern");
    let back = dir.join("readback");
    let data = pattern(DATA_BYTES, 7);
    std::fs::write(&src, &data).unwrap();
    let script = format!(
        "set -e
dd if='{}' of=data bs=1M oflag=direct status=none
dd if=/dev/zero of=doomed bs=1M count=4 oflag=direct status=none
sync
dd if=data of='{}' bs=1M iflag=direct status=none
rm doomed
sync",
        src.display(),
        back.display()
    );
    let req = RunRequest {
        capture: None,
        config: None,
        sets: Vec::new(),
        // mkfs.xfs refuses devices under 300 MB.
        size_bytes: if fs == FsKind::Xfs {
            320 << 20
        } else {
            SIZE_BYTES
        },
        fs,
        record,
        mount: None,
        backing,
        discard,
        command: vec!["sh".into(), "-c".into(), script.into()],
    };
    let out = ftlsim_live::run(&req, &ftlsim_live::Interrupt::new(), &notify()).unwrap();
    let read = std::fs::read(&back).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (out, data, read)
}

fn check_fs(fs: FsKind) {
    let (out, data, read) = write_verify_delete(fs, None, true, None);
    assert!(out.succeeded(), "{}: the command failed", fs.name());
    assert!(read == data, "{}: the data read back differs", fs.name());
    let w = &out.report.window;
    let data_pages = (DATA_BYTES as u64 + DELETED_BYTES) / 4096;
    assert!(
        w.host_write_pages >= data_pages,
        "{}: {} host write pages for {} pages of files",
        fs.name(),
        w.host_write_pages,
        data_pages
    );
    // The loop device's 4 KiB sectors keep every write page-aligned, so
    // the device counts exactly the bytes the host wrote.
    assert_eq!(out.host.partial_page_writes, 0, "{}", fs.name());
    assert_eq!(
        w.host_write_pages * 4096,
        out.host.write_bytes,
        "{}: every byte the host wrote is a page the device counted",
        fs.name()
    );
    // mkfs discards the whole device; deleting a file discards its blocks.
    let device_pages = SIZE_BYTES / 4096;
    assert!(
        w.host_trim_pages >= device_pages + DELETED_BYTES / 4096,
        "{}: {} trimmed pages, expected the device's {} at mkfs and the deleted file's {}",
        fs.name(),
        w.host_trim_pages,
        device_pages,
        DELETED_BYTES / 4096
    );
    assert_eq!(
        w.host_trim_pages * 4096,
        out.host.discard_bytes,
        "{}",
        fs.name()
    );
}

#[test]
fn ext4_writes_read_back_and_discards_trim() {
    require_live!();
    check_fs(FsKind::Ext4);
}

/// `--discard off` (ext4 mounted `nodiscard`): the data still reads back,
/// and deleting a file sends no trim. mkfs discards the device (and its
/// journal) either way, so the test compares with the same run mounted
/// with `discard`: that one trims at least the deleted file's pages more.
#[test]
fn ext4_without_discard_sends_no_trims_on_delete() {
    require_live!();
    let (off, data, read) = write_verify_delete(FsKind::Ext4, None, false, None);
    assert!(off.succeeded(), "the command failed");
    assert!(read == data, "the data read back differs");
    let (on, _, _) = write_verify_delete(FsKind::Ext4, None, true, None);
    let (off_w, on_w) = (&off.report.window, &on.report.window);
    assert!(off_w.host_write_pages >= (DATA_BYTES as u64 + DELETED_BYTES) / 4096);
    assert!(
        off_w.host_trim_pages >= SIZE_BYTES / 4096,
        "mkfs still discards the whole device: {off_w:?}"
    );
    assert!(
        on_w.host_trim_pages >= off_w.host_trim_pages + DELETED_BYTES / 4096,
        "nodiscard: {} trimmed pages, discard: {}; the deleted file's {} are missing",
        off_w.host_trim_pages,
        on_w.host_trim_pages,
        DELETED_BYTES / 4096
    );
}

/// `--backing FILE`: the device's bytes in a sparse file. ext4 on it reads
/// back what it wrote (O_DIRECT, from the device), the report is the
/// in-memory run's, and the file, the device's image without dedup, holds
/// no more than what is live: far less than the device's size.
#[test]
fn ext4_on_a_backing_file_reads_back() {
    use std::os::unix::fs::MetadataExt;
    require_live!();
    let dir = scratch("backing");
    let file = dir.join("device.img");
    let (out, data, read) = write_verify_delete(FsKind::Ext4, None, true, Some(file.clone()));
    assert!(out.succeeded(), "the command failed");
    assert!(read == data, "the data read back differs");
    let meta = std::fs::metadata(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(meta.len(), SIZE_BYTES, "the file spans the device");
    let allocated_bytes = meta.blocks() * 512;
    assert!(
        allocated_bytes >= DATA_BYTES as u64 && allocated_bytes < SIZE_BYTES / 2,
        "{allocated_bytes} bytes allocated: the data, the file system's metadata, no more"
    );
    assert_eq!(
        out.report.window.host_write_pages * 4096,
        out.host.write_bytes
    );
}

#[test]
fn xfs_writes_read_back_and_discards_trim() {
    require_live!();
    check_fs(FsKind::Xfs);
}

#[test]
fn btrfs_writes_read_back_and_discards_trim() {
    require_live!();
    check_fs(FsKind::Btrfs);
}

/// A live run with GC (a file rewritten three times over on a small
/// device, dedup on so fingerprints are in play) recorded, then replayed by
/// `ftlsim run`'s path from the config written next to the trace: the same
/// host pages, NAND pages and WAF.
#[test]
fn recorded_trace_replays_to_the_same_counts() {
    require_live!();
    let dir = scratch("replay");
    let trace = dir.join("live.trace");
    let script = "set -e
for round in 1 2 3; do
  dd if=/dev/urandom of=big bs=1M count=80 oflag=direct conv=notrunc status=none
  dd if=/dev/zero of=zeros bs=1M count=8 oflag=direct status=none
  sync
  rm zeros
done
sync";
    let req = RunRequest {
        capture: None,
        config: None,
        sets: vec!["ftl.dedup=true".into()],
        size_bytes: 128 << 20,
        fs: FsKind::Ext4,
        record: Some(trace.clone()),
        mount: None,
        backing: None,
        discard: true,
        command: vec!["sh".into(), "-c".into(), script.into()],
    };
    let live = ftlsim_live::run(&req, &ftlsim_live::Interrupt::new(), &notify()).unwrap();
    assert!(live.succeeded());
    let cfg =
        ftlsim_run::load::load_config(Some(&ftlsim_live::replay_config_path(&trace)), &[]).unwrap();
    let replay = ftlsim_run::simulate(&cfg, false, &mut |_| {})
        .unwrap()
        .report;
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = (&live.report.window, &replay.window);
    assert!(a.gc_count > 0, "the run must reach GC to test WAF: {a:?}");
    assert!(a.host_trim_pages > 0 && a.flushes > 0);
    assert_eq!(a.host_write_pages, b.host_write_pages);
    assert_eq!(a.host_read_pages, b.host_read_pages);
    assert_eq!(a.host_trim_pages, b.host_trim_pages);
    assert_eq!(a.flushes, b.flushes);
    assert_eq!(a.nand_write_pages, b.nand_write_pages);
    assert_eq!(a.gc_count, b.gc_count);
    assert_eq!(a.waf, b.waf);
    assert_eq!(
        serde_json::to_value(&live.report.sharing).unwrap(),
        serde_json::to_value(&replay.sharing).unwrap()
    );
    assert!(
        live.report.sharing.dedup_hit_pages.unwrap_or(0) > 0,
        "the zero pages dedup"
    );
}

/// `device serve`: a file system made, written, unmounted and mounted again
/// on the same served device finds its file intact, and stats.json counts
/// the writes.
#[test]
fn served_device_keeps_files_across_remount() {
    use ftlsim_live::system::{self, LoopDevice, Mounted};
    require_live!();
    let dir = scratch("serve");
    let stop = ftlsim_live::Interrupt::new();
    let req = ftlsim_live::serve::ServeRequest {
        config: None,
        sets: Vec::new(),
        size_bytes: SIZE_BYTES,
        record: Some(dir.join("served.trace")),
        backing: None,
        dir: dir.clone(),
    };
    let data = pattern(DATA_BYTES, 11);
    let (result, read_back) = std::thread::scope(|s| {
        let server = s.spawn(|| ftlsim_live::serve::serve(&req, &stop, &notify()));
        let disk = ftlsim_live::serve::disk_path(&dir);
        for _ in 0..100 {
            if disk.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        let read_back = (|| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
            let lo = LoopDevice::attach(&disk, 4096, &notify())?;
            system::mkfs(FsKind::Ext4, &lo.path)?;
            let m = Mounted::mount(FsKind::Ext4, &lo.path, &mnt, true, &notify())?;
            std::fs::write(mnt.join("kept"), &data)?;
            m.unmount()?;
            let m = Mounted::mount(FsKind::Ext4, &lo.path, &mnt, true, &notify())?;
            let back = std::fs::read(mnt.join("kept"))?;
            m.unmount()?;
            drop(lo);
            Ok(back)
        })();
        // Let stats.json be rewritten at least once after the writes.
        std::thread::sleep(std::time::Duration::from_millis(1200));
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("stats.json")).unwrap()).unwrap();
        assert!(
            stats["host"]["write_bytes"].as_u64().unwrap() >= DATA_BYTES as u64,
            "{stats}"
        );
        stop.request(libc::SIGTERM);
        (server.join().unwrap(), read_back)
    });
    let ftlsim_live::serve::ServeOutcome { report, host, .. } = result.unwrap();
    // A served device's recording gets its replay config, as a run's does.
    let replay = ftlsim_live::replay_config_path(&dir.join("served.trace"));
    let replay_cfg = ftlsim_run::load::load_config(Some(&replay), &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        replay_cfg.is_ok(),
        "{}: {:?}",
        replay.display(),
        replay_cfg.err()
    );
    assert!(
        read_back.unwrap() == data,
        "the file changed across the remount"
    );
    assert_eq!(report.window.host_write_pages * 4096, host.write_bytes);
}

/// `device run --capture` on ext4: the capture library's test program
/// writes 4 pages through path_a (a.dat) and 4 through path_b (b.dat);
/// the joined trace carries each path's PC on exactly its 4 device pages.
#[test]
fn capture_joins_file_writes_to_device_pages() {
    require_live!();
    let dir = scratch("join");
    let cap = dir.join("run.cap");
    let trace = dir.join("run.trace");
    let prog = ftlsim_live::capture::test_program();
    let req = RunRequest {
        capture: Some(cap.clone()),
        config: None,
        sets: Vec::new(),
        size_bytes: SIZE_BYTES,
        fs: FsKind::Ext4,
        record: Some(trace.clone()),
        mount: None,
        backing: None,
        discard: true,
        command: vec![prog.as_os_str().to_owned(), ".".into()],
    };
    let out = ftlsim_live::run(&req, &ftlsim_live::Interrupt::new(), &notify()).unwrap();
    assert!(out.succeeded());
    let join = out.join.expect("a join with --capture");
    // The PC of each file's pwrites, from the log.
    let log =
        ftlsim_live::join::CaptureLog::parse(&std::fs::read_to_string(&cap).unwrap()).unwrap();
    let pc_of = |name: &str| {
        let key = log
            .paths
            .iter()
            .find(|(_, p)| p.ends_with(name))
            .map(|(k, _)| *k)
            .unwrap_or_else(|| panic!("{name} in the log"));
        let pcs: std::collections::BTreeSet<u64> = log
            .writes
            .iter()
            .filter(|w| w.file == key)
            .map(|w| w.pc)
            .collect();
        assert_eq!(pcs.len(), 1, "{name}: one call path");
        *pcs.first().unwrap()
    };
    let (pc_a, pc_b) = (pc_of("a.dat"), pc_of("b.dat"));
    assert_ne!(pc_a, pc_b);
    // Device pages per context in the joined trace.
    let mut reader = ftlsim_trace::open(&trace, &ftlsim_trace::ReaderOptions::default()).unwrap();
    let mut rec = ftlsim_trace::TraceRecord::default();
    let mut pages: std::collections::BTreeMap<u64, u64> = Default::default();
    while reader.next_record(&mut rec).unwrap() {
        if let Some(c) = rec.context {
            *pages.entry(c).or_default() += rec.length_bytes / 4096;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        pages.get(&pc_a),
        Some(&4),
        "path_a's pages: {pages:?} {join:?}"
    );
    assert_eq!(
        pages.get(&pc_b),
        Some(&4),
        "path_b's pages: {pages:?} {join:?}"
    );
    assert!(join.tagged_pages >= 8 && join.tagged_pages < join.write_pages);
}

/// A real application captured for real (the CI-sized version of
/// experiments/real/sqlite.sh): SQLite in WAL mode on ext4; its writes
/// reach the device tagged with more than one PC (the WAL and the database
/// file are written by different call paths).
#[test]
fn sqlite_capture_tags_writes_with_several_pcs() {
    require_live!();
    if std::process::Command::new("sqlite3")
        .arg("-version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: sqlite3 is not installed (scripts/test.sh installs it)");
        return;
    }
    let dir = scratch("sqlite");
    let cap = dir.join("sqlite.cap");
    let trace = dir.join("sqlite.trace");
    let mut sql = String::from(
        "PRAGMA journal_mode=WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<5000)
INSERT INTO t SELECT x, hex(randomblob(100)) FROM c;\n",
    );
    for i in 0..50 {
        sql += &format!("UPDATE t SET v=hex(randomblob(100)) WHERE id % 50 = {i};\n");
    }
    sql += "PRAGMA wal_checkpoint(TRUNCATE);\n";
    let script = dir.join("oltp.sql");
    std::fs::write(&script, sql).unwrap();
    let req = RunRequest {
        capture: Some(cap),
        config: None,
        sets: Vec::new(),
        size_bytes: SIZE_BYTES,
        fs: FsKind::Ext4,
        record: Some(trace.clone()),
        mount: None,
        backing: None,
        discard: true,
        command: vec![
            "sh".into(),
            "-c".into(),
            format!("sqlite3 db.sqlite < '{}'", script.display()).into(),
        ],
    };
    let out = ftlsim_live::run(&req, &ftlsim_live::Interrupt::new(), &notify()).unwrap();
    assert!(out.succeeded());
    let rows = ftlsim_live::pclife::pc_lifetimes(&trace, 4096).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let tagged: Vec<_> = rows.iter().filter(|r| r.pc.is_some()).collect();
    assert!(tagged.len() >= 2, "PCs on the device: {rows:?}");
    let join = out.join.unwrap();
    assert!(
        join.tagged_pages * 2 > join.write_pages,
        "most written pages carry a PC: {join:?}"
    );
}
