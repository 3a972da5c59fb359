//! `rein sessions`: this directory's sessions, newest first.

use anyhow::Context;

use crate::env::Env;

/// `rein sessions`.
pub(crate) fn list() -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let sessions = rein_session::earlier_sessions(&Env::read().rein_home, &cwd);
    if sessions.is_empty() {
        println!("no sessions in {}", cwd.display());
    }
    for s in sessions {
        let when: chrono::DateTime<chrono::Local> = s.modified.into();
        let prompt = s.label();
        println!("{}  {}  {:>4} turns  {}", s.session_id, when.format("%Y-%m-%d %H:%M"), s.turns, prompt);
    }
    Ok(())
}
