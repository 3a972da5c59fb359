//! The SDK's `PermissionUpdate`s: what a `can_use_tool` answer asks rein to remember
//! (`addRules`, `replaceRules`, `removeRules`, `setMode`, `addDirectories`,
//! `removeDirectories`), for the session or written to a settings file; and the
//! suggestions rein offers with each question, in the same shape. The wire form is
//! [`WireUpdate`]; the policy applies its own typed [`PermissionUpdate`].

use std::path::PathBuf;

use rein_policy::{Call, Change, Destination, ListKind, PermissionMode, PermissionUpdate, SettingsFiles, SharedPolicy};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where the settings files of the destinations are (the policy's own type).
pub type PermissionTargets = SettingsFiles;

/// A `PermissionUpdate` as the SDKs write it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum WireUpdate {
    AddRules {
        #[serde(default)]
        rules: Vec<WireRule>,
        #[serde(default)]
        behavior: Behavior,
        #[serde(default)]
        destination: WireDestination,
    },
    ReplaceRules {
        #[serde(default)]
        rules: Vec<WireRule>,
        #[serde(default)]
        behavior: Behavior,
        #[serde(default)]
        destination: WireDestination,
    },
    RemoveRules {
        #[serde(default)]
        rules: Vec<WireRule>,
        #[serde(default)]
        behavior: Behavior,
        #[serde(default)]
        destination: WireDestination,
    },
    SetMode {
        mode: String,
        #[serde(default)]
        destination: WireDestination,
    },
    AddDirectories {
        #[serde(default)]
        directories: Vec<PathBuf>,
        #[serde(default)]
        destination: WireDestination,
    },
    RemoveDirectories {
        #[serde(default)]
        directories: Vec<PathBuf>,
        #[serde(default)]
        destination: WireDestination,
    },
}

/// A rule of an update: `toolName` and, for `Tool(content)`, `ruleContent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WireRule {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

/// Which list the rules go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Behavior {
    #[default]
    Allow,
    Deny,
    Ask,
}

/// Where an update lasts, as named on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WireDestination {
    #[default]
    Session,
    LocalSettings,
    ProjectSettings,
    UserSettings,
    CliArg,
}

impl WireRule {
    /// The rule as written in settings: `Tool` or `Tool(content)`.
    fn text(&self) -> String {
        match self.rule_content.as_deref() {
            Some(c) if !c.is_empty() => format!("{}({c})", self.tool_name),
            _ => self.tool_name.clone(),
        }
    }

    /// A settings rule on the wire.
    fn of(rule: &str) -> WireRule {
        match rule.split_once('(') {
            Some((tool, rest)) => WireRule {
                tool_name: tool.to_string(),
                rule_content: Some(rest.strip_suffix(')').unwrap_or(rest).to_string()),
            },
            None => WireRule { tool_name: rule.to_string(), rule_content: None },
        }
    }
}

impl WireUpdate {
    /// The policy's typed update.
    pub fn typed(&self) -> Result<PermissionUpdate, crate::WireError> {
        let texts = |rules: &[WireRule]| rules.iter().map(WireRule::text).collect::<Vec<_>>();
        let list = |b: &Behavior| match b {
            Behavior::Allow => ListKind::Allow,
            Behavior::Deny => ListKind::Deny,
            Behavior::Ask => ListKind::Ask,
        };
        let (change, destination) = match self {
            WireUpdate::AddRules { rules, behavior, destination }
            | WireUpdate::ReplaceRules { rules, behavior, destination } => {
                (Change::AddRules(list(behavior), texts(rules)), destination)
            }
            WireUpdate::RemoveRules { rules, destination, .. } => (Change::RemoveRules(texts(rules)), destination),
            WireUpdate::SetMode { mode, destination } => match PermissionMode::parse(mode) {
                Some(mode) => (Change::SetMode(mode), destination),
                None => return Err(crate::WireError::Mode(mode.clone())),
            },
            WireUpdate::AddDirectories { directories, destination } => {
                (Change::AddDirectories(directories.clone()), destination)
            }
            WireUpdate::RemoveDirectories { directories, destination } => {
                (Change::RemoveDirectories(directories.clone()), destination)
            }
        };
        let destination = match destination {
            WireDestination::Session | WireDestination::CliArg => Destination::Session,
            WireDestination::LocalSettings => Destination::LocalSettings,
            WireDestination::ProjectSettings => Destination::ProjectSettings,
            WireDestination::UserSettings => Destination::UserSettings,
        };
        Ok(PermissionUpdate { change, destination })
    }
}

