//! What each hook event gives its handlers, typed: the fields Claude Code sends for that
//! event (beside the common ones every input carries: session id, transcript, cwd,
//! event name, permission mode), and the value its matchers are matched against.

use serde::Serialize;
use serde_json::Value;

use crate::HookEvent;

/// One event's input.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HookInput {
    PreToolUse {
        tool_name: String,
        tool_input: Value,
        tool_use_id: String,
    },
    PostToolUse {
        tool_name: String,
        tool_input: Value,
        /// Claude Code's shape: a Bash call's `{stdout, stderr, interrupted, isImage}`,
        /// else the result's text.
        tool_response: Value,
        tool_use_id: String,
        duration_ms: u64,
    },
    PostToolUseFailure {
        tool_name: String,
        tool_input: Value,
        tool_use_id: String,
        error: String,
        duration_ms: u64,
    },
    PermissionRequest {
        tool_name: String,
        tool_input: Value,
    },
    Notification {
        message: String,
        title: String,
        notification_type: String,
    },
    UserPromptSubmit {
        prompt: String,
    },
    /// `startup`, `resume`, `clear` or `compact`.
    SessionStart {
        source: String,
    },
    SessionEnd {
        reason: String,
    },
    Stop {
        stop_hook_active: bool,
        last_assistant_message: String,
        background_tasks: Vec<Value>,
        session_crons: Vec<Value>,
    },
    SubagentStop {
        stop_hook_active: bool,
        last_assistant_message: String,
        background_tasks: Vec<Value>,
        session_crons: Vec<Value>,
        agent_id: String,
        agent_type: String,
        agent_transcript_path: Option<String>,
    },
    /// `manual` or `auto`.
    PreCompact {
        trigger: String,
        custom_instructions: String,
    },
    PostCompact {
        trigger: String,
        compact_summary: String,
    },
    SubagentStart {
        agent_id: String,
        agent_type: String,
    },
    /// An API error ended the turn; `error` is its kind (`rate_limit`, `overloaded`,
    /// `authentication_failed`, `invalid_request`, `server_error`, `unknown`, …).
    StopFailure {
        error: String,
        error_details: String,
        last_assistant_message: String,
    },
    /// A slash command (or MCP prompt) the person typed is about to expand.
    UserPromptExpansion {
        expansion_type: String,
        command_name: String,
        command_args: String,
        command_source: String,
        prompt: String,
    },
    /// A memory file entered the context (`load_reason`: `session_start`, …).
    InstructionsLoaded {
        file_path: String,
        memory_type: String,
        load_reason: String,
    },
    /// Every call of one model response has its result.
    PostToolBatch {
        tool_calls: Vec<Value>,
    },
    /// The auto-mode judge refused a call.
    PermissionDenied {
        tool_name: String,
        tool_input: Value,
        tool_use_id: String,
        reason: String,
    },
    /// The session's model is about to change (`source`: `user`, `sdk`, `command`).
    PreModelSwitch {
        current_model: String,
        requested_model: String,
        source: String,
    },
    PostModelSwitch {
        previous_model: String,
        model: String,
        source: String,
    },
    /// A settings file changed while the session runs (`source`: `user_settings`,
    /// `project_settings`, `local_settings`, `policy_settings`).
    ConfigChange {
        source: String,
        file_path: String,
    },
    /// The session shell moved to another directory (a `cd` in a Bash command).
    CwdChanged {
        old_cwd: String,
        new_cwd: String,
    },
    /// An MCP server asks the user for input (`mode`: `form` or `url`).
    Elicitation {
        mcp_server_name: String,
        message: String,
        mode: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        elicitation_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        requested_schema: Option<Value>,
    },
    /// The answer to an elicitation, before it goes back to the server.
    ElicitationResult {
        mcp_server_name: String,
        mode: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        elicitation_id: Option<String>,
        action: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<Value>,
    },
    /// Text of the answer is about to be shown (`index`: its block; `final`: the last
    /// piece of it; `delta`: the text).
    MessageDisplay {
        turn_id: String,
        message_id: String,
        index: usize,
        #[serde(rename = "final")]
        last: bool,
        delta: String,
    },
    /// `--init`, `--init-only` (`trigger`: `init`) or `--maintenance` (`maintenance`).
    Setup {
        trigger: String,
    },
    /// A working directory joined the session (`source`: `slash_command` for `/add-dir`).
    DirectoryAdded {
        directory: String,
        source: String,
    },
    /// A watched file changed (`event`: `change`, `add` or `unlink`).
    FileChanged {
        file_path: String,
        event: String,
    },
    /// A worktree is wanted: a hook makes it and prints its path.
    WorktreeCreate {
        name: String,
    },
    /// A worktree is done with.
    WorktreeRemove {
        worktree_path: String,
    },
    /// An item joined the task list.
    TaskCreated {
        task_id: String,
        task_subject: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        task_description: Option<String>,
    },
    /// An item of the task list was marked done.
    TaskCompleted {
        task_id: String,
        task_subject: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        task_description: Option<String>,
    },
    /// A background agent (a teammate: it has a name) is about to go idle, its task
    /// done; a block keeps it working with the feedback.
    TeammateIdle {
        teammate_name: String,
        team_name: String,
    },
    /// A skill's `` !`cmd` `` line is about to run.
    PreSkillShellCommand {
        skill_name: String,
        command: String,
    },
}

