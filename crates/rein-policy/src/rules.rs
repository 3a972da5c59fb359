//! Rule syntax (spec §B): `Tool` or `Tool(specifier)`, from every settings scope and
//! the command line, each kept with its origin.

use std::path::{Path, PathBuf};

use rein_effects::{Access, RuleKind, ToolKinds};
use rein_settings::SettingsFile;

use crate::paths::PathPattern;
use crate::{PermissionMode, Policy, PolicyInputs};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Allow,
    Ask,
    Deny,
}

impl ListKind {
    pub fn name(self) -> &'static str {
        match self {
            ListKind::Allow => "allow",
            ListKind::Ask => "ask",
            ListKind::Deny => "deny",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Spec {
    /// A command pattern, compiled: matched against every command of a shell effect.
    Command(crate::command_pattern::CommandPattern),
    /// A top-level input field equal to a value (deny/ask only).
    Param { key: String, value: String },
    /// A path pattern, matched against the paths read (Read rules) or written (Edit).
    Path(PathPattern, Access),
    /// `domain:HOST`, matched against the hosts contacted.
    Domain(String),
    /// A specifier rein cannot read for this tool: in deny and ask lists it covers the
    /// whole tool (fail closed); in the allow list it allows nothing.
    Other,
}

/// One parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// As written.
    pub text: String,
    pub kind: ListKind,
    /// The tool part: a name, `*`, or an MCP pattern.
    pub tool: String,
    pub(crate) spec: Option<Spec>,
    /// The file (or flag) it came from, with the line when known.
    pub origin: String,
}

/// A rule that does not parse, with where it is.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{origin}: invalid permission rule {rule:?}: {reason}")]
pub struct RuleError {
    pub origin: String,
    pub rule: String,
    pub reason: String,
}

impl Rule {
    /// Parse `text`; `anchor` is where `/path` patterns are relative to; `tools` says how
    /// each tool reads its specifiers.
    pub fn parse(
        text: &str,
        kind: ListKind,
        origin: &str,
        at: &Anchors<'_>,
        anchor: &Path,
        tools: &ToolKinds,
    ) -> Result<Rule, RuleError> {
        let err =
            |reason: &str| RuleError { origin: origin.to_string(), rule: text.to_string(), reason: reason.to_string() };
        let t = text.trim();
        let (tool, spec_text) = match t.find('(') {
            Some(open) => {
                let Some(inner) = t[open + 1..].strip_suffix(')') else {
                    return Err(err("a specifier must be closed with `)` at the end"));
                };
                (&t[..open], Some(inner))
            }
            None if t.contains(')') => return Err(err("unbalanced `)`")),
            None => (t, None),
        };
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*')) {
            return Err(err("the tool name must be letters, digits, `_`, `-` or `*`"));
        }
        if tool.contains('*') && tool != "*" && !tool.starts_with("mcp__") {
            return Err(err("`*` in a tool name is only allowed alone or after `mcp__`"));
        }
        let spec = match spec_text {
            None => None,
            Some(s) if s.trim().is_empty() => return Err(err("the specifier is empty")),
            Some("*") => None,
            Some(s) => Some(parse_spec(tool, s, kind, at, anchor, tools).map_err(|r| err(&r.to_string()))?),
        };
        Ok(Rule { text: t.to_string(), kind, tool: tool.to_string(), spec, origin: origin.to_string() })
    }

    /// A rule without a specifier covers the whole tool.
    pub fn is_bare(&self) -> bool {
        self.spec.is_none()
    }

    /// Whether the tool part names `tool`.
    pub fn matches_tool(&self, tool: &str) -> bool {
        if self.tool == "*" || self.tool == tool {
            return true;
        }
        if let Some(prefix) = self.tool.strip_suffix('*') {
            return self.tool.starts_with("mcp__") && tool.starts_with(prefix);
        }
        // `mcp__server` covers every tool of that server.
        self.tool.starts_with("mcp__")
            && self.tool.matches("__").count() == 1
            && tool.starts_with(&format!("{}__", self.tool))
    }

    /// `rule text (list in origin)`.
    pub fn describe(&self) -> String {
        format!("rule `{}` ({} list, {})", self.text, self.kind.name(), self.origin)
    }
}

/// Where rule paths are relative to: the working directory and the home directory.
#[derive(Debug, Clone, Copy)]
pub struct Anchors<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
}

