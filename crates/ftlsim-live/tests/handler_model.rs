//! The live device's data path against a plain byte array: random writes,
//! reads and discards at any offset and length (unaligned too) must read
//! back exactly what the model holds, and the requests sent to the
//! simulated device must cover exactly the pages touched.

use ftlsim::request::Op;
use ftlsim_live::handler::{Handler, LiveRequest};
use ftlsim_live::store::PageStore;
use proptest::prelude::*;

const PAGE_BYTES: u32 = 512;
const PAGES: u64 = 16;
const SIZE_BYTES: u64 = PAGES * PAGE_BYTES as u64;

#[derive(Debug, Clone)]
enum Step {
    Write { offset: u64, len: u64, fill: u8 },
    Read { offset: u64, len: u64 },
    Discard { offset: u64, len: u64 },
}

fn range() -> impl Strategy<Value = (u64, u64)> {
    (0..SIZE_BYTES).prop_flat_map(|offset| (Just(offset), 0..=(SIZE_BYTES - offset)))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (range(), any::<u8>()).prop_map(|((offset, len), fill)| Step::Write { offset, len, fill }),
        range().prop_map(|(offset, len)| Step::Read { offset, len }),
        range().prop_map(|(offset, len)| Step::Discard { offset, len }),
    ]
}

fn run(steps: &[Step], dedup: bool) {
    run_on(PageStore::new(PAGES, PAGE_BYTES, dedup), steps);
}

/// A fresh backing file for one case (removed on drop).
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self(std::env::temp_dir().join(format!("ftlsim-handler-model-{}-{n}", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The same steps on the file-backed store (`--backing`): the same bytes
/// read back, and as many distinct pages held as in memory (dedup keeps
/// identical pages once in the file too).
fn run_file(steps: &[Step], dedup: bool) {
    let file = TempFile::new();
    let store = PageStore::file(&file.0, PAGES, PAGE_BYTES, dedup).unwrap();
    let in_file = run_on(store, steps);
    let in_memory = run_on(PageStore::new(PAGES, PAGE_BYTES, dedup), steps);
    assert_eq!(in_file, in_memory, "distinct pages held");
}

/// Runs the steps against the model; returns the distinct pages held.
fn run_on(store: PageStore, steps: &[Step]) -> u64 {
    let mut h = Handler::new(store, SIZE_BYTES, Vec::<LiveRequest>::new(), true);
    let mut model = vec![0u8; SIZE_BYTES as usize];
    for (i, s) in steps.iter().enumerate() {
        match *s {
            Step::Write { offset, len, fill } => {
                // Bytes that differ within a write, so misplaced copies show.
                let data: Vec<u8> = (0..len)
                    .map(|k| fill ^ (k as u8).wrapping_mul(31))
                    .collect();
                h.write(offset, &data).unwrap();
                model[offset as usize..(offset + len) as usize].copy_from_slice(&data);
            }
            Step::Read { offset, len } => {
                let got = h.read(offset, len).unwrap();
                assert_eq!(
                    got,
                    &model[offset as usize..(offset + len) as usize],
                    "step {i}: {s:?}"
                );
            }
            Step::Discard { offset, len } => {
                h.discard(offset, len).unwrap();
                model[offset as usize..(offset + len) as usize].fill(0);
            }
        }
    }
    // Every byte reads back at the end, and each write request's
    // fingerprints are the MurmurHash3 of a whole page.
    assert_eq!(h.read(0, SIZE_BYTES).unwrap(), model);
    for r in h.sink() {
        if r.req.op == Op::Write {
            assert_eq!(r.req.fingerprints.len(), r.req.pages as usize);
            assert_eq!(r.hashes.len(), r.req.pages as usize);
        }
        assert!(r.req.lpn + u64::from(r.req.pages) <= PAGES);
    }
    h.counters().stored_pages
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reads_return_what_was_written(steps in prop::collection::vec(step(), 1..40)) {
        run(&steps, false);
    }

    #[test]
    fn reads_return_what_was_written_with_dedup(steps in prop::collection::vec(step(), 1..40)) {
        run(&steps, true);
    }

    #[test]
    fn backing_file_reads_return_what_was_written(steps in prop::collection::vec(step(), 1..40)) {
        run_file(&steps, false);
    }

    #[test]
    fn backing_file_reads_return_what_was_written_with_dedup(steps in prop::collection::vec(step(), 1..40)) {
        run_file(&steps, true);
    }
}

#[test]
fn out_of_range_is_refused() {
    let store = PageStore::new(PAGES, PAGE_BYTES, false);
    let mut h = Handler::new(store, SIZE_BYTES, Vec::<LiveRequest>::new(), false);
    assert!(h.write(SIZE_BYTES - 1, &[1, 2]).is_err());
    assert!(h.discard(SIZE_BYTES, 1).is_err());
    assert_eq!(h.read(SIZE_BYTES, 10).unwrap(), Vec::<u8>::new());
    assert!(h.sink().is_empty());
}
