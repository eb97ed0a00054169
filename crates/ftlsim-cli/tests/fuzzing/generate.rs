//! Cases, one command each: `run` (a config file and `--set`s),
//! `crash-test`, `trace stats|convert|generate|pcs` and `reproduce` of a
//! generated experiment file. Case `i` of seed `s` depends on `(s, i)`
//! only, so any case replays alone (FTLSIM_FUZZ_SEED, FTLSIM_FUZZ_CASE).

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::config::{base, mutation, structural, KEYS};
use super::traces::{trace, FORMATS};
use super::values::{flag_float, flag_uint, value, Kind, Rng64};
use super::{Arg, Body, Case, FileSpec, TomlDoc};

const RUN_FLAGS: &[&str] = &["--set", "--json", "--out", "--check"];
const CRASH_FLAGS: &[&str] = &[
    "--set",
    "--cuts",
    "--seed",
    "--remap-fraction",
    "--flush-every",
    "--json",
];
const INPUT_FLAGS: &[&str] = &[
    "--format",
    "--from",
    "--time-unit",
    "--action",
    "--device",
    "--skip-bad-lines",
];
const REPRODUCE_FLAGS: &[&str] = &["--quick", "--json", "--out", "--set", "--only", "--traces"];

/// The generator of case `index` under `seed`.
pub fn case_rng(seed: u64, index: u64) -> Rng64 {
    // SplitMix64 of the index, so neighbouring cases share nothing.
    let mut z = index.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Rng64::seed_from_u64(seed ^ z ^ (z >> 31))
}

