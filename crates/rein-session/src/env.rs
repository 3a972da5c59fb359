//! Every environment variable rein reads, in one place, with its default and what it
//! does. No flag has a variable of its own: `ANTHROPIC_MODEL` is read here rather than
//! through clap's `env`, because the settings' `env` block may set it after the command
//! line was parsed. The table itself ([`VARS`]) is `env_vars.rs`; the README's table of
//! variables is checked against it by a test.

use std::path::PathBuf;

pub use crate::env_vars::{VARS, Var, table};

/// The values of [`VARS`], read once (after the settings' `env` block was applied).
#[derive(Debug, Clone)]
pub struct Env {
    pub home: Option<PathBuf>,
    /// `REIN_HOME`, else `~/.rein`.
    pub rein_home: PathBuf,
    pub managed_settings_dir: PathBuf,
    pub claude_config_dir: Option<PathBuf>,
    pub model: Option<String>,
    pub max_output_tokens: Option<u32>,
    pub max_stop_continuations: Option<u32>,
    pub max_tool_concurrency: Option<usize>,
    pub max_retries: Option<u32>,
    pub retry_base_ms: Option<u64>,
    pub stream_idle_timeout_ms: Option<u64>,
    pub context_window: Option<u64>,
    pub autocompact_pct: Option<f64>,
    /// Prompt-cache breakpoints and their lifetime; `None` when caching is off.
    pub prompt_cache: Option<rein_model::CacheTtl>,
    pub max_thinking_tokens: Option<u32>,
    /// `REIN_SANDBOX_TIER`'s letter.
    pub sandbox_tier: Option<char>,
    /// `IS_SANDBOX=1`: the container is the sandbox.
    pub container: bool,
    /// `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`.
    pub auto_memory_off: bool,
    /// `CLAUDE_CODE_RESTRICTED=1`: as `--restricted`.
    pub restricted: bool,
    pub mcp_timeout_ms: Option<u64>,
    /// `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`.
    pub background_wait_ms: Option<u64>,
    pub max_mcp_output_tokens: Option<usize>,
    pub mcp_tool_timeout_ms: Option<u64>,
    pub judge_timeout_ms: Option<u64>,
    /// `REIN_MAX_BACKGROUND_AGENTS`.
    pub max_background_agents: Option<usize>,
    /// `REIN_MAX_BACKGROUND_SESSIONS`.
    pub max_background_sessions: Option<usize>,
    /// `CLAUDE_CODE_SUBAGENT_MODEL`.
    pub subagent_model: Option<String>,
    /// `CLAUDE_CODE_DISABLE_WORKFLOWS=1`.
    pub workflows_off: bool,
    /// `DISABLE_AUTO_COMPACT`.
    pub disable_auto_compact: bool,
    /// `BASH_DEFAULT_TIMEOUT_MS` and `BASH_MAX_TIMEOUT_MS`.
    pub bash_timeouts: (Option<u64>, Option<u64>),
    /// `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL`: what the aliases mean.
    pub aliases: rein_model::Aliases,
}

/// A variable's value; empty counts as unset.
fn text(name: &str) -> Option<String> {
    debug_assert!(VARS.iter().any(|v| v.name == name), "{name} is not in VARS");
    rein_process::env::value(name).filter(|v| !v.trim().is_empty())
}

/// The variables as a session will see them: `vars` (its own, not yet laid over the
/// process's environment) first.
struct Lookup<'a>(&'a [(String, String)]);

impl Lookup<'_> {
    fn text(&self, name: &str) -> Option<String> {
        match self.0.iter().find(|(k, _)| k == name) {
            Some((_, v)) => Some(v.clone()).filter(|v| !v.trim().is_empty()),
            None => text(name),
        }
    }

    /// `1`, `true` or `yes` (any case).
    fn flag(&self, name: &str) -> bool {
        self.text(name).is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        self.text(name).and_then(|v| v.trim().parse().ok())
    }
}

impl Env {
    pub fn read() -> Env {
        Env::read_with(&[])
    }

