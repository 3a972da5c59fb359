//! Which session this is: a new one, `--session-id`, `--resume` (an id or a title,
//! rein's or Claude Code's), `--continue`, `--fork-session`; its history, transcript and
//! folder. A session of rein's is shown to Claude Code (`claude -r` finds it).

use std::path::Path;

use crate::error::{Context, invalid};
use crate::{Options, Setup};

impl Setup {
    /// Pick the session id and transcript: new, --session-id, --resume, --continue,
    /// --fork-session.
    pub(crate) fn open_session(&mut self, opts: &Options) -> crate::Result<()> {
        let rein_home = self.env.rein_home.clone();
        let claude = crate::claude_dir(&self.env);
        let resumed = match (&opts.resume, opts.continue_session) {
            (Some(id), _) => {
                let mut path = rein_transcript::transcript_path(&rein_home, &self.cwd, id);
                // A session Claude Code recorded for this folder.
                if !path.exists()
                    && let Some(cc) = claude.as_ref().map(|c| rein_transcript::transcript_path(c, &self.cwd, id))
                    && cc.exists()
                {
                    path = cc;
                }
                if !path.exists() {
                    // Not an id: a session of this directory by its title, as Claude Code takes it.
                    let titled = crate::sessions_of(&rein_home, claude.as_deref(), &self.cwd)
                        .into_iter()
                        .find(|s| s.title.as_deref().is_some_and(|t| t.eq_ignore_ascii_case(id.trim())));
                    match titled {
                        Some(info) => path = info.path,
                        None => return Err(rein_transcript::SessionError::NotFound(id.clone()).into()),
                    }
                }
                Some(rein_transcript::load(&path)?)
            }
            // A transcript killed before its first line holds no session to continue.
            (None, true) => match crate::sessions_of(&rein_home, claude.as_deref(), &self.cwd)
                .into_iter()
                .find(|s| !s.first_prompt.is_empty() || s.turns > 0)
            {
                Some(info) => Some(rein_transcript::load(&info.path)?),
                None => invalid!("no earlier session in {} to continue", self.cwd.display()),
            },
            (None, false) => None,
        };
        if let Some(id) = &opts.session_id {
            uuid::Uuid::parse_str(id).with_context(|| format!("--session-id {id:?} is not a UUID"))?;
            self.session_id = id.clone();
        }
        // A session resumed from Claude Code's folder goes on in its own file there (both
        // tools then see the whole of it).
        let resumed_in_claude = resumed
            .as_ref()
            .filter(|l| claude.as_ref().is_some_and(|c| l.path.starts_with(c)) && !opts.fork_session)
            .map(|l| l.path.clone());
        if let Some(loaded) = resumed {
            if loaded.skipped > 0 {
                let skipped =
                    format!("{} unreadable line(s) in {} were skipped", loaded.skipped, loaded.path.display());
                self.notices.push(skipped);
            }
            if !opts.fork_session && opts.session_id.is_none() {
                self.session_id = loaded.session_id.clone();
                self.history_last = loaded.last_uuid.clone();
            }
            self.history = loaded.messages;
            self.history_deferred = loaded.deferred;
        }
        if !opts.no_session_persistence {
            let own = rein_transcript::transcript_path(&rein_home, &self.cwd, &self.session_id);
            // rein's own file is shown to Claude Code when the session is built
            // ([`Setup::show_to_claude_code`]).
            self.transcript = Some(match resumed_in_claude {
                Some(theirs) if opts.session_id.is_none() => theirs,
                _ => own,
            });
        }
        // Spilled results live under the session's own id, in the user's rein home; this
        // session's (and only its) saved outputs are read without a question.
        self.session_dir = rein_home.join("sessions").join(&self.session_id);
        std::sync::Arc::make_mut(&mut self.policy).saved_outputs = Some(self.session_dir.join("tool-results"));
        Ok(())
    }
}

impl Setup {
    /// Let Claude Code find this session when its transcript is rein's own file
    /// (`claude -r`): done when the session is built, not while it is resolved.
    pub(crate) fn show_to_claude_code(&self) {
        let own = rein_transcript::transcript_path(&self.env.rein_home, &self.cwd, &self.session_id);
        if self.transcript.as_ref() == Some(&own) {
            link_for_claude_code(crate::claude_dir(&self.env).as_deref(), &self.cwd, &self.session_id, &own);
        }
    }
}

/// A link to rein's transcript in Claude Code's folder for this directory, when that
/// folder exists. Nothing is made where a file of that name already is.
fn link_for_claude_code(claude: Option<&Path>, cwd: &Path, session_id: &str, own: &Path) {
    let Some(claude) = claude.filter(|c| c.is_dir()) else { return };
    let theirs = rein_transcript::transcript_path(claude, cwd, session_id);
    if theirs == own || std::fs::symlink_metadata(&theirs).is_ok() {
        return;
    }
    if let Some(dir) = theirs.parent()
        && std::fs::create_dir_all(dir).is_ok()
    {
        let _ = std::os::unix::fs::symlink(own, &theirs);
    }
}