/// Read a specifier as the tool's declared rule kind says. Tools rein does not know (yet)
/// take `field:value`; anything else is [`Spec::Other`].
fn parse_spec(
    tool: &str,
    s: &str,
    kind: ListKind,
    at: &Anchors<'_>,
    anchor: &Path,
    tools: &ToolKinds,
) -> Result<Spec, crate::spec_error::SpecError> {
    let declared = tools.get(tool);
    let field = s.split_once(':').filter(|(k, _)| declared.is_some_and(|t| t.fields.iter().any(|f| f == k)));
    let param = |key: &str, value: &str| {
        if kind == ListKind::Allow {
            return Err(crate::spec_error::SpecError::ParamInAllow(key.to_string()));
        }
        Ok(Spec::Param { key: key.to_string(), value: value.to_string() })
    };
    // `Bash(run_in_background:true)`: a field of the input, never the command.
    if let Some((key, value)) = field {
        return param(key, value);
    }
    match declared.map(|t| t.kind) {
        Some(RuleKind::Command { .. }) => Ok(Spec::Command(crate::command_pattern::CommandPattern::new(s))),
        Some(RuleKind::Path { access, .. }) => {
            PathPattern::new(s, kind, at.cwd, anchor, at.home).map(|p| Spec::Path(p, access))
        }
        Some(RuleKind::Domain { .. }) => {
            let Some(domain) = s.strip_prefix("domain:") else {
                return Err(crate::spec_error::SpecError::NotADomain(tool.to_string()));
            };
            if domain.is_empty() {
                return Err(crate::spec_error::SpecError::EmptyDomain);
            }
            Ok(Spec::Domain(domain.to_ascii_lowercase()))
        }
        // `Agent(Explore)`: the value of the tool's main field.
        Some(RuleKind::Field { default: Some(key) }) if !s.contains(':') => param(key, s),
        // `mcp__x__y(key:value)` for a tool not started yet: any top-level field.
        _ if s.contains(':') && !s.contains(' ') => {
            let (key, value) = s.split_once(':').unwrap_or((s, ""));
            param(key, value)
        }
        _ => Ok(Spec::Other),
    }
}

