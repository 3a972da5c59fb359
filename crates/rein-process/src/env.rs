//! The one door to the process environment for every crate below the session owner.
//! rein's own settings variables (`ANTHROPIC_MODEL`, `BASH_DEFAULT_TIMEOUT_MS`, …) are
//! the session's env table (`rein_session::env`, listed by `rein env`); what the
//! libraries read besides is named here, once: the system's own variables ([`Var`]),
//! a variable a configuration file names (`${VAR}` in `.mcp.json`, a hook's
//! `allowedEnvVars`: [`named`]), and the environment a started process inherits
//! ([`inherited`], rein's credentials left out). A test keeps every other direct read
//! out of the sources.

use std::ffi::OsString;

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

/// `var` as it is set (empty included).
pub fn os(var: Var) -> Option<OsString> {
    std::env::var_os(var.name())
}

/// `var` when it is set to something (not empty), as text.
pub fn text(var: Var) -> Option<String> {
    std::env::var(var.name()).ok().filter(|v| !v.is_empty())
}

/// A variable a configuration file names, as it is set (empty included); never one of
/// rein's credentials.
pub fn named(name: &str) -> Option<String> {
    if crate::CREDENTIAL_VARS.contains(&name) {
        return None;
    }
    std::env::var(name).ok()
}

/// The environment a process rein starts inherits: all of rein's, less its credentials.
pub fn inherited() -> Vec<(OsString, OsString)> {
    std::env::vars_os().filter(|(k, _)| !crate::CREDENTIAL_VARS.iter().any(|c| k == c)).collect()
}

#[cfg(test)]
mod tests {
    /// Every read of the environment outside the two tables: none.
    #[test]
    fn no_library_reads_the_environment_behind_the_tables() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let allowed = ["rein-process/src/env.rs", "rein-session/src/env.rs"];
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
                }
            }
        }
        assert!(found.is_empty(), "read through rein_process::env or rein_session::env:\n{}", found.join("\n"));
    }
}
