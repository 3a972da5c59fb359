//! The YAML front matter of Markdown definitions (subagents, commands, skills, output
//! styles), one parser for all of them. The block between a first `---` line and the
//! next is read as YAML; CRLF files read as LF. Real definitions often carry values YAML
//! rejects (a description with `: ` in it, `<example>` blocks): like Claude Code, those
//! are read again key by key (a line starting at column 0 with `key:` opens a key; the
//! lines under it continue its value). Only a block that reads neither way is an error,
//! with its line and column in the file.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

/// A definition's front matter and body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    /// Top-level keys and their values.
    pub fields: BTreeMap<String, Value>,
    /// Whether the file had a front-matter block at all.
    pub present: bool,
    /// What follows the block (the whole file when there is none), LF line ends.
    pub body: String,
}

/// Why a front-matter block could not be read: the line (1-based, in the file) and
/// column, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterError {
    pub line: usize,
    pub column: usize,
    pub reason: String,
}

impl std::fmt::Display for FrontMatterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.reason)
    }
}

impl std::error::Error for FrontMatterError {}

/// A file in a definitions folder that was not taken (no front matter, a required field
/// missing, YAML that does not read): where, and why. `rein doctor` lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: std::path::PathBuf,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: skipped: {}", self.path.display(), self.line, self.reason)
    }
}

/// A definition file's text, read with as few system calls as the file allows: one
/// read for files up to 16 KiB (no size query, no second read for the end), more only
/// for larger ones. Installs with hundreds of definitions open every one at start, so
/// the buffer is the thread's own, zeroed once, not once a file.
pub fn read_definition(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    const FIRST: usize = 16 * 1024;
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut file = std::fs::File::open(path)?;
    BUFFER.with_borrow_mut(|bytes| {
        if bytes.len() < FIRST {
            bytes.resize(FIRST, 0);
        }
        let mut filled = 0;
        loop {
            match file.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    // A regular file answers a short read only at its end.
                    if filled < bytes.len() {
                        break;
                    }
                    let grown = bytes.len() * 2;
                    bytes.resize(grown, 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let text = std::str::from_utf8(&bytes[..filled])
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?
            .to_string();
        // A very large file does not keep its buffer.
        if bytes.len() > 4 * FIRST {
            *bytes = Vec::new();
        }
        Ok(text)
    })
}

/// Read `text`'s front matter.
pub fn parse(text: &str) -> Result<FrontMatter, FrontMatterError> {
    let text = normalized(text);
    let (block, body) = split(&text)?;
    let Some(block) = block else {
        return Ok(FrontMatter { body: body.to_string(), ..FrontMatter::default() });
    };
    let fields = read_block(block)?;
    Ok(FrontMatter { fields, present: true, body: body.to_string() })
}

/// `text`'s front matter, its `body` only the body's first non-empty line (what a
/// definition without a `description` is described by): definitions are loaded by
/// their fields, and their bodies read when used ([`crate::body::Body`]).
pub fn parse_head(text: &str) -> Result<FrontMatter, FrontMatterError> {
    let text = normalized(text);
    let (block, body) = split(&text)?;
    let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
    let fields = block.map(read_block).transpose()?.unwrap_or_default();
    Ok(FrontMatter { fields, present: block.is_some(), body: first })
}

/// What follows `text`'s front matter (all of it when there is none), LF line ends —
/// the body as [`parse`] gives it, without reading the block.
pub fn body_of(text: &str) -> Result<String, FrontMatterError> {
    let text = normalized(text);
    Ok(split(&text)?.1.to_string())
}

/// The text without a byte-order mark, CRLF read as LF.
fn normalized(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains('\r') { text.replace("\r\n", "\n").into() } else { text.into() }
}

/// The front-matter block (`None` when the text has none) and the body after it.
fn split(text: &str) -> Result<(Option<&str>, &str), FrontMatterError> {
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok((None, text));
    };
    let (block, body) = match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            // The closing line may carry trailing dashes or spaces; the body starts after it.
            let body = after.split_once('\n').map_or("", |(_, b)| b);
            (&rest[..end], body)
        }
        None if rest.trim_end() == "---" || rest.starts_with("---") => ("", rest.trim_start_matches('-')),
        None => {
            return Err(FrontMatterError {
                line: 1,
                column: 1,
                reason: "the front matter is not closed with a `---` line".into(),
            });
        }
    };
    Ok((Some(block), body.trim_start_matches('\n')))
}

