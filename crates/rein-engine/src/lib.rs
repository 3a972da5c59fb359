//! The query loop and what it calls. The loop ([`Engine::run`]) is a few dozen lines that
//! never need to change: build the request, stream the response, and continue exactly
//! when the assistant's content holds a `tool_use` block — never on `stop_reason` alone.
//! Tool calls go through the validation chain ([`chain`]); the request builder
//! ([`Conversation`]) guarantees that every `tool_use` is answered by exactly one
//! `tool_result`, first in the next user message, in call order.

mod approver;
mod audit;
pub mod chain;
mod compact;
mod context;
mod conversation;
mod direct;
mod display_hooks;
mod engine_facts;
pub use direct::{Attached, CommandAborted};
mod error;
mod event;
mod executor;
mod gate;
mod journal;
mod judge;
mod network_question;
mod outcome;
mod pairing;
mod query_loop;
mod record;
mod recovery;
mod repeats;
mod retries;
mod sample;
mod services;
mod session_hooks;
mod side_question;
mod side_requests;
mod subagent_servers;
mod task_list;
mod tools;
mod tools_array;
mod trial;
mod turn_end;
mod turn_start;
mod web_digest;
mod workflow_host;

use tools::{agent_tool, plan_tools, skill_tool, tool_search, web_search_tool, workflow_tool, worktree_tools};

pub use agent_tool::AgentTool;
pub use context::{ContextLimits, compacted_history, estimate_tokens, microcompact, window_of};
pub use conversation::Conversation;
pub use error::{EngineError, RewindFailed};
pub use event::{BlockType, EngineEvent, StreamDelta};
pub use gate::{Answer, Approver, Gate, MAX_BLOCKS_IN_ROW, PermissionQuestion, Verdict};
pub use judge::{ContextItem, Judge, JudgeContext, JudgeRequest, JudgeVerdict, Judgement};
pub use network_question::ask_network;
pub use outcome::{End, Outcome};
pub use pairing::{PairingRepair, repair_pairing};
pub use plan_tools::{AskUserQuestion, EnterPlanMode, ExitPlanMode, Question, QuestionOption};
pub use query_loop::{Engine, EngineConfig, SubagentInfo};
pub use repeats::{pointed_at, pointer};
pub use services::{EngineServices, EngineTools, register_engine_tools};
pub use side_requests::SideUsage;
pub use skill_tool::{SkillInput, SkillTool};
pub use subagent_servers::{SharedSubagentServers, StartedServers, SubagentServers};
pub use tool_search::{SearchState, SharedSearch, ToolSearch, ToolSearchMode};
pub use web_search_tool::{WebSearchInput, WebSearchTool};
