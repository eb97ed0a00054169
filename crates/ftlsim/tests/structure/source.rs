//! A Rust source file as the structure checks see it: comments and string, byte-string and
//! char literals blanked to spaces (newlines kept, so byte offsets and line numbers stay those
//! of the file), the spans of `#[cfg(test)]` items, and the functions with their line spans.
//!
//! A careful line parser rather than `syn`: the checks need tokens, braces and lines, not a
//! syntax tree, and the core keeps its dependencies few.

use std::path::{Path, PathBuf};

/// One source file, read and blanked.
pub struct Source {
    /// Path relative to the workspace root, with `/` separators (how messages name it).
    pub path: String,
    /// The file's bytes with comments and literals replaced by spaces.
    pub code: Vec<u8>,
    /// Byte offset at which each line starts (line n, 1-based, starts at `line_starts[n - 1]`).
    line_starts: Vec<usize>,
    /// Byte ranges `[start, end)` of `#[cfg(test)]` items, from the attribute to the item's end.
    pub test_spans: Vec<(usize, usize)>,
    /// Names of modules declared `#[cfg(test)] mod name;` in other files: test-only files.
    pub test_module_files: Vec<String>,
}

/// A function found in a file: its name and the lines of its `fn` keyword and closing brace.
pub struct Function {
    pub name: String,
    pub first_line: usize,
    pub last_line: usize,
}

impl Function {
    /// Lines from `fn` to its closing brace, both included.
    pub fn lines(&self) -> usize {
        self.last_line - self.first_line + 1
    }
}

impl Source {
    pub fn read(root: &Path, path: &Path) -> Source {
        let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let relative = path.strip_prefix(root).unwrap_or(path);
        Source::parse(&relative.to_string_lossy().replace('\\', "/"), &text)
    }

