//! The oracle on a trace replay: its pre-pass reads the trace a second
//! time (`Simulation::with_source_foreseen`), so a trace can be compared
//! under the oracle like a synthetic workload. Knowing each page's death,
//! it must not do worse than no assigner on a hot/cold trace.

use ftlsim_run::load::load_config;
use ftlsim_trace::{NativeWriter, TraceOp, TraceRecord};

#[test]
fn oracle_replays_a_trace_and_beats_no_assigner() {
    let path = std::env::temp_dir().join(format!("ftlsim-oracle-{}.trace", std::process::id()));
    let mut w = NativeWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    let mut rec = TraceRecord::default();
    // 1536 logical pages: 10 % of them take 80 % of the writes.
    let mut x: u64 = 12345;
    for i in 0..40_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lpn = if x % 10 < 8 { x % 153 } else { 153 + x % 1383 };
        rec.reset();
        rec.time_ns = i * 1000;
        rec.op = TraceOp::Write;
        rec.offset_bytes = lpn * 4096;
        rec.length_bytes = 4096;
        w.write(&rec).unwrap();
    }
    w.finish().unwrap();
    let waf = |layers: &str| {
        let sets = vec![
            "device.blocks=56".to_string(),
            "device.pages_per_block=32".to_string(),
            "device.spare_factor=0.12".to_string(),
            "ftl.streams=5".to_string(),
            "workload.type=\"trace\"".to_string(),
            format!("workload.trace.path={:?}", path.display().to_string()),
            "workload.trace.format=\"native\"".to_string(),
            format!("host.layers={layers}"),
        ];
        let cfg = load_config(None, &sets).unwrap();
        let report = ftlsim_run::simulate::simulate(&cfg, false, &mut |_| {})
            .unwrap()
            .report;
        assert_eq!(report.window.host_write_pages, 40_000);
        report.window.waf.expect("writes were measured")
    };
    let baseline = waf("[]");
    let oracle = waf("[{type = \"oracle\"}]");
    let _ = std::fs::remove_file(&path);
    assert!(baseline > 1.2, "the trace makes GC work: {baseline}");
    assert!(
        oracle < baseline,
        "oracle {oracle} vs no assigner {baseline}"
    );
}
