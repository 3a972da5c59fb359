//! Claude Code's `sandbox` settings block, read unchanged from every scope, with the
//! permission rules that feed it (`Read(…)` deny → denyRead, `Edit(…)` allow/deny →
//! allowWrite/denyWrite, `WebFetch(domain:…)` allow/deny → allowed/denied domains).
//!
//! Trust: settings from the project (`.claude/settings.json` and
//! `.claude/settings.local.json`, which a repository can ship) may tighten the sandbox
//! but never widen it — their write roots, allowed domains, re-allowed reads, excluded
//! commands and unix-socket or proxy switches are set aside and reported — unless the
//! user, managed or command-line settings say `"trustProjectSettings": true` in their
//! `sandbox` block. Each switch has a direction: the project may turn `enabled` and
//! `failIfUnavailable` on and `autoAllowBashIfSandboxed` and `allowUnsandboxedCommands`
//! off, never the other way (Claude Code lets a repository's `enabled: false` win).

use std::path::{Path, PathBuf};

use rein_settings::{Scope, Settings, SettingsFile};
use serde_json::Value;

/// The sandbox configuration in force for a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxConfig {
    pub enabled: bool,
    pub fail_if_unavailable: bool,
    pub auto_allow_bash: bool,
    pub allow_unsandboxed_commands: bool,
    pub excluded_commands: Vec<String>,
    pub allowed_domains: Vec<String>,
    pub denied_domains: Vec<String>,
    pub allow_all_unix_sockets: bool,
    pub http_proxy_port: Option<u16>,
    pub socks_proxy_port: Option<u16>,
    /// Absolute paths or absolute globs.
    pub allow_write: Vec<String>,
    pub deny_write: Vec<String>,
    pub deny_read: Vec<String>,
    pub allow_read: Vec<String>,
    /// `bwrapPath`, honoured from managed settings only.
    pub bwrap_path: Option<PathBuf>,
    /// Entries set aside because a project scope tried to widen the sandbox.
    pub ignored: Vec<String>,
}

/// Where relative paths are taken from.
pub struct Anchors<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
}

fn is_project(scope: Scope) -> bool {
    scope.is_repository()
}

/// A boolean switch read with its direction: `tight` is the value that tightens the
/// wall. The person's scopes decide by precedence; the project's may only move it to
/// `tight` (unless trusted, when precedence alone decides). A project value set aside
/// where it would have changed the outcome is named in `ignored`.
fn switch(settings: &Settings, at: (&str, bool), tight: bool, trusted: bool, ignored: &mut Vec<String>) -> bool {
    let (pointer, default) = at;
    let mut own = None;
    let mut project = None;
    let mut loosening = Vec::new();
    for f in &settings.files {
        let Some(v) = f.get(pointer).and_then(Value::as_bool) else { continue };
        if trusted || !is_project(f.scope) {
            own.get_or_insert(v);
        } else if v == tight {
            project.get_or_insert(v);
        } else {
            loosening.push(f);
        }
    }
    if trusted {
        return settings.scalar(pointer).and_then(|(v, _)| v.as_bool()).unwrap_or(default);
    }
    let result = project.or(own).unwrap_or(default);
    if result == tight {
        for f in loosening {
            ignored.push(format!(
                "{}: {}: {} (project settings may not loosen the sandbox)",
                f.origin(),
                pointer.trim_start_matches('/').replace('/', "."),
                !tight
            ));
        }
    }
    result
}

impl SandboxConfig {
    /// Read the configuration; `flag` is `--sandbox` (true) / `--no-sandbox` (false).
    /// A managed `enabled` cannot be overridden by the flag.
    pub fn from_settings(settings: &Settings, flag: Option<bool>, at: &Anchors<'_>) -> SandboxConfig {
        let trust_project = settings.trusts_project();
        let mut ignored = Vec::new();
        let managed = settings
            .files
            .iter()
            .find(|f| f.scope == Scope::Managed)
            .and_then(|f| f.get("/sandbox/enabled"))
            .and_then(Value::as_bool);
        let from_files = switch(settings, ("/sandbox/enabled", false), true, trust_project, &mut ignored);
        let enabled = match (managed, flag) {
            (Some(v), _) => v,
            (None, Some(f)) => f,
            (None, None) => from_files,
        };
        let mut c = SandboxConfig {
            enabled,
            fail_if_unavailable: switch(
                settings,
                ("/sandbox/failIfUnavailable", false),
                true,
                trust_project,
                &mut ignored,
            ),
            auto_allow_bash: switch(
                settings,
                ("/sandbox/autoAllowBashIfSandboxed", false),
                false,
                trust_project,
                &mut ignored,
            ),
            allow_unsandboxed_commands: !settings
                .files
                .iter()
                .any(|f| f.get("/sandbox/allowUnsandboxedCommands") == Some(&Value::Bool(false))),
            ignored,
            ..SandboxConfig::default()
        };
        for file in &settings.files {
            let widening_ok = trust_project || !is_project(file.scope);
            c.read_file(file, widening_ok, at);
        }
        c
    }

