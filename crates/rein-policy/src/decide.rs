//! The decision for one call, on what the call touches (its declared [`Effects`]):
//! deny rules → ask rules → undeclared effects → protected paths → what could not be
//! understood → mode → allow rules, the workspace and read-only facts → ask.

use rein_bash::ProblemClass;
use rein_effects::{Confinement, Effects, Grant, ShellCommand};

use crate::matching::{Hit, domain_hits};
use crate::paths::{inside, spellings};
use crate::protected::protected_reason;
use crate::rules::Spec;
use crate::{Behavior, Call, Decision, PermissionMode, Policy, Rule};

impl Policy {
    /// Decide `call`. In dontAsk mode a question becomes a denial.
    pub fn decide(&self, call: &Call<'_>) -> Decision {
        let d = self.decide_inner(call);
        if d.behavior == Behavior::Ask && self.mode == PermissionMode::DontAsk {
            return Decision {
                behavior: Behavior::Deny,
                reason: format!("{} In dontAsk mode anything that would ask is denied.", d.reason),
                source: format!("{}; mode dontAsk", d.source),
                explicit: d.explicit,
                grant: d.grant,
                tried: d.tried,
            };
        }
        d
    }

    fn decide_inner(&self, call: &Call<'_>) -> Decision {
        let (name, effects) = (call.tool, call.effects);
        // rein's own process files (its environment holds its credentials) are never
        // read by a file tool, under any name: as written, or as the kernel resolves it.
        // (In a shell command `/proc/self` is the command itself.)
        if effects.shell.is_none()
            && let Some(p) = effects.reads.iter().find(|p| {
                rein_effects::is_own_process_file(p)
                    || std::fs::canonicalize(p).is_ok_and(|c| rein_effects::is_own_process_file(&c))
            })
        {
            return Decision::new(
                Behavior::Deny,
                format!(
                    "{} is rein's own process file (its environment, memory or descriptors); no tool reads it.",
                    p.display()
                ),
                "rein's own process files",
            );
        }
        // Reads outside the workspace refused outright, when the settings say so (rein's
        // saved outputs and the persistent memory are the session's own).
        if self.block_outside_reads
            && let Some(p) = effects.reads.iter().chain(&effects.reads_within).find(|p| {
                !inside(p, &self.roots)
                    && !self.is_saved_output(p)
                    && !self.memory_dir.as_ref().is_some_and(|m| p.starts_with(m))
            })
        {
            return Decision::new(
                Behavior::Deny,
                format!(
                    "{} is outside the workspace ({}), and the settings refuse every read there \
                     (blockReadsOutsideWorkingDirectories).",
                    p.display(),
                    self.roots_list()
                ),
                "permissions.blockReadsOutsideWorkingDirectories",
            );
        }
        // A shell command reading a tree that holds a Read-denied file runs only in the
        // sandbox, which masks that file; elsewhere it is asked.
        let mut masked: Option<&Rule> = None;
        for rule in &self.deny {
            match self.hit(rule, call) {
                Some(Hit::Within) if effects.shell.is_some() => {
                    masked.get_or_insert(rule);
                }
                Some(_) => {
                    return Decision::new(
                        Behavior::Deny,
                        format!("Permission to use {name} was denied by {}.", rule.describe()),
                        rule.describe(),
                    );
                }
                None => {}
            }
        }
        if let Some(rule) = masked
            && effects.shell.as_ref().is_none_or(|s| s.confinement != Confinement::Sandboxed)
        {
            return Decision::new(
                Behavior::Ask,
                format!(
                    "This command reads a directory that holds a file {} denies, so it needs approval. With the \
                     sandbox on it would run with that file masked.",
                    rule.describe()
                ),
                format!("{}, inside a tree read", rule.describe()),
            )
            .explicit();
        }
        if effects.other.contains(&rein_effects::Other::User) {
            return Decision::new(
                Behavior::Ask,
                format!(
                    "{name} needs the user. If no user is here to answer (a headless run), decide yourself or say \
                     in your final answer what you need from them."
                ),
                "needs the user",
            )
            .explicit();
        }
        if let Some(rule) = self.ask.iter().find(|r| self.hits(r, call)) {
            return Decision::new(
                Behavior::Ask,
                format!("{} requires approval ({}).", name, rule.describe()),
                rule.describe(),
            )
            .explicit();
        }
        if let Some(shell) = &effects.shell
            && shell.confinement == Confinement::Unsandboxed
        {
            return Decision::new(
                Behavior::Ask,
                "This command asks to run outside the sandbox (dangerouslyDisableSandbox), which always needs \
                 approval."
                    .to_string(),
                "sandbox: unsandboxed run",
            )
            .explicit();
        }
        if !effects.declared {
            return Decision::new(
                Behavior::Ask,
                format!(
                    "{name} does not declare what it touches, so it is treated as writing anywhere and needs approval."
                ),
                "undeclared effects",
            )
            .explicit();
        }
        // The persistent memory: rein's file tools read and write its Markdown files
        // without asking (a deny or ask rule above still holds).
        if self.only_memory_files(effects) && (effects.writes.is_empty() || self.mode != PermissionMode::Plan) {
            return Decision::new(Behavior::Allow, "A persistent memory file.".to_string(), "auto memory".to_string());
        }
        // In a container that is the sandbox, bypassPermissions means it: protected paths
        // are the container's own.
        let container_bypass = self.container && self.mode == PermissionMode::BypassPermissions;
        for w in effects.writes.iter().filter(|_| !container_bypass) {
            if let Some(why) = spellings(w).iter().find_map(|p| protected_reason(p)) {
                return Decision::new(
                    Behavior::Ask,
                    format!("Writing {} needs approval: {why}.", w.display()),
                    "protected path",
                )
                .explicit();
            }
        }
        // bypassPermissions skips asking: what is not understood then runs; so does a
        // bare allow of the tool when no deny or ask rule could have caught what rein
        // does not see.
        if let Some(shell) = &effects.shell
            && !shell.analysis.understood()
            && self.mode != PermissionMode::BypassPermissions
            && !self.bare_allow_covers(name, shell)
        {
            let problems = &shell.analysis.problems;
            let texts: Vec<String> = problems.iter().map(ToString::to_string).collect();
            let mut classes: Vec<&str> = problems.iter().map(|p| p.class.name()).collect();
            classes.dedup();
            return Decision::new(
                Behavior::Ask,
                format!("This command needs approval because {}.", texts.join("; ")),
                format!("bash analysis: {}", classes.join(", ")),
            );
        }
        let path_rules = self.deny.iter().chain(&self.ask).any(|r| matches!(r.spec, Some(Spec::Path(..))));
        if effects.dynamic_paths && path_rules {
            return Decision::new(Behavior::Ask, "This call names files only known at run time.", "bash analysis");
        }
        match self.mode {
            PermissionMode::BypassPermissions => {
                return Decision::new(
                    Behavior::Allow,
                    "Allowed: bypassPermissions mode.",
                    format!("mode bypassPermissions ({})", self.mode_source),
                );
            }
            PermissionMode::Plan if !effects.read_only && !effects.needs_no_permission() => {
                return Decision::new(
                    Behavior::Deny,
                    format!(
                        "{name} is not available in plan mode: only read-only tools run until the plan is approved."
                    ),
                    "mode plan",
                );
            }
            _ => {}
        }
        self.allow_phase(call)
    }

