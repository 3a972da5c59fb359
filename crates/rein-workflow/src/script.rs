//! Reading a workflow script before it runs: its `export const meta = {…}` header, which
//! must be the first statement and a pure literal (read without running anything), and
//! the checks made at submission — size, and no literal call that would make a rerun
//! differ (`Date.now()`, `Math.random()`, `new Date()`).

use serde::Deserialize;
use serde_json::Value;

use crate::WorkflowError;

/// The largest script taken (Claude Code's limit).
pub const MAX_SCRIPT_BYTES: usize = 512 * 1024;

/// What a script says of itself.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub name: String,
    /// One line, shown when the person is asked.
    pub description: String,
    #[serde(default)]
    pub when_to_use: Option<String>,
    #[serde(default)]
    pub phases: Vec<PhaseMeta>,
}

/// A progress group the script declares.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PhaseMeta {
    pub title: String,
    #[serde(default)]
    pub detail: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

/// A script ready to run: its header and its body as a function's source.
#[derive(Debug, Clone)]
pub struct Script {
    pub meta: Meta,
    /// The text as given.
    pub source: String,
}

impl Script {
    /// Read `source`: its header, and the submission checks.
    pub fn parse(source: &str) -> Result<Script, WorkflowError> {
        if source.len() > MAX_SCRIPT_BYTES {
            return Err(WorkflowError::Script(format!(
                "the script is {} bytes; the limit is {MAX_SCRIPT_BYTES}",
                source.len()
            )));
        }
        nondeterministic_calls(source)?;
        let (_, literal_start, end) = header(source)?;
        let literal = &source[literal_start..end];
        let literal = pure(literal)?;
        let value: Value = json5::from_str(&literal)
            .map_err(|e| WorkflowError::Script(format!("`meta` is not a plain object literal: {e}")))?;
        for reserved in ["constructor", "__proto__", "prototype"] {
            if value.get(reserved).is_some() {
                return Err(WorkflowError::Script(format!("`meta` may not have a key named {reserved}")));
            }
        }
        let meta: Meta = serde_json::from_value(value)
            .map_err(|e| WorkflowError::Script(format!("`meta` needs a name and a one-line description: {e}")))?;
        if meta.name.trim().is_empty() || meta.description.trim().is_empty() {
            return Err(WorkflowError::Script("`meta` needs a name and a one-line description".into()));
        }
        Ok(Script { meta, source: source.to_string() })
    }

    /// The body as the source of an async function of `(args, workflow)`: the
    /// header's `export` is blanked (columns kept), lines shift by one.
    pub(crate) fn function_source(&self) -> String {
        let mut body = self.source.clone();
        if let Ok((start, _, _)) = header(&self.source) {
            body.replace_range(start..start + "export".len(), "      ");
        }
        format!("(async function (args, workflow) {{\n{body}\n}})")
    }
}

/// Where the header starts (`export`), where its literal starts (`{`) and ends (after
/// the matching `}`).
fn header(source: &str) -> Result<(usize, usize, usize), WorkflowError> {
    let missing = || WorkflowError::Script("a workflow script must begin with `export const meta = { … }`".into());
    let start = skip_blank(source, 0);
    let mut at = start;
    for word in ["export", "const", "meta"] {
        if !source[at..].starts_with(word) {
            return Err(missing());
        }
        at = skip_blank(source, at + word.len());
    }
    if !source[at..].starts_with('=') {
        return Err(missing());
    }
    at = skip_blank(source, at + 1);
    if !source[at..].starts_with('{') {
        return Err(WorkflowError::Script("`meta` must be an object literal".into()));
    }
    let end = matching_brace(source, at).ok_or_else(|| WorkflowError::Script("`meta`'s braces do not close".into()))?;
    Ok((start, at, end))
}

/// The first byte at or after `at` that is neither white space nor inside a comment.
fn skip_blank(s: &str, mut at: usize) -> usize {
    let b = s.as_bytes();
    loop {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if s[at..].starts_with("//") {
            at = s[at..].find('\n').map_or(b.len(), |n| at + n + 1);
        } else if s[at..].starts_with("/*") {
            at = s[at + 2..].find("*/").map_or(b.len(), |n| at + 2 + n + 2);
        } else {
            return at;
        }
    }
}

