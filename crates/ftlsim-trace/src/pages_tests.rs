//! Tests of `pages.rs` (page mapping and the page stream).

use super::*;

fn rec(op: TraceOp, offset: u64, len: u64) -> TraceRecord {
    TraceRecord {
        op,
        offset_bytes: offset,
        length_bytes: len,
        ..TraceRecord::default()
    }
}

fn split(m: &mut PageMapper, r: &TraceRecord) -> Vec<(u64, u32)> {
    m.push(r, 0).unwrap();
    let mut out = Vec::new();
    let mut req = PageRequest::default();
    while m.next_request(&mut req).unwrap() {
        out.push((req.lpn, req.pages));
    }
    out
}

#[test]
fn unaligned_requests_cover_touched_pages() {
    let mut m = PageMapper::new(&PageOptions::default()).unwrap();
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 0, 4096)), [(0, 1)]);
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 4095, 2)), [(0, 2)]);
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 512, 512)), [(0, 1)]);
    assert_eq!(split(&mut m, &rec(TraceOp::Read, 8192, 8193)), [(2, 3)]);
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 8192, 0)), []);
    assert_eq!(m.zero_length_skipped(), 1);
    assert_eq!(split(&mut m, &rec(TraceOp::Flush, 0, 0)), [(0, 0)]);
}

#[test]
fn compact_first_touch_order_and_split() {
    let opts = PageOptions {
        compact: true,
        ..PageOptions::default()
    };
    let mut m = PageMapper::new(&opts).unwrap();
    let gb = 1u64 << 30;
    assert_eq!(
        split(&mut m, &rec(TraceOp::Write, 2000 * gb, 8192)),
        [(0, 2)]
    );
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 5 * gb, 4096)), [(2, 1)]);
    // Touches 2000 GB pages 0,1 (known, 0..2) then a new page (3): split.
    assert_eq!(
        split(&mut m, &rec(TraceOp::Read, 2000 * gb - 4096, 4 * 4096)),
        [(3, 1), (0, 2), (4, 1)]
    );
    assert_eq!(m.compact_pages(), 5);
}

#[test]
fn capacity_errors() {
    let opts = PageOptions {
        logical_pages: Some(4),
        ..PageOptions::default()
    };
    let mut m = PageMapper::new(&opts).unwrap();
    let mut req = PageRequest::default();
    m.push(&rec(TraceOp::Write, 3 * 4096, 4096), 0).unwrap();
    assert!(m.next_request(&mut req).unwrap());
    m.push(&rec(TraceOp::Write, 3 * 4096, 4097), 0).unwrap();
    let err = m.next_request(&mut req).unwrap_err().to_string();
    assert!(
        err.contains("page 4") && err.contains("4 logical pages"),
        "{err}"
    );

    let opts = PageOptions {
        logical_pages: Some(2),
        compact: true,
        ..PageOptions::default()
    };
    let mut m = PageMapper::new(&opts).unwrap();
    m.push(&rec(TraceOp::Write, 1 << 40, 8192), 0).unwrap();
    assert!(m.next_request(&mut req).unwrap());
    m.push(&rec(TraceOp::Write, 0, 1), 0).unwrap();
    assert!(m
        .next_request(&mut req)
        .unwrap_err()
        .to_string()
        .contains("distinct pages"));
    assert!(PageMapper::new(&PageOptions {
        page_bytes: 0,
        ..PageOptions::default()
    })
    .is_err());
}

#[test]
fn fingerprints_follow_pages() {
    let mut r = rec(TraceOp::Write, 4096, 4 * 4096);
    r.fingerprints = vec![1, 2, 3, 4];
    // 4 KiB pages: passed through.
    let mut m = PageMapper::new(&PageOptions::default()).unwrap();
    m.push(&r, 0).unwrap();
    let mut req = PageRequest::default();
    assert!(m.next_request(&mut req).unwrap());
    assert_eq!(req.fingerprints, [1, 2, 3, 4]);
    // 8 KiB pages: 4K pages 1..=4 → 8K pages 0 (has 1), 1 (2,3), 2 (4).
    let mut m = PageMapper::new(&PageOptions {
        page_bytes: 8192,
        ..PageOptions::default()
    })
    .unwrap();
    m.push(&r, 0).unwrap();
    assert!(m.next_request(&mut req).unwrap());
    assert_eq!((req.lpn, req.pages), (0, 3));
    assert_eq!(req.fingerprints, [1, combine_fingerprints(&[2, 3]), 4]);
    // 2 KiB pages: dropped.
    let mut m = PageMapper::new(&PageOptions {
        page_bytes: 2048,
        ..PageOptions::default()
    })
    .unwrap();
    m.push(&r, 0).unwrap();
    assert!(m.next_request(&mut req).unwrap());
    assert!(req.fingerprints.is_empty());
    // Wrong count: treated as unknown.
    r.fingerprints.pop();
    let mut m = PageMapper::new(&PageOptions::default()).unwrap();
    m.push(&r, 0).unwrap();
    assert!(m.next_request(&mut req).unwrap());
    assert!(req.fingerprints.is_empty());
}

