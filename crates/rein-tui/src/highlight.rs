//! Code in an answer's fenced blocks, coloured by a small lexical highlighter: keywords
//! of the block's language, strings, numbers and comments. Light by design: no grammar
//! files to load, no cost at start.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "None", "nonlocal", "not", "or",
    "pass", "raise", "return", "True", "try", "while", "with", "yield",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "return",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];
const SHELL: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "function", "in", "export",
    "local", "return",
];

/// The keywords of a fence's language (`rust`, `py`, `ts`, …), and its line-comment
/// marker.
fn language(lang: &str) -> (&'static [&'static str], &'static str) {
    match lang.trim().to_ascii_lowercase().as_str() {
        "rust" | "rs" => (RUST, "//"),
        "python" | "py" => (PYTHON, "#"),
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" => (JS, "//"),
        "go" | "golang" => (GO, "//"),
        "sh" | "bash" | "shell" | "zsh" => (SHELL, "#"),
        _ => (&[], "//"),
    }
}

/// One line of code in `lang`, as coloured spans.
pub(crate) fn line(code: &str, lang: &str) -> Vec<Span<'static>> {
    let (keywords, comment) = language(lang);
    let keyword = Style::default().fg(crate::theme::palette().brand).add_modifier(Modifier::BOLD);
    let string = Style::default().fg(crate::theme::palette().success);
    let number = Style::default().fg(crate::theme::palette().warning);
    let dim = Style::default().add_modifier(Modifier::DIM);
    let plain = Style::default().fg(crate::theme::palette().accent);
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Span<'static>>| {
        if word.is_empty() {
            return;
        }
        let w = std::mem::take(word);
        let style = if keywords.contains(&w.as_str()) {
            keyword
        } else if w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            number
        } else {
            plain
        };
        out.push(Span::styled(w, style));
    };
    while i < chars.len() {
        let rest: String = chars[i..].iter().collect();
        if rest.starts_with(comment) {
            flush(&mut word, &mut out);
            out.push(Span::styled(rest, dim));
            return out;
        }
        let c = chars[i];
        if c == '"' || c == '\'' || c == '`' {
            flush(&mut word, &mut out);
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.push(Span::styled(chars[i..end].iter().collect::<String>(), string));
            i = end;
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(Span::styled(c.to_string(), plain));
        }
        i += 1;
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_strings_and_comments() {
        let spans = line("let x = \"hi\"; // note", "rust");
        let find = |t: &str| spans.iter().find(|s| s.content == t).map(|s| s.style);
        assert_eq!(find("let").and_then(|s| s.fg), Some(ratatui::style::Color::Magenta));
        assert_eq!(find("\"hi\"").and_then(|s| s.fg), Some(ratatui::style::Color::Green));
        assert!(spans.last().is_some_and(|s| s.content == "// note"));
        let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "let x = \"hi\"; // note");
    }
}
