//! The one door to the process environment for every crate below the session owner.
//! rein's own settings variables (`ANTHROPIC_MODEL`, `BASH_DEFAULT_TIMEOUT_MS`, …) are
//! the session's env table (`rein_session::env`, listed by `rein env`); what the
//! libraries read besides is named here, once: the system's own variables ([`Var`]),
//! a variable a configuration file names (`${VAR}` in `.mcp.json`, a hook's
//! `allowedEnvVars`: [`named`]), and the environment a started process inherits
//! ([`inherited`], [`for_child`]: rein's credentials left out). The session's own
//! variables (its settings' `env`) are laid over the process's here ([`install`]):
//! rein never changes its process environment. A test keeps every other direct read
//! out of the sources.

use std::ffi::OsString;
use std::sync::RwLock;

/// A variable of the system's that a library reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Home,
    Path,
    Term,
    /// The person's editor (`/memory`, Ctrl+G): `VISUAL`, then `EDITOR`.
    Visual,
    Editor,
    /// The browser an MCP server's sign-in opens.
    Browser,
    XdgCacheHome,
    Display,
    WaylandDisplay,
    /// Set: bash's `*` matches dotfiles.
    Globignore,
    /// ripgrep's own configuration file (rein's Grep honours it as `rg` does).
    RipgrepConfigPath,
    /// Claude Code's configuration folder, where MCP sign-ins are kept.
    ClaudeConfigDir,
    /// The tests' switch that breaks the read-only table on purpose (a test that must
    /// go red when the table is wrong).
    TestWrongReadOnly,
    /// The tests' switch that rewrites the settings documentation.
    UpdateDocs,
}

impl Var {
    pub const fn name(self) -> &'static str {
        match self {
            Var::Home => "HOME",
            Var::Path => "PATH",
            Var::Term => "TERM",
            Var::Visual => "VISUAL",
            Var::Editor => "EDITOR",
            Var::Browser => "BROWSER",
            Var::XdgCacheHome => "XDG_CACHE_HOME",
            Var::Display => "DISPLAY",
            Var::WaylandDisplay => "WAYLAND_DISPLAY",
            Var::Globignore => "GLOBIGNORE",
            Var::RipgrepConfigPath => "RIPGREP_CONFIG_PATH",
            Var::ClaudeConfigDir => "CLAUDE_CONFIG_DIR",
            Var::TestWrongReadOnly => "REIN_TEST_WRONG_READ_ONLY",
            Var::UpdateDocs => "REIN_UPDATE_DOCS",
        }
    }
}

/// The session's own variables — its settings' `env` (and `--betas`) — over the
/// environment rein started with. Set once the session is built ([`install`]); every
/// read below and every process rein starts sees them. rein never changes its own
/// process environment (`set_var` is unsound once threads run).
static SESSION_VARS: RwLock<Vec<(String, String)>> = RwLock::new(Vec::new());

fn session_vars() -> std::sync::RwLockReadGuard<'static, Vec<(String, String)>> {
    SESSION_VARS.read().unwrap_or_else(|p| p.into_inner())
}

