//! The live session as the frontends open it: built by the session owner, then taken
//! back to `--rewind-to`'s prompt (which may ask in the terminal).

use rein_session::Builder;

/// Build the session `builder` describes for a frontend, after saying the setup's
/// notices.
pub(crate) fn build(builder: Builder<'_>) -> anyhow::Result<rein_session::Session> {
    for notice in builder.notices() {
        crate::messages::message!("{notice}");
    }
    let rewind_to = builder.setup().rewind_to.clone();
    let mut session = builder.build()?;
    if let Some(uuid) = &rewind_to {
        crate::rewind::before_first_prompt(&mut session, uuid)?;
    }
    Ok(session)
}
