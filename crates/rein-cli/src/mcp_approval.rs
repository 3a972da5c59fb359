//! Before an interactive session starts: the servers of the project's `.mcp.json` that
//! nobody approved yet are shown, and the person picks which may run (Space toggles,
//! Enter confirms, Esc rejects all). The choice is recorded in
//! `.claude/settings.local.json` (`enabledMcpjsonServers` / `disabledMcpjsonServers`), so
//! it is asked once.

use rein_mcp::config::Source;
use rein_mcp::policy::Held;

use crate::args::Args;
use crate::session::Setup;

/// Ask about unapproved project servers and record the answer; the session's overrides
/// that approve the chosen ones and keep the others off.
pub(crate) fn ask(args: &Args, setup: &Setup) -> anyhow::Result<rein_session::Overrides> {
    let loaded = rein_mcp::config::load(&crate::mcp::locations(&args.options(), setup), &|k| setup.var(k))?;
    let waiting: Vec<String> = loaded
        .servers
        .iter()
        .filter(|s| s.source == Source::Project && setup.mcp_policy.hold(s) == Some(Held::NeedsApproval))
        .map(|s| s.name.clone())
        .collect();
    if waiting.is_empty() {
        return Ok(rein_session::Overrides::default());
    }
    let chosen = rein_tui::pick_mcp_servers(&waiting)?;
    let enabled: Vec<String> = waiting.iter().zip(&chosen).filter(|(_, c)| **c).map(|(n, _)| n.clone()).collect();
    let disabled: Vec<String> = waiting.iter().zip(&chosen).filter(|(_, c)| !**c).map(|(n, _)| n.clone()).collect();
    let root = rein_prompt::find_git_root(&setup.cwd).unwrap_or_else(|| setup.cwd.clone());
    rein_settings::record_mcpjson_choices(&root, &enabled, &disabled)?;
    Ok(rein_session::Overrides { approved_mcp: enabled, declined_mcp: disabled, ..Default::default() })
}
