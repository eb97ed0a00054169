//! The committed trace corpus (traces/real, docs/real-workloads.md):
//! `reproduce pcstream-real` replays every capture from the repository
//! alone, and a corpus trace that is missing, truncated or does not match
//! its provenance record is a one-line error naming it (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{ftlsim, temp_dir};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one `ftlsim: ...` error line of a failed run, checked to be one line
/// with exit status 2.
fn error_line(out: &Output) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(lines.len(), 1, "one error line: {err}");
    lines[0].to_string()
}

#[test]
fn pcstream_real_replays_every_committed_capture() {
    // From the repository root, as after a fresh clone: no --traces.
    let json = reproduce_json("pcstream-real", &[]);
    let spec = ftlsim_run::reproduce::load("pcstream-real").unwrap().spec;
    assert!(spec.workloads.len() >= 4, "four captures or more");
    // Heavy enough to matter (issue 27): captures whose baseline WAF is at
    // least 1.5, and whose oracle is at least 20 % below the baseline.
    let (mut heavy, mut separable) = (0, 0);
    for w in &spec.workloads {
        let name = w.name.as_str();
        // Every workload's trace is in the corpus.
        let trace = w.trace.as_deref().unwrap();
        assert!(
            repo_root().join("traces/real").join(trace).is_file(),
            "{trace}"
        );
        for v in spec.variants.iter().filter(|v| w.runs(&v.name)) {
            let v = v.name.as_str();
            let waf = json["workloads"][name][v]["waf"]
                .as_f64()
                .unwrap_or_else(|| panic!("workloads.{name}.{v}.waf"));
            assert!(waf >= 1.0, "{name} {v}: WAF {waf}");
        }
        // The oracle knows every page's death: it never does worse than
        // writing everything to one stream.
        let base = json["workloads"][name]["baseline"]["waf"].as_f64().unwrap();
        let oracle = json["workloads"][name]["oracle"]["waf"].as_f64().unwrap();
        assert!(
            oracle <= base,
            "{name}: oracle {oracle} above baseline {base}"
        );
        // Counted once per capture: its greedy replay (NAME-cb is the same
        // capture under cost-benefit GC).
        if !name.ends_with("-cb") {
            heavy += usize::from(base >= 1.5);
            separable += usize::from(oracle <= 0.8 * base);
        }
    }
    assert!(heavy >= 4, "{heavy} captures with baseline WAF >= 1.5");
    assert!(
        separable >= 3,
        "{separable} captures with the oracle 20 % below"
    );
    // Manual runs where its map was written (fio and SQLite) and nowhere
    // else; where it runs, a map by file kind beats one stream.
    let manual: Vec<&str> = spec
        .workloads
        .iter()
        .filter(|w| w.runs("manual"))
        .map(|w| w.name.as_str())
        .collect();
    assert_eq!(
        manual,
        [
            "fio-dedupe-aged",
            "fio-dedupe-aged-cb",
            "fio-dedupe-zipf-aged",
            "fio-dedupe-zipf-aged-cb",
            "sqlite-aged",
            "sqlite-aged-cb",
            "sqlite-journal-aged",
            "sqlite-journal-aged-cb"
        ]
    );
    for name in manual {
        let waf = |v: &str| json["workloads"][name][v]["waf"].as_f64().unwrap();
        assert!(
            waf("manual") < waf("baseline"),
            "{name}: manual {} not below baseline {}",
            waf("manual"),
            waf("baseline")
        );
    }
    assert!(json["workloads"]["rocksdb-aged"].get("manual").is_none());
}

