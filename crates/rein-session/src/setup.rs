//! Resolving the options, the environment and every settings scope once into what a
//! session is built from ([`Setup`]): model, limits, provider, prompt, tools, policy,
//! hooks, sandbox, the transcript it opens or resumes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Context, invalid};
use rein_hooks::{HookConfig, Hooks, Session as HookSession};
use rein_model::Model;
use rein_policy::Policy;
use rein_protocol::Message;

use crate::Options;
use crate::env::Env;

/// Everything a session needs before it talks to a model.
pub struct Setup {
    pub cwd: PathBuf,
    pub session_id: String,
    pub model: String,
    /// The settings' `availableModels` (empty: any).
    pub available_models: Vec<String>,
    pub max_turns: Option<u32>,
    pub max_tokens: u32,
    pub(crate) system: rein_model::System,
    /// Thinking and effort as asked for by flags, environment and settings.
    pub(crate) thinking: rein_model::ThinkingChoice,
    /// The model API.
    pub(crate) provider: crate::provider::Provider,
    /// The shell's settings (timeouts, git guidance): the builder gives them to the Bash
    /// tool it makes.
    pub(crate) bash: rein_tools::BashSettings,
    /// `--json-schema`, checked: the builder registers the StructuredOutput tool with it.
    pub(crate) structured_schema: Option<serde_json::Value>,
    /// `<REIN_HOME>/sessions/<session id>`: spilled tool results.
    pub(crate) session_dir: PathBuf,
    /// Subagent definitions (`.claude/agents`, `--agents`, the built-in types).
    pub agents: Vec<rein_prompt::agents::AgentDef>,
    /// Definition files that were not taken (no front matter, a field missing), for
    /// the notices and `rein doctor`.
    pub(crate) skipped: Vec<rein_prompt::frontmatter::Skipped>,
    /// `--system-prompt` and `--append-system-prompt` as given (the Agent SDK may send
    /// them again in `initialize`).
    pub(crate) prompt_parts: (Option<String>, Option<String>),
    /// Custom slash commands (`.claude/commands`, and every skill as `/name`).
    pub commands: Vec<rein_prompt::commands::CommandDef>,
    /// Skills (`.claude/skills/*/SKILL.md`).
    pub skills: Vec<rein_prompt::skills::SkillDef>,
    /// Named workflow scripts (`.claude/workflows/*.js`, plugins' `workflows/`).
    pub(crate) workflows: Vec<rein_prompt::workflows::WorkflowDef>,
    /// The Workflow tool is offered (`disableWorkflows` and
    /// `CLAUDE_CODE_DISABLE_WORKFLOWS` turn it off).
    pub(crate) workflows_enabled: bool,
    /// `workflowKeywordTriggerEnabled` (default on): `ultracode` in a prompt asks for a
    /// workflow.
    pub(crate) workflow_keyword: bool,
    /// `workflowSizeGuideline`: how many agents a workflow the model writes should use.
    pub(crate) workflow_size: Option<String>,
    /// The `statusLine` setting's command.
    pub status_line: Option<String>,
    /// The settings files read, with their scope, for `/config`.
    pub settings_files: Vec<String>,
    /// Every scope's settings file, read or not: watched for changes (ConfigChange).
    pub(crate) config_files: Vec<(rein_settings::Scope, PathBuf)>,
    /// The memory files in the system prompt (path and kind), for `/memory`.
    pub memory: Vec<(PathBuf, &'static str)>,
    /// `claudeMdExcludes`: globs of memory files left out.
    pub(crate) memory_excludes: Vec<String>,
    /// Globs of subfolders' memory files (read late) of the sources left out.
    pub(crate) nested_excludes: Vec<String>,
    /// The output style in use (`None`: the default) and every style installed.
    pub output_style: Option<rein_prompt::output_styles::OutputStyle>,
    pub output_styles: Vec<rein_prompt::output_styles::OutputStyle>,
    pub env: Env,
    pub policy: Arc<Policy>,
    /// The environment's facts for the system prompt (git state, mode, models).
    pub(crate) facts: Vec<String>,
    /// Configured hooks; `None` when there are none.
    pub hooks: Option<Arc<Hooks>>,
    /// Where the transcript is written (`None`: --no-session-persistence).
    pub transcript: Option<PathBuf>,
    /// The conversation being resumed, if any, and the uuid of its last line.
    pub(crate) history: Vec<Message>,
    pub(crate) history_last: Option<String>,
    /// Calls a hook deferred in the resumed session.
    pub(crate) history_deferred: Vec<String>,
    pub(crate) fallback_model: Option<String>,
    pub max_budget_usd: Option<f64>,
    /// The settings' `apiKeyHelper`.
    pub(crate) key_helper: Option<String>,
    /// The OS sandbox's configuration (the builder makes the sandbox from it); `None`
    /// for a session made without the settings (the demo's).
    pub(crate) sandbox_config: Option<rein_sandbox::SandboxConfig>,
    /// `disabledMcpjsonServers` from the settings.
    pub(crate) disabled_mcpjson: Vec<String>,
    /// Which MCP servers may start (managed lists, project approvals).
    pub mcp_policy: rein_mcp::policy::ServerPolicy,
    /// The plugins in use, and what of them could not be loaded.
    pub plugins: Vec<rein_plugins::Plugin>,
    pub plugin_problems: Vec<String>,
    /// The plugins' and the settings' language servers (started on first use).
    pub language_servers: Option<rein_lsp::SharedServers>,
    /// `--rewind-to UUID`: go back to before that prompt when the session opens.
    pub rewind_to: Option<String>,
    /// `--init` / `--maintenance`: the Setup hooks' trigger, run before SessionStart.
    pub(crate) setup_trigger: Option<String>,
    /// `--json-schema`: the tool the model must call, and where its answer lands.
    pub(crate) required_tool: Option<String>,
    pub structured_output: Option<Arc<std::sync::Mutex<Option<serde_json::Value>>>>,
    /// Messages for the person, collected while the session was put together (the
    /// frontend prints them, each after `rein: `).
    pub notices: Vec<String>,
    /// The session's own variables (its settings' `env`, `--betas`): laid over the
    /// process's environment when the session is built, never set in it.
    pub(crate) session_vars: Vec<(String, String)>,
    /// Compaction, attribution, the `@` picker, the output style.
    pub prefs: crate::preferences::Preferences,
}

impl Setup {
    pub fn from_options(opts: &Options) -> crate::Result<Setup> {
        let cwd = match &opts.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the working directory")?,
        };
        // How rules name the tools (the tools themselves are made by the builder).
        let kinds = crate::builtin::builtin_kinds()?;
        // Where the user's own configuration lives is read before the settings' `env`
        // applies: a project must not move `~` (and pass its own files off as the user's).
        let before = opts.env();
        let home = before.home.clone();
        let (settings, mut policy) = crate::rules::load(opts, &cwd, home.as_deref(), kinds)?;
        let git_guidance = settings.scalar("/includeGitInstructions").and_then(|(v, _)| v.as_bool()) != Some(false);
        // Read before the settings' `env` applies: a repository's settings cannot say it.
        policy.container = before.container;
        // The persistent memory: its files are read and written without asking.
        policy.memory_dir =
            if opts.bare || opts.safe_mode { None } else { crate::auto_memory::memory_dir(&settings, &before, &cwd) };
        // The settings' `env` first: the tools' limits (BASH_DEFAULT_TIMEOUT_MS) may be there.
        // In safe mode only the organisation's `env` (the person's and the project's are
        // customisations too).
        let (session_vars, mut notices) =
            crate::env::session_vars(&crate::safe_mode::customisations(opts, &settings), &opts.betas);
        notices.extend(policy.ignored.iter().map(|i| format!("warning: ignored {i}")));
        let after = opts.env.clone().unwrap_or_else(|| crate::env::Env::read_with(&session_vars));
        let (default_timeout_ms, max_timeout_ms) = after.bash_timeouts;
        let bash = rein_tools::BashSettings { default_timeout_ms, max_timeout_ms, git_guidance };
        // The sandbox as configured; the builder makes it (and looks at the host).
        let sandbox_config = crate::sandbox::config(opts, &settings, &cwd, home.as_deref());
        let from_settings = settings.scalar("/model").and_then(|(v, _)| v.as_str().map(str::to_string));
        let model = resolve_model(&after, opts.model.as_deref(), from_settings.as_deref());
        // `availableModels`: a model chosen (by flag or settings) must be one of them.
        let available: Vec<String> = settings.strings("/availableModels").into_iter().map(|(m, _)| m).collect();
        if !available.is_empty() && (opts.model.is_some() || from_settings.is_some()) {
            let allowed = available.iter().any(|a| *a == model || resolve_model(&after, Some(a), None) == model);
            if !allowed {
                invalid!("the model {model} is not one the settings' availableModels allow ({})", available.join(", "));
            }
        }
        // `--safe-mode`: only the organisation's customisations (hooks, status line, plugins).
        let custom = crate::safe_mode::customisations(opts, &settings);
        let mut hooks = HookConfig::from_settings(&custom)?;
        // Fail closed: a hook's `if` rule that does not parse stops rein, as rules do.
        for (rule, origin) in &hooks.if_rules {
            policy.parse_rule(rule, origin)?;
        }
        let structured_output = match &opts.json_schema {
            Some(text) => {
                let schema: serde_json::Value =
                    serde_json::from_str(text).with_context(|| "--json-schema is not a JSON object".to_string())?;
                if !schema.is_object() {
                    invalid!("--json-schema must be a JSON Schema object");
                }
                jsonschema::validator_for(&schema).context("--json-schema")?;
                Some((schema, Arc::new(std::sync::Mutex::new(None))))
            }
            None => None,
        };
        let mut env = after;
        (env.home, env.claude_config_dir, env.rein_home) = (before.home, before.claude_config_dir, before.rein_home);
        let mut setup = Setup::with_env(cwd, opts, env, model, policy)?;
        setup.available_models = available;
        setup.session_vars = session_vars;
        setup.bash = bash;
        setup.prefs = crate::preferences::Preferences::from_settings(&settings, &setup.env);
        setup.memory_excludes = settings.strings("/claudeMdExcludes").into_iter().map(|(s, _)| s).collect();
        let wanted = crate::sources::Wanted::new(opts.sources(), &setup.cwd, setup.env.home.as_deref());
        setup.memory_excludes.extend(wanted.memory_excludes());
        setup.nested_excludes = wanted.nested_excludes();
        crate::plugins::add(&mut setup, &custom, &mut hooks, &opts.plugin_dirs, &mut notices);
        crate::language_servers::add(&mut setup, &custom, opts, &mut notices);
        let (styles, skipped_styles) =
            rein_prompt::output_styles::load_output_styles_with_skipped(&setup.cwd, setup.env.home.as_deref());
        setup.output_styles = styles;
        setup.skipped.extend(skipped_styles);
        let styles = crate::sources::Wanted::new(
            opts.definition_sources_with(&setup.env),
            &setup.cwd,
            setup.env.home.as_deref(),
        );
        setup.output_styles.retain(|s| s.source == "built in" || styles.keeps(Path::new(&s.source)));
        setup.output_styles.extend(crate::plugins::output_styles(&setup.plugins));
        let wanted = setup.prefs.output_style.clone();
        match rein_prompt::output_styles::find_style(&setup.output_styles, &wanted) {
            Some(style) if style.prompt.is_empty() => {}
            Some(style) => setup.output_style = Some(style.clone()),
            None => notices.push(format!("the output style {wanted:?} is not installed; using the default")),
        }
        if setup.memory_excludes.is_empty() && setup.output_style.is_none() {
            setup.append_preferences();
        } else {
            let (replace, append) = setup.prompt_parts.clone();
            setup.set_system_prompt(replace, append);
        }
        if setup.fallback_model.is_none() {
            // A name, or (Claude Code's newer form) the ordered list: its first.
            setup.fallback_model = settings
                .scalar("/fallbackModel")
                .and_then(|(v, _)| v.as_str().or_else(|| v.get(0)?.as_str()))
                .map(|m| resolve_model(&setup.env, Some(m), None));
        }
        notices.extend(setup.skipped.iter().map(|s| s.to_string()));
        notices.extend(hooks.warnings.drain(..).map(|w| format!("warning: {w}")));
        notices.extend(crate::doctor::ignored_keys(&settings));
        setup.notices = notices;
        if let Some((schema, slot)) = structured_output {
            setup.required_tool = Some(rein_tools::STRUCTURED_OUTPUT.to_string());
            setup.structured_schema = Some(schema);
            setup.structured_output = Some(slot);
        }
        if let Some(uuid) = &opts.rewind_to {
            if opts.resume.is_none() && !opts.continue_session {
                invalid!("--rewind-to needs the session: add --resume ID or --continue");
            }
            setup.rewind_to = Some(uuid.clone());
        }
        if let Some(json) = &opts.agents {
            let value: serde_json::Value = serde_json::from_str(json).context("--agents is not JSON")?;
            setup.add_agents(&value);
        }
        setup.sandbox_config = Some(sandbox_config);
        setup.disabled_mcpjson = settings.strings("/disabledMcpjsonServers").into_iter().map(|(s, _)| s).collect();
        setup.mcp_policy = rein_mcp::policy::ServerPolicy::from_settings(&settings, !opts.print);
        setup.open_session(opts)?;
        // `disableWorkflows` from any scope (a tightening), or the variable.
        let workflows_off =
            settings.files.iter().any(|f| f.get("/disableWorkflows").and_then(|v| v.as_bool()) == Some(true));
        setup.workflows_enabled = !workflows_off && !setup.env.workflows_off;
        setup.workflow_keyword =
            settings.scalar("/workflowKeywordTriggerEnabled").and_then(|(v, _)| v.as_bool()) != Some(false);
        setup.workflow_size = settings
            .scalar("/workflowSizeGuideline")
            .and_then(|(v, _)| v.as_str().map(str::to_string))
            .filter(|s| s != "unrestricted");
        // A workflow whose file a Read deny rule holds is not offered (its name and
        // description would be read into the prompt).
        let policy = setup.policy.clone();
        setup.workflows.retain(|w| {
            use std::os::unix::fs::MetadataExt as _;
            let ino = std::fs::metadata(&w.path).ok().map(|m| m.ino());
            !rein_tools::ReadGuard::denies(&*policy, &w.path, ino)
        });
        if setup.workflows_enabled {
            let taken: std::collections::HashSet<String> = setup.commands.iter().map(|c| c.name.clone()).collect();
            let commands: Vec<_> = setup
                .workflows
                .iter()
                .filter(|w| !taken.contains(&w.name))
                .map(rein_prompt::workflows::workflow_command)
                .collect();
            setup.commands.extend(commands);
        }
        setup.thinking.always = settings.scalar("/alwaysThinkingEnabled").and_then(|(v, _)| v.as_bool());
        if setup.thinking.effort.is_none() {
            setup.thinking.effort =
                settings.scalar("/effortLevel").and_then(|(v, _)| v.as_str().and_then(rein_model::Effort::parse));
        }
        let provider_setting = settings.scalar("/provider").and_then(|(v, _)| v.as_str().map(str::to_string));
        setup.provider =
            crate::provider::Provider::choose(opts.provider, provider_setting.as_deref(), &setup.session_vars)?;
        setup.key_helper = custom.scalar("/apiKeyHelper").and_then(|(v, _)| v.as_str().map(str::to_string));
        setup.settings_files = settings.files.iter().map(|f| format!("{}: {}", f.scope.name(), f.origin())).collect();
        setup.config_files = crate::rules::locations(opts, &setup.cwd, setup.env.home.as_deref()).files();
        setup.status_line = custom
            .scalar("/statusLine")
            .and_then(|(v, _)| v.get("command").and_then(|c| c.as_str()).map(str::to_string));
        // Subagents' and skills' own hooks run on the session's hooks too.
        let defined = setup.agents.iter().any(|a| a.hooks.is_some()) || setup.skills.iter().any(|s| s.hooks.is_some());
        if !hooks.is_empty() || (defined && hooks.definitions_allowed) {
            setup.hooks = Some(Arc::new(Hooks::new(hooks, setup.hook_session())));
        }
        Ok(setup)
    }

