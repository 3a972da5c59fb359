//! The permission engine. For every tool call it answers allow, ask or deny, and says
//! why — the rule and the file it came from, the mode, or the fact that decided.
//! Rules are Claude Code's (`Tool`, `Tool(specifier)`, spec §B) from every settings
//! scope; evaluation is deny → ask → allow, so no allow rule, mode or answer can open a
//! hole in a deny. Bash commands are understood with tree-sitter (`rein-bash`): every
//! sub-command must be allowed for the line to be allowed, a deny on any denies the
//! line, and what cannot be understood is asked — after deny rules were checked.

mod command_pattern;
mod decide;
mod decide_shell;
mod links;
mod listing;
mod matching;
mod mode;
mod paths;
mod protected;
mod rules;
mod shared;
mod spec_error;
mod suggest;
mod update;

use std::path::PathBuf;

/// A tool call as the policy sees it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub input: &'a serde_json::Value,
    /// What the tool declared this call touches.
    pub effects: &'a rein_effects::Effects,
}

pub use mode::PermissionMode;
pub use rein_effects::{Access, Confinement, Effects, Grant, RuleKind, ToolKinds, ToolRules};
pub use rules::{ListKind, Rule, RuleError};
pub use shared::SharedPolicy;
pub use update::{Change, Destination, PermissionUpdate, SettingsFiles, UpdateError};

use rein_settings::Settings;

/// What the engine decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    Allow,
    Ask,
    Deny,
}

impl Behavior {
    pub fn name(self) -> &'static str {
        match self {
            Behavior::Allow => "allow",
            Behavior::Ask => "ask",
            Behavior::Deny => "deny",
        }
    }
}

/// A decision and its reason, for the model, the audit log and `rein permissions check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub behavior: Behavior,
    /// A sentence the model and the user can act on.
    pub reason: String,
    /// What decided: a rule with its origin, a mode, or a named fact.
    pub source: String,
    /// The question comes from an explicit ask rule or a protected path: a hook's
    /// "allow" cannot skip it.
    pub explicit: bool,
    /// What an allowed shell command may do when it runs: what the person's setup
    /// gives, or only what rein's own judgement covered (enforced by the sandbox).
    pub grant: Grant,
    /// What the call did when rein tried it first where it could change nothing: the
    /// changes "yes" would make (one line per path, then diffs), for the person.
    pub tried: Option<String>,
}

impl Decision {
    pub fn new(behavior: Behavior, reason: impl Into<String>, source: impl Into<String>) -> Self {
        Decision {
            behavior,
            reason: reason.into(),
            source: source.into(),
            explicit: false,
            grant: Grant::User,
            tried: None,
        }
    }

    /// Whether a call asked about for this reason may be tried first where it can change
    /// nothing: not what a rule, a protected path or a hook asked about by name, and not
    /// a read outside the workspace (the jail would let it read).
    pub fn may_be_tried(&self) -> bool {
        self.behavior == Behavior::Ask && !self.explicit && !self.source.contains("workspace wall")
    }

