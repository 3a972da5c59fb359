//! Word evaluation: quote removal where the value is known without running anything.

use tree_sitter::Node;

use crate::Word;

/// The value of an argument-like node.
pub fn word(node: Node<'_>, src: &str) -> Word {
    let text = node.utf8_text(src.as_bytes()).unwrap_or_default();
    match node.kind() {
        "word" | "number" | "variable_name" => {
            let glob = has_unescaped_glob(text);
            Word { text: unescape(text), literal: true, glob }
        }
        "raw_string" => Word::literal(text.trim_start_matches('\'').trim_end_matches('\'')),
        "ansi_c_string" => Word::literal(ansi_c(text)),
        "string" => {
            let mut cursor = node.walk();
            let mut literal = true;
            let mut out = String::new();
            for child in node.named_children(&mut cursor) {
                let t = child.utf8_text(src.as_bytes()).unwrap_or_default();
                if child.kind() == "string_content" {
                    out.push_str(&unescape_double(t));
                } else {
                    literal = false;
                    out.push_str(t);
                }
            }
            if node.named_child_count() == 0 {
                // `""`: the empty string.
                out.clear();
            }
            Word { text: out, literal, glob: false }
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let parts: Vec<Word> = node.named_children(&mut cursor).map(|c| word(c, src)).collect();
            if parts.is_empty() {
                return Word { text: text.to_string(), literal: false, glob: false };
            }
            Word {
                text: parts.iter().map(|p| p.text.as_str()).collect(),
                literal: parts.iter().all(|p| p.literal),
                glob: parts.iter().any(|p| p.glob),
            }
        }
        "command_name" => match node.named_child(0) {
            Some(inner) => word(inner, src),
            None => Word { text: text.to_string(), literal: false, glob: false },
        },
        _ => Word { text: text.to_string(), literal: false, glob: false },
    }
}

fn has_unescaped_glob(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?' | '[') {
            return true;
        }
    }
    false
}

/// Remove backslash escapes of an unquoted word (`a\ b` → `a b`; `\<newline>` vanishes).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes only `\"`, `\\`, `\$`, `` \` `` and `\<newline>` are escapes.
fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('"' | '\\' | '$' | '`' | '\n')) {
            if let Some(n) = chars.next()
                && n != '\n'
            {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'…'` with its common escapes decoded.
fn ansi_c(text: &str) -> String {
    let inner = text.strip_prefix("$'").and_then(|t| t.strip_suffix('\'')).unwrap_or(text);
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('e' | 'E') => out.push('\u{1b}'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(|c| c.is_ascii_hexdigit())).take(2).collect();
                if let Some(ch) = u8::from_str_radix(&hex, 16).ok().map(char::from) {
                    out.push(ch);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
