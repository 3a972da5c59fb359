//! Settings files that change while a session runs: looked at before each prompt (a
//! `stat` per scope), each change fires ConfigChange hooks with Claude Code's `source`
//! and `file_path`. rein reads settings when a session starts, so the person is told
//! that a change takes effect in the next session (or that a hook blocked it). A file
//! as rein itself left it (a remembered rule, `/output-style`) is not a change to
//! report: the person made it through rein, which said what it did.

use std::path::PathBuf;
use std::time::SystemTime;

use rein_settings::Scope;

/// What a file was when last looked at: absent, or its modification time and length.
type Stamp = Option<(Option<SystemTime>, u64)>;

fn stamp(path: &std::path::Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// The watched settings files.
#[derive(Debug, Default)]
pub struct ConfigWatch {
    files: Vec<(&'static str, PathBuf, Stamp)>,
}

/// ConfigChange's `source` for a scope.
fn source(scope: Scope) -> Option<&'static str> {
    match scope {
        Scope::User => Some("user_settings"),
        Scope::Project => Some("project_settings"),
        Scope::Local => Some("local_settings"),
        Scope::Managed => Some("policy_settings"),
        Scope::Cli => None,
    }
}

impl ConfigWatch {
    /// Watch `files` from how they are now.
    pub fn new(files: &[(Scope, PathBuf)]) -> Self {
        let files = files.iter().filter_map(|(scope, p)| Some((source(*scope)?, p.clone(), stamp(p)))).collect();
        ConfigWatch { files }
    }

    /// The files changed (written, created or removed) since the last look, with their
    /// `source`; each change is reported once.
    pub fn changes(&mut self) -> Vec<(&'static str, PathBuf)> {
        let mut out = Vec::new();
        for (source, path, seen) in &mut self.files {
            let now = stamp(path);
            if now != *seen {
                *seen = now;
                if now.is_none() || now != rein_settings::written_by_rein(path) {
                    out.push((*source, path.clone()));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_reported_once_and_a_new_file_counts() {
        let dir = tempfile::tempdir().unwrap();
        let (project, local) = (dir.path().join("settings.json"), dir.path().join("settings.local.json"));
        std::fs::write(&project, "{}").unwrap();
        let mut watch = ConfigWatch::new(&[(Scope::Project, project.clone()), (Scope::Local, local.clone())]);
        assert!(watch.changes().is_empty());
        std::fs::write(&project, "{\"model\": \"opus\"}").unwrap();
        std::fs::write(&local, "{}").unwrap();
        assert_eq!(watch.changes(), vec![("project_settings", project), ("local_settings", local.clone())]);
        assert!(watch.changes().is_empty(), "reported once");
        // rein's own write is not reported; the person's next one is.
        rein_settings::write_file(&local, "{\"model\": \"haiku\"}").unwrap();
        assert!(watch.changes().is_empty(), "rein's own write was reported");
        std::fs::write(&local, "{\"model\": \"opus\"}").unwrap();
        assert_eq!(watch.changes(), vec![("local_settings", local)]);
    }
}
