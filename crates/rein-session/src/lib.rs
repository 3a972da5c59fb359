//! The live session's owner, between the frontends and the engine (issue 26):
//!
//! - *options → setup*: the frontend's flags as plain data ([`Options`]), resolved once
//!   with the environment ([`env`]) and every settings scope into what a session is built
//!   from ([`Setup`]): model, thinking, limits, provider, prompt, policy, hooks, sandbox,
//!   MCP server policy, the transcript it opens or resumes. Plain data: resolving
//!   changes nothing outside it (the settings' `env` is kept as the session's own
//!   variables, not set in the process); an SDK's `initialize` and the terminal's MCP
//!   answers are [`Overrides`] applied to it before it is built;
//! - *build*: one [`Builder`] lays the session's variables over the environment and
//!   makes the session's tools once, the permission policy, the provider's model client,
//!   the MCP servers and the engine — built-in and sandboxed tools, the Agent tool, plan tools,
//!   ToolSearch, skills, MCP tools, hooks with their live facts, the judge, checkpoints,
//!   the transcript; a frontend hands in only who answers questions;
//! - *drive*: the live [`Session`] keeps the facts hooks, the status line and frontends
//!   read (the session id, which `/clear` changes; the transcript; the permission mode,
//!   which Shift+Tab, `set_permission_mode` and ExitPlanMode change; the model): a
//!   prompt (MCP prompts, custom commands with their turn-only rules and model, `@`
//!   mentions, the output of `!cmd` before it), `!cmd`, and every other request of
//!   every frontend as one serde [`Command`] answered with a typed [`Reply`]; while a
//!   turn runs a [`SessionHandle`] answers what needs no engine;
//! - *slash*: the one table of slash commands ([`slash`]) the terminal's help and menu
//!   and the SDK's command list come from;
//! - *messages*: the one door for what rein prints to the person ([`messages`]).

pub mod auto_memory;
mod branch;
pub mod build;
mod builtin;
mod command;
mod config_watch;
pub mod definitions;
pub mod doctor;
mod drive;
mod elicitor;
mod engine_tools;
pub mod env;
mod env_vars;
mod error;
pub mod export;
mod facts;
mod handle;
mod hook_tools;
mod language_servers;
mod live;
pub mod mcp;
pub mod messages;
mod options;
mod overrides;
pub mod plugins;
pub mod preferences;
pub mod prompt_tool;
pub mod provider;
mod reply;
pub mod rules;
mod safe_mode;
pub mod sandbox;
mod session_open;
mod setup;
mod setup_prompt;
pub mod slash;
mod sources;
pub mod trust;
pub mod worktree_hooks;

/// What a session tells its frontends and what they answer with: the engine's events,
/// outcomes and question types, handed on by the owner (no frontend depends on the
/// engine).
pub mod events {
    pub use rein_engine::{
        Answer, Approver, BlockType, End, EngineError, EngineEvent, Outcome, PermissionQuestion, RewindFailed,
        StreamDelta, window_of,
    };
    pub use rein_tools::AgentStep;
}

pub use build::Builder;
pub use builtin::{builtin_kinds, builtin_tool_names, builtin_tools, builtin_tools_in};
pub use command::{Command, CommandError};
pub use drive::{Input, Parts, PromptError, Session};
pub use error::SetupError;
pub use facts::Titler;
pub use handle::SessionHandle;
pub use live::Live;
pub use options::Options;
pub use overrides::{CallbackGroup, Overrides};
/// The background agents of a session ([`Session::background_agents`]), for a frontend
/// that waits for their reports.
pub use rein_tools::BackgroundAgents;
pub use reply::{Category, ContextUsage, McpServerState, ModelOffer, Reply};
pub use setup::{Setup, resolve_model};

/// The earlier sessions of `cwd` (newest first), for `/resume` and `rein -r`: rein's
/// and those Claude Code recorded for the folder (a switching user's history comes
/// along), each session once.
pub fn earlier_sessions(rein_home: &std::path::Path, cwd: &std::path::Path) -> Vec<rein_transcript::SessionInfo> {
    sessions_of(rein_home, claude_dir(&env::Env::read()).as_deref(), cwd)
}

/// The person's Claude Code folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
pub(crate) fn claude_dir(env: &env::Env) -> Option<std::path::PathBuf> {
    env.claude_config_dir.clone().or_else(|| env.home.as_ref().map(|h| h.join(".claude")))
}

/// [`earlier_sessions`], with Claude Code's folder given.
pub(crate) fn sessions_of(
    rein_home: &std::path::Path,
    claude: Option<&std::path::Path>,
    cwd: &std::path::Path,
) -> Vec<rein_transcript::SessionInfo> {
    let mut all = rein_transcript::list_sessions(rein_home, cwd);
    if let Some(dir) = claude.filter(|d| *d != rein_home) {
        for s in rein_transcript::list_sessions(dir, cwd) {
            // A session of rein's that Claude Code sees through its link is rein's own.
            if !all.iter().any(|a| a.session_id == s.session_id) {
                all.push(s);
            }
        }
    }
    all.sort_by_key(|s| std::cmp::Reverse(s.modified));
    all
}

/// The Claude Code release whose headless and Agent SDK protocol rein speaks.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// What building a session returns.
pub type Result<T> = std::result::Result<T, SetupError>;
