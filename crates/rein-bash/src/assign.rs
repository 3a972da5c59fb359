//! Assignments and shell state that change what an allowed program does (issue classes
//! 1, 2 and 7): `VAR=value cmd`, `env VAR=value cmd`, `export VAR=…`, arithmetic that
//! evaluates names (a value such as `a[$(cmd)]` runs `cmd`), and builtins that change
//! how the session shell parses or finds commands. Each returns the problem that makes
//! the line "not understood", so the permission engine asks.

use crate::{Problem, ProblemClass, Word};

/// Variables that may be set for a command without changing what it runs: locale,
/// time zone, colours, terminal size, CI markers, backtraces and unbuffered output.
/// Any other assignment (`PATH`, `LD_PRELOAD`, `GIT_*`, `PAGER`, `NODE_OPTIONS`, …)
/// can turn `git status` or `ls` into running a file the model chose.
const INERT: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "COLUMNS",
    "LINES",
    "CI",
    "RUST_BACKTRACE",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
];

/// Whether setting `name` cannot change what a program runs.
pub fn is_inert(name: &str) -> bool {
    INERT.contains(&name) || name.starts_with("LC_")
}

/// The problem with assigning `name`, if it is not inert.
pub(crate) fn assignment_problem(name: &str) -> Option<Problem> {
    (!is_inert(name)).then(|| {
        Problem::new(ProblemClass::Assignment, format!("it sets `{name}`, which can change what the commands run"))
    })
}

/// The name of an assignment word (`NAME=value`), if it is one.
pub fn assigned_name(w: &Word) -> Option<&str> {
    let (name, _) = w.text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then_some(name)
}

/// Builtins whose effect on the session shell (how it parses, which program a name
/// finds, what runs later) makes the rest of the line — and later calls — not what it
/// seems. `words` is a command with its wrappers stripped.
pub(crate) fn shell_state_problem(words: &[Word]) -> Option<Problem> {
    let text = state_text(words)?;
    let class = if text.contains("arithmetic") {
        ProblemClass::Arithmetic
    } else if text.starts_with("it sets") {
        ProblemClass::Assignment
    } else {
        ProblemClass::ShellState
    };
    Some(Problem::new(class, text))
}

fn state_text(words: &[Word]) -> Option<String> {
    let program = words.first().filter(|w| w.literal)?.text.as_str();
    let args = &words[1..];
    let has =
        |flag: &str| args.iter().any(|a| a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains(flag));
    match program {
        "alias" if args.iter().any(|a| a.text.contains('=')) => Some("it defines an alias".into()),
        "set" if !args.iter().all(|a| harmless_set_option(&a.text)) => {
            Some("`set` changes how the shell parses or finds commands".into())
        }
        "shopt" if !args.is_empty() && !args.iter().all(|a| a.text == "-p" || a.text == "-q") => {
            Some("`shopt` changes how the shell parses or expands commands".into())
        }
        "hash" if has("p") || has("d") => Some("`hash -p` makes a name run another program".into()),
        "enable" if !args.is_empty() => Some("`enable` changes which builtins exist".into()),
        "trap" if !args.is_empty() && args.iter().any(|a| !a.text.starts_with('-')) => {
            Some("`trap` sets a command to run later".into())
        }
        "source" | "." => Some(format!("`{program}` runs a script whose content rein does not analyse")),
        "let" => Some("`let` evaluates arithmetic, which can run commands through array subscripts".into()),
        "declare" | "typeset" | "local" | "readonly" | "export" => declaration_problem(program, args),
        _ => None,
    }
}

