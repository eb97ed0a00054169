//! Named, seeded random streams. Each consumer (workload, GC, ...) gets its own
//! stream derived from the run seed and its name, so adding randomness in one
//! place never shifts the numbers another place draws.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::hash::{fnv1a64, splitmix64};

pub fn stream(seed: u64, name: &str) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(splitmix64(seed ^ splitmix64(fnv1a64(name.as_bytes()))))
}
