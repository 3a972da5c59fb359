//! Repeated results. A call of a tool that reads and changes nothing (Read, Glob, Grep:
//! [`rein_tools::Tool::collapses_repeats`]) whose result is byte-identical to what the
//! same call (same tool, same input) got earlier — still whole in the history — reaches
//! the model as a pointer to that earlier result instead of a second copy, as Claude Code
//! answers a re-Read of an unchanged file. A long session then does not send the same
//! text again with every later request.
//!
//! The comparison is with the history itself, not with a cache beside it: a file changed
//! by anyone, a rewind that removed the earlier result, a hook that rewrote either
//! output, or a result already cleared by microcompact all mean a whole answer. Hooks,
//! the transcript's tool events and the interface see the whole result; only the
//! history holds the pointer. When an original is about to leave the history
//! (microcompact, compaction), the pointers to it get its content back.

use std::collections::HashMap;

use rein_protocol::{ContentBlock, Message, Role, ToolResultContent, ToolUse};
use rein_tools::Registry;

use crate::Conversation;

/// What an old tool result becomes after microcompact.
pub(crate) const CLEARED: &str =
    "[Old tool result content cleared to save context; run the tool again if it is needed.]";

const HEAD: &str = "Unchanged: same as ";
const TAIL: &str = " above.";
/// How pointers read before they were shortened (sessions saved then still resume).
const OLD_HEAD: &str = "Unchanged: same result as call ";

/// The text that stands for the result of call `id`.
pub fn pointer(id: &str) -> String {
    format!("{HEAD}{id}{TAIL}")
}

/// The call a pointer stands for, when `text` is one.
pub fn pointed_at(text: &str) -> Option<&str> {
    text.strip_prefix(HEAD).or_else(|| text.strip_prefix(OLD_HEAD))?.strip_suffix(TAIL)
}

/// Replace each result in `message` (answering `calls`, the newest assistant message of
/// `history`) that repeats the newest earlier whole result of the same call by a pointer
/// to it. Only worth it when the pointer is much shorter. Returns how many.
pub(crate) fn collapse(message: &mut Message, calls: &[ToolUse], history: &Conversation, registry: &Registry) -> usize {
    let mut collapsed = 0;
    for block in &mut message.content {
        let ContentBlock::ToolResult { tool_use_id, content: ToolResultContent::Text(text), is_error: false } = block
        else {
            continue;
        };
        let Some(call) = calls.iter().find(|c| &c.id == tool_use_id) else { continue };
        if !registry.collapses_repeats(&call.name) {
            continue;
        }
        let Some((earlier, whole)) = earlier_result(history, call) else { continue };
        let short = pointer(earlier);
        if whole == text.as_str() && text.len() >= 2 * short.len() {
            *text = short;
            collapsed += 1;
        }
    }
    collapsed
}

/// The id and text of the whole answer the newest earlier identical call got or points
/// at (an error, a cleared result or an image answer is returned as no match). Only the
/// messages back to that call are compared; a pointer is followed by id alone, so a
/// long run of repeats costs no more than one.
fn earlier_result<'a>(history: &'a Conversation, call: &ToolUse) -> Option<(&'a str, &'a str)> {
    let mut answers: Option<&Message> = None;
    let mut newest: Option<(&str, &ToolResultContent, bool)> = None;
    for m in history.messages().rev() {
        if m.role == Role::User {
            answers = Some(m);
            continue;
        }
        let Some(results) = answers else { continue };
        let same = m.tool_uses().filter(|t| t.id != call.id && t.name == call.name && t.input == call.input).last();
        if let Some(earlier) = same {
            newest = results.content.iter().find_map(|b| match b {
                ContentBlock::ToolResult { tool_use_id, content, is_error } if *tool_use_id == earlier.id => {
                    Some((tool_use_id.as_str(), content, *is_error))
                }
                _ => None,
            });
            break;
        }
    }
    let (id, content, is_error) = newest?;
    let ToolResultContent::Text(text) = content else { return None };
    if is_error {
        return None;
    }
    match pointed_at(text) {
        None => Some((id, text.as_str())),
        Some(original) => whole_answer(history, original),
    }
}

/// The whole text answer of call `id`, found by its id.
fn whole_answer<'a>(history: &'a Conversation, id: &str) -> Option<(&'a str, &'a str)> {
    history.messages().rev().filter(|m| m.role == Role::User).flat_map(|m| m.content.iter()).find_map(|b| match b {
        ContentBlock::ToolResult { tool_use_id, content: ToolResultContent::Text(t), is_error: false }
            if tool_use_id == id && pointed_at(t).is_none() =>
        {
            Some((tool_use_id.as_str(), t.as_str()))
        }
        _ => None,
    })
}

/// The whole text results in `messages`, by call id: what pointers may need back.
pub(crate) fn originals<'a>(messages: impl IntoIterator<Item = &'a Message>) -> HashMap<String, String> {
    let mut found = HashMap::new();
    for m in messages {
        for b in &m.content {
            if let ContentBlock::ToolResult { tool_use_id, content: ToolResultContent::Text(t), .. } = b
                && pointed_at(t).is_none()
                && t != CLEARED
            {
                found.insert(tool_use_id.clone(), t.clone());
            }
        }
    }
    found
}

