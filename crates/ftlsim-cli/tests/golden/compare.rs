//! Comparing a case's outputs with the recorded ones, and saying where they
//! first differ in words a reader can act on: the JSON key path, or the line
//! (and CSV column).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Removes `keys` from every object of a JSON output (at any depth) and
/// writes it back compactly; any other output, or an empty `keys`, is
/// returned as it is.
pub fn normalise(bytes: Vec<u8>, keys: &[&str]) -> Vec<u8> {
    if keys.is_empty() {
        return bytes;
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    remove_keys(&mut value, keys);
    let mut out = serde_json::to_vec(&value).expect("a JSON value serialises");
    if bytes.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

fn remove_keys(value: &mut Value, keys: &[&str]) {
    match value {
        Value::Object(map) => {
            for key in keys {
                map.remove(*key);
            }
            map.values_mut().for_each(|v| remove_keys(v, keys));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| remove_keys(v, keys)),
        _ => {}
    }
}

/// `None` when `stored` and `now` are the same files with the same bytes;
/// else where they first differ.
pub fn first_difference(stored: &[(String, Vec<u8>)], now: &[(String, Vec<u8>)]) -> Option<String> {
    let names = |outputs: &[(String, Vec<u8>)]| -> Vec<String> {
        outputs.iter().map(|(n, _)| n.clone()).collect()
    };
    if names(stored) != names(now) {
        return Some(format!(
            "recorded files {:?}, now {:?}",
            names(stored),
            names(now)
        ));
    }
    stored
        .iter()
        .zip(now)
        .find(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| format!("{name}: {}", describe(name, a, b)))
}

/// Where two different outputs first differ.
fn describe(name: &str, stored: &[u8], now: &[u8]) -> String {
    if let (Ok(a), Ok(b)) = (
        serde_json::from_slice::<Value>(stored),
        serde_json::from_slice::<Value>(now),
    ) {
        if let Some(diff) = json_difference(&a, &b, String::new()) {
            return diff;
        }
        // Same values, different bytes: key order, spacing or a number's
        // spelling changed, which the contract forbids too.
    }
    let (a, b) = (
        String::from_utf8_lossy(stored),
        String::from_utf8_lossy(now),
    );
    let (mut a_lines, mut b_lines) = (a.lines(), b.lines());
    let header = a.lines().next().unwrap_or("");
    for line in 1.. {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => break,
            (x, y) => {
                let column = if name.ends_with(".csv") {
                    csv_column(header, x.unwrap_or(""), y.unwrap_or(""))
                } else {
                    String::new()
                };
                let (x, y) = (x.unwrap_or("<end of file>"), y.unwrap_or("<end of file>"));
                let at = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
                return format!(
                    "line {line}{column}, character {}: recorded `{}`, now `{}`",
                    at + 1,
                    around(x, at),
                    around(y, at)
                );
            }
        }
    }
    let at = stored.iter().zip(now).take_while(|(x, y)| x == y).count();
    format!(
        "byte {at} (line ends or a final newline): recorded {} bytes, now {}",
        stored.len(),
        now.len()
    )
}

/// The first path (in the recorded document's order) whose value differs.
fn json_difference(stored: &Value, now: &Value, path: String) -> Option<String> {
    match (stored, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, x) in a {
                let here = format!("{path}/{key}");
                match b.get(key) {
                    Some(y) => {
                        if let Some(d) = json_difference(x, y, here) {
                            return Some(d);
                        }
                    }
                    None => {
                        return Some(format!(
                            "key {here}: recorded {}, now missing",
                            clip(&x.to_string())
                        ))
                    }
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("key {path}/{k}: new, {}", clip(&b[k].to_string())))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                if let Some(d) = json_difference(x, y, format!("{path}/{i}")) {
                    return Some(d);
                }
            }
            (a.len() != b.len())
                .then(|| format!("key {path}: recorded {} items, now {}", a.len(), b.len()))
        }
        (a, b) if a != b => Some(format!(
            "key {}: recorded {}, now {}",
            if path.is_empty() { "/" } else { &path },
            clip(&a.to_string()),
            clip(&b.to_string())
        )),
        _ => None,
    }
}

/// ` (column NAME)` of the first field that differs between two CSV lines.
fn csv_column(header: &str, a: &str, b: &str) -> String {
    let names: Vec<&str> = header.split(',').collect();
    a.split(',')
        .zip(b.split(','))
        .position(|(x, y)| x != y)
        .and_then(|i| names.get(i))
        .map(|n| format!(" (column {n})"))
        .unwrap_or_default()
}

/// `s` from a little before its character `at`, so that a difference deep
/// in a long line (a one-line JSON) shows.
fn around(s: &str, at: usize) -> String {
    const BEFORE_CHARS: usize = 60;
    let skip = at.saturating_sub(BEFORE_CHARS);
    let tail: String = s.chars().skip(skip).collect();
    if skip == 0 {
        clip(&tail)
    } else {
        format!("…{}", clip(&tail))
    }
}

fn clip(s: &str) -> String {
    const MAX_CHARS: usize = 160;
    if s.chars().count() <= MAX_CHARS {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX_CHARS).collect::<String>())
    }
}

/// The recorded file for `path`: `path` itself, or `path.gz` decompressed.
pub fn read_stored(path: &Path) -> std::io::Result<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(gz(path))?).read_to_end(&mut bytes)?;
            Ok(bytes)
        }
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path`, gzipped when `path` ends in `.gz`.
pub fn write_stored(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(path)?,
            flate2::Compression::best(),
        );
        enc.write_all(bytes)?;
        enc.finish()?;
        Ok(())
    } else {
        std::fs::write(path, bytes)
    }
}

fn gz(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("a file name").to_os_string();
    name.push(".gz");
    path.with_file_name(name)
}
