//! `/export`: the conversation as Markdown a person can read — each prompt, each answer,
//! each tool call with its input and (the start of) its result.

use rein_protocol::{ContentBlock, Message, Role, ToolResultContent};

/// How much of one tool result the export keeps.
const RESULT_CHARS: usize = 2_000;

/// The conversation in `messages` as Markdown; `title` heads it.
pub fn markdown(title: &str, messages: &[Message]) -> String {
    let mut out = format!("# {title}\n");
    for m in messages {
        for block in &m.content {
            match (m.role, block) {
                (Role::User, ContentBlock::Text { text }) if !text.starts_with("<system-reminder>") => {
                    out.push_str("\n## ❯ Prompt\n\n");
                    out.push_str(text.trim_end());
                    out.push('\n');
                }
                (Role::User, ContentBlock::Image { .. }) => out.push_str("\n*(an image)*\n"),
                (Role::User, ContentBlock::Document { title, .. }) => {
                    out.push_str(&format!("\n*(a document: {})*\n", title.as_deref().unwrap_or("PDF")));
                }
                (Role::Assistant, ContentBlock::Text { text }) if !text.trim().is_empty() => {
                    out.push_str("\n## ⏺ rein\n\n");
                    out.push_str(text.trim_end());
                    out.push('\n');
                }
                (Role::Assistant, ContentBlock::ToolUse(call)) => {
                    let input = serde_json::to_string_pretty(&call.input).unwrap_or_else(|_| call.input.to_string());
                    out.push_str(&format!("\n### Tool: {}\n\n```json\n{input}\n```\n", call.name));
                }
                (Role::User, ContentBlock::ToolResult { content, is_error, .. }) => {
                    let text = match content {
                        ToolResultContent::Text(t) => t.clone(),
                        blocks => blocks.to_text(),
                    };
                    let shown: String = text.chars().take(RESULT_CHARS).collect();
                    let more = text.chars().count().saturating_sub(RESULT_CHARS);
                    let label = if *is_error { "Error" } else { "Result" };
                    out.push_str(&format!("\n{label}:\n\n```\n{}\n```\n", shown.trim_end()));
                    if more > 0 {
                        out.push_str(&format!("*(… {more} more characters)*\n"));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolUse;
    use serde_json::json;

    #[test]
    fn prompts_answers_and_calls_read_in_order() {
        let messages = vec![
            Message::user_text("fix the bug"),
            Message::assistant(vec![
                ContentBlock::text("Looking."),
                ContentBlock::ToolUse(ToolUse { id: "t".into(), name: "Bash".into(), input: json!({"command": "ls"}) }),
            ]),
            Message::user(vec![ContentBlock::tool_result("t", "a.rs\nb.rs", false)]),
            Message::assistant(vec![ContentBlock::text("Fixed.")]),
        ];
        let md = markdown("Session abc", &messages);
        let order = [
            "# Session abc",
            "## ❯ Prompt",
            "fix the bug",
            "## ⏺ rein",
            "Looking.",
            "### Tool: Bash",
            "\"command\": \"ls\"",
            "Result:",
            "a.rs\nb.rs",
            "Fixed.",
        ];
        let mut at = 0;
        for part in order {
            let found = md[at..].find(part).unwrap_or_else(|| panic!("{part:?} missing after byte {at}:\n{md}"));
            at += found + part.len();
        }
    }
}
