//! Hooks written in a subagent's or a skill's front matter (the settings' `hooks` shape),
//! which run only while that definition is in use: a subagent's for its own run (its
//! `Stop` hooks are SubagentStop, as in Claude Code), a skill's from the moment it is
//! invoked for the rest of the session (`once: true` handlers run once). None run when
//! the settings disable hooks or allow only managed ones.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use crate::{HookConfig, HookConfigError, HookEvent, Hooks};

/// Skills' hooks added while the session runs, shared by every copy of the session's
/// hooks.
#[derive(Debug, Default)]
pub struct Scoped {
    config: HookConfig,
    /// The definitions whose hooks are in (each is added once).
    added: BTreeSet<String>,
}

/// The session's scoped hooks.
pub type SharedScoped = Arc<Mutex<Scoped>>;

fn lock(s: &SharedScoped) -> MutexGuard<'_, Scoped> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

impl HookConfig {
    /// Add the `hooks` of a definition's front matter (`origin`: its file); with
    /// `as_subagent`, `Stop` hooks become SubagentStop. `Ok(false)` when the settings do
    /// not let definitions' hooks run.
    pub fn add_definition(&mut self, hooks: &Value, origin: &str, as_subagent: bool) -> Result<bool, HookConfigError> {
        if !self.definitions_allowed {
            return Ok(false);
        }
        let Some(map) = hooks.as_object() else {
            return Err(HookConfigError {
                origin: origin.to_string(),
                event: "hooks".into(),
                reason: "front matter `hooks` must be a map of events".into(),
            });
        };
        for (name, groups) in map {
            let mut event = match crate::config::parse_event(name, origin) {
                Ok(e) => e,
                Err(e) => {
                    self.warnings.push(crate::config::skipped_event(&e));
                    continue;
                }
            };
            if as_subagent && event == HookEvent::Stop {
                event = HookEvent::SubagentStop;
            }
            self.add_groups(event, name, groups, (origin, origin), false, |_| None)?;
        }
        Ok(true)
    }
}

impl Hooks {
    /// Add a skill's hooks (`key`: the skill) for the rest of the session, once.
    pub fn add_scoped(&self, key: &str, hooks: &Value, origin: &str) -> Result<bool, HookConfigError> {
        let mut scoped = lock(&self.scoped);
        if scoped.added.contains(key) {
            return Ok(false);
        }
        scoped.config.definitions_allowed = self.config.definitions_allowed;
        let added = scoped.config.add_definition(hooks, origin, false)?;
        scoped.added.insert(key.to_string());
        Ok(added)
    }

    pub(crate) fn scoped_has(&self, event: HookEvent) -> bool {
        lock(&self.scoped).config.events.contains_key(&event)
    }

    pub(crate) fn scoped_matching(&self, event: HookEvent, value: Option<&str>) -> Vec<crate::Handler> {
        lock(&self.scoped).config.matching(event, value)
    }
}
