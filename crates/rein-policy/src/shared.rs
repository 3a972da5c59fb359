//! The policy of a running session, which the person at the terminal may change: the
//! mode (Shift+Tab) and rules remembered from a "don't ask again" answer. Readers take
//! the current policy; a change makes a new one and swaps it in.

use std::sync::{Arc, RwLock};

use crate::{ListKind, PermissionMode, Policy, RuleError};

/// A policy shared by a session's gate, its subagents and its frontend.
#[derive(Debug, Clone)]
pub struct SharedPolicy(Arc<RwLock<Arc<Policy>>>);

impl SharedPolicy {
    pub fn new(policy: Policy) -> Self {
        SharedPolicy(Arc::new(RwLock::new(Arc::new(policy))))
    }

    /// The policy as it is now.
    pub fn get(&self) -> Arc<Policy> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Change the policy for every later decision.
    pub fn update(&self, change: impl FnOnce(&mut Policy)) {
        let mut slot = self.0.write().unwrap_or_else(|p| p.into_inner());
        let mut next = (**slot).clone();
        change(&mut next);
        *slot = Arc::new(next);
    }

    pub fn set_mode(&self, mode: PermissionMode, source: &str) {
        self.update(|p| {
            // Settings that disable auto mode hold for the whole session.
            if (mode == PermissionMode::Auto && p.auto_disabled)
                || (mode == PermissionMode::BypassPermissions && p.bypass_disabled)
            {
                return;
            }
            p.mode = mode;
            p.mode_source = source.to_string();
        });
    }

    /// Add `rule` to the `kind` list for the rest of the session.
    pub fn add_rule(&self, rule: &str, kind: ListKind, origin: &str) -> Result<(), RuleError> {
        let parsed = self.get().parse_rule_as(rule, kind, origin)?;
        self.update(|p| match kind {
            ListKind::Allow => p.allow.push(parsed),
            ListKind::Ask => p.ask.push(parsed),
            ListKind::Deny => p.deny.push(parsed),
        });
        Ok(())
    }

    /// Drop every rule written `rule`.
    pub fn remove_rule(&self, rule: &str) {
        self.update(|p| {
            for list in [&mut p.allow, &mut p.ask, &mut p.deny] {
                list.retain(|r| r.text != rule);
            }
        });
    }

    /// Allow `rule` (written as in settings) for the rest of the session.
    pub fn remember(&self, rule: &str, origin: &str) -> Result<(), RuleError> {
        let policy = self.get();
        let parsed = policy.parse_rule_as(rule, ListKind::Allow, origin)?;
        self.update(|p| p.allow.push(parsed));
        Ok(())
    }
}

impl From<Policy> for SharedPolicy {
    fn from(p: Policy) -> Self {
        SharedPolicy::new(p)
    }
}

impl From<Arc<Policy>> for SharedPolicy {
    fn from(p: Arc<Policy>) -> Self {
        SharedPolicy(Arc::new(RwLock::new(p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disabled_mode_cannot_be_entered_later() {
        let mut policy = Policy::allow_all(std::env::temp_dir());
        policy.mode = PermissionMode::Default;
        policy.bypass_disabled = true;
        let shared = SharedPolicy::new(policy);
        shared.set_mode(PermissionMode::BypassPermissions, "test");
        assert_eq!(shared.get().mode, PermissionMode::Default);
        shared.set_mode(PermissionMode::Plan, "test");
        assert_eq!(shared.get().mode, PermissionMode::Plan);
    }
}
