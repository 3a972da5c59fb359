//! Claude Code compatible hooks. A user's existing hooks run unchanged: the same
//! configuration (from every settings scope, merged, identical handlers once), the same
//! stdin JSON, exit codes and JSON output. All matching handlers of an event run in
//! parallel, each in its own process group, killed at its timeout. Hooks only tighten:
//! the engine applies a hook's "allow" only where no deny or ask rule matched.

mod config;
mod delegated;
mod event;
mod http;
mod input;
mod output;
mod run;
mod scoped;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

pub use config::{Group, Handler, HandlerKind, HookConfig, HookConfigError, Matcher};
pub use delegated::{AGENT_TIMEOUT, DelegatedError, HookTools, fill as fill_placeholders};
pub use event::HookEvent;
pub use input::HookInput;
pub use output::{HookDecision, HookOutput, Outcome, PermissionAnswer, PreToolDecision, SpecificOutput};
pub use run::{DEFAULT_TIMEOUT, Exit, Run};
pub use scoped::{Scoped, SharedScoped};
pub use watch::{FileWatch, SharedWatch};

/// A prompt hook's timeout when it sets none (as Claude Code's).
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// The session's own directory: hook text too long for the context is saved there.
    pub session_dir: PathBuf,
}

/// The facts that change while a session runs — its id (`/clear` starts another), its
/// transcript, the permission mode (Shift+Tab, `set_permission_mode`, ExitPlanMode) —
/// read from their owner each time a hook runs, so no hook sees a stale copy.
pub trait LiveFacts: Send + Sync {
    fn session_id(&self) -> String;
    fn transcript_path(&self) -> PathBuf;
    fn permission_mode(&self) -> String;
    /// Where the session shell is now, once a command has moved it.
    fn cwd(&self) -> Option<PathBuf> {
        None
    }
}

/// Answers `prompt` hooks: a small fast model's yes/no judgement, with a reason.
pub trait PromptJudge: Send + Sync {
    /// `Ok((ok, reason))`; `Err` when there is no usable answer.
    fn judge<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(bool, String), DelegatedError>>;
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
    ) -> BoxFuture<'a, Result<Value, DelegatedError>>;
}

/// The hooks of one session.
#[derive(Clone)]
pub struct Hooks {
    pub config: HookConfig,
    pub session: Session,
    /// Where `Callback` handlers run (SDK mode).
    pub callbacks: Option<Arc<dyn CallbackRunner>>,
    /// Where `prompt` handlers are judged.
    pub prompt_judge: Option<Arc<dyn PromptJudge>>,
    /// The session's live facts; without them hooks see `session` as it was built.
    pub live: Option<Arc<dyn LiveFacts>>,
    /// Where `agent` and `mcp_tool` handlers run.
    pub tools: Option<Arc<dyn HookTools>>,
    /// Skills' hooks, added as they are invoked (shared by every copy).
    pub scoped: SharedScoped,
    /// The files FileChanged hooks watch (shared by every copy).
    pub watch: SharedWatch,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("config", &self.config).field("session", &self.session).finish_non_exhaustive()
    }
}

impl Hooks {
    pub fn new(config: HookConfig, session: Session) -> Self {
        Hooks {
            config,
            session,
            callbacks: None,
            prompt_judge: None,
            live: None,
            tools: None,
            scoped: Default::default(),
            watch: Default::default(),
        }
    }

