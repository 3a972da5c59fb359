//! The context manager: how big the next request is, and the shapers that keep it
//! inside the window — microcompact (old tool results cleared) and the compacted
//! history (a summary, plus the exchange in progress so that pairing holds).

use rein_protocol::{ContentBlock, Message, Role, ToolResultContent};

use crate::Conversation;

pub(crate) use crate::repeats::CLEARED;

/// Window sizes and thresholds, in tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextLimits {
    pub window: u64,
    /// Old tool results are cleared past this.
    pub microcompact_at: u64,
    /// The conversation is summarised past this.
    pub autocompact_at: u64,
    /// Tool-result messages kept whole by microcompact.
    pub keep_recent_results: usize,
}

impl ContextLimits {
    /// Limits for `model`: the window from the table (or `window`), autocompact at
    /// `fraction` of it (about 83 %, window − output reserve − buffer), microcompact at 60 %.
    pub fn for_model(model: &str, window: Option<u64>, fraction: Option<f64>) -> Self {
        let window = window.unwrap_or_else(|| window_of(model));
        let fraction = fraction.filter(|f| *f > 0.1 && *f < 1.0).unwrap_or(0.83);
        ContextLimits {
            window,
            microcompact_at: (window as f64 * 0.6) as u64,
            autocompact_at: (window as f64 * fraction) as u64,
            keep_recent_results: 6,
        }
    }
}

/// The context window of a model id.
pub fn window_of(model: &str) -> u64 {
    rein_model::context_window(model)
}

/// A cheap estimate: four characters a token.
pub fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// The per-message tool-result budget: when the results of one response add up to
/// more than `limit` characters, the largest are saved to files (a preview and the
/// path stay) until the message fits. Returns how many were spilled.
pub(crate) fn budget_results(
    message: &mut Message,
    limit: usize,
    ctx: &rein_tools::ToolContext,
    exempt: &[String],
) -> usize {
    let size = |c: &ToolResultContent| match c {
        ToolResultContent::Text(t) => t.len(),
        ToolResultContent::Blocks(_) => 0,
    };
    let mut spilled = 0;
    loop {
        let total: usize = message
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::ToolResult { content, .. } => size(content),
                _ => 0,
            })
            .sum();
        if total <= limit {
            return spilled;
        }
        // Results of tools that are never spilled (Read) are left whole.
        let largest = message.content.iter_mut().filter_map(|b| match b {
            ContentBlock::ToolResult { content, tool_use_id, .. } if !exempt.contains(tool_use_id) => Some(content),
            _ => None,
        });
        let Some(content) = largest.max_by_key(|c| size(c)) else { return spilled };
        let ToolResultContent::Text(text) = content else { return spilled };
        if text.len() <= rein_tools::PREVIEW_BYTES + 400 {
            return spilled;
        }
        *text = rein_tools::spill("results", text, ctx);
        spilled += 1;
    }
}

/// Clear the content of tool results older than the `keep` most recent result
/// messages. Returns how many were cleared. Pairing is untouched: ids stay. A kept
/// result that pointed at a cleared one (a repeat) gets the cleared text back.
pub fn microcompact(conversation: &mut Conversation, keep: usize) -> usize {
    let indices: Vec<usize> = conversation
        .messages()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User && m.content.iter().any(|b| b.tool_result_id().is_some()))
        .map(|(i, _)| i)
        .collect();
    let old = indices.len().saturating_sub(keep);
    // The results about to be cleared are all those before the first one kept.
    let first_kept = indices.get(old).copied().unwrap_or(conversation.len());
    let leaving = crate::repeats::originals(conversation.messages().take(first_kept));
    if !leaving.is_empty() {
        for &i in &indices[old..] {
            conversation.rewrite(i, |m| crate::repeats::restore(m, &leaving));
        }
    }
    let mut cleared = 0;
    for &i in &indices[..old] {
        cleared += conversation.rewrite(i, |m| {
            let mut n = 0;
            for b in &mut m.content {
                if let ContentBlock::ToolResult { content, .. } = b
                    && !matches!(content, ToolResultContent::Text(t) if t == CLEARED)
                {
                    *content = ToolResultContent::Text(CLEARED.to_string());
                    n += 1;
                }
            }
            n
        });
    }
    cleared
}

/// The history after compaction: the summary as a user message, followed by the
/// exchange in progress — the last assistant message with tool calls and the results
/// answering it, or the last prompt — so that no tool_use is left unanswered and no
/// tool_result is left without its tool_use.
pub fn compacted_history(messages: &[Message], summary: &str) -> Vec<Message> {
    let n = messages.len();
    let tail_len = match (n.checked_sub(2).map(|i| &messages[i]), messages.last()) {
        (Some(a), Some(u)) if a.role == Role::Assistant && u.role == Role::User && a.tool_uses().next().is_some() => 2,
        (_, Some(u)) if u.role == Role::User => 1,
        _ => 0,
    };
    let mut tail = messages[n - tail_len..].to_vec();
    // Results that pointed at earlier ones, which the summary replaces, get their text back.
    let earlier = crate::repeats::originals(&messages[..n - tail_len]);
    for m in &mut tail {
        crate::repeats::restore(m, &earlier);
    }
    let summary_block = ContentBlock::text(format!(
        "This session continues an earlier conversation that was summarised to save context. The summary:\n\n{summary}"
    ));
    match tail.first() {
        Some(first) if first.role == Role::User => {
            let mut merged = first.clone();
            merged.content.insert(0, summary_block);
            vec![merged]
        }
        _ => {
            let mut out = vec![Message::user(vec![summary_block])];
            out.extend(tail.iter().cloned());
            out
        }
    }
}

