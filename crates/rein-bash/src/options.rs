//! Options that turn a reader into a writer or a runner (issue class 3). An allow rule
//! for a program (`Bash(git log:*)`) is the user allowing that program's *reading*; the
//! options below write files or run other programs, so a command using one is never
//! allowed by a prefix rule or the read-only facts — it is asked. One table, one line
//! per option, with the reason `rein permissions check` shows.

use crate::{Command, Word};

/// How an option is spelled.
#[derive(Debug, Clone, Copy)]
enum Spelling {
    /// `--name` or `--name=value`.
    Long(&'static str),
    /// A single-dash letter, alone or in a cluster (`-o`, `-rno`, `-ofile`).
    Short(char),
    /// A whole word (`-exec`, `-delete`).
    Word(&'static str),
}

/// Where the option counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Anywhere,
    /// Before the subcommand (`git -c x=y log`; `git log -c` is harmless).
    BeforeSubcommand,
}

struct Risky {
    program: &'static str,
    spelling: Spelling,
    place: Place,
    why: &'static str,
    /// The option names a directory, and is harmless when it lies in the workspace.
    harmless_inside_workspace: bool,
}

const fn risky(program: &'static str, spelling: Spelling, place: Place, why: &'static str) -> Risky {
    Risky { program, spelling, place, why, harmless_inside_workspace: false }
}

const fn risky_outside(program: &'static str, spelling: Spelling, place: Place, why: &'static str) -> Risky {
    Risky { program, spelling, place, why, harmless_inside_workspace: true }
}

/// A risky option found in a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Risk {
    /// The option as written.
    pub option: String,
    pub why: &'static str,
    /// Set when the option is harmless if this path lies inside the workspace.
    pub unless_inside: Option<Word>,
}

use Place::{Anywhere, BeforeSubcommand};
use Spelling::{Long, Short, Word as W};

const TABLE: &[Risky] = &[
    risky("git", Short('c'), BeforeSubcommand, "sets configuration, which can name programs to run"),
    risky("git", Long("--config-env"), BeforeSubcommand, "sets configuration, which can name programs to run"),
    risky("git", Long("--exec-path"), BeforeSubcommand, "runs git's helper programs from another directory"),
    risky_outside("git", Short('C'), BeforeSubcommand, "runs in a repository outside the workspace"),
    risky("git", Long("--git-dir"), BeforeSubcommand, "uses another repository, whose configuration can name programs"),
    risky("git", Long("--work-tree"), BeforeSubcommand, "works on another directory"),
    risky("git", Long("--output"), Anywhere, "writes its output to a file"),
    risky("git", Long("--ext-diff"), Anywhere, "runs an external diff program"),
    risky("git", Long("--textconv"), Anywhere, "runs text-conversion programs"),
    risky("git", Long("--upload-pack"), Anywhere, "runs the given program"),
    risky("git", Long("--receive-pack"), Anywhere, "runs the given program"),
    risky("git", Long("--exec"), Anywhere, "runs the given program"),
    risky("git", Long("--open-files-in-pager"), Anywhere, "runs a pager program"),
    risky("git", Short('O'), Anywhere, "runs a pager program (`git grep -O`) or reads an order file"),
    risky("git", Long("--no-index"), Anywhere, "compares files outside the repository"),
    risky("printf", Short('v'), Anywhere, "assigns a shell variable, which can change what later commands run"),
    risky("rg", Long("--pre"), Anywhere, "runs a preprocessor program on every file"),
    risky("rg", Long("--hostname-bin"), Anywhere, "runs the given program"),
    risky("rg", Long("--search-zip"), Anywhere, "runs decompression programs"),
    risky("rg", Short('z'), Anywhere, "runs decompression programs"),
    risky("find", W("-exec"), Anywhere, "runs a program on every file found"),
    risky("find", W("-execdir"), Anywhere, "runs a program on every file found"),
    risky("find", W("-ok"), Anywhere, "runs a program on every file found"),
    risky("find", W("-okdir"), Anywhere, "runs a program on every file found"),
    risky("find", W("-delete"), Anywhere, "deletes the files found"),
    risky("find", W("-fprint"), Anywhere, "writes a file"),
    risky("find", W("-fprint0"), Anywhere, "writes a file"),
    risky("find", W("-fprintf"), Anywhere, "writes a file"),
    risky("find", W("-fls"), Anywhere, "writes a file"),
    risky("sort", Short('o'), Anywhere, "writes its output to a file"),
    risky("sort", Long("--output"), Anywhere, "writes its output to a file"),
    risky("sort", Long("--compress-program"), Anywhere, "runs the given program"),
    risky("sed", Short('i'), Anywhere, "edits files in place"),
    risky("sed", Long("--in-place"), Anywhere, "edits files in place"),
    risky("sed", Short('f'), Anywhere, "reads its script from a file rein does not analyse"),
    risky("sed", Long("--file"), Anywhere, "reads its script from a file rein does not analyse"),
    risky("npm", Long("--script-shell"), Anywhere, "runs scripts with the given program"),
    risky("npm", Long("--userconfig"), Anywhere, "reads configuration that can name programs"),
    risky("npm", Long("--globalconfig"), Anywhere, "reads configuration that can name programs"),
    risky_outside("npm", Long("--prefix"), Anywhere, "runs the package scripts of a directory outside the workspace"),
    risky_outside("npx", Long("--prefix"), Anywhere, "runs the package scripts of a directory outside the workspace"),
    risky("tar", Long("--to-command"), Anywhere, "runs the given program"),
    risky("tar", Long("--use-compress-program"), Anywhere, "runs the given program"),
    risky("tar", Short('I'), Anywhere, "runs the given compression program"),
    risky("tar", Long("--checkpoint-action"), Anywhere, "runs the given action"),
    risky("tar", Long("--info-script"), Anywhere, "runs the given program"),
    risky("tar", Long("--new-volume-script"), Anywhere, "runs the given program"),
    risky("tar", Short('F'), Anywhere, "runs the given program"),
    risky("tar", Long("--rsh-command"), Anywhere, "runs the given program"),
    risky("tar", Long("--rmt-command"), Anywhere, "runs the given program"),
    risky("less", Short('o'), Anywhere, "writes a log file"),
    risky("less", Short('O'), Anywhere, "writes a log file"),
    risky("less", Long("--log-file"), Anywhere, "writes a log file"),
    risky("less", Long("--LOG-FILE"), Anywhere, "writes a log file"),
    risky("less", Short('k'), Anywhere, "reads key bindings that can run commands"),
    risky("less", Long("--lesskey-file"), Anywhere, "reads key bindings that can run commands"),
    risky("man", Short('P'), Anywhere, "runs the given pager"),
    risky("man", Long("--pager"), Anywhere, "runs the given pager"),
    risky("man", Short('H'), Anywhere, "runs the given browser"),
    risky("man", Long("--html"), Anywhere, "runs the given browser"),
    risky("man", Long("--preprocessor"), Anywhere, "runs preprocessors"),
    risky("base64", Short('o'), Anywhere, "writes its output to a file"),
    risky("base64", Long("--output"), Anywhere, "writes its output to a file"),
    risky("tree", Short('o'), Anywhere, "writes its output to a file"),
    risky("date", Short('s'), Anywhere, "sets the system clock"),
    risky("date", Long("--set"), Anywhere, "sets the system clock"),
    risky("xxd", Short('r'), Anywhere, "turns a dump back into a file"),
    risky("diff", Long("--to-file"), Anywhere, "compares against a file named in the option"),
    risky("jq", Long("--rawfile"), Anywhere, "reads a file named in the option"),
    risky("jq", Long("--slurpfile"), Anywhere, "reads a file named in the option"),
];