fn session_var(name: &str) -> Option<String> {
    session_vars().iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// Makes `vars` the session's own variables (replacing any earlier session's).
pub fn install(vars: Vec<(String, String)>) {
    *SESSION_VARS.write().unwrap_or_else(|p| p.into_inner()) = vars;
}

/// A variable as the session sees it: its own, else the process's (empty included).
/// Only the session owner's env table reads through this.
pub fn value(name: &str) -> Option<String> {
    session_var(name).or_else(|| std::env::var(name).ok())
}

/// Every variable whose name starts with `prefix`, as the session sees them.
pub fn with_prefix(prefix: &str) -> Vec<(String, String)> {
    let own = session_vars();
    let mut out: Vec<(String, String)> = own.iter().filter(|(k, _)| k.starts_with(prefix)).cloned().collect();
    out.extend(std::env::vars().filter(|(k, _)| k.starts_with(prefix) && !own.iter().any(|(o, _)| o == k)));
    out
}

/// `var` as it is set (empty included).
pub fn os(var: Var) -> Option<OsString> {
    session_var(var.name()).map(OsString::from).or_else(|| std::env::var_os(var.name()))
}

/// `var` when it is set to something (not empty), as text.
pub fn text(var: Var) -> Option<String> {
    value(var.name()).filter(|v| !v.is_empty())
}

/// A variable a configuration file names, as it is set (empty included); never one of
/// rein's credentials.
pub fn named(name: &str) -> Option<String> {
    if crate::CREDENTIAL_VARS.contains(&name) {
        return None;
    }
    value(name)
}

/// The environment rein's process started with, without the session's own variables:
/// what a new rein process (a background session, `/resume`) starts from — it reads
/// its settings again.
pub fn started_with() -> Vec<(OsString, OsString)> {
    STARTED_WITH.get().cloned().unwrap_or_else(|| std::env::vars_os().collect())
}

static STARTED_WITH: std::sync::OnceLock<Vec<(OsString, OsString)>> = std::sync::OnceLock::new();

/// Keep the environment as it is now as the one rein started with ([`started_with`]):
/// called by the binary before it lays the session's variables into its own
/// environment.
pub fn keep_started_with() {
    let _ = STARTED_WITH.set(std::env::vars_os().collect());
}

/// The environment a process rein starts inherits: rein's with the session's own
/// variables, less its credentials.
pub fn inherited() -> Vec<(OsString, OsString)> {
    let own = session_vars();
    let mut out: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(k, _)| !own.iter().any(|(o, _)| k == o.as_str())).collect();
    out.extend(own.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
    out.retain(|(k, _)| !crate::CREDENTIAL_VARS.iter().any(|c| k == c));
    out
}

/// Gives a process rein starts the session's environment: the session's own variables
/// added to what it inherits, rein's credentials taken out. Every process rein starts
/// goes through here (or clears its environment and sets [`inherited`]).
pub fn for_child(command: &mut std::process::Command) -> &mut std::process::Command {
    // What the command sets itself wins (the sandbox's private TMPDIR and proxy, git's
    // hardening): the session's variables only fill in.
    let own: Vec<OsString> = command.get_envs().map(|(k, _)| k.to_os_string()).collect();
    for (k, v) in session_vars().iter().filter(|(k, _)| !crate::CREDENTIAL_VARS.contains(&k.as_str())) {
        if !own.iter().any(|o| o == k.as_str()) {
            command.env(k, v);
        }
    }
    for var in crate::CREDENTIAL_VARS {
        command.env_remove(var);
    }
    command
}

#[cfg(test)]
mod tests {
    /// A child gets the session's variables, but not over what it sets itself (the
    /// sandbox's private TMPDIR), and never rein's credentials.
    #[test]
    fn a_child_gets_the_sessions_variables_under_its_own_and_no_credentials() {
        super::install(vec![
            ("TMPDIR".into(), "/from/settings".into()),
            ("PROJECT_FLAVOUR".into(), "vanilla".into()),
            ("ANTHROPIC_API_KEY".into(), "sk-from-settings".into()),
        ]);
        let mut command = std::process::Command::new("true");
        command.env("TMPDIR", "/jail/tmp");
        super::for_child(&mut command);
        let set: Vec<(String, Option<String>)> = command
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
            .collect();
        assert!(set.contains(&("TMPDIR".into(), Some("/jail/tmp".into()))), "{set:?}");
        assert!(set.contains(&("PROJECT_FLAVOUR".into(), Some("vanilla".into()))), "{set:?}");
        assert!(set.contains(&("ANTHROPIC_API_KEY".into(), None)), "removed, not set: {set:?}");
        assert!(super::inherited().iter().all(|(k, _)| k != "ANTHROPIC_API_KEY"));
        assert_eq!(super::value("PROJECT_FLAVOUR").as_deref(), Some("vanilla"));
        super::install(Vec::new());
    }

    /// Every read of the environment outside the two tables: none.
    #[test]
    fn no_library_reads_the_environment_behind_the_tables() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let allowed = ["rein-process/src/env.rs"];
        let mut found = Vec::new();
        let mut stack = vec![crates.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let rel = path.strip_prefix(&crates).unwrap().to_string_lossy().into_owned();
                // Test helpers and benchmarks set up environments of their own.
                if ["tests", "target", "rein-testkit", "rein-bench", "snapshots"].iter().any(|s| rel.ends_with(s)) {
                    continue;
                }
                if path.is_dir() {
                    stack.push(path);
                } else if rel.ends_with(".rs") && !allowed.contains(&rel.as_str()) && !rel.ends_with("_tests.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // A file's unit tests, at its end, may set up what they test.
                    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                    for (i, line) in code.lines().enumerate() {
                        if ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("].iter().any(|r| line.contains(r))
                        {
                            found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
                        }
                    }
                    // A process rein starts gets the session's environment, credentials out.
                    // The sandbox's commands are handed to their caller, which gives it.
                    let starts = code.contains("process::Command")
                        || code.contains("process::{Command")
                        || code.contains("process::{self, Command");
                    if starts
                        && code.contains("Command::new(")
                        && !rel.starts_with("rein-sandbox/")
                        && !code.contains("env::for_child(")
                        && !code.contains(".env_clear()")
                    {
                        found.push(format!("{rel}: starts a process without rein_process::env::for_child"));
                    }
                }
            }
        }
        assert!(found.is_empty(), "read through rein_process::env or rein_session::env:\n{}", found.join("\n"));
    }
}