/// The block as YAML, else key by key.
fn read_block(block: &str) -> Result<BTreeMap<String, Value>, FrontMatterError> {
    if block.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    if let Some(simple) = simple_block(block) {
        return Ok(simple);
    }
    let yaml_error = match serde_yaml_ng::from_str::<Value>(block) {
        Ok(Value::Mapping(map)) => {
            return Ok(map.into_iter().filter_map(|(k, v)| Some((key_text(&k)?, v))).collect());
        }
        Ok(Value::Null) => return Ok(BTreeMap::new()),
        Ok(_) => {
            FrontMatterError { line: 2, column: 1, reason: "the front matter is not a list of `key: value`".into() }
        }
        Err(e) => {
            // The parser's lines are the block's, 1-based; the block starts on the file's line 2.
            let last = block.lines().count().max(1);
            let (line, column) = e.location().map_or((1, 1), |l| (l.line().clamp(1, last), l.column()));
            FrontMatterError { line: line + 1, column, reason: without_positions(&e.to_string()) }
        }
    };
    key_by_key(block).ok_or(yaml_error)
}

/// Most definitions are one `key: plain value` per line; those are read without the
/// YAML parser (what the parser would give, at a fraction of the cost — installs with
/// hundreds of definitions start faster). `None` when any line needs YAML.
fn simple_block(block: &str) -> Option<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for line in block.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(':')?;
        let value = value.trim();
        let plain_key = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        if plain_key && let Some(items) = flow_list(value) {
            if out.insert(key.to_string(), items).is_some() {
                return None;
            }
            continue;
        }
        let special = |c: char| "[]{}|>&*!%@`,\\".contains(c);
        if !plain_key || value.is_empty() || value.starts_with(special) || value.contains(": ") || value.contains('\t')
        {
            return None;
        }
        let text = match value.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let inner = value.strip_prefix(q)?.strip_suffix(q)?;
                if inner.contains(q) || inner.contains('\\') {
                    return None;
                }
                inner.to_string()
            }
            _ => value.split(" #").next().unwrap_or(value).trim_end().to_string(),
        };
        let typed = match text.as_str() {
            "true" | "false" if !value.starts_with(['"', '\'']) => Value::Bool(text == "true"),
            _ if !value.starts_with(['"', '\'']) && text.parse::<u64>().is_ok() => {
                Value::Number(text.parse::<u64>().ok()?.into())
            }
            "~" | "null" => Value::Null,
            _ => Value::String(text),
        };
        if out.insert(key.to_string(), typed).is_some() {
            return None;
        }
    }
    Some(out)
}

/// `[a, b]` of plain items (no quotes, brackets, braces or `: `), as YAML reads it.
fn flow_list(value: &str) -> Option<Value> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    if inner.contains(['[', ']', '{', '}', '"', '\'', '#', '&', '*', '!', '|', '>', '`']) || inner.contains(": ") {
        return None;
    }
    let items = inner.split(',').map(str::trim).filter(|i| !i.is_empty());
    Some(Value::Sequence(items.map(|i| Value::String(i.to_string())).collect()))
}

/// The parser's message without its block-relative ` at line N column M`.
fn without_positions(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(" at line ") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + " at line ".len()..];
        let skip = tail.find(|c: char| !(c.is_ascii_digit() || c == ' ' || "column".contains(c))).unwrap_or(tail.len());
        rest = &tail[skip..];
    }
    out.push_str(rest);
    out
}