    /// The table as a session with its own variables `vars` (its settings' `env`) will
    /// read it, before they are laid over the process's environment.
    pub fn read_with(vars: &[(String, String)]) -> Env {
        let lookup = Lookup(vars);
        let text = |name: &str| lookup.text(name);
        let flag = |name: &str| lookup.flag(name);
        let home = text("HOME").map(PathBuf::from);
        let rein_home = text("REIN_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.clone().unwrap_or_else(std::env::temp_dir).join(".rein"));
        Env {
            rein_home,
            managed_settings_dir: text("REIN_MANAGED_SETTINGS_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/etc/claude-code")),
            claude_config_dir: text("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            model: text("ANTHROPIC_MODEL"),
            max_output_tokens: lookup.number("CLAUDE_CODE_MAX_OUTPUT_TOKENS"),
            max_stop_continuations: lookup.number("REIN_MAX_STOP_CONTINUATIONS"),
            max_tool_concurrency: lookup
                .number("REIN_MAX_TOOL_CONCURRENCY")
                .or_else(|| lookup.number("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
            max_retries: lookup.number("REIN_MAX_RETRIES"),
            retry_base_ms: lookup.number("REIN_RETRY_BASE_MS"),
            stream_idle_timeout_ms: lookup.number("REIN_STREAM_IDLE_TIMEOUT_MS"),
            context_window: lookup.number("REIN_CONTEXT_WINDOW"),
            autocompact_pct: lookup
                .number("REIN_AUTOCOMPACT_PCT")
                .or_else(|| lookup.number("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")),
            prompt_cache: match (flag("DISABLE_PROMPT_CACHING"), flag("ENABLE_PROMPT_CACHING_1H")) {
                (true, _) => None,
                (false, true) => Some(rein_model::CacheTtl::OneHour),
                (false, false) => Some(rein_model::CacheTtl::FiveMinutes),
            },
            max_thinking_tokens: lookup.number("MAX_THINKING_TOKENS"),
            sandbox_tier: text("REIN_SANDBOX_TIER").and_then(|t| t.trim().chars().next()),
            container: flag("IS_SANDBOX"),
            auto_memory_off: flag("CLAUDE_CODE_DISABLE_AUTO_MEMORY"),
            restricted: flag("CLAUDE_CODE_RESTRICTED"),
            mcp_timeout_ms: lookup.number("MCP_TIMEOUT"),
            background_wait_ms: lookup.number("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS"),
            max_mcp_output_tokens: lookup.number("MAX_MCP_OUTPUT_TOKENS"),
            mcp_tool_timeout_ms: lookup.number("MCP_TOOL_TIMEOUT"),
            judge_timeout_ms: lookup.number("REIN_JUDGE_TIMEOUT_MS"),
            max_background_agents: lookup.number("REIN_MAX_BACKGROUND_AGENTS"),
            max_background_sessions: lookup.number("REIN_MAX_BACKGROUND_SESSIONS"),
            subagent_model: text("CLAUDE_CODE_SUBAGENT_MODEL"),
            workflows_off: flag("CLAUDE_CODE_DISABLE_WORKFLOWS"),
            disable_auto_compact: flag("DISABLE_AUTO_COMPACT"),
            bash_timeouts: (lookup.number("BASH_DEFAULT_TIMEOUT_MS"), lookup.number("BASH_MAX_TIMEOUT_MS")),
            aliases: rein_model::Aliases::from_vars(text),
            home,
        }
    }

    /// A variable as a session with its own variables `vars` will see it (empty counts
    /// as unset), before they are laid over the process's environment.
    pub fn lookup_in(vars: &[(String, String)], name: &str) -> Option<String> {
        Lookup(vars).text(name)
    }

    /// As [`Env::raw`], for a session with its own variables `vars`.
    pub fn raw_in(vars: &[(String, String)], name: &str) -> Option<String> {
        vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).or_else(|| Env::raw(name))
    }

    /// Whether a key or token for the Anthropic API is set.
    pub fn api_key_source() -> &'static str {
        if text("ANTHROPIC_API_KEY").is_some() {
            "ANTHROPIC_API_KEY"
        } else if text("ANTHROPIC_AUTH_TOKEN").is_some() {
            "ANTHROPIC_AUTH_TOKEN"
        } else {
            "none"
        }
    }

    /// The small fast model (the auto-mode judge's).
    pub fn small_fast_model() -> String {
        rein_model::small_fast_model(text)
    }

    /// The variables whose names start with `prefix` (a `PREFIX*` row of [`VARS`]), set
    /// and not empty.
    pub fn prefixed(prefix: &str) -> Vec<(String, String)> {
        debug_assert!(VARS.iter().any(|v| v.name.strip_suffix('*') == Some(prefix)), "{prefix}* is not in VARS");
        rein_process::env::with_prefix(prefix).into_iter().filter(|(_, v)| !v.trim().is_empty()).collect()
    }

    /// The lookup the model client reads its variables through.
    pub fn lookup(name: &str) -> Option<String> {
        text(name)
    }

    /// A variable as it is set, empty included: what `${VAR}` in a configuration file
    /// expands to (`${VAR:-default}` tells unset from empty).
    pub fn raw(name: &str) -> Option<String> {
        rein_process::env::value(name)
    }
}

/// Variables the settings' `env` may not set (`REIN_SDK_TRY_FIRST` is the program's
/// to give: a folder must not take its questions from it).
const PROCESS_ONLY: [&str; 6] =
    ["IS_SANDBOX", "HOME", "CLAUDE_CONFIG_DIR", "REIN_HOME", "REIN_MANAGED_SETTINGS_DIR", "REIN_SDK_TRY_FIRST"];

/// Variables of [`VARS`] that loosen a wall, with the wall: the person's own settings
/// (user, managed, command line) may set them in `env`, the repository's (project,
/// local) may not, unless the person trusts the project (`sandbox.trustProjectSettings`).
/// Every other variable of [`VARS`] loosens none (a test holds each name to the table).
pub const LOOSENING: &[(&str, &str)] = &[
    ("REIN_SANDBOX_TIER", "a lower tier weakens or switches off the sandbox"),
    ("ANTHROPIC_BASE_URL", "the API key and the conversation would go to the host it names"),
    ("ANTHROPIC_BEDROCK_BASE_URL", "the AWS credentials and the conversation would go to the host it names"),
    ("ANTHROPIC_VERTEX_BASE_URL", "the Google token and the conversation would go to the host it names"),
    ("OPENAI_BASE_URL", "the OpenAI key and the conversation would go to the host it names"),
    ("ANTHROPIC_CUSTOM_HEADERS", "headers of the repository's choosing on every authenticated request"),
    ("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "requests go unsigned, to whatever gateway is configured"),
    ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "requests go without a token, to whatever gateway is configured"),
];

/// Variables rein does not read itself but its own process and every process it starts
/// do — where its requests go, whose certificates it trusts, what code a shell or a
/// program loads before it runs — with the wall each would loosen: as [`LOOSENING`], the
/// repository's settings may not set them. A trailing `*` is a prefix.
pub const LOOSENING_PROCESS: &[(&str, &str)] = &[
    ("HTTPS_PROXY", "rein's requests, the key with them, would go through the host it names"),
    ("https_proxy", "rein's requests, the key with them, would go through the host it names"),
    ("HTTP_PROXY", "rein's requests would go through the host it names"),
    ("http_proxy", "rein's requests would go through the host it names"),
    ("ALL_PROXY", "rein's requests would go through the host it names"),
    ("all_proxy", "rein's requests would go through the host it names"),
    ("SSL_CERT_FILE", "rein would trust certificates of the repository's choosing"),
    ("SSL_CERT_DIR", "rein would trust certificates of the repository's choosing"),
    ("BASH_ENV", "every bash rein starts would first run the file it names"),
    ("ENV", "every sh rein starts would first run the file it names"),
    ("LD_*", "every program rein starts would load the library it names"),
    ("GIT_*", "every git rein and its commands run would read the configuration, hooks or programs it names"),
    ("NODE_OPTIONS", "every node program (MCP servers, hooks) would load the code it names"),
    ("PYTHONSTARTUP", "Python would run the file it names"),
    ("PYTHONPATH", "every Python program rein starts would import modules from where it says"),
    ("PERL5OPT", "every perl would load the module it names"),
    ("RUBYOPT", "every ruby would load the code it names"),
    ("PROMPT_COMMAND", "a shell would run it"),
    ("PATH", "every program rein and its commands start by name would be looked up where it says first"),
    ("XDG_CONFIG_HOME", "git, and every tool that reads the user's configuration, would read the repository's instead"),
    ("ZDOTDIR", "zsh would run the start-up files of the directory it names"),
    ("SHELLOPTS", "every bash would start with the options it lists (xtrace runs PS4)"),
    ("BASHOPTS", "every bash would start with the options it lists"),
    ("PS4", "a traced bash would run the substitutions in it"),
    ("JAVA_TOOL_OPTIONS", "every JVM would load the agents it names"),
    ("_JAVA_OPTIONS", "every JVM would load the agents it names"),
    ("JDK_JAVA_OPTIONS", "every java would load the agents it names"),
    ("PERL5LIB", "every perl would load modules from where it says"),
    ("PERLLIB", "every perl would load modules from where it says"),
    ("RUBYLIB", "every ruby would load code from where it says"),
    ("NODE_PATH", "every node program would load modules from where it says"),
    ("NODE_EXTRA_CA_CERTS", "node programs (MCP servers) would trust certificates of the repository's choosing"),
    ("REQUESTS_CA_BUNDLE", "Python programs would trust certificates of the repository's choosing"),
    ("CURL_CA_BUNDLE", "curl would trust certificates of the repository's choosing"),
    ("GCONV_PATH", "glibc would load the conversion modules it names"),
    ("PYTHONHOME", "Python would run its standard library from where it says"),
    ("PYTHONUSERBASE", "Python would load site packages from where it says"),
    ("CARGO_*", "cargo would take runners, wrappers and its home from it"),
    ("RUSTC_WRAPPER", "every rustc would run through the program it names"),
    ("RUSTUP_HOME", "rustup would run toolchains from where it says"),
    ("GOFLAGS", "every go command would take the flags it lists (-toolexec runs a program)"),
    ("npm_config_*", "npm would take its settings from it (script-shell, node-options)"),
    ("NPM_CONFIG_*", "npm would take its settings from it (script-shell, node-options)"),
    ("PIP_*", "pip would take its index and settings from it"),
    ("UV_*", "uv would take its index and settings from it"),
    ("YARN_*", "yarn would take its settings from it (yarnPath, plugins)"),
    ("TMPDIR", "rein's and the sandbox's private folders would go where it says (into the workspace)"),
    ("TMP", "programs' temporary files would go where it says"),
    ("TEMP", "programs' temporary files would go where it says"),
    ("NO_PROXY", "rein's requests would skip the person's proxy for the hosts it names"),
    ("no_proxy", "rein's requests would skip the person's proxy for the hosts it names"),
    ("AWS_*", "the AWS credential chain would read the files, run the programs or use the keys it names"),
    ("GOOGLE_*", "the Google credential chain would read the files it names"),
    ("CLOUDSDK_*", "gcloud would take its configuration and account from it"),
    ("VISUAL", "the editor rein opens (Ctrl+G, /memory) would be the command it names"),
    ("EDITOR", "the editor rein opens (Ctrl+G, /memory) would be the command it names"),
    ("BROWSER", "an MCP sign-in would run the command it names"),
];

/// What a repository's settings may set although a row above would cover it: the AWS
/// region (checked to be a region's name before it goes into a host name).
const REPOSITORY_MAY_SET: [&str; 2] = ["AWS_REGION", "AWS_DEFAULT_REGION"];

/// Why the repository's settings may not set `key` in `env`, if they may not.
pub fn loosens(key: &str) -> Option<&'static str> {
    if REPOSITORY_MAY_SET.contains(&key) {
        return None;
    }
    let matches = |name: &str| match name.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == name,
    };
    LOOSENING.iter().chain(LOOSENING_PROCESS).find(|(name, _)| matches(name)).map(|(_, why)| *why)
}

