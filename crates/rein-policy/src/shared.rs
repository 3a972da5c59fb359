//! The policy of a running session, which the person at the terminal may change: the
//! mode (Shift+Tab) and rules remembered from a "don't ask again" answer. Readers take
//! the current policy; a change makes a new one and swaps it in. A subagent with a
//! `permissionMode` of its own holds a view: its own mode over the session's rules, so
//! a rule remembered on either side counts on both.

use std::sync::{Arc, RwLock};

use crate::{ListKind, PermissionMode, Policy, RuleError};

/// A mode and what set it.
type Mode = (PermissionMode, String);

/// A policy shared by a session's gate, its subagents and its frontend.
#[derive(Debug, Clone)]
pub struct SharedPolicy {
    shared: Arc<RwLock<Arc<Policy>>>,
    /// The holder's own mode (a subagent's `permissionMode`), over the shared rules.
    own_mode: Option<Arc<RwLock<Mode>>>,
}

impl SharedPolicy {
    pub fn new(policy: Policy) -> Self {
        SharedPolicy::from(Arc::new(policy))
    }

    /// A view of this policy with a mode of its own: rules added or remembered through
    /// either are seen by both; a mode set through the view stays in it.
    pub fn with_own_mode(&self, mode: PermissionMode, source: &str) -> SharedPolicy {
        let now = self.get();
        let own = (now.mode, now.mode_source.clone());
        let view = SharedPolicy { shared: self.shared.clone(), own_mode: Some(Arc::new(RwLock::new(own))) };
        view.set_mode(mode, source);
        view
    }

    /// The policy as it is now.
    pub fn get(&self) -> Arc<Policy> {
        let base = self.shared.read().unwrap_or_else(|p| p.into_inner()).clone();
        let Some(own) = &self.own_mode else { return base };
        let (mode, source) = own.read().unwrap_or_else(|p| p.into_inner()).clone();
        if base.mode == mode {
            return base;
        }
        let mut policy = (*base).clone();
        policy.mode = mode;
        policy.mode_source = source;
        Arc::new(policy)
    }

    /// Change the policy for every later decision.
    pub fn update(&self, change: impl FnOnce(&mut Policy)) {
        let mut slot = self.shared.write().unwrap_or_else(|p| p.into_inner());
        let mut next = (**slot).clone();
        change(&mut next);
        *slot = Arc::new(next);
    }

    pub fn set_mode(&self, mode: PermissionMode, source: &str) {
        // Settings that disable auto mode or bypass hold for the whole session.
        let refused = |p: &Policy| {
            (mode == PermissionMode::Auto && p.auto_disabled)
                || (mode == PermissionMode::BypassPermissions && p.bypass_disabled)
        };
        if let Some(own) = &self.own_mode {
            if !refused(&self.get()) {
                *own.write().unwrap_or_else(|p| p.into_inner()) = (mode, source.to_string());
            }
            return;
        }
        self.update(|p| {
            if refused(p) {
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
        SharedPolicy { shared: Arc::new(RwLock::new(p)), own_mode: None }
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
        let view = shared.with_own_mode(PermissionMode::BypassPermissions, "agent");
        assert_eq!(view.get().mode, PermissionMode::Plan, "a view cannot enter a disabled mode either");
    }

    /// A subagent's own mode stays its own; what either side remembers counts for both.
    #[test]
    fn a_view_has_its_own_mode_and_the_sessions_rules() {
        let mut policy = Policy::allow_all(std::env::temp_dir());
        policy.mode = PermissionMode::Default;
        let session = SharedPolicy::new(policy);
        let agent = session.with_own_mode(PermissionMode::AcceptEdits, "the scout subagent's permissionMode");
        assert_eq!(agent.get().mode, PermissionMode::AcceptEdits);
        assert_eq!(session.get().mode, PermissionMode::Default);
        agent.remember("Edit(/tmp/notes/**)", "the agent's question").unwrap();
        session.remember("Read(/tmp/notes/**)", "the session's question").unwrap();
        for holder in [&session, &agent] {
            let texts: Vec<String> = holder.get().allow.iter().map(|r| r.text.clone()).collect();
            assert!(
                texts.iter().any(|t| t == "Edit(/tmp/notes/**)") && texts.iter().any(|t| t == "Read(/tmp/notes/**)")
            );
        }
        session.set_mode(PermissionMode::Plan, "shift+tab");
        assert_eq!(agent.get().mode, PermissionMode::AcceptEdits, "the session's switch is the session's");
        agent.set_mode(PermissionMode::Default, "the agent");
        assert_eq!(session.get().mode, PermissionMode::Plan);
        assert_eq!(agent.get().mode, PermissionMode::Default);
    }
}
