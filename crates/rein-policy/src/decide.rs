//! The decision for one call, on what the call touches (its declared [`Effects`]):
//! deny rules → ask rules → undeclared effects → protected paths → what could not be
//! understood → mode → allow rules, the workspace and read-only facts → ask.

use std::collections::HashMap;
use std::path::PathBuf;

use rein_bash::{AllowBy, Command, file_reads, file_writes, is_read_only_command, risky_options};
use rein_effects::{Confinement, Effects, ShellCommand};
use serde_json::Value;

use crate::matching::{command_hits, domain_hits};
use crate::paths::{inside, spellings};
use crate::protected::protected_reason;
use crate::rules::Spec;
use crate::{Behavior, Decision, PermissionMode, Policy, Rule};

/// A tool call as the policy sees it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// What the tool declared this call touches.
    pub effects: &'a Effects,
}

/// File commands acceptEdits approves inside the workspace.
const FS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

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
            };
        }
        d
    }

    fn decide_inner(&self, call: &Call<'_>) -> Decision {
        let (name, effects) = (call.tool, call.effects);
        if let Some(rule) = self.deny.iter().find(|r| self.hits(r, call)) {
            return Decision::new(
                Behavior::Deny,
                format!("Permission to use {name} was denied by {}.", rule.describe()),
                rule.describe(),
            );
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
        for w in &effects.writes {
            if let Some(why) = spellings(w).iter().find_map(|p| protected_reason(p)) {
                return Decision::new(
                    Behavior::Ask,
                    format!("Writing {} needs approval: {why}.", w.display()),
                    "protected path",
                )
                .explicit();
            }
        }
        // bypassPermissions skips asking: what is not understood then runs.
        if let Some(shell) = &effects.shell
            && !shell.analysis.understood()
            && self.mode != PermissionMode::BypassPermissions
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
                );
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
            } else if effects.reads.iter().all(|p| inside(p, &self.roots)) {
                used.push("read-only, inside the workspace".into());
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

    fn allow_shell(&self, shell: &ShellCommand) -> Decision {
        // Variables an earlier command exported change what every program here runs.
        if !shell.state.changed_env.is_empty() {
            return Decision::new(
                Behavior::Ask,
                format!(
                    "This command needs approval: an earlier command changed the session shell's environment ({}), \
                     which can change what any program runs.",
                    shell.state.changed_env.join(", ")
                ),
                "shell state: changed environment",
            );
        }
        let mut missing: Vec<String> = Vec::new();
        let mut used: Vec<String> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        let mut readable = HashMap::new();
        for cmd in &shell.analysis.commands {
            let form = cmd.allow_form();
            match cmd.allow_by {
                AllowBy::DenyCheckOnly => continue,
                AllowBy::ExactRuleOnly => {
                    match self.command_allow_rules().find(|r| !r.text.contains('*') && command_hits(r, &form)) {
                        Some(r) => used.push(r.describe()),
                        None => missing.push(format!("`{form}`")),
                    }
                }
                AllowBy::Rules => {
                    if let Some((why, source)) = self.not_the_reader_allowed(shell, cmd) {
                        missing.push(format!("`{form}` ({why})"));
                        sources.push(source);
                    } else if let Some(r) = self.command_allow_rules().find(|r| command_hits(r, &form)) {
                        used.push(r.describe());
                    } else if is_read_only_command(cmd) && self.reads_inside(shell, cmd, &mut readable) {
                        used.push("read-only command".into());
                    } else if self.mode == PermissionMode::AcceptEdits
                        && cmd.program().is_some_and(|p| FS_COMMANDS.contains(&p))
                        && file_writes(cmd)
                            .iter()
                            .all(|w| shell.paths_of(w).is_some_and(|ps| ps.iter().all(|p| inside(p, &self.roots))))
                    {
                        used.push("mode acceptEdits".into());
                    } else {
                        missing.push(format!("`{form}`"));
                    }
                }
            }
        }
        for r in shell.analysis.redirects.iter().filter(|r| r.writes_file()) {
            let targets = shell.paths_of(&r.target);
            let ok = targets.as_ref().is_some_and(|ps| {
                ps.iter().all(|p| inside(p, &self.roots))
                    && (self.mode == PermissionMode::AcceptEdits
                        || self.allow.iter().any(|rule| self.path_allow(rule, ps, true)))
            });
            if !ok {
                missing.push(format!("writing to {}", r.target.text));
            }
        }
        if missing.is_empty() {
            used.dedup();
            return Decision::new(Behavior::Allow, "Allowed: every part of the command is allowed.", used.join("; "));
        }
        sources.dedup();
        let source = if sources.is_empty() { "default".to_string() } else { sources.join(", ") };
        Decision::new(
            Behavior::Ask,
            format!("This command needs approval: no rule allows {}.", missing.join(", ")),
            source,
        )
    }

    /// Why a command is more than the reading an allow rule or the read-only facts
    /// cover: an option that writes or runs, a repository config that names programs,
    /// a name the session shell now defines as a function. With the source to report.
    fn not_the_reader_allowed(&self, shell: &ShellCommand, cmd: &Command) -> Option<(String, &'static str)> {
        let program = cmd.program()?;
        if shell.state.functions.iter().any(|f| f == program) {
            let why = format!("`{program}` is a shell function an earlier command defined");
            return Some((why, "shell state: function"));
        }
        for risk in risky_options(cmd) {
            let harmless = risk
                .unless_inside
                .as_ref()
                .is_some_and(|w| shell.paths_of(w).is_some_and(|ps| ps.iter().all(|p| inside(p, &self.roots))));
            if !harmless {
                return Some((format!("`{}` {}", risk.option, risk.why), "risky option"));
            }
        }
        if program == "git" && !shell.git_programs.is_empty() {
            let why = format!("the repository's git config names programs: {}", shell.git_programs.join(", "));
            return Some((why, "repository config"));
        }
        None
    }

    fn command_allow_rules(&self) -> impl Iterator<Item = &Rule> {
        self.allow.iter().filter(|r| matches!(r.spec, Some(Spec::Command(_))))
    }

    /// A read-only command's files must be inside the workspace (or allowed by a rule);
    /// a `cd` must stay inside it.
    /// `readable` remembers each path's answer: a line names the same file many times.
    fn reads_inside(&self, shell: &ShellCommand, cmd: &Command, readable: &mut HashMap<PathBuf, bool>) -> bool {
        if matches!(cmd.program(), Some("cd" | "pushd")) {
            let target = cmd.words.get(1).filter(|w| w.text != "-");
            return target.and_then(|w| shell.paths_of(w)).is_some_and(|ps| ps.iter().all(|p| inside(p, &self.roots)));
        }
        file_reads(cmd).iter().filter(|w| w.text != "-").all(|w| match shell.paths_of(w) {
            Some(ps) => ps.into_iter().all(|p| {
                *readable.entry(p).or_insert_with_key(|p| {
                    inside(p, &self.roots)
                        || self.allow.iter().any(|r| self.path_allow(r, std::slice::from_ref(p), false))
                })
            }),
            None => false,
        })
    }

    fn roots_list(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}