/// The instruction for the summary request.
pub(crate) const SUMMARY_PROMPT: &str = "Summarise this conversation so that the work can continue without it. Keep: \
every request the user made, in their words where it matters; the files read and changed, with the important \
details; errors met and how they were fixed; decisions taken and why; and the work still pending, with the next \
step. Be concise and complete. Answer with the summary only.";

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolUse;
    use serde_json::json;

    fn tool_use(id: &str) -> ContentBlock {
        ContentBlock::ToolUse(ToolUse { id: id.into(), name: "Read".into(), input: json!({}) })
    }

    /// A recorded session: every prefix that ends where a request would be sent.
    fn recorded() -> Vec<Message> {
        vec![
            Message::user_text("first prompt"),
            Message::assistant(vec![ContentBlock::text("looking"), tool_use("a"), tool_use("b")]),
            Message::user(vec![ContentBlock::tool_result("a", "A", false), ContentBlock::tool_result("b", "B", true)]),
            Message::assistant(vec![ContentBlock::text("done")]),
            Message::user_text("second prompt"),
            Message::assistant(vec![tool_use("c")]),
            Message::user(vec![ContentBlock::tool_result("c", "C", false), ContentBlock::text("note")]),
            Message::assistant(vec![tool_use("d")]),
            Message::user(vec![ContentBlock::tool_result("d", "D", false)]),
        ]
    }

    fn pairing_ok(messages: &[Message]) -> bool {
        messages.iter().enumerate().all(|(i, m)| match m.role {
            Role::Assistant => {
                let ids: Vec<&str> = m.tool_uses().map(|t| t.id.as_str()).collect();
                ids.is_empty()
                    || messages
                        .get(i + 1)
                        .is_some_and(|n| n.content.iter().map_while(|b| b.tool_result_id()).collect::<Vec<_>>() == ids)
            }
            Role::User => {
                let prev: Vec<&str> = i
                    .checked_sub(1)
                    .map(|p| messages[p].tool_uses().map(|t| t.id.as_str()).collect())
                    .unwrap_or_default();
                m.content.iter().filter_map(|b| b.tool_result_id()).all(|id| prev.contains(&id))
            }
        })
    }

    #[test]
    fn compaction_at_every_point_keeps_pairing_and_leaves_no_orphan() {
        let all = recorded();
        for end in 1..=all.len() {
            let prefix = &all[..end];
            if prefix.last().is_some_and(|m| m.role == Role::Assistant) {
                continue; // no request is sent after an assistant message
            }
            let compacted = compacted_history(prefix, "SUMMARY");
            assert!(pairing_ok(&compacted), "after {end} messages: {compacted:?}");
            assert!(compacted[0].text().contains("SUMMARY"));
            assert_eq!(compacted.last().map(|m| m.role), Some(Role::User));
        }
    }

    #[test]
    fn one_response_s_results_fit_their_budget() {
        let d = tempfile::tempdir().unwrap();
        let ctx = rein_tools::ToolContext::new(d.path().to_path_buf(), d.path().join("s"));
        let mut m = Message::user(vec![
            ContentBlock::tool_result("a", "a".repeat(60_000), false),
            ContentBlock::tool_result("b", "b".repeat(90_000), false),
            ContentBlock::tool_result("c", "c".repeat(1_000), false),
        ]);
        assert_eq!(budget_results(&mut m, 100_000, &ctx, &[]), 1);
        let sizes: Vec<usize> = m.content.iter().map(|b| serde_json::to_string(b).unwrap().len()).collect();
        assert!(sizes[1] < 3_000 && sizes[0] > 60_000, "{sizes:?}");
        assert_eq!(m.content[1].tool_result_id(), Some("b"));
    }

    #[test]
    fn microcompact_clears_old_results_only() {
        let mut c = Conversation::new();
        for m in recorded() {
            c.push(m).unwrap();
        }
        let cleared = microcompact(&mut c, 1);
        assert_eq!(cleared, 3, "a, b and c; d is the most recent");
        let msgs: Vec<Message> = c.messages().cloned().collect();
        assert!(pairing_ok(&msgs));
        assert!(serde_json::to_string(&msgs[8]).unwrap().contains("\"D\""));
        assert_eq!(microcompact(&mut c, 1), 0, "clearing twice changes nothing");
    }

    #[test]
    fn a_kept_repeat_gets_back_the_text_that_microcompact_or_compaction_removes() {
        let pointer = crate::repeats::pointer("a");
        let mut all = recorded();
        all[8] = Message::user(vec![ContentBlock::tool_result("d", pointer, false)]);
        let mut c = Conversation::new();
        for m in all.clone() {
            c.push(m).unwrap();
        }
        microcompact(&mut c, 1);
        let last = c.messages().last().unwrap().clone();
        assert_eq!(last.content[0], ContentBlock::tool_result("d", "A", false), "the pointer got A back");

        let compacted = compacted_history(&all, "SUMMARY");
        let tail = compacted.last().unwrap();
        assert_eq!(tail.content[0], ContentBlock::tool_result("d", "A", false), "{compacted:?}");
    }
}
