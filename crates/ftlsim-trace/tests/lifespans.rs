//! The lifespan annotator against a small trace computed by hand: writes of
//! several pages, an overwrite, trims (of live pages, of a trimmed page
//! rewritten, of a page never written), reads and flushes that count for
//! nothing, and pages never overwritten; both outputs, and a remap refused.

use ftlsim_trace::lifespan::INFINITE;
use ftlsim_trace::{
    annotate_file, LifespanOutputs, LifespanReader, NativeWriter, ReaderOptions, TraceError,
    TraceOp, TraceRecord,
};

use crate::common::TempDir;

const PAGE: u64 = 4096;

fn trace(dir: &TempDir, ops: &[(TraceOp, u64, u64)]) -> std::path::PathBuf {
    let path = dir.path("t.ftlt");
    let mut w = NativeWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    for (i, &(op, page, pages)) in ops.iter().enumerate() {
        let rec = TraceRecord {
            time_ns: i as u64 * 1000,
            op,
            offset_bytes: page * PAGE,
            length_bytes: pages * PAGE,
            src_offset_bytes: if op == TraceOp::Remap { 64 * PAGE } else { 0 },
            ..TraceRecord::default()
        };
        w.write(&rec).unwrap();
    }
    w.finish().unwrap();
    path
}

#[test]
fn hand_computed_lifespans_in_both_formats() {
    use TraceOp::{Flush, Read, Trim, Write};
    let dir = TempDir::new("lifespans");
    // Write ids count written pages. By hand:
    //   W p0-p2   ids 0, 1, 2
    //   R p0      nothing
    //   W p1      id 3: p1 of id 1 dies, lifespan 3 - 1 = 2
    //   T p0-p1   4 pages written so far: id 0 lives 4, id 3 lives 1
    //   W p5      id 4
    //   W p2      id 5: id 2 dies, lifespan 3
    //   W p0      id 6 (p0 was trimmed: no death)
    //   flush     nothing
    //   T p5      7 written: id 4 lives 3
    //   T p9      never written: nothing
    //   end       ids 5 and 6 never die
    let path = trace(
        &dir,
        &[
            (Write, 0, 3),
            (Read, 0, 1),
            (Write, 1, 1),
            (Trim, 0, 2),
            (Write, 5, 1),
            (Write, 2, 1),
            (Write, 0, 1),
            (Flush, 0, 0),
            (Trim, 5, 1),
            (Trim, 9, 1),
        ],
    );
    let want = [4, 2, 3, 1, 3, INFINITE, INFINITE];
    let (sepbit, native) = (dir.path("t.oracle"), dir.path("t.life"));
    let outputs = LifespanOutputs {
        sepbit: Some(&sepbit),
        native: Some(&native),
    };
    let s = annotate_file(&path, &ReaderOptions::default(), 4096, 1 << 20, outputs).unwrap();
    assert_eq!(
        (
            s.written_pages,
            s.overwritten_pages,
            s.trimmed_pages,
            s.infinite_pages,
            s.cut_pages
        ),
        (7, 2, 3, 2, 0)
    );
    let text = std::fs::read_to_string(&sepbit).unwrap();
    let expected: String = want.iter().map(|v| format!("{v}\n")).collect();
    assert_eq!(text, expected);
    assert!(
        text.ends_with("18446744073709551615\n"),
        "SepBIT's infinity is UINT64_MAX"
    );
    let mut r = LifespanReader::new(std::fs::File::open(&native).unwrap()).unwrap();
    assert_eq!(r.page_bytes(), 4096);
    let mut back = Vec::new();
    while let Some(v) = r.next_lifespan().unwrap() {
        back.push(v);
    }
    assert_eq!(back, want);
}

/// 8 KiB pages halve the ids of the same trace: p0-p2 of 4 KiB are pages
/// 0 and 1, and the write of 4 KiB page 1 rewrites 8 KiB page 0.
#[test]
fn page_size_sets_the_unit() {
    let dir = TempDir::new("lifespans-8k");
    let path = trace(&dir, &[(TraceOp::Write, 0, 3), (TraceOp::Write, 1, 1)]);
    let native = dir.path("t.life");
    let outputs = LifespanOutputs {
        sepbit: None,
        native: Some(&native),
    };
    annotate_file(&path, &ReaderOptions::default(), 8192, 1 << 20, outputs).unwrap();
    let mut r = LifespanReader::new(std::fs::File::open(&native).unwrap()).unwrap();
    assert_eq!(r.page_bytes(), 8192);
    let mut back = Vec::new();
    while let Some(v) = r.next_lifespan().unwrap() {
        back.push(v);
    }
    assert_eq!(back, vec![2, INFINITE, INFINITE]);
}

#[test]
fn remap_is_refused_and_no_output_is_left() {
    let dir = TempDir::new("lifespans-remap");
    let path = trace(&dir, &[(TraceOp::Write, 0, 1), (TraceOp::Remap, 0, 1)]);
    let sepbit = dir.path("t.oracle");
    let outputs = LifespanOutputs {
        sepbit: Some(&sepbit),
        native: None,
    };
    let err = annotate_file(&path, &ReaderOptions::default(), 4096, 64, outputs).unwrap_err();
    assert!(matches!(err, TraceError::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("t.ftlt"), "{err}");
    assert!(!sepbit.exists(), "a failed annotation leaves no output");
}
