//! The house rules, checked from the source text (docs/ARCHITECTURE.md, issue 26):
//!
//! * no import cycle between the core's top-level modules (those lib.rs declares);
//! * no core file over 800 lines outside its `#[cfg(test)]` items, no core function over 150
//!   lines (from `fn` to its closing brace);
//! * library crates print nothing (`println!`, `eprintln!`, `print!`, `eprint!`, `dbg!` outside
//!   tests: a library returns what happened, its caller decides what to say) and do not list
//!   `anyhow` in `[dependencies]` (libraries return error enums).
//!
//! Today's code breaks some of these rules. Each break is listed below as a known debt with its
//! reason, exactly: a break that is not listed fails its test (a new debt), and so does a listed
//! debt that no longer exists, so the lists only shrink, and whoever pays a debt deletes its
//! line in the same change. A cycle is listed as its edges (`a -> b`, a module of the core whose
//! code names module b), so that removing one edge is seen.

mod imports;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use imports::Graph;
use source::{rust_files, Source};

/// Longest core file, in lines outside its `#[cfg(test)]` items.
const FILE_LINES_MAX: usize = 800;
/// Longest function anywhere in the core outside tests, in lines from `fn` to `}`.
const FUNCTION_LINES_MAX: usize = 150;
/// The library crates: they neither print nor use anyhow.
const LIBRARY_CRATES: [&str; 4] = [
    "crates/ftlsim",
    "crates/ftlsim-trace",
    "crates/ftlsim-run",
    "crates/ftlsim-live",
];
/// Where the lists below live, for the messages.
const THIS_FILE: &str = "crates/ftlsim/tests/structure/mod.rs";

/// Known import edges on a cycle between the core's top-level modules: `from -> to`.
const CYCLE_DEBTS: &[(&str, &str)] = &[];

/// Known core files over `FILE_LINES_MAX` lines outside tests, by path.
const LONG_FILE_DEBTS: &[(&str, &str)] = &[];

/// Known core functions over `FUNCTION_LINES_MAX` lines: `path: fn name`.
const LONG_FUNCTION_DEBTS: &[(&str, &str)] = &[];

/// Known prints in library crates outside tests, one line per print, by path.
const PRINT_DEBTS: &[(&str, &str)] = &[];

/// Known library crates with `anyhow` in `[dependencies]`, by crate directory.
const ANYHOW_DEBTS: &[(&str, &str)] = &[];

#[test]
fn no_import_cycle_between_core_modules() {
    let core = Core::load();
    let graph = Graph::build(&core.lib, &core.modules, "crates/ftlsim/src/");
    let found = graph
        .cycle_edges()
        .into_iter()
        .map(|edge| Finding {
            key: format!("{} -> {}", edge.from, edge.to),
            detail: format!(
                "the cycle it lies on:\n      {}",
                edge.cycle.join("\n      ")
            ),
        })
        .collect();
    check("import cycle", "CYCLE_DEBTS", found, CYCLE_DEBTS);
}

#[test]
fn no_core_file_over_800_lines() {
    let core = Core::load();
    let found = core
        .modules
        .iter()
        .chain([&core.lib])
        .filter(|source| source.lines_outside_tests() > FILE_LINES_MAX)
        .map(|source| Finding {
            key: source.path.clone(),
            detail: format!(
                "{} lines outside tests, at most {FILE_LINES_MAX}",
                source.lines_outside_tests()
            ),
        })
        .collect();
    check(
        "core file over 800 lines",
        "LONG_FILE_DEBTS",
        found,
        LONG_FILE_DEBTS,
    );
}

#[test]
fn no_core_function_over_150_lines() {
    let core = Core::load();
    let mut found = Vec::new();
    for source in core.modules.iter().chain([&core.lib]) {
        for function in source.functions() {
            if function.lines() > FUNCTION_LINES_MAX {
                found.push(Finding {
                    key: format!("{}: fn {}", source.path, function.name),
                    detail: format!(
                        "{} lines ({}:{} to {}), at most {FUNCTION_LINES_MAX}",
                        function.lines(),
                        source.path,
                        function.first_line,
                        function.last_line
                    ),
                });
            }
        }
    }
    check(
        "core function over 150 lines",
        "LONG_FUNCTION_DEBTS",
        found,
        LONG_FUNCTION_DEBTS,
    );
}

#[test]
fn library_crates_do_not_print() {
    const PRINTS: [&str; 5] = ["println", "eprintln", "print", "eprint", "dbg"];
    let mut found = Vec::new();
    for krate in LIBRARY_CRATES {
        for source in load_crate(krate) {
            for (at, word) in source.identifiers() {
                let bang = source::skip_space(&source.code, at + word.len());
                if PRINTS.contains(&word) && source.code.get(bang) == Some(&b'!') {
                    found.push(Finding {
                        key: source.path.clone(),
                        detail: format!("{}:{}: {word}!", source.path, source.line_of(at)),
                    });
                }
            }
        }
    }
    check("print in a library", "PRINT_DEBTS", found, PRINT_DEBTS);
}

#[test]
fn library_crates_do_not_depend_on_anyhow() {
    let mut found = Vec::new();
    for krate in LIBRARY_CRATES {
        let manifest = workspace_root().join(krate).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        if let Some(line) = dependency_line(&text, "anyhow") {
            found.push(Finding {
                key: krate.to_string(),
                detail: format!("{krate}/Cargo.toml:{line}: anyhow in [dependencies]"),
            });
        }
    }
    check("anyhow in a library", "ANYHOW_DEBTS", found, ANYHOW_DEBTS);
}

