//! The SDK's `PermissionUpdate`s: what a `can_use_tool` answer asks rein to remember
//! (`addRules`, `replaceRules`, `removeRules`, `setMode`, `addDirectories`,
//! `removeDirectories`), for the session or written to a settings file; and the
//! suggestions rein offers with each question, in the same shape.

use std::path::PathBuf;

use rein_policy::{Call, Change, Destination, ListKind, PermissionMode, PermissionUpdate, SettingsFiles, SharedPolicy};
use serde_json::{Value, json};

/// Where the settings files of the destinations are (the policy's own type).
pub type PermissionTargets = SettingsFiles;

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

/// An SDK `PermissionUpdate` as the policy's typed update (`None`: not one rein knows,
/// with why).
pub fn typed_update(update: &Value) -> Result<PermissionUpdate, String> {
    let kind = update.get("type").and_then(Value::as_str).unwrap_or("");
    let named = update.get("destination").and_then(Value::as_str).unwrap_or("session");
    let destination = Destination::parse(named).ok_or_else(|| format!("unknown destination {named:?}"))?;
    let change = match kind {
        "addRules" | "replaceRules" | "removeRules" => {
            let rules: Vec<String> =
                update.get("rules").and_then(Value::as_array).into_iter().flatten().filter_map(rule_text).collect();
            if kind == "removeRules" {
                Change::RemoveRules(rules)
            } else {
                Change::AddRules(list_kind(update.get("behavior").and_then(Value::as_str)), rules)
            }
        }
        "setMode" => match update.get("mode").and_then(Value::as_str).and_then(PermissionMode::parse) {
            Some(mode) => Change::SetMode(mode),
            None => return Err(format!("unknown mode in {update}")),
        },
        "addDirectories" | "removeDirectories" => {
            let dirs: Vec<PathBuf> = update
                .get("directories")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .collect();
            if kind == "addDirectories" { Change::AddDirectories(dirs) } else { Change::RemoveDirectories(dirs) }
        }
        other => return Err(format!("unknown permission update type {other:?}")),
    };
    Ok(PermissionUpdate { change, destination })
}

/// Apply `updates` through the policy (and the named settings files); returns a note
/// for each update that could not be applied.
pub fn apply_updates(updates: &[Value], policy: &SharedPolicy, targets: &PermissionTargets) -> Vec<String> {
    let mut problems = Vec::new();
    for update in updates {
        match typed_update(update) {
            Ok(typed) => {
                if let Err(e) = policy.apply(&typed, targets) {
                    problems.push(e.to_string());
                }
            }
            Err(why) => problems.push(why),
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
