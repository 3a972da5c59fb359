//! Appending lines.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use rein_protocol::{AssistantMessage, Message};
use serde_json::{Value, json};

use crate::{SessionError, TranscriptEvent};

/// An open transcript. Every append is written and flushed before it returns.
pub struct Transcript {
    file: File,
    path: PathBuf,
    session_id: String,
    cwd: String,
    /// The uuid of the last message line: the next line's parent.
    last: Option<String>,
}

impl Transcript {
    /// Open (creating it and its directory) the transcript at `path` for appending;
    /// `last` is the uuid of the last message line when resuming.
    pub fn open(path: &Path, session_id: &str, cwd: &Path, last: Option<String>) -> Result<Transcript, SessionError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(|e| SessionError::io(path, e))?;
        Ok(Transcript {
            file,
            path: path.to_path_buf(),
            session_id: session_id.to_string(),
            cwd: cwd.display().to_string(),
            last,
        })
    }

    /// The uuid of the last message line.
    pub fn last_uuid(&self) -> Option<&str> {
        self.last.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn line(&mut self, kind: &str, extra: Value, is_message: bool) -> Result<(), SessionError> {
        let uuid = uuid::Uuid::new_v4().to_string();
        let mut v = json!({
            "type": kind,
            "uuid": uuid,
            "parentUuid": self.last,
            "sessionId": self.session_id,
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "cwd": self.cwd,
            "version": env!("CARGO_PKG_VERSION"),
            "userType": "external",
            "isSidechain": false,
        });
        if let (Value::Object(map), Value::Object(more)) = (&mut v, extra) {
            map.extend(more);
        }
        self.append(&v)?;
        if is_message {
            self.last = Some(uuid);
        }
        Ok(())
    }

    /// `v` as one line, written and flushed at once: a crash leaves at most a torn last line.
    fn append(&mut self, v: &Value) -> Result<(), SessionError> {
        let mut text = v.to_string();
        text.push('\n');
        self.file.write_all(text.as_bytes()).map_err(|e| SessionError::io(&self.path, e))?;
        self.file.flush().map_err(|e| SessionError::io(&self.path, e))
    }

    /// A user message (a prompt, or tool results).
    pub fn user(&mut self, message: &Message, is_meta: bool) -> Result<(), SessionError> {
        let mut extra = json!({"message": message});
        if is_meta {
            extra["isMeta"] = json!(true);
        }
        self.line("user", extra, true)
    }

    /// Any message, its line type taken from its role (copying a history).
    pub fn message(&mut self, message: &Message) -> Result<(), SessionError> {
        let kind = match message.role {
            rein_protocol::Role::User => "user",
            rein_protocol::Role::Assistant => "assistant",
        };
        self.line(kind, json!({"message": message}), true)
    }

    /// A complete assistant message, as the API returned it.
    pub fn assistant(&mut self, message: &AssistantMessage) -> Result<(), SessionError> {
        self.line("assistant", json!({"message": message}), true)
    }

    /// The session's title (made by the small model from its first prompt), as Claude
    /// Code's summary line: `{"type":"summary","summary":…,"leafUuid":…}`.
    pub fn title(&mut self, title: &str) -> Result<(), SessionError> {
        self.append(&json!({"type": "summary", "summary": title, "leafUuid": self.last}))
    }

    /// An event that is not part of the conversation (a tool starting, a permission
    /// decision, an interrupt).
    pub fn event(&mut self, event: &TranscriptEvent) -> Result<(), SessionError> {
        let extra = serde_json::to_value(event).map_err(|e| SessionError::io(&self.path, e))?;
        self.line("system", extra, false)
    }
}
