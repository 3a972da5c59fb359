//! The one builder of a session's engine, for every frontend:
//! the tools with the Agent tool, the permissions and hooks, the resumed history and the
//! transcript.

use std::sync::Arc;
use std::time::Duration;

use crate::error::Context;
use rein_engine::{Approver, ContextLimits, Engine, EngineConfig, Gate};
use rein_model::Model;
use rein_policy::SharedPolicy;
use rein_tools::ToolContext;
use rein_transcript::Transcript;

use crate::Setup;

/// Consecutive Stop-hook continuations before rein stops anyway (as Claude Code).
const DEFAULT_MAX_STOP_CONTINUATIONS: u32 = 8;
/// Concurrency-safe tool calls run at once (as Claude Code).
const DEFAULT_TOOL_CONCURRENCY: usize = 10;
/// Retries of transient API failures (as Claude Code: really 10).
const DEFAULT_MAX_RETRIES: u32 = 10;

/// The one way a frontend gets a session: the owner makes the permission policy every
/// part shares, the model client of the configured provider (unless an override is
/// given: the built-in scripted model, a test's server) and the engine; the frontend
/// hands in only who answers questions, made from the policy the builder shows it.
pub struct Builder<'a> {
    setup: &'a Setup,
    policy: SharedPolicy,
    model: Option<Arc<dyn Model>>,
    approver: Option<Arc<dyn Approver>>,
    /// An MCP tool that answers the questions (`--permission-prompt-tool`).
    prompt_tool: Option<String>,
    mcp: Option<McpStart<'a>>,
    /// The OS sandbox, made here from the setup's configuration (or why it cannot be:
    /// `failIfUnavailable`, said when building).
    sandbox: crate::Result<Option<Arc<rein_sandbox::Sandbox>>>,
    /// What the person is told before the session starts: the setup's notices, then the
    /// sandbox's.
    notices: Vec<String>,
}

/// How the session's MCP servers start.
struct McpStart<'a> {
    options: &'a crate::Options,
    /// The SDK host's in-process servers: the tunnel and the names `initialize` gave.
    tunnel: Option<(rein_mcp::TunnelHandle, Vec<String>)>,
}

impl<'a> Builder<'a> {
    /// Building starts by laying the session's own variables (its settings' `env`) over
    /// the process's environment: the model client, tools, hooks and servers see them.
    /// Then the OS sandbox is made (the host looked at when the sandbox is on), and the
    /// policy learns whether sandboxed commands may run unasked.
    pub fn new(setup: &'a Setup) -> Self {
        setup.install_vars();
        let mut notices = setup.notices.clone();
        let mut policy = (*setup.policy).clone();
        let sandbox = match &setup.sandbox_config {
            Some(config) => {
                let auto_allow = config.auto_allow_bash;
                let made = crate::sandbox::setup(config.clone(), &policy, setup.env.sandbox_tier, &mut notices);
                if let Ok(Some(s)) = &made {
                    policy.sandbox_auto_allow = auto_allow && s.is_active();
                }
                made
            }
            None => Ok(None),
        };
        Builder {
            setup,
            policy: SharedPolicy::from(policy),
            model: None,
            approver: None,
            prompt_tool: None,
            mcp: None,
            sandbox,
            notices,
        }
    }

