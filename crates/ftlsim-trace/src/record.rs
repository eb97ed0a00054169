//! The one record type every reader produces, and the small deterministic
//! helpers shared by all formats (device ids, content fingerprints).

/// Sector size used by every sector-addressed format: 512 bytes.
pub const SECTOR_BYTES: u64 = 512;

/// Granularity of [`TraceRecord::fingerprints`]: one fingerprint per 4 KiB page.
pub const FINGERPRINT_PAGE_BYTES: u64 = 4096;

/// Largest accepted request: 1 TiB. Anything bigger is treated as a corrupt line.
pub const MAX_REQUEST_BYTES: u64 = 1 << 40;

/// Largest number of fingerprints one record may carry (a 4 GiB request).
/// Bounds memory when reading corrupt or hostile input.
pub const MAX_FINGERPRINTS_PER_RECORD: usize = 1 << 20;

/// What a request does: the core's one operation vocabulary, under the name
/// this crate has always used. Readers produce read, write, trim and flush;
/// remap and clone come from native traces (see [`TraceRecord::src_offset_bytes`]).
pub use ftlsim::request::Op as TraceOp;

/// One block request, in bytes and nanoseconds, whatever the source format.
///
/// Readers fill a caller-owned record (see [`crate::TraceReader::next_record`]) so
/// replay allocates nothing per record; `fingerprints` keeps its capacity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceRecord {
    /// Arrival time in nanoseconds, as found in the file converted to ns
    /// (not rebased: MSR times are Windows FILETIME since 1601, FIU times are
    /// absolute, DiskSim/SPC/blkparse times start near 0).
    pub time_ns: u64,
    /// What the request does.
    pub op: TraceOp,
    /// Byte offset on the device (0 for flushes).
    pub offset_bytes: u64,
    /// Request length in bytes (0 for flushes). At most [`MAX_REQUEST_BYTES`].
    pub length_bytes: u64,
    /// Byte offset of the source range of a remap or clone (the range
    /// `src_offset_bytes..src_offset_bytes + length_bytes` moves or is shared
    /// to `offset_bytes..`); 0 for every other operation.
    pub src_offset_bytes: u64,
    /// Device / volume / file id. Numeric in formats that number devices;
    /// names are mapped by [`device_id`]. `None` when the format has no device.
    pub device: Option<u32>,
    /// Host stream id (only the native format carries it).
    pub stream: Option<u16>,
    /// Program-context tag (FIU and blkparse: FNV-1a 64 hash of the process
    /// name; native format: whatever was written).
    pub context: Option<u64>,
    /// Content fingerprints, one per *absolute* 4 KiB page touched by the
    /// request, in address order: page `offset_bytes / 4096` up to page
    /// `(offset_bytes + length_bytes - 1) / 4096`. Empty when unknown.
    pub fingerprints: Vec<u128>,
}

impl TraceRecord {
    /// Resets every field to its default, keeping the fingerprint capacity.
    pub fn reset(&mut self) {
        self.time_ns = 0;
        self.op = TraceOp::Read;
        self.offset_bytes = 0;
        self.length_bytes = 0;
        self.src_offset_bytes = 0;
        self.device = None;
        self.stream = None;
        self.context = None;
        self.fingerprints.clear();
    }

    /// Copies `other` into `self`, reusing `self`'s fingerprint allocation.
    pub fn copy_from(&mut self, other: &TraceRecord) {
        self.time_ns = other.time_ns;
        self.op = other.op;
        self.offset_bytes = other.offset_bytes;
        self.length_bytes = other.length_bytes;
        self.src_offset_bytes = other.src_offset_bytes;
        self.device = other.device;
        self.stream = other.stream;
        self.context = other.context;
        self.fingerprints.clear();
        self.fingerprints.extend_from_slice(&other.fingerprints);
    }

    /// Pages of `page_bytes` this request touches: `(first_page, count)`.
    ///
    /// The unaligned rule: a request covers every page it touches, so the
    /// first page is `offset / page_bytes` and the last is
    /// `(offset + length - 1) / page_bytes`. Zero-length requests (and
    /// flushes) touch no page: `count == 0`.
    pub fn page_span(&self, page_bytes: u64) -> (u64, u64) {
        page_span(self.offset_bytes, self.length_bytes, page_bytes)
    }

    /// Number of 4 KiB fingerprint pages the request touches (what
    /// `fingerprints.len()` is when fingerprints are known).
    pub fn fingerprint_pages(&self) -> u64 {
        self.page_span(FINGERPRINT_PAGE_BYTES).1
    }
}

/// The unaligned rule on raw numbers; see [`TraceRecord::page_span`].
/// `page_bytes` of 0 is treated as 1; extents past 2^64 bytes are clamped.
pub fn page_span(offset_bytes: u64, length_bytes: u64, page_bytes: u64) -> (u64, u64) {
    let page_bytes = page_bytes.max(1);
    let first = offset_bytes / page_bytes;
    if length_bytes == 0 {
        return (first, 0);
    }
    // Readers never produce extents past 2^64 bytes; for direct callers the
    // end is clamped to the last addressable byte.
    let end = offset_bytes.saturating_add(length_bytes - 1);
    let last = end / page_bytes;
    (first, last - first + 1)
}

const FNV32_OFFSET: u32 = 0x811c_9dc5;
const FNV32_PRIME: u32 = 0x0100_0193;
const FNV128_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV128_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// FNV-1a, 32 bits.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    fnv1a32_continue(FNV32_OFFSET, bytes)
}

