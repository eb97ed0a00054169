//! Documentation that is tested: every fenced shell block of README.md and
//! docs/*.md runs here against the binary this build made, or says why not.
//!
//! The rules (the top of README.md's "Tested documentation" repeats them):
//! * A fence must name its language. `sh` (or `bash`) blocks are commands:
//!   each must exit 0. `console` blocks are `$ command` lines followed by the
//!   output the doc shows: the command must exit 0 and every shown line must
//!   appear, whole, in what it printed (stdout or stderr; runs of spaces count
//!   as one; a line `...` stands for lines left out). Any other language
//!   (`text`, `toml`, `json`, `python`, ...) is not a command and is not run
//!   here (README's `python` blocks run in crates/ftlsim-py/tests).
//! * `<!-- not run: REASON -->` on the line before a block skips it, and the
//!   reason is printed; `<!-- exit: N -->` expects exit status N instead of 0.
//! * Commands are `ftlsim ARGS` or `cargo run --release -p ftlsim-cli -- ARGS`
//!   (both run this build's binary), optionally after `NAME=value`
//!   assignments; pipes, redirections and other programs need the marker.
//! * Each file's commands run in order in a scratch copy of the repository
//!   (symbolic links to its top-level entries, `../shared` beside it), so a
//!   command may use what an earlier one of the same file wrote. Commands
//!   that name `../shared/` are skipped, with a message, on a checkout without
//!   it (the traces there are third-party data outside the repository).
//! * `FTLSIM_DOCS=README.md cargo test --release -p ftlsim-cli --test integration docs::`
//!   checks one file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A command that takes longer is stuck: the doc should choose a faster one.
const COMMAND_LIMIT: Duration = Duration::from_secs(180);

#[derive(Debug)]
struct Block {
    line: usize,
    lang: String,
    body: Vec<String>,
    not_run: Option<String>,
    exit: i32,
}

#[derive(Default)]
struct Report {
    problems: Vec<String>,
    commands: usize,
    skipped: Vec<String>,
}

/// The fenced blocks of a Markdown text, with the markers just above them.
fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    let mut not_run = None;
    let mut exit = 0;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            let mut body = Vec::new();
            let mut closed = false;
            for (_, l) in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    closed = true;
                    break;
                }
                body.push(l.to_string());
            }
            if !closed {
                return Err(format!("line {}: the block never ends", i + 1));
            }
            out.push(Block {
                line: i + 1,
                lang: info.split_whitespace().next().unwrap_or("").to_string(),
                body,
                not_run: not_run.take(),
                exit: std::mem::take(&mut exit),
            });
        } else if let Some(reason) = marker(trimmed, "not run:") {
            if reason.is_empty() {
                return Err(format!("line {}: `not run:` needs a reason", i + 1));
            }
            not_run = Some(reason.to_string());
        } else if let Some(code) = marker(trimmed, "exit:") {
            exit = code
                .parse()
                .map_err(|_| format!("line {}: `exit:` needs a number", i + 1))?;
        } else if !trimmed.is_empty() {
            // A marker belongs to the block right below it, not to a later one.
            not_run = None;
            exit = 0;
        }
    }
    Ok(out)
}

fn marker<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let inner = line.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    Some(inner.strip_prefix(name)?.trim())
}

/// `sh` lines with backslash continuations joined.
fn joined(lines: &[String]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (i, l) in lines.iter().enumerate() {
        let (text, continues) = match l.trim_end().strip_suffix('\\') {
            Some(t) => (t, true),
            None => (l.as_str(), false),
        };
        match out.last_mut() {
            Some(last) if open => {
                last.1.push(' ');
                last.1.push_str(text);
            }
            _ => out.push((i, text.to_string())),
        }
        open = continues;
    }
    out
}

/// A command line as words, the way sh would split this small subset:
/// quotes, backslashes and `#` comments. Anything that needs a real shell
/// (pipes, redirections, substitutions, variables) is refused.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('$') | Some('`') => return Err("a substitution in \"...\"".into()),
                        Some('\\') => word.push(chars.next().unwrap_or('\\')),
                        Some(ch) => word.push(ch),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().unwrap_or('\\'));
            }
            '|' | ';' | '&' | '>' | '<' | '`' | '$' | '(' | ')' => {
                return Err(format!("`{c}` needs a shell"));
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    Ok(out)
}

/// `NAME=value` assignments before a command.
type Env = Vec<(String, String)>;

/// The arguments for this build's binary, and the environment to set.
fn ftlsim_args(words: &[String]) -> Result<(Env, Vec<String>), String> {
    let mut env = Vec::new();
    let mut rest = words;
    while let Some((first, tail)) = rest.split_first() {
        match first.split_once('=') {
            Some((name, value))
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                env.push((name.to_string(), value.to_string()));
                rest = tail;
            }
            _ => break,
        }
    }
    const CARGO_RUN: [&str; 6] = ["cargo", "run", "--release", "-p", "ftlsim-cli", "--"];
    let args = if rest.first().map(String::as_str) == Some("ftlsim") {
        &rest[1..]
    } else if rest.len() >= CARGO_RUN.len() && rest[..CARGO_RUN.len()] == CARGO_RUN {
        &rest[CARGO_RUN.len()..]
    } else {
        return Err(
            "not an ftlsim command: run it through `ftlsim`, or mark the block \
             `<!-- not run: REASON -->`"
                .into(),
        );
    };
    Ok((env, args.to_vec()))
}