/// The environment rein started with (what `/resume` and a background session start
/// a new rein with): without the session's own variables, which the new process reads
/// from its settings again.
pub fn original_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    rein_process::env::started_with()
}

/// The session's own variables: the settings' `env` (which applies to the whole session
/// — the model client, tools, hooks, MCP servers — as in Claude Code) and `--betas`,
/// with the notices about entries set aside. Plain data: the builder lays them over
/// the process's environment ([`rein_process::env::install`]).
pub fn session_vars(settings: &rein_settings::Settings, betas: &[String]) -> (Vec<(String, String)>, Vec<String>) {
    let mut notices = Vec::new();
    let trusted = settings.trusts_project();
    // A loosening variable the repository's settings name is set aside; the person's
    // own scopes still decide it.
    let mut entries: Vec<(String, String)> = Vec::new();
    for file in &settings.files {
        let Some(map) = file.get("/env").and_then(serde_json::Value::as_object) else { continue };
        for (key, v) in map {
            if entries.iter().any(|(seen, _)| seen == key) {
                continue;
            }
            if file.scope.is_repository()
                && !trusted
                && let Some(why) = loosens(key)
            {
                notices.push(format!(
                    "warning: ignoring {key} in {}'s env: a project's settings may not set it ({why})",
                    file.origin()
                ));
                continue;
            }
            entries.push((key.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())));
        }
    }
    let mut vars = Vec::new();
    for (key, value) in entries {
        // What only rein's own environment may say: that it runs in a container, where its
        // settings and homes are. Settings cannot say it (a repository's could).
        if PROCESS_ONLY.contains(&key.as_str()) {
            notices
                .push(format!("warning: ignoring the settings env entry {key:?}: only rein's own environment sets it"));
            continue;
        }
        if key.is_empty() || key.contains(['=', '\0']) || value.contains('\0') {
            notices.push(format!("warning: ignoring the settings env entry {key:?}"));
            continue;
        }
        vars.push((key, value));
    }
    if let Some(all) = with_betas(&vars, betas) {
        vars.retain(|(k, _)| k != "ANTHROPIC_BETAS");
        vars.push(("ANTHROPIC_BETAS".to_string(), all));
    }
    (vars, notices)
}