/// The risky options of `cmd`, in table order.
pub fn risky_options(cmd: &Command) -> Vec<Risk> {
    let mut out = Vec::new();
    let Some(program) = cmd.program() else { return out };
    let args = &cmd.words[1..];
    // The subcommand: the first operand (git's global options that take a value are
    // `-c` and `-C`, whose value is the next word).
    let sub = first_operand(args, &["-c", "-C", "--config-env", "--git-dir", "--work-tree", "--exec-path"]);
    for r in TABLE.iter().filter(|r| r.program == program) {
        for (i, w) in args.iter().enumerate() {
            if r.place == BeforeSubcommand && sub.is_some_and(|s| i >= s) {
                break;
            }
            if w.text == "--" {
                break;
            }
            if spelled(w, r.spelling) {
                let value = match w.text.split_once('=') {
                    Some((_, v)) => Some(Word { text: v.to_string(), ..w.clone() }),
                    None => args.get(i + 1).cloned(),
                };
                let unless_inside = if r.harmless_inside_workspace { value } else { None };
                out.push(Risk { option: w.text.clone(), why: r.why, unless_inside });
                break;
            }
        }
    }
    out
}

fn spelled(w: &Word, s: Spelling) -> bool {
    let t = w.text.as_str();
    match s {
        Spelling::Long(name) => t == name || t.strip_prefix(name).is_some_and(|rest| rest.starts_with('=')),
        Spelling::Short(c) => t.len() > 1 && t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c),
        Spelling::Word(word) => t == word,
    }
}

/// The index of the first argument that is not an option (or an option's value).
fn first_operand(args: &[Word], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if !t.starts_with('-') {
            return Some(i);
        }
        if with_value.contains(&t) {
            i += 1;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AllowBy;

    fn cmd(s: &str) -> Command {
        Command {
            words: s.split(' ').map(crate::Word::literal).collect(),
            forms: vec![s.to_string()],
            allow_by: AllowBy::Rules,
        }
    }

    #[test]
    fn risky_options_are_found_where_they_count() {
        for s in [
            "git -c core.pager=sh log",
            "git log --output=/tmp/x",
            "git diff --ext-diff",
            "rg --pre ./x foo",
            "rg -zn foo",
            "sort -o out.txt in",
            "sort -ro out in",
            "find . -delete",
            "sed -i s/a/b/ f",
            "tar -I ./x -cf a.tar .",
            "npm --prefix /tmp/evil test",
            "git -C /tmp/other status",
            "man -P sh ls",
        ] {
            assert!(!risky_options(&cmd(s)).is_empty(), "{s}");
        }
        for s in [
            "git log -c",
            "git log --oneline",
            "rg -n foo",
            "sort -r in",
            "find . -name x",
            "sed -n 1p f",
            "git status -s",
            "npm test",
        ] {
            assert!(risky_options(&cmd(s)).is_empty(), "{s}");
        }
    }

    #[test]
    fn npm_prefix_names_the_directory_to_check() {
        let r = risky_options(&cmd("npm --prefix=sub test"));
        assert_eq!(r[0].unless_inside.as_ref().map(|w| w.text.as_str()), Some("sub"));
    }
}