impl HookInput {
    pub fn event(&self) -> HookEvent {
        match self {
            HookInput::PreToolUse { .. } => HookEvent::PreToolUse,
            HookInput::PostToolUse { .. } => HookEvent::PostToolUse,
            HookInput::PostToolUseFailure { .. } => HookEvent::PostToolUseFailure,
            HookInput::PermissionRequest { .. } => HookEvent::PermissionRequest,
            HookInput::Notification { .. } => HookEvent::Notification,
            HookInput::UserPromptSubmit { .. } => HookEvent::UserPromptSubmit,
            HookInput::SessionStart { .. } => HookEvent::SessionStart,
            HookInput::SessionEnd { .. } => HookEvent::SessionEnd,
            HookInput::Stop { .. } => HookEvent::Stop,
            HookInput::SubagentStop { .. } => HookEvent::SubagentStop,
            HookInput::TeammateIdle { .. } => HookEvent::TeammateIdle,
            HookInput::PreCompact { .. } => HookEvent::PreCompact,
            HookInput::PostCompact { .. } => HookEvent::PostCompact,
            HookInput::SubagentStart { .. } => HookEvent::SubagentStart,
            HookInput::StopFailure { .. } => HookEvent::StopFailure,
            HookInput::UserPromptExpansion { .. } => HookEvent::UserPromptExpansion,
            HookInput::InstructionsLoaded { .. } => HookEvent::InstructionsLoaded,
            HookInput::PostToolBatch { .. } => HookEvent::PostToolBatch,
            HookInput::PermissionDenied { .. } => HookEvent::PermissionDenied,
            HookInput::PreModelSwitch { .. } => HookEvent::PreModelSwitch,
            HookInput::PostModelSwitch { .. } => HookEvent::PostModelSwitch,
            HookInput::PreSkillShellCommand { .. } => HookEvent::PreSkillShellCommand,
            HookInput::CwdChanged { .. } => HookEvent::CwdChanged,
            HookInput::ConfigChange { .. } => HookEvent::ConfigChange,
            HookInput::Elicitation { .. } => HookEvent::Elicitation,
            HookInput::ElicitationResult { .. } => HookEvent::ElicitationResult,
            HookInput::Setup { .. } => HookEvent::Setup,
            HookInput::MessageDisplay { .. } => HookEvent::MessageDisplay,
            HookInput::DirectoryAdded { .. } => HookEvent::DirectoryAdded,
            HookInput::FileChanged { .. } => HookEvent::FileChanged,
            HookInput::WorktreeCreate { .. } => HookEvent::WorktreeCreate,
            HookInput::WorktreeRemove { .. } => HookEvent::WorktreeRemove,
            HookInput::TaskCreated { .. } => HookEvent::TaskCreated,
            HookInput::TaskCompleted { .. } => HookEvent::TaskCompleted,
        }
    }

