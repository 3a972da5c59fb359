//! The decision for one call, on what the call touches (its declared [`Effects`]):
//! deny rules → ask rules → undeclared effects → protected paths → what could not be
//! understood → mode → allow rules, the workspace and read-only facts → ask.

use std::collections::HashMap;
use std::path::PathBuf;

use rein_bash::{AllowBy, Command, Kind, Model, ProblemClass, Word, file_reads, file_writes, model, recursive_reads};
use rein_effects::{Access, Confinement, Effects, ShellCommand};
use serde_json::Value;

use crate::matching::{Hit, command_hits, domain_hits};
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
const FS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp"];

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
        let mut programs = HashMap::new();
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
                AllowBy::Rules => match self.allow_command(shell, cmd, &mut readable, &mut programs) {
                    Ok(by) => used.push(by),
                    Err((why, source)) => {
                        missing.push(if why.is_empty() { format!("`{form}`") } else { format!("`{form}` ({why})") });
                        sources.extend(source);
                    }
                },
            }
        }
        for r in shell.analysis.redirects.iter().filter(|r| r.writes_file()) {
            if !self.may_write(shell, shell.paths_of(&r.target)) {
                missing.push(format!("writing to {}", r.target.text));
            }
        }
        // What a redirection (or `xargs -a`) reads is held to the workspace wall too.
        for r in shell.analysis.redirects.iter().filter(|r| r.reads_file()) {
            let ok = shell.paths_of(&r.target).is_some_and(|ps| ps.iter().all(|p| self.may_read(p, &mut readable)));
            if !ok {
                missing.push(format!("reading {} (outside the workspace)", r.target.text));
                sources.push("workspace wall");
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

    /// What allows one command, or why nothing does (with the source to report). A
    /// program with a table is covered — by a prefix rule or, for a reader, by the
    /// read-only facts — only when its model is complete, every file it reads is inside
    /// the workspace (or allowed by a Read rule) and what it writes may be written.
    fn allow_command(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        readable: &mut HashMap<PathBuf, bool>,
        programs: &mut HashMap<String, Option<PathBuf>>,
    ) -> Result<String, (String, Option<&'static str>)> {
        if let Some((why, source)) = self.not_the_reader_allowed(shell, cmd, programs) {
            return Err((why, Some(source)));
        }
        let form = cmd.allow_form();
        let rule = self.command_allow_rules().find(|r| command_hits(r, &form));
        let accept_edits = self.mode == PermissionMode::AcceptEdits;
        let (kind, reading) = match model(cmd) {
            Some((_, Model::NotModelled(why))) => return Err((why, Some("not modelled"))),
            Some((kind, Model::Complete(r))) => (kind, r),
            None => {
                if let Some(r) = rule {
                    return Ok(r.describe());
                }
                let fs_writer = cmd.program().is_some_and(|p| FS_COMMANDS.contains(&p));
                if accept_edits && fs_writer && self.may_write(shell, words_paths(shell, &file_writes(cmd))) {
                    return Ok("mode acceptEdits".into());
                }
                return Err((String::new(), None));
            }
        };
        let by = match (rule, kind) {
            (Some(r), _) => r.describe(),
            (None, Kind::Reader) if reading.writes.is_empty() => "read-only command".to_string(),
            (None, Kind::Reader) if accept_edits => "mode acceptEdits".to_string(),
            (None, _) => return Err((String::new(), None)),
        };
        if reading.repo_history && self.tracks_denied(shell, &reading) {
            let why = "it prints file contents from the repository's history or index, which no path on the line \
                       names, and the repository tracks a file a Read deny rule covers";
            return Err((why.to_string(), Some("repository history")));
        }
        if let Some(p) = self.unreadable(shell, cmd, &reading, readable) {
            return Err((format!("it reads {p}, outside the workspace"), Some("workspace wall")));
        }
        if let Some(dir) = self.links_out(shell, &reading) {
            let why = format!("it follows symbolic links out of {dir}");
            return Err((why, Some("workspace wall")));
        }
        if !reading.writes.is_empty() {
            let writes: Option<Vec<Vec<PathBuf>>> =
                reading.writes.iter().map(|w| shell.paths_in(w, reading.chdir.as_ref())).collect();
            if !self.may_write(shell, writes.map(|v| v.concat())) {
                let names: Vec<&str> = reading.writes.iter().map(|w| w.text.as_str()).collect();
                return Err((format!("it writes {}", names.join(", ")), None));
            }
        }
        Ok(by)
    }

    /// A file may be written by a command: inside the workspace, and acceptEdits or an
    /// Edit rule allows it.
    fn may_write(&self, _shell: &ShellCommand, paths: Option<Vec<PathBuf>>) -> bool {
        paths.is_some_and(|ps| {
            !ps.is_empty()
                && ps.iter().all(|p| inside(p, &self.roots))
                && (self.mode == PermissionMode::AcceptEdits
                    || self.allow.iter().any(|rule| self.path_allow(rule, &ps, true)))
        })
    }

    /// Why a command is not the program an allow or the read-only facts mean: a name
    /// the session shell now defines as a function, a program found inside the
    /// workspace, a repository config that names programs. With the source to report.
    fn not_the_reader_allowed(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        programs: &mut HashMap<String, Option<PathBuf>>,
    ) -> Option<(String, &'static str)> {
        let program = cmd.program()?;
        if shell.state.functions.iter().any(|f| f == program) {
            let why = format!("`{program}` is a shell function an earlier command defined");
            return Some((why, "shell state: function"));
        }
        let found =
            programs.entry(program.to_string()).or_insert_with(|| shell.program_in_workspace(program, &self.roots));
        if let Some(found) = found {
            let why = format!("`{program}` runs {}, a file inside the workspace", found.display());
            return Some((why, "program path"));
        }
        if program == "git" && !shell.git_programs.is_empty() {
            let why = format!("the repository's git config names programs: {}", shell.git_programs.join(", "));
            return Some((why, "repository config"));
        }
        if let Some(why) = shell.config_problem(cmd) {
            return Some((why, "program config"));
        }
        None
    }

    fn command_allow_rules(&self) -> impl Iterator<Item = &Rule> {
        self.allow.iter().filter(|r| matches!(r.spec, Some(Spec::Command(_))))
    }

    /// The first file the command reads that is neither inside the workspace nor
    /// allowed by a Read rule; a `cd` must stay inside the workspace.
    /// `readable` remembers each path's answer: a line names the same file many times.
    fn unreadable(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        reading: &rein_bash::Reading,
        readable: &mut HashMap<PathBuf, bool>,
    ) -> Option<String> {
        let paths = if matches!(cmd.program(), Some("cd" | "pushd")) {
            match cmd.words.iter().skip(1).find(|w| !w.text.starts_with('-')) {
                Some(w) => shell.paths_of(w),
                None => shell.home.clone().map(|h| vec![h]),
            }
        } else {
            // What the model reads, and every operand a reader of files would read: a
            // gap in one is covered by the other.
            let heuristic: Vec<Vec<PathBuf>> = file_reads(cmd)
                .iter()
                .chain(&recursive_reads(cmd))
                // Listings name files, they do not read them: held to the wall when they
                // name a place outside the line's directories (`ls ~/.ssh`, `du /`).
                .chain(reading.listed.iter().filter(|w| w.text.starts_with(['/', '~'])))
                .filter(|w| w.text != "-" && w.literal)
                .filter_map(|w| shell.paths_in(w, reading.chdir.as_ref()))
                .collect();
            shell.model_reads(reading).map(|mut v| {
                v.extend(heuristic.concat());
                v
            })
        };
        let Some(paths) = paths else { return Some("a file only known at run time".into()) };
        paths.into_iter().find(|p| !self.may_read(p, readable)).map(|p| p.display().to_string())
    }

    /// Whether a repository the git command reads tracks a file a Read deny rule covers
    /// (or its index cannot be read).
    fn tracks_denied(&self, shell: &ShellCommand, reading: &rein_bash::Reading) -> bool {
        let patterns: Vec<&crate::paths::PathPattern> = self
            .deny
            .iter()
            .filter_map(|r| match &r.spec {
                Some(Spec::Path(p, Access::Read)) => Some(p),
                _ => None,
            })
            .collect();
        if patterns.is_empty() {
            return false;
        }
        let Some(tracked) = shell.tracked_in(reading.chdir.as_ref()) else { return true };
        tracked.iter().any(|t| patterns.iter().any(|p| p.matches(t) || p.files(&self.roots).is_same_file(t)))
    }

    /// `p` may be read by a command: inside the workspace, or allowed by a Read rule.
    fn may_read(&self, p: &std::path::Path, readable: &mut HashMap<PathBuf, bool>) -> bool {
        *readable.entry(p.to_path_buf()).or_insert_with_key(|p| {
            inside(p, &self.roots) || self.allow.iter().any(|r| self.path_allow(r, std::slice::from_ref(p), false))
        })
    }

    /// A tree read following links (`grep -R`, `rg -L`): the first directory whose
    /// tree holds a link to outside the workspace.
    fn links_out(&self, shell: &ShellCommand, reading: &rein_bash::Reading) -> Option<String> {
        if !reading.follows_links {
            return None;
        }
        for w in &reading.trees {
            for dir in shell.paths_in(w, reading.chdir.as_ref()).unwrap_or_default() {
                if crate::links::leads_outside(&dir, &self.roots) {
                    return Some(dir.display().to_string());
                }
            }
        }
        None
    }

    fn roots_list(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

/// The paths of `words`, or `None` when one is only known at run time.
fn words_paths(shell: &ShellCommand, words: &[Word]) -> Option<Vec<PathBuf>> {
    let lists: Option<Vec<Vec<PathBuf>>> = words.iter().map(|w| shell.paths_of(w)).collect();
    lists.map(|v| v.concat())
}
