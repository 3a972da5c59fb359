//! Claude Code compatible hooks. A user's existing hooks run unchanged: the same
//! configuration (from every settings scope, merged, identical handlers once), the same
//! stdin JSON, exit codes and JSON output. All matching handlers of an event run in
//! parallel, each in its own process group, killed at its timeout. Hooks only tighten:
//! the engine applies a hook's "allow" only where no deny or ask rule matched.

mod config;
mod event;
mod output;
mod run;

use std::path::PathBuf;

use serde_json::{Map, Value, json};

pub use config::{Group, Handler, HandlerKind, HookConfig, HookConfigError, Matcher};
pub use event::HookEvent;
pub use output::{HookDecision, HookOutput, Outcome, PermissionAnswer, PreToolDecision, SpecificOutput};
pub use run::{DEFAULT_TIMEOUT, Exit, Run};

/// The session facts every hook input carries.
#[derive(Debug, Clone)]
pub struct Session {
    pub session_id: String,
    pub transcript_path: PathBuf,
    pub cwd: PathBuf,
    /// `CLAUDE_PROJECT_DIR`: where the session started.
    pub project_dir: PathBuf,
    pub permission_mode: String,
}

/// The hooks of one session.
#[derive(Debug, Clone)]
pub struct Hooks {
    pub config: HookConfig,
    pub session: Session,
}

impl Hooks {
    pub fn new(config: HookConfig, session: Session) -> Self {
        Hooks { config, session }
    }

    /// Whether any handler is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.config.events.contains_key(&event)
    }

    /// Fire `event`: run every handler whose matcher accepts `match_value` (and whose
    /// `if` rule passes `keep`) in parallel, with the common input fields plus `fields`.
    pub async fn fire(
        &self,
        event: HookEvent,
        match_value: Option<&str>,
        fields: Value,
        keep: impl Fn(&Handler) -> bool,
    ) -> Outcome {
        let handlers: Vec<Handler> = self.config.matching(event, match_value).into_iter().filter(|h| keep(h)).collect();
        if handlers.is_empty() {
            return Outcome::default();
        }
        let input = self.input(event, fields).to_string();
        let env = vec![("CLAUDE_PROJECT_DIR".to_string(), self.session.project_dir.display().to_string())];
        let runs =
            futures::future::join_all(handlers.iter().map(|h| run::run(h, &input, &self.session.cwd, &env))).await;
        for r in &runs {
            tracing::debug!(target: "rein::hooks", event = event.name(), hook = %r.handler, exit = ?r.exit, stderr = %r.stderr.trim(), "hook ran");
        }
        Outcome { runs }
    }

    fn input(&self, event: HookEvent, fields: Value) -> Value {
        let s = &self.session;
        let mut map = Map::new();
        map.insert("session_id".into(), json!(s.session_id));
        map.insert("transcript_path".into(), json!(s.transcript_path));
        map.insert("cwd".into(), json!(s.cwd));
        map.insert("hook_event_name".into(), json!(event.name()));
        map.insert("permission_mode".into(), json!(s.permission_mode));
        if let Value::Object(extra) = fields {
            map.extend(extra);
        }
        Value::Object(map)
    }
}
