//! Understands a shell command line the way a careful reviewer would, with
//! tree-sitter-bash: every command it runs — in lists, pipelines, subshells, command and
//! process substitutions, here-documents, loop bodies — with harmless wrappers
//! (`timeout`, `nice`, `env VAR=…`, …) stripped and the commands that run other commands
//! (`bash -c`, `eval`, `xargs`, `find -exec`, `sudo`, …) opened up where their inner
//! command is literal; its redirections; the files it reads and writes; and anything it
//! could not fully understand, so that the permission engine can ask instead of guess.

mod arith;
mod assign;
mod compose;
mod files;
mod grammar;
mod loops;
mod readonly;
mod unwrap;
mod walk;
mod words;
mod wrappers;

pub use assign::{assigned_name, is_inert};

pub use files::{file_reads, file_writes, recursive_reads};
pub use grammar::{Arity, Kind, Model, Operands, Opt, ProgramSpec, Reading, Style, Val, model, programs, table};
pub use readonly::is_read_only_command;
pub use walk::analyze;

/// One word of a command after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text; parts that are only known at run time keep their source form (`$HOME`).
    pub text: String,
    /// True when the whole word is known without running anything.
    pub literal: bool,
    /// True when the word has an unquoted glob character (`*`, `?`, `[`), or an unquoted
    /// expansion that bash splits and globs: either may become several words.
    pub glob: bool,
}

impl Word {
    pub fn literal(text: impl Into<String>) -> Self {
        Word { text: text.into(), literal: true, glob: false }
    }

    /// A glob whose matches may start with `-` (its first character is a wildcard, or
    /// `-`): where a program still reads options, a file's name becomes one (`*` meeting
    /// a file named `--files0-from=x`).
    pub fn may_be_option(&self) -> bool {
        self.glob && self.text.starts_with(['-', '*', '?'])
    }
}

/// How a command may be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowBy {
    /// Allow rules (prefix or exact) and the read-only list apply.
    Rules,
    /// Runs another command (`sudo`, `watch`, `setsid`, `find -exec`): only an allow rule
    /// without wildcards that names the whole command allows it.
    ExactRuleOnly,
    /// A command found inside a runner: checked against deny and ask rules; the runner
    /// around it is what must be allowed.
    DenyCheckOnly,
}

/// One command the line would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Program and arguments, wrappers and leading assignments stripped.
    pub words: Vec<Word>,
    /// Every spelling deny and ask rules are matched against: the command as written,
    /// each wrapper stripped in turn, and the program's base name for path spellings.
    pub forms: Vec<String>,
    pub allow_by: AllowBy,
    /// The command's model, worked out once (`grammar::model`).
    pub(crate) modelled: std::sync::OnceLock<Option<(Kind, Model)>>,
    /// Its last operands are the starting points of a `find … -print0` piped into it
    /// through `xargs -0` (`compose.rs`): it reads the files inside them.
    pub(crate) fed_trees: Vec<Word>,
    /// The fed names reach it split into words and globbed by bash (`cat $(find src)`):
    /// exact only while no name in the trees holds whitespace or glob characters or
    /// starts with `-`, which the caller checks when it decides.
    pub(crate) fed_split: bool,
}

impl Command {
    pub fn new(words: Vec<Word>, forms: Vec<String>, allow_by: AllowBy) -> Self {
        Command {
            words,
            forms,
            allow_by,
            modelled: std::sync::OnceLock::new(),
            fed_trees: Vec::new(),
            fed_split: false,
        }
    }

    /// The trees whose names a listing substituted unquoted feeds this command, which
    /// bash splits and globs (`cat $(find src)`): see `fed_split`.
    pub fn split_listing(&self) -> Option<&[Word]> {
        self.fed_split.then_some(self.fed_trees.as_slice())
    }

    /// The program name, if it is literal.
    pub fn program(&self) -> Option<&str> {
        self.words.first().filter(|w| w.literal).map(|w| w.text.as_str())
    }

    /// The words joined with single spaces: what allow rules are matched against.
    pub fn allow_form(&self) -> String {
        join(&self.words)
    }
}

/// A redirection: `>`, `>>`, `&>`, `2>`, `<`, `>&`…
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub op: String,
    pub target: Word,
}

impl Redirect {
    /// Writes a file (not a descriptor duplication, not /dev/null and friends).
    pub fn writes_file(&self) -> bool {
        self.op.contains('>') && !self.is_fd_dup() && !is_device(&self.target.text)
    }

    /// Reads a file.
    pub fn reads_file(&self) -> bool {
        self.op.starts_with('<') && !self.op.contains('>') && !self.is_fd_dup() && !is_device(&self.target.text)
    }

    /// Writes through a descriptor other than standard output and error (`>&71`,
    /// `1>&3`): a file the line itself does not name, opened by whoever started the
    /// shell (rein's own state, a pipe), so neither read-only nor a known path.
    pub fn writes_descriptor(&self) -> bool {
        self.op.contains('>') && self.is_fd_dup() && !matches!(self.target.text.as_str(), "0" | "1" | "2" | "-" | "")
    }

    fn is_fd_dup(&self) -> bool {
        (self.op.ends_with('&') || self.op == ">&" || self.op == "<&")
            && self.target.text.chars().all(|c| c.is_ascii_digit() || c == '-')
    }
}

fn is_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty")
}

/// Which kind of thing made a line not understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemClass {
    /// Syntax rein does not analyse, parse errors, control characters, sheer size.
    Syntax,
    /// A program or script only known at run time.
    Dynamic,
    /// Loops, conditionals, functions.
    ControlFlow,
    /// An assignment that can change what a program runs (`PATH=…`, `env GIT_…=`).
    Assignment,
    /// Arithmetic that can execute through array subscripts.
    Arithmetic,
    /// A change to how the session shell parses or finds commands.
    ShellState,
    /// A program that runs another in a form rein does not unwrap: deny and ask rules
    /// still see every spelling the inner command can have.
    Wrapper,
}

impl ProblemClass {
    pub fn name(self) -> &'static str {
        match self {
            ProblemClass::Syntax => "syntax",
            ProblemClass::Dynamic => "run-time names",
            ProblemClass::ControlFlow => "control flow",
            ProblemClass::Assignment => "assignment",
            ProblemClass::Arithmetic => "arithmetic",
            ProblemClass::ShellState => "shell state",
            ProblemClass::Wrapper => "wrapper",
        }
    }
}

/// Why a line is not fully understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub class: ProblemClass,
    pub text: String,
}

impl Problem {
    pub fn new(class: ProblemClass, text: impl Into<String>) -> Self {
        Problem { class, text: text.into() }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a command line does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    pub commands: Vec<Command>,
    pub redirects: Vec<Redirect>,
    /// Why the line is not fully understood; empty when it is.
    pub problems: Vec<Problem>,
}

impl Analysis {
    pub fn understood(&self) -> bool {
        self.problems.is_empty()
    }

    /// Only reads: fully understood, every command read-only, no file written.
    pub fn is_read_only(&self) -> bool {
        self.understood()
            && !self.commands.is_empty()
            && self.commands.iter().all(|c| c.allow_by == AllowBy::Rules && is_read_only_command(c))
            && !self.redirects.iter().any(|r| r.writes_file() || r.writes_descriptor())
    }
}

/// Words joined with single spaces.
pub fn join(words: &[Word]) -> String {
    words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
}
