//! The import graph between the core's top-level modules, read from its paths: `use crate::…`
//! (grouped, `pub use`, over several lines), fully qualified `crate::x::…` and `$crate::x::…`
//! in code, and `super::…` chains that climb to the crate root. Names that lib.rs re-exports
//! (`crate::Config`) count as an import of the module they come from. Code inside
//! `#[cfg(test)]` items is left out: a unit test may build a whole stack to check its module,
//! and that is not a dependency of the module's own code.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::source::{ident_end, is_ident_start, match_tokens, skip_space, Source};

/// Modules and the edges between them, each with the first place (`path:line`) that makes it.
pub struct Graph {
    pub modules: BTreeSet<String>,
    pub edges: BTreeMap<(String, String), String>,
}

/// An edge that lies on a cycle, with a shortest cycle through it.
pub struct CycleEdge {
    pub from: String,
    pub to: String,
    /// The cycle, one line per edge, starting with this one: `a -> b    path:line`.
    pub cycle: Vec<String>,
}

impl Graph {
    /// Builds the graph of the crate whose root is `lib` from its other files, `sources`
    /// (paths relative to the workspace root; `src_prefix` is the crate's `src/` among them).
    pub fn build(lib: &Source, sources: &[Source], src_prefix: &str) -> Graph {
        let modules = declared_modules(lib);
        let reexports = reexported_names(lib);
        let mut graph = Graph {
            modules,
            edges: BTreeMap::new(),
        };
        for source in sources {
            let relative = source
                .path
                .strip_prefix(src_prefix)
                .unwrap_or_else(|| panic!("{} is not under {src_prefix}", source.path));
            let module_path = module_path(relative);
            let from = module_path[0].clone();
            assert!(
                graph.modules.contains(&from),
                "{}: its top-level module `{from}` is not declared in lib.rs",
                source.path
            );
            for (at, name) in paths_to_root(source, module_path.len()) {
                let to = if graph.modules.contains(&name) {
                    name
                } else if let Some(module) = reexports.get(&name) {
                    module.clone()
                } else {
                    panic!(
                        "{}:{}: `crate::{name}` names neither a module declared in lib.rs nor a \
                         name lib.rs re-exports; teach the structure test (imports.rs) about it",
                        source.path,
                        source.line_of(at)
                    );
                };
                if to != from {
                    let place = format!("{}:{}", source.path, source.line_of(at));
                    graph.edges.entry((from.clone(), to)).or_insert(place);
                }
            }
        }
        graph
    }

    /// Every edge that lies on a cycle, in order, each with a shortest cycle through it.
    pub fn cycle_edges(&self) -> Vec<CycleEdge> {
        let mut out = Vec::new();
        for ((from, to), place) in &self.edges {
            let Some(back) = self.shortest_path(to, from) else {
                continue;
            };
            let mut cycle = vec![format!("{from} -> {to}    {place}")];
            for pair in back.windows(2) {
                let place = &self.edges[&(pair[0].clone(), pair[1].clone())];
                cycle.push(format!("{} -> {}    {place}", pair[0], pair[1]));
            }
            out.push(CycleEdge {
                from: from.clone(),
                to: to.clone(),
                cycle,
            });
        }
        out
    }

    /// A shortest path of modules from `start` to `goal` (both included), breadth first; the
    /// edges are visited in sorted order, so the path is the same on every run.
    fn shortest_path(&self, start: &str, goal: &str) -> Option<Vec<String>> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(module) = queue.pop_front() {
            if module == goal {
                let mut path = vec![goal.to_string()];
                let mut at = goal;
                while at != start {
                    at = came_from[at];
                    path.push(at.to_string());
                }
                path.reverse();
                return Some(path);
            }
            for (from, to) in self.edges.keys() {
                if from == module && to != start && !came_from.contains_key(to.as_str()) {
                    came_from.insert(to, from);
                    queue.push_back(to);
                }
            }
        }
        None
    }
}

