//! Stage 5b, between execute and the PostToolUse hooks: a file tool that changed files
//! (Edit, Write, MultiEdit, NotebookEdit) gets what the session's language servers now
//! report of each file it wrote, added to its result, so the model sees the error its
//! edit made in the same turn. A failed call, a shell command (whose writes rein does
//! not know exactly) and a file no server handles add nothing; the servers' answers are
//! bounded in time and size by rein-lsp, and an interrupt ends the wait.

use rein_protocol::ToolResultContent;
use rein_tools::{Effects, ToolContext};

/// `content` with the diagnostics of the files the call wrote.
pub(super) async fn added(
    ctx: &ToolContext,
    effects: &Effects,
    content: ToolResultContent,
    is_error: bool,
) -> ToolResultContent {
    let Some(servers) = ctx.diagnostics.as_ref() else { return content };
    if is_error || !effects.edits_files {
        return content;
    }
    let mut notes = Vec::new();
    for path in effects.writes.iter().filter(|p| servers.covers(p)) {
        // An interrupt stops the wait: the edit stands, without what the server says.
        let note = tokio::select! {
            note = servers.after_change(path) => note,
            () = ctx.abort.cancelled() => None,
        };
        notes.extend(note);
    }
    if notes.is_empty() {
        return content;
    }
    super::appended(content, notes.join("\n"))
}
