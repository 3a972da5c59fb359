//! What a tool call touches. Every tool declares, for a parsed input, its [`Effects`]:
//! the paths it reads and writes, the hosts it contacts, the shell command it runs (with
//! its analysis), and other effects (a subagent, an MCP server, session-only state). The
//! permission engine decides on these effects and on the tool's declared [`RuleKind`] —
//! never on tables of tool names — and the OS sandbox confines shell commands with the
//! same facts. A tool that declares nothing gets [`Effects::undeclared`]: it is treated
//! as writing everything, and asked.

pub mod credentials;
mod git_config;
mod git_index;
mod git_inert;
pub mod mechanisms;
mod paths;
mod programs;
mod shell;

use std::path::PathBuf;

pub use git_config::{git_dir, programs_named, work_tree_top};
pub use paths::{PathError, absolute, is_own_process_file, joined, kernel_path, lexical, rule_glob};

/// Whether `text` matches `pattern`, where `*` stands for any run of characters (and
/// nothing else is special). For name and URL patterns of settings.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, .., last] = parts.as_slice() else { return pattern == text };
    if !text.starts_with(first) || !text.ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}
pub use shell::{Confinement, Grant, ShellCommand, ShellFiles, ShellState};

/// Which kind of access a path rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `Read(…)` rules: paths the call reads (a read deny also covers writes).
    Read,
    /// `Edit(…)` rules: paths the call writes.
    Write,
}

/// How `Tool(specifier)` permission rules for a tool are read. `field` names the input
/// field a specifier is about (what `rein permissions check 'Tool(argument)'` fills in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// A gitignore-style path pattern, matched against the paths the call reads or writes.
    Path { access: Access, field: &'static str },
    /// `domain:HOST`, matched against the hosts the call contacts.
    Domain { field: &'static str },
    /// A command pattern (`git status:*`, `npm run *`), matched against every command
    /// of the call's shell line.
    Command { field: &'static str },
    /// `field:value`, matched against a top-level input field; a bare specifier is the
    /// value of `default` when the tool names one (`Agent(Explore)` → `subagent_type`).
    Field { default: Option<&'static str> },
}

impl RuleKind {
    /// A short name for listings.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::Path { access: Access::Read, .. } => "read path",
            RuleKind::Path { access: Access::Write, .. } => "write path",
            RuleKind::Domain { .. } => "domain",
            RuleKind::Command { .. } => "command",
            RuleKind::Field { .. } => "field",
        }
    }

    /// The input field a specifier is about.
    pub fn subject(self) -> Option<&'static str> {
        match self {
            RuleKind::Path { field, .. } | RuleKind::Domain { field } | RuleKind::Command { field } => Some(field),
            RuleKind::Field { default } => default,
        }
    }
}

/// Says whether a file may not be read (a Read deny rule covers it, by any of its
/// names). Tools that walk directories (Grep, Glob) leave such files out of what they
/// return; `ino` is the file's inode when the walk already knows it.
pub trait ReadGuard: Send + Sync + std::fmt::Debug {
    fn denies(&self, path: &std::path::Path, ino: Option<u64>) -> bool;
}

/// How one tool's permission rules are read: its rule kind and its input's top-level
/// fields (which `Tool(field:value)` rules may name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRules {
    pub kind: RuleKind,
    pub fields: Vec<String>,
}

/// Tool name → how its rules are read; built from the tool registry.
pub type ToolKinds = std::collections::BTreeMap<String, ToolRules>;

/// An effect that is neither a path, a host nor a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Other {
    /// Changes only the session's own state (the todo list, background jobs it started).
    SessionState,
    /// Runs a subagent, whose own calls pass the chain one by one.
    Subagent,
    /// Talks to an MCP server.
    Mcp { server: String },
    /// Runs a workflow script: many subagents the person has not seen yet. Asked unless
    /// a rule or the mode allows it (its agents' calls then pass the chain one by one).
    Workflow,
    /// Needs the user: a question for them, or a plan for them to approve. Always
    /// asked (deny rules still apply); without a user it cannot happen.
    User,
}

/// What one call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effects {
    /// Paths read, absolute and without `.`/`..` (the policy also checks their canonical
    /// form, symlinks resolved).
    pub reads: Vec<PathBuf>,
    /// Paths written, created, moved or deleted.
    pub writes: Vec<PathBuf>,
    /// Directories whose every file the call may read (recursive readers): a Read deny
    /// rule for a file inside one denies the call.
    pub reads_within: Vec<PathBuf>,
    /// Hosts contacted, lower case.
    pub hosts: Vec<String>,
    /// The shell command line the call runs.
    pub shell: Option<ShellCommand>,
    pub other: Vec<Other>,
    /// Some file the call touches is only known at run time.
    pub dynamic_paths: bool,
    /// The call changes nothing.
    pub read_only: bool,
    /// The call may run beside other concurrency-safe calls.
    pub concurrency_safe: bool,
    /// False for a tool that declared nothing: the call is treated as writing
    /// everything, and asked.
    pub declared: bool,
    /// The writes are whole-file edits rein makes itself (Write, Edit, …): they are
    /// checkpointed first, so that they can be rewound.
    pub edits_files: bool,
    /// The result only reports what the call itself did (an edit, the todo list, the
    /// structured answer): nothing in it was read from outside, so the auto-mode judge
    /// may take it as the model's own doing.
    pub own_result: bool,
}