/// A file's module path from its path under `src/`: `ftl/victim.rs` is `[ftl, victim]`,
/// `ftl/mod.rs` is `[ftl]`.
fn module_path(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.split('/').map(str::to_string).collect();
    let file = parts.pop().expect("a file name");
    if file != "mod.rs" {
        parts.push(file.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The modules lib.rs declares (`mod x;`, `pub mod x;`), outside tests.
fn declared_modules(lib: &Source) -> BTreeSet<String> {
    let code = &lib.code;
    let mut out = BTreeSet::new();
    for (at, word) in lib.identifiers() {
        if word != "mod" {
            continue;
        }
        let name_at = skip_space(code, at + 3);
        let name_end = ident_end(code, name_at);
        if name_end > name_at {
            out.insert(String::from_utf8_lossy(&code[name_at..name_end]).into_owned());
        }
    }
    out
}

/// Names lib.rs re-exports (`pub use config::Config;`), each mapped to its module.
fn reexported_names(lib: &Source) -> BTreeMap<String, String> {
    let code = &lib.code;
    let mut out = BTreeMap::new();
    for (at, word) in lib.identifiers() {
        if word != "use" {
            continue;
        }
        let mut first = skip_space(code, at + 3);
        for prefix in ["crate", "self"] {
            if let Some(after) = match_tokens(code, first, &[prefix, "::"]) {
                first = skip_space(code, after);
            }
        }
        let module_end = ident_end(code, first);
        let module = String::from_utf8_lossy(&code[first..module_end]).into_owned();
        let end = code[at..]
            .iter()
            .position(|&b| b == b';')
            .map_or(code.len(), |n| at + n);
        // A leaf is the last name before `,`, `}` or `;`, which also catches `x as y`.
        let mut i = module_end;
        while i < end {
            if is_ident_start(code[i]) {
                let name_end = ident_end(code, i);
                let next = skip_space(code, name_end);
                if matches!(code.get(next), Some(b',' | b'}' | b';')) {
                    let name = String::from_utf8_lossy(&code[i..name_end]).into_owned();
                    out.insert(name, module.clone());
                }
                i = name_end;
            } else {
                i += 1;
            }
        }
    }
    out
}

/// The first segments below the crate root of every path in `source` (outside tests) that
/// starts at the root: `crate::x`, `$crate::x`, `crate::{x, y::z}`, or a `super::` chain that
/// climbs from a file at depth `file_depth` to the root. Each comes with its byte offset.
fn paths_to_root(source: &Source, file_depth: usize) -> Vec<(usize, String)> {
    let code = &source.code;
    let inline_modules = inline_module_spans(source);
    let mut out = Vec::new();
    let mut skip_until = 0;
    for (at, word) in source.identifiers() {
        if at < skip_until {
            continue; // a later `super` of a chain already read
        }
        let after = match word {
            "crate" => match_tokens(code, at + 5, &["::"]),
            "super" if !follows_path_separator(code, at) => {
                let mut climbed = 0;
                let mut next = Some(at);
                let mut after = at;
                while let Some(s) = next.and_then(|n| match_tokens(code, n, &["super", "::"])) {
                    climbed += 1;
                    after = s;
                    next = Some(s);
                }
                skip_until = after;
                let depth = file_depth
                    + inline_modules
                        .iter()
                        .filter(|&&(open, close)| open < at && at < close)
                        .count();
                assert!(
                    climbed <= depth,
                    "{}:{}: `super::` climbs above the crate root",
                    source.path,
                    source.line_of(at)
                );
                (climbed == depth).then_some(after)
            }
            _ => None,
        };
        if let Some(after) = after {
            out.extend(first_segments(code, after));
        }
    }
    out
}

/// Whether the identifier at `at` continues a path (`a::super`), looking back over spaces.
fn follows_path_separator(code: &[u8], at: usize) -> bool {
    let before = code[..at].iter().rposition(|b| !b.is_ascii_whitespace());
    before.is_some_and(|i| i >= 1 && &code[i - 1..=i] == b"::")
}

/// The first segment of the path (or of each path in a `{…}` group) that continues at `from`.
fn first_segments(code: &[u8], from: usize) -> Vec<(usize, String)> {
    let start = skip_space(code, from);
    let mut out = Vec::new();
    if code.get(start).is_some_and(|&b| is_ident_start(b)) {
        let end = ident_end(code, start);
        out.push((
            start,
            String::from_utf8_lossy(&code[start..end]).into_owned(),
        ));
        return out;
    }
    if code.get(start) != Some(&b'{') {
        return out; // `crate::*` would import lib.rs's own items; the core has none
    }
    let mut depth = 0usize;
    let mut expecting_name = false;
    let mut i = start;
    while i < code.len() {
        let b = code[i];
        if is_ident_start(b) {
            let end = ident_end(code, i);
            let name = String::from_utf8_lossy(&code[i..end]).into_owned();
            if expecting_name && depth == 1 && name != "self" {
                out.push((i, name));
            }
            expecting_name = false;
            i = end;
            continue;
        }
        match b {
            b'{' => {
                depth += 1;
                expecting_name = depth == 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => expecting_name = true,
            _ => {}
        }
        i += 1;
    }
    out
}

/// Byte spans (`{` to `}`) of inline modules outside tests (`mod name { … }`): each adds a
/// level that a `super::` inside it climbs first.
fn inline_module_spans(source: &Source) -> Vec<(usize, usize)> {
    let code = &source.code;
    let mut out = Vec::new();
    for (at, word) in source.identifiers() {
        if word != "mod" {
            continue;
        }
        let name_at = skip_space(code, at + 3);
        let open = skip_space(code, ident_end(code, name_at));
        if code.get(open) == Some(&b'{') {
            let close = super::source::matching_close(code, open).expect("balanced module");
            out.push((open, close));
        }
    }
    out
}

/// Paths to the crate root in their several spellings, from a file two levels down; paths in
/// comments, strings and tests, and `super::` that stays inside the module, are not imports.
#[test]
fn finds_every_spelling_of_a_path_to_the_root() {
    let text = br#"use crate::{
    config::Config,
    flash::{geometry, Block},
};
pub use crate::metrics::Counter;
use super::sibling::Thing;
use super::super::ftl_level::Thing;
use super::super::super::request::Op;
// use crate::commented::Out;
fn f() -> u8 {
    let s = "crate::quoted::Out";
    crate::hash::mix(::std::u8::MAX) + $crate::rng::one()
}
pub(crate) fn g() {}
#[cfg(test)]
mod tests {
    use crate::workload::Generator;
}
"#;
    let source = Source::parse("crates/ftlsim/src/ftl/x/y.rs", text);
    let names: Vec<String> = paths_to_root(&source, 3)
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(
        names,
        ["config", "flash", "metrics", "request", "hash", "rng"],
        "first segments below the root"
    );
}

/// A cycle's every edge is reported, with the cycle through it; an edge off every cycle is not.
#[test]
fn reports_the_edges_of_a_cycle() {
    let place = |n: u32| format!("f.rs:{n}");
    let graph = Graph {
        modules: ["a", "b", "c", "d"].map(String::from).into(),
        edges: BTreeMap::from([
            (("a".into(), "b".into()), place(1)),
            (("b".into(), "c".into()), place(2)),
            (("c".into(), "a".into()), place(3)),
            (("c".into(), "d".into()), place(4)),
        ]),
    };
    let edges = graph.cycle_edges();
    let keys: Vec<(&str, &str)> = edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    assert_eq!(keys, [("a", "b"), ("b", "c"), ("c", "a")]);
    assert_eq!(
        edges[1].cycle,
        ["b -> c    f.rs:2", "c -> a    f.rs:3", "a -> b    f.rs:1"]
    );
}
