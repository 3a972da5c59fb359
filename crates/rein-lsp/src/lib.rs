//! Code intelligence, as Claude Code gives it: the language servers of plugins'
//! `.lsp.json` (and the settings' `lspServers`), each started the first time a file of its
//! language is used and kept for the session, with the environment every process rein
//! starts gets (rein's own credentials are never in it).
//!
//! - [`Lsp`] is the `LSP` tool: definition, references, hover, document and workspace
//!   symbols, implementation and the call hierarchy, at a position counted from 1.
//! - [`LanguageServers`] also implements [`rein_tools::FileDiagnostics`]: after Edit,
//!   Write or MultiEdit the chain adds the diagnostics the change brought to the result.
//!
//! The protocol is lsp-types' messages over async-lsp's JSON-RPC main loop; rein
//! synchronises whole documents from disk before each use, so what the server sees is
//! what the file holds.

mod diagnostics;
mod error;
mod frames;
mod position;
mod protected;
mod render;
mod server;
mod servers;
mod spec;
mod start;
mod tool;

pub use error::{LspError, SpecError};
pub use server::Server;
pub use servers::{LanguageServers, SharedServers};
pub use spec::ServerSpec;
pub use tool::{Lsp, LspInput, Operation};
