//! Which settings keys rein reads (top level, and under `permissions`), so that
//! `rein doctor` can name every key of a user's files that rein does not act on — with
//! its file and line — instead of ignoring it without a word.

use rein_settings::{Settings, SettingsFile};

/// Top-level keys rein acts on.
pub const SUPPORTED: &[&str] = &[
    "$schema",
    "model",
    "fallbackModel",
    "env",
    "permissions",
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowManagedPermissionRulesOnly",
    "allowManagedMcpServersOnly",
    "statusLine",
    "apiKeyHelper",
    "sandbox",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "allowedMcpServers",
    "deniedMcpServers",
    "alwaysThinkingEnabled",
    "effortLevel",
    "cleanupPeriodDays",
    "autoCompactEnabled",
    "includeCoAuthoredBy",
    "attribution",
    "respectGitignore",
    "editorMode",
    "outputStyle",
    "provider",
    "enabledPlugins",
    "extraKnownMarketplaces",
];

/// Keys under `permissions` rein acts on.
pub const SUPPORTED_PERMISSIONS: &[&str] =
    &["allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"];

/// A key rein does not act on: where, and its name (`permissions.x` for nested ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedKey {
    pub file: String,
    pub line: Option<usize>,
    pub key: String,
}

impl std::fmt::Display for UnsupportedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: `{}` is not supported by rein", self.file, self.key),
            None => write!(f, "{}: `{}` is not supported by rein", self.file, self.key),
        }
    }
}

/// Every key of every file that rein does not act on.
pub fn unsupported(settings: &Settings) -> Vec<UnsupportedKey> {
    let mut out = Vec::new();
    for file in &settings.files {
        let Some(map) = file.value.as_object() else { continue };
        for (key, value) in map {
            if !SUPPORTED.contains(&key.as_str()) {
                out.push(at(file, key, key));
            } else if key == "permissions"
                && let Some(perms) = value.as_object()
            {
                for sub in perms.keys().filter(|k| !SUPPORTED_PERMISSIONS.contains(&k.as_str())) {
                    out.push(at(file, sub, &format!("permissions.{sub}")));
                }
            }
        }
    }
    out
}

fn at(file: &SettingsFile, key: &str, name: &str) -> UnsupportedKey {
    let quoted = format!("\"{key}\"");
    let line = file.text.lines().position(|l| l.contains(&quoted)).map(|i| i + 1);
    UnsupportedKey { file: file.origin(), line, key: name.to_string() }
}
