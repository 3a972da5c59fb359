//! Command-line arguments, shaped like `claude`'s.

use clap::Parser;

pub(crate) use crate::formats::{InputFormat, OutputFormat};
pub(crate) use crate::subcommands::{Command, McpAction, PermissionsAction, SandboxAction};

#[derive(Debug, Clone, Parser)]
#[command(name = "rein", about = "A fast, safe coding-agent harness", long_about = None, disable_version_flag = true)]
pub(crate) struct Args {
    /// `-v`: print the Claude Code release whose protocol rein speaks (`X.Y.Z (Claude
    /// Code)`, as the Agent SDKs read it); `--version`/`-V`: rein's own version too.
    #[arg(short = 'v', long = "version", short_alias = 'V', action = clap::ArgAction::SetTrue)]
    pub version: bool,

    /// The prompt: the first message (interactive), the task (-p, --bg; read from stdin
    /// when absent).
    pub prompt: Option<String>,

    /// Print mode: run the prompt headless and print the result.
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// Output format in print mode.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// Input format: text (the prompt) or stream-json (the Agent SDK's protocol on
    /// stdin: user messages and control requests, one JSON object per line).
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,

    /// SDK mode: echo each user message taken as a `user` line with its uuid (the id
    /// `rewind_files` takes).
    #[arg(long)]
    pub replay_user_messages: bool,

    /// stream-json: also print each streaming event as a `stream_event` line.
    #[arg(long)]
    pub include_partial_messages: bool,

    /// Where questions go headless: `stdio` (a `can_use_tool` control request to the
    /// Agent SDK) or an MCP tool `mcp__server__tool`.
    #[arg(long)]
    pub permission_prompt_tool: Option<String>,

    /// The built-in tools offered: `default` (all), "" (none) or names, comma separated.
    #[arg(long)]
    pub tools: Option<String>,

    /// Replace the built-in system prompt with this file's text.
    #[arg(long)]
    pub system_prompt_file: Option<std::path::PathBuf>,

    /// Add this file's text to the end of the system prompt.
    #[arg(long)]
    pub append_system_prompt_file: Option<std::path::PathBuf>,

    /// Which settings files to read: user, project, local, comma separated ("" reads
    /// none; managed settings and --settings always apply).
    #[arg(long)]
    pub setting_sources: Option<String>,

    /// A JSON Schema the final answer must match: the model answers by calling the
    /// StructuredOutput tool, and the result carries `structured_output`.
    #[arg(long)]
    pub json_schema: Option<String>,

    /// Extra `anthropic-beta` values for the Messages API, comma separated (added to
    /// `ANTHROPIC_BETAS`).
    #[arg(long, num_args = 1..)]
    pub betas: Vec<String>,

    /// Subagents as JSON: `{"name": {"description", "prompt", "tools", "model"}}`.
    #[arg(long)]
    pub agents: Option<String>,

    /// Show every step (required for stream-json).
    #[arg(long)]
    pub verbose: bool,

    /// Model id or alias (sonnet, opus, haiku). Defaults to $ANTHROPIC_MODEL.
    #[arg(long)]
    pub model: Option<String>,

    /// Stop after this many model turns.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,

    /// Thinking: adaptive, enabled or disabled (the model's way by default).
    #[arg(long, value_parser = rein_model::ThinkingMode::parse_arg)]
    pub thinking: Option<rein_model::ThinkingMode>,

    /// Thinking budget in tokens for models that take one; 0 turns thinking off.
    #[arg(long)]
    pub max_thinking_tokens: Option<u32>,

    /// Reasoning effort for models that take it: low, medium, high, xhigh, max.
    #[arg(long, value_parser = rein_model::Effort::parse_arg)]
    pub effort: Option<rein_model::Effort>,

    /// The model API: anthropic (default), openai-chat (any OpenAI-compatible Chat
    /// Completions server), openai-responses (OPENAI_BASE_URL, OPENAI_API_KEY) or vertex
    /// (Google Vertex AI). Also $REIN_PROVIDER, $CLAUDE_CODE_USE_VERTEX and the settings
    /// key `provider`.
    #[arg(long, value_parser = rein_session::provider::Provider::parse_arg)]
    pub provider: Option<rein_session::provider::Provider>,

    /// Switch to this model after repeated overloads.
    #[arg(long)]
    pub fallback_model: Option<String>,

    /// End the session once it has cost this many US dollars.
    #[arg(long)]
    pub max_budget_usd: Option<f64>,

    /// Replace the built-in system prompt.
    #[arg(long)]
    pub system_prompt: Option<String>,

    /// Add text to the end of the system prompt.
    #[arg(long)]
    pub append_system_prompt: Option<String>,

    /// Write debug logs to stderr, permission decisions included (or set RUST_LOG).
    #[arg(long, global = true)]
    pub debug: bool,