pub(crate) fn fnv1a32_continue(mut hash: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(FNV32_PRIME);
    }
    hash
}

/// FNV-1a, 64 bits (program-context tags from process names): the core's,
/// so a tag computed here equals one computed anywhere else in ftlsim.
pub use ftlsim::hash::fnv1a64;

/// Combines several content hashes into one page fingerprint.
///
/// Rule: one hash is kept as is; two or more are hashed with FNV-1a 128 over
/// the concatenation of their 16-byte big-endian encodings, in address order.
/// Used for FIU per-sector MD5s (up to 8 per 4 KiB page; a partly covered page
/// combines the hashes it has) and for pages larger than 4 KiB.
pub fn combine_fingerprints(hashes: &[u128]) -> u128 {
    match hashes {
        [] => 0,
        [one] => *one,
        many => {
            let mut hash = FNV128_OFFSET;
            for h in many {
                for b in h.to_be_bytes() {
                    hash ^= u128::from(b);
                    hash = hash.wrapping_mul(FNV128_PRIME);
                }
            }
            hash
        }
    }
}

/// Encodes a Linux `major,minor` device pair the way the kernel's `MKDEV`
/// does: `major << 20 | minor`. `None` when out of range (major ≥ 4096 or
/// minor ≥ 2^20).
pub fn mkdev(major: u32, minor: u32) -> Option<u32> {
    if major < (1 << 12) && minor < (1 << 20) {
        Some((major << 20) | minor)
    } else {
        None
    }
}

/// Maps a device name as written in a trace (or on a command line) to the
/// numeric id readers put in [`TraceRecord::device`]. Deterministic, order
/// independent, so `--device NAME` filters work before reading the file:
///
/// * a decimal number that fits u32 (`5`, Alibaba `device_id`, Tencent
///   `VolumeID`, DiskSim device, SPC ASU) → that number;
/// * `major,minor` or `major:minor` (blkparse, FIU major/minor) → [`mkdev`];
/// * anything else (MSR `hostname_disk` such as `hm_0`, fio file names) →
///   FNV-1a 32 of the UTF-8 bytes. Collisions are possible but unlikely.
pub fn device_id(name: &str) -> u32 {
    let name = name.trim();
    if let Some(n) = parse_plain_u32(name) {
        return n;
    }
    for sep in [',', ':'] {
        if let Some((maj, min)) = name.split_once(sep) {
            if let (Some(maj), Some(min)) = (parse_plain_u32(maj), parse_plain_u32(min)) {
                if let Some(dev) = mkdev(maj, min) {
                    return dev;
                }
            }
        }
    }
    fnv1a32(name.as_bytes())
}

/// Device id of an MSR `Hostname` + `DiskNumber` pair: [`device_id`] of
/// `"{hostname}_{disk}"`, e.g. `hm_0` (the MSR file naming).
pub fn msr_device_id(hostname: &str, disk: &str) -> u32 {
    let mut h = fnv1a32_continue(FNV32_OFFSET, hostname.as_bytes());
    h = fnv1a32_continue(h, b"_");
    h = fnv1a32_continue(h, disk.as_bytes());
    // Same value as device_id(&format!("{hostname}_{disk}")) unless that name
    // is itself a plain number or a major,minor pair, which a name with an
    // underscore never is.
    h
}

fn parse_plain_u32(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_span_unaligned_rule() {
        assert_eq!(page_span(0, 4096, 4096), (0, 1));
        assert_eq!(page_span(1, 4096, 4096), (0, 2));
        assert_eq!(page_span(4095, 2, 4096), (0, 2));
        assert_eq!(page_span(4096, 1, 4096), (1, 1));
        assert_eq!(page_span(8192, 0, 4096), (2, 0));
        assert_eq!(page_span(u64::MAX, 1, 4096), (u64::MAX / 4096, 1));
        assert_eq!(page_span(u64::MAX - 10, 1 << 40, 4096).1, 1);
    }

    #[test]
    fn device_ids() {
        assert_eq!(device_id("17"), 17);
        assert_eq!(device_id("8,33"), (8 << 20) | 33);
        assert_eq!(device_id("8:33"), (8 << 20) | 33);
        assert_eq!(device_id("hm_0"), fnv1a32(b"hm_0"));
        assert_eq!(msr_device_id("hm", "0"), device_id("hm_0"));
        assert_ne!(device_id("hm_0"), device_id("hm_1"));
        // Too big for u32: hashed, not truncated.
        assert_eq!(device_id("99999999999"), fnv1a32(b"99999999999"));
    }

    #[test]
    fn fnv_known_values() {
        // Published FNV-1a test vectors.
        assert_eq!(fnv1a32(b""), 0x811c9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c292c);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn combine_rule() {
        assert_eq!(combine_fingerprints(&[7]), 7);
        let ab = combine_fingerprints(&[1, 2]);
        let ba = combine_fingerprints(&[2, 1]);
        assert_ne!(ab, ba);
        assert_ne!(ab, 1);
        assert_eq!(ab, combine_fingerprints(&[1, 2]));
    }

    #[test]
    fn op_codes_round_trip() {
        for op in TraceOp::ALL {
            assert_eq!(TraceOp::from_code(op.code()), Some(op));
        }
        assert_eq!(TraceOp::from_code(6), None);
    }
}
