//! Values for config keys and flags, drawn from three pools: typical small
//! values (so that valid cases finish in well under a second on a small
//! device), boundaries (0, 1, -1, the type's max and max + 1) and absurd
//! values (1e18, 1e300, u64::MAX, NaN, inf, wrong types, arrays and tables
//! where a scalar goes). Mid-size values are left out on purpose: a device
//! of a million blocks is valid and legitimately takes minutes.

use rand::seq::IndexedRandom;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng64 = Xoshiro256PlusPlus;

/// What a config key holds.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An unsigned integer of this many bits.
    Uint(u32),
    /// A u64 count of work (requests, records): only values of 10^18 and
    /// more count as absurd, and the integer types' edges are left out
    /// (4·10^9 requests is just a long run).
    Count,
    /// A device dimension (blocks, pages per block) of this many bits: as
    /// `Uint`, without the mid-size edges (65536 pages per block makes a
    /// valid device of millions of pages, which takes minutes).
    Size(u32),
    Float,
    Bool,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A page count or `"Nx"` of the logical capacity.
    Amount,
    /// Any string (a path, a format name, a device).
    Str,
    /// A value of its own shape (arrays): only the typical list and wrong
    /// scalars.
    Raw,
}

/// A raw TOML value and, when it is of a type the key can never take, why
/// the binary must refuse it.
pub struct Value {
    pub text: String,
    pub reject: Option<String>,
}

/// Integers: small boundaries, the edges of the integer types, absurd
/// sizes, and things that are not unsigned integers.
const INT_SMALL: &[&str] = &["0", "1", "2"];
const INT_EDGE: &[&str] = &[
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
];
/// The edges of u32 only: what a device dimension can take.
const SIZE_EDGE: &[&str] = &["4294967295", "4294967296", "9223372036854775807"];
const INT_ABSURD: &[&str] = &["1000000000000000000", "4000000000", "2147483648"];
/// Absurd only: work counts (requests, records) where 10^6 or 4·10^9 is
/// just a long run.
const COUNT_ABSURD: &[&str] = &["1000000000000000000", "9223372036854775807"];
const NOT_UINT: &[&str] = &[
    "-1",
    "-9223372036854775808",
    "1e300",
    "1e18",
    "0.5",
    "nan",
    "inf",
    "18446744073709551615",
    "18446744073709551616",
];

/// Floats by what they test: zero and negatives, tiny positives, huge
/// values, non-finite values.
const FLOAT_ZERO: &[&str] = &["0", "0.0", "-0.0", "-1", "-1e-12", "1", "0.999999"];
const FLOAT_TINY: &[&str] = &["1e-12", "5e-324", "1e-300", "1e-9"];
const FLOAT_HUGE: &[&str] = &["1e300", "-1e300", "1e18", "1.7976931348623157e308", "100"];
const FLOAT_NONFINITE: &[&str] = &["nan", "-nan", "inf", "-inf"];

const AMOUNT_BOUNDARY: &[&str] = &[
    "0",
    "1",
    "\"0x\"",
    "\"0.0001x\"",
    "\"1X\"",
    "\" 2x \"",
    "\"5e-324x\"",
];

/// Amounts no simulation can run: a billion billion pages.
const AMOUNT_ABSURD: &[&str] = &[
    "\"1e300x\"",
    "\"1e18x\"",
    "1000000000000000000",
    "9223372036854775807",
];

/// Amount strings the parser must refuse (not a count, not a finite multiple).
const AMOUNT_BAD: &[&str] = &[
    "\"nanx\"",
    "\"infx\"",
    "\"-1x\"",
    "\"x\"",
    "\"\"",
    "\"1e400x\"",
    "-1",
    "1e300",
    "true",
];

/// Values of a type no scalar key takes.
const WRONG_SHAPE: &[&str] = &["[1, 2]", "{ a = 1 }", "[]", "{}", "[[1]]"];

const STR_ODD: &[&str] = &[
    "\"\"",
    "\" \"",
    "\"\\u0000\"",
    "\"é\"",
    "\"..\"",
    "\"/dev/null\"",
    "\"D\"",
    "\"nope\"",
];

fn pick(rng: &mut Rng64, pool: &[&str]) -> String {
    pool.choose(rng).expect("non-empty pool").to_string()
}

/// The integer a raw value denotes, when it is a TOML integer.
fn int_of(text: &str) -> Option<i128> {
    text.parse::<i128>().ok()
}

