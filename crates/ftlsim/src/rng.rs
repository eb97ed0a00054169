//! Named, seeded random streams. Each consumer (workload, GC, ...) gets its own
//! stream derived from the run seed and its name, so adding randomness in one
//! place never shifts the numbers another place draws.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64 step: a good bijective mixer for deriving seeds.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of the name: stable across platforms and releases (unlike std's hasher).
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

pub fn stream(seed: u64, name: &str) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(splitmix64(seed ^ splitmix64(name_hash(name))))
}
