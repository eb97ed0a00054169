//! index.html, as a browser shows it: `run --out` and `reproduce --out`
//! write a page that headless Chromium renders from the disk, with the
//! numbers of summary.json / results.json in it, every chart inline and
//! nothing fetched from anywhere.
//!
//! The page is checked twice: as text (always), and as Chromium's DOM and
//! screenshot (when Chromium is installed: scripts/test.sh installs it; set
//! FTLSIM_CHROMIUM to use another binary). Without Chromium the second half
//! skips with a message instead of failing a machine that cannot run it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_ok, ftlsim, temp_dir};

/// The Chromium binary: FTLSIM_CHROMIUM, else the first of Debian's and
/// other distributions' names found on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("FTLSIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `args`; its stdout. Killed after
/// two minutes, so that a browser that hangs fails the test instead of
/// hanging it.
fn headless(chrome: &Path, profile: &Path, page: &Path, args: &[String]) -> String {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            // Root in CI containers: Chromium's sandbox refuses to start as root.
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            // Nothing may come from the network: the page is self-contained.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", chrome.display()));
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish rendering {url} in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "chromium failed on {url}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of the element with `id` in `html` (attributes, then `>`).
fn element_text<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element id={id}"));
    let start = at + html[at..].find('>').unwrap() + 1;
    let end = start + html[start..].find('<').unwrap();
    &html[start..end]
}

/// Nothing to fetch: no script, stylesheet link, image or frame source,
/// and no URL but the SVG namespace.
fn assert_self_contained(html: &str) {
    for tag in [
        "<script", "<link", "<img", "<iframe", "src=", "@import", "url(",
    ] {
        assert!(!html.contains(tag), "index.html has {tag}");
    }
    let urls = html.matches("http").count();
    let namespaces = html.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(
        urls, namespaces,
        "index.html names a URL besides the SVG namespace"
    );
}

/// Chromium's DOM and a screenshot of `page`, or `None` (with a message)
/// when Chromium is not installed.
fn render(page: &Path, dir: &Path) -> Option<String> {
    let Some(chrome) = chromium() else {
        eprintln!(
            "SKIPPED: the browser half of this test: chromium not found on the PATH \
             (apt-get install chromium, or set FTLSIM_CHROMIUM); the page's text was checked"
        );
        return None;
    };
    let profile = dir.join("chromium-profile");
    let dom = headless(&chrome, &profile, page, &["--dump-dom".to_string()]);
    let png = dir.join("index.png");
    headless(
        &chrome,
        &profile,
        page,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1400,1800".to_string(),
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
        "{} looks empty",
        png.display()
    );
    eprintln!("screenshot of index.html: {}", png.display());
    Some(dom)
}

/// Removes what a test wrote but the screenshot, which stays for a person
/// to look at (its path is printed).
fn clean_up(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join("out"));
    let _ = std::fs::remove_dir_all(dir.join("chromium-profile"));
}

#[test]
fn run_out_writes_a_page_with_the_numbers_and_charts() {
    let dir = temp_dir("html", "run");
    let out_dir = dir.join("out");
    let out = ftlsim(&[
        "run",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/streams.toml"),
        "--set",
        "device.blocks=256",
        // The hot tenth of the smaller device on stream 1.
        "--set",
        "host.layers=[{type = \"lba-streams\", ranges = [[0, 1474, 1]]}]",
        "--set",
        "workload.warmup=1x",
        "--set",
        "workload.writes=1x",
        "--set",
        "workload.seed=4242",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    let waf = format!("{:.4}", summary["waf"].as_f64().unwrap());
    let seed = summary["seed"].as_u64().unwrap().to_string();
    assert_eq!(seed, "4242");
    let page = out_dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    // The command line is on the page, quoted for a shell.
    assert!(html.contains("workload.seed=4242") && html.contains("streams.toml"));
    assert!(
        html.contains("&#39;host.layers=[{type = &quot;lba-streams&quot;"),
        "quoted"
    );
    // The config as the run used it, --set applied.
    assert!(
        html.contains("seed = 4242") && html.contains("blocks = 256"),
        "config"
    );
    for page_text in std::iter::once(html.clone()).chain(render(&page, &dir)) {
        assert_eq!(element_text(&page_text, "waf"), waf);
        assert_eq!(element_text(&page_text, "seed"), seed);
        assert_eq!(element_text(&page_text, "command-seed"), seed);
        // waf.svg and lifetime.svg (two streams), inline.
        assert_eq!(page_text.matches("<svg").count(), 2, "two charts inline");
        assert!(
            page_text.contains("WAF over time") && page_text.contains("Page lifetime by stream")
        );
        assert!(page_text.contains("lba-streams"), "the stack is named");
    }
    clean_up(&dir);
}

#[test]
fn reproduce_out_writes_a_page_with_every_workload_and_chart() {
    let dir = temp_dir("html", "reproduce");
    let out_dir = dir.join("out");
    let out = ftlsim(&[
        "reproduce",
        "log-on-log",
        "--quick",
        "--only",
        "streams,trim",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let run = &results["workloads"]["trim"]["trim-off"];
    let tcwa = format!("{:.3}", run["tcwa"].as_f64().unwrap());
    let seed = run["seed"].as_u64().unwrap().to_string();
    let page = out_dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("reproduce log-on-log --quick --only streams,trim"));
    for page_text in std::iter::once(html.clone()).chain(render(&page, &dir)) {
        assert_eq!(element_text(&page_text, "command-seed"), seed);
        // Each workload's table says what it divides by, and holds its numbers.
        assert!(page_text.contains("<b>trim-on</b>, this workload's baseline"));
        assert!(page_text.contains("<b>streams-2</b>, this workload's baseline"));
        assert!(
            page_text.contains(&format!(">{tcwa}<")),
            "TCWA {tcwa} of trim/trim-off"
        );
        // tcwa.svg, inline, with a panel per workload and its own baseline.
        assert_eq!(page_text.matches("<svg").count(), 1);
        assert!(page_text.contains("TCWA relative to trim-on"));
        assert!(page_text.contains("TCWA relative to streams-2"));
        // The experiment file, for the record.
        assert!(
            page_text.contains("experiments/log-on-log.toml")
                && page_text.contains("[[workloads]]")
        );
    }
    clean_up(&dir);
}
