//! The tools that need the engine itself (a subagent's turn, the session's skills and
//! workflows, the plan and question dialogs, worktrees, deferred definitions, the
//! server-side web search): each a `Tool` like the built-ins in `rein-tools`, in a
//! folder of their own so the engine's loop and chain stay apart from them.

pub(crate) mod agent_tool;
pub(crate) mod plan_tools;
pub(crate) mod skill_tool;
pub(crate) mod tool_search;
pub(crate) mod web_search_tool;
pub(crate) mod workflow_tool;
pub(crate) mod worktree_tools;
