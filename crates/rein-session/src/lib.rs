//! The live session: one owner for a session while it runs, between the frontends and
//! the engine. It keeps the live facts hooks, the status line and frontends read (the
//! session id, which `/clear` changes; the transcript; the permission mode, which
//! Shift+Tab, `set_permission_mode` and ExitPlanMode change; the model), and offers one
//! typed command API that print mode, the Agent SDK and the interactive UI all drive:
//! prompt (MCP prompts, custom commands with their turn-only rules and model, `@`
//! mentions, the output of `!cmd` before it), shell, compact, clear, rewind, set model,
//! set mode, end. A frontend maps its input to these commands and renders the events.

mod drive;
mod live;

pub use drive::{Input, Parts, PromptError, Session};
pub use live::Live;
