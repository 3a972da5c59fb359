//! The SDK's `PermissionUpdate`s: what a `can_use_tool` answer asks rein to remember
//! (`addRules`, `replaceRules`, `removeRules`, `setMode`, `addDirectories`,
//! `removeDirectories`), for the session or written to a settings file; and the
//! suggestions rein offers with each question, in the same shape.

use std::path::PathBuf;

use rein_policy::{Call, ListKind, PermissionMode, SharedPolicy};
use serde_json::{Value, json};

/// Where the settings files of the destinations are.
#[derive(Debug, Clone)]
pub struct PermissionTargets {
    /// The project root: `.claude/settings.json` and `.claude/settings.local.json`.
    pub project_root: PathBuf,
    /// `~/.claude`, for `userSettings`.
    pub user_dir: Option<PathBuf>,
}

impl PermissionTargets {
    fn file(&self, destination: &str) -> Option<PathBuf> {
        match destination {
            "localSettings" => Some(self.project_root.join(".claude").join("settings.local.json")),
            "projectSettings" => Some(self.project_root.join(".claude").join("settings.json")),
            "userSettings" => self.user_dir.as_ref().map(|d| d.join("settings.json")),
            _ => None,
        }
    }
}

/// A rule of an update, written as in settings: `Tool` or `Tool(content)`.
fn rule_text(rule: &Value) -> Option<String> {
    let tool = rule.get("toolName").and_then(Value::as_str)?;
    Some(match rule.get("ruleContent").and_then(Value::as_str) {
        Some(c) if !c.is_empty() => format!("{tool}({c})"),
        _ => tool.to_string(),
    })
}

fn list_kind(behavior: Option<&str>) -> ListKind {
    match behavior {
        Some("deny") => ListKind::Deny,
        Some("ask") => ListKind::Ask,
        _ => ListKind::Allow,
    }
}

/// Apply `updates` to the session's policy (and the named settings files); returns a
/// note for each update that could not be applied.
pub fn apply_updates(updates: &[Value], policy: &SharedPolicy, targets: &PermissionTargets) -> Vec<String> {
    let mut problems = Vec::new();
    for update in updates {
        let kind = update.get("type").and_then(Value::as_str).unwrap_or("");
        let destination = update.get("destination").and_then(Value::as_str).unwrap_or("session");
        let origin = format!("the Agent SDK ({destination})");
        match kind {
            "addRules" | "replaceRules" | "removeRules" => {
                let list = list_kind(update.get("behavior").and_then(Value::as_str));
                let rules: Vec<String> =
                    update.get("rules").and_then(Value::as_array).into_iter().flatten().filter_map(rule_text).collect();
                for rule in &rules {
                    if kind == "removeRules" {
                        policy.remove_rule(rule);
                    } else if let Err(e) = policy.add_rule(rule, list, &origin) {
                        problems.push(format!("rule {rule:?}: {e}"));
                    }
                }
                if kind != "removeRules"
                    && let Some(file) = targets.file(destination)
                    && let Err(e) = rein_settings::add_rules_to_file(&file, list.name(), &rules)
                {
                    problems.push(format!("{}: {e}", file.display()));
                }
            }
            "setMode" => match update.get("mode").and_then(Value::as_str).and_then(PermissionMode::parse) {
                Some(mode) => policy.set_mode(mode, &origin),
                None => problems.push(format!("unknown mode in {update}")),
            },
            "addDirectories" | "removeDirectories" => {
                let dirs: Vec<PathBuf> = update
                    .get("directories")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| PathBuf::from(d)))
                    .collect();
                policy.update(|p| {
                    if kind == "addDirectories" {
                        p.roots.extend(dirs.iter().filter(|d| d.is_absolute()).cloned());
                    } else {
                        p.roots.retain(|r| !dirs.contains(r));
                    }
                });
            }
            other => problems.push(format!("unknown permission update type {other:?}")),
        }
    }
    problems
}

/// What rein suggests remembering for `call`, as `PermissionUpdate`s: the rules a
/// "don't ask again" would add (to the local settings), and for edits the acceptEdits
/// mode for the session.
pub fn suggestions(policy: &SharedPolicy, call: &Call<'_>) -> Vec<Value> {
    let current = policy.get();
    let mut out = Vec::new();
    let rules: Vec<Value> = current
        .suggested_rules(call)
        .iter()
        .map(|rule| match rule.split_once('(') {
            Some((tool, rest)) => json!({"toolName": tool, "ruleContent": rest.trim_end_matches(')')}),
            None => json!({"toolName": rule}),
        })
        .collect();
    if !rules.is_empty() {
        out.push(json!({"type": "addRules", "rules": rules, "behavior": "allow", "destination": "localSettings"}));
    }
    if !call.effects.writes.is_empty() && call.effects.shell.is_none() {
        out.push(json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"}));
    }
    out
}