    /// The same decision, granting only `grant` to a shell command.
    pub fn granting(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    pub(crate) fn explicit(mut self) -> Self {
        self.explicit = true;
        self
    }
}

/// What the policy is built from.
#[derive(Debug, Clone, Default)]
pub struct PolicyInputs {
    pub settings: Settings,
    /// `--allowedTools` / `--disallowedTools` entries (already split).
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    /// `--permission-mode` (or `--dangerously-skip-permissions`).
    pub mode: Option<PermissionMode>,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// `--add-dir` directories.
    pub add_dirs: Vec<PathBuf>,
    /// How each tool reads its rules (from the tool registry).
    pub tools: ToolKinds,
}

/// The rules, the mode and the workspace of one session.
#[derive(Debug, Clone)]
pub struct Policy {
    pub(crate) deny: Vec<Rule>,
    pub(crate) ask: Vec<Rule>,
    pub(crate) allow: Vec<Rule>,
    pub mode: PermissionMode,
    /// Where the mode came from.
    pub mode_source: String,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    /// Canonical workspace roots: cwd, `--add-dir`s, `additionalDirectories`.
    pub roots: Vec<PathBuf>,
    /// How each tool reads its rules.
    pub(crate) tools: ToolKinds,
    /// `sandbox.autoAllowBashIfSandboxed` with a working sandbox: a command that runs
    /// sandboxed is allowed where it would otherwise be asked (deny and ask rules,
    /// protected paths and what the analysis cannot read still hold).
    pub sandbox_auto_allow: bool,
    /// This session's saved outputs (`REIN_HOME/sessions/<id>/tool-results`, written by
    /// rein when a result was too large for the context): its files are read without
    /// asking, as the preview told the model to.
    pub saved_outputs: Option<PathBuf>,
    /// rein runs in a container that is itself the sandbox (`IS_SANDBOX=1`, set
    /// explicitly in the process environment): bypassPermissions also writes protected
    /// paths without asking. Deny and ask rules still hold.
    pub container: bool,
    /// The persistent memory's directory: its Markdown files are read and written by
    /// rein's file tools without asking (deny and ask rules still hold).
    pub memory_dir: Option<PathBuf>,
    /// What the repository's settings tried to loosen and was set aside (said once at
    /// start).
    pub ignored: Vec<String>,
    /// `disableAutoMode: "disable"` (top level or under `permissions`, any scope): auto
    /// mode cannot be entered.
    pub auto_disabled: bool,
    /// `disableSkillShellExecution` (any scope): the `` !`cmd` `` lines of skills and
    /// commands are not run.
    pub skill_shell_disabled: bool,
    /// `permissions.blockReadsOutsideWorkingDirectories` (any scope): a read outside the
    /// workspace roots is refused, whatever rule or mode would allow it.
    pub block_outside_reads: bool,
    /// `disableBypassPermissionsMode: "disable"` or `--restricted`: bypassPermissions
    /// cannot be entered, at start or later.
    pub bypass_disabled: bool,
}

impl Policy {
    /// Build the policy; any rule that does not parse is an error naming its file and
    /// line (fail closed: rules are never dropped silently).
    pub fn new(inputs: &PolicyInputs) -> Result<Policy, RuleError> {
        rules::build(inputs)
    }

    /// No rules, bypassPermissions mode: every call is allowed except writes to protected
    /// paths (for engine tests and embedding).
    pub fn allow_all(cwd: PathBuf) -> Policy {
        Policy {
            deny: Vec::new(),
            ask: Vec::new(),
            allow: Vec::new(),
            mode: PermissionMode::BypassPermissions,
            mode_source: "allow_all".into(),
            roots: vec![std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone())],
            cwd,
            home: None,
            tools: ToolKinds::new(),
            sandbox_auto_allow: false,
            saved_outputs: None,
            container: false,
            memory_dir: None,
            ignored: Vec::new(),
            auto_disabled: false,
            skill_shell_disabled: false,
            block_outside_reads: false,
            bypass_disabled: false,
        }
    }

    /// Whether a bare deny rule removes `tool` from the list sent to the model.
    pub fn removes_tool(&self, tool: &str) -> bool {
        self.deny.iter().any(|r| r.is_bare() && r.matches_tool(tool))
    }

    /// Parse a rule written somewhere else (a hook's `if`), as a deny rule; `origin`
    /// says where, for the error.
    pub fn parse_rule(&self, text: &str, origin: &str) -> Result<Rule, RuleError> {
        self.parse_rule_as(text, ListKind::Deny, origin)
    }

    /// Parse a rule for the `kind` list.
    pub fn parse_rule_as(&self, text: &str, kind: ListKind, origin: &str) -> Result<Rule, RuleError> {
        let at = rules::Anchors { cwd: &self.cwd, home: self.home.as_deref() };
        Rule::parse(text, kind, origin, &at, &self.cwd, &self.tools)
    }

    /// Whether the rule written as `rule` (e.g. a hook's `if`, checked by
    /// [`parse_rule`](Self::parse_rule) at start) matches `call`.
    pub fn rule_matches(&self, rule: &str, call: &Call<'_>) -> bool {
        self.parse_rule(rule, "hook if").is_ok_and(|r| self.hits(&r, call))
    }

    /// Drop the allow rules that came from `origin` (a command's turn-only rules).
    pub fn forget(&mut self, origin: &str) {
        self.allow.retain(|r| r.origin != origin);
    }

    /// Whether an allow rule's origin starts with `prefix`.
    pub fn has_rules_from(&self, prefix: &str) -> bool {
        self.allow.iter().any(|r| r.origin.starts_with(prefix))
    }

    /// Drop the allow rules whose origin starts with `prefix` (what every skill of the
    /// last turn allowed).
    pub fn forget_prefix(&mut self, prefix: &str) {
        self.allow.retain(|r| !r.origin.starts_with(prefix));
    }

    /// How `tool` reads its rules, if the registry declared it.
    pub fn rule_kind(&self, tool: &str) -> Option<RuleKind> {
        self.tools.get(tool).map(|t| t.kind)
    }

    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.deny.iter().chain(&self.ask).chain(&self.allow)
    }
}