    fn read_file(&mut self, file: &SettingsFile, widening_ok: bool, at: &Anchors<'_>) {
        let strings = |pointer: &str| -> Vec<String> {
            file.get(pointer)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        let anchor = match file.scope {
            Scope::User => file.path.as_deref().and_then(Path::parent).unwrap_or(&file.anchor).to_path_buf(),
            _ => file.anchor.clone(),
        };
        let path_of = |p: &str| settings_path(p, &anchor, at.home);
        // A rule whose path cannot be read (`~/` without a home) names nothing here; the
        // policy reports it. (The sandbox reads `dir/**` as that directory only, in every
        // list.)
        let rule_path = |p: &str| rein_effects::rule_glob(p, false, at.cwd, &anchor, at.home).unwrap_or_default();
        let widen = |this: &mut SandboxConfig,
                     what: &str,
                     values: Vec<String>,
                     into: fn(&mut Self) -> &mut Vec<String>| {
            if values.is_empty() {
                return;
            }
            if widening_ok {
                into(this).extend(values);
            } else {
                this.ignored
                    .push(format!("{}: {what} {values:?} (project settings may not widen the sandbox)", file.origin()));
            }
        };
        // Tightening: from every scope.
        self.deny_write.extend(strings("/sandbox/filesystem/denyWrite").iter().map(|p| path_of(p)));
        self.deny_read.extend(strings("/sandbox/filesystem/denyRead").iter().map(|p| path_of(p)));
        self.denied_domains.extend(strings("/sandbox/network/deniedDomains"));
        for rule in strings("/permissions/deny") {
            match parse_rule(&rule) {
                Some(("Read", spec)) => self.deny_read.push(rule_path(spec)),
                Some(("Edit" | "Write" | "MultiEdit" | "NotebookEdit", spec)) => self.deny_write.push(rule_path(spec)),
                Some(("WebFetch", spec)) => {
                    self.denied_domains.extend(spec.strip_prefix("domain:").map(str::to_string));
                }
                _ => {}
            }
        }
        // Widening: not from the project unless trusted.
        widen(
            self,
            "allowWrite",
            strings("/sandbox/filesystem/allowWrite").iter().map(|p| path_of(p)).collect(),
            |c| &mut c.allow_write,
        );
        widen(self, "allowRead", strings("/sandbox/filesystem/allowRead").iter().map(|p| path_of(p)).collect(), |c| {
            &mut c.allow_read
        });
        widen(self, "allowedDomains", strings("/sandbox/network/allowedDomains"), |c| &mut c.allowed_domains);
        widen(self, "excludedCommands", strings("/sandbox/excludedCommands"), |c| &mut c.excluded_commands);
        let mut edit_allow = Vec::new();
        let mut domain_allow = Vec::new();
        for rule in strings("/permissions/allow") {
            match parse_rule(&rule) {
                Some(("Edit" | "Write", spec)) => edit_allow.push(rule_path(spec)),
                Some(("WebFetch", spec)) => domain_allow.extend(spec.strip_prefix("domain:").map(str::to_string)),
                _ => {}
            }
        }
        widen(self, "Edit allow rules", edit_allow, |c| &mut c.allow_write);
        widen(self, "WebFetch allow rules", domain_allow, |c| &mut c.allowed_domains);
        let switch = |pointer: &str| file.get(pointer).cloned();
        for (pointer, what) in [
            ("/sandbox/network/allowAllUnixSockets", "allowAllUnixSockets"),
            ("/sandbox/network/httpProxyPort", "httpProxyPort"),
            ("/sandbox/network/socksProxyPort", "socksProxyPort"),
        ] {
            let Some(v) = switch(pointer) else { continue };
            if !widening_ok {
                self.ignored.push(format!("{}: {what} (project settings may not widen the sandbox)", file.origin()));
                continue;
            }
            match what {
                "allowAllUnixSockets" => self.allow_all_unix_sockets |= v.as_bool().unwrap_or(false),
                "httpProxyPort" => self.http_proxy_port = self.http_proxy_port.or(port(&v)),
                _ => self.socks_proxy_port = self.socks_proxy_port.or(port(&v)),
            }
        }
        if file.scope == Scope::Managed
            && let Some(p) = file.get("/sandbox/bwrapPath").and_then(Value::as_str)
        {
            self.bwrap_path.get_or_insert_with(|| PathBuf::from(p));
        }
    }
}

fn port(v: &Value) -> Option<u16> {
    v.as_u64().and_then(|p| u16::try_from(p).ok())
}

/// `Tool(specifier)` → (tool, specifier).
fn parse_rule(rule: &str) -> Option<(&str, &str)> {
    let (tool, rest) = rule.trim().split_once('(')?;
    Some((tool, rest.strip_suffix(')')?))
}

/// A sandbox settings path: absolute, `~/…`, or relative to the settings file's root.
fn settings_path(p: &str, anchor: &Path, home: Option<&Path>) -> String {
    if let (Some(rest), Some(home)) = (p.strip_prefix("~/"), home) {
        return home.join(rest).display().to_string();
    }
    if p.starts_with('/') {
        p.to_string()
    } else {
        anchor.join(p.strip_prefix("./").unwrap_or(p)).display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_settings::Locations;

    fn load(project: &str, user: &str) -> (tempfile::TempDir, SandboxConfig) {
        let d = tempfile::tempdir().unwrap();
        let cwd = d.path().join("proj");
        let user_dir = d.path().join("home/.claude");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::create_dir_all(&user_dir).unwrap();
        std::fs::write(cwd.join(".claude/settings.json"), project).unwrap();
        std::fs::write(user_dir.join("settings.json"), user).unwrap();
        let loc = Locations {
            managed_dir: None,
            user_dir: Some(user_dir),
            cwd: cwd.clone(),
            local_root: cwd.clone(),
            cli: None,
        };
        let settings = Settings::load(&loc).unwrap();
        let home = d.path().join("home");
        let c = SandboxConfig::from_settings(&settings, None, &Anchors { cwd: &cwd, home: Some(&home) });
        (d, c)
    }

    #[test]
    fn rules_feed_the_sandbox_and_the_project_cannot_widen_it() {
        let project = r#"{"sandbox": {"enabled": true, "filesystem": {"allowWrite": ["/"], "denyRead": ["secrets"]},
            "network": {"allowedDomains": ["evil.com"], "deniedDomains": ["bad.com"]}, "excludedCommands": ["curl *"]},
            "permissions": {"deny": ["Read(./.env)", "Edit(docs/**)"], "allow": ["WebFetch(domain:x.com)"]}}"#;
        let user = r#"{"sandbox": {"network": {"allowedDomains": ["github.com"]}, "allowUnsandboxedCommands": false},
            "permissions": {"allow": ["WebFetch(domain:docs.rs)"]}}"#;
        let (d, c) = load(project, user);
        let cwd = d.path().join("proj");
        assert!(c.enabled);
        assert!(!c.allow_unsandboxed_commands);
        assert_eq!(c.allowed_domains, ["github.com", "docs.rs"], "project domains set aside");
        assert_eq!(c.denied_domains, ["bad.com"]);
        assert!(c.allow_write.is_empty(), "{:?}", c.allow_write);
        assert!(c.excluded_commands.is_empty());
        assert!(c.deny_read.contains(&cwd.join(".env").display().to_string()), "{:?}", c.deny_read);
        assert!(c.deny_read.contains(&cwd.join("secrets").display().to_string()), "{:?}", c.deny_read);
        assert!(c.deny_write.contains(&cwd.join("docs/**").display().to_string()), "{:?}", c.deny_write);
        assert_eq!(c.ignored.len(), 4, "{:?}", c.ignored);
    }

    #[test]
    fn a_user_may_trust_the_project() {
        let (_d, c) = load(
            r#"{"sandbox": {"network": {"allowedDomains": ["x.org"]}}}"#,
            r#"{"sandbox": {"trustProjectSettings": true}}"#,
        );
        assert_eq!(c.allowed_domains, ["x.org"]);
        assert!(!c.enabled && c.allow_unsandboxed_commands);
    }
}
