//! index.html of `ftlsim run --out DIR`.

use std::fmt::Write as _;
use std::path::Path;

use ftlsim::{Config, Report};

use super::{document, escape, figure, file_links, pre, table, write_page};
use crate::error::Result;
use crate::output::{scalar_fields, summary_table, RunAbout};

/// A value of the report, `-` when undefined.
fn or_dash<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

/// The numbers a reader looks for first, each in a cell with an id so a
/// test (or a script scraping many pages) finds it without parsing text.
fn key_numbers(cfg: &Config, r: &Report) -> String {
    let mut rows: Vec<(&str, &str, String)> = vec![
        (
            "waf",
            "WAF (measured window)",
            r.window.waf.map_or_else(
                || {
                    format!(
                        "- ({})",
                        r.window
                            .waf_null_reason
                            .as_deref()
                            .unwrap_or("no host writes")
                    )
                },
                |w| format!("{w:.4}"),
            ),
        ),
        ("seed", "seed", r.seed.to_string()),
        (
            "host-write-pages",
            "host write pages",
            r.window.host_write_pages.to_string(),
        ),
        (
            "nand-write-pages",
            "NAND write pages",
            r.window.nand_write_pages.to_string(),
        ),
        (
            "gc-copy-pages",
            "GC copy pages",
            r.window.gc_copy_pages.to_string(),
        ),
        (
            "erase-max",
            "erase count per block, max / mean",
            format!("{} / {:.2}", r.wear.erase_max, r.wear.erase_mean),
        ),
        (
            "lifetime-drive-writes",
            "lifetime (drive writes, even wear)",
            or_dash(r.lifetime.lifetime_drive_writes.map(|d| format!("{d:.0}"))),
        ),
    ];
    if !cfg.host.layers.is_empty() {
        rows.insert(
            1,
            (
                "tcwa",
                "TCWA (product of the layers' WA)",
                or_dash(r.tcwa.map(|t| format!("{t:.4}"))),
            ),
        );
    }
    let mut s = String::from("<table>\n");
    for (id, name, value) in rows {
        let _ = writeln!(
            s,
            "<tr><th>{}</th><td class=\"num\" id=\"{id}\">{}</td></tr>",
            escape(name),
            escape(&value)
        );
    }
    s.push_str("</table>\n");
    s
}

/// The layers (top to bottom, the device last) and the streams.
fn layers_and_streams(r: &Report) -> String {
    let mut s = String::new();
    if r.layers.len() > 1 {
        let header: Vec<String> = ["layer", "pages in", "pages out", "GC copies", "WA"]
            .map(String::from)
            .to_vec();
        let rows: Vec<Vec<String>> = r
            .layers
            .iter()
            .map(|l| {
                vec![
                    l.name.clone(),
                    l.write_pages_in.to_string(),
                    l.write_pages_out.to_string(),
                    l.gc_copy_pages.to_string(),
                    or_dash(l.wa.map(|w| format!("{w:.4}"))),
                ]
            })
            .collect();
        s += "<h2>Layers (top to bottom)</h2>\n";
        s += &table(&header, &rows, &[]);
    }
    if r.streams.len() > 1 {
        let header: Vec<String> = [
            "stream",
            "host write pages",
            "GC copies out of its blocks",
            "blocks opened",
            "lifetime p50",
            "internal lifetime p50",
        ]
        .map(String::from)
        .to_vec();
        let rows: Vec<Vec<String>> = r
            .streams
            .iter()
            .map(|st| {
                vec![
                    st.stream.to_string(),
                    st.host_write_pages.to_string(),
                    st.gc_copy_pages.to_string(),
                    st.blocks_opened.to_string(),
                    or_dash(st.lifetime_p50),
                    or_dash(st.internal_lifetime_p50),
                ]
            })
            .collect();
        s += "<h2>Streams</h2>\n";
        s += &table(&header, &rows, &[]);
    }
    s
}

/// The config as TOML, as the run used it (the file with `--set` applied);
/// JSON if TOML cannot say it.
fn config_text(cfg: &Config) -> String {
    toml::to_string(cfg).unwrap_or_else(|_| serde_json::to_string_pretty(cfg).unwrap_or_default())
}

/// Writes `dir/index.html` for a run whose other outputs (and the SVG
/// files named in `charts`) are in `dir` already.
pub fn write_run_page(
    dir: &Path,
    cfg: &Config,
    report: &Report,
    about: &RunAbout,
    subject: &str,
    charts: &[&str],
    inputs: &[&Path],
) -> Result<()> {
    let mut body = String::new();
    let _ = writeln!(body, "<h1>ftlsim run</h1>");
    let _ = writeln!(body, "<p class=\"subject\">{}</p>", escape(subject));
    body += &key_numbers(cfg, report);
    body += "<h2>Command</h2>\n";
    body += &pre(&about.command_line);
    let _ = writeln!(
        body,
        "<p>ftlsim {}, seed <span id=\"command-seed\">{}</span>; the same command and seed give the same bytes.</p>",
        env!("CARGO_PKG_VERSION"),
        report.seed
    );
    // The data files of the run (its charts are inline below).
    let data: Vec<&str> = crate::output::OUTPUT_FILES
        .iter()
        .copied()
        .filter(|n| n.ends_with(".csv") || n.ends_with(".json"))
        .collect();
    body += &file_links(dir, &data);
    body += "<h2>Summary</h2>\n";
    body += &pre(&summary_table(cfg, report));
    body += &layers_and_streams(report);
    body += "<h2>Charts</h2>\n";
    for name in charts {
        body += &figure(dir, name)?;
    }
    body += "<h2>Config</h2>\n";
    let origin = about.config_path.as_ref().map_or_else(
        || "the built-in defaults".to_string(),
        |p| p.display().to_string(),
    );
    let _ = writeln!(
        body,
        "<p>As the run used it: {} with the command's <code>--set</code> overrides applied.</p>",
        escape(&origin)
    );
    body += &pre(&config_text(cfg));
    body +=
        "<h2>Every report field</h2>\n<details><summary>summary.json's scalar fields</summary>\n";
    let rows: Vec<Vec<String>> = scalar_fields(report)?
        .into_iter()
        .map(|(k, v)| vec![k, v])
        .collect();
    body += &table(&["field".to_string(), "value".to_string()], &rows, &[]);
    body += "</details>\n";
    write_page(
        dir,
        &document(&format!("ftlsim run: {subject}"), &body),
        inputs,
    )
}