/// Runs `reproduce NAME --quick --json ARGS` from the repository root, as
/// after a fresh clone, and returns its JSON.
fn reproduce_json(name: &str, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(["reproduce", name, "--quick", "--json"])
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run ftlsim");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("not found"), "{err}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn pcstream_knobs_sweeps_every_capture() {
    let json = reproduce_json("pcstream-knobs", &[]);
    let spec = ftlsim_run::reproduce::load("pcstream-knobs").unwrap().spec;
    let real = ftlsim_run::reproduce::load("pcstream-real").unwrap().spec;
    let names = |s: &ftlsim_run::reproduce::spec::Spec| -> Vec<String> {
        s.workloads.iter().map(|w| w.name.clone()).collect()
    };
    // pcstream-real replays each capture twice (greedy GC, and NAME-cb with
    // cost-benefit); the sweep runs greedy, the paper's.
    let greedy: Vec<String> = names(&real)
        .into_iter()
        .filter(|n| !n.ends_with("-cb"))
        .collect();
    assert_eq!(names(&spec), greedy, "the sweep covers the corpus");
    for w in &spec.workloads {
        let name = w.name.as_str();
        let waf = |v: &str| {
            json["workloads"][name][v]["waf"]
                .as_f64()
                .unwrap_or_else(|| panic!("workloads.{name}.{v}.waf"))
        };
        for v in &spec.variants {
            let v = v.name.as_str();
            assert!(waf(v) >= waf("oracle"), "{name} {v}: below the oracle");
        }
        // No attribute table: no PC is ever learned, every write goes to
        // stream 0, exactly as without an assigner.
        assert_eq!(waf("t0-1m"), waf("baseline"), "{name}");
        // No capture has more PCs than the paper's 360 KiB table holds
        // (30,720), so a table that never evicts changes nothing.
        assert_eq!(waf("tinf-1m"), waf("g1m"), "{name}");
    }
    // The rollback journal: its pages and the database's share 1 MiB
    // chunks, so at the paper's granularity PCStream mislearns their
    // lifetimes; per page it learns them (docs/real-workloads.md).
    let journal = |v: &str| {
        json["workloads"]["sqlite-journal-aged"][v]["waf"]
            .as_f64()
            .unwrap()
    };
    assert!(
        journal("g4k") < 0.9 * journal("g1m"),
        "4 KiB {} vs 1 MiB {}",
        journal("g4k"),
        journal("g1m")
    );
    // g1m is pcstream-real's pcstream, byte for byte.
    let real = reproduce_json("pcstream-real", &["--only", "sqlite-journal-aged"]);
    assert_eq!(
        real["workloads"]["sqlite-journal-aged"]["pcstream"],
        json["workloads"]["sqlite-journal-aged"]["g1m"]
    );
}

/// Coldmap's real-content workloads replay the corpus from the repository
/// alone, and what the doc says of them holds: the fio capture
/// deduplicates about the share fio was asked for, the device with dedup
/// writes less than the plain one where there are duplicates, and the cold
/// zone itself changes little (docs/coldmap.md, "Real content").
#[test]
fn coldmap_replays_its_real_content_captures() {
    let spec = ftlsim_run::reproduce::load("coldmap").unwrap().spec;
    let real: Vec<&str> = spec
        .workloads
        .iter()
        .filter(|w| w.traces.is_some())
        .map(|w| w.name.as_str())
        .collect();
    assert!(real.len() >= 3, "{real:?}");
    let json = reproduce_json("coldmap", &["--only", &real.join(",")]);
    let get = |w: &str, v: &str, field: &str| {
        json["workloads"][w][v][field]
            .as_f64()
            .unwrap_or_else(|| panic!("workloads.{w}.{v}.{field}"))
    };
    for w in &real {
        for v in &spec.variants {
            let waf = get(w, &v.name, "waf");
            assert!(waf > 0.0, "{w} {}: WAF {waf}", v.name);
        }
        // Keeping GC copies apart from host writes (remap-separate,
        // coldmap) copies no more than sharing one open block (remap).
        let copies = |v: &str| get(w, v, "gc_copy_pages");
        assert!(copies("coldmap") <= copies("remap"), "{w}");
        assert!(copies("remap-separate") <= copies("remap"), "{w}");
        // The cold zone's own effect, coldmap against remap-separate, is
        // small on real content (+0.3 % at most when measured).
        let cold_zone = get(w, "coldmap", "waf") / get(w, "remap-separate", "waf") - 1.0;
        assert!(cold_zone.abs() < 0.02, "{w}: cold zone alone {cold_zone}");
    }
    // Where GC copies under remap, the separate GC block halves them or
    // better (fio -50 %, SQLite -64 % when measured).
    for w in ["fio-dedupe-aged", "sqlite-aged"] {
        let copies = |v: &str| get(w, v, "gc_copy_pages");
        assert!(copies("coldmap") < 0.6 * copies("remap"), "{w}");
    }
    // fio was asked for 30 % duplicate pages; ext4's own writes and the
    // aging are unique, so fewer of the device's page writes repeat.
    let fio = get("fio-dedupe-aged", "remap", "dedup_ratio");
    assert!((0.15..0.30).contains(&fio), "fio dedup {fio}");
    // The source versions repeat most of their pages; SQLite's pages
    // (random padding, WAL frame headers) almost none.
    assert!(get("source-versions-aged", "remap", "dedup_ratio") > 0.5);
    assert!(get("sqlite-aged", "remap", "dedup_ratio") < 0.05);
    for w in ["fio-dedupe-aged", "source-versions-aged"] {
        assert!(get(w, "remap", "waf") < get(w, "baseline", "waf"), "{w}");
    }
}

/// A scratch experiment with its own corpus folder holding one small trace
/// (`a.ftlt.zst`, with its provenance record) and naming a second that is
/// absent (`b.ftlt.zst`).
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir("corpus", name);
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let plain = dir.join("a.trace");
    let out = ftlsim(&[
        "trace",
        "generate",
        plain.to_str().unwrap(),
        "--requests",
        "3000",
        "--logical-pages",
        "1024",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let packed = zstd::encode_all(&std::fs::read(&plain).unwrap()[..], 3).unwrap();
    std::fs::write(corpus.join("a.ftlt.zst"), &packed).unwrap();
    std::fs::write(
        corpus.join("a.provenance.toml"),
        format!(
            "[trace]\nfile = \"a.ftlt.zst\"\nbytes = {}\nsha256 = \"{}\"\n",
            packed.len(),
            ftlsim_run::corpus::hex_sha256(&packed)
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("device.toml"),
        "[device]\npages_per_block = 16\nblocks = 80\nspare_factor = 0.2\n\
         [workload]\ntype = \"trace\"\n[workload.trace]\npath = \"x\"\nformat = \"native\"\n",
    )
    .unwrap();
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        r#"name = "t"
title = "t"
baseline = "baseline"
traces = "corpus"
[sizes.full]
[sizes.quick]
[[workloads]]
name = "a"
title = "a"
config = "device.toml"
trace = "a.ftlt.zst"
[[workloads]]
name = "b"
title = "b"
config = "device.toml"
trace = "b.ftlt.zst"
[[variants]]
name = "baseline"
[[metrics]]
name = "waf"
label = "WAF"
field = "waf"
"#,
    )
    .unwrap();
    (exp, corpus)
}

#[test]
fn a_missing_corpus_trace_is_an_error_unless_allowed() {
    let (exp, _) = scratch("missing");
    let exp = exp.to_str().unwrap();
    let out = ftlsim(&["reproduce", exp, "--json"]);
    let line = error_line(&out);
    assert!(
        line.contains("workload `b`: trace b.ftlt.zst not found")
            && line.contains("--allow-missing"),
        "{line}"
    );
    let out = ftlsim(&["reproduce", exp, "--json", "--allow-missing"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("b.ftlt.zst not found"),
        "{}",
        stderr(&out)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["workloads"]["a"]["baseline"]["waf"].as_f64().unwrap() >= 1.0);
    assert!(json["workloads"].get("b").is_none());
}

#[test]
fn a_workload_with_its_own_corpus_folder_needs_its_trace() {
    // No top-level `traces`: workload `a` and `b` name the corpus folder
    // themselves, `c` reads the default folder and its trace is absent.
    let (exp, _) = scratch("per-workload");
    let text = std::fs::read_to_string(&exp).unwrap();
    let text = text
        .replace("traces = \"corpus\"\n", "")
        .replace(
            "trace = \"a.ftlt.zst\"\n",
            "trace = \"a.ftlt.zst\"\ntraces = \"corpus\"\n",
        )
        .replace(
            "trace = \"b.ftlt.zst\"\n",
            "trace = \"b.ftlt.zst\"\ntraces = \"corpus\"\n[[workloads]]\n\
             name = \"c\"\ntitle = \"c\"\nconfig = \"device.toml\"\ntrace = \"c.trace\"\n",
        );
    std::fs::write(&exp, text).unwrap();
    let exp = exp.to_str().unwrap();
    let line = error_line(&ftlsim(&["reproduce", exp, "--json"]));
    assert!(
        line.contains("workload `b`: trace b.ftlt.zst not found"),
        "{line}"
    );
    // `a` alone runs from its folder, `c` alone is skipped with a warning.
    let out = ftlsim(&["reproduce", exp, "--json", "--only", "a,c"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("c.trace not found"), "{err}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["workloads"]["a"]["baseline"]["waf"].as_f64().unwrap() >= 1.0);
}

#[test]
fn a_corpus_trace_unlike_its_provenance_is_a_one_line_error() {
    let (exp, corpus) = scratch("bad");
    let exp = exp.to_str().unwrap();
    let trace = corpus.join("a.ftlt.zst");
    let good = std::fs::read(&trace).unwrap();
    let run = || ftlsim(&["reproduce", exp, "--allow-missing", "--json"]);
    // Truncated.
    std::fs::write(&trace, &good[..good.len() / 2]).unwrap();
    let line = error_line(&run());
    assert!(
        line.contains(&format!("corpus trace {}: truncated", trace.display())),
        "{line}"
    );
    // The right size, one bit different.
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 1;
    std::fs::write(&trace, &flipped).unwrap();
    let line = error_line(&run());
    assert!(line.contains("a.ftlt.zst: sha256 "), "{line}");
    assert!(
        line.contains("does not match its provenance record"),
        "{line}"
    );
    // No record beside it.
    std::fs::write(&trace, &good).unwrap();
    std::fs::remove_file(corpus.join("a.provenance.toml")).unwrap();
    let line = error_line(&run());
    assert!(line.contains("cannot read its provenance record"), "{line}");
    // `ftlsim run` checks it too.
    let out = ftlsim(&[
        "run",
        corpus
            .parent()
            .unwrap()
            .join("device.toml")
            .to_str()
            .unwrap(),
        "--set",
        &format!("workload.trace.path={:?}", trace.to_str().unwrap()),
    ]);
    let line = error_line(&out);
    assert!(
        line.contains("a.ftlt.zst: cannot read its provenance record"),
        "{line}"
    );
}
