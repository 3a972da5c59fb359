//! Git configuration files read as git reads them (`config.c`): `[section]`,
//! `[section "sub"]` and `[section.sub]` headers, a key on the header's line, bare keys,
//! quoted values with `\n \t \b \\ \"` escapes, backslash-newline continuations,
//! `#`/`;` comments, CRLF line ends. The sandbox uses it for two things: the files a
//! config pulls in (`include.path`, `includeIf.*.path`), which are as much the
//! repository's configuration as the config itself; and a repository a command
//! created, whose config is rewritten to the settings rein knows run nothing.

use std::path::{Path, PathBuf};

/// One `key = value` line, names lower-cased as git compares them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub section: String,
    /// The subsection, case kept (`[remote "origin"]`).
    pub sub: Option<String>,
    pub key: String,
    /// `None` for a bare key (a boolean true).
    pub value: Option<String>,
}

/// A config file's entries; `complete` is false when git would stop at a bad line (the
/// entries before it are kept).
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub entries: Vec<Entry>,
    pub complete: bool,
}

/// Parse config text.
pub(crate) fn parse(text: &str) -> Parsed {
    let text = text.replace("\r\n", "\n");
    let b = text.as_bytes();
    let mut p = Parser { b, i: 0 };
    let mut out = Parsed::default();
    let mut section: Option<(String, Option<String>)> = None;
    if b.starts_with("\u{feff}".as_bytes()) {
        p.i = 3;
    }
    loop {
        while p.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            p.i += 1;
        }
        let Some(c) = p.peek() else {
            out.complete = true;
            return out;
        };
        if c == b'#' || c == b';' {
            p.skip_line();
        } else if c == b'[' {
            p.i += 1;
            match p.header() {
                Some(s) => section = Some(s),
                None => return out,
            }
        } else if c.is_ascii_alphabetic() {
            let (Some((name, sub)), Some((key, value))) = (section.clone(), p.key_value()) else { return out };
            out.entries.push(Entry { section: name, sub, key, value });
        } else {
            return out;
        }
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == b'\n' {
                break;
            }
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// After `[`: the section and its subsection, through `]`.
    fn header(&mut self) -> Option<(String, Option<String>)> {
        let mut name = String::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            match c {
                b']' => {
                    // `[a.b]`: the old spelling of `[a "b"]`, all lower-cased.
                    let name = name.to_ascii_lowercase();
                    return Some(match name.split_once('.') {
                        Some((s, sub)) => (s.to_string(), Some(sub.to_string())),
                        None => (name, None),
                    });
                }
                b' ' | b'\t' => break,
                c if c.is_ascii_alphanumeric() || c == b'-' || c == b'.' => name.push(c as char),
                _ => return None,
            }
        }
        self.skip_blanks();
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        let mut sub = Vec::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            match c {
                b'\n' => return None,
                b'"' => break,
                b'\\' => {
                    let e = self.peek().filter(|&e| e != b'\n')?;
                    self.i += 1;
                    sub.push(e);
                }
                c => sub.push(c),
            }
        }
        if self.peek()? != b']' {
            return None;
        }
        self.i += 1;
        Some((name.to_ascii_lowercase(), Some(String::from_utf8_lossy(&sub).into_owned())))
    }

    /// A key and its value, through the end of its (last continued) line.
    fn key_value(&mut self) -> Option<(String, Option<String>)> {
        let mut key = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_ascii_alphanumeric() || *c == b'-') {
            key.push(c.to_ascii_lowercase() as char);
            self.i += 1;
        }
        self.skip_blanks();
        match self.peek() {
            None | Some(b'\n') => return Some((key, None)),
            Some(b'#' | b';') => {
                self.skip_line();
                return Some((key, None));
            }
            Some(b'=') => self.i += 1,
            Some(_) => return None,
        }
        self.skip_blanks();
        let (mut value, mut quote, mut spaces) = (Vec::new(), false, 0usize);
        loop {
            let Some(c) = self.peek() else { return (!quote).then(|| (key, Some(lossy(value)))) };
            self.i += 1;
            match c {
                b'\n' if !quote => return Some((key, Some(lossy(value)))),
                b'\n' => return None,
                b'#' | b';' if !quote => {
                    self.skip_line();
                    return Some((key, Some(lossy(value))));
                }
                c if c.is_ascii_whitespace() && !quote => {
                    spaces += usize::from(!value.is_empty());
                    continue;
                }
                _ => {}
            }
            value.extend(std::iter::repeat_n(b' ', std::mem::take(&mut spaces)));
            match c {
                b'"' => quote = !quote,
                b'\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    match e {
                        b'\n' => {}
                        b'n' => value.push(b'\n'),
                        b't' => value.push(b'\t'),
                        b'b' => value.push(8),
                        b'\\' | b'"' => value.push(e),
                        _ => return None,
                    }
                }
                c => value.push(c),
            }
        }
    }
}

fn lossy(v: Vec<u8>) -> String {
    String::from_utf8_lossy(&v).into_owned()
}

/// The files `entries` (of the config file `file`) include, as git resolves them:
/// `~/` from `home`, relative paths from the config file's directory.
pub(crate) fn includes(entries: &[Entry], file: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    entries
        .iter()
        .filter(|e| e.key == "path" && (e.section == "include" || e.section == "includeif"))
        .filter_map(|e| e.value.as_deref())
        .filter_map(|v| match v.strip_prefix("~/") {
            Some(rest) => home.map(|h| h.join(rest)),
            None if Path::new(v).is_absolute() => Some(PathBuf::from(v)),
            None => file.parent().map(|d| d.join(v)),
        })
        .collect()
}

