//! Reading transcripts back.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rein_protocol::{AssistantMessage, Message, Role};
use serde::Deserialize;

use crate::{SessionError, TranscriptEvent, project_dir};

/// A loaded session.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub session_id: String,
    pub path: PathBuf,
    /// The conversation, consecutive user lines merged.
    pub messages: Vec<Message>,
    /// The uuid of the last message line.
    pub last_uuid: Option<String>,
    /// Lines that could not be read (a torn last line after a crash).
    pub skipped: usize,
    /// Tool calls a hook deferred, to run when the session resumes.
    pub deferred: Vec<String>,
    /// The session's title: its newest summary line's.
    pub title: Option<String>,
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    uuid: Option<String>,
    #[serde(default)]
    message: Option<serde_json::Value>,
    /// A `summary` line's text (the session's title).
    #[serde(default)]
    summary: Option<String>,
    /// A `system` line's event, when it is one rein knows.
    #[serde(flatten)]
    event: Option<TranscriptEvent>,
}

/// Load `path`. Message lines after the last compact boundary form the conversation.
pub fn load(path: &Path) -> Result<Loaded, SessionError> {
    let file = std::fs::File::open(path).map_err(|e| SessionError::io(path, e))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut messages: Vec<Message> = Vec::new();
    let (mut last_uuid, mut skipped) = (None, 0);
    let mut deferred: Vec<String> = Vec::new();
    let mut title: Option<String> = None;
    for line in reader.split(b'\n') {
        let line = line.map_err(|e| SessionError::io(path, e))?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(parsed) = serde_json::from_slice::<Line>(&line) else {
            skipped += 1;
            continue;
        };
        match parsed.kind.as_str() {
            "user" | "assistant" => {
                let Some(m) = parsed.message else { continue };
                let message = if parsed.kind == "assistant" {
                    match serde_json::from_value::<AssistantMessage>(m.clone()) {
                        Ok(a) => a.to_message(),
                        Err(_) => match serde_json::from_value::<Message>(m) {
                            Ok(msg) => msg,
                            Err(_) => {
                                skipped += 1;
                                continue;
                            }
                        },
                    }
                } else {
                    match serde_json::from_value::<Message>(m) {
                        Ok(msg) => msg,
                        Err(_) => {
                            skipped += 1;
                            continue;
                        }
                    }
                };
                push_merged(&mut messages, message);
                last_uuid = parsed.uuid;
            }
            "system" => match parsed.event {
                Some(TranscriptEvent::CompactBoundary { .. }) => {
                    messages.clear();
                    deferred.clear();
                }
                Some(TranscriptEvent::Deferred { tool_use_id }) => deferred.push(tool_use_id),
                _ => {}
            },
            "summary" => title = parsed.summary.filter(|s| !s.trim().is_empty()).or(title),
            _ => {}
        }
    }
    if skipped > 0 {
        tracing::warn!(path = %path.display(), skipped, "skipped unreadable transcript lines");
    }
    let session_id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Loaded { session_id, path: path.to_path_buf(), messages, last_uuid, skipped, deferred, title })
}

/// Consecutive messages of one role become one (tool results written line by line).
fn push_merged(messages: &mut Vec<Message>, message: Message) {
    match messages.last_mut() {
        Some(last) if last.role == message.role && message.role == Role::User => last.content.extend(message.content),
        _ => messages.push(message),
    }
}

/// One session of a directory, for `rein sessions`.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub session_id: String,
    pub path: PathBuf,
    pub modified: SystemTime,
    pub first_prompt: String,
    /// The title the small model gave it, if any.
    pub title: Option<String>,
    pub turns: usize,
}

impl SessionInfo {
    /// What a list shows for it: its title, else its first prompt's first line, at most
    /// 60 characters.
    pub fn label(&self) -> String {
        let text = self.title.as_deref().unwrap_or_else(|| self.first_prompt.lines().next().unwrap_or_default());
        text.chars().take(60).collect()
    }
}

/// The sessions of `cwd`, newest first.
pub fn list_sessions(rein_home: &Path, cwd: &Path) -> Vec<SessionInfo> {
    let dir = project_dir(rein_home, cwd);
    let mut out: Vec<SessionInfo> = std::fs::read_dir(&dir)
        .map(|it| {
            it.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            let loaded = load(&path).ok()?;
            let first_prompt =
                loaded.messages.iter().find(|m| m.role == Role::User).map(|m| m.text()).unwrap_or_default();
            let turns = loaded.messages.iter().filter(|m| m.role == Role::Assistant).count();
            let title = loaded.title;
            Some(SessionInfo { session_id: loaded.session_id, path, modified, first_prompt, title, turns })
        })
        .collect();
    out.sort_by_key(|s| std::cmp::Reverse(s.modified));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Transcript;
    use rein_protocol::ContentBlock;

    #[test]
    fn a_written_session_loads_back_and_a_torn_line_is_skipped() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("s1.jsonl");
        let mut t = Transcript::open(&path, "s1", d.path(), None).unwrap();
        t.user(&Message::user_text("hello"), false).unwrap();
        let mut a = AssistantMessage::new("msg_1", "m");
        a.content = vec![ContentBlock::text("hi")];
        t.assistant(&a).unwrap();
        t.event(&crate::TranscriptEvent::Interrupted { during: "the response".into() }).unwrap();
        drop(t);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"type\":\"user\",\"mess"))
            .unwrap();
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.messages.len(), 2);
        assert_eq!(loaded.messages[1].text(), "hi");
        assert_eq!(loaded.skipped, 1);
        let lines: Vec<serde_json::Value> =
            std::fs::read_to_string(&path).unwrap().lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);
        assert_eq!(lines[0]["sessionId"], "s1");
        assert_eq!(lines[1]["message"]["type"], "message");
    }

    #[test]
    fn the_newest_summary_line_is_the_title_and_not_part_of_the_conversation() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("s2.jsonl");
        let mut t = Transcript::open(&path, "s2", d.path(), None).unwrap();
        t.user(&Message::user_text("fix the login test please"), false).unwrap();
        t.title("Fix the login test").unwrap();
        t.title("Fix the flaky login test").unwrap();
        drop(t);
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.title.as_deref(), Some("Fix the flaky login test"));
        assert_eq!(loaded.messages.len(), 1);
        let line: serde_json::Value =
            serde_json::from_str(std::fs::read_to_string(&path).unwrap().lines().nth(1).unwrap()).unwrap();
        assert_eq!(line["type"], "summary");
        assert_eq!(line["leafUuid"], loaded.last_uuid.unwrap());
        let info = SessionInfo {
            session_id: "s2".into(),
            path,
            modified: SystemTime::now(),
            first_prompt: "fix the login test please".into(),
            title: None,
            turns: 0,
        };
        assert_eq!(info.label(), "fix the login test please", "untitled: the first prompt");
    }

    #[test]
    fn project_directories_are_named_like_claude_codes() {
        assert_eq!(
            project_dir(Path::new("/r"), Path::new("/home/u/my_repo")),
            Path::new("/r/projects/-home-u-my-repo")
        );
    }
}
