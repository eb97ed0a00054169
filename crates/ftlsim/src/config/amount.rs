//! Page amounts: a count, or a multiple of the logical capacity (`"4x"`).

use serde::{Deserialize, Serialize};

/// An amount of pages: a plain count, or a multiple of the logical capacity
/// written as a string such as `"12x"` or `"0.5x"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    Pages(u64),
    Capacity(f64),
}

impl Amount {
    pub fn to_pages(self, logical_pages: u64) -> u64 {
        match self {
            Amount::Pages(p) => p,
            Amount::Capacity(x) => (x * logical_pages as f64).round() as u64,
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Pages(p) => write!(f, "{p}"),
            Amount::Capacity(x) => write!(f, "{x}x"),
        }
    }
}

impl std::str::FromStr for Amount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let bad =
            || format!("`{s}` is not a page count or a multiple of logical capacity like \"12x\"");
        if let Some(mult) = t.strip_suffix(['x', 'X']) {
            let x: f64 = mult.trim().parse().map_err(|_| bad())?;
            if !x.is_finite() || x < 0.0 {
                return Err(bad());
            }
            Ok(Amount::Capacity(x))
        } else {
            t.parse::<u64>().map(Amount::Pages).map_err(|_| bad())
        }
    }
}

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Amount::Pages(p) => s.serialize_u64(*p),
            Amount::Capacity(_) => s.serialize_str(&self.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Amount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a page count or a multiple of logical capacity like \"12x\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Amount, E> {
                Ok(Amount::Pages(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Amount, E> {
                u64::try_from(v)
                    .map(Amount::Pages)
                    .map_err(|_| E::custom(format!("{v} is negative; expected a page count")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Amount, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}
