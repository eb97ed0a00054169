//! FIU traces (SNIA IOTTA "FIU IODedup"), whitespace separated:
//!
//! `time_ns pid process lba_sector size_sectors R/W major minor md5...`
//!
//! * `time_ns`: nanoseconds; `lba_sector`, `size_sectors`: 512-byte sectors;
//! * `R`/`W` (case-insensitive);
//! * device: `major,minor` → [`crate::mkdev`] (`major << 20 | minor`);
//! * context: FNV-1a 64 of the process name (a stable program-context tag);
//! * content hashes: 32-hex-digit MD5s, concatenated or space separated, in
//!   one of two layouts, told apart by their count `H`:
//!   - one per 512-byte sector (`H == size_sectors`, e.g. `homes`): the
//!     sectors of each absolute 4 KiB page are combined with
//!     [`crate::combine_fingerprints`] (a page partly covered combines the
//!     hashes it has; a page with one sector keeps that sector's hash);
//!   - one per 4 KiB page touched (`H == pages`, e.g. `mail`): kept as is.
//!
//!   Any other count is an error. Lines without hashes give no fingerprints.

use crate::error::{shorten, LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::{
    combine_fingerprints, fnv1a64, mkdev, TraceRecord, FINGERPRINT_PAGE_BYTES,
    MAX_FINGERPRINTS_PER_RECORD, SECTOR_BYTES,
};
use crate::text::{
    check_end, check_length, hex128, parse_u32, parse_u64, read_or_write, sectors_to_bytes,
    LineParser, Parsed,
};

const SECTORS_PER_FP_PAGE: u64 = FINGERPRINT_PAGE_BYTES / SECTOR_BYTES;

pub(crate) struct FiuParser {
    /// Per-sector hashes of the current line (reused).
    sector_hashes: Vec<u128>,
}

impl LineParser for FiuParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(FiuParser {
            sector_hashes: Vec::new(),
        })
    }

    fn parse(
        &mut self,
        line: &str,
        _first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        let mut it = line.split_ascii_whitespace();
        let mut f = [""; 8];
        for (i, slot) in f.iter_mut().enumerate() {
            *slot = it.next().ok_or(LineError::Truncated {
                expected: 8,
                found: i,
            })?;
        }
        rec.time_ns = parse_u64(1, "time_ns", f[0])?;
        parse_u64(2, "pid", f[1])?;
        rec.context = Some(fnv1a64(f[2].as_bytes()));
        let lba = parse_u64(4, "lba_sector", f[3])?;
        let sectors = parse_u64(5, "size_sectors", f[4])?;
        rec.offset_bytes = sectors_to_bytes(4, "lba_sector", f[3], lba)?;
        rec.length_bytes = check_length(
            5,
            "size_sectors",
            f[4],
            sectors_to_bytes(5, "size_sectors", f[4], sectors)?,
        )?;
        check_end(4, "lba_sector", f[3], rec.offset_bytes, rec.length_bytes)?;
        rec.op = read_or_write(6, "R/W", f[5], "R or W")?;
        let major = parse_u32(7, "major", f[6])?;
        let minor = parse_u32(8, "minor", f[7])?;
        rec.device = Some(
            mkdev(major, minor)
                .unwrap_or_else(|| crate::record::device_id(&format!("{major},{minor}"))),
        );

        // Hashes: every remaining token, concatenated.
        self.sector_hashes.clear();
        for (field, token) in (9..).zip(it) {
            let bytes = token.as_bytes();
            if bytes.len() % 32 != 0 {
                return Err(LineError::Other(format!(
                    "field {field} (md5): `{}` is not a whole number of 32-hex-digit MD5s",
                    shorten(token)
                )));
            }
            for chunk in bytes.chunks(32) {
                let h = hex128(chunk).ok_or_else(|| {
                    LineError::Other(format!(
                        "field {field} (md5): `{}` is not hexadecimal",
                        shorten(token)
                    ))
                })?;
                if self.sector_hashes.len() >= MAX_FINGERPRINTS_PER_RECORD {
                    return Err(LineError::Other(format!(
                        "field {field} (md5): more than {MAX_FINGERPRINTS_PER_RECORD} hashes"
                    )));
                }
                self.sector_hashes.push(h);
            }
        }
        if self.sector_hashes.is_empty() {
            return Ok(Parsed::Record);
        }
        let hashes = self.sector_hashes.len() as u64;
        let pages = rec.fingerprint_pages();
        if hashes == sectors {
            // Per-sector: group the sectors by absolute 4 KiB page.
            let mut start = 0usize;
            while start < self.sector_hashes.len() {
                let sector = lba + start as u64;
                let page_end_sector = (sector / SECTORS_PER_FP_PAGE + 1) * SECTORS_PER_FP_PAGE;
                let in_page = (page_end_sector - sector).min(hashes - start as u64) as usize;
                let end = start + in_page.max(1);
                let group = self.sector_hashes.get(start..end).unwrap_or(&[]);
                rec.fingerprints.push(combine_fingerprints(group));
                start = end;
            }
        } else if hashes == pages {
            rec.fingerprints.extend_from_slice(&self.sector_hashes);
        } else {
            return Err(LineError::Other(format!(
                "field 9 (md5): {hashes} hashes for a {sectors}-sector request touching {pages} \
                 4 KiB pages (expected {sectors} per-sector or {pages} per-page hashes)"
            )));
        }
        Ok(Parsed::Record)
    }
}