/// The line (1-based) naming `dependency` in a manifest's `[dependencies]` (or a target's
/// `[target.….dependencies]`, or a `[dependencies.name]` table); dev- and build-dependencies
/// do not count.
fn dependency_line(manifest: &str, dependency: &str) -> Option<usize> {
    let mut in_dependencies = false;
    for (n, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').trim();
            if header == format!("dependencies.{dependency}") {
                return Some(n + 1);
            }
            in_dependencies = header == "dependencies" || header.ends_with(".dependencies");
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or("").trim();
        if in_dependencies && key.trim_matches('"') == dependency {
            return Some(n + 1);
        }
    }
    None
}

/// One break of a rule: the key its debt is listed under, and where and what it is.
struct Finding {
    key: String,
    detail: String,
}

/// Compares what a check found with its list of known debts (a multiset of keys: a key listed
/// twice tolerates two findings) and fails with every difference.
fn check(rule: &str, list: &str, found: Vec<Finding>, debts: &[(&str, &str)]) {
    let mut listed: BTreeMap<&str, usize> = BTreeMap::new();
    for (key, reason) in debts {
        assert!(!reason.trim().is_empty(), "{list}: `{key}` needs a reason");
        *listed.entry(key).or_default() += 1;
    }
    let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for finding in &found {
        by_key
            .entry(&finding.key)
            .or_default()
            .push(&finding.detail);
    }
    let keys: BTreeSet<&str> = listed.keys().chain(by_key.keys()).copied().collect();
    let mut problems = Vec::new();
    for key in keys {
        let listed_n = listed.get(key).copied().unwrap_or(0);
        let details = by_key.get(key).map_or(&[][..], Vec::as_slice);
        if details.len() > listed_n {
            problems.push(format!(
                "NEW {rule}: `{key}` (found {}, listed as known debt {listed_n}):\n    {}\n  \
                 Fix it rather than list it: {list} in {THIS_FILE} only shrinks.",
                details.len(),
                details.join("\n    ")
            ));
        } else if details.len() < listed_n {
            problems.push(format!(
                "FIXED {rule}: `{key}` is listed {listed_n} time(s) in {list} but found {} \
                 time(s). Well done: now delete {} of its line(s) from {list} in {THIS_FILE}, \
                 so that the list only shrinks.",
                details.len(),
                listed_n - details.len()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) with the rule (no {rule}):\n\n{}\n",
        problems.len(),
        problems.join("\n\n")
    );
}

/// The core crate's sources: lib.rs apart, then every other non-test file under `src/`.
struct Core {
    lib: Source,
    modules: Vec<Source>,
}

impl Core {
    fn load() -> Core {
        let mut sources = load_crate("crates/ftlsim");
        let lib_at = sources
            .iter()
            .position(|s| s.path == "crates/ftlsim/src/lib.rs")
            .expect("crates/ftlsim/src/lib.rs");
        let lib = sources.remove(lib_at);
        Core {
            lib,
            modules: sources,
        }
    }
}

/// The sources of a crate's `src/`, without the files that only tests compile
/// (`#[cfg(test)] mod name;`).
fn load_crate(krate: &str) -> Vec<Source> {
    let root = workspace_root();
    let sources: Vec<Source> = rust_files(&root.join(krate).join("src"))
        .iter()
        .map(|path| Source::read(&root, path))
        .collect();
    let test_only: Vec<String> = sources.iter().flat_map(test_only_prefixes).collect();
    sources
        .into_iter()
        .filter(|s| !test_only.iter().any(|prefix| s.path.starts_with(prefix)))
        .collect()
}

/// Path prefixes of the files a source declares as test-only modules: `dir/name.rs` and
/// everything under `dir/name/`.
fn test_only_prefixes(source: &Source) -> Vec<String> {
    let path = Path::new(&source.path);
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    let parent = path.parent().unwrap_or(Path::new(""));
    let dir: PathBuf = if matches!(file, "mod.rs" | "lib.rs" | "main.rs") {
        parent.to_path_buf()
    } else {
        parent.join(file.trim_end_matches(".rs"))
    };
    let dir = dir.to_string_lossy().replace('\\', "/");
    source
        .test_module_files
        .iter()
        .flat_map(|name| [format!("{dir}/{name}.rs"), format!("{dir}/{name}/")])
        .collect()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root")
}

/// The lists only shrink: a finding not listed fails, and so does a listed debt that is gone.
#[test]
fn check_fails_on_a_new_debt_and_on_a_paid_one() {
    let finding = |key: &str| Finding {
        key: key.to_string(),
        detail: format!("{key}:1"),
    };
    let fails = |found: Vec<Finding>, debts: &[(&str, &str)]| {
        std::panic::catch_unwind(|| check("example", "EXAMPLE_DEBTS", found, debts)).is_err()
    };
    let debts = [("x", "known"), ("x", "known"), ("y", "known")];
    assert!(!fails(
        vec![finding("x"), finding("x"), finding("y")],
        &debts
    ));
    assert!(fails(
        vec![finding("x"), finding("x"), finding("y"), finding("z")],
        &debts
    ));
    assert!(
        fails(vec![finding("x"), finding("y")], &debts),
        "a debt paid"
    );
    assert!(
        fails(vec![finding("x"), finding("x")], &debts),
        "a debt paid"
    );
}
