//! What a program does with its words, read the way the program's own parser reads them
//! (invariant 12). Each program rein vouches for has a table of the options it knows —
//! an allow-list: an option the table does not list, an abbreviation that is not
//! unambiguous, or a word only known at run time where the program could take it for an
//! option makes the command "not modelled", and the permission engine asks. Each option
//! says what its value is (text, a file read, a file written, the pattern), so a file is
//! a read whichever option names it; operands are typed the same way.
//!
//! Tables are written in a small notation (see [`spec`]) and parsed once.

mod getopt;
mod git;
mod runners;
mod spec;
mod special;
mod tables;

use crate::{Command, Word};

pub use getopt::Style;
pub(crate) use getopt::{Scan, scan};
pub use spec::{Arity, Operands, Opt, ProgramSpec, Val};

/// What a command reads and writes, when its model is complete.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    /// Files read by name.
    pub reads: Vec<Word>,
    /// Directories whose every file is read (recursive search, archive, copy).
    pub trees: Vec<Word>,
    /// The trees are read following symbolic links (reaching outside them).
    pub follows_links: bool,
    /// Files of the git repository (`HEAD:path`): relative to the repository's top, or
    /// to the working directory when they start with `./` or `../`.
    pub repo_reads: Vec<Word>,
    /// Paths whose names and metadata are listed (`ls DIR`, `du DIR`): held to the
    /// workspace wall, not to Read deny rules.
    pub listed: Vec<Word>,
    /// Prints file contents from the repository's history or index (`git show`,
    /// `git log -p`, `git cat-file -p`): no path names the files it reads.
    pub repo_history: bool,
    /// Files written (an output option, an in-place edit).
    pub writes: Vec<Word>,
    /// The directory the program runs in instead of the shell's (`git -C DIR`).
    pub chdir: Option<Word>,
    /// Runs code or configuration of the directory it runs in (a runner: `npm test`).
    pub runs_project: bool,
    /// `git diff`: outside a repository it compares any two paths, directories whole
    /// (as `--no-index`).
    pub diff_any_paths: bool,
    /// Globs where the program still reads options (`wc -l *.md`): the model holds only
    /// while no file they match has a name that starts with `-`, which the program would
    /// read as an option. The caller expands them, as it expands every glob it checks.
    pub option_globs: Vec<Word>,
    /// `git diff` without `--cached`: it compares the work tree with the index, unless an
    /// operand names a revision (the caller tells: an operand that is not a path).
    pub worktree_diff: bool,
}

impl Reading {
    fn read(&mut self, w: &Word) {
        if w.text != "-" {
            self.reads.push(w.clone());
        }
    }
}

/// Why a command's words fall outside what its model covers: the word or option, and
/// why (shown to the person with the question it leads to).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotModelled(pub(crate) String);

impl From<String> for NotModelled {
    fn from(why: String) -> Self {
        NotModelled(why)
    }
}

impl From<&str> for NotModelled {
    fn from(why: &str) -> Self {
        NotModelled(why.to_string())
    }
}

/// The model of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Model {
    /// Every word is understood: this is all the command reads and writes.
    Complete(Reading),
    /// Something the model does not cover: the word or option, and why.
    NotModelled(String),
}

/// Whether a program is one that only reads (when its model is complete and it writes
/// nothing), or a runner of the project's own code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Reader,
    Runner,
}

/// The model of `cmd`, when rein has a table for its program (worked out once per
/// command).
pub fn model(cmd: &Command) -> Option<&(Kind, Model)> {
    cmd.modelled.get_or_init(|| fed(cmd, compute(cmd))).as_ref()
}

/// A reader fed the names of a `find` (`compose.rs`) reads the trees find walks,
/// following the links in them.
fn fed(cmd: &Command, m: Option<(Kind, Model)>) -> Option<(Kind, Model)> {
    if cmd.fed_trees.is_empty() {
        return m;
    }
    // Each name fills an operand: every one must be a file the program reads. (The
    // first may be taken for the script or pattern, a later one for an output file
    // (`uniq IN OUT`, `xxd IN OUT`), or a revision (`git show HEAD:x`).)
    let every_operand_read = match cmd.program() {
        Some("git" | "xxd") | None => false,
        Some(p) => tables::program(p).is_none_or(|spec| spec.operands != Operands::OneFile),
    };
    match m {
        Some((Kind::Reader, Model::Complete(r)))
            if !every_operand_read || !cmd.fed_trees.iter().all(|w| r.reads.contains(w) || r.trees.contains(w)) =>
        {
            let why = "a name the listing feeds it would fill an operand that is not a file it reads \
                       (a script, a pattern, an option's value, an output file or a revision)";
            Some((Kind::Reader, Model::NotModelled(why.into())))
        }
        Some((Kind::Reader, Model::Complete(mut r))) => {
            r.reads.retain(|w| !cmd.fed_trees.contains(w));
            r.trees.extend(cmd.fed_trees.iter().cloned());
            r.follows_links = true;
            Some((Kind::Reader, Model::Complete(r)))
        }
        _ => Some((
            Kind::Reader,
            Model::NotModelled("the names a listing or xargs feeds it are only known at run time".into()),
        )),
    }
}

fn compute(cmd: &Command) -> Option<(Kind, Model)> {
    let program = cmd.program()?;
    let args = &cmd.words[1..];
    if wrong_on_purpose(program) {
        return Some((Kind::Reader, Model::Complete(Reading::default())));
    }
    if let Some(m) = special::model(program, args) {
        return Some((Kind::Reader, m));
    }
    if program == "git" {
        return Some((Kind::Reader, git::model(args)));
    }
    if let Some(r) = tables::runner(program, args) {
        return Some((Kind::Runner, r));
    }
    let spec = tables::program(program)?;
    Some((Kind::Reader, getopt::parse(spec, args)))
}

/// Debug builds only, for the tests that prove the sandbox contains a wrong judgement:
/// the programs `REIN_TEST_WRONG_READ_ONLY` names (comma-separated) are taken for
/// read-only readers of nothing. A release build has no such switch.
fn wrong_on_purpose(program: &str) -> bool {
    cfg!(debug_assertions)
        && rein_process::env::text(rein_process::env::Var::TestWrongReadOnly)
            .is_some_and(|list| list.split(',').any(|p| p == program))
}

/// Every program rein has a table for (for tests and `rein permissions check`).
pub fn programs() -> Vec<&'static str> {
    let mut v = tables::names();
    v.extend(special::NAMES);
    v.push("git");
    v
}

/// The table of `program` (for the property tests).
pub fn table(program: &str) -> Option<&'static ProgramSpec> {
    tables::program(program)
}

pub(crate) fn unknown(w: &Word) -> String {
    format!("`{}` is only known at run time and could be an option or a path", w.text)
}
