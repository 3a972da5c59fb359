//! Commands that only read, whatever their arguments (with the exceptions listed).

use crate::{Command, Word};

const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
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
    "sha256sum",
    "sha1sum",
    "md5sum",
    "jq",
    "column",
    "comm",
    "seq",
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
];

const GIT_READ_ONLY: &[&str] =
    &["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep", "ls-tree"];

/// True when the command only reads (its redirections are judged separately).
pub fn is_read_only_command(cmd: &Command) -> bool {
    let Some(program) = cmd.program() else { return false };
    if !READ_ONLY.contains(&program) {
        return false;
    }
    let args = &cmd.words[1..];
    let has = |flags: &[&str]| {
        args.iter().any(|a| flags.iter().any(|f| a.text == *f || a.text.starts_with(&format!("{f}="))))
    };
    let globbed = args.iter().any(|a| a.glob);
    match program {
        "find" => {
            !globbed
                && !has(&["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"])
        }
        "sort" => !globbed && !has(&["-o", "--output"]) && !args.iter().any(|a| a.text.starts_with("-o")),
        "uniq" => args.iter().filter(|a| !a.text.starts_with('-')).count() <= 1,
        "tree" => !has(&["-o"]),
        "rg" => !has(&["--pre", "--pre-glob"]),
        "date" => !has(&["-s", "--set"]),
        "hostname" | "env" | "printenv" => {
            args.iter().all(|a| a.text.starts_with('-') && a.text != "-i" && a.text != "-S")
        }
        "git" => !globbed && git_read_only(args),
        "cd" => args.len() <= 1,
        _ => true,
    }
}

fn git_read_only(args: &[Word]) -> bool {
    let Some(sub) = args.first() else { return false };
    sub.literal
        && GIT_READ_ONLY.contains(&sub.text.as_str())
        && !args
            .iter()
            .any(|a| a.text.starts_with("--output") || a.text == "--ext-diff" || a.text.starts_with("--exec"))
}
