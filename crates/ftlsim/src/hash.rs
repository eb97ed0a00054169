//! The few deterministic mixers and hashes the whole project shares, so that
//! each exists once: SplitMix64, FNV-1a and the 128 → 64-bit fold.

/// SplitMix64's output function: a bijective mixer with good avalanche,
/// used to derive seeds and to make sequential ids look like content hashes.
#[inline]
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0000_0100_0000_01B3;

/// FNV-1a, 64 bits: stable across platforms and releases (unlike std's hasher).
#[inline]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV64_OFFSET, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV64_PRIME)
    })
}

/// Folds a 128-bit content hash (MurmurHash3 x64-128, MD5) into the 64-bit
/// fingerprint the FTL keys pages by.
#[inline]
pub fn fold128(h: u128) -> u64 {
    (h as u64) ^ ((h >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // FNV-1a 64 reference vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(fold128(1u128 << 64 | 2), 3);
    }
}