/// Give each pointer in `message` to one of `originals` that result's text again.
/// Returns how many.
pub(crate) fn restore(message: &mut Message, originals: &HashMap<String, String>) -> usize {
    let mut restored = 0;
    for b in &mut message.content {
        if let ContentBlock::ToolResult { content: ToolResultContent::Text(t), .. } = b
            && let Some(whole) = pointed_at(t).and_then(|id| originals.get(id))
        {
            *t = whole.clone();
            restored += 1;
        }
    }
    restored
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIST: &str =
        "src/a.rs\nsrc/b.rs\nsrc/c.rs\nsrc/d.rs\nsrc/e.rs\nsrc/f.rs\nsrc/g.rs\nsrc/h.rs\nsrc/i.rs\nsrc/j.rs";

    fn glob(id: &str, pattern: &str) -> ToolUse {
        ToolUse { id: id.into(), name: "Glob".into(), input: json!({ "pattern": pattern }) }
    }

    fn registry() -> Registry {
        let mut r = Registry::new();
        rein_tools::register_builtins(&mut r).unwrap();
        r
    }

    /// A history where `first` was answered with `answer` and `next` is being answered.
    fn history(first: &ToolUse, answer: &str, next: &ToolUse) -> Conversation {
        let mut c = Conversation::new();
        c.push(Message::user_text("go")).unwrap();
        c.push(Message::assistant(vec![ContentBlock::ToolUse(first.clone())])).unwrap();
        c.push(Message::user(vec![ContentBlock::tool_result(first.id.clone(), answer, false)])).unwrap();
        c.push(Message::assistant(vec![ContentBlock::ToolUse(next.clone())])).unwrap();
        c
    }

    fn answer(id: &str, text: &str) -> Message {
        Message::user(vec![ContentBlock::tool_result(id, text, false)])
    }

    #[test]
    fn the_same_call_with_the_same_result_becomes_a_pointer() {
        let (a, b) = (glob("a", "**/*.rs"), glob("b", "**/*.rs"));
        let mut m = answer("b", LIST);
        assert_eq!(collapse(&mut m, std::slice::from_ref(&b), &history(&a, LIST, &b), &registry()), 1);
        assert_eq!(m.content[0], ContentBlock::tool_result("b", pointer("a"), false));
        assert_eq!(pointed_at(&pointer("a")), Some("a"));
        assert_eq!(pointed_at("Unchanged: same result as call a above."), Some("a"), "as saved sessions have it");
        assert_eq!(pointed_at("Unchanged: the file was not touched."), None);
    }

    #[test]
    fn a_changed_result_another_input_or_a_tool_that_acts_stays_whole() {
        let reg = registry();
        let (a, b) = (glob("a", "**/*.rs"), glob("b", "**/*.rs"));
        let changed = format!("{LIST}\nsrc/k.rs");
        let mut m = answer("b", &changed);
        assert_eq!(collapse(&mut m, std::slice::from_ref(&b), &history(&a, LIST, &b), &reg), 0);

        let other = glob("b", "src/*.rs");
        let mut m = answer("b", LIST);
        assert_eq!(collapse(&mut m, std::slice::from_ref(&other), &history(&a, LIST, &other), &reg), 0);

        let bash = |id: &str| ToolUse { id: id.into(), name: "Bash".into(), input: json!({"command": "ls"}) };
        let mut m = answer("b", LIST);
        assert_eq!(collapse(&mut m, &[bash("b")], &history(&bash("a"), LIST, &bash("b")), &reg), 0);

        let mut m = answer("b", "x.rs");
        assert_eq!(collapse(&mut m, std::slice::from_ref(&b), &history(&a, "x.rs", &b), &reg), 0, "too short");

        let cleared = CLEARED;
        let mut m = answer("b", LIST);
        assert_eq!(collapse(&mut m, std::slice::from_ref(&b), &history(&a, cleared, &b), &reg), 0, "a cleared answer");
    }

    #[test]
    fn a_third_repeat_points_at_the_whole_original() {
        let (a, b, c) = (glob("a", "*"), glob("b", "*"), glob("c", "*"));
        let mut h = history(&a, LIST, &b);
        h.push(answer("b", &pointer("a"))).unwrap();
        h.push(Message::assistant(vec![ContentBlock::ToolUse(c.clone())])).unwrap();
        let mut m = answer("c", LIST);
        assert_eq!(collapse(&mut m, &[c], &h, &registry()), 1);
        assert_eq!(m.content[0], ContentBlock::tool_result("c", pointer("a"), false));
    }

    #[test]
    fn pointers_get_their_original_back() {
        let originals = originals([&answer("a", LIST)]);
        let mut m = answer("b", &pointer("a"));
        assert_eq!(restore(&mut m, &originals), 1);
        assert_eq!(m.content[0], ContentBlock::tool_result("b", LIST, false));
    }
}