    /// A bare allow of the tool (`Bash`, `Bash(*)`) covers a command rein does not fully
    /// understand when the part it does not understand cannot hide a command from deny
    /// and ask rules (an assignment or a shell-state change leaves every command visible),
    /// or no such rule exists for the tool.
    fn bare_allow_covers(&self, tool: &str, shell: &ShellCommand) -> bool {
        if !self.allow.iter().any(|r| r.is_bare() && r.matches_tool(tool)) {
            return false;
        }
        let visible = shell.analysis.problems.iter().all(|p| {
            matches!(
                p.class,
                ProblemClass::Assignment | ProblemClass::ShellState | ProblemClass::ControlFlow | ProblemClass::Wrapper
            )
        });
        let rules_could_catch = self.deny.iter().chain(&self.ask).any(|r| {
            matches!(r.spec, Some(Spec::Path(..))) || (r.matches_tool(tool) && matches!(r.spec, Some(Spec::Command(_))))
        });
        visible || !rules_could_catch
    }

    /// Every effect of the call must be allowed: by a rule, the mode, or the facts.
    fn allow_phase(&self, call: &Call<'_>) -> Decision {
        let (name, effects) = (call.tool, call.effects);
        let allow = |d: &str, s: String| Decision::new(Behavior::Allow, d.to_string(), s);
        if effects.needs_no_permission() {
            return allow("Allowed: the tool changes nothing outside the session.", "no permission needed".into());
        }
        if let Some(rule) = self.allow.iter().find(|r| r.is_bare() && r.matches_tool(name)) {
            return allow("Allowed by a rule.", rule.describe());
        }
        if let Some(shell) = &effects.shell {
            let d = self.allow_shell(shell);
            if d.behavior == Behavior::Ask && self.sandbox_auto_allow && shell.confinement == Confinement::Sandboxed {
                return allow(
                    "Allowed: the command runs in the sandbox (autoAllowBashIfSandboxed).",
                    "sandbox: autoAllowBashIfSandboxed".into(),
                )
                .granting(Grant::Workspace);
            }
            return d;
        }
        let mut used: Vec<String> = Vec::new();
        if !effects.writes.is_empty() {
            if let Some(rule) = self.allow.iter().find(|r| self.path_allow(r, &effects.writes, true)) {
                used.push(rule.describe());
            } else if self.mode == PermissionMode::AcceptEdits && effects.writes.iter().all(|w| inside(w, &self.roots))
            {
                used.push("mode acceptEdits".into());
            } else {
                return Decision::new(Behavior::Ask, format!("{name} changes files and needs approval."), "default");
            }
        }
        if !effects.reads.is_empty() {
            if let Some(rule) = self.allow.iter().find(|r| self.path_allow(r, &effects.reads, false)) {
                used.push(rule.describe());
            } else if effects
                .reads
                .iter()
                .chain(&effects.reads_within)
                .all(|p| inside(p, &self.roots) && !self.holds_credentials(p))
            {
                used.push("read-only, inside the workspace".into());
            } else if effects.reads.iter().all(|p| inside(p, &self.roots) || self.is_saved_output(p)) {
                used.push("read-only: rein's saved output of a result too large for the context".into());
            } else {
                return Decision::new(
                    Behavior::Ask,
                    format!("{name} reads outside the workspace ({}) and needs approval.", self.roots_list()),
                    "workspace wall",
                );
            }
        }
        if !effects.hosts.is_empty() {
            let rule = self
                .allow
                .iter()
                .find(|r| matches!(&r.spec, Some(Spec::Domain(d)) if effects.hosts.iter().all(|h| domain_hits(d, h))));
            match rule {
                Some(rule) => used.push(rule.describe()),
                None => return Decision::new(Behavior::Ask, format!("{name} needs approval."), "default"),
            }
        }
        let other = effects.other.iter().any(|o| !matches!(o, rein_effects::Other::SessionState));
        if used.is_empty() || other || effects.dynamic_paths {
            return Decision::new(Behavior::Ask, format!("{name} needs approval."), "default");
        }
        used.dedup();
        allow("Allowed by a rule.", used.join("; "))
    }