pub fn case(seed: u64, index: u64) -> Case {
    let mut rng = case_rng(seed, index);
    match rng.random_range(0..100) {
        0..=44 => run_case(&mut rng),
        45..=54 => crash_case(&mut rng),
        55..=69 => stats_case(&mut rng),
        70..=79 => convert_case(&mut rng),
        80..=84 => generate_case(&mut rng),
        85..=86 => pcs_case(&mut rng),
        _ => reproduce_case(&mut rng),
    }
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

fn set_arg(key: &str, v: super::values::Value) -> Arg {
    Arg {
        words: vec!["--set".into(), format!("{key}={}", v.text)],
        removable: true,
        reject: v.reject,
    }
}

/// A config (its file) with up to `most` key mutations (1-4 for `run`),
/// each in the file or as a `--set`, and now and then a structural one;
/// the `--set` args.
fn config(rng: &mut Rng64, trace_file: Option<&str>, most: usize) -> (TomlDoc, Vec<Arg>) {
    let mut doc = base(rng, trace_file);
    if trace_file.is_none() && rng.random_bool(0.04) {
        // A trace replay in a config that was not made for one.
        doc.set("workload", "type", "\"trace\"", None);
    }
    let timing_odds = if trace_file.is_some() { 0.5 } else { 0.2 };
    if !doc.has_section("timing") && rng.random_bool(timing_odds) {
        // The timing model on; open loop replays a trace at its own times
        // (scaled by `speedup`) or a synthetic workload at a rate.
        let open = rng.random_bool(0.7);
        doc.set(
            "timing",
            "mode",
            if open { "\"open\"" } else { "\"closed\"" },
            None,
        );
        doc.set("timing", "queue_depth", "8", None);
        if open && trace_file.is_some() {
            doc.set("timing", "speedup", "1.0", None);
        } else if open {
            doc.set("timing", "arrival_rate_iops", "20000", None);
        }
    }
    let n = (*[1, 1, 1, 2, 2, 3, 4].choose(rng).expect("counts")).min(most);
    let sets = mutate(rng, &mut doc, n);
    if most > 0 && rng.random_bool(0.12) {
        structural(rng, &mut doc);
    }
    (doc, sets)
}

/// `n` key mutations of `doc`, each in the file or as a `--set` (returned).
/// A key is mutated once: a later `--set` would override an earlier value,
/// and then that value's rejection would not apply.
fn mutate(rng: &mut Rng64, doc: &mut TomlDoc, n: usize) -> Vec<Arg> {
    let mut sets: Vec<Arg> = Vec::new();
    let mut mutated: Vec<String> = Vec::new();
    for _ in 0..n {
        let (key, v) = mutation(rng, doc);
        if mutated.contains(&key) {
            continue;
        }
        mutated.push(key.clone());
        if rng.random_bool(0.4) {
            // The file's value is overridden: whatever it was, it is moot.
            if let Some((section, leaf)) = key.rsplit_once('.') {
                for s in doc.sections.iter_mut().filter(|s| s.name == section) {
                    for e in s.entries.iter_mut().filter(|e| e.key == leaf) {
                        e.reject = None;
                    }
                }
            }
            sets.push(set_arg(&key, v));
        } else if let Some((section, leaf)) = key.rsplit_once('.') {
            if section == "host.layers[0]" {
                if let Some(s) = doc.sections.iter_mut().find(|s| s.name == "host.layers") {
                    s.entries.retain(|e| e.key != leaf);
                    s.entries.push(super::Entry {
                        key: leaf.to_string(),
                        value: v.text,
                        reject: v.reject,
                    });
                }
            } else {
                doc.set(section, leaf, &v.text, v.reject);
            }
        }
    }
    sets
}

fn trace_file(rng: &mut Rng64) -> (String, FileSpec) {
    let format = *FORMATS.choose(rng).expect("formats");
    let name = format!("trace.{format}");
    let spec = FileSpec {
        name: name.clone(),
        body: Body::Bytes(trace(rng, format)),
    };
    (format.to_string(), spec)
}

fn run_case(rng: &mut Rng64) -> Case {
    let mut files = Vec::new();
    let trace = rng.random_bool(0.25).then(|| trace_file(rng));
    let (doc, sets) = config(rng, trace.as_ref().map(|(_, f)| f.name.as_str()), 4);
    let mut args = vec![Arg::fixed(&["run"])];
    if let Some((format, spec)) = trace {
        files.push(spec);
        if rng.random_bool(0.5) {
            args.push(Arg::optional(&[
                "--set",
                &format!("workload.trace.format=\"{format}\""),
            ]));
        }
    }
    if rng.random_bool(0.95) {
        files.push(FileSpec {
            name: "config.toml".into(),
            body: Body::Toml(doc),
        });
        args.push(Arg::fixed(&["config.toml"]));
    } else {
        // The built-in defaults (a 4 GiB device), made small.
        for s in [
            "device.blocks=64",
            "device.pages_per_block=16",
            "workload.writes=1x",
            "workload.warmup=0",
        ] {
            args.push(Arg::fixed(&["--set", s]));
        }
    }
    args.extend(sets);
    if rng.random_bool(0.5) {
        args.push(Arg::optional(&["--json"]));
    }
    if rng.random_bool(0.1) {
        args.push(Arg::optional(&["--out", "out"]));
    }
    if rng.random_bool(0.05) {
        args.push(Arg::optional(&["--check"]));
    }
    Case {
        command: "run".into(),
        args,
        files,
        flags: strings(RUN_FLAGS),
    }
}

fn crash_case(rng: &mut Rng64) -> Case {
    let mut doc = TomlDoc::parse(
        super::config::BASES
            .iter()
            .find(|(n, _)| *n == "power-loss")
            .expect("power-loss base")
            .1,
    );
    let mut args = vec![Arg::fixed(&["crash-test", "config.toml"])];
    let n = rng.random_range(0..=2);
    args.extend(mutate(rng, &mut doc, n));
    let cuts = flag_uint(rng, 64, &[1, 2, 3, 5]);
    args.push(Arg::fixed(&["--cuts", &cuts]));
    if rng.random_bool(0.3) {
        args.push(Arg::optional(&["--seed", &flag_uint(rng, 64, &[1, 7, 42])]));
    }
    if rng.random_bool(0.4) {
        let f = flag_float(rng, &["0.1", "0.5", "0"]);
        args.push(Arg::flag("--remap-fraction", &f));
        if rng.random_bool(0.5) {
            args.push(Arg::optional(&["--set", "ftl.remap=true"]));
        }
    }
    if rng.random_bool(0.3) {
        let n = flag_uint(rng, 64, &[0, 1, 10]);
        args.push(Arg::optional(&["--flush-every", &n]));
    }
    if rng.random_bool(0.5) {
        args.push(Arg::optional(&["--json"]));
    }
    Case {
        command: "crash-test".into(),
        args,
        files: vec![FileSpec {
            name: "config.toml".into(),
            body: Body::Toml(doc),
        }],
        flags: strings(CRASH_FLAGS),
    }
}

/// `--format`, `--time-unit`, `--action`, `--device`, `--skip-bad-lines`.
fn input_flags(rng: &mut Rng64, format: &str) -> Vec<Arg> {
    let mut args = Vec::new();
    if rng.random_bool(0.5) {
        let f = if rng.random_bool(0.85) {
            format
        } else {
            *[*FORMATS.choose(rng).expect("formats"), "", "MSR", "nope"]
                .choose(rng)
                .expect("odd formats")
        };
        args.push(Arg::flag("--format", f));
    }
    let odd = ["", "x", "DQ", "é", "1", "-"];
    let mut pick = |good: &[&'static str]| -> String {
        if rng.random_bool(0.8) {
            good.choose(rng).expect("good").to_string()
        } else {
            odd.choose(rng).expect("odd").to_string()
        }
    };
    let unit = pick(&["s", "ms", "us", "ns"]);
    let action = pick(&["D", "Q", "C", "d"]);
    let device = pick(&["0", "1", "hm_1", "8,0", "8,", "4294967296"]);
    if rng.random_bool(0.2) {
        args.push(Arg::flag("--time-unit", &unit));
    }
    if rng.random_bool(0.2) {
        args.push(Arg::flag("--action", &action));
    }
    if rng.random_bool(0.15) {
        args.push(Arg::flag("--device", &device));
    }
    if rng.random_bool(0.3) {
        args.push(Arg::optional(&["--skip-bad-lines"]));
    }
    args
}

fn stats_case(rng: &mut Rng64) -> Case {
    let (format, file) = trace_file(rng);
    let mut args = vec![Arg::fixed(&["trace", "stats", &file.name])];
    args.extend(input_flags(rng, &format));
    if rng.random_bool(0.3) {
        let pb = flag_uint(rng, 32, &[4096, 512, 8192]);
        args.push(Arg::optional(&["--page-bytes", &pb]));
    }
    if rng.random_bool(0.5) {
        args.push(Arg::optional(&["--json"]));
    }
    let flags = strings(&[INPUT_FLAGS, &["--page-bytes", "--json"]].concat());
    Case {
        command: "trace stats".into(),
        args,
        files: vec![file],
        flags,
    }
}

fn convert_case(rng: &mut Rng64) -> Case {
    let (format, file) = trace_file(rng);
    let output = match rng.random_range(0..100) {
        0..=69 => "out.trace".to_string(),
        // The input itself, a folder, a file in a missing folder.
        70..=84 => file.name.clone(),
        85..=89 => ".".to_string(),
        _ => "missing/out.trace".to_string(),
    };
    let mut args = vec![Arg::fixed(&["trace", "convert", &file.name, &output])];
    args.extend(input_flags(rng, &format));
    if rng.random_bool(0.4) {
        let to = *["native", "disksim", "disksim", "msr", ""]
            .choose(rng)
            .expect("to");
        args.push(Arg::flag("--to", to));
    }
    if rng.random_bool(0.3) {
        let unit = *["s", "ms", "us", "ns", "h", ""].choose(rng).expect("units");
        args.push(Arg::flag("--to-time-unit", unit));
    }
    let flags = strings(&[INPUT_FLAGS, &["--to", "--to-time-unit"]].concat());
    Case {
        command: "trace convert".into(),
        args,
        files: vec![file],
        flags,
    }
}

fn generate_case(rng: &mut Rng64) -> Case {
    let mut args = vec![Arg::fixed(&["trace", "generate", "gen.trace"])];
    let flags: [(&str, u32, &[u64]); 6] = [
        ("--requests", 64, &[0, 1, 10, 1000]),
        ("--logical-pages", 64, &[1, 16, 1000]),
        ("--block-pages", 32, &[1, 4, 16]),
        ("--dedupe-percentage", 8, &[0, 30, 100, 101]),
        ("--seed", 64, &[1, 42]),
        ("--page-bytes", 32, &[4096, 512]),
    ];
    // The default request count (10^6) takes a while: always give one.
    for (i, (flag, bits, typical)) in flags.iter().enumerate() {
        if i == 0 || rng.random_bool(0.6) {
            let v = flag_uint(rng, *bits, typical);
            args.push(Arg {
                removable: i != 0,
                ..Arg::fixed(&[*flag, v.as_str()])
            });
        }
    }
    Case {
        command: "trace generate".into(),
        args,
        files: Vec::new(),
        flags: flags.iter().map(|f| f.0.to_string()).collect(),
    }
}

fn pcs_case(rng: &mut Rng64) -> Case {
    let file = FileSpec {
        name: "trace.native".into(),
        body: Body::Bytes(trace(rng, "native")),
    };
    let mut args = vec![Arg::fixed(&["trace", "pcs", "trace.native"])];
    if rng.random_bool(0.3) {
        let pb = flag_uint(rng, 64, &[4096, 512]);
        args.push(Arg::optional(&["--page-bytes", &pb]));
    }
    if rng.random_bool(0.5) {
        args.push(Arg::optional(&["--json"]));
    }
    Case {
        command: "trace pcs".into(),
        args,
        files: vec![file],
        flags: strings(&["--page-bytes", "--json"]),
    }
}

/// An experiment file over a generated config: a workload or two, a few
/// variants of `--set`s, metrics with random formats and decimals, and now
/// and then a reference table and claims.
fn experiment(rng: &mut Rng64, trace: Option<&str>) -> TomlDoc {
    let mut doc = TomlDoc::default();
    let mut top = |k: &str, v: String| {
        doc.top.push(super::Entry {
            key: k.into(),
            value: v,
            reject: None,
        })
    };
    top("name", "\"fuzz\"".into());
    top("title", "\"a fuzzed experiment\"".into());
    top("baseline", "\"v0\"".into());
    if rng.random_bool(0.3) {
        let keys = if rng.random_bool(0.8) {
            "\"device.blocks\", \"ftl.gc_policy\""
        } else {
            "\"no.such\""
        };
        top("csv_config_keys", format!("[{keys}]"));
    }
    for (size, name) in [("full", "sizes.full"), ("quick", "sizes.quick")] {
        doc.sections.push(super::Section {
            name: name.into(),
            array: false,
            entries: Vec::new(),
        });
        if rng.random_bool(0.5) {
            let v = value(rng, Kind::Float, &["1.0", "0.5"]);
            doc.set(name, "window_logical_capacities", &v.text, v.reject);
        }
        doc.set(name, "note", &format!("\"{size}\""), None);
    }
    let variants = rng.random_range(1..=3);
    for w in 0..rng.random_range(1..=2) {
        let mut entries = vec![
            ("name", format!("\"w{w}\"")),
            ("title", "\"workload\"".into()),
            ("config", "\"config.toml\"".into()),
        ];
        if let Some(t) = trace.filter(|_| rng.random_bool(0.5)) {
            entries.push(("trace", format!("\"{t}\"")));
        }
        push_array_table(&mut doc, "workloads", &entries);
    }
    for v in 0..variants {
        let mut sets = Vec::new();
        for _ in 0..rng.random_range(0..=2) {
            let (key, kind, typical) = KEYS.choose(rng).expect("keys");
            let val = value(rng, *kind, typical);
            sets.push(
                format!("{key}={}", val.text)
                    .replace('\\', "\\\\")
                    .replace('"', "\\\""),
            );
        }
        let sets = sets.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>();
        push_array_table(
            &mut doc,
            "variants",
            &[
                ("name", format!("\"v{v}\"")),
                ("sets", format!("[{}]", sets.join(", "))),
            ],
        );
    }
    let fields = [
        "waf",
        "gc_count",
        "erase_max",
        "tcwa",
        "layers.0.wa",
        "waf",
        "seed",
        "nope",
    ];
    for m in 0..rng.random_range(1..=3) {
        let decimals = value(rng, Kind::Uint(64), &["0", "2", "3"]);
        let mut entries = vec![
            ("name", format!("\"m{m}\"")),
            ("label", "\"metric\"".into()),
            (
                "field",
                format!("\"{}\"", fields.choose(rng).expect("fields")),
            ),
            ("decimals", decimals.text),
            (
                "format",
                format!(
                    "\"{}\"",
                    ["fixed", "percent", "change", "short"]
                        .choose(rng)
                        .expect("formats")
                ),
            ),
        ];
        if rng.random_bool(0.5) {
            entries.push(("column", "\"col\"".into()));
        }
        if rng.random_bool(0.4) {
            entries.push(("normalized", "\"norm\"".into()));
        }
        if rng.random_bool(0.2) {
            entries.push((
                "per_field",
                format!("\"{}\"", fields.choose(rng).expect("f")),
            ));
        }
        if rng.random_bool(0.2) {
            entries.push(("chart", "true".into()));
        }
        push_array_table(&mut doc, "metrics", &entries);
        if decimals.reject.is_some() {
            let last = doc.sections.last_mut().expect("metric");
            if let Some(e) = last.entries.iter_mut().find(|e| e.key == "decimals") {
                e.reject = decimals.reject.clone();
            }
        }
    }
    if rng.random_bool(0.2) {
        doc.set("reference", "title", "\"paper\"", None);
        push_array_table(
            &mut doc,
            "reference.rows",
            &[
                ("label", "\"row\"".into()),
                ("metric", "\"m0\"".into()),
                ("variant", format!("\"v{}\"", variants - 1)),
                ("ratio_to", "\"v0\"".into()),
                ("paper", value(rng, Kind::Float, &["1.5"]).text),
            ],
        );
    }
    if rng.random_bool(0.15) {
        push_array_table(
            &mut doc,
            "claims",
            &[
                ("workload", "\"w0\"".into()),
                ("label", "\"claim\"".into()),
                ("metric", "\"m0\"".into()),
                ("variant", "\"v0\"".into()),
                ("above", value(rng, Kind::Float, &["1.0"]).text),
            ],
        );
    }
    doc
}

fn push_array_table(doc: &mut TomlDoc, name: &str, entries: &[(&str, String)]) {
    doc.sections.push(super::Section {
        name: name.into(),
        array: true,
        entries: entries
            .iter()
            .map(|(k, v)| super::Entry {
                key: k.to_string(),
                value: v.clone(),
                reject: None,
            })
            .collect(),
    });
}

fn reproduce_case(rng: &mut Rng64) -> Case {
    let trace = rng.random_bool(0.2).then(|| trace_file(rng));
    let trace_name = trace.as_ref().map(|(_, f)| f.name.clone());
    // Mostly valid configs: the experiment's own keys are what is fuzzed.
    let most = *[0, 0, 1].choose(rng).expect("counts");
    let (doc, sets) = config(rng, trace_name.as_deref(), most);
    let exp = experiment(rng, trace_name.as_deref());
    let mut files = vec![
        FileSpec {
            name: "config.toml".into(),
            body: Body::Toml(doc),
        },
        FileSpec {
            name: "exp.toml".into(),
            body: Body::Toml(exp),
        },
    ];
    files.extend(trace.map(|(_, f)| f));
    let mut args = vec![Arg::fixed(&["reproduce", "exp.toml"])];
    args.extend(sets);
    if rng.random_bool(0.5) {
        args.push(Arg::optional(&["--quick"]));
    }
    if rng.random_bool(0.3) {
        args.push(Arg::optional(&["--json"]));
    }
    if rng.random_bool(0.2) {
        args.push(Arg::optional(&["--out", "out"]));
    }
    if rng.random_bool(0.1) {
        args.push(Arg::optional(&["--only", "w0"]));
    }
    args.push(Arg::fixed(&["--traces", "."]));
    Case {
        command: "reproduce".into(),
        args,
        files,
        flags: strings(REPRODUCE_FLAGS),
    }
}
