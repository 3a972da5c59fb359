//! Permission updates, typed: what a "don't ask again" asks to remember — rules added,
//! replaced or removed, the mode, workspace directories — for the session or written
//! to a settings file. The interactive dialog and the Agent SDK's `PermissionUpdate`s
//! both become one of these and go through [`SharedPolicy::apply`], the one place they
//! are applied and persisted.

use std::path::PathBuf;

use crate::{ListKind, PermissionMode, RuleError, SharedPolicy};

/// Where an update lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// This session only.
    Session,
    /// `.claude/settings.local.json` at the project root.
    LocalSettings,
    /// `.claude/settings.json` at the project root.
    ProjectSettings,
    /// `~/.claude/settings.json`.
    UserSettings,
}

impl Destination {
    /// The SDK's names (`session`, `localSettings`, `projectSettings`, `userSettings`).
    pub fn parse(name: &str) -> Option<Destination> {
        Some(match name {
            "session" | "cliArg" => Destination::Session,
            "localSettings" => Destination::LocalSettings,
            "projectSettings" => Destination::ProjectSettings,
            "userSettings" => Destination::UserSettings,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Destination::Session => "session",
            Destination::LocalSettings => "localSettings",
            Destination::ProjectSettings => "projectSettings",
            Destination::UserSettings => "userSettings",
        }
    }
}

/// What changes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Rules (`Tool` or `Tool(content)`) join a list.
    AddRules(ListKind, Vec<String>),
    /// Rules leave the session's policy.
    RemoveRules(Vec<String>),
    SetMode(PermissionMode),
    AddDirectories(Vec<PathBuf>),
    RemoveDirectories(Vec<PathBuf>),
}

/// One permission update: a change, and where it lasts.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionUpdate {
    pub change: Change,
    pub destination: Destination,
}

/// Where the settings files of the destinations are.
#[derive(Debug, Clone)]
pub struct SettingsFiles {
    /// The project root: `.claude/settings.json` and `.claude/settings.local.json`.
    pub project_root: PathBuf,
    /// `~/.claude`, for `userSettings`.
    pub user_dir: Option<PathBuf>,
}

impl SettingsFiles {
    fn file(&self, destination: Destination) -> Option<PathBuf> {
        match destination {
            Destination::Session => None,
            Destination::LocalSettings => Some(self.project_root.join(".claude").join("settings.local.json")),
            Destination::ProjectSettings => Some(self.project_root.join(".claude").join("settings.json")),
            Destination::UserSettings => self.user_dir.as_ref().map(|d| d.join("settings.json")),
        }
    }
}

/// Why an update was not (wholly) applied.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("rule {rule:?}: {source}")]
    Rule { rule: String, source: RuleError },
    #[error("{0}")]
    Settings(#[from] rein_settings::SettingsError),
    #[error("no settings file for {0} (HOME is not set)")]
    NoFile(&'static str),
}

impl SharedPolicy {
    /// Apply `update` to the session's policy and, for a settings destination, write it
    /// there. Returns the file written, if any.
    pub fn apply(&self, update: &PermissionUpdate, files: &SettingsFiles) -> Result<Option<PathBuf>, UpdateError> {
        let origin = format!("a permission update ({})", update.destination.name());
        match &update.change {
            Change::AddRules(list, rules) => {
                for rule in rules {
                    self.add_rule(rule, *list, &origin)
                        .map_err(|source| UpdateError::Rule { rule: rule.clone(), source })?;
                }
                if update.destination == Destination::Session {
                    return Ok(None);
                }
                let file = files.file(update.destination).ok_or(UpdateError::NoFile(update.destination.name()))?;
                Ok(Some(rein_settings::add_rules_to_file(&file, list.name(), rules)?))
            }
            Change::RemoveRules(rules) => {
                rules.iter().for_each(|r| self.remove_rule(r));
                // Only the local settings are rein's to edit this way.
                if update.destination != Destination::LocalSettings {
                    return Ok(None);
                }
                let mut written = None;
                for rule in rules {
                    written = Some(rein_settings::remove_local_rule(&files.project_root, rule)?);
                }
                Ok(written)
            }
            Change::SetMode(mode) => {
                self.set_mode(*mode, &origin);
                Ok(None)
            }
            Change::AddDirectories(dirs) | Change::RemoveDirectories(dirs) => {
                let add = matches!(update.change, Change::AddDirectories(_));
                let dirs: Vec<PathBuf> =
                    dirs.iter().map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone())).collect();
                self.update(|p| {
                    if add {
                        p.roots.extend(dirs.iter().filter(|d| d.is_absolute()).cloned());
                    } else {
                        p.roots.retain(|r| !dirs.contains(r));
                    }
                });
                Ok(None)
            }
        }
    }
}
