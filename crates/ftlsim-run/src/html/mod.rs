//! `index.html`: a run's or an experiment's outputs as one page that opens
//! from the disk in any browser: the summary tables, every chart, the
//! config and the command line that made them.
//!
//! The page is self-contained on purpose: the charts are inlined SVG, the
//! style sits in the page, and there is no script, font or stylesheet to
//! fetch, so a results folder copied to another machine, attached to a
//! ticket or opened offline shows the same thing. Links to the other files
//! of the folder are relative, so they work from `file://` too.

mod reproduce;
mod run;

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{Context, Result};

pub use reproduce::write_reproduce_page;
pub use run::write_run_page;

/// The page's style: readable type, tables that line up numbers, charts
/// no wider than the window.
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1500px;padding:1rem 2rem;color:#1d1d1f;line-height:1.4}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
.subject{color:#444;margin-top:0}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #d0d0d0;padding:.2rem .6rem}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.reference td{font-weight:bold}
pre{background:#f6f6f6;border:1px solid #e0e0e0;padding:.6rem;overflow-x:auto;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}
td:first-child{white-space:nowrap}
figure{margin:1rem 0 2rem}figcaption{font-weight:bold;margin-bottom:.3rem}
figure svg{max-width:100%;height:auto;border:1px solid #e6e6e6}
.holds{color:#176b2c}.fails{color:#b00020;font-weight:bold}
details{margin:.5rem 0}summary{cursor:pointer}
";

/// Text made safe inside HTML elements and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// A command line as a POSIX shell would take it back: words with
/// anything but safe characters in single quotes.
pub fn shell_words<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    args.into_iter()
        .map(|a| {
            let a = a.as_ref();
            if !a.is_empty() && a.chars().all(safe) {
                a.to_string()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a cell reads as a number (right-aligned): 1.234, -5 %, 3.49M, 12.0%.
fn numeric(cell: &str) -> bool {
    let t = cell.trim().trim_end_matches(['%', 'M', 'k']).trim();
    !t.is_empty()
        && t.trim_start_matches(['+', '-'])
            .trim()
            .parse::<f64>()
            .is_ok()
}

/// An HTML table: `header` then `rows`; rows whose index is in `bold` are
/// set apart (the baseline).
fn table(header: &[String], rows: &[Vec<String>], bold: &[usize]) -> String {
    let mut s = String::from("<table>\n<tr>");
    for h in header {
        let _ = write!(s, "<th>{}</th>", escape(h));
    }
    s.push_str("</tr>\n");
    for (i, row) in rows.iter().enumerate() {
        s.push_str(if bold.contains(&i) {
            "<tr class=\"reference\">"
        } else {
            "<tr>"
        });
        for cell in row {
            let class = if numeric(cell) { " class=\"num\"" } else { "" };
            let _ = write!(s, "<td{class}>{}</td>", escape(cell));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// A `<pre>` block.
fn pre(text: &str) -> String {
    format!("<pre>{}</pre>\n", escape(text))
}

/// A chart written to `dir` as an inline `<figure>`: the SVG's own markup,
/// without an XML declaration (not allowed inside HTML).
fn figure(dir: &Path, name: &str) -> Result<String> {
    let path = dir.join(name);
    let svg = std::fs::read_to_string(&path)
        .with_context(|| format!("index.html: cannot read {}", path.display()))?;
    let start = svg.find("<svg").unwrap_or(0);
    Ok(format!(
        "<figure id=\"{id}\"><figcaption><a href=\"{href}\">{name}</a></figcaption>\n{svg}\n</figure>\n",
        id = escape(name),
        href = escape(&href(name)),
        name = escape(name),
        svg = &svg[start..]
    ))
}

/// A relative link to a file of the folder; `+` and other characters that
/// a URL reads otherwise are percent-encoded.
fn href(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            s.push(b as char);
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    s
}

/// Links to the files of the folder that exist, in the order given.
fn file_links(dir: &Path, names: &[&str]) -> String {
    let links: Vec<String> = names
        .iter()
        .filter(|n| dir.join(n).is_file())
        .map(|n| format!("<a href=\"{}\">{}</a>", escape(&href(n)), escape(n)))
        .collect();
    if links.is_empty() {
        String::new()
    } else {
        format!("<p>Files: {}</p>\n", links.join(" · "))
    }
}

/// The whole document around `body`.
fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"ftlsim {version}\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title)
    )
}

/// Writes `dir/index.html`: never over one of `inputs` (a config or trace
/// named index.html in the output folder), and never half-written, so a
/// failure leaves the previous page whole (written beside it, renamed in).
fn write_page(dir: &Path, html: &str, inputs: &[&Path]) -> Result<()> {
    let dest = dir.join("index.html");
    ftlsim_trace::OutputFile::write_all_to(&dest, inputs, html.as_bytes())
        .with_context(|| format!("cannot write {}", dest.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes_shell_words() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            shell_words([
                "ftlsim",
                "run",
                "--set",
                "host.layers=[{type = \"log\"}]",
                "it's"
            ]),
            "ftlsim run --set 'host.layers=[{type = \"log\"}]' 'it'\\''s'"
        );
        assert_eq!(
            href("lifetime-mixed1-pcstream+internal.svg"),
            "lifetime-mixed1-pcstream%2Binternal.svg"
        );
    }

    #[test]
    fn numbers_align_right_and_words_left() {
        for n in ["1.234", "-5", "+58.0 %", "3.49M", "140k", "29.9%"] {
            assert!(numeric(n), "{n}");
        }
        for w in ["baseline", "-", "u16-l8", ""] {
            assert!(!numeric(w), "{w}");
        }
    }

    #[test]
    fn the_page_refuses_to_replace_an_input() {
        let dir = std::env::temp_dir().join(format!("ftlsim-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("index.html");
        std::fs::write(&input, "config").unwrap();
        let e = write_page(&dir, "<html>", &[input.as_path()]).unwrap_err();
        assert!(e.one_line().contains("refusing"), "{}", e.one_line());
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "config");
        write_page(&dir, "<html>", &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "<html>");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