    pub fn parse(path: &str, text: &[u8]) -> Source {
        let code = blank_comments_and_literals(text);
        let mut line_starts = vec![0];
        line_starts.extend(
            code.iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        // A final newline does not open a line of its own (as `wc -l` counts).
        if line_starts.len() > 1 && *line_starts.last().unwrap() == code.len() {
            line_starts.pop();
        }
        let mut source = Source {
            path: path.to_string(),
            code,
            line_starts,
            test_spans: Vec::new(),
            test_module_files: Vec::new(),
        };
        source.find_test_items();
        source
    }

    /// Number of lines in the file.
    pub fn line_count(&self) -> usize {
        if self.code.is_empty() {
            0
        } else {
            self.line_starts.len()
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Whether byte `offset` lies inside a `#[cfg(test)]` item.
    pub fn in_test(&self, offset: usize) -> bool {
        self.test_spans
            .iter()
            .any(|&(start, end)| (start..end).contains(&offset))
    }

    /// Lines outside `#[cfg(test)]` items.
    pub fn lines_outside_tests(&self) -> usize {
        let test_lines: usize = self
            .test_spans
            .iter()
            .map(|&(start, end)| self.line_of(end.saturating_sub(1)) - self.line_of(start) + 1)
            .sum();
        self.line_count() - test_lines
    }

    /// Identifiers outside tests, with their byte offsets, in file order.
    pub fn identifiers(&self) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.code.len() {
            if is_ident_start(self.code[i]) && (i == 0 || !is_ident_byte(self.code[i - 1])) {
                let end = ident_end(&self.code, i);
                if !self.in_test(i) {
                    out.push((i, std::str::from_utf8(&self.code[i..end]).unwrap_or("")));
                }
                i = end;
            } else {
                i += 1;
            }
        }
        out
    }

    /// Functions outside tests that have a body (trait method declarations have none).
    pub fn functions(&self) -> Vec<Function> {
        let mut out = Vec::new();
        for (at, word) in self.identifiers() {
            if word != "fn" {
                continue;
            }
            let name_at = skip_space(&self.code, at + 2);
            if !self.code.get(name_at).is_some_and(|&b| is_ident_start(b)) {
                continue; // a function pointer type such as `fn(f64) -> f64`
            }
            let name_end = ident_end(&self.code, name_at);
            let Some(open) = body_start(&self.code, name_end) else {
                continue;
            };
            let close = matching_close(&self.code, open)
                .unwrap_or_else(|| panic!("{}: unbalanced braces in fn at byte {at}", self.path));
            out.push(Function {
                name: String::from_utf8_lossy(&self.code[name_at..name_end]).into_owned(),
                first_line: self.line_of(at),
                last_line: self.line_of(close),
            });
        }
        out
    }

    /// Records the span of every `#[cfg(test)]` item, and the names of test-only module files.
    fn find_test_items(&mut self) {
        let code = &self.code;
        let mut i = 0;
        while let Some(found) = find_cfg_test(code, i) {
            let (attr_start, attr_end) = found;
            // Skip further attributes on the same item.
            let mut at = skip_space(code, attr_end);
            while code.get(at) == Some(&b'#') {
                let open = skip_space(code, at + 1);
                at = match code.get(open) {
                    Some(b'[') => {
                        skip_space(code, matching_close(code, open).map_or(open, |c| c + 1))
                    }
                    _ => break,
                };
            }
            let end = item_end(code, at).unwrap_or_else(|| {
                panic!("{}: cannot find the end of a #[cfg(test)] item", self.path)
            });
            if code[end - 1] == b';' {
                if let Some(name) = declared_module(code, at) {
                    self.test_module_files.push(name);
                }
            }
            self.test_spans.push((attr_start, end));
            i = end;
        }
    }
}

/// Every `.rs` file under `dir`, sorted, so that findings come out in a stable order.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

pub fn ident_end(code: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < code.len() && is_ident_byte(code[end]) {
        end += 1;
    }
    end
}

pub fn skip_space(code: &[u8], mut at: usize) -> usize {
    while at < code.len() && code[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The offset of the brace, bracket or parenthesis that closes the one at `open`.
pub fn matching_close(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where a function's body opens: the first `{` outside parentheses and brackets after its
/// name, or `None` if a `;` comes first (a declaration without a body). Brackets matter because
/// a signature may hold an array type such as `[u8; 4]`.
fn body_start(code: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(from) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => return Some(i),
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// One past the end of the item starting at `from`: its first `;` outside any brackets, or the
/// brace closing its first `{` outside parentheses and brackets.
fn item_end(code: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(from) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => return matching_close(code, i).map(|c| c + 1),
            b';' if depth == 0 => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// The next `#[cfg(test)]` at or after `from` (spaces allowed between tokens), as the range of
/// the attribute.
fn find_cfg_test(code: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i < code.len() {
        if code[i] == b'#' {
            if let Some(end) = match_tokens(code, i + 1, &["[", "cfg", "(", "test", ")", "]"]) {
                return Some((i, end));
            }
        }
        i += 1;
    }
    None
}

/// If the tokens (separated by optional spaces) appear at `at`, the offset just past them.
pub fn match_tokens(code: &[u8], mut at: usize, tokens: &[&str]) -> Option<usize> {
    for token in tokens {
        at = skip_space(code, at);
        let bytes = token.as_bytes();
        if !code[at..].starts_with(bytes) {
            return None;
        }
        at += bytes.len();
        // A word must end here, not run on into a longer identifier.
        if is_ident_byte(bytes[bytes.len() - 1]) && code.get(at).is_some_and(|&b| is_ident_byte(b))
        {
            return None;
        }
    }
    Some(at)
}

/// The name of a `mod name;` declaration starting at `at` (after its attributes), if it is one.
fn declared_module(code: &[u8], mut at: usize) -> Option<String> {
    if let Some(after) = match_tokens(code, at, &["pub"]) {
        at = skip_space(code, after);
        if code.get(at) == Some(&b'(') {
            at = matching_close(code, at)? + 1;
        }
    }
    let name_at = skip_space(code, match_tokens(code, at, &["mod"])?);
    let end = ident_end(code, name_at);
    (end > name_at).then(|| String::from_utf8_lossy(&code[name_at..end]).into_owned())
}

/// Replaces comments and string, byte-string, C-string and char literals with spaces, keeping
/// newlines. Lifetimes and labels (`'a`) are kept: they are code.
pub fn blank_comments_and_literals(text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    let blank = |out: &mut Vec<u8>, start: usize, end: usize| {
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let end = if text[i..].starts_with(b"//") {
            text[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(text.len(), |n| i + n)
        } else if text[i..].starts_with(b"/*") {
            block_comment_end(text, i)
        } else if b == b'"' {
            string_end(text, i + 1)
        } else if b == b'\'' {
            match char_literal_end(text, i) {
                Some(end) => end,
                None => {
                    i += 1; // a lifetime or label
                    continue;
                }
            }
        } else if is_ident_start(b) && (i == 0 || !is_ident_byte(text[i - 1])) {
            match prefixed_literal_end(text, i) {
                Some(end) => end,
                None => {
                    i = ident_end(text, i);
                    continue;
                }
            }
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    out
}

/// One past the end of the (nestable) block comment opening at `start`.
fn block_comment_end(text: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i + 1 < text.len() {
        if text[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if text[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    text.len()
}

/// One past the closing quote of a string whose contents start at `from`.
fn string_end(text: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

/// One past the closing quote of the char literal at `start`, or `None` for a lifetime.
fn char_literal_end(text: &[u8], start: usize) -> Option<usize> {
    let next = *text.get(start + 1)?;
    if next == b'\\' {
        // An escape: '\n', '\'', '\u{1F600}'. The escaped byte itself may be a quote.
        let close = text[start + 3..].iter().position(|&c| c == b'\'')?;
        return Some(start + 3 + close + 1);
    }
    // One character (1 to 4 UTF-8 bytes) and then a quote; otherwise a lifetime such as 'a.
    let width = match next {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    };
    (text.get(start + 1 + width) == Some(&b'\'')).then_some(start + 2 + width)
}

/// For an identifier start at `start` that opens a literal — `b'x'`, `b"…"`, `c"…"`, or a raw
/// string `r"…"`, `r#"…"#`, `br…`, `cr…` — one past the literal's end.
fn prefixed_literal_end(text: &[u8], start: usize) -> Option<usize> {
    let rest = &text[start..];
    if rest.starts_with(b"b'") {
        return char_literal_end(text, start + 1);
    }
    if rest.starts_with(b"b\"") || rest.starts_with(b"c\"") {
        return Some(string_end(text, start + 2));
    }
    let raw_at = if rest.starts_with(b"br") || rest.starts_with(b"cr") {
        start + 2
    } else if rest.starts_with(b"r") {
        start + 1
    } else {
        return None;
    };
    let hashes = text[raw_at..].iter().take_while(|&&c| c == b'#').count();
    if text.get(raw_at + hashes) != Some(&b'"') {
        return None; // an identifier such as `r#type` or `run`
    }
    let closing = format!("\"{}", "#".repeat(hashes)).into_bytes();
    let body = raw_at + hashes + 1;
    let close = text[body..]
        .windows(closing.len())
        .position(|w| w == closing.as_slice());
    Some(close.map_or(text.len(), |n| body + n + closing.len()))
}

/// The parser on the cases a line-based reader gets wrong: braces in char literals, raw
/// strings and nested comments, lifetimes next to char literals, array types in signatures,
/// declarations without bodies, and `#[cfg(test)]` items.
#[test]
fn parser_skips_literals_and_comments_and_finds_functions() {
    let text = br##"fn open<'a>(x: &'a str) -> [u8; 4] {
    let brace = '{';
    let quote = '\'';
    let raw = r#"}" { "#;
    let bytes = b"}";
    /* { /* nested } */ still a comment { */
    // }
    [0; 4]
}
trait T {
    fn declared(&self);
}
fn pointer(f: fn(u8) -> u8) -> u8 { f(1) }
#[cfg(test)]
mod tests {
    fn hidden() {}
}
"##;
    let source = Source::parse("x.rs", text);
    let functions: Vec<(String, usize, usize)> = source
        .functions()
        .into_iter()
        .map(|f| (f.name, f.first_line, f.last_line))
        .collect();
    assert_eq!(
        functions,
        [("open".into(), 1, 9), ("pointer".into(), 13, 13)],
        "functions found"
    );
    assert_eq!(source.line_count(), 17);
    assert_eq!(source.lines_outside_tests(), 13);
    let code = String::from_utf8(source.code.clone()).unwrap();
    assert!(
        !code.contains("nested") && !code.contains("still"),
        "{code}"
    );
    assert!(code.contains("&'a str"), "lifetimes are code: {code}");
}
