//! `--safe-mode`, as Claude Code's: a session started to find out whether the person's
//! own setup is what misbehaves. The person's and the project's customisations are left
//! out — memory and rules, skills, commands, subagents and output styles (through
//! [`Options::sources`](crate::Options::sources)), plugins, hooks, the status line,
//! configured MCP servers and the persistent memory — while the settings still give the
//! model and the permission rules, and the organisation's (managed) customisations stay.
//! What the command line itself gives (`--plugin-dir`, `--mcp-config`) is used.

use std::borrow::Cow;

use rein_settings::{Scope, Settings};

use crate::Options;

/// The settings that customisations (hooks, status line, plugins) are read from: all of
/// them, or in safe mode only the managed ones.
pub(crate) fn customisations<'a>(opts: &Options, settings: &'a Settings) -> Cow<'a, Settings> {
    if !opts.safe_mode {
        return Cow::Borrowed(settings);
    }
    let files = settings.files.iter().filter(|f| f.scope == Scope::Managed).cloned().collect();
    Cow::Owned(Settings { files })
}
