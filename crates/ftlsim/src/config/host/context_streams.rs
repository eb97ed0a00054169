//! `[[host.layers]] type = "manual"` and `type = "write-hint"`: streams by
//! program context (the layer: `host/context_streams.rs`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManualConfig {
    /// `[context, stream]` pairs; a context may appear once. A context is an
    /// integer or a `"0x…"` string ([`map_entries`]).
    #[serde(with = "map_entries")]
    pub map: Vec<[u64; 2]>,
    /// The stream of contexts not in `map`.
    #[serde(default)]
    pub default_stream: u16,
}

impl ManualConfig {
    pub fn validate(&self, key: &str, streams: u16) -> Result<(), ConfigError> {
        if self.default_stream >= streams {
            return Err(ConfigError::new(
                format!("{key}.default_stream"),
                format!(
                    "stream {} is not below ftl.streams = {streams}",
                    self.default_stream
                ),
            ));
        }
        let mut seen = HashMap::new();
        for (i, &[context, stream]) in self.map.iter().enumerate() {
            if stream >= u64::from(streams) {
                return Err(ConfigError::new(
                    format!("{key}.map[{i}]"),
                    format!("stream {stream} is not below ftl.streams = {streams}"),
                ));
            }
            if let Some(j) = seen.insert(context, i) {
                return Err(ConfigError::new(
                    format!("{key}.map[{i}]"),
                    format!("context {context} is mapped already by {key}.map[{j}]"),
                ));
            }
        }
        Ok(())
    }
}

/// The map's pairs. A captured trace's context is a 64-bit PC hash, and
/// half of those are above TOML's integer range (i64), so a context may also
/// be written as a hex string, `["0x986beda01b2af52c", 1]`. Contexts above
/// that range are written back as such strings, the rest as integers.
pub mod map_entries {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Context {
        Integer(u64),
        Hex(String),
    }

    /// A context as written: a non-negative integer or a `"0x…"` string.
    struct Written(u64);

    impl<'de> Deserialize<'de> for Written {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Written;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str(
                        "a context: a non-negative integer or a \"0x…\" hex string of 64 bits",
                    )
                }
                fn visit_u64<E: de::Error>(self, v: u64) -> Result<Written, E> {
                    Ok(Written(v))
                }
                fn visit_i64<E: de::Error>(self, v: i64) -> Result<Written, E> {
                    u64::try_from(v)
                        .map(Written)
                        .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Written, E> {
                    v.strip_prefix("0x")
                        .or_else(|| v.strip_prefix("0X"))
                        .and_then(|digits| u64::from_str_radix(&digits.replace('_', ""), 16).ok())
                        .map(Written)
                        .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// The pairs, an error naming the pair (`map[i]`) it is in: a map of
    /// captured PCs runs to dozens of lines.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<[u64; 2]>, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = Vec<[u64; 2]>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of [context, stream] pairs")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                loop {
                    let i = out.len();
                    match seq.next_element::<(Written, u64)>() {
                        Ok(Some((c, stream))) => out.push([c.0, stream]),
                        Ok(None) => return Ok(out),
                        Err(e) => return Err(de::Error::custom(format_args!("map[{i}]: {e}"))),
                    }
                }
            }
        }
        d.deserialize_seq(Pairs)
    }

    pub fn serialize<S: Serializer>(map: &[[u64; 2]], s: S) -> Result<S::Ok, S::Error> {
        let pairs: Vec<(Context, u64)> = map
            .iter()
            .map(|&[c, stream]| {
                let context = if c > i64::MAX as u64 {
                    Context::Hex(format!("{c:#x}"))
                } else {
                    Context::Integer(c)
                };
                (context, stream)
            })
            .collect();
        pairs.serialize(s)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WriteHintConfig {}

impl super::LayerKeys for ManualConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below.streams)
    }
}

impl super::LayerKeys for WriteHintConfig {
    fn check_keys(&self, _key: &str, _below: &super::LowerSpace) -> Result<(), ConfigError> {
        Ok(())
    }
}