impl Effects {
    /// The safe default for a tool that declares nothing.
    pub fn undeclared() -> Self {
        Effects { declared: false, ..Effects::none() }
    }

    /// Declared, touching nothing (yet): the base the builders below start from.
    fn none() -> Self {
        Effects {
            reads: Vec::new(),
            writes: Vec::new(),
            reads_within: Vec::new(),
            hosts: Vec::new(),
            shell: None,
            other: Vec::new(),
            dynamic_paths: false,
            read_only: false,
            concurrency_safe: false,
            declared: true,
            edits_files: false,
            own_result: false,
        }
    }

    /// Reads `paths`; read-only and concurrency-safe.
    pub fn reading(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        Effects { reads: paths.into_iter().collect(), read_only: true, concurrency_safe: true, ..Effects::none() }
    }

    /// Writes `paths`.
    pub fn writing(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        Effects { writes: paths.into_iter().collect(), ..Effects::none() }
    }

    /// Edits the files `paths` (rein's file tools): checkpointed writes whose result is
    /// the tool's own report.
    pub fn editing(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        Effects { edits_files: true, own_result: true, ..Effects::writing(paths) }
    }

    /// Contacts `host`; read-only and concurrency-safe.
    pub fn contacting(host: Option<String>) -> Self {
        Effects {
            hosts: host.into_iter().map(|h| h.to_ascii_lowercase()).collect(),
            // A URL without a host is contacting something unknown.
            read_only: true,
            concurrency_safe: true,
            ..Effects::none()
        }
    }

    /// Runs `shell`: its files and read-only-ness come from the command's analysis.
    pub fn running(shell: ShellCommand) -> Self {
        let files = shell.files();
        let read_only = shell.analysis.is_read_only();
        let concurrency_safe = read_only && !shell.changes_shell_state();
        Effects {
            reads: files.reads,
            writes: files.writes,
            reads_within: files.reads_within,
            dynamic_paths: files.dynamic,
            read_only,
            concurrency_safe,
            shell: Some(shell),
            ..Effects::none()
        }
    }

    /// Only the session's own state changes (or nothing, when `read_only`).
    pub fn session_only(read_only: bool) -> Self {
        Effects { other: vec![Other::SessionState], read_only, concurrency_safe: read_only, ..Effects::none() }
    }

    /// Talks to MCP server `server`; read-only (and then concurrency-safe) when the
    /// server says so of the tool (`readOnlyHint`).
    pub fn mcp(server: &str, read_only: bool) -> Self {
        Effects {
            other: vec![Other::Mcp { server: server.to_string() }],
            read_only,
            concurrency_safe: read_only,
            ..Effects::none()
        }
    }

    /// Runs a subagent.
    pub fn subagent() -> Self {
        Effects { other: vec![Other::Subagent], ..Effects::none() }
    }

    /// A workflow run: asked unless allowed (see [`Other::Workflow`]).
    pub fn workflow() -> Self {
        Effects { other: vec![Other::Workflow], ..Effects::none() }
    }

    /// Whether the call touches nothing outside the session (no path, host or command;
    /// only session state or a subagent whose own calls are checked).
    pub fn needs_no_permission(&self) -> bool {
        self.declared
            && self.reads.is_empty()
            && self.writes.is_empty()
            && self.reads_within.is_empty()
            && self.hosts.is_empty()
            && self.shell.is_none()
            && !self.dynamic_paths
            && !self.other.is_empty()
            && self.other.iter().all(|o| matches!(o, Other::SessionState | Other::Subagent))
    }

    /// Mark the call as writing too (a shell command run in the background, say).
    pub fn not_read_only(mut self) -> Self {
        self.read_only = false;
        self.concurrency_safe = false;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_undeclared_and_unsafe() {
        let e = Effects::undeclared();
        assert!(!e.declared && !e.read_only && !e.concurrency_safe && !e.needs_no_permission());
    }

    #[test]
    fn session_state_needs_no_permission() {
        assert!(Effects::session_only(false).needs_no_permission());
        assert!(Effects::subagent().needs_no_permission());
        assert!(!Effects::reading(vec![PathBuf::from("/a")]).needs_no_permission());
    }
}
