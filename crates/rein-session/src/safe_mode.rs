//! `--safe-mode`, as Claude Code's: a session started to find out whether the person's
//! own setup is what misbehaves. The person's and the project's customisations are left
//! out — memory and rules, skills, commands, subagents and output styles (through
//! [`Options::sources`](crate::Options::sources)), plugins, hooks, the status line,
//! configured MCP servers and the persistent memory — while the settings still give the
//! model and the permission rules, and the organisation's (managed) customisations stay
//! (the settings' `env` and `apiKeyHelper` are taken from managed settings only). What
//! the command line itself gives (`--plugin-dir`, `--mcp-config`) is used. Also here:
//! what `--restricted` keeps of the person's and the project's settings.

use std::borrow::Cow;

use rein_settings::{Scope, Settings};

use crate::Options;

/// The settings that customisations (hooks, status line, plugins) are read from: all of
/// them, or in safe mode only the managed ones.
pub(crate) fn customisations<'a>(opts: &Options, settings: &'a Settings) -> Cow<'a, Settings> {
    if !opts.safe_mode {
        return Cow::Borrowed(settings);
    }
    let files = settings.files.iter().filter(|f| f.scope == Scope::Managed).cloned().collect();
    Cow::Owned(Settings { files })
}

/// Of a settings file's keys, those that only tighten: deny and ask rules, the switches
/// that disable a mode, `autoMemoryEnabled: false`, `sandbox.enabled: true`. What
/// `--restricted` keeps of the person's and the project's settings.
pub(crate) fn tightening_only(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::{Map, Value};
    let mut out = Map::new();
    let mut permissions = Map::new();
    for key in ["deny", "ask", "disableBypassPermissionsMode", "disableAutoMode"] {
        if let Some(v) = value.pointer(&format!("/permissions/{key}")) {
            permissions.insert(key.to_string(), v.clone());
        }
    }
    if !permissions.is_empty() {
        out.insert("permissions".into(), Value::Object(permissions));
    }
    for key in ["disableBypassPermissionsMode", "disableAutoMode", "disableAllHooks"] {
        if let Some(v) = value.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if value.get("autoMemoryEnabled") == Some(&Value::Bool(false)) {
        out.insert("autoMemoryEnabled".into(), Value::Bool(false));
    }
    if value.pointer("/sandbox/enabled") == Some(&Value::Bool(true)) {
        out.insert("sandbox".into(), serde_json::json!({"enabled": true}));
    }
    Value::Object(out)
}