    /// What the person is told before the session starts (each after `rein: `).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The setup the session is built from.
    pub fn setup(&self) -> &'a Setup {
        self.setup
    }

    /// The session's permission policy (one for the whole session: the approver a
    /// frontend makes reads and updates this one).
    pub fn policy(&self) -> &SharedPolicy {
        &self.policy
    }

    /// Talk to `model` instead of the configured provider (the built-in scripted model,
    /// a model that is never asked, a test's fake server).
    pub fn model(mut self, model: Arc<dyn Model>) -> Self {
        self.model = Some(model);
        self
    }

    /// Who answers the questions the session asks (none: headless, every question is
    /// a no).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// An MCP tool (`mcp__server__tool`) answers the questions, as
    /// `--permission-prompt-tool` names it; made once the session's servers are.
    pub fn prompt_tool(mut self, name: &str) -> crate::Result<Self> {
        crate::prompt_tool::check(name)?;
        self.prompt_tool = Some(name.to_string());
        Ok(self)
    }

    /// Start the MCP servers `options` and the settings configure (needs a tokio
    /// runtime): their tools join as each answers.
    pub fn mcp(mut self, options: &'a crate::Options) -> Self {
        self.mcp = Some(McpStart { options, tunnel: None });
        self
    }

    /// [`mcp`](Self::mcp) for an Agent SDK session: the host's in-process servers are
    /// reached through `tunnel`, and the project's servers start as a headless run's do
    /// (no one is there to approve them; `disabledMcpjsonServers` and the managed lists
    /// still hold).
    pub fn mcp_through(
        mut self,
        options: &'a crate::Options,
        tunnel: rein_mcp::TunnelHandle,
        sdk: Vec<String>,
    ) -> Self {
        self.mcp = Some(McpStart { options, tunnel: Some((tunnel, sdk)) });
        self
    }

    /// The sandbox's network proxy asks the approver about a host no rule names (a
    /// person is there to answer; without this such a host is refused).
    pub fn network_questions(self) -> Self {
        if let (Ok(Some(sandbox)), Some(approver)) = (&self.sandbox, &self.approver) {
            sandbox.set_asker(crate::sandbox::asker(approver.clone()));
        }
        self
    }

    /// The live session.
    pub fn build(self) -> crate::Result<crate::Session> {
        let Builder { setup, policy, model, mut approver, prompt_tool, mcp, sandbox, notices: _ } = self;
        let sandbox = sandbox?;
        let sandbox_active = sandbox.as_ref().is_some_and(|s| s.is_active());
        let model = match model {
            Some(m) => m,
            None => setup.anthropic_model()?,
        };
        // The session's tools, made once, here.
        let tools = setup.tools(sandbox)?;
        let started = match mcp {
            None => None,
            Some(McpStart { options, tunnel: None }) => {
                crate::mcp::start(options, setup, &tools, &setup.mcp_policy, None, &[])?
            }
            Some(McpStart { options, tunnel: Some((tunnel, sdk)) }) => {
                let mut headless = setup.mcp_policy.clone();
                headless.interactive = false;
                crate::mcp::start(options, setup, &tools, &headless, Some(tunnel), &sdk)?
            }
        };
        let (registry, servers) = match started {
            Some(s) => (s.registry, Some(s.servers)),
            None => (Arc::new(tools), None),
        };
        if let Some(tool) = &prompt_tool {
            approver = Some(crate::prompt_tool::approver(tool, setup, registry.clone())?);
        }
        setup.show_to_claude_code();
        // Old sessions' checkpoints and spilled results go (`cleanupPeriodDays`).
        rein_checkpoint::prune_daily(
            &setup.env.rein_home.join("sessions"),
            setup.prefs.cleanup_days,
            &setup.session_id,
        );
        let transcript = setup.transcript.clone().unwrap_or_else(|| setup.session_dir.join("transcript.jsonl"));
        let live = Arc::new(crate::Live::new(setup.session_id.clone(), transcript, policy.clone()));
        let mut engine = engine(setup, &registry, model.clone(), policy, approver, live.clone())?;
        engine.set_setup_trigger(setup.setup_trigger.clone());
        let parts = crate::Parts {
            commands: setup.commands.clone(),
            mcp: servers,
            project_dir: setup.cwd.clone(),
            rein_home: setup.transcript.is_some().then(|| setup.env.rein_home.clone()),
            memory: setup.memory.clone(),
            config: crate::config_watch::ConfigWatch::new(&setup.config_files),
            titles: (model, small_model(setup)),
            aliases: setup.env.aliases.clone(),
            default_model: crate::resolve_model(&setup.env, None, None),
            sandbox_active,
        };
        Ok(crate::Session::new(engine, live, parts))
    }
}

