//! The tool table. A [`Tool`] declares its input as a Rust type (serde `Deserialize` +
//! schemars `JsonSchema`); the `input_schema` sent to the model is generated from that
//! very type, so schema property names and handler parameters cannot drift. The
//! [`Registry`] maps names to tools: adding a tool is one `register` call and never
//! touches the engine's loop. Every call goes through [`Registry::prepare`], which checks
//! the raw input against the schema (jsonschema) before deserialising it once.

mod agent_steps;
mod background;
mod budget;
mod builtin;
mod checked_call;
mod checkpoints;
mod compact_schema;
mod context;
mod external;
mod file_diagnostics;
pub mod git_worktree;
mod input_error;
mod jobs;
mod late;
mod open_checked;
mod page_digest;
mod path_names;
mod registry;
pub(crate) mod spilling;
mod tool;
mod workspace;

pub use agent_steps::{AgentStep, StepSink};
pub use background::{AgentInfo, AgentState, BackgroundAgents, ended_notice};
pub use budget::{PREVIEW_BYTES, spill};
pub use builtin::{
    Bash, BashOutput, BashSettings, Edit, Glob, Grep, KillShell, MultiEdit, NotebookEdit, Read, STRUCTURED_OUTPUT,
    StructuredOutput, Todo, TodoStatus, TodoWrite, TrialSlot, Tried, WebFetch, Write, register_builtins,
    register_builtins_sandboxed, use_own_shell, use_session_shell,
};
pub use checkpoints::{FileCheckpoints, RewindError};
pub use compact_schema::compact_for_model;
pub use context::{EngineSlot, FileIdentity, FileStateCache, ShellDir, ToolContext};
pub use external::ExternalTool;
pub use file_diagnostics::FileDiagnostics;
pub use input_error::InputError;
pub use jobs::{JobInfo, SessionShell};
pub use late::LateTools;
pub use page_digest::{DigestError, PageDigest};
pub use path_names::PathNames;
pub use registry::{PreparedCall, Registry, RegistryError, input_fields, schema_for};
pub use rein_effects::{Access, Confinement, Effects, Other, ReadGuard, RuleKind, ShellCommand, ToolKinds, ToolRules};
pub use rein_process::{GroupGuard, kill_all_process_groups, live_process_groups};
pub use rein_sandbox::trial::ApplyError;
pub use tool::{Tool, ToolError, ToolOutput};
pub use workspace::{WallError, canonical_target, inside_workspace};
