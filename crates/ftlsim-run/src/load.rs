//! Loading a run config: a TOML file, then `--set key=value` overrides, then
//! serde (with the path of any bad key) and the core's own validation.

use std::path::Path;

use ftlsim::Config;

use crate::error::{Context, Result, RunError};

/// Parses `value` as a TOML value (number, bool, array, quoted string), or
/// failing that as a bare string, so `--set ftl.gc_policy=fifo` works unquoted.
fn parse_value(value: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(value.to_string())),
        Err(_) => toml::Value::String(value.to_string()),
    }
}

/// Applies one `key.path=value` override to the table.
pub fn apply_set(table: &mut toml::Table, assignment: &str) -> Result<()> {
    let (key, value) = assignment.split_once('=').ok_or_else(|| {
        RunError::Input(format!(
            "--set `{assignment}`: expected KEY=VALUE, e.g. device.blocks=1024"
        ))
    })?;
    let key = key.trim();
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(RunError::Input(format!(
            "--set `{assignment}`: `{key}` is not a dotted key like device.blocks"
        )));
    }
    let mut cursor = table;
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        let not_section = || {
            RunError::Input(format!(
                "--set `{assignment}`: `{}` is a value, not a section",
                parts[..=i].join(".")
            ))
        };
        // `name[i]` is element i of an array of tables (`host.layers[0]`);
        // i = its length appends a new table.
        if let Some((name, index)) = array_index(part) {
            let index = index.ok_or_else(|| {
                RunError::Input(format!(
                    "--set `{assignment}`: `{part}` needs a number in brackets, like layers[0]"
                ))
            })?;
            let array = cursor
                .entry(name.to_string())
                .or_insert_with(|| toml::Value::Array(Vec::new()))
                .as_array_mut()
                .ok_or_else(not_section)?;
            if index == array.len() {
                array.push(toml::Value::Table(toml::Table::new()));
            }
            let len = array.len();
            let element = array.get_mut(index).ok_or_else(|| {
                RunError::Input(format!(
                    "--set `{assignment}`: `{name}` has {len} entries, so [{index}] is past its end (at most [{len}], which appends)"
                ))
            })?;
            cursor = element.as_table_mut().ok_or_else(not_section)?;
            continue;
        }
        let entry = cursor
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cursor = entry.as_table_mut().ok_or_else(not_section)?;
    }
    let leaf = parts[parts.len() - 1];
    // The measured window is counted in pages or in requests, never both:
    // setting one replaces the other instead of failing validation.
    if parts.len() == 2 && parts[0] == "workload" {
        match leaf {
            "requests" => {
                cursor.remove("writes");
            }
            "writes" => {
                cursor.remove("requests");
            }
            _ => {}
        }
    }
    cursor.insert(leaf.to_string(), parse_value(value.trim()));
    Ok(())
}

/// `name[i]` → `(name, Some(i))`; `name[x]` → `(name, None)`; else `None`.
fn array_index(part: &str) -> Option<(&str, Option<usize>)> {
    let (name, rest) = part.split_once('[')?;
    let index = rest.strip_suffix(']')?;
    Some((name, index.parse().ok()))
}

/// Turns a TOML table into a validated config; errors name the key.
pub fn config_from_table(table: toml::Table, origin: &str) -> Result<Config> {
    let config: Config = deserialize_named(toml::Value::Table(table), origin, "config key")?;
    config.validate().map_err(|error| RunError::Config {
        origin: origin.to_string(),
        error,
    })?;
    Ok(config)
}

/// Deserializes a TOML value; an error is one line naming `origin` and the
/// key path (`{what} `a.b[0].c``).
pub fn deserialize_named<T: serde::de::DeserializeOwned>(
    value: toml::Value,
    origin: &str,
    what: &str,
) -> Result<T> {
    // Kept to name the key inside an internally tagged table (see `refine_path`).
    let root = value.clone();
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        // The message alone: toml's Display adds a second line naming the
        // key, which `path` already does.
        let inner = e
            .into_inner()
            .to_string()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("in `"))
            .collect::<Vec<_>>()
            .join("; ");
        let path = refine_path(&root, &path, &inner);
        RunError::Input(if path == "." || path.is_empty() {
            format!("{origin}: {inner}")
        } else {
            format!("{origin}: {what} `{path}`: {inner}")
        })
    })
}

/// serde reads a table tagged by `type` (a host layer) through a buffer, so
/// its errors name the table (`host.layers[0]`), not the key. Name the key
/// from the message: an unknown field is that field; an unknown variant is
/// the key in the table whose string value it is (`algorithm`, `type`).
fn refine_path(root: &toml::Value, path: &str, inner: &str) -> String {
    let quoted = |prefix: &str| {
        inner
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_string)
    };
    let Some(toml::Value::Table(table)) = value_at(root, path) else {
        return path.to_string();
    };
    let key = if let Some(field) = quoted("unknown field `") {
        table.contains_key(&field).then_some(field)
    } else if let Some(variant) = quoted("unknown variant `") {
        let mut hits = table
            .iter()
            .filter(|(_, v)| v.as_str() == Some(variant.as_str()));
        match (hits.next(), hits.next()) {
            (Some((k, _)), None) => Some(k.clone()),
            _ => None,
        }
    } else if let Some(found) = unexpected_value(inner) {
        // A value of the wrong type or out of range: the one key holding it.
        let mut hits = table.iter().filter(|(_, v)| same_value(v, &found));
        match (hits.next(), hits.next()) {
            (Some((k, _)), None) => Some(k.clone()),
            _ => None,
        }
    } else {
        None
    };
    match key {
        Some(k) if path.is_empty() || path == "." => k,
        Some(k) => format!("{path}.{k}"),
        None => path.to_string(),
    }
}

