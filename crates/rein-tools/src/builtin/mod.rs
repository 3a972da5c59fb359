//! rein's built-in tools, with Claude Code's names and input schemas.

mod bash;
mod capped;
mod edit;
mod files;
mod glob;
mod grep;
mod read;
mod write;

pub use bash::Bash;
pub use edit::{Edit, MultiEdit};
pub use glob::Glob;
pub use grep::Grep;
pub use read::Read;
pub use write::Write;

use crate::{Registry, RegistryError};

/// Put every built-in tool in `registry`.
pub fn register_builtins(registry: &mut Registry) -> Result<(), RegistryError> {
    registry.register(Read)?;
    registry.register(Glob)?;
    registry.register(Grep)?;
    registry.register(Bash)?;
    registry.register(Write)?;
    registry.register(Edit)?;
    registry.register(MultiEdit)?;
    Ok(())
}