fn moved(op: TraceOp, src: u64, dst: u64, len: u64) -> TraceRecord {
    TraceRecord {
        op,
        offset_bytes: dst,
        src_offset_bytes: src,
        length_bytes: len,
        context: Some(9),
        ..TraceRecord::default()
    }
}

/// (lpn, src_lpn, pages) of each page request of `r`.
fn split_moved(m: &mut PageMapper, r: &TraceRecord) -> Result<Vec<(u64, u64, u32)>, MapError> {
    m.push(r, 0)?;
    let mut out = Vec::new();
    let mut req = PageRequest::default();
    while m.next_request(&mut req)? {
        assert_eq!((req.op, req.context), (r.op, Some(9)));
        out.push((req.lpn, req.src_lpn, req.pages));
    }
    Ok(out)
}

#[test]
fn remap_and_clone_map_both_ranges() {
    let mut m = PageMapper::new(&PageOptions::default()).unwrap();
    assert_eq!(
        split_moved(&mut m, &moved(TraceOp::Remap, 4096, 10 * 4096, 3 * 4096)),
        Ok(vec![(10, 1, 3)])
    );
    assert_eq!(
        split_moved(&mut m, &moved(TraceOp::Clone, 0, 4096, 0)),
        Ok(vec![])
    );
    // Unaligned source, destination or length: a request error.
    for r in [
        moved(TraceOp::Remap, 512, 0, 4096),
        moved(TraceOp::Clone, 0, 100, 4096),
        moved(TraceOp::Clone, 0, 4096, 4000),
    ] {
        let err = split_moved(&mut m, &r).unwrap_err();
        assert!(matches!(err, MapError::Request(_)), "{err}");
        assert!(err.to_string().contains("not aligned"), "{err}");
    }
    // Reads keep src_lpn 0.
    m.push(&rec(TraceOp::Read, 4096, 4096), 0).unwrap();
    let mut req = PageRequest {
        src_lpn: 77,
        ..PageRequest::default()
    };
    assert!(m.next_request(&mut req).unwrap());
    assert_eq!((req.lpn, req.src_lpn), (1, 0));
}

#[test]
fn remap_capacity_covers_the_source() {
    let opts = PageOptions {
        logical_pages: Some(8),
        ..PageOptions::default()
    };
    let mut m = PageMapper::new(&opts).unwrap();
    let err = split_moved(&mut m, &moved(TraceOp::Remap, 7 * 4096, 0, 2 * 4096)).unwrap_err();
    assert!(matches!(err, MapError::Capacity(_)), "{err}");
    assert!(err.to_string().contains("page 8"), "{err}");
    assert!(split_moved(&mut m, &moved(TraceOp::Remap, 6 * 4096, 0, 2 * 4096)).is_ok());
}

#[test]
fn compact_numbers_sources_first_and_splits_on_either_side() {
    let opts = PageOptions {
        compact: true,
        logical_pages: Some(6),
        ..PageOptions::default()
    };
    let mut m = PageMapper::new(&opts).unwrap();
    let gb = 1u64 << 30;
    // Pages: src 100G+0 → 0, dst 200G+0 → 1, src 100G+1 → 2, dst 200G+1 → 3:
    // neither side consecutive, so one request per page.
    assert_eq!(
        split_moved(&mut m, &moved(TraceOp::Clone, 100 * gb, 200 * gb, 8192)),
        Ok(vec![(1, 0, 1), (3, 2, 1)])
    );
    // Known pages on both sides, consecutive on neither: split again.
    assert_eq!(
        split_moved(&mut m, &moved(TraceOp::Remap, 200 * gb, 100 * gb, 8192)),
        Ok(vec![(0, 1, 1), (2, 3, 1)])
    );
    // A write then a remap of consecutive numbers: one request.
    assert_eq!(split(&mut m, &rec(TraceOp::Write, 0, 8192)), [(4, 2)]);
    assert_eq!(
        split_moved(&mut m, &moved(TraceOp::Remap, 0, 100 * gb, 4096)),
        Ok(vec![(0, 4, 1)])
    );
    // Capacity: a new source page is one page too many.
    let err = split_moved(&mut m, &moved(TraceOp::Clone, 300 * gb, 0, 4096)).unwrap_err();
    assert!(err.to_string().contains("distinct pages"), "{err}");
}

#[test]
fn hasher_spreads_sequential_keys() {
    let mut seen = std::collections::HashSet::new();
    for k in 0u64..1000 {
        let mut h = FastHasher::default();
        h.write_u64(k);
        seen.insert(h.finish() & 1023);
    }
    assert!(seen.len() > 500, "{}", seen.len());
}