/// The value serde's "invalid type" or "invalid value" message quotes
/// (`string "6"`, `integer `6``, `floating point `6.5``, `boolean `true``),
/// as a TOML value; `None` for any other message or kind.
fn unexpected_value(inner: &str) -> Option<toml::Value> {
    let rest = inner
        .strip_prefix("invalid type: ")
        .or_else(|| inner.strip_prefix("invalid value: "))?;
    let ticked = |prefix: &str| rest.strip_prefix(prefix)?.split('`').next();
    if let Some(s) = rest.strip_prefix("string \"") {
        // The string runs to its closing quote before ", expected".
        let end = s.rfind("\", expected").or_else(|| s.rfind('"'))?;
        return Some(toml::Value::String(s[..end].to_string()));
    }
    if let Some(i) = ticked("integer `") {
        return i.parse().ok().map(toml::Value::Integer);
    }
    if let Some(f) = ticked("floating point `") {
        return f.parse().ok().map(toml::Value::Float);
    }
    ticked("boolean `")?.parse().ok().map(toml::Value::Boolean)
}

/// Whether a table's value is the one an error message quoted.
fn same_value(v: &toml::Value, quoted: &toml::Value) -> bool {
    match (v, quoted) {
        // serde prints a float by Display; `6.0` reads back as 6.0.
        (toml::Value::Float(a), toml::Value::Float(b)) => a == b,
        _ => v == quoted,
    }
}

/// The value at a serde_path_to_error path (`a.b[0].c`).
fn value_at<'a>(root: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    let mut at = root;
    if path.is_empty() || path == "." {
        return Some(at);
    }
    for part in path.split('.') {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            at = at.as_table()?.get(name)?;
        }
        for index in indices.split('[').filter(|s| !s.is_empty()) {
            let i: usize = index.strip_suffix(']')?.parse().ok()?;
            at = at.as_array()?.get(i)?;
        }
    }
    Some(at)
}

/// Parses TOML text; a syntax error is one line: `origin:LINE: message`.
pub fn parse_toml(text: &str, origin: &str) -> Result<toml::Table> {
    toml::from_str(text).map_err(|e| {
        let place = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(":{line}")
            })
            .unwrap_or_default();
        RunError::Input(format!(
            "{origin}{place}: {}",
            e.message().trim().replace('\n', "; ")
        ))
    })
}

/// Reads the TOML file (when given) and applies the overrides.
pub fn load_config(path: Option<&Path>, sets: &[String]) -> Result<Config> {
    let (mut table, origin) = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read config {}", p.display()))?;
            let table = parse_toml(&text, &p.display().to_string())?;
            (table, p.display().to_string())
        }
        None => (toml::Table::new(), "built-in defaults".to_string()),
    };
    for s in sets {
        apply_set(&mut table, s)?;
    }
    let origin = if sets.is_empty() {
        origin
    } else {
        format!("{origin} with --set")
    };
    config_from_table(table, &origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(toml_text: &str, sets: &[&str]) -> Result<Config> {
        let mut table: toml::Table = toml::from_str(toml_text).unwrap();
        for s in sets {
            apply_set(&mut table, s)?;
        }
        config_from_table(table, "test.toml")
    }

    #[test]
    fn set_overrides_file_and_parses_types() {
        let c = load(
            "[device]\nblocks = 128\n",
            &[
                "device.blocks=256",
                "ftl.gc_policy=fifo",
                "workload.writes=3x",
            ],
        )
        .unwrap();
        assert_eq!(c.device.blocks, 256);
        assert_eq!(c.ftl.gc_policy, ftlsim::config::GcPolicyName::Fifo);
        assert_eq!(
            c.workload.writes,
            Some(ftlsim::config::Amount::Capacity(3.0))
        );
    }

    #[test]
    fn errors_name_the_key() {
        let e = load("[device]\nblokcs = 1\n", &[]).unwrap_err().to_string();
        assert!(e.contains("blokcs"), "{e}");
        let e = load("[device]\nblocks = \"many\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.blocks"), "{e}");
        let e = load("", &["device.spare_factor=1.5"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("device.spare_factor") && e.contains("(0, 1)"),
            "{e}"
        );
        let e = load("", &["workload.writes=lots"]).unwrap_err().to_string();
        assert!(e.contains("workload.writes"), "{e}");
        let e = load("", &["nokey"]).unwrap_err().to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
    }

    #[test]
    fn a_tagged_tables_wrong_value_names_its_key() {
        let scheme = "[ftl.placement_scheme]\ntype = \"dac\"\n";
        for (value, key) in [
            ("classes = \"6\"", "`ftl.placement_scheme.classes`"),
            ("classes = 6.5", "`ftl.placement_scheme.classes`"),
            ("classes = true", "`ftl.placement_scheme.classes`"),
            ("classes = -1", "`ftl.placement_scheme.classes`"),
        ] {
            let e = load(&format!("{scheme}{value}\n"), &[])
                .unwrap_err()
                .to_string();
            assert!(e.contains(key) && !e.contains('\n'), "{value}: {e}");
        }
        let tworr = "[ftl.placement_scheme]\ntype = \"tworr\"\nvictim = 1\n";
        let e = load(tworr, &[]).unwrap_err().to_string();
        assert!(e.contains("`ftl.placement_scheme.victim`"), "{e}");
        // Two keys holding the quoted value: the table is named, not a guess.
        let two = "[ftl.placement_scheme]\ntype = \"sfr\"\nclasses = \"x\"\nchunk_pages = \"x\"\n";
        let e = load(two, &[]).unwrap_err().to_string();
        assert!(e.contains("`ftl.placement_scheme`:"), "{e}");
    }
}
