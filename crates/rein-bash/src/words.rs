//! Word evaluation: quote removal where the value is known without running anything.

use tree_sitter::Node;

use crate::Word;

/// The value of an argument-like node.
pub(crate) fn word(node: Node<'_>, src: &str) -> Word {
    let text = node.utf8_text(src.as_bytes()).unwrap_or_default();
    match node.kind() {
        "word" | "number" | "variable_name" => {
            let glob = has_unescaped_glob(text);
            // A bracket expression matches as bash matches it (`[!x]`, `[^x]`, classes,
            // the locale's ranges): rein does not expand it, so its names are unknown.
            let literal = !expands_at_run_time(&[(text, false)]) && !has_bracket_glob(text);
            Word { text: unescape(text), literal, glob }
        }
        "raw_string" => Word::literal(text.trim_start_matches('\'').trim_end_matches('\'')),
        "ansi_c_string" => match ansi_c(text) {
            Some(t) => Word::literal(t),
            None => Word { text: text.to_string(), literal: false, glob: false },
        },
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
            let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            let parts: Vec<Word> = kids.iter().map(|c| word(*c, src)).collect();
            if parts.is_empty() {
                return Word { text: text.to_string(), literal: false, glob: false };
            }
            // Brace expansion and tildes are seen across the unquoted parts.
            let raw: Vec<(&str, bool)> =
                kids.iter().map(|c| (c.utf8_text(src.as_bytes()).unwrap_or_default(), c.kind() != "word")).collect();
            Word {
                text: parts.iter().map(|p| p.text.as_str()).collect(),
                literal: parts.iter().all(|p| p.literal)
                    && !expands_at_run_time(&raw)
                    && !has_bracket_glob(&raw.iter().map(|(t, q)| if *q { "q" } else { t }).collect::<String>()),
                glob: parts.iter().any(|p| p.glob),
            }
        }
        "command_name" => match node.named_child(0) {
            Some(inner) => word(inner, src),
            None => Word { text: text.to_string(), literal: false, glob: false },
        },
        // Unquoted, the value is split into words and each globbed: `glob` marks a word
        // that may become several (`-e $x` may be `-e a -r /`).
        "simple_expansion" | "expansion" | "command_substitution" => {
            Word { text: text.to_string(), literal: false, glob: true }
        }
        _ => Word { text: text.to_string(), literal: false, glob: false },
    }
}

/// Whether the unquoted parts of a word (text, quoted) hold a brace expansion (`{a,b}`,
/// `{1..3}`) or a tilde form whose value rein does not know (`~user`, `~+`, `~-`).
fn expands_at_run_time(parts: &[(&str, bool)]) -> bool {
    if let Some((first, false)) = parts.first()
        && let Some(rest) = first.strip_prefix('~')
        && !(rest.is_empty() || rest.starts_with('/'))
    {
        return true;
    }
    // Unquoted, unescaped `{` … (`,` or `..`) … `}`.
    let mut open = false;
    let mut sep = false;
    for (text, quoted) in parts {
        if *quoted {
            continue;
        }
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '{' => open = true,
                ',' if open => sep = true,
                '.' if open && chars.peek() == Some(&'.') => sep = true,
                '}' if open && sep => return true,
                _ => {}
            }
        }
    }
    false
}

/// An unescaped `[` with a `]` after it.
fn has_bracket_glob(text: &str) -> bool {
    let mut escaped = false;
    let mut open = false;
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => open = true,
            ']' if open => return true,
            _ => {}
        }
    }
    false
}

fn has_unescaped_glob(text: &str) -> bool {
    let mut escaped = false;
    let mut bracket = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?') || (bracket && c == ']') {
            return true;
        } else if c == '[' {
            // A `[` is a pattern only with a `]` after it.
            bracket = true;
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

/// `$'…'` decoded as bash decodes it: every escape it knows, unknown ones kept with
/// their backslash, and the string cut at a NUL. `None` when rein cannot decode it.
fn ansi_c(text: &str) -> Option<String> {
    let inner = text.strip_prefix("$'").and_then(|t| t.strip_suffix('\''))?;
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize| -> String {
        let mut s = String::new();
        while s.len() < max && chars.peek().is_some_and(|c| c.is_digit(radix)) {
            s.extend(chars.next());
        }
        s
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let ch = match e {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' | '\'' | '"' | '?' => e,
            '0'..='7' => {
                let mut d = e.to_string();
                d.push_str(&digits(&mut chars, 8, 2));
                char::from_u32(u32::from_str_radix(&d, 8).ok()? & 0xff)?
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let d = digits(&mut chars, 16, max);
                if d.is_empty() {
                    out.push('\\');
                    out.push(e);
                    continue;
                }
                let v = u32::from_str_radix(&d, 16).ok()?;
                // `\xHH` is a byte: above 0x7f it is not a character on its own.
                if e == 'x' && v > 0x7f {
                    return None;
                }
                char::from_u32(v)?
            }
            'c' => match chars.next() {
                Some(k) if k.is_ascii() => char::from_u32(u32::from(k as u8 & 0x1f))?,
                _ => return None,
            },
            other => {
                out.push('\\');
                other
            }
        };
        if ch == '\0' {
            break;
        }
        out.push(ch);
    }
    Some(out)
}
