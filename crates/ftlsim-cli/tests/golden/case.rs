//! A golden case: the command it runs, what it records, what it needs;
//! and the helpers that build the commands (`run`, `reproduce`, `crash-test`).

/// What a case records besides stdout.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Out {
    Stdout,
    /// `run --out`: the summary and the CSV series.
    RunFiles,
    /// `reproduce --out`: results.csv and summary.txt.
    ReproduceFiles,
}

pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub env: Vec<(&'static str, &'static str)>,
    pub out: Out,
    /// Files (relative to the repository root) the case reads that are not
    /// in the repository; the case is skipped without them.
    pub needs: Vec<String>,
}

impl Case {
    pub fn new(name: &str, args: Vec<String>) -> Self {
        Case {
            name: name.to_string(),
            args,
            env: Vec::new(),
            out: Out::Stdout,
            needs: Vec::new(),
        }
    }

    pub fn env(mut self, key: &'static str, value: &'static str) -> Self {
        self.env.push((key, value));
        self
    }

    pub fn out(mut self) -> Self {
        self.out = Out::RunFiles;
        self
    }

    pub fn needs(mut self, path: &str) -> Self {
        self.needs.push(path.to_string());
        self
    }
}

/// `ftlsim run CONFIG --json --set ...` (`config` empty: the built-in defaults).
pub fn run(name: &str, config: &str, sets: &[&[&str]]) -> Case {
    let mut args = vec!["run".to_string()];
    if !config.is_empty() {
        args.push(config.to_string());
    }
    args.push("--json".to_string());
    for set in sets.iter().flat_map(|s| s.iter()) {
        args.push("--set".to_string());
        args.push(set.to_string());
    }
    Case::new(name, args)
}

/// `ftlsim reproduce EXPERIMENT --quick --json --out DIR [extra]`.
pub fn grid(experiment: &str, extra: &[&str]) -> Case {
    let mut args: Vec<String> = ["reproduce", experiment, "--quick", "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut case = Case::new(&format!("reproduce-{experiment}-quick"), args);
    case.out = Out::ReproduceFiles;
    case
}

/// One workload of a grid that replays `trace` from `../shared/traces`.
pub fn grid_with_trace(experiment: &str, workload: &str, trace: &str) -> Case {
    let mut case = grid(experiment, &["--only", workload]);
    case.name = format!("reproduce-{experiment}-quick-{workload}");
    case.needs(&format!("../shared/traces/{trace}"))
}

/// The workloads of a grid that replay the committed corpus (traces/real),
/// named `reproduce-EXPERIMENT-quick-SUFFIX`.
pub fn grid_corpus(experiment: &str, suffix: &str, workloads: &str) -> Case {
    let mut case = grid(experiment, &["--only", workloads]);
    case.name = format!("reproduce-{experiment}-quick-{suffix}");
    case
}

/// Coldmap's real-content workloads (docs/coldmap.md, "Real content").
pub fn coldmap_real() -> Case {
    grid_corpus(
        "coldmap",
        "real",
        "fio-dedupe-aged,sqlite-aged,source-versions-aged",
    )
}

/// The names of the grid cases, for the check that every golden file has one.
pub fn grid_names() -> Vec<String> {
    [
        grid("log-on-log", &[]),
        grid("coldmap", &[]),
        grid_with_trace("coldmap", "homes", "homes.replay.0"),
        coldmap_real(),
        grid("pcstream", &[]),
        grid("remapcom", &[]),
    ]
    .into_iter()
    .map(|c| c.name)
    .collect()
}
