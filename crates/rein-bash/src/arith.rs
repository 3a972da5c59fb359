//! Arithmetic that can execute (issue class 2). Bash evaluates array subscripts inside
//! arithmetic recursively: a variable whose value is `a[$(cmd)]` runs `cmd` when it is
//! used in `$((…))`, `[[ … -eq … ]]`, `${a[…]}`, a substring offset or `${!name}`. Only
//! arithmetic on literal numbers is understood.

use tree_sitter::Node;

use crate::{Problem, ProblemClass};

/// Test operators that evaluate their operands as arithmetic inside `[[ … ]]`.
const ARITH_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// Why `node` is arithmetic rein cannot vouch for, if it is.
pub(crate) fn problem(node: Node<'_>, src: &str) -> Option<Problem> {
    arith_problem(node, src).map(|t| Problem::new(ProblemClass::Arithmetic, t))
}

fn arith_problem(node: Node<'_>, src: &str) -> Option<String> {
    let text = |n: Node<'_>| n.utf8_text(src.as_bytes()).unwrap_or_default();
    let numeric = |n: Node<'_>| n.kind() == "number" || text(n).trim().chars().all(|c| c.is_ascii_digit());
    match node.kind() {
        "arithmetic_expansion"
            if has_descendant(
                node,
                &["variable_name", "simple_expansion", "expansion", "subscript", "word", "command_substitution"],
            ) =>
        {
            Some("it uses arithmetic on values that are not literal numbers".into())
        }
        "subscript" => {
            let index = node.child_by_field_name("index")?;
            let t = text(index);
            (!(numeric(index) || t == "@" || t == "*")).then(|| "it indexes an array with a computed subscript".into())
        }
        "expansion" => expansion_problem(text(node)),
        "binary_expression" => {
            let mut cursor = node.walk();
            let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            let arith = kids.iter().any(|k| k.kind() == "test_operator" && ARITH_TESTS.contains(&text(*k)));
            let operands_numeric = kids.iter().filter(|k| k.kind() != "test_operator").all(|k| numeric(*k));
            (arith && !operands_numeric).then(|| "it compares values as arithmetic in `[[ … ]]`".into())
        }
        "unary_expression" => {
            let mut cursor = node.walk();
            let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            let v = kids.iter().any(|k| k.kind() == "test_operator" && text(*k) == "-v");
            (v && kids.iter().any(|k| text(*k).contains('['))).then(|| "it tests an array element with `-v`".into())
        }
        _ => None,
    }
}

fn has_descendant(node: Node<'_>, kinds: &[&str]) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n != node && kinds.contains(&n.kind()) {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// `${!name}` (indirection), and substring offsets that are not literal numbers
/// (`${x:$n}`, `${x:n:1}`).
fn expansion_problem(text: &str) -> Option<String> {
    let inner = text.strip_prefix("${")?.strip_suffix('}').unwrap_or(text);
    // The syntax tree does not see every substitution inside `${…}` (`${x#$(cmd)}`).
    if inner.contains("$(") || inner.contains('`') {
        return Some("it runs a command substitution inside `${…}`".into());
    }
    // `${x@P}` expands the value as a prompt, which runs command substitutions in it.
    if inner.ends_with("@P") {
        return Some("it expands a value as a prompt (`@P`), which can run commands".into());
    }
    if let Some(rest) = inner.strip_prefix('!') {
        // `${!prefix*}` and `${!a[@]}` only list names.
        if !(rest.ends_with('*') || rest.ends_with("[@]") || rest.ends_with('@')) {
            return Some("it expands a variable named by another (`${!…}`)".into());
        }
        return None;
    }
    let inner = inner.strip_prefix('#').unwrap_or(inner);
    let name_len = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
    let mut rest = &inner[name_len..];
    if rest.starts_with('[') {
        rest = rest.find(']').map(|i| &rest[i + 1..]).unwrap_or("");
    }
    // `${NAME:=value}` assigns NAME: only a plain lower-case name reads as data.
    let name = &inner[..name_len];
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if (rest.starts_with(":=") || rest.starts_with('=')) && !plain {
        return Some(format!("it assigns `{name}` (`${{{name}:=…}}`), which can change what the commands run"));
    }
    let substring = rest.strip_prefix(':').filter(|r| !r.starts_with(['-', '=', '?', '+']));
    match substring {
        Some(r) if !r.chars().all(|c| c.is_ascii_digit() || matches!(c, ':' | ' ' | '-')) => {
            Some("it takes a substring at a computed offset".into())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansions() {
        assert!(expansion_problem("${!x}").is_some());
        assert!(expansion_problem("${!prefix*}").is_none());
        assert!(expansion_problem("${x:$n}").is_some());
        assert!(expansion_problem("${x:n:1}").is_some());
        assert!(expansion_problem("${x:1:2}").is_none());
        assert!(expansion_problem("${x:-default}").is_none());
        assert!(expansion_problem("${#x}").is_none());
        assert!(expansion_problem("${x##*/}").is_none());
    }
}