fn key_text(key: &Value) -> Option<String> {
    match key {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Definition fields whose value is one line: nothing unindented continues them.
const ONE_LINE_FIELDS: &[&str] = &[
    "name",
    "model",
    "tools",
    "disallowedTools",
    "allowed-tools",
    "color",
    "permissionMode",
    "effort",
    "memory",
    "argument-hint",
    "context",
    "agent",
    "version",
    "license",
];

/// Claude Code's fallback: `key: value` lines at column 0; every other line continues
/// the value above (`- item` lines make a list). `None` when a line comes before any
/// key.
fn key_by_key(block: &str) -> Option<BTreeMap<String, Value>> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in block.lines() {
        let opens = (!line.starts_with([' ', '\t', '-', '#']))
            .then(|| line.split_once(':'))
            .flatten()
            .filter(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_')));
        match opens {
            Some((key, value)) => out.push((key.to_string(), vec![value.trim().to_string()])),
            None if line.trim().is_empty() || line.trim_start().starts_with('#') && out.is_empty() => {}
            // An indented line, or an unindented one below free text (an `<example>` block
            // after a description, as some of Anthropic's own plugin agents have), continues
            // the value above. Below a one-word field (`name`, `model`, …), or before any
            // key, it belongs to nothing: the YAML error stands.
            None => {
                let last = out.last_mut()?;
                if !line.starts_with([' ', '\t', '-', '#']) && ONE_LINE_FIELDS.contains(&last.0.as_str()) {
                    return None;
                }
                last.1.push(line.to_string());
            }
        }
    }
    Some(out.into_iter().map(|(k, lines)| (k, loose_value(&lines))).collect())
}

/// A value read without YAML: a list when its lines are `- item`s, else its text.
fn loose_value(lines: &[String]) -> Value {
    let first = lines.first().map(String::as_str).unwrap_or_default();
    let rest: Vec<&str> = lines[1..].iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
    if first.is_empty() && !rest.is_empty() && rest.iter().all(|l| l.starts_with("- ")) {
        return Value::Sequence(rest.iter().map(|l| Value::String(unquote(&l[2..]).to_string())).collect());
    }
    let mut text = unquote(first).to_string();
    if matches!(first, "|" | ">" | "|-" | ">-") {
        text.clear();
    }
    for l in rest {
        if !text.is_empty() {
            text.push(if first.starts_with('|') { '\n' } else { ' ' });
        }
        text.push_str(l);
    }
    Value::String(text)
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

impl FrontMatter {
    /// A text field (a number or a boolean as written; `[file]`, which YAML reads as a
    /// list, as written; empty is absent).
    pub fn text(&self, key: &str) -> Option<String> {
        let text = match self.fields.get(key)? {
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Sequence(_) => format!("[{}]", self.list(key)?.join(", ")),
            _ => return None,
        };
        (!text.is_empty()).then_some(text)
    }

    /// A boolean field: `true`/`false`, or the text `"true"`/`"false"`.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.fields.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" => Some(true),
                "false" | "no" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    /// A whole number field.
    pub fn number(&self, key: &str) -> Option<u64> {
        match self.fields.get(key)? {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A list field: a YAML list, or one text of comma-separated items (commas inside
    /// parentheses kept, as in `Bash(git add:*, git commit:*)`; `[a, b]` brackets
    /// dropped). `None` when the key is absent.
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        match self.fields.get(key)? {
            Value::Sequence(items) => Some(
                items
                    .iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s.trim().to_string()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
            Value::String(s) => Some(split_list(s.trim().trim_start_matches('[').trim_end_matches(']'))),
            Value::Null => Some(Vec::new()),
            _ => None,
        }
    }

    /// A field's raw value (hooks, MCP servers).
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }
}

/// `A, B(x, y), C` → the items (commas inside parentheses kept; quotes dropped).
pub fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out.into_iter().map(|r| unquote(&r).to_string()).filter(|r| !r.is_empty()).collect()
}

#[cfg(test)]
#[path = "frontmatter_tests.rs"]
mod tests;
