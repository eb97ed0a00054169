//! Sections are TOML tables, never arrays.
//!
//! serde's derived `Deserialize` for a struct also accepts a sequence, its
//! fields by position, so `device = [4096, 16, …]` would silently fill
//! `page_bytes`, `pages_per_block`, … in declaration order; and
//! `deny_unknown_fields` cannot see it, since a sequence has no keys. These
//! helpers (`#[serde(deserialize_with = "…")]` on every field that holds a
//! section) ask the deserializer for a map, so an array is refused with
//! "invalid type: sequence, expected a table" naming the key.

use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

struct TableVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for TableVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a table")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
    }
}

/// A section that must be a table.
pub(crate) fn table<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(TableVisitor(PhantomData))
}

/// An optional section (present turns a feature on) that must be a table.
pub(crate) fn optional_table<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    table(d).map(Some)
}

/// An array of tables (`[[host.layers]]`): each element must be a table.
pub(crate) fn tables<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    struct Element<T>(T);
    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Element<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            table(d).map(Element)
        }
    }
    let elements: Vec<Element<T>> = Vec::deserialize(d)?;
    Ok(elements.into_iter().map(|e| e.0).collect())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn parse(text: &str) -> Result<Config, String> {
        serde_json::from_str::<Config>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_section_given_as_an_array_is_refused() {
        for text in [
            r#"{"device": [4096, 16, 64]}"#,
            r#"{"ftl": ["greedy"]}"#,
            r#"{"timing": [1.0]}"#,
            r#"{"workload": {"trace": ["x"]}}"#,
            r#"{"host": {"layers": [["lba-streams"]]}}"#,
        ] {
            let e = parse(text).expect_err(text);
            assert!(e.contains("expected a table"), "{text}: {e}");
        }
        let c = parse(r#"{"device": {"blocks": 64}, "timing": {"queue_depth": 4}}"#).unwrap();
        assert_eq!(c.device.blocks, 64);
        assert_eq!(c.timing.map(|t| t.queue_depth), Some(4));
    }
}
