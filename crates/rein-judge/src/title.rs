//! The session's title: the small fast model names a session from its first prompt, as
//! Claude Code titles its sessions in the background for the resume list.

use rein_model::Model;

/// The title request's instructions (the fake model server knows title requests by them).
pub const TITLE_RUBRIC: &str = "You name coding sessions. Given the first message a person sent to a coding \
agent, answer with a title for the session: three to seven words, sentence case, naming the task (\"Fix the \
flaky login test\"). Answer with the title only: no quotes, no final period, nothing else.";

/// The longest title kept, in characters.
const MAX_CHARS: usize = 60;

/// A title for the session that began with `first_prompt`, from `model` (named `name`).
pub async fn session_title(model: &dyn Model, name: &str, first_prompt: &str) -> Result<String, crate::TitleError> {
    let prompt: String = first_prompt.chars().take(4000).collect();
    let (text, _usage) = crate::ask::ask_text(model, name, TITLE_RUBRIC, prompt, 60).await?;
    clean(&text).ok_or(crate::TitleError::Empty)
}

/// The answer's first non-empty line, without quotes, markup or a final period, cut to
/// a whole word within the limit.
fn clean(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_start_matches(['#', '*', ' ']).trim_start_matches("Title:").trim();
    let line =
        line.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*' | '“' | '”')).trim_end_matches('.').trim();
    if line.is_empty() {
        return None;
    }
    if line.chars().count() <= MAX_CHARS {
        return Some(line.to_string());
    }
    let cut: String = line.chars().take(MAX_CHARS).collect();
    let words = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    Some(words.trim_end_matches([',', ';', ':', '-']).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_become_one_short_line() {
        assert_eq!(clean("Fix the flaky login test").as_deref(), Some("Fix the flaky login test"));
        assert_eq!(clean("\n\"Add a dark mode toggle.\"\nBecause…").as_deref(), Some("Add a dark mode toggle"));
        assert_eq!(clean("Title: **Port the parser to Rust**").as_deref(), Some("Port the parser to Rust"));
        let long = clean(&"word ".repeat(30)).unwrap();
        assert!(long.chars().count() <= MAX_CHARS && !long.ends_with(' '), "{long:?}");
        assert_eq!(clean("  \n \"\" "), None);
    }
}
