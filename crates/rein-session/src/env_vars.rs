//! The table of every environment variable rein reads: its name, its default and what
//! it does (`rein env` prints it; the README's table must equal it).

/// One variable: its name, its default, and what it does.
pub struct Var {
    pub name: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
}

/// Every variable rein reads (the model client's are read by `rein-model` through the
/// lookup this binary gives it).
pub const VARS: &[Var] = &[
    Var { name: "ANTHROPIC_API_KEY", default: "", doc: "API key (`x-api-key`)" },
    Var { name: "ANTHROPIC_AUTH_TOKEN", default: "", doc: "bearer token, instead of a key" },
    Var {
        name: "ANTHROPIC_BASE_URL",
        default: "https://api.anthropic.com",
        doc: "another endpoint (a proxy, the fake server)",
    },
    Var { name: "ANTHROPIC_BETAS", default: "", doc: "comma-separated `anthropic-beta` values" },
    Var {
        name: "ANTHROPIC_SMALL_FAST_MODEL",
        default: "claude-haiku-4-5",
        doc: "the small fast model of the small-model uses (the auto-mode judge, prompt hooks, session titles, WebFetch digests, WebSearch)",
    },
    Var { name: "ANTHROPIC_MODEL", default: "claude-opus-5-5", doc: "the model, when `--model` is not given" },
    Var { name: "ANTHROPIC_DEFAULT_OPUS_MODEL", default: "claude-opus-5-5", doc: "what `opus` and `best` mean" },
    Var { name: "ANTHROPIC_DEFAULT_SONNET_MODEL", default: "claude-sonnet-5-5", doc: "what `sonnet` means" },
    Var { name: "ANTHROPIC_DEFAULT_HAIKU_MODEL", default: "claude-haiku-4-5", doc: "what `haiku` means" },
    Var { name: "ANTHROPIC_DEFAULT_FABLE_MODEL", default: "claude-fable-5-2", doc: "what `fable` means" },
    Var {
        name: "DISABLE_AUTO_COMPACT",
        default: "",
        doc: "`1` turns automatic compaction off (`/compact` still works)",
    },
    Var {
        name: "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        default: "83",
        doc: "the share of the context window (percent) at which the conversation is summarised",
    },
    Var {
        name: "BASH_DEFAULT_TIMEOUT_MS",
        default: "120000",
        doc: "a Bash command's timeout when the call gives none",
    },
    Var { name: "BASH_MAX_TIMEOUT_MS", default: "600000", doc: "the longest timeout a Bash call may ask for" },
    Var {
        name: "ANTHROPIC_CUSTOM_HEADERS",
        default: "",
        doc: "extra headers on every model request, one `Name: value` per line",
    },
    Var {
        name: "CLAUDE_CODE_DISABLE_WORKFLOWS",
        default: "",
        doc: "`1` turns the Workflow tool and the named workflows' commands off (as `disableWorkflows`)",
    },
    Var {
        name: "CLAUDE_CODE_SUBAGENT_MODEL",
        default: "",
        doc: "the model of every subagent (before the call's and the definition's `model`)",
    },
    Var {
        name: "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        default: "the model's",
        doc: "`max_tokens` of each request (128000 on the default model)",
    },
    Var {
        name: "DISABLE_PROMPT_CACHING",
        default: "",
        doc: "`1` sends no `cache_control` breakpoints (prompt caching off)",
    },
    Var {
        name: "ENABLE_PROMPT_CACHING_1H",
        default: "",
        doc: "`1` asks for the 1-hour cache lifetime instead of 5 minutes",
    },
    Var { name: "CLAUDE_CONFIG_DIR", default: "~/.claude", doc: "the user's Claude Code settings directory" },
    Var { name: "HOME", default: "", doc: "the home directory (`~`, `~/.claude`, `~/.rein`)" },
    Var {
        name: "MAX_THINKING_TOKENS",
        default: "",
        doc: "thinking budget for models that take one (`--max-thinking-tokens`); 0 turns thinking off",
    },
    Var {
        name: "MAX_MCP_OUTPUT_TOKENS",
        default: "25000",
        doc: "an MCP result larger than this is saved to a file and the model gets a preview",
    },
    Var {
        name: "REIN_MAX_BACKGROUND_SESSIONS",
        default: "16",
        doc: "how many background sessions (`rein --bg`) may run at once; past it, `--bg` refuses until one ends",
    },
    Var {
        name: "REIN_MAX_BACKGROUND_AGENTS",
        default: "8",
        doc: "how many background agents (the Agent tool's run_in_background) may run at once; past it, the call is refused until one ends",
    },
    Var {
        name: "REIN_JUDGE_TIMEOUT_MS",
        default: "15000",
        doc: "how long the auto-mode judge may take before the call counts as not judged (asked, or denied headless)",
    },
    Var {
        name: "CLAUDE_CODE_SDK_READS_SESSION_STATE",
        default: "",
        doc: "`1` (set by the Agent SDKs): SDK mode also prints `session_state_changed` frames",
    },
    Var {
        name: "ENABLE_TOOL_SEARCH",
        default: "auto",
        doc: "MCP tool definitions loaded on demand through ToolSearch: `auto` (past 10 % of the window, those beyond the first 5; `auto:N` for N %), `true` (all), `false` (never)",
    },
    Var { name: "MCP_TIMEOUT", default: "30000", doc: "how long an MCP server may take to start, in ms" },
    Var {
        name: "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS",
        default: "600000",
        doc: "headless: how long, after the model ends its turn, rein waits for background agents still running (their reports start another turn); then they are stopped",
    },
    Var {
        name: "MCP_TOOL_TIMEOUT",
        default: "100000000",
        doc: "how long an MCP tool call may take, in ms (a server's `timeout` wins)",
    },
    Var { name: "OPENAI_API_KEY", default: "", doc: "key for `--provider openai-chat` (optional for local servers)" },
    Var {
        name: "OPENAI_BASE_URL",
        default: "https://api.openai.com/v1",
        doc: "Chat Completions endpoint base (`http://localhost:11434/v1` for Ollama)",
    },
    Var { name: "REIN_PROVIDER", default: "anthropic", doc: "the model API, when `--provider` is not given" },
    Var {
        name: "CLAUDE_CODE_USE_VERTEX",
        default: "",
        doc: "`1`: Claude on Google Vertex AI (`--provider vertex`), with Application Default Credentials",
    },
    Var {
        name: "CLAUDE_CODE_USE_BEDROCK",
        default: "",
        doc: "`1`: Claude on Amazon Bedrock (`--provider bedrock`); `ANTHROPIC_MODEL` takes Bedrock model ids",
    },
    Var { name: "AWS_REGION", default: "us-east-1", doc: "the Bedrock region (else `AWS_DEFAULT_REGION`)" },
    Var { name: "AWS_DEFAULT_REGION", default: "", doc: "the Bedrock region when `AWS_REGION` is not set" },
    Var {
        name: "ANTHROPIC_BEDROCK_BASE_URL",
        default: "https://bedrock-runtime.{region}.amazonaws.com",
        doc: "the Bedrock endpoint (a gateway's URL)",
    },
    Var {
        name: "AWS_BEARER_TOKEN_BEDROCK",
        default: "",
        doc: "a Bedrock API key (`Authorization: Bearer`), else SigV4 with the `AWS_*` keys; never passed to commands, hooks or MCP servers",
    },
    Var {
        name: "AWS_ACCESS_KEY_ID",
        default: "",
        doc: "with `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`): SigV4 keys for Bedrock; without them the AWS credential chain (`AWS_PROFILE`, SSO, roles)",
    },
    Var {
        name: "AWS_PROFILE",
        default: "default",
        doc: "the `~/.aws` profile the AWS credential chain reads for Bedrock",
    },
    Var { name: "AWS_SECRET_ACCESS_KEY", default: "", doc: "the SigV4 secret key for Bedrock" },
    Var { name: "AWS_SESSION_TOKEN", default: "", doc: "the SigV4 session token for Bedrock (temporary credentials)" },
    Var {
        name: "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
        default: "",
        doc: "`1`: send Bedrock requests unsigned (a gateway in between authenticates)",
    },
    Var { name: "ANTHROPIC_VERTEX_PROJECT_ID", default: "", doc: "the Google Cloud project (Vertex AI; required)" },
    Var {
        name: "CLOUD_ML_REGION",
        default: "us-east5",
        doc: "the Vertex AI region (`global` for the global endpoint)",
    },
    Var {
        name: "VERTEX_REGION_CLAUDE_*",
        default: "",
        doc: "one model's Vertex AI region, over `CLOUD_ML_REGION`: Claude Code's names, \
              `…_4_5_SONNET`, `…_4_1_OPUS`, `…_HAIKU_4_5`",
    },
    Var {
        name: "ANTHROPIC_VERTEX_BASE_URL",
        default: "https://{region}-aiplatform.googleapis.com/v1",
        doc: "the Vertex AI endpoint, up to the version (a gateway's URL)",
    },
    Var {
        name: "CLAUDE_CODE_SKIP_VERTEX_AUTH",
        default: "",
        doc: "`1`: send no Google token (a gateway in between authenticates)",
    },
    Var { name: "REIN_HOME", default: "~/.rein", doc: "where rein keeps sessions and spilled tool results" },
    Var {
        name: "REIN_SANDBOX_TIER",
        default: "",
        doc: "use a lower sandbox tier than the best found: `B` (Landlock + seccomp) or `C` (none)",
    },
    Var {
        name: "REIN_SDK_TRY_FIRST",
        default: "",
        doc: "`1`: a program's permission callback (`can_use_tool`, `--permission-prompt-tool`) is asked only about what a shell command would change, as a person is (rein tries it first where it can change nothing); by default the program is asked about every call the rules ask about, as Claude Code asks it. Read from the process environment only, never from settings",
    },
    Var {
        name: "REIN_TUI_ANSWER_PAUSE_MS",
        default: "500",
        doc: "How long a question must be on screen, and typing must have paused, before a key answers it (typing goes to the draft; after typing at a question, an arrow turns to it first)",
    },
    Var {
        name: "CLAUDE_CODE_RESTRICTED",
        default: "",
        doc: "`1`: as `--restricted` (no shell, code-running or WebFetch tools unless `--tools` names them; only managed and `--settings` settings; file tools kept to the working directories; no bypassPermissions)",
    },
    Var {
        name: "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        default: "",
        doc: "`1`: no persistent memory this session (`~/.claude/projects/<project>/memory/` is neither read nor written)",
    },
    Var {
        name: "IS_SANDBOX",
        default: "",
        doc: "`1`: rein runs inside a container that is itself the sandbox (a Harbor trial, CI): bypassPermissions then also writes protected paths (.git, .claude, shell start-up files) without asking. Read from the process environment only, never from settings",
    },
    Var { name: "REIN_MANAGED_SETTINGS_DIR", default: "/etc/claude-code", doc: "the managed settings directory" },
    Var {
        name: "REIN_MAX_STOP_CONTINUATIONS",
        default: "8",
        doc: "consecutive Stop-hook continuations before rein stops",
    },
    Var {
        name: "REIN_MAX_TOOL_CONCURRENCY",
        default: "10",
        doc: "concurrency-safe tool calls run at once (also `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`)",
    },
    Var {
        name: "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY",
        default: "10",
        doc: "Claude Code's name for `REIN_MAX_TOOL_CONCURRENCY`",
    },
    Var { name: "REIN_MAX_RETRIES", default: "10", doc: "retries of a failed model request" },
    Var {
        name: "REIN_RETRY_BASE_MS",
        default: "500",
        doc: "the first retry's delay; each next one doubles (capped at 32 s)",
    },
    Var {
        name: "REIN_STREAM_IDLE_TIMEOUT_MS",
        default: "90000",
        doc: "a stream silent this long is abandoned and retried",
    },
    Var { name: "REIN_CONTEXT_WINDOW", default: "the model's", doc: "the context window, in tokens" },
    Var { name: "REIN_AUTOCOMPACT_PCT", default: "83", doc: "compact the conversation past this share of the window" },
    Var { name: "RUST_LOG", default: "", doc: "log filter (`--debug` logs everything, permission decisions included)" },
];

/// The README's table of variables (`rein env` prints it).
pub fn table() -> String {
    let mut out = String::from("| variable | default | meaning |\n|---|---|---|\n");
    for v in VARS {
        let default = if v.default.is_empty() { "—".to_string() } else { format!("`{}`", v.default) };
        out.push_str(&format!("| `{}` | {} | {} |\n", v.name, default, v.doc));
    }
    out
}