/// Files and directories inside the repository that settings of `entries` make git run:
/// the `core.hooksPath` directory, and the program a running setting names by path
/// (`core.fsmonitor = ./watch`, `!./scripts/x` aliases, drivers). Relative paths are
/// taken from `base`, the directory git runs them in (the work tree's top).
pub(crate) fn program_paths(entries: &[Entry], base: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let resolve = |v: &str| match v.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)),
        None if Path::new(v).is_absolute() => Some(PathBuf::from(v)),
        None => Some(base.join(v)),
    };
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| !runs_nothing(e)) {
        let Some(value) = e.value.as_deref().map(str::trim) else { continue };
        if e.section == "core" && e.key == "hookspath" {
            out.extend(resolve(value));
            continue;
        }
        let first = value.trim_start_matches('!').split_whitespace().next().unwrap_or("");
        let first = first.trim_matches(['"', '\'']);
        if first.contains('/') {
            out.extend(resolve(first));
        }
    }
    out
}

/// Whether git runs nothing because of this setting: the settings `git init`, `git
/// clone`, `git worktree add` and `git submodule` write, and a few of plain data. A
/// whole allow-list (architecture invariant 12): a key not here is dropped however
/// harmless it looks, since every program-naming key (`core.fsmonitor`, `core.pager`,
/// `diff.*.textconv`, `filter.*.process`, `!` aliases, `include.path`, …; see
/// rein-effects' `git_config.rs` for the ones known) is a key git would run.
fn runs_nothing(e: &Entry) -> bool {
    let sub = e.sub.is_some();
    match (e.section.as_str(), e.key.as_str()) {
        ("core", k) if !sub => matches!(
            k,
            "repositoryformatversion"
                | "filemode"
                | "bare"
                | "logallrefupdates"
                | "ignorecase"
                | "precomposeunicode"
                | "symlinks"
                | "autocrlf"
                | "eol"
                | "quotepath"
                | "sparsecheckout"
                | "sparsecheckoutcone"
                | "worktree"
        ),
        ("extensions", _) => !sub,
        ("remote", k) => sub && matches!(k, "url" | "pushurl" | "fetch" | "push" | "tagopt" | "mirror" | "prune"),
        ("branch", k) => sub && matches!(k, "remote" | "merge" | "rebase" | "pushremote" | "description"),
        ("submodule", k) => sub && matches!(k, "url" | "active" | "branch"),
        ("user", "name" | "email") | ("init", "defaultbranch") | ("lfs", "repositoryformatversion") => !sub,
        _ => false,
    }
}

/// The config text git reads for `entries` (one header per run of a section).
fn render(entries: &[&Entry]) -> String {
    fn quoted(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                c => out.push(c),
            }
        }
        out + "\""
    }
    let mut out = String::new();
    let mut last: Option<(&str, Option<&str>)> = None;
    for e in entries {
        let head = (e.section.as_str(), e.sub.as_deref());
        if last != Some(head) {
            match head.1 {
                Some(sub) => out.push_str(&format!("[{} {}]\n", head.0, quoted(sub))),
                None => out.push_str(&format!("[{}]\n", head.0)),
            }
            last = Some(head);
        }
        match &e.value {
            Some(v) if v.trim() == v && !v.contains(['#', ';', '"', '\\', '\n', '\t', '\u{8}']) => {
                out.push_str(&format!("\t{} = {v}\n", e.key));
            }
            Some(v) => out.push_str(&format!("\t{} = {}\n", e.key, quoted(v))),
            None => out.push_str(&format!("\t{}\n", e.key)),
        }
    }
    out
}

/// What [`neutralise`] did to one file.
#[derive(Debug, PartialEq)]
pub(crate) struct Neutralised {
    /// The settings dropped, as `section[.sub].key`; `"(unreadable from here on)"` when
    /// git would have stopped at a bad line.
    pub dropped: Vec<String>,
    /// Where the original text was kept.
    pub kept_at: PathBuf,
}

/// Rewrite the config file `file` to the settings that run nothing; the original is
/// kept beside it as `<name>.rein-quarantined` (git reads no such file), so nothing the
/// command wrote is lost. `Ok(None)`: nothing to drop (or no such file).
pub(crate) fn neutralise(file: &Path) -> std::io::Result<Option<Neutralised>> {
    // Only a regular file is read or rewritten: a link the command put there is an
    // error (the caller removes the link itself), never followed to the host.
    let text = match crate::nofollow::read_regular(file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let parsed = parse(&text);
    let (kept, dropped): (Vec<&Entry>, Vec<&Entry>) = parsed.entries.iter().partition(|e| runs_nothing(e));
    let mut names: Vec<String> = dropped
        .iter()
        .map(|e| match &e.sub {
            Some(sub) => format!("{}.{sub}.{}", e.section, e.key),
            None => format!("{}.{}", e.section, e.key),
        })
        .collect();
    if !parsed.complete {
        names.push("(unreadable from here on)".into());
    }
    if names.is_empty() {
        return Ok(None);
    }
    let mut kept_at = file.as_os_str().to_owned();
    kept_at.push(".rein-quarantined");
    let kept_at = PathBuf::from(kept_at);
    crate::nofollow::replace(&kept_at, text.as_bytes(), 0o600)?;
    crate::nofollow::replace(file, render(&kept).as_bytes(), 0o644)?;
    Ok(Some(Neutralised { dropped: names, kept_at }))
}

#[cfg(test)]
#[path = "gitconfig_tests.rs"]
mod tests;
