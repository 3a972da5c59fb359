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
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

pub use config::{Group, Handler, HandlerKind, HookConfig, HookConfigError, Matcher};
pub use event::HookEvent;
pub use output::{HookDecision, HookOutput, Outcome, PermissionAnswer, PreToolDecision, SpecificOutput};
pub use run::{DEFAULT_TIMEOUT, Exit, Run};

/// An SDK callback's timeout when its matcher sets none (as the Agent SDK documents).
pub const CALLBACK_TIMEOUT: Duration = Duration::from_secs(60);

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

/// Runs the Agent SDK's hook callbacks: sends `hook_callback` with the hook's input and
/// returns the reply (the hook's JSON output) or why there is none.
pub trait CallbackRunner: Send + Sync {
    fn call<'a>(
        &'a self,
        callback_id: &'a str,
        input: &'a Value,
        tool_use_id: Option<&'a str>,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, String>>;
}

/// The hooks of one session.
#[derive(Clone)]
pub struct Hooks {
    pub config: HookConfig,
    pub session: Session,
    /// Where `Callback` handlers run (SDK mode).
    pub callbacks: Option<Arc<dyn CallbackRunner>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("config", &self.config).field("session", &self.session).finish_non_exhaustive()
    }
}

impl Hooks {
    pub fn new(config: HookConfig, session: Session) -> Self {
        Hooks { config, session, callbacks: None }
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
        let value = self.input(event, fields);
        let input = value.to_string();
        let env = vec![("CLAUDE_PROJECT_DIR".to_string(), self.session.project_dir.display().to_string())];
        let runs = futures::future::join_all(handlers.iter().map(|h| async {
            match &h.kind {
                HandlerKind::Callback { id, block_on_failure } if self.callbacks.is_some() => {
                    self.run_callback(h, id, *block_on_failure, &value).await
                }
                _ => run::run(h, &input, &self.session.cwd, &env).await,
            }
        }))
        .await;
        for r in &runs {
            tracing::debug!(target: "rein::hooks", event = event.name(), hook = %r.handler, exit = ?r.exit, stderr = %r.stderr.trim(), "hook ran");
        }
        Outcome { runs }
    }

    /// An SDK callback as a handler run: its reply is the output (exit 0); an error or
    /// timeout is a failure that blocks (exit 2) only when the callback asked for that.
    async fn run_callback(&self, h: &Handler, id: &str, block_on_failure: bool, input: &Value) -> Run {
        let Some(runner) = &self.callbacks else { return run::run(h, "", &self.session.cwd, &[]).await };
        let timeout = h.timeout.map(Duration::from_secs_f64).unwrap_or(CALLBACK_TIMEOUT);
        let tool_use_id = input.get("tool_use_id").and_then(Value::as_str);
        let reply = tokio::time::timeout(timeout, runner.call(id, input, tool_use_id, timeout)).await;
        let failure = match reply {
            Ok(Ok(output)) => {
                return Run {
                    handler: h.display(),
                    exit: Exit::Code(Some(0)),
                    stdout: output.to_string(),
                    stderr: String::new(),
                };
            }
            Ok(Err(e)) => e,
            Err(_) => format!("no answer in {} s", timeout.as_secs_f64()),
        };
        let exit = if block_on_failure { Exit::Code(Some(2)) } else { Exit::NotStarted(failure.clone()) };
        Run {
            handler: h.display(),
            exit,
            stdout: String::new(),
            stderr: format!("SDK hook callback {id} failed: {failure}"),
        }
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
