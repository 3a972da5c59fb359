//! `/branch`: the conversation forked into a new session. The transcript so far is
//! copied under a new id (each line's `sessionId` rewritten, torn lines dropped), the
//! session goes on writing there, and the original file is left as it was: both can be
//! resumed.

use rein_transcript::Transcript;
use serde_json::Value;

use crate::CommandError;

impl crate::Session {
    /// Fork into a new session; its id and the original's.
    pub fn branch(&mut self) -> Result<(String, String), CommandError> {
        let home = self.parts.rein_home.clone().ok_or(CommandError::NoTranscript)?;
        let (from_id, from) = (self.live.session_id(), self.live.transcript());
        let id = uuid::Uuid::new_v4().to_string();
        let to = rein_transcript::transcript_path(&home, &self.parts.project_dir, &id);
        // A session that has not written yet has no file: the branch starts empty too.
        let text = match std::fs::read_to_string(&from) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(CommandError::Branch { path: from, source }),
        };
        let mut copied = String::with_capacity(text.len());
        for line in text.lines() {
            let Ok(mut v) = serde_json::from_str::<Value>(line) else { continue };
            if let Some(sid) = v.get_mut("sessionId") {
                *sid = Value::String(id.clone());
            }
            copied.push_str(&v.to_string());
            copied.push('\n');
        }
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|source| CommandError::Branch { path: dir.to_path_buf(), source })?;
        }
        std::fs::write(&to, copied).map_err(|source| CommandError::Branch { path: to.clone(), source })?;
        let last = self.engine.transcript_last_uuid();
        let transcript =
            Transcript::open(&to, &id, &self.parts.project_dir, last).map_err(CommandError::BranchTranscript)?;
        self.engine.set_transcript(transcript);
        self.live.renew(id.clone(), to);
        Ok((id, from_id))
    }
}