    /// Extra settings: a JSON file or a JSON string (command-line scope).
    #[arg(long, global = true)]
    pub settings: Option<String>,

    /// Allow rules, e.g. "Bash(git status:*) Read" (comma or space separated).
    #[arg(long = "allowedTools", alias = "allowed-tools", num_args = 1.., global = true)]
    pub allowed_tools: Vec<String>,

    /// Deny rules, e.g. "Bash(rm:*)"; a bare tool name removes the tool.
    #[arg(long = "disallowedTools", alias = "disallowed-tools", num_args = 1.., global = true)]
    pub disallowed_tools: Vec<String>,

    /// default, acceptEdits, plan, dontAsk or bypassPermissions.
    #[arg(long, global = true)]
    pub permission_mode: Option<String>,

    /// The same as --permission-mode bypassPermissions (deny rules and protected paths still hold).
    #[arg(long, global = true)]
    pub dangerously_skip_permissions: bool,

    /// Work in a new git worktree (`.claude/worktrees/NAME` on branch `worktree-NAME`;
    /// a name is made up when none is given), removed at the end when nothing changed.
    #[arg(short = 'w', long, num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,

    /// Another directory the session may work in (repeatable).
    #[arg(long = "add-dir", num_args = 1.., global = true)]
    pub add_dir: Vec<std::path::PathBuf>,

    /// Resume the session with this id (interactive: without an id, pick one).
    #[arg(short = 'r', long, num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Continue the most recent session in this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,

    /// With --resume or --continue: keep the old session as it was and write a new one.
    #[arg(long)]
    pub fork_session: bool,

    /// With --resume or --continue: first go back to before this message (its uuid):
    /// the files rein's file tools changed since and the conversation.
    #[arg(long)]
    pub rewind_to: Option<String>,

    /// Use this id (a UUID) for the new session.
    #[arg(long)]
    pub session_id: Option<String>,

    /// Do not write a transcript.
    #[arg(long)]
    pub no_session_persistence: bool,

    /// The same result on every machine: no settings, memory, hooks, plugins, skills,
    /// commands, subagents or MCP servers of the person's or the project's are read
    /// (what the command line gives still is), and no persistent memory.
    #[arg(long)]
    pub bare: bool,

    /// Start with the person's and the project's customisations off (memory, rules,
    /// skills, commands, subagents, plugins, hooks, MCP servers), to see whether one of
    /// them is what misbehaves; the settings' model and permission rules still apply.
    #[arg(long)]
    pub safe_mode: bool,

    /// A low-authority session: no tool that runs programs or fetches pages unless
    /// --tools names it, only managed and --settings settings, file tools kept to the
    /// working directories, bypassPermissions refused (also CLAUDE_CODE_RESTRICTED=1).
    #[arg(long)]
    pub restricted: bool,

    /// Run the Setup hooks (trigger `init`) before the session starts.
    #[arg(long)]
    pub init: bool,

    /// Run the Setup hooks (trigger `init`) and exit.
    #[arg(long)]
    pub init_only: bool,

    /// Run the Setup hooks (trigger `maintenance`) before the session starts.
    #[arg(long)]
    pub maintenance: bool,

    /// MCP servers to load: JSON files or JSON strings, each `{"mcpServers": {…}}`.
    #[arg(long, num_args = 1..)]
    pub mcp_config: Vec<String>,

    /// Use only the servers from --mcp-config.
    #[arg(long)]
    pub strict_mcp_config: bool,

    /// A plugin folder to use for this session (repeatable), as if installed and enabled.
    #[arg(long = "plugin-dir", value_name = "DIR", global = true)]
    pub plugin_dirs: Vec<std::path::PathBuf>,

    /// Run Bash commands in the OS sandbox (the `sandbox.enabled` setting).
    #[arg(long, conflicts_with = "no_sandbox")]
    pub sandbox: bool,

    /// Run Bash commands without the OS sandbox (unless managed settings enable it).
    #[arg(long)]
    pub no_sandbox: bool,

    /// Start the session in the background and print its id (`rein agents` lists
    /// background sessions, `rein attach ID` opens one in this terminal).
    #[arg(long)]
    pub bg: bool,

    /// With --bg: the background session's name (default: the prompt's first words).
    #[arg(short = 'n', long, requires = "bg")]
    pub name: Option<String>,

    /// The record of the background session this session is (set by its host).
    #[arg(long, hide = true)]
    pub job: Option<std::path::PathBuf>,

