//! `workload.trace.trims`: a replay keeps the trace's trims (the default)
//! or drops them, as if the file system had been mounted without
//! `discard`. A trace that writes files and deletes them (trims) makes GC
//! copy pages only when the trims are dropped; the oracle's pre-pass sees
//! the same requests as the replay.

use ftlsim_run::load::load_config;
use ftlsim_trace::{NativeWriter, TraceOp, TraceRecord};

/// 40 rounds over 1536 logical pages, as a file system without an
/// allocation order would write: each round writes a 256-page "file" on
/// pages drawn at random from the free ones, then deletes (trims, page by
/// page) the file written two rounds before, whose pages become free.
fn write_trace(path: &std::path::Path) -> (u64, u64) {
    let mut w = NativeWriter::new(std::fs::File::create(path).unwrap()).unwrap();
    let mut rec = TraceRecord::default();
    let (mut writes, mut trims, mut t) = (0u64, 0u64, 0u64);
    let mut free: Vec<u64> = (0..1536).collect();
    let mut files: std::collections::VecDeque<Vec<u64>> = Default::default();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut record = |op: TraceOp, lpn: u64, t: &mut u64| {
        rec.reset();
        rec.time_ns = *t;
        *t += 1000;
        rec.op = op;
        rec.offset_bytes = lpn * 4096;
        rec.length_bytes = 4096;
        w.write(&rec).unwrap();
    };
    for _ in 0..40 {
        let mut file = Vec::new();
        for _ in 0..256 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let lpn = free.swap_remove((x % free.len() as u64) as usize);
            record(TraceOp::Write, lpn, &mut t);
            writes += 1;
            file.push(lpn);
        }
        files.push_back(file);
        if files.len() > 2 {
            for lpn in files.pop_front().unwrap() {
                record(TraceOp::Trim, lpn, &mut t);
                trims += 1;
                free.push(lpn);
            }
        }
    }
    w.finish().unwrap();
    (writes, trims)
}

fn sets(path: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut s = vec![
        "device.blocks=56".to_string(),
        "device.pages_per_block=32".to_string(),
        "device.spare_factor=0.12".to_string(),
        "workload.type=\"trace\"".to_string(),
        format!("workload.trace.path={:?}", path.display().to_string()),
        "workload.trace.format=\"native\"".to_string(),
        "workload.trace.repeat=2".to_string(),
    ];
    s.extend(extra.iter().map(|e| e.to_string()));
    s
}

#[test]
fn dropped_trims_leave_gc_live_pages_to_copy() {
    let path = std::env::temp_dir().join(format!("ftlsim-trims-{}.trace", std::process::id()));
    let (writes, trims) = write_trace(&path);
    let run = |extra: &[&str]| {
        let cfg = load_config(None, &sets(&path, extra)).unwrap();
        ftlsim_run::simulate::simulate(&cfg, false, &mut |_| {})
            .unwrap()
            .report
    };
    let keep = run(&[]);
    let keep_explicit = run(&["workload.trace.trims=\"keep\""]);
    let dropped = run(&["workload.trace.trims=\"drop\""]);
    let dropped_oracle = run(&[
        "workload.trace.trims=\"drop\"",
        "ftl.streams=5",
        "host.layers=[{type = \"oracle\"}]",
    ]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        serde_json::to_value(&keep.window).unwrap(),
        serde_json::to_value(&keep_explicit.window).unwrap(),
        "keep is the default"
    );
    assert_eq!(keep.window.host_write_pages, 2 * writes);
    assert_eq!(keep.window.host_trim_pages, 2 * trims);
    assert_eq!(dropped.window.host_write_pages, 2 * writes);
    assert_eq!(dropped.window.host_trim_pages, 0);
    assert_eq!(dropped_oracle.window.host_trim_pages, 0);
    let (k, d) = (keep.window.waf.unwrap(), dropped.window.waf.unwrap());
    assert!(
        d > k,
        "without trims GC copies what the trims said was dead: WAF {d} vs {k}"
    );
}

#[test]
fn a_bad_trims_value_names_the_key() {
    let path = std::env::temp_dir().join("ftlsim-trims-unused.trace");
    let err = load_config(None, &sets(&path, &["workload.trace.trims=\"sometimes\""]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("workload.trace.trims"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