/// An SDK `PermissionUpdate` as the policy's typed update, or why it is not one rein
/// knows.
pub(crate) fn typed_update(update: &Value) -> Result<PermissionUpdate, crate::WireError> {
    let wire: WireUpdate = serde_json::from_value(update.clone())
        .map_err(|source| crate::WireError::Update { update: update.clone(), source })?;
    wire.typed()
}

/// Apply `updates` through the policy (and the named settings files); returns a note
/// for each update that could not be applied (the others still are).
pub fn apply_updates(updates: &[Value], policy: &SharedPolicy, targets: &PermissionTargets) -> Vec<String> {
    let mut problems = Vec::new();
    for update in updates {
        match typed_update(update) {
            Ok(typed) => {
                if let Err(e) = policy.apply(&typed, targets) {
                    problems.push(e.to_string());
                }
            }
            Err(why) => problems.push(why.to_string()),
        }
    }
    problems
}

/// What rein suggests remembering for `call`, as `PermissionUpdate`s: the rules a
/// "don't ask again" would add (to the local settings), and for edits the acceptEdits
/// mode for the session.
pub(crate) fn suggestions(policy: &SharedPolicy, call: &Call<'_>) -> Vec<WireUpdate> {
    let rules: Vec<WireRule> = policy.get().suggested_rules(call).iter().map(|r| WireRule::of(r)).collect();
    let mut out = Vec::new();
    if !rules.is_empty() {
        out.push(WireUpdate::AddRules {
            rules,
            behavior: Behavior::Allow,
            destination: WireDestination::LocalSettings,
        });
    }
    if call.effects.shell.is_some() && !call.effects.writes.is_empty() {
        // A command that changes files: the folders it changes them in, for this session
        // (as Claude Code suggests), then edits without asking.
        let mut directories: Vec<PathBuf> = Vec::new();
        for dir in call.effects.writes.iter().filter_map(|p| p.parent()) {
            if !directories.iter().any(|d| d == dir) {
                directories.push(dir.to_path_buf());
            }
        }
        out.push(WireUpdate::AddDirectories { directories, destination: WireDestination::Session });
    }
    if !call.effects.writes.is_empty() {
        out.push(WireUpdate::SetMode { mode: "acceptEdits".into(), destination: WireDestination::Session });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_updates_read_as_the_sdks_write_them() {
        let add = serde_json::json!({"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
                                     "behavior": "allow", "destination": "localSettings"});
        let typed = typed_update(&add).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(typed.change, Change::AddRules(ListKind::Allow, vec!["Bash(npm test)".into()]));
        assert_eq!(typed.destination, Destination::LocalSettings);
        let mode = serde_json::json!({"type": "setMode", "mode": "plan", "destination": "session"});
        assert_eq!(typed_update(&mode).map(|u| u.change).ok(), Some(Change::SetMode(PermissionMode::Plan)));
        assert!(typed_update(&serde_json::json!({"type": "grantEverything"})).is_err());
        assert!(
            typed_update(&serde_json::json!({"type": "setMode", "mode": "yolo", "destination": "session"})).is_err()
        );
        // What rein suggests reads back as the same update.
        let back: WireUpdate = serde_json::from_value(
            serde_json::to_value(WireUpdate::AddRules {
                rules: vec![WireRule::of("Bash(git status)")],
                behavior: Behavior::Allow,
                destination: WireDestination::LocalSettings,
            })
            .unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            back.typed().map(|u| u.change).ok(),
            Some(Change::AddRules(ListKind::Allow, vec!["Bash(git status)".into()]))
        );
    }
}
