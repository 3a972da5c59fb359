//! The decision for one call: deny rules → ask rules → protected paths → what could not
//! be understood → mode → allow rules and read-only facts → ask.

use std::path::{Path, PathBuf};

use rein_bash::{AllowBy, Analysis, Word, analyze, file_reads, file_writes, is_read_only_command};
use serde_json::Value;

use crate::paths::{PathPattern, inside, lexical, spellings};
use crate::protected::protected_reason;
use crate::rules::Spec;
use crate::{Behavior, Decision, PermissionMode, Policy, Rule};

/// A tool call as the policy sees it.
pub struct Call<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// What the tool says of this input (`is_read_only`).
    pub read_only: bool,
}

/// Tools whose calls change nothing outside the session.
const NO_PERMISSION_NEEDED: &[&str] = &["TodoWrite", "BashOutput", "KillShell", "ExitPlanMode", "Agent", "Task"];
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep"];
/// File commands acceptEdits approves inside the workspace.
const FS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

/// What a call touches.
#[derive(Default)]
struct Facts {
    reads: Vec<PathBuf>,
    writes: Vec<PathBuf>,
    /// A file argument only known at run time.
    dynamic_paths: bool,
    bash: Option<Analysis>,
    host: Option<String>,
}

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
        let facts = self.facts(call);
        let name = call.tool;
        if let Some(rule) = self.deny.iter().find(|r| self.rule_hits(r, call, &facts)) {
            return Decision::new(
                Behavior::Deny,
                format!("Permission to use {name} was denied by {}.", rule.describe()),
                rule.describe(),
            );
        }
        if let Some(rule) = self.ask.iter().find(|r| self.rule_hits(r, call, &facts)) {
            return Decision::new(
                Behavior::Ask,
                format!("{} requires approval ({}).", name, rule.describe()),
                rule.describe(),
            )
            .explicit();
        }
        for w in &facts.writes {
            if let Some(why) = spellings(w).iter().find_map(|p| protected_reason(p)) {
                return Decision::new(
                    Behavior::Ask,
                    format!("Writing {} needs approval: {why}.", w.display()),
                    "protected path",
                )
                .explicit();
            }
        }
        if let Some(a) = &facts.bash {
            if !a.understood() {
                return Decision::new(
                    Behavior::Ask,
                    format!("This command needs approval because {}.", a.problems.join("; ")),
                    "bash analysis",
                );
            }
            let path_rules = self.deny.iter().chain(&self.ask).any(|r| matches!(r.spec, Some(Spec::Path(_))));
            if facts.dynamic_paths && path_rules {
                return Decision::new(
                    Behavior::Ask,
                    "This command names files only known at run time.",
                    "bash analysis",
                );
            }
        }
        match self.mode {
            PermissionMode::BypassPermissions => {
                return Decision::new(
                    Behavior::Allow,
                    "Allowed: bypassPermissions mode.",
                    format!("mode bypassPermissions ({})", self.mode_source),
                );
            }
            PermissionMode::Plan if !call.read_only && !NO_PERMISSION_NEEDED.contains(&name) => {
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
        self.allow_phase(call, &facts)
    }

    fn allow_phase(&self, call: &Call<'_>, facts: &Facts) -> Decision {
        let name = call.tool;
        let allow = |d: &str, s: String| Decision::new(Behavior::Allow, d.to_string(), s);
        if NO_PERMISSION_NEEDED.contains(&name) {
            return allow("Allowed: the tool changes nothing outside the session.", "no permission needed".into());
        }
        if let Some(rule) = self.allow.iter().find(|r| r.is_bare() && r.matches_tool(name)) {
            return allow("Allowed by a rule.", rule.describe());
        }
        if let Some(a) = &facts.bash {
            return self.allow_bash(a);
        }
        if EDIT_TOOLS.contains(&name) {
            if let Some(rule) = self.allow.iter().find(|r| self.path_allow(r, &facts.writes, true)) {
                return allow("Allowed by a rule.", rule.describe());
            }
            if self.mode == PermissionMode::AcceptEdits && facts.writes.iter().all(|w| inside(w, &self.roots)) {
                return allow("Allowed: acceptEdits mode, inside the workspace.", "mode acceptEdits".into());
            }
            return Decision::new(Behavior::Ask, format!("{name} changes files and needs approval."), "default");
        }
        if READ_TOOLS.contains(&name) {
            if let Some(rule) = self.allow.iter().find(|r| self.path_allow(r, &facts.reads, false)) {
                return allow("Allowed by a rule.", rule.describe());
            }
            if facts.reads.iter().all(|p| inside(p, &self.roots)) {
                return allow("Allowed: reading inside the workspace.", "read-only, inside the workspace".into());
            }
            return Decision::new(
                Behavior::Ask,
                format!("{name} reads outside the workspace ({}) and needs approval.", self.roots_list()),
                "workspace wall",
            );
        }
        if let Some(rule) = self.allow.iter().find(|r| self.rule_hits(r, call, facts)) {
            return allow("Allowed by a rule.", rule.describe());
        }
        Decision::new(Behavior::Ask, format!("{name} needs approval."), "default")
    }

    fn allow_bash(&self, a: &Analysis) -> Decision {
        let escapes = self.cd_escapes(a);
        let mut missing: Vec<String> = Vec::new();
        let mut used: Vec<String> = Vec::new();
        for cmd in &a.commands {
            match cmd.allow_by {
                AllowBy::DenyCheckOnly => continue,
                AllowBy::ExactRuleOnly => {
                    let form = cmd.allow_form();
                    match self.bash_allow_rules().find(|r| !r.text.contains('*') && command_hits(r, &form)) {
                        Some(r) => used.push(r.describe()),
                        None => missing.push(form),
                    }
                }
                AllowBy::Rules => {
                    let form = cmd.allow_form();
                    if let Some(r) = self.bash_allow_rules().find(|r| command_hits(r, &form)) {
                        used.push(r.describe());
                    } else if is_read_only_command(cmd) && self.reads_inside(cmd, escapes) {
                        used.push("read-only command".into());
                    } else if self.mode == PermissionMode::AcceptEdits
                        && cmd.program().is_some_and(|p| FS_COMMANDS.contains(&p))
                        && file_writes(cmd).iter().all(|w| {
                            self.paths_of(w, escapes).is_some_and(|ps| ps.iter().all(|p| inside(p, &self.roots)))
                        })
                    {
                        used.push("mode acceptEdits".into());
                    } else {
                        missing.push(form);
                    }
                }
            }
        }
        for r in a.redirects.iter().filter(|r| r.writes_file()) {
            let targets = self.paths_of(&r.target, escapes);
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
        Decision::new(
            Behavior::Ask,
            format!(
                "This command needs approval: no rule allows {}.",
                missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            ),
            "default",
        )
    }

    fn bash_allow_rules(&self) -> impl Iterator<Item = &Rule> {
        self.allow.iter().filter(|r| r.tool == "Bash" && matches!(r.spec, Some(Spec::Command(_))))
    }

    /// A read-only command's files must be inside the workspace (or allowed by a rule).
    fn reads_inside(&self, cmd: &rein_bash::Command, escapes: bool) -> bool {
        let mut targets = file_reads(cmd);
        if cmd.program() == Some("cd") {
            return !self.cd_leaves(cmd);
        }
        targets.retain(|w| w.text != "-");
        targets.iter().all(|w| match self.paths_of(w, escapes) {
            Some(ps) => ps.iter().all(|p| {
                inside(p, &self.roots) || self.allow.iter().any(|r| self.path_allow(r, std::slice::from_ref(p), false))
            }),
            None => false,
        })
    }

    /// `cd` (or `pushd`) to somewhere outside the workspace, or somewhere unknown.
    fn cd_leaves(&self, cmd: &rein_bash::Command) -> bool {
        match cmd.words.get(1) {
            None => true,
            Some(w) => self.paths_of(w, false).is_none_or(|ps| ps.iter().any(|p| !inside(p, &self.roots))),
        }
    }

    /// Whether the line changes directory out of the workspace: relative paths after it
    /// are then unknown.
    fn cd_escapes(&self, a: &Analysis) -> bool {
        a.commands.iter().any(|c| matches!(c.program(), Some("cd" | "pushd" | "popd")) && self.cd_leaves(c))
    }

    fn roots_list(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The paths a word names: made absolute, globs expanded as the shell would. `None`
    /// when they are only known at run time (or relative after a `cd` out of the
    /// workspace, when `escapes`).
    fn paths_of(&self, w: &Word, escapes: bool) -> Option<Vec<PathBuf>> {
        if !w.literal {
            return None;
        }
        let relative = !(w.text.starts_with('/') || w.text.starts_with('~'));
        if escapes && relative {
            return None;
        }
        if w.glob {
            return expand_glob(&self.absolute(&w.text));
        }
        Some(vec![self.absolute(&w.text)])
    }

    fn absolute(&self, p: &str) -> PathBuf {
        let path = match (p.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ if p == "~" => self.home.clone().unwrap_or_else(|| PathBuf::from("~")),
            _ if Path::new(p).is_absolute() => PathBuf::from(p),
            _ => self.cwd.join(p),
        };
        lexical(&path)
    }

    fn facts(&self, call: &Call<'_>) -> Facts {
        let mut f = Facts::default();
        let field = |k: &str| call.input.get(k).and_then(Value::as_str);
        match call.tool {
            "Read" => f.reads.extend(field("file_path").map(|p| self.absolute(p))),
            "Glob" | "Grep" => {
                f.reads.push(field("path").map(|p| self.absolute(p)).unwrap_or_else(|| self.cwd.clone()))
            }
            "NotebookEdit" => f.writes.extend(field("notebook_path").map(|p| self.absolute(p))),
            t if EDIT_TOOLS.contains(&t) => f.writes.extend(field("file_path").map(|p| self.absolute(p))),
            "WebFetch" => {
                f.host = field("url")
                    .and_then(|u| url::Url::parse(u).ok())
                    .and_then(|u| u.host_str().map(str::to_ascii_lowercase));
            }
            "Bash" => {
                let a = analyze(field("command").unwrap_or_default());
                let escapes = self.cd_escapes(&a);
                let mut add = |w: &Word, write: bool| match self.paths_of(w, escapes) {
                    Some(ps) if write => f.writes.extend(ps),
                    Some(ps) => f.reads.extend(ps),
                    None => f.dynamic_paths = true,
                };
                for cmd in &a.commands {
                    file_reads(cmd).iter().for_each(|w| add(w, false));
                    file_writes(cmd).iter().for_each(|w| add(w, true));
                }
                for r in &a.redirects {
                    if r.writes_file() {
                        add(&r.target, true);
                    } else if r.reads_file() {
                        add(&r.target, false);
                    }
                }
                f.bash = Some(a);
            }
            _ => {}
        }
        f
    }

    /// Whether `rule` applies to `call`.
    pub(crate) fn hits(&self, rule: &Rule, call: &Call<'_>) -> bool {
        self.rule_hits(rule, call, &self.facts(call))
    }

    /// Whether a deny or ask rule applies to the call.
    fn rule_hits(&self, rule: &Rule, call: &Call<'_>, facts: &Facts) -> bool {
        match &rule.spec {
            None => rule.matches_tool(call.tool),
            Some(Spec::Command(_)) => {
                rule.tool == "Bash"
                    && facts
                        .bash
                        .as_ref()
                        .is_some_and(|a| a.commands.iter().any(|c| c.forms.iter().any(|f| command_hits(rule, f))))
            }
            Some(Spec::Param { key, value }) => {
                rule.matches_tool(call.tool)
                    && call.input.get(key).is_some_and(|v| match v {
                        Value::String(s) => s == value,
                        other => value.parse::<Value>().is_ok_and(|v| v == *other),
                    })
            }
            Some(Spec::Path(p)) => {
                let reads = READ_TOOLS.contains(&rule.tool.as_str());
                let writes = EDIT_TOOLS.contains(&rule.tool.as_str());
                // A Read deny also blocks writing the same path.
                let targets: Vec<&PathBuf> = match (reads, writes) {
                    (true, _) => facts.reads.iter().chain(&facts.writes).collect(),
                    (_, true) => facts.writes.iter().collect(),
                    _ => Vec::new(),
                };
                targets.iter().any(|t| spellings(t).iter().any(|s| p.matches(s) || (reads && p.matches_within(s))))
            }
            Some(Spec::Domain(d)) => {
                call.tool == "WebFetch" && facts.host.as_deref().is_some_and(|h| domain_hits(d, h))
            }
            Some(Spec::Other) => false,
        }
    }

    /// An allow rule covers every spelling of every path (link and target).
    fn path_allow(&self, rule: &Rule, paths: &[PathBuf], for_write: bool) -> bool {
        let Some(Spec::Path(p)) = &rule.spec else { return false };
        let edit_rule = EDIT_TOOLS.contains(&rule.tool.as_str());
        let read_rule = READ_TOOLS.contains(&rule.tool.as_str());
        // An Edit allow implies read access; a Read allow does not allow writes.
        let applies = if for_write { edit_rule } else { edit_rule || read_rule };
        if !applies {
            return false;
        }
        !paths.is_empty() && paths.iter().all(|t| spellings(t).iter().all(|s| path_hits(p, s)))
    }
}

/// Expand a one-segment glob (`src/*.rs`, `.e*`) against the directory, like the shell.
/// `None` for patterns that span directories; an unmatched glob names itself.
fn expand_glob(path: &Path) -> Option<Vec<PathBuf>> {
    let dir = path.parent()?;
    let pattern = path.file_name()?.to_str()?;
    if dir.to_string_lossy().contains(['*', '?', '[']) {
        return None;
    }
    let matcher = globset::GlobBuilder::new(pattern).literal_separator(true).build().ok()?.compile_matcher();
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|it| it.flatten().filter(|e| matcher.is_match(e.file_name())).map(|e| e.path()).collect())
        .unwrap_or_default();
    if found.is_empty() {
        found.push(path.to_path_buf());
    }
    Some(found)
}

fn path_hits(p: &PathPattern, path: &Path) -> bool {
    p.matches(path)
}

fn command_hits(rule: &Rule, form: &str) -> bool {
    match &rule.spec {
        Some(Spec::Command(re)) => re.is_match(form),
        None => rule.tool == "Bash",
        _ => false,
    }
}

fn domain_hits(rule: &str, host: &str) -> bool {
    match rule.strip_prefix("*.") {
        _ if rule == "*" => true,
        Some(suffix) => host.ends_with(&format!(".{suffix}")),
        None => host == rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert!(domain_hits("example.com", "example.com"));
        assert!(!domain_hits("example.com", "api.example.com"));
        assert!(domain_hits("*.example.com", "api.example.com"));
        assert!(!domain_hits("*.example.com", "example.com"));
        assert!(!domain_hits("*.example.com", "evilexample.com"));
        assert!(domain_hits("*", "anything.org"));
    }
}