/// A value for a key of `kind` whose typical values are `typical`: half
/// the time a typical one, else one of the kind's odd pools, each pool
/// equally likely (so that every kind of odd value turns up often).
pub fn value(rng: &mut Rng64, kind: Kind, typical: &[&str]) -> Value {
    let ok = |text: String| Value { text, reject: None };
    let bad = |text: String, why: &str| Value {
        reject: Some(format!("{why}: {text}")),
        text,
    };
    if rng.random_bool(0.5) && !typical.is_empty() {
        return ok(pick(rng, typical));
    }
    let wrong_shape = rng.random_bool(0.08);
    match kind {
        Kind::Uint(_) | Kind::Count | Kind::Size(_) if wrong_shape => {
            bad(pick(rng, WRONG_SHAPE), "not an integer")
        }
        Kind::Uint(_) | Kind::Count | Kind::Size(_) => {
            let bits = bits_or_64(kind);
            let pools = match kind {
                Kind::Count => [INT_SMALL, COUNT_ABSURD, COUNT_ABSURD, NOT_UINT],
                Kind::Size(_) => [INT_SMALL, SIZE_EDGE, INT_ABSURD, NOT_UINT],
                _ => [INT_SMALL, INT_EDGE, INT_ABSURD, NOT_UINT],
            };
            let pool = *pools.choose(rng).expect("pools");
            let text = pick(rng, pool);
            let max = if bits >= 64 {
                i64::MAX as i128
            } else {
                (1i128 << bits) - 1
            };
            match int_of(&text) {
                Some(n) if n >= 0 && n <= max => ok(text),
                Some(_) => bad(text, "an integer out of the key's range"),
                None => bad(text, "not an integer"),
            }
        }
        Kind::Float => {
            if wrong_shape {
                let pool: &[&str] = &["true", "\"0.5\"", "\"\"", "[0.5]", "{}"];
                bad(pick(rng, pool), "not a number")
            } else {
                let pools = [FLOAT_ZERO, FLOAT_TINY, FLOAT_HUGE, FLOAT_NONFINITE];
                let pool = *pools.choose(rng).expect("pools");
                ok(pick(rng, pool))
            }
        }
        Kind::Bool => {
            if rng.random_bool(0.8) {
                ok(pick(rng, &["true", "false"]))
            } else {
                bad(
                    pick(rng, &["1", "0", "\"true\"", "[true]", "{}"]),
                    "not a boolean",
                )
            }
        }
        Kind::Enum(names) => {
            if rng.random_bool(0.8) {
                ok(format!("\"{}\"", names.choose(rng).expect("names")))
            } else {
                let text = pick(rng, &["\"\"", "\"Greedy\"", "\"nope\"", "1", "true", "[]"]);
                // An enum name in other case is still not a name.
                let quoted = text.trim_matches('"');
                if names.contains(&quoted) {
                    ok(text)
                } else {
                    bad(text, "not one of the names")
                }
            }
        }
        Kind::Amount => match rng.random_range(0..3) {
            0 => ok(pick(rng, AMOUNT_BOUNDARY)),
            1 => ok(pick(rng, AMOUNT_ABSURD)),
            _ if wrong_shape => bad(pick(rng, WRONG_SHAPE), "not an amount"),
            _ => bad(pick(rng, AMOUNT_BAD), "not an amount"),
        },
        Kind::Str => {
            if !wrong_shape {
                ok(pick(rng, STR_ODD))
            } else {
                bad(pick(rng, &["1", "true", "[\"a\"]", "{}"]), "not a string")
            }
        }
        Kind::Raw => {
            if !wrong_shape && !typical.is_empty() {
                ok(pick(rng, typical))
            } else {
                bad(pick(rng, &["1", "true", "\"a\"", "{}"]), "not an array")
            }
        }
    }
}

fn bits_or_64(kind: Kind) -> u32 {
    match kind {
        Kind::Uint(bits) | Kind::Size(bits) => bits,
        _ => 64,
    }
}

/// A value for an unsigned command-line flag of `bits` bits, always one
/// clap accepts (clap's own usage errors are not what is under test).
pub fn flag_uint(rng: &mut Rng64, bits: u32, typical: &[u64]) -> String {
    let max = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let v = match rng.random_range(0..100) {
        0..=59 => *typical.choose(rng).expect("typical"),
        60..=84 => *[0, 1, 2, max, max - 1, max / 2 + 1]
            .choose(rng)
            .expect("boundary"),
        _ => *[4_000_000_000, 1_000_000_000_000_000_000, 1 << 32]
            .choose(rng)
            .expect("absurd"),
    };
    v.min(max).to_string()
}

/// A value for a floating-point flag (clap parses Rust's f64 syntax).
pub fn flag_float(rng: &mut Rng64, typical: &[&str]) -> String {
    match rng.random_range(0..100) {
        0..=59 => pick(rng, typical),
        60..=84 => pick(rng, &["0", "1", "-1", "0.5", "1e-12", "-0"]),
        _ => pick(rng, &["NaN", "inf", "-inf", "1e300", "-1e300", "5e-324"]),
    }
}
