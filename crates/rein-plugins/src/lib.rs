//! rein-plugins: Claude Code's plugins and marketplaces, unchanged. What `claude plugin`
//! installed is read where it keeps it (`~/.claude/plugins/`: `known_marketplaces.json`,
//! `installed_plugins.json`, the marketplace clones and the plugin cache) and enabled by
//! the settings' `enabledPlugins` ([`enabled`]); each plugin's components are found from
//! its `.claude-plugin/plugin.json` and its default folders ([`plugin`]); and `rein
//! plugin` writes the same files and settings `claude plugin` writes ([`ops`]), so a
//! plugin installed by one tool works in the other.

pub mod catalogue;
pub mod enabled;
mod files;
pub mod marketplace;
pub mod ops;
pub mod plugin;
pub mod store;

pub use enabled::{Enabled, Loaded, load};
pub use plugin::Plugin;
pub use store::Store;

/// Why a plugin, a marketplace or one of their files cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    /// A file that cannot be read or does not parse (with line and column when known).
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    /// What was asked for is not there or not allowed.
    #[error("{0}")]
    Invalid(String),
    /// The user's `git` failed.
    #[error("git {args}: {reason}")]
    Git { args: String, reason: String },
}

pub type Result<T> = std::result::Result<T, PluginError>;

/// `text` when it may name a folder of its own under the plugins folder — a marketplace,
/// a plugin, a version: letters, digits, `-`, `_`, `.`, `+`, never `.` or `..` — else
/// why not (a marketplace named `../../.ssh` must not become a path).
pub fn safe_name<'a>(text: &'a str, what: &str) -> Result<&'a str> {
    let plain = text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
    if text.is_empty() || text == "." || text == ".." || !plain || text.len() > 128 {
        return Err(PluginError::Invalid(format!("{what} {text:?} is not a plain name (letters, digits, - _ . +)")));
    }
    Ok(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
