//! What an edit's result gains: the errors and warnings the language server reports for
//! the changed file that it did not report before the change (all of them, the first
//! time the server sees the file), bounded in number and length.

use std::path::Path;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

use crate::LspError;

/// At most this many diagnostics are listed for one file.
const MAX_LISTED: usize = 12;
/// A diagnostic's message is cut at this many characters.
const MAX_MESSAGE: usize = 300;

/// Errors and warnings only: hints and information are a server's suggestions.
fn matters(d: &Diagnostic) -> bool {
    !matches!(d.severity, Some(DiagnosticSeverity::HINT) | Some(DiagnosticSeverity::INFORMATION))
}

/// What identifies a diagnostic across an edit that moves lines.
fn key(d: &Diagnostic) -> (Option<DiagnosticSeverity>, String, Option<String>) {
    let code = d.code.as_ref().map(|c| match c {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.clone(),
    });
    (d.severity, d.message.clone(), code)
}

/// The text for the model, or `None` when nothing new matters.
pub(crate) fn report(
    server: &str,
    path: &Path,
    root: &Path,
    before: Option<&[Diagnostic]>,
    after: &[Diagnostic],
    text: &str,
) -> Option<String> {
    let mut old: Vec<_> = before.unwrap_or_default().iter().filter(|d| matters(d)).map(key).collect();
    let mut new = Vec::new();
    for d in after.iter().filter(|d| matters(d)) {
        match old.iter().position(|k| *k == key(d)) {
            Some(i) => {
                old.swap_remove(i);
            }
            None => new.push(d),
        }
    }
    if new.is_empty() {
        return None;
    }
    new.sort_by_key(|d| (d.severity != Some(DiagnosticSeverity::ERROR), d.range.start.line, d.range.start.character));
    let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out =
        format!("<new-diagnostics>\nThe language server {server} now reports in {name} ({} new):\n", new.len());
    for d in new.iter().take(MAX_LISTED) {
        let severity = if d.severity == Some(DiagnosticSeverity::WARNING) { "warning" } else { "error" };
        let line = d.range.start.line as usize;
        let column = lines
            .get(line)
            .map_or(d.range.start.character as usize, |l| crate::position::column_of(l, d.range.start.character))
            + 1;
        let mut message: String = d.message.replace('\n', " ");
        if message.chars().count() > MAX_MESSAGE {
            message = message.chars().take(MAX_MESSAGE).collect::<String>() + "…";
        }
        let code = key(d).2.map(|c| format!(" [{c}]")).unwrap_or_default();
        let source = d.source.as_ref().map(|s| format!(" ({s})")).unwrap_or_default();
        out.push_str(&format!("  {severity} at line {}:{column}: {message}{code}{source}\n", line + 1));
    }
    if new.len() > MAX_LISTED {
        out.push_str(&format!("  … and {} more\n", new.len() - MAX_LISTED));
    }
    out.push_str("</new-diagnostics>");
    Some(out)
}

/// Why the change's diagnostics could not be had.
pub(crate) fn unavailable(e: &LspError) -> String {
    format!("<new-diagnostics>\nNo diagnostics for this change: {e}\n</new-diagnostics>")
}

#[cfg(test)]
mod tests {
    use lsp_types::{Position, Range};

    use super::*;

    fn diag(line: u32, message: &str, severity: DiagnosticSeverity) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 4), Position::new(line, 5)),
            severity: Some(severity),
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn only_what_the_change_brought_is_reported_and_hints_are_not() {
        let before = [diag(1, "old problem", DiagnosticSeverity::ERROR)];
        let after = [
            diag(3, "old problem", DiagnosticSeverity::ERROR),
            diag(5, "x is not a str", DiagnosticSeverity::ERROR),
            diag(6, "unused import", DiagnosticSeverity::HINT),
        ];
        let text = "a\nb\nc\nd\ne\n\tx = 1\n";
        let out = report("py", Path::new("/w/src/a.py"), Path::new("/w"), Some(&before), &after, text).unwrap();
        assert!(out.contains("src/a.py (1 new)"), "{out}");
        assert!(out.contains("error at line 6:5: x is not a str"), "{out}");
        assert!(!out.contains("old problem") && !out.contains("unused"), "{out}");
        assert_eq!(report("py", Path::new("/w/a.py"), Path::new("/w"), Some(&after), &after, text), None);
    }

    #[test]
    fn a_flood_of_diagnostics_is_bounded() {
        let after: Vec<Diagnostic> =
            (0..100).map(|i| diag(i, &"long ".repeat(200), DiagnosticSeverity::WARNING)).collect();
        let out = report("ts", Path::new("/w/a.ts"), Path::new("/w"), None, &after, "").unwrap();
        assert!(out.contains("… and 88 more"), "{out}");
        assert!(out.len() < 12 * 400 + 200, "{}", out.len());
    }
}