fn normalize(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs one command in `dir`; the problem, if any.
fn run_command(
    dir: &Path,
    line: &str,
    expected_exit: i32,
    shown: &[String],
    report: &mut Report,
    place: &str,
) {
    let words = match words(line) {
        Ok(w) if w.is_empty() => return,
        Ok(w) => w,
        Err(e) => return report.problems.push(format!("{place}: {e}: {line}")),
    };
    let (env, args) = match ftlsim_args(&words) {
        Ok(x) => x,
        Err(e) => return report.problems.push(format!("{place}: {e}: {line}")),
    };
    if args.iter().any(|a| a.contains("../shared/")) && !dir.join("../shared").exists() {
        report.skipped.push(format!(
            "{place}: ../shared is not beside this checkout: {line}"
        ));
        return;
    }
    report.commands += 1;
    let started = Instant::now();
    let output = match run_with_limit(dir, &env, &args) {
        Ok(o) => o,
        Err(e) => return report.problems.push(format!("{place}: {e}: {line}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!(
        "  {place}: {:.1} s: {line}",
        started.elapsed().as_secs_f64()
    );
    let code = output.status.code().unwrap_or(-1);
    if code != expected_exit {
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        report.problems.push(format!(
            "{place}: exit {code}, the doc expects {expected_exit}: {line}\n    stderr ends: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n    ")
        ));
        return;
    }
    let printed: std::collections::HashSet<String> = stdout
        .lines()
        .chain(stderr.lines())
        .map(normalize)
        .collect();
    let missing: Vec<&String> = shown
        .iter()
        .filter(|l| {
            let n = normalize(l);
            !n.is_empty() && n != "..." && n != "…" && !printed.contains(&n)
        })
        .collect();
    if !missing.is_empty() {
        let mut msg = format!("{place}: lines the doc shows that `{line}` did not print:");
        for m in missing {
            msg.push_str("\n    ");
            msg.push_str(m.trim());
        }
        report.problems.push(msg);
    }
}

fn run_with_limit(
    dir: &Path,
    env: &[(String, String)],
    args: &[String],
) -> Result<std::process::Output, String> {
    let child = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start ftlsim: {e}"))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(COMMAND_LIMIT) {
        Ok(out) => out.map_err(|e| e.to_string()),
        Err(_) => {
            // SAFETY: kill(2) on the pid of the child this test started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            Err(format!("still running after {} s", COMMAND_LIMIT.as_secs()))
        }
    }
}

/// A scratch copy of the repository: links to its top-level entries, with
/// `../shared` linked beside it when the checkout has one.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, with_shared: bool) -> Scratch {
        let root = repo_root();
        let base = std::env::temp_dir().join(format!(
            "ftlsim-docs-{}-{}",
            std::process::id(),
            name.replace('/', "-")
        ));
        let _ = std::fs::remove_dir_all(&base);
        let repo = base.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        for entry in std::fs::read_dir(&root).unwrap() {
            let entry = entry.unwrap();
            std::os::unix::fs::symlink(entry.path(), repo.join(entry.file_name())).unwrap();
        }
        let shared = root.join("../shared");
        if with_shared && shared.is_dir() {
            std::os::unix::fs::symlink(shared.canonicalize().unwrap(), base.join("shared"))
                .unwrap();
        }
        Scratch(base)
    }

    fn dir(&self) -> PathBuf {
        self.0.join("repo")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // remove_dir_all removes the links, never what they point to.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Checks one Markdown text: every block's label, and every runnable
/// block's commands in a scratch copy of the repository.
fn check_markdown(name: &str, text: &str, with_shared: bool) -> Report {
    let mut report = Report::default();
    let blocks = match blocks(text) {
        Ok(b) => b,
        Err(e) => {
            report.problems.push(format!("{name}: {e}"));
            return report;
        }
    };
    let mut scratch = None;
    for b in blocks {
        let place = format!("{name}:{}", b.line);
        let runs = matches!(b.lang.as_str(), "sh" | "bash" | "console");
        if b.lang.is_empty() {
            report.problems.push(format!(
                "{place}: a block without a language: label it `sh` (commands, run), `console` \
                 ($ commands and their output, run and checked) or what it is (`text`, `toml`, ...)"
            ));
            continue;
        }
        if !runs {
            continue;
        }
        if let Some(reason) = b.not_run {
            report.skipped.push(format!("{place}: not run: {reason}"));
            continue;
        }
        let dir = scratch
            .get_or_insert_with(|| Scratch::new(name, with_shared))
            .dir();
        if b.lang == "console" {
            let mut cmds: Vec<(usize, String, Vec<String>)> = Vec::new();
            let mut continuing = false;
            for (i, l) in b.body.iter().enumerate() {
                if continuing {
                    let last = cmds.last_mut().unwrap();
                    continuing = l.trim_end().ends_with('\\');
                    last.1.push(' ');
                    last.1.push_str(l.trim_end().trim_end_matches('\\'));
                } else if let Some(cmd) = l.strip_prefix("$ ") {
                    continuing = cmd.trim_end().ends_with('\\');
                    cmds.push((i, cmd.trim_end().trim_end_matches('\\').to_string(), vec![]));
                } else if let Some(last) = cmds.last_mut() {
                    last.2.push(l.clone());
                } else {
                    report.problems.push(format!(
                        "{place}: a console block starts with `$ command`, not output"
                    ));
                    break;
                }
            }
            for (i, cmd, shown) in cmds {
                let at = format!("{name}:{}", b.line + 1 + i);
                run_command(&dir, &cmd, b.exit, &shown, &mut report, &at);
            }
        } else {
            for (i, cmd) in joined(&b.body) {
                let at = format!("{name}:{}", b.line + 1 + i);
                run_command(&dir, &cmd, b.exit, &[], &mut report, &at);
            }
        }
    }
    report
}

#[test]
fn every_shell_block_in_the_docs_runs_or_says_why_not() {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    // FTLSIM_DOCS=README.md checks only the files whose path contains it
    // (a writer's quick loop; CI checks them all).
    if let Ok(only) = std::env::var("FTLSIM_DOCS") {
        files.retain(|p| p.to_string_lossy().contains(&only));
    }
    let mut problems = Vec::new();
    let (mut commands, mut skipped) = (0, 0);
    for path in files {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let report = check_markdown(&name, &text, true);
        for s in &report.skipped {
            eprintln!("  skipped {s}");
        }
        commands += report.commands;
        skipped += report.skipped.len();
        problems.extend(report.problems);
    }
    eprintln!("docs: {commands} commands run, {skipped} blocks or commands not run");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(commands > 0, "no command ran");
}

// The checker itself: a doc that lies must fail.

#[test]
fn a_wrong_number_in_shown_output_fails() {
    let doc = "<!-- exit: 2 -->\n```console\n$ ftlsim run --set device.spare_factor=1.5\n\
               ftlsim: error: built-in defaults with --set: config key `device.spare_factor`: \
               1.6 is outside (0, 1)\n```\n";
    let r = check_markdown("lie.md", doc, false);
    assert_eq!(r.commands, 1);
    assert!(
        r.problems.len() == 1 && r.problems[0].contains("1.6 is outside"),
        "{:?}",
        r.problems
    );
    let honest = doc.replace("1.6 is", "1.5 is");
    let r = check_markdown("truth.md", &honest, false);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
}

#[test]
fn a_wrong_flag_an_unlabelled_block_and_a_foreign_command_fail() {
    let r = check_markdown("flag.md", "```sh\nftlsim validate --quikc\n```\n", false);
    assert!(
        r.problems.len() == 1 && r.problems[0].contains("exit 2"),
        "{:?}",
        r.problems
    );
    let r = check_markdown("bare.md", "```\nftlsim validate\n```\n", false);
    assert!(
        r.problems[0].contains("without a language"),
        "{:?}",
        r.problems
    );
    let r = check_markdown("rm.md", "```sh\nrm -rf results/\n```\n", false);
    assert!(
        r.problems[0].contains("not an ftlsim command"),
        "{:?}",
        r.problems
    );
    let r = check_markdown("pipe.md", "```sh\nftlsim run | head\n```\n", false);
    assert!(r.problems[0].contains("needs a shell"), "{:?}", r.problems);
    let r = check_markdown(
        "skip.md",
        "<!-- not run: needs root -->\n```sh\nrm -rf /\n```\n",
        false,
    );
    assert!(r.problems.is_empty() && r.skipped.len() == 1);
    assert_eq!(r.commands, 0);
}

#[test]
fn words_split_like_sh() {
    let w = words(r#"ftlsim run a.toml --set 'host.layers=[]' --set "x=a b" c\ d  # note"#);
    assert_eq!(
        w.unwrap(),
        [
            "ftlsim",
            "run",
            "a.toml",
            "--set",
            "host.layers=[]",
            "--set",
            "x=a b",
            "c d"
        ]
    );
    let j = joined(&[
        "ftlsim run \\".to_string(),
        "  --json".to_string(),
        "ftlsim validate".to_string(),
    ]);
    assert_eq!(j.len(), 2);
    assert_eq!(normalize(&j[0].1), "ftlsim run --json");
    let (env, args) = ftlsim_args(&words("FTLSIM_PIPELINE=0 ftlsim bench").unwrap()).unwrap();
    assert_eq!(env, vec![("FTLSIM_PIPELINE".to_string(), "0".to_string())]);
    assert_eq!(args, ["bench"]);
}