/// Builtins that evaluate data as code: a variable name with a subscript is evaluated
/// as arithmetic (which runs command substitutions) by every builtin that takes a name;
/// callbacks (`mapfile -C`, `compgen -C/-F`, `complete -C/-F`), key bindings (`bind -x`)
/// and `fc` run commands named by data.
pub(crate) fn evaluates_data(words: &[Word]) -> Option<Problem> {
    let program = words.first().filter(|w| w.literal)?.text.as_str();
    let args = &words[1..];
    let takes_names = matches!(
        program,
        "read"
            | "mapfile"
            | "readarray"
            | "unset"
            | "wait"
            | "getopts"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "export"
            | "let"
    );
    if takes_names
        && args
            .iter()
            .any(|w| (w.text.contains('[') && w.text != "[" && w.text != "]") || (program != "wait" && unknown_name(w)))
    {
        return Some(Problem::new(
            ProblemClass::Arithmetic,
            format!("`{program}` evaluates a subscript as arithmetic, which can run commands"),
        ));
    }
    let opt = |c: char| args.iter().any(|w| w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains(c));
    let runs = match program {
        "mapfile" | "readarray" => opt('C'),
        "compgen" | "complete" => opt('C') || opt('F'),
        "bind" => opt('x'),
        "fc" => true,
        _ => false,
    };
    // A word only known at run time (a glob meeting a file named `-Cid`) may be that option.
    let may_run = matches!(program, "mapfile" | "readarray" | "compgen" | "complete" | "bind")
        && args.iter().any(|w| !w.literal || w.may_be_option());
    (runs || may_run).then(|| Problem::new(ProblemClass::Dynamic, format!("`{program}` runs commands named by data")))
}

/// A variable name (the part before `=`) only known at run time: a glob's match or an
/// expansion may hold a subscript.
fn unknown_name(w: &Word) -> bool {
    let name = w.text.split('=').next().unwrap_or_default();
    let name = name.strip_suffix('+').unwrap_or(name);
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    (w.glob && !w.text.contains('=')) || (!w.literal && !name.starts_with('-') && !plain)
}

/// `set -e`, `set -u`, `set -x`, `set -o pipefail` (and combinations) only make the
/// shell stricter or louder.
fn harmless_set_option(a: &str) -> bool {
    matches!(a, "-o" | "+o" | "pipefail" | "errexit" | "nounset" | "xtrace")
        || (a.len() > 1 && a.starts_with(['-', '+']) && a[1..].chars().all(|c| matches!(c, 'e' | 'u' | 'x' | 'o')))
}

/// `export PATH=…`, `declare -x NODE_OPTIONS=…`, `declare -i n=…` (arithmetic).
fn declaration_problem(program: &str, args: &[Word]) -> Option<String> {
    let flags: String = args.iter().filter(|a| a.text.starts_with('-')).map(|a| &a.text[1..]).collect();
    if flags.contains('i') {
        return Some(format!("`{program} -i` evaluates arithmetic, which can run commands"));
    }
    // Printing (`declare -p`, `export -p`, `declare -f`) changes nothing.
    let operands: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
    for w in operands {
        let name = assigned_name(w).unwrap_or(w.text.as_str());
        if !w.literal && assigned_name(w).is_none() {
            return Some(format!("`{program}` names a variable only known at run time"));
        }
        if let Some(p) = assignment_problem(name) {
            return Some(p.text);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split(' ').map(Word::literal).collect()
    }

    #[test]
    fn inert_and_dangerous_names() {
        for n in ["LANG", "LC_ALL", "TZ", "NO_COLOR", "CI"] {
            assert!(is_inert(n), "{n}");
        }
        for n in ["PATH", "LD_PRELOAD", "GIT_PAGER", "npm_config_script_shell", "NODE_OPTIONS", "BASH_ENV", "FOO"] {
            assert!(!is_inert(n), "{n}");
        }
        assert_eq!(assigned_name(&Word::literal("GIT_CONFIG_COUNT=1")), Some("GIT_CONFIG_COUNT"));
        assert_eq!(assigned_name(&Word::literal("a=b=c")), Some("a"));
        assert_eq!(assigned_name(&Word::literal("--opt=x")), None);
    }

    #[test]
    fn builtins_that_change_the_shell() {
        for s in [
            "alias ls=rm",
            "set -o posix",
            "shopt -s expand_aliases",
            "hash -p /tmp/x git",
            "enable -n echo",
            "trap id EXIT",
            "source ./x.sh",
            ". ./env.sh",
            "let x=a",
            "export PATH=/tmp",
            "declare -x GIT_PAGER=x",
            "declare -i n=1",
            "export NODE_OPTIONS",
        ] {
            assert!(shell_state_problem(&words(s)).is_some(), "{s}");
        }
        for s in [
            "set -e",
            "set -euo pipefail",
            "set -x",
            "export LANG=C",
            "export -p",
            "declare -p",
            "alias",
            "hash",
            "shopt -p",
        ] {
            assert!(shell_state_problem(&words(s)).is_none(), "{s}");
        }
    }
}