    /// The background session starts on the prompt in its record (set by its host).
    #[arg(long, hide = true, requires = "job")]
    pub job_prompt: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Claude Code flags rein accepts and does not act on yet, with whether each takes a
/// value. Each is reported on stderr and left out, so that programs built for
/// `claude` (the Agent SDKs pass many of them) run unchanged.
const NOT_YET: &[(&str, bool)] = &[
    ("task-budget", true),
    ("resume-session-at", true),
    ("resume-drops-turn", true),
    ("plugin-dir-no-mcp", true),
    ("thinking-display", true),
    ("agent", true),
    ("debug-file", true),
    ("permission-prompts", true),
    ("channels", true),
    ("project-config-root", true),
    ("initialize-fields", true),
    ("managed-settings", true),
    ("output-style", true),
    ("include-hook-events", false),
    ("session-mirror", false),
    ("allow-dangerously-skip-permissions", false),
    ("await-initialize", false),
    ("managed-settings-in-initialize", false),
];

/// Parse the command line as `claude` does for the flags rein knows, in both
/// `--flag value` and `--flag=value` forms; a flag rein does not know is reported on
/// stderr and ignored (with its value when the Agent SDK's protocol is on, where no
/// positional prompt can follow), never a crash.
pub(crate) fn parse_lenient() -> Args {
    let argv: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let sdk = argv.windows(2).any(|w| w[0] == "--input-format" && w[1] == "stream-json")
        || argv.iter().any(|a| a == "--input-format=stream-json");
    let mut kept: Vec<String> = Vec::with_capacity(argv.len());
    let mut it = argv.into_iter().peekable();
    while let Some(arg) = it.next() {
        if arg == "--" {
            kept.push(arg);
            kept.extend(it.by_ref());
            break;
        }
        let name = arg.strip_prefix("--").map(|n| n.split_once('=').map_or(n, |(n, _)| n));
        if let Some(&(flag, valued)) = name.and_then(|n| NOT_YET.iter().find(|(f, _)| *f == n)) {
            crate::messages::note_message!("--{flag} is not supported yet; ignored");
            if valued && !arg.contains('=') {
                it.next();
            }
            continue;
        }
        kept.push(arg);
    }
    for _ in 0..64 {
        match Args::try_parse_from(&kept) {
            Ok(args) => return args,
            Err(e) if e.kind() == clap::error::ErrorKind::UnknownArgument => {
                let Some(clap::error::ContextValue::String(bad)) = e.get(clap::error::ContextKind::InvalidArg) else {
                    e.exit()
                };
                let bad = bad.clone();
                let Some(at) = kept.iter().skip(1).position(|a| *a == bad || a.starts_with(&format!("{bad}="))) else {
                    e.exit()
                };
                let at = at + 1;
                crate::messages::note_message!("unknown option {bad} ignored");
                let removed = kept.remove(at);
                let takes_next = sdk && !removed.contains('=') && kept.get(at).is_some_and(|n| !n.starts_with('-'));
                if takes_next {
                    kept.remove(at);
                }
            }
            Err(e) => e.exit(),
        }
    }
    Args::parse_from(kept)
}

impl Args {
    /// The flags that shape the session, as plain data for the session owner.
    pub(crate) fn options(&self) -> rein_session::Options {
        rein_session::Options {
            print: self.print,
            trusted_for_session: false,
            hooks_wait_for_trust: false,
            model: self.model.clone(),
            fallback_model: self.fallback_model.clone(),
            provider: self.provider,
            thinking: self.thinking,
            max_thinking_tokens: self.max_thinking_tokens,
            effort: self.effort,
            max_turns: self.max_turns,
            max_budget_usd: self.max_budget_usd,
            betas: self.betas.clone(),
            system_prompt: self.system_prompt.clone(),
            system_prompt_file: self.system_prompt_file.clone(),
            append_system_prompt: self.append_system_prompt.clone(),
            append_system_prompt_file: self.append_system_prompt_file.clone(),
            settings: self.settings.clone(),
            setting_sources: self.setting_sources.clone().or_else(|| self.bare.then(String::new)),
            bare: self.bare,
            safe_mode: self.safe_mode,
            restricted: self.restricted,
            setup_trigger: if self.maintenance {
                Some("maintenance".into())
            } else {
                (self.init || self.init_only).then(|| "init".into())
            },
            tools: self.tools.clone(),
            allowed_tools: self.allowed_tools.clone(),
            disallowed_tools: self.disallowed_tools.clone(),
            permission_mode: self.permission_mode.clone(),
            dangerously_skip_permissions: self.dangerously_skip_permissions,
            add_dir: self.add_dir.clone(),
            resume: self.resume.clone(),
            continue_session: self.continue_session,
            fork_session: self.fork_session,
            session_id: self.session_id.clone(),
            no_session_persistence: self.no_session_persistence,
            rewind_to: self.rewind_to.clone(),
            json_schema: self.json_schema.clone(),
            agents: self.agents.clone(),
            mcp_config: self.mcp_config.clone(),
            strict_mcp_config: self.strict_mcp_config,
            plugin_dirs: self.plugin_dirs.clone(),
            sandbox: self.sandbox,
            no_sandbox: self.no_sandbox,
            cwd: None,
            env: None,
        }
    }
}
