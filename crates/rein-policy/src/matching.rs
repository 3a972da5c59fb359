//! Whether a rule applies to a call, on the call's declared effects; and the read guard
//! that keeps Read-denied files out of what directory walks return. A path rule holds
//! for every name of a file: the path as written, its canonical form (symlinks,
//! `/proc/self/root/…`, `/dev/fd/N` resolved), and its identity (a hard link or a bind
//! mount is the same file); a recursive reader of a directory holding a protected file
//! is covered too.

use std::path::{Path, PathBuf};

use rein_effects::{Access, ReadGuard};
use serde_json::Value;

use crate::Call;
use crate::paths::{PathPattern, spellings};
use crate::rules::Spec;
use crate::{Policy, Rule};

impl Policy {
    /// Whether a rule applies to the call (deny and ask lists; a hook's `if`).
    pub(crate) fn hits(&self, rule: &Rule, call: &Call<'_>) -> bool {
        self.hit(rule, call).is_some()
    }

    /// Whether a rule applies to the call, and how: by a path the call names, or only
    /// because a tree the call reads whole holds a file the rule protects.
    pub(crate) fn hit(&self, rule: &Rule, call: &Call<'_>) -> Option<Hit> {
        if let Some(Spec::Path(p, Access::Read)) = &rule.spec {
            let effects = call.effects;
            let targets = effects.reads.iter().chain(&effects.writes);
            let named = targets.into_iter().any(|t| {
                spellings(t).iter().any(|s| p.matches(s) || p.matches_within(s)) || p.files(&self.roots).is_same_file(t)
            });
            if named {
                return Some(Hit::Named);
            }
            return effects.reads_within.iter().any(|d| self.holds_protected(p, d)).then_some(Hit::Within);
        }
        self.hits_inner(rule, call).then_some(Hit::Named)
    }

    fn hits_inner(&self, rule: &Rule, call: &Call<'_>) -> bool {
        let effects = call.effects;
        match &rule.spec {
            None => rule.matches_tool(call.tool),
            Some(Spec::Command(_)) => effects
                .shell
                .as_ref()
                .is_some_and(|s| s.analysis.commands.iter().any(|c| c.forms.iter().any(|f| command_hits(rule, f)))),
            Some(Spec::Param { key, value }) => {
                rule.matches_tool(call.tool)
                    && call.input.get(key).is_some_and(|v| match v {
                        Value::String(s) => s == value,
                        other => value.parse::<Value>().is_ok_and(|v| v == *other),
                    })
            }
            Some(Spec::Path(p, access)) => {
                // A Read deny also blocks writing the same path.
                let targets: Vec<&PathBuf> = match access {
                    Access::Read => effects.reads.iter().chain(&effects.writes).collect(),
                    Access::Write => effects.writes.iter().collect(),
                };
                let reads = *access == Access::Read;
                let named = targets.iter().any(|t| {
                    spellings(t).iter().any(|s| p.matches(s) || (reads && p.matches_within(s)))
                        || p.files(&self.roots).is_same_file(t)
                });
                named || (reads && effects.reads_within.iter().any(|d| self.holds_protected(p, d)))
            }
            Some(Spec::Domain(d)) => effects.hosts.iter().any(|h| domain_hits(d, h)),
            Some(Spec::Other) => rule.matches_tool(call.tool),
        }
    }

    /// A recursive read of `dir` reads a file `p` protects: by name, or under another
    /// name (a hard link) somewhere in the tree.
    fn holds_protected(&self, p: &PathPattern, dir: &Path) -> bool {
        let files = p.files(&self.roots);
        spellings(dir).iter().any(|s| p.matches(s) || p.matches_within(s))
            || files.inside(dir)
            || files.linked_within(dir)
    }

    /// An allow rule covers every spelling of every path (link and target). An Edit
    /// allow implies read access; a Read allow does not allow writes.
    pub(crate) fn path_allow(&self, rule: &Rule, paths: &[PathBuf], for_write: bool) -> bool {
        let Some(Spec::Path(p, access)) = &rule.spec else { return false };
        if for_write && *access != Access::Write {
            return false;
        }
        !paths.is_empty() && paths.iter().all(|t| spellings(t).iter().all(|s| p.matches(s)))
    }

    /// The patterns of Read deny rules.
    fn read_denials(&self) -> impl Iterator<Item = &PathPattern> {
        self.deny.iter().filter_map(|r| match &r.spec {
            Some(Spec::Path(p, Access::Read)) => Some(p),
            _ => None,
        })
    }
}

impl ReadGuard for Policy {
    /// A file a walk finds is left out when a Read deny rule names it, or it is one of
    /// the protected files under another name (same inode).
    fn denies(&self, path: &Path, ino: Option<u64>) -> bool {
        if rein_effects::is_own_process_file(path) {
            return true;
        }
        self.read_denials().any(|p| {
            p.matches(path) || {
                let files = p.files(&self.roots);
                match ino {
                    Some(i) => files.inodes.contains(&i),
                    None => files.is_same_file(path),
                }
            }
        })
    }
}

/// How a rule applies to a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hit {
    /// A path the call names (or any other kind of rule).
    Named,
    /// A protected file inside a tree the call reads whole.
    Within,
}

pub(crate) fn command_hits(rule: &Rule, form: &str) -> bool {
    match &rule.spec {
        Some(Spec::Command(re)) => re.is_match(form),
        _ => false,
    }
}

pub(crate) fn domain_hits(rule: &str, host: &str) -> bool {
    match rule.strip_prefix("*.") {
        _ if rule == "*" => true,
        Some(suffix) => host.ends_with(&format!(".{suffix}")),
        None => host == rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert!(domain_hits("example.com", "example.com"));
        assert!(!domain_hits("example.com", "api.example.com"));
        assert!(domain_hits("*.example.com", "api.example.com"));
        assert!(!domain_hits("*.example.com", "example.com"));
        assert!(!domain_hits("*.example.com", "evilexample.com"));
        assert!(domain_hits("*", "anything.org"));
    }
}