    fn roots_list(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

impl Policy {
    /// Whether `path` is one of the home's credentials (or inside one), or a directory
    /// that holds one — a workspace that is the home, say. rein's own judgement never
    /// reads them (the person's Read rule still can).
    pub(crate) fn holds_credentials(&self, path: &std::path::Path) -> bool {
        let Some(home) = &self.home else { return false };
        if !path.starts_with(home) && !home.starts_with(path) {
            return false;
        }
        rein_effects::credentials::in_home(home)
            .iter()
            .any(|c| (path.starts_with(c) || c.starts_with(path)) && std::fs::symlink_metadata(c).is_ok())
    }

    /// Whether the call touches nothing but Markdown files directly inside the memory
    /// directory (as the kernel resolves them: a link there to elsewhere is elsewhere),
    /// through rein's own file tools (no command, host or other effect).
    fn only_memory_files(&self, effects: &Effects) -> bool {
        let Some(dir) = &self.memory_dir else { return false };
        let dir = rein_effects::kernel_path(dir).unwrap_or_else(|_| dir.clone());
        // A file with another name elsewhere (a hard link to a secret) is not a memory.
        let single = |p: &std::path::PathBuf| {
            use std::os::unix::fs::MetadataExt;
            std::fs::symlink_metadata(p).map_or(true, |m| m.file_type().is_file() && m.nlink() == 1)
        };
        let inside = |p: &std::path::PathBuf| {
            p.parent() == Some(dir.as_path())
                && p.extension().is_some_and(|e| e == "md")
                && !p.components().any(|c| c == std::path::Component::ParentDir)
                && single(p)
        };
        let touched = effects.reads.iter().chain(&effects.writes);
        effects.declared
            && effects.shell.is_none()
            && effects.hosts.is_empty()
            && effects.other.is_empty()
            && effects.reads_within.is_empty()
            && !effects.dynamic_paths
            && effects.reads.len() + effects.writes.len() > 0
            && (effects.writes.is_empty() || effects.edits_files)
            && touched.clone().all(inside)
    }

    /// A file rein saved this session's too-large result in: directly inside its
    /// `tool-results`, as the kernel resolves it, a regular file with no other name (a
    /// hard link to a secret is not one) and owned as the folder is.
    fn is_saved_output(&self, path: &std::path::Path) -> bool {
        use std::os::unix::fs::MetadataExt as _;
        let Some(dir) = &self.saved_outputs else { return false };
        let (Ok(dir), Ok(real)) = (std::fs::canonicalize(dir), std::fs::canonicalize(path)) else { return false };
        let (Ok(dir_meta), Ok(meta)) = (std::fs::metadata(&dir), std::fs::symlink_metadata(&real)) else {
            return false;
        };
        real.parent() == Some(dir.as_path()) && meta.is_file() && meta.nlink() == 1 && meta.uid() == dir_meta.uid()
    }
}
