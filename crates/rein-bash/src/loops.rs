//! `for VAR in WORDS; do BODY; done` where rein knows every value VAR takes (issue 25,
//! "less friction"): each WORD is literal text or a glob, and the body uses VAR only as
//! the whole quoted word `"$VAR"` (no splitting, no globbing of the value) and never
//! assigns it or moves the shell (`cd`), and VAR is a plain lower-case name no program
//! or part of bash reads. Each command of the body that holds `"$VAR"` is
//! then judged once per WORD with the WORD in its place — a glob stands for every file
//! it matches, judged as a glob is anywhere (a match that starts with `-` where options
//! are read is asked). Any other loop stays "control flow", not understood.

use tree_sitter::Node;

use crate::Word;
use crate::words::word;

/// More values than this (after combining the loops a command is inside) and the loop
/// variables stay unknown.
const MAX_COMBINATIONS: usize = 32;

/// The variable and its values, when the loop is one rein models.
pub(crate) fn modelled_loop(node: Node<'_>, src: &str) -> Option<(String, Vec<Word>)> {
    let keyword = node.child(0)?.utf8_text(src.as_bytes()).ok()?;
    if keyword != "for" {
        return None; // `select` reads the terminal.
    }
    let var = node.child_by_field_name("variable")?.utf8_text(src.as_bytes()).ok()?.to_string();
    // The loop assigns the name: only a plain lower-case name, which no program and no
    // part of bash reads (not PATH, HOME, IFS, `_`, BASH_REMATCH, http_proxy, …).
    let plain_name = var.starts_with(|c: char| c.is_ascii_lowercase())
        && var.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if !plain_name {
        return None;
    }
    let mut cursor = node.walk();
    let values: Vec<Node<'_>> = node.children_by_field_name("value", &mut cursor).collect();
    if values.is_empty() {
        return None; // `for v; do` walks the positional parameters.
    }
    let words: Vec<Word> = values.iter().map(|v| word(*v, src)).collect();
    if words.iter().any(|w| !w.literal) {
        return None;
    }
    let body = node.child_by_field_name("body")?.utf8_text(src.as_bytes()).ok()?;
    body_only_reads(body, &var).then_some((var, words))
}

/// Whether `body` uses `var` only as `$var`/`${var}` and does not change directory.
fn body_only_reads(body: &str, var: &str) -> bool {
    let bytes = body.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut at = 0;
    while let Some(found) = body[at..].find(var) {
        let start = at + found;
        let end = start + var.len();
        at = end;
        let whole = (start == 0 || !ident(bytes[start - 1])) && bytes.get(end).is_none_or(|b| !ident(*b));
        if !whole {
            continue;
        }
        let before = &body[..start];
        let expansion = before.ends_with('$') || (before.ends_with("${") && bytes.get(end) == Some(&b'}'));
        if !expansion {
            return false;
        }
    }
    !["cd", "pushd", "popd"].iter().any(|w| {
        body.match_indices(w)
            .any(|(i, _)| (i == 0 || !ident(bytes[i - 1])) && bytes.get(i + w.len()).is_none_or(|b| !ident(*b)))
    })
}

/// The loop variable a command's word is, when it is exactly `"$VAR"` or `"${VAR}"` —
/// or, unquoted, when every value is plain text that splitting and globbing leave whole.
pub(crate) fn loop_word<'v>(node: Node<'_>, src: &str, vars: &'v [(String, Vec<Word>)]) -> Option<&'v str> {
    let text = node.utf8_text(src.as_bytes()).ok()?;
    let (quoted, inner) = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) => (true, inner),
        None => (false, text),
    };
    let name = inner.strip_prefix('$')?;
    let name = name.strip_prefix('{').and_then(|n| n.strip_suffix('}')).unwrap_or(name);
    let (var, values) = vars.iter().rev().find(|(v, _)| v == name)?;
    (quoted || values.iter().all(plain)).then_some(var.as_str())
}

/// A value bash's splitting and globbing leave as it is (and no `..` a changed IFS could
/// turn into `/`).
fn plain(w: &Word) -> bool {
    !w.glob
        && !w.text.is_empty()
        && !w.text.contains("..")
        && w.text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
}

/// Every command `words` stands for, one per combination of the loop variables it uses
/// (`slots`: which word is which variable). `None` when there are too many.
pub(crate) fn expand(
    words: &[Word],
    slots: &[(usize, String)],
    vars: &[(String, Vec<Word>)],
) -> Option<Vec<Vec<Word>>> {
    let mut used: Vec<&(String, Vec<Word>)> = Vec::new();
    for (_, name) in slots {
        if let Some(v) = vars.iter().rev().find(|(v, _)| v == name)
            && !used.iter().any(|u| u.0 == v.0)
        {
            used.push(v);
        }
    }
    let total = used.iter().try_fold(1usize, |n, (_, vals)| n.checked_mul(vals.len()))?;
    if total > MAX_COMBINATIONS {
        return None;
    }
    let mut out = Vec::with_capacity(total);
    for mut k in 0..total {
        let mut cmd = words.to_vec();
        for (name, vals) in used.iter().map(|(n, v)| (n, v)) {
            let value = &vals[k % vals.len()];
            k /= vals.len();
            for (i, slot) in slots {
                if slot == name {
                    cmd[*i] = value.clone();
                }
            }
        }
        out.push(cmd);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_may_only_expand_the_variable() {
        assert!(body_only_reads("do wc -l \"$f\"; done", "f"));
        assert!(body_only_reads("do grep -n x \"${f}\" | head; done", "f"));
        assert!(!body_only_reads("do f=/etc/passwd; cat \"$f\"; done", "f"));
        assert!(!body_only_reads("do read f; cat \"$f\"; done", "f"));
        assert!(!body_only_reads("do cd \"$f\"; cat x; done", "f"));
        assert!(body_only_reads("do cat \"$file\"; done", "f"));
    }

    #[test]
    fn unquoted_only_for_plain_values() {
        assert!(plain(&Word::literal("src/main.rs")));
        assert!(!plain(&Word::literal("a b")));
        assert!(!plain(&Word::literal("../x")));
        assert!(!plain(&Word { text: "*.md".into(), literal: true, glob: true }));
    }
}
