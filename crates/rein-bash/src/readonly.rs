//! Commands that only read: the read-only facts, at least Codex's known-safe set. A
//! command is read-only when its program's table (`grammar/`) models every word of it
//! and it writes nothing; and sed scripts that only print.

use crate::Command;

use crate::grammar::{Kind, Model, model};

/// True when the command only reads: its program has a table, every word on the line is
/// one the table models, and it writes no file (its redirections are judged separately).
pub fn is_read_only_command(cmd: &Command) -> bool {
    match model(cmd) {
        Some((Kind::Reader, Model::Complete(r))) => r.writes.is_empty() && !r.runs_project,
        _ => false,
    }
}

/// Scan a sed script: commands that write files or run programs make it unsafe.
pub(crate) fn sed_script_safe(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Skip a delimited argument (`/re/`, `s/a/b/`), honouring backslash escapes.
    let skip_delimited = |mut i: usize, delim: char, parts: usize| -> usize {
        let mut seen = 0;
        while i < chars.len() && seen < parts {
            if chars[i] == '\\' {
                i += 2;
                continue;
            }
            if chars[i] == delim {
                seen += 1;
            }
            i += 1;
        }
        i
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '0'..='9' | '~' | '+' => i += 1,
            '/' => i = skip_delimited(i + 1, '/', 1),
            '\\' => match chars.get(i + 1) {
                Some(d) => i = skip_delimited(i + 2, *d, 1),
                None => return false,
            },
            's' | 'y' => {
                let Some(d) = chars.get(i + 1).copied() else { return false };
                i = skip_delimited(i + 2, d, 2);
                if c == 's' {
                    // Flags: a `w` or `e` flag writes or runs.
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        if matches!(chars[i], 'w' | 'W' | 'e') {
                            return false;
                        }
                        i += 1;
                    }
                }
            }
            // Text commands: the rest of the line is text.
            'a' | 'i' | 'c' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ':' | 'b' | 't' | 'T' => {
                // A label runs to `;` or the end of the line; GNU sed also ends it at
                // whitespace and reads what follows as the next command, so a label
                // with a blank in it is refused rather than guessed.
                i += 1;
                while i < chars.len() && matches!(chars[i], ' ' | '\t') {
                    i += 1;
                }
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    if chars[i].is_whitespace() {
                        return false;
                    }
                    i += 1;
                }
            }
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | '=' | 'l' | 'q' | 'Q' => i += 1,
            // w, W, e, r, R, F, v and anything else.
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for s in ["1,5p", "/re/p", "s/a/b/g", "s|a/b|c|", "$d", "/x/,/y/{p;d}", "y/abc/xyz/", "10q", "s/w/e/"] {
            assert!(sed_script_safe(s), "{s}");
        }
        for s in ["w out.txt", "s/a/b/w out", "s/a/b/e", "e id", "r /etc/passwd", "1W x", "s/a/b/;w x", "xp"] {
            assert!(!sed_script_safe(s), "{s}");
        }
    }
}