/// The end (exclusive) of the braces opened at `open`, strings and comments skipped.
fn matching_brace(s: &str, open: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut at = open;
    while at < b.len() {
        match b[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                at += 1;
                while at < b.len() && b[at] != q {
                    at += if b[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if s[at..].starts_with("//") || s[at..].starts_with("/*") => {
                at = skip_blank(s, at);
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The header is read before the script runs: no call, variable, spread or
/// interpolation may be in it. Returned as JSON5 (a template without `${…}` becomes a
/// quoted string).
fn pure(literal: &str) -> Result<String, WorkflowError> {
    let not_pure = |what: &str| {
        Err(WorkflowError::Script(format!(
            "`meta` must be a pure literal (it is read before the script runs): it has {what}"
        )))
    };
    let b = literal.as_bytes();
    let mut at = 0;
    // The last significant character outside strings: an identifier after `:` `,` `[`
    // or at a value's place is a variable, not a key.
    let mut last = b'{';
    let mut out = String::with_capacity(literal.len());
    let mut copied = 0;
    while at < b.len() {
        let c = b[at];
        match c {
            b'"' | b'\'' | b'`' => {
                let from = at;
                at += 1;
                while at < b.len() && b[at] != c {
                    at += if b[at] == b'\\' { 2 } else { 1 };
                }
                let end = at.min(b.len());
                if c == b'`' {
                    let text = &literal[from + 1..end];
                    if text.contains("${") {
                        return not_pure("a template with `${…}`");
                    }
                    let text = text.replace("\\`", "`").replace("\\n", "\n").replace("\\\\", "\\");
                    out.push_str(&literal[copied..from]);
                    out.push_str(&serde_json::Value::String(text).to_string());
                    copied = (end + 1).min(b.len());
                }
                last = b'"';
            }
            b'(' | b')' => return not_pure("a call or a parenthesis"),
            b'.' if literal[at..].starts_with("...") => return not_pure("a spread (`...`)"),
            b'/' if literal[at..].starts_with("//") || literal[at..].starts_with("/*") => {
                at = skip_blank(literal, at);
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let from = at;
                while at < b.len() && (b[at].is_ascii_alphanumeric() || b[at] == b'_' || b[at] == b'$') {
                    at += 1;
                }
                let word = &literal[from..at];
                let next = skip_blank(literal, at);
                let is_key = matches!(last, b'{' | b',') && literal[next..].starts_with(':');
                let is_value_word = matches!(word, "true" | "false" | "null" | "Infinity" | "NaN");
                if !is_key && !is_value_word {
                    return not_pure(&format!("the name `{word}`"));
                }
                last = b'a';
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            c => last = c,
        }
        at += 1;
    }
    out.push_str(&literal[copied.min(literal.len())..]);
    Ok(out)
}

/// Calls that make a rerun differ are refused before the script runs (an alias still
/// throws when called, see the prelude).
fn nondeterministic_calls(source: &str) -> Result<(), WorkflowError> {
    static CALLS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let calls = CALLS.get_or_init(|| {
        regex::Regex::new(r"\bDate\s*\.\s*now\s*\(|\bMath\s*\.\s*random\s*\(|\bnew\s+Date\s*\(\s*\)").ok()
    });
    if let Some(found) = calls.as_ref().and_then(|r| r.find(source)) {
        let line = source[..found.start()].lines().count().max(1);
        return Err(WorkflowError::Script(format!(
            "line {line}: `{}` is refused: a workflow must do the same on a rerun (resuming replays it). Pass \
             times in `args` or stamp the result after the workflow returns; for varied samples put the index in \
             each agent's prompt",
            found.as_str().trim_end_matches('(')
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(source: &str) -> String {
        match Script::parse(source) {
            Err(e) => e.to_string(),
            Ok(s) => panic!("accepted: {s:?}"),
        }
    }

    #[test]
    fn the_header_is_read_without_running_the_script() -> Result<(), WorkflowError> {
        let s = Script::parse(
            "// a review\nexport const meta = {\n  name: 'review', // its name\n  description: \"Review the diff\",\n  \
             whenToUse: `many files`,\n  phases: [{ title: 'Read' }, { title: 'Judge', detail: 'x', model: 'haiku' },],\n}\n\
             phase('Read')\nreturn 1\n",
        )?;
        assert_eq!(s.meta.name, "review");
        assert_eq!(s.meta.when_to_use.as_deref(), Some("many files"));
        assert_eq!(s.meta.phases.len(), 2);
        assert_eq!(s.meta.phases[1].model.as_deref(), Some("haiku"));
        let f = s.function_source();
        assert!(f.starts_with("(async function (args, workflow) {\n// a review\n       const meta"), "{f}");
        Ok(())
    }

    #[test]
    fn a_header_that_is_not_a_pure_literal_is_refused() {
        assert!(err("const x = 1\nexport const meta = {name:'a', description:'b'}").contains("must begin"));
        assert!(err("export const meta = {name: n, description:'b'}").contains("the name `n`"));
        assert!(err("export const meta = {name: f(), description:'b'}").contains("pure literal"));
        assert!(err("export const meta = {name: 'a', description: ('b')}").contains("call"));
        assert!(err("export const meta = {...base, name:'a', description:'b'}").contains("spread"));
        assert!(err("export const meta = {name:`a${x}`, description:'b'}").contains("template"));
        assert!(err("export const meta = {name:'a'}").contains("description"));
        assert!(err("export const meta = {name:'a', description:'b', constructor: 1}").contains("constructor"));
        assert!(err("export const meta = {name:'a', description:'b'").contains("close"));
    }

    #[test]
    fn literal_nondeterministic_calls_are_refused_with_their_line() {
        let e = err("export const meta = {name:'a', description:'b'}\nconst t = Date.now()\n");
        assert!(e.contains("line 2") && e.contains("Date.now"), "{e}");
        assert!(err("export const meta = {name:'a', description:'b'}\nMath.random ()").contains("Math.random"));
        assert!(err("export const meta = {name:'a', description:'b'}\nnew Date( )").contains("new Date"));
        assert!(Script::parse("export const meta = {name:'a', description:'b'}\nnew Date(0)").is_ok());
    }

    #[test]
    fn an_oversized_script_is_refused() {
        let big = format!("export const meta = {{name:'a', description:'b'}}\n//{}", "x".repeat(MAX_SCRIPT_BYTES));
        assert!(err(&big).contains("limit"));
    }
}
