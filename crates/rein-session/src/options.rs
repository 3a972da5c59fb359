//! What the command line asked of a session, as plain data (ripgrep's "low args"):
//! the frontend fills it from its flags; [`Setup::from_options`](crate::Setup) resolves
//! it once, with the environment and every settings scope, into the session.

use std::path::PathBuf;

use crate::provider::Provider;

/// The flags that shape a session (`claude -p`'s, as rein reads them).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-p`: headless (MCP servers start after the first answer).
    pub print: bool,
    /// The person trusted this folder for this session (the interactive trust question,
    /// answered yes where the answer is not recorded: the home folder).
    pub trusted_for_session: bool,
    /// A folder nobody trusted runs none of its own hooks either (`rein mcp serve`:
    /// whoever starts it may not have looked at the folder, and a hook can allow calls).
    pub hooks_wait_for_trust: bool,
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    pub provider: Option<Provider>,
    pub thinking: Option<rein_model::ThinkingMode>,
    pub max_thinking_tokens: Option<u32>,
    pub effort: Option<rein_model::Effort>,
    pub max_turns: Option<u32>,
    pub max_budget_usd: Option<f64>,
    pub betas: Vec<String>,
    pub system_prompt: Option<String>,
    pub system_prompt_file: Option<PathBuf>,
    pub append_system_prompt: Option<String>,
    pub append_system_prompt_file: Option<PathBuf>,
    /// `--settings FILE|JSON`.
    pub settings: Option<String>,
    /// `--setting-sources user,project,local`.
    pub setting_sources: Option<String>,
    pub tools: Option<String>,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    pub permission_mode: Option<String>,
    pub dangerously_skip_permissions: bool,
    pub add_dir: Vec<PathBuf>,
    pub resume: Option<String>,
    pub continue_session: bool,
    pub fork_session: bool,
    pub session_id: Option<String>,
    pub no_session_persistence: bool,
    /// `--bare`: nothing of the person's or the project's configuration is read (see
    /// `setting_sources`), and no persistent memory.
    pub bare: bool,
    /// `--safe-mode`: the person's and the project's customisations are off — memory
    /// and rules, skills, commands, subagents, output styles, plugins, hooks (but
    /// managed ones) and configured MCP servers — while settings still give the model
    /// and the permission rules.
    pub safe_mode: bool,
    /// `--restricted` (or `CLAUDE_CODE_RESTRICTED=1`): a low-authority session: no tool
    /// that runs programs or fetches pages unless `--tools` names it, only managed and
    /// `--settings` settings, the file tools kept to the working directories, and
    /// bypassPermissions refused.
    pub restricted: bool,
    /// `--init`, `--init-only` (`init`) or `--maintenance` (`maintenance`): Setup hooks
    /// run with this trigger before the session starts.
    pub setup_trigger: Option<String>,
    pub rewind_to: Option<String>,
    /// `--json-schema`: the answer must fit it.
    pub json_schema: Option<String>,
    /// `--agents JSON`.
    pub agents: Option<String>,
    pub mcp_config: Vec<String>,
    pub strict_mcp_config: bool,
    /// `--plugin-dir`: plugin folders used for this session.
    pub plugin_dirs: Vec<std::path::PathBuf>,
    pub sandbox: bool,
    pub no_sandbox: bool,
    /// The working directory (`None`: the process's). Set by embedders and in-process
    /// tests, which build several sessions in one process.
    pub cwd: Option<PathBuf>,
    /// The environment's values (`None`: read from the process's environment).
    pub env: Option<crate::env::Env>,
}

impl Options {
    /// The environment the session reads: the given one, else the process's.
    pub fn env(&self) -> crate::env::Env {
        self.env.clone().unwrap_or_else(crate::env::Env::read)
    }
}

/// Which of the person's and the project's sources a session reads
/// (`--setting-sources`, the SDK's `setting_sources`): settings, memory and rules,
/// subagents, commands, skills, output styles, MCP servers. All when not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sources {
    pub user: bool,
    pub project: bool,
    pub local: bool,
}

impl Options {
    /// `--restricted` or `CLAUDE_CODE_RESTRICTED=1`.
    pub fn is_restricted(&self) -> bool {
        self.restricted || self.env().restricted
    }

    /// The sources definitions (subagents, commands, skills, output styles) and MCP
    /// servers come from: none in safe mode or restricted (they can run programs: their
    /// hooks, their servers), else [`sources`](Self::sources).
    pub fn definition_sources(&self) -> Sources {
        self.definition_sources_with(&self.env())
    }

    /// [`definition_sources`](Self::definition_sources) with the environment as the
    /// session sees it (its settings' `env` included: `CLAUDE_CODE_RESTRICTED` there
    /// counts).
    pub fn definition_sources_with(&self, env: &crate::env::Env) -> Sources {
        if self.restricted || env.restricted {
            return Sources { user: false, project: false, local: false };
        }
        self.sources()
    }

    pub fn sources(&self) -> Sources {
        if self.safe_mode {
            return Sources { user: false, project: false, local: false };
        }
        match &self.setting_sources {
            None => Sources { user: true, project: true, local: true },
            Some(list) => {
                let has = |s: &str| list.split(',').any(|w| w.trim() == s);
                Sources { user: has("user"), project: has("project"), local: has("local") }
            }
        }
    }
}