/// `--betas`: added to `ANTHROPIC_BETAS` (the settings' or the process's), which the
/// Messages client sends as `anthropic-beta`.
fn with_betas(vars: &[(String, String)], betas: &[String]) -> Option<String> {
    if betas.is_empty() {
        return None;
    }
    let current = vars.iter().find(|(k, _)| k == "ANTHROPIC_BETAS").map(|(_, v)| v.clone());
    let mut all: Vec<String> = current
        .or_else(|| Env::lookup("ANTHROPIC_BETAS"))
        .unwrap_or_default()
        .split(',')
        .map(|b| b.trim().to_string())
        .filter(|b| !b.is_empty())
        .collect();
    for b in betas.iter().flat_map(|b| b.split([',', ' '])).map(str::trim).filter(|b| !b.is_empty()) {
        if !all.iter().any(|a| a == b) {
            all.push(b.to_string());
        }
    }
    Some(all.join(","))
}

/// Whether the program driving rein let it try shell commands first, as for a person
/// (`REIN_SDK_TRY_FIRST=1`), instead of asking the program about every call.
pub fn programs_let_rein_try_first() -> bool {
    Env::lookup("REIN_SDK_TRY_FIRST").is_some_and(|v| v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of variables is exactly [`table`] (`rein env` prints it).
    #[test]
    fn the_readme_lists_every_variable() {
        let readme = include_str!("../../../README.md");
        let expected = table();
        assert!(
            readme.contains(&expected),
            "README.md's environment table is out of date; replace it with the output of `rein env`:\n{expected}"
        );
    }

    /// Every variable with a direction is one rein reads, and none is both process-only
    /// and merely loosening.
    #[test]
    fn every_loosening_variable_is_one_rein_reads() {
        for (name, why) in LOOSENING {
            assert!(VARS.iter().any(|v| v.name == *name), "{name} is not in VARS");
            assert!(!why.is_empty() && !PROCESS_ONLY.contains(name), "{name}");
        }
        for (name, why) in LOOSENING_PROCESS {
            assert!(!why.is_empty() && !VARS.iter().any(|v| v.name == *name), "{name}");
        }
        assert!(loosens("GIT_CONFIG_COUNT").is_some() && loosens("LD_PRELOAD").is_some());
        // The cloud credential chains and the private folders: a repository may not
        // point them anywhere; it may name the AWS region.
        for key in ["TMPDIR", "AWS_CONFIG_FILE", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "GOOGLE_APPLICATION_CREDENTIALS"] {
            assert!(loosens(key).is_some(), "{key}");
        }
        assert!(loosens("AWS_REGION").is_none() && loosens("AWS_DEFAULT_REGION").is_none());
        assert!(loosens("GREETING").is_none() && loosens("DISABLE_AUTO_COMPACT").is_none());
    }
}