    /// Whether any handler is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.config.events.contains_key(&event) || self.scoped_has(event)
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
        let mut handlers = self.config.matching(event, match_value);
        for h in self.scoped_matching(event, match_value) {
            if !handlers.iter().any(|o| o.kind == h.kind && o.if_rule == h.if_rule) {
                handlers.push(h);
            }
        }
        let handlers: Vec<Handler> = handlers
            .into_iter()
            .filter(|h| keep(h))
            // A `once` handler runs the first time only.
            .filter(|h| h.once.as_ref().is_none_or(|ran| !ran.swap(true, std::sync::atomic::Ordering::AcqRel)))
            .collect();
        if handlers.is_empty() {
            return Outcome::default();
        }
        let value = self.input(event, fields);
        let input = value.to_string();
        let mut env = vec![("CLAUDE_PROJECT_DIR".to_string(), self.session.project_dir.display().to_string())];
        if matches!(event, HookEvent::SessionStart | HookEvent::Setup | HookEvent::CwdChanged | HookEvent::FileChanged)
        {
            let _ = std::fs::create_dir_all(&self.session.session_dir);
            env.push(("CLAUDE_ENV_FILE".to_string(), self.env_file().display().to_string()));
        }
        // `async: true` command hooks run in the background: the turn never waits for
        // them, and they outlive the session as Claude Code's do (killed at their
        // timeout while rein runs).
        let (background, handlers): (Vec<Handler>, Vec<Handler>) =
            handlers.into_iter().partition(|h| h.is_async && matches!(h.kind, HandlerKind::Command { .. }));
        for h in background {
            run::spawn_detached(&h, &input, &self.session.cwd, &env);
        }
        let runs = futures::future::join_all(handlers.iter().map(|h| async {
            match &h.kind {
                HandlerKind::Callback { id, block_on_failure } if self.callbacks.is_some() => {
                    self.run_callback(h, id, *block_on_failure, &value).await
                }
                HandlerKind::Http { url, headers, allowed_env } => {
                    crate::http::run(h, url, headers, allowed_env, &input).await
                }
                HandlerKind::Prompt { prompt, model } => self.run_prompt(h, prompt, model.as_deref(), &input).await,
                HandlerKind::Agent { prompt, model } => {
                    delegated::agent(self.tools.as_deref(), h, prompt, model.as_deref(), &input).await
                }
                HandlerKind::McpTool { server, tool, input: template } => {
                    delegated::mcp_tool(self.tools.as_deref(), h, (server, tool, template), &value).await
                }
                _ => run::run(h, &input, &self.session.cwd, &env).await,
            }
        }))
        .await;
        for r in &runs {
            tracing::debug!(target: "rein::hooks", event = event.name(), hook = %r.handler, exit = ?r.exit, stderr = %r.stderr.trim(), "hook ran");
        }
        let origins = handlers.iter().map(|h| h.origin.clone()).collect();
        Outcome { runs, spill_dir: Some(self.session.session_dir.clone()), origins, event: Some(event.name()) }
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
            Ok(Err(e)) => e.to_string(),
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

    /// `CLAUDE_ENV_FILE` of SessionStart hooks: where they write `export NAME=value`
    /// lines for the session's commands.
    pub fn env_file(&self) -> PathBuf {
        // The same name the Bash tool sources (rein-tools' ENV_FILE).
        self.session.session_dir.join("session-env.sh")
    }

    /// A `prompt` handler: the small model judges the prompt (`$ARGUMENTS` is the hook's
    /// input); "no" blocks like exit 2, with its reason.
    async fn run_prompt(&self, h: &Handler, prompt: &str, model: Option<&str>, input: &str) -> Run {
        let display = h.display();
        let Some(judge) = &self.prompt_judge else {
            return Run {
                handler: display,
                exit: Exit::NotStarted("no model for prompt hooks".into()),
                stdout: String::new(),
                stderr: String::new(),
            };
        };
        let timeout = h.timeout.map(Duration::from_secs_f64).unwrap_or(PROMPT_TIMEOUT);
        delegated::judged(display, timeout, judge.judge(delegated::prompt_text(prompt, input), model)).await
    }

    /// Where the session is now: the shell's directory once a command moved it.
    pub fn cwd_now(&self) -> PathBuf {
        self.live.as_ref().and_then(|l| l.cwd()).unwrap_or_else(|| self.session.cwd.clone())
    }

    fn input(&self, event: HookEvent, fields: Value) -> Value {
        let s = &self.session;
        let mut map = Map::new();
        match &self.live {
            Some(live) => {
                map.insert("session_id".into(), json!(live.session_id()));
                map.insert("transcript_path".into(), json!(live.transcript_path()));
            }
            None => {
                map.insert("session_id".into(), json!(s.session_id));
                map.insert("transcript_path".into(), json!(s.transcript_path));
            }
        }
        map.insert("cwd".into(), json!(self.cwd_now()));
        map.insert("hook_event_name".into(), json!(event.name()));
        let mode = self.live.as_ref().map_or_else(|| s.permission_mode.clone(), |l| l.permission_mode());
        map.insert("permission_mode".into(), json!(mode));
        if let Value::Object(extra) = fields {
            map.extend(extra);
        }
        Value::Object(map)
    }
}