fn engine(
    setup: &Setup,
    registry: &rein_tools::Registry,
    model: Arc<dyn Model>,
    policy: SharedPolicy,
    approver: Option<Arc<dyn Approver>>,
    live: Arc<crate::Live>,
) -> crate::Result<Engine> {
    let env = &setup.env;
    let mut ctx = ToolContext::new(setup.cwd.clone(), setup.session_dir.clone());
    ctx.shell_dir = live.shell_dir().clone();
    ctx.workspace_roots = setup.policy.roots.clone();
    ctx.home = env.home.clone();
    // Walks (Grep, Glob) leave out what Read deny rules protect.
    ctx.read_guard = Some(setup.policy.clone());
    // What file tools change can be rewound (Esc Esc, `rein rewind`, --rewind-to).
    // `fileCheckpointingEnabled: false` keeps none.
    if setup.prefs.checkpointing {
        let store = rein_checkpoint::Checkpoints::open(&setup.session_dir.join("checkpoints"));
        ctx.checkpoints = Some(Arc::new(store.with_roots(setup.policy.roots.clone())));
    }
    // An edit's result gains what the language servers then report of the file.
    ctx.diagnostics = setup.language_servers.clone().map(|s| s as Arc<dyn rein_tools::FileDiagnostics>);
    let config = EngineConfig {
        model: setup.model.clone(),
        max_tokens: setup.max_tokens,
        max_turns: setup.max_turns,
        max_stop_continuations: env.max_stop_continuations.unwrap_or(DEFAULT_MAX_STOP_CONTINUATIONS),
        max_tool_concurrency: env.max_tool_concurrency.unwrap_or(DEFAULT_TOOL_CONCURRENCY),
        max_retries: env.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
        retry_base: Duration::from_millis(env.retry_base_ms.unwrap_or(500)),
        idle_timeout: Duration::from_millis(env.stream_idle_timeout_ms.unwrap_or(90_000)),
        fallback_model: setup.fallback_model.clone(),
        max_budget_usd: setup.max_budget_usd,
        context: {
            let mut limits =
                ContextLimits::for_model(&setup.model, env.context_window, env.autocompact_pct.map(|p| p / 100.0));
            // `autoCompactEnabled: false` / `DISABLE_AUTO_COMPACT`: only `/compact` (and a
            // prompt too long for the window) summarises.
            if !setup.prefs.auto_compact {
                limits.autocompact_at = u64::MAX;
            }
            limits
        },
        system: setup.system.clone(),
        cache: env.prompt_cache,
        thinking: setup.thinking.clone(),
        required_tool: setup.required_tool.clone(),
        aliases: env.aliases.clone(),
        nested_memory: Some(Arc::new(
            rein_prompt::nested_memory::NestedMemory::new(
                &setup.cwd,
                env.home.as_deref(),
                &[setup.memory_excludes.as_slice(), &setup.nested_excludes].concat(),
                &setup.memory.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
            )
            .with_skills(&setup.skills),
        )),
        small_model: Some(small_model(setup)),
        workflow_keyword: setup.workflows_enabled && setup.workflow_keyword,
        subagent_servers: Some(rein_engine::SharedSubagentServers(Arc::new(crate::mcp::SessionSubagentServers::new(
            setup,
        )))),
    };
    let mut gate = Gate::new(policy);
    // The small fast model: auto mode's judge and prompt hooks, on the session's provider.
    let judge_model = small_model(setup);
    let mut registry = registry.clone();
    // Many MCP tools: most definitions are deferred and loaded on demand (ToolSearch).
    let search = rein_engine::SharedSearch::default();
    if let Err(e) = registry.register(rein_engine::ToolSearch { state: search.clone() }) {
        tracing::warn!(error = %e, "a tool was not registered");
    }
    let registry = Arc::new(registry);
    gate.hooks = setup.hooks.as_ref().map(|h| {
        let mut hooks = (**h).clone();
        hooks.prompt_judge =
            Some(Arc::new(rein_judge::PromptHookJudge { model: model.clone(), model_name: judge_model.clone() }));
        hooks.tools = Some(Arc::new(crate::hook_tools::SessionHookTools {
            model: model.clone(),
            model_name: judge_model.clone(),
            registry: registry.clone(),
            policy: gate.policy.clone(),
            ctx: ctx.clone(),
            config: config.clone(),
        }));
        hooks.live = Some(live.clone());
        Arc::new(hooks)
    });
    gate.approver = approver;
    let timeout = Duration::from_millis(env.judge_timeout_ms.unwrap_or(15_000));
    gate.judge = Some(Arc::new(rein_judge::ModelJudge::new(model.clone(), judge_model, timeout)));
    let mode = rein_engine::ToolSearchMode::parse(crate::env::Env::lookup("ENABLE_TOOL_SEARCH").as_deref());
    let mut engine = Engine::new(model, registry, gate, ctx, config).with_tool_search(search, mode);
    if !setup.history.is_empty() {
        engine =
            engine.with_history_deferred(setup.history.clone(), &setup.history_deferred).context("cannot resume")?;
    }
    if let Some(path) = &setup.transcript {
        let fresh = !path.exists();
        match Transcript::open(path, &setup.session_id, &setup.cwd, setup.history_last.clone()) {
            Ok(mut t) => {
                // A forked session starts its own file with the history it continues.
                if fresh && !setup.history.is_empty() {
                    for m in engine.conversation().messages() {
                        let _ = t.message(m);
                    }
                }
                engine = engine.with_transcript(t);
            }
            Err(e) => tracing::warn!(error = %e, "no transcript"),
        }
    }
    Ok(engine)
}

/// The small fast model of the session's provider: `ANTHROPIC_SMALL_FAST_MODEL`, else the
/// model table's small model on the Messages API, else the session's own model. It judges
/// calls in auto mode, answers prompt hooks and names sessions.
pub fn small_model(setup: &Setup) -> String {
    match setup.provider {
        crate::provider::Provider::Anthropic => crate::env::Env::small_fast_model(),
        _ => crate::env::Env::lookup("ANTHROPIC_SMALL_FAST_MODEL").unwrap_or_else(|| setup.model.clone()),
    }
}
