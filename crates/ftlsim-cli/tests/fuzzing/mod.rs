//! The fuzz harness behind `tests/fuzz.rs`: a case is the `ftlsim` command
//! line plus the input files it reads; cases are generated from a seed
//! (`generate`), run through the real binary with a wall-clock budget and
//! resource limits (`exec`), judged by one oracle (`oracle`), shrunk when
//! they fail (`reduce`) and kept as regression files (`regressions`).
//! docs/fuzzing.md is the user's guide.

#![allow(dead_code)]

pub mod config;
pub mod exec;
pub mod generate;
pub mod oracle;
pub mod reduce;
pub mod regressions;
pub mod traces;
pub mod values;

/// One argument group of the command line: a flag with its value, or a
/// positional word. Groups marked removable may be dropped while reducing.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub words: Vec<String>,
    pub removable: bool,
    /// Why the binary must refuse this argument (exit 2), if it must.
    pub reject: Option<String>,
}

impl Arg {
    pub fn fixed(words: &[&str]) -> Arg {
        Arg {
            words: words.iter().map(|w| w.to_string()).collect(),
            removable: false,
            reject: None,
        }
    }

    /// A removable `--flag value`, written `--flag=value` when the value
    /// starts with `-` (else clap takes it for a flag).
    pub fn flag(name: &str, value: &str) -> Arg {
        if value.starts_with('-') {
            Arg::optional(&[&format!("{name}={value}")])
        } else {
            Arg::optional(&[name, value])
        }
    }

    pub fn optional(words: &[&str]) -> Arg {
        Arg {
            removable: true,
            ..Arg::fixed(words)
        }
    }
}

/// The text of a small TOML document, kept as entries so that reduction can
/// drop them one at a time. Values are raw TOML text (possibly invalid on
/// purpose).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TomlDoc {
    /// Assignments before the first header (a section given as a value).
    pub top: Vec<Entry>,
    pub sections: Vec<Section>,
    /// Appended as is: deliberately broken syntax.
    pub tail: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub value: String,
    /// Why a correct binary must refuse this entry, if it must.
    pub reject: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// `device`, `workload.trace`, `host.layers` ...
    pub name: String,
    /// `[[name]]` rather than `[name]`.
    pub array: bool,
    pub entries: Vec<Entry>,
}

impl TomlDoc {
    /// Parses the simple TOML of templates and example files: headers and
    /// one-line `key = value` assignments; `#` comments outside strings.
    pub fn parse(text: &str) -> TomlDoc {
        let mut doc = TomlDoc::default();
        for raw in text.lines() {
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
                doc.sections.push(Section {
                    name: name.trim().to_string(),
                    array: true,
                    entries: Vec::new(),
                });
            } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                doc.sections.push(Section {
                    name: name.trim().to_string(),
                    array: false,
                    entries: Vec::new(),
                });
            } else if let Some((k, v)) = line.split_once('=') {
                let entry = Entry {
                    key: k.trim().to_string(),
                    value: v.trim().to_string(),
                    reject: None,
                };
                match doc.sections.last_mut() {
                    Some(s) => s.entries.push(entry),
                    None => doc.top.push(entry),
                }
            }
        }
        doc
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for e in &self.top {
            out.push_str(&format!("{} = {}\n", e.key, e.value));
        }
        for s in &self.sections {
            if s.array {
                out.push_str(&format!("\n[[{}]]\n", s.name));
            } else {
                out.push_str(&format!("\n[{}]\n", s.name));
            }
            for e in &s.entries {
                out.push_str(&format!("{} = {}\n", e.key, e.value));
            }
        }
        if let Some(t) = &self.tail {
            out.push_str(t);
        }
        out
    }

    /// The first (non-array) section called `name`.
    pub fn section_mut(&mut self, name: &str) -> Option<&mut Section> {
        self.sections
            .iter_mut()
            .find(|s| s.name == name && !s.array)
    }

    pub fn has_section(&self, name: &str) -> bool {
        self.sections.iter().any(|s| s.name == name)
    }

    /// Sets `key` in section `section` (created if absent), replacing any
    /// earlier value.
    pub fn set(&mut self, section: &str, key: &str, value: &str, reject: Option<String>) {
        if self.section_mut(section).is_none() {
            self.sections.push(Section {
                name: section.to_string(),
                array: false,
                entries: Vec::new(),
            });
        }
        let s = self.section_mut(section).expect("just added");
        s.entries.retain(|e| e.key != key);
        s.entries.push(Entry {
            key: key.to_string(),
            value: value.to_string(),
            reject,
        });
    }

    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections
            .iter()
            .filter(|s| s.name == section)
            .flat_map(|s| s.entries.iter())
            .find(|e| e.key == key)
            .map(|e| e.value.as_str())
    }

    pub fn rejects(&self) -> Vec<String> {
        self.top
            .iter()
            .chain(self.sections.iter().flat_map(|s| s.entries.iter()))
            .filter_map(|e| e.reject.clone())
            .collect()
    }
}

fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '#' if !in_str => return &line[..i],
            _ => {}
        }
    }
    line
}

/// What an input file holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Toml(TomlDoc),
    Bytes(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileSpec {
    /// A plain file name in the case's directory.
    pub name: String,
    pub body: Body,
}

impl FileSpec {
    pub fn bytes(&self) -> Vec<u8> {
        match &self.body {
            Body::Toml(doc) => doc.render().into_bytes(),
            Body::Bytes(b) => b.clone(),
        }
    }
}

/// One fuzz case: `ftlsim ARGS` run in a fresh directory holding `files`.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The subcommand words (`run`, `trace stats`...), for the report.
    pub command: String,
    pub args: Vec<Arg>,
    pub files: Vec<FileSpec>,
    /// Flags that the command accepts (for the error oracle).
    pub flags: Vec<String>,
}

impl Case {
    pub fn argv(&self) -> Vec<String> {
        self.args.iter().flat_map(|a| a.words.clone()).collect()
    }

    /// Why a correct binary must refuse this case, if it must.
    pub fn rejects(&self) -> Vec<String> {
        let mut out: Vec<String> = self.args.iter().filter_map(|a| a.reject.clone()).collect();
        for f in &self.files {
            if let Body::Toml(doc) = &f.body {
                out.extend(doc.rejects());
            }
        }
        out
    }

    /// Every byte of input, to tell keys the case itself wrote from keys an
    /// error message invents.
    pub fn input_text(&self) -> String {
        let mut s = self.argv().join(" ");
        for f in &self.files {
            s.push('\n');
            s.push_str(&String::from_utf8_lossy(&f.bytes()));
        }
        s
    }
}

/// The workspace root (tests run in the package directory).
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