/// Split `--allowedTools` values: commas and spaces separate rules, except inside
/// parentheses (`Bash(git status:*)` stays whole).
pub(crate) fn split_tool_list(values: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for v in values {
        let mut depth = 0i32;
        let mut cur = String::new();
        for c in v.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 && (c == ',' || c.is_whitespace()) {
                if !cur.trim().is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            } else {
                cur.push(c);
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
    }
    out
}

fn origin_of(file: &SettingsFile, rule: &str) -> String {
    match file.line_of(rule) {
        Some(line) => format!("{}:{line}", file.origin()),
        None => file.origin(),
    }
}

/// A settings rule rein cannot read, failing closed: an allow rule is set aside (the call
/// it meant is asked); a deny or ask rule denies its whole tool. A rule that names no
/// tool at all is an error.
fn unreadable(e: RuleError, kind: ListKind, set_aside: &mut Vec<String>) -> Result<Option<Rule>, RuleError> {
    if kind == ListKind::Allow {
        set_aside.push(format!(
            "{}: allow rule {:?} (rein cannot read it: {}; such calls are asked)",
            e.origin, e.rule, e.reason
        ));
        return Ok(None);
    }
    let tool = e.rule.trim().split('(').next().unwrap_or_default().trim();
    let named = !tool.is_empty() && tool.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    if !named {
        return Err(e);
    }
    set_aside.push(format!(
        "{}: {} rule {:?} (rein cannot read it: {}; {tool} is denied outright instead)",
        e.origin,
        if kind == ListKind::Deny { "deny" } else { "ask" },
        e.rule,
        e.reason
    ));
    Ok(Some(Rule {
        text: tool.to_string(),
        kind: ListKind::Deny,
        tool: tool.to_string(),
        spec: None,
        origin: e.origin,
    }))
}

/// Build the policy from settings and flags.
pub(crate) fn build(inputs: &PolicyInputs) -> Result<Policy, RuleError> {
    let home = inputs.home.as_deref();
    let at = Anchors { cwd: &inputs.cwd, home };
    let (mut deny, mut ask, mut allow) = (Vec::new(), Vec::new(), Vec::new());
    let mut set_aside = Vec::new();
    let mut denied_whole = Vec::new();
    // `allowManagedPermissionRulesOnly` in managed settings: only managed rules allow
    // (the other scopes' and the flags' deny and ask rules still tighten).
    let managed_only = inputs.settings.files.iter().any(|f| {
        f.scope == rein_settings::Scope::Managed
            && f.get("/allowManagedPermissionRulesOnly").and_then(|v| v.as_bool()) == Some(true)
    });
    for (kind, key, list) in [
        (ListKind::Deny, "/permissions/deny", &mut deny),
        (ListKind::Ask, "/permissions/ask", &mut ask),
        (ListKind::Allow, "/permissions/allow", &mut allow),
    ] {
        if let Some((origin, item)) = inputs.settings.non_strings(key).into_iter().next() {
            return Err(RuleError { origin, rule: item.to_string(), reason: "a rule must be a string".into() });
        }
        for (text, file) in inputs.settings.strings(key) {
            if managed_only && kind == ListKind::Allow && file.scope != rein_settings::Scope::Managed {
                continue;
            }
            let origin = origin_of(file, &text);
            match Rule::parse(&text, kind, &origin, &at, &file.anchor, &inputs.tools) {
                Ok(rule) => list.push(rule),
                Err(e) => denied_whole.extend(unreadable(e, kind, &mut set_aside)?),
            }
        }
    }
    for (kind, flag, values) in [
        (ListKind::Deny, "--disallowedTools", &inputs.disallowed_tools),
        (ListKind::Allow, "--allowedTools", &inputs.allowed_tools),
    ] {
        for text in split_tool_list(values) {
            if managed_only && kind == ListKind::Allow {
                continue;
            }
            let rule = Rule::parse(&text, kind, flag, &at, &inputs.cwd, &inputs.tools)?;
            if kind == ListKind::Deny { deny.push(rule) } else { allow.push(rule) }
        }
    }
    // The repository's settings may tighten the mode (plan, dontAsk, default), never
    // loosen it (acceptEdits, auto, bypassPermissions) unless the person's own settings
    // trust the project; a loosening mode there is set aside and the next scope decides.
    let trusted = inputs.settings.trusts_project();
    deny.append(&mut denied_whole);
    let mut ignored = std::mem::take(&mut set_aside);
    let (mode, mode_source) = match inputs.mode {
        Some(m) => (m, "the command line".to_string()),
        None => {
            let mut found = None;
            for file in &inputs.settings.files {
                let Some(v) = file.get("/permissions/defaultMode").filter(|v| !v.is_null()) else { continue };
                let name = v.as_str().unwrap_or_default();
                // A mode rein does not know (a newer Claude Code's) is named and set
                // aside: the next scope decides, else the default (which asks).
                let Some(m) = PermissionMode::parse(name) else {
                    ignored.push(format!(
                        "{}: defaultMode {v} (not a mode rein knows: default, acceptEdits, plan, dontAsk, \
                         bypassPermissions, auto)",
                        origin_of(file, "defaultMode")
                    ));
                    continue;
                };
                let loosens =
                    matches!(m, PermissionMode::AcceptEdits | PermissionMode::Auto | PermissionMode::BypassPermissions);
                // Bypass is the person's choice alone, trusted project or not.
                if file.scope.is_repository() && loosens && (!trusted || m == PermissionMode::BypassPermissions) {
                    ignored.push(format!(
                        "{}: defaultMode {name} (a project's settings may not loosen the permission mode)",
                        file.origin()
                    ));
                    continue;
                }
                found = Some((m, file.origin()));
                break;
            }
            found.unwrap_or((PermissionMode::Default, "the default".to_string()))
        }
    };
    let bypass_disabled = inputs
        .settings
        .scalar("/permissions/disableBypassPermissionsMode")
        .is_some_and(|(v, _)| v.as_str() == Some("disable"));
    // A wall: any scope's "disable" holds.
    let auto_disabled = ["/disableAutoMode", "/permissions/disableAutoMode"]
        .iter()
        .any(|k| inputs.settings.files.iter().any(|f| f.get(k).and_then(|v| v.as_str()) == Some("disable")));
    let (mode, mode_source) = if mode == PermissionMode::BypassPermissions && bypass_disabled {
        (PermissionMode::Default, "bypassPermissions is disabled by settings".to_string())
    } else if mode == PermissionMode::Auto && auto_disabled {
        (PermissionMode::Default, "auto mode is disabled by settings".to_string())
    } else {
        (mode, mode_source)
    };
    let mut roots: Vec<PathBuf> = vec![inputs.cwd.clone()];
    roots.extend(inputs.add_dirs.iter().map(|d| if d.is_absolute() { d.clone() } else { inputs.cwd.join(d) }));
    for (dir, file) in inputs.settings.strings("/permissions/additionalDirectories") {
        // More roots widen every wall (the file tools', the sandbox's): not from the
        // repository's own settings unless trusted.
        if file.scope.is_repository() && !trusted {
            ignored.push(format!(
                "{}: additionalDirectories {dir:?} (a project's settings may not widen the workspace)",
                file.origin()
            ));
            continue;
        }
        let p = match (dir.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ if Path::new(&dir).is_absolute() => PathBuf::from(&dir),
            _ => file.anchor.join(&dir),
        };
        roots.push(p);
    }
    let roots = roots.into_iter().map(|r| std::fs::canonicalize(&r).unwrap_or(r)).collect();
    Ok(Policy {
        deny,
        ask,
        allow,
        mode,
        mode_source,
        cwd: inputs.cwd.clone(),
        home: inputs.home.clone(),
        roots,
        tools: inputs.tools.clone(),
        sandbox_auto_allow: false,
        saved_outputs: None,
        container: false,
        memory_dir: None,
        ignored,
        auto_disabled,
        block_outside_reads: inputs
            .settings
            .files
            .iter()
            .any(|f| f.get("/permissions/blockReadsOutsideWorkingDirectories").and_then(|v| v.as_bool()) == Some(true)),
        skill_shell_disabled: inputs
            .settings
            .files
            .iter()
            .any(|f| f.get("/disableSkillShellExecution").and_then(|v| v.as_bool()) == Some(true)),
        bypass_disabled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds() -> ToolKinds {
        let t = |kind, fields: &[&str]| rein_effects::ToolRules {
            kind,
            fields: fields.iter().map(|f| f.to_string()).collect(),
        };
        ToolKinds::from([
            ("Bash".to_string(), t(RuleKind::Command { field: "command" }, &["command", "run_in_background"])),
            ("WebFetch".to_string(), t(RuleKind::Domain { field: "url" }, &["url"])),
            ("Read".to_string(), t(RuleKind::Path { access: Access::Read, field: "file_path" }, &["file_path"])),
        ])
    }

    fn rule(s: &str) -> Result<Rule, RuleError> {
        let at = Anchors { cwd: Path::new("/w"), home: None };
        Rule::parse(s, ListKind::Allow, "test", &at, Path::new("/w"), &kinds())
    }

    #[test]
    fn syntax() {
        assert!(rule("Bash").unwrap().is_bare());
        assert!(rule("Bash(*)").unwrap().is_bare());
        assert!(rule("Bash(npm run test:*)").is_ok());
        assert!(rule("WebFetch(domain:example.com)").is_ok());
        assert!(rule("mcp__github__*").unwrap().matches_tool("mcp__github__create_issue"));
        assert!(rule("mcp__github").unwrap().matches_tool("mcp__github__x"));
        assert!(!rule("mcp__github").unwrap().matches_tool("mcp__githubby__x"));
        for bad in
            ["Bash(ls", "Bash()", "Ba sh", "WebFetch(example.com)", "Bash(run_in_background:true)", "Bash)", "Re*d"]
        {
            assert!(rule(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn command_patterns_keep_the_word_boundary() {
        let re = crate::command_pattern::CommandPattern::new("ls *");
        assert!(re.is_match("ls") && re.is_match("ls -la") && !re.is_match("lsof"));
        let re = crate::command_pattern::CommandPattern::new("ls*");
        assert!(re.is_match("lsof"));
        let re = crate::command_pattern::CommandPattern::new("git status:*");
        assert!(re.is_match("git status") && re.is_match("git status -s") && !re.is_match("git statusx"));
        let re = crate::command_pattern::CommandPattern::new("git * main");
        assert!(re.is_match("git push origin main") && !re.is_match("git push origin dev"));
        let re = crate::command_pattern::CommandPattern::new("npm run build");
        assert!(re.is_match("npm run build") && !re.is_match("npm run build && rm x"));
    }

    #[test]
    fn tool_lists_split_outside_parentheses() {
        let v = split_tool_list(&["Read,Bash(git status:*) Edit".into(), "WebFetch(domain:a.com)".into()]);
        assert_eq!(v, ["Read", "Bash(git status:*)", "Edit", "WebFetch(domain:a.com)"]);
    }
}
