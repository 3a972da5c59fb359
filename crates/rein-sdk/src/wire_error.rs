//! What the host program sent that rein cannot read, with serde's reason kept.

use serde_json::Value;

/// A field of a host's frame that is not what the protocol says.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("{subtype}: {source}")]
    Request { subtype: String, source: serde_json::Error },
    #[error("hooks.{event}: {source}")]
    Hooks { event: String, source: serde_json::Error },
    #[error("not a permission update rein knows ({source}): {update}")]
    Update { update: Value, source: serde_json::Error },
    #[error("unknown mode {0:?} in a setMode update")]
    Mode(String),
}