    /// What the event's matchers are matched against (the tool, the source, …).
    pub fn match_value(&self) -> Option<&str> {
        match self {
            HookInput::PreToolUse { tool_name, .. }
            | HookInput::PostToolUse { tool_name, .. }
            | HookInput::PostToolUseFailure { tool_name, .. }
            | HookInput::PermissionRequest { tool_name, .. }
            | HookInput::PermissionDenied { tool_name, .. } => Some(tool_name),
            HookInput::Notification { notification_type, .. } => Some(notification_type),
            HookInput::SessionStart { source } | HookInput::ConfigChange { source, .. } => Some(source),
            HookInput::SessionEnd { reason } => Some(reason),
            HookInput::SubagentStop { agent_type, .. } => Some(agent_type),
            HookInput::PreCompact { trigger, .. } | HookInput::PostCompact { trigger, .. } => Some(trigger),
            HookInput::SubagentStart { agent_type, .. } => Some(agent_type),
            HookInput::StopFailure { error, .. } => Some(error),
            HookInput::UserPromptExpansion { command_name, .. } => Some(command_name),
            HookInput::InstructionsLoaded { load_reason, .. } => Some(load_reason),
            HookInput::PreSkillShellCommand { skill_name, .. } => Some(skill_name),
            HookInput::Elicitation { mcp_server_name, .. } | HookInput::ElicitationResult { mcp_server_name, .. } => {
                Some(mcp_server_name)
            }
            HookInput::Setup { trigger } => Some(trigger),
            HookInput::DirectoryAdded { source, .. } => Some(source),
            // Matched by the file's name (the matcher lists names: `.envrc|.env`).
            HookInput::FileChanged { file_path, .. } => {
                Some(file_path.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(file_path))
            }
            HookInput::UserPromptSubmit { .. }
            | HookInput::WorktreeCreate { .. }
            | HookInput::MessageDisplay { .. }
            | HookInput::WorktreeRemove { .. }
            | HookInput::TaskCreated { .. }
            | HookInput::TaskCompleted { .. }
            | HookInput::TeammateIdle { .. }
            | HookInput::Stop { .. }
            | HookInput::PostToolBatch { .. }
            | HookInput::PreModelSwitch { .. }
            | HookInput::PostModelSwitch { .. }
            | HookInput::CwdChanged { .. } => None,
        }
    }

    /// The event's own fields, as they join the common ones.
    pub fn fields(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl crate::Hooks {
    /// Fire the event `input` is for, with its fields; `keep` as in [`fire`](Self::fire).
    pub async fn fire_input(&self, input: &HookInput, keep: impl Fn(&crate::Handler) -> bool) -> crate::Outcome {
        self.fire(input.event(), input.match_value(), input.fields(), keep).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_have_claude_codes_fields_and_matchers() {
        let input = HookInput::PreToolUse {
            tool_name: "Bash".into(),
            tool_input: serde_json::json!({"command": "ls"}),
            tool_use_id: "t1".into(),
        };
        assert_eq!(input.event(), HookEvent::PreToolUse);
        assert_eq!(input.match_value(), Some("Bash"));
        assert_eq!(
            input.fields(),
            serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"})
        );
        let start = HookInput::SessionStart { source: "clear".into() };
        assert_eq!((start.event(), start.match_value()), (HookEvent::SessionStart, Some("clear")));
        assert_eq!(start.fields(), serde_json::json!({"source": "clear"}));
    }
}
