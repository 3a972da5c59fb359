//! Commands that only read: the read-only facts, at least Codex's known-safe set. A
//! command is read-only when its program is listed here, none of its options is in the
//! risky-option table (`options.rs`), and its program-specific check passes.

use crate::options::risky_options;
use crate::{Command, Word};

const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "tac",
    "echo",
    "printf",
    "pwd",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "find",
    "wc",
    "which",
    "whereis",
    "type",
    "diff",
    "cmp",
    "stat",
    "du",
    "df",
    "file",
    "tree",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "true",
    "false",
    "test",
    "[",
    "sort",
    "uniq",
    "cut",
    "tr",
    "nl",
    "od",
    "hexdump",
    "xxd",
    "sha256sum",
    "sha1sum",
    "sha512sum",
    "md5sum",
    "cksum",
    "b2sum",
    "jq",
    "column",
    "comm",
    "paste",
    "seq",
    "numfmt",
    "base64",
    "date",
    "whoami",
    "id",
    "uname",
    "hostname",
    "printenv",
    "env",
    "cd",
    "git",
    "less",
    "more",
    "sleep",
    "sed",
    "expr",
    "fold",
    "fmt",
    "rev",
    "strings",
    "arch",
    "nproc",
    "groups",
    "tty",
    "locale",
];

const GIT_READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "describe",
    "shortlog",
    "grep",
    "ls-tree",
    "rev-list",
    "cat-file",
    "merge-base",
    "for-each-ref",
    "show-ref",
    "name-rev",
    "count-objects",
];

/// `git branch` / `git tag` options that only list.
const GIT_LIST_OPTIONS: &[&str] = &[
    "--show-current",
    "-a",
    "--all",
    "-r",
    "--remotes",
    "-v",
    "-vv",
    "--verbose",
    "-l",
    "--list",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--column",
    "--no-column",
    "--color",
    "--no-color",
    "-i",
    "--ignore-case",
    "-n",
];
/// Listing options that take a value (and make operands patterns, not new names).
const GIT_LIST_WITH_VALUE: &[&str] =
    &["-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];

/// True when the command only reads (its redirections are judged separately).
pub fn is_read_only_command(cmd: &Command) -> bool {
    let Some(program) = cmd.program() else { return false };
    // Options harmless inside the workspace (`git -C DIR`) are the policy's to judge.
    if !READ_ONLY.contains(&program) || risky_options(cmd).iter().any(|r| r.unless_inside.is_none()) {
        return false;
    }
    let args = &cmd.words[1..];
    let operands = || args.iter().filter(|a| !a.text.starts_with('-') || a.text == "-").count();
    let globbed = args.iter().any(|a| a.glob);
    match program {
        "find" | "sort" | "git" => !globbed && (program != "git" || git_read_only(args)),
        // A second operand is an output file.
        "uniq" | "xxd" => operands() <= 1,
        "hostname" | "env" => args.iter().all(|a| a.text.starts_with('-') && a.text != "-i" && a.text != "-S"),
        "printenv" => true,
        "cd" => args.len() <= 1,
        "sed" => sed_prints_only(args),
        _ => true,
    }
}

/// The subcommand (after global options such as `-C DIR`, checked as risky options)
/// only reads.
fn git_read_only(args: &[Word]) -> bool {
    let mut i = 0;
    while i < args.len() && args[i].text.starts_with('-') {
        i += if args[i].text == "-C" || args[i].text == "-c" { 2 } else { 1 };
    }
    let Some(sub) = args.get(i).filter(|w| w.literal) else { return false };
    let rest = &args[i + 1..];
    match sub.text.as_str() {
        "branch" | "tag" => git_lists(rest),
        "remote" => rest.iter().all(|a| a.text == "-v" || a.text == "--verbose"),
        s => GIT_READ_ONLY.contains(&s),
    }
}

/// `git branch`/`git tag` that only list: listing options only, and names only as
/// patterns of `--list`, `--contains` and friends (a bare name would create one).
fn git_lists(rest: &[Word]) -> bool {
    let option = |t: &str| {
        let name = t.split('=').next().unwrap_or(t);
        GIT_LIST_OPTIONS.contains(&name) || name == "--sort" || name == "--format" || name == "--abbrev"
    };
    let listing = rest.iter().any(|a| GIT_LIST_WITH_VALUE.contains(&a.text.split('=').next().unwrap_or("")));
    rest.iter().all(|a| if a.text.starts_with('-') { option(&a.text) } else { listing })
}

/// `sed` with literal scripts that only print: no `w`/`W`/`e`/`r`/`R` command, no `w` or
/// `e` flag on `s`. The script is `-e X`/`--expression=X` or the first operand.
fn sed_prints_only(args: &[Word]) -> bool {
    let mut scripts: Vec<&Word> = Vec::new();
    let mut i = 0;
    let mut script_given = false;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "-e" || t == "--expression" {
            scripts.extend(args.get(i + 1));
            script_given = true;
            i += 2;
            continue;
        }
        if t.starts_with("--expression=") || (!t.starts_with('-') && !script_given) {
            scripts.push(&args[i]);
            script_given = true;
        }
        i += 1;
    }
    !scripts.is_empty()
        && scripts.iter().all(|w| {
            let text = w.text.strip_prefix("--expression=").unwrap_or(&w.text);
            w.literal && sed_script_safe(text)
        })
}

/// Scan a sed script: commands that write files or run programs make it unsafe.
fn sed_script_safe(script: &str) -> bool {
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
                i += 1;
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
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
