//! rein's built-in tools, with Claude Code's names and input schemas.

mod bash;
mod capped;
mod glob;
mod grep;
mod read;

pub use bash::Bash;
pub use glob::Glob;
pub use grep::Grep;
pub use read::Read;

use crate::{Registry, RegistryError};

/// Put every built-in tool in `registry`.
pub fn register_builtins(registry: &mut Registry) -> Result<(), RegistryError> {
    registry.register(Read)?;
    registry.register(Glob)?;
    registry.register(Grep)?;
    registry.register(Bash)?;
    Ok(())
}
