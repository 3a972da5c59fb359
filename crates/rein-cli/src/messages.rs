//! The one door for what rein prints to the person: the session owner's
//! (`rein_session::messages`), shared with the SDK host and the interactive UI.

pub(crate) use rein_session::messages::terminal_owned;
pub(crate) use rein_session::{err_message, message, note_message};
