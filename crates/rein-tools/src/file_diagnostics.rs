//! The seam through which a file tool's result gains what a language server says of the
//! file it changed: after Edit, Write or MultiEdit, the chain asks the session's language
//! servers (rein-lsp) for the file's new diagnostics and adds them to the result, so the
//! model sees the type error its edit made in the same turn. Without one, nothing is
//! added.

use std::path::Path;

use futures::future::BoxFuture;

/// Reports the diagnostics a change to a file brought.
pub trait FileDiagnostics: Send + Sync + std::fmt::Debug {
    /// Whether some language server handles `path` (its extension).
    fn covers(&self, path: &Path) -> bool;

    /// What is new in `path`'s diagnostics since the server last saw it, as text for the
    /// model (bounded in size); `None` when there is nothing to say or the server could
    /// not answer in time.
    fn after_change<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>>;
}