    pub fn new(cwd: PathBuf, opts: &Options, model: String, policy: Policy) -> crate::Result<Setup> {
        Setup::with_env(cwd, opts, opts.env(), model, policy)
    }

    fn with_env(
        cwd: PathBuf,
        opts: &Options,
        env: crate::env::Env,
        model: String,
        policy: Policy,
    ) -> crate::Result<Setup> {
        let fallback_model = opts.fallback_model.as_deref().map(|m| resolve_model(&env, Some(m), None));
        let home = env.home.clone();
        let crate::definitions::Definitions { mut agents, mut commands, mut skills, mut workflows, mut skipped } =
            crate::definitions::Definitions::load(&cwd, home.as_deref());
        // The sources the session reads (`--setting-sources`): definitions from a source
        // left out are not offered.
        let wanted = crate::sources::Wanted::new(opts.definition_sources_with(&env), &cwd, home.as_deref());
        agents.retain(|a| wanted.keeps(&a.path));
        commands.retain(|c| wanted.keeps(&c.path));
        skills.retain(|s| wanted.keeps(&s.dir));
        workflows.retain(|w| wanted.keeps(&w.path));
        // A project's definition that is a link to a file outside the project is not
        // read (it would hand the model whatever it points at: a key, a credential).
        let mut outside = |p: &Path| {
            let inside = wanted.stays_inside(p);
            if !inside {
                skipped.push(rein_prompt::frontmatter::Skipped {
                    path: p.to_path_buf(),
                    line: 1,
                    reason: "a link to a file outside the project".into(),
                });
            }
            inside
        };
        agents.retain(|a| outside(&a.path));
        commands.retain(|c| outside(&c.path));
        skills.retain(|s| outside(&s.dir) && outside(&s.dir.join("SKILL.md")));
        workflows.retain(|w| outside(&w.path));
        let read = |p: &Option<PathBuf>| -> crate::Result<Option<String>> {
            p.as_ref()
                .map(|p| std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display())))
                .transpose()
        };
        let replace = match read(&opts.system_prompt_file)? {
            Some(text) => Some(text),
            None => opts.system_prompt.clone(),
        };
        let append = match (read(&opts.append_system_prompt_file)?, &opts.append_system_prompt) {
            (Some(a), Some(b)) => Some(format!("{b}\n\n{a}")),
            (a, b) => a.or(b.clone()),
        };
        // The persistent memory and the environment's facts are in the prompt from the
        // start: it is built once, unless excluded memory or a style reshape it later.
        let facts = crate::setup_prompt::environment_facts(&cwd, policy.mode.name(), &env.aliases);
        let shape = crate::setup_prompt::PromptShape::new(&policy, facts.clone());
        let prompt = crate::setup_prompt::system_prompt(
            &cwd,
            home.as_deref(),
            &model,
            (replace.clone(), append.clone()),
            &shape,
        );
        let session_id = uuid::Uuid::new_v4().to_string();
        let max_thinking_tokens = env.max_thinking_tokens;
        let session_dir = env.rein_home.join("sessions").join(&session_id);
        let mut policy = policy;
        policy.saved_outputs = Some(session_dir.join("tool-results"));
        let max_tokens = env.max_output_tokens.unwrap_or_else(|| rein_model::model_info(&model).max_output_tokens);
        Ok(Setup {
            facts,
            // The texts as given, files read: a rebuild keeps them.
            prompt_parts: (replace, append),
            cwd,
            session_id,
            model,
            max_turns: opts.max_turns,
            max_tokens,
            memory: prompt.1,
            memory_excludes: Vec::new(),
            nested_excludes: Vec::new(),
            output_style: None,
            output_styles: Vec::new(),
            system: prompt.0,
            bash: rein_tools::BashSettings::default(),
            structured_schema: None,
            session_dir,
            agents,
            skipped,
            commands,
            skills,
            workflows,
            workflows_enabled: true,
            workflow_keyword: true,
            workflow_size: None,
            status_line: None,
            settings_files: Vec::new(),
            config_files: Vec::new(),
            env,
            policy: Arc::new(policy),
            hooks: None,
            transcript: None,
            history: Vec::new(),
            history_last: None,
            history_deferred: Vec::new(),
            fallback_model,
            max_budget_usd: opts.max_budget_usd,
            key_helper: None,
            sandbox_config: None,
            disabled_mcpjson: Vec::new(),
            mcp_policy: Default::default(),
            plugins: Vec::new(),
            plugin_problems: Vec::new(),
            language_servers: None,
            rewind_to: None,
            setup_trigger: opts.setup_trigger.clone(),
            required_tool: None,
            structured_output: None,
            notices: Vec::new(),
            available_models: Vec::new(),
            session_vars: Vec::new(),
            prefs: crate::preferences::Preferences {
                auto_compact: true,
                commit_attribution: None,
                pr_attribution: None,
                respect_gitignore: true,
                output_style: "default".into(),
                vim: false,
                language: None,
                checkpointing: true,
                cleanup_days: 30,
                theme: None,
            },
            thinking: rein_model::ThinkingChoice {
                mode: opts.thinking,
                max_thinking_tokens: opts.max_thinking_tokens.or(max_thinking_tokens),
                always: None,
                effort: opts.effort,
            },
            provider: opts.provider.unwrap_or_default(),
        })
    }

    /// Forget the last turn's structured output (a new turn starts).
    pub fn clear_structured_output(&self) {
        if let Some(slot) = &self.structured_output {
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }

    /// The facts every hook input carries.
    pub fn hook_session(&self) -> HookSession {
        HookSession {
            session_id: self.session_id.clone(),
            transcript_path: self.transcript.clone().unwrap_or_else(|| self.session_dir.join("transcript.jsonl")),
            cwd: self.cwd.clone(),
            project_dir: self.cwd.clone(),
            permission_mode: self.policy.mode.name().to_string(),
            session_dir: self.session_dir.clone(),
        }
    }

    /// The model client of the chosen provider (Anthropic: `ANTHROPIC_*` variables or
    /// the settings' `apiKeyHelper`).
    pub fn anthropic_model(&self) -> crate::Result<Arc<dyn Model>> {
        self.provider.client(self.key_helper.as_deref())
    }

    /// A variable as this session sees it, empty included (`${VAR}` in its
    /// configuration files), whether or not it is built yet.
    pub fn var(&self, name: &str) -> Option<String> {
        Env::raw_in(&self.session_vars, name)
    }

    /// The session's own variables: its settings' `env` and `--betas`.
    pub fn session_vars(&self) -> &[(String, String)] {
        &self.session_vars
    }

    /// Lays the session's own variables over the process's environment: from here on
    /// every lookup and every process rein starts sees them.
    pub(crate) fn install_vars(&self) {
        rein_process::env::install(self.session_vars.clone());
    }

    pub fn api_key_source(&self) -> &'static str {
        Env::api_key_source()
    }
}

/// `--model`, else `ANTHROPIC_MODEL`, else the settings' `model`, else the default;
/// aliases expanded.
pub fn resolve_model(env: &Env, flag: Option<&str>, from_settings: Option<&str>) -> String {
    let chosen = flag
        .map(str::to_string)
        .or_else(|| env.model.clone())
        .or_else(|| from_settings.map(str::to_string))
        .unwrap_or_else(rein_model::default_model);
    env.aliases.resolve(&chosen)
}
