//! The live session as the frontends open it: built by the session owner, then taken
//! back to `--rewind-to`'s prompt (which may ask in the terminal).

use std::sync::Arc;

use rein_engine::Approver;
use rein_model::Model;
use rein_policy::SharedPolicy;

use crate::session::Setup;

pub use rein_session::build::small_model;

/// Build the session for a frontend (`approver` answers questions; none headless).
pub fn build(
    setup: &Setup,
    model: Arc<dyn Model>,
    policy: SharedPolicy,
    approver: Option<Arc<dyn Approver>>,
) -> anyhow::Result<rein_session::Session> {
    for notice in &setup.notices {
        crate::messages::message!("{notice}");
    }
    let mut session = rein_session::build::build(setup, model, policy, approver)?;
    if let Some(uuid) = &setup.rewind_to {
        crate::rewind::before_first_prompt(session.engine_mut(), uuid)?;
    }
    Ok(session)
}
