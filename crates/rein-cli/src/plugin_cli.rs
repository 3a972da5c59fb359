//! `rein plugin …`: the same commands, files and settings as `claude plugin` —
//! marketplaces (a local folder, `owner/repo` or a git URL, cloned with the user's own
//! `git`) and plugins installed from them, enabled per scope.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use rein_plugins::ops;

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum PluginAction {
    /// Add, list, update or remove marketplaces.
    Marketplace {
        #[command(subcommand)]
        action: MarketplaceAction,
    },
    /// Install PLUGIN@MARKETPLACE and enable it in the scope's settings.
    #[command(alias = "i")]
    Install {
        plugin: String,
        /// user, project (.claude/settings.json) or local (.claude/settings.local.json).
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Remove an installation (and its copy when nothing else uses it).
    #[command(alias = "remove")]
    Uninstall {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Turn a plugin on in the scope's settings.
    Enable {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Turn a plugin off in the scope's settings.
    Disable {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// The installed plugins, their scope and whether they are on.
    List,
    /// Check a plugin or marketplace folder.
    Validate { path: PathBuf },
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum MarketplaceAction {
    /// Add a marketplace: a folder, owner/repo, or a git URL (#ref for a branch or tag).
    Add { source: String },
    /// The known marketplaces.
    List,
    /// Fetch the newest state of one marketplace, or of all.
    Update { name: Option<String> },
    /// Forget a marketplace.
    #[command(alias = "rm")]
    Remove { name: String },
}

fn context() -> anyhow::Result<ops::Context> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let env = crate::env::Env::read();
    let store = rein_session::plugins::store(&env).context("HOME is not set")?;
    Ok(ops::Context { store, cwd })
}

/// The plugin's short name, as Claude Code's messages give it.
fn short(spec: &str) -> &str {
    spec.rsplit_once('@').map_or(spec, |(n, _)| n)
}

pub(crate) fn run(action: &PluginAction) -> anyhow::Result<ExitCode> {
    let ctx = context()?;
    match action {
        PluginAction::Marketplace { action } => marketplace(&ctx, action)?,
        PluginAction::Install { plugin, scope } => {
            ops::install(&ctx, plugin, scope)?;
            println!("✔ Successfully installed plugin: {plugin} (scope: {scope})");
        }
        PluginAction::Uninstall { plugin, scope } => {
            ops::uninstall(&ctx, plugin, scope)?;
            println!("✔ Successfully uninstalled plugin: {} (scope: {scope})", short(plugin));
        }
        PluginAction::Enable { plugin, scope } => {
            ops::set_enabled(&ctx, plugin, scope, true)?;
            println!("✔ Successfully enabled plugin: {} (scope: {scope})", short(plugin));
        }
        PluginAction::Disable { plugin, scope } => {
            ops::set_enabled(&ctx, plugin, scope, false)?;
            println!("✔ Successfully disabled plugin: {} (scope: {scope})", short(plugin));
        }
        PluginAction::List => {
            let listed = ops::list(&ctx)?;
            if listed.is_empty() {
                println!("No plugins installed. Add a marketplace (rein plugin marketplace add) and install from it.");
            } else {
                println!("Installed plugins:\n");
            }
            for l in listed {
                let status = if l.enabled { "✔ enabled" } else { "✘ disabled" };
                println!(
                    "  ❯ {}\n    Version: {}\n    Read from: {}\n    Scope: {}\n    Status: {status}\n",
                    l.id,
                    l.version,
                    l.path.display(),
                    l.scope
                );
            }
        }
        PluginAction::Validate { path } => {
            let problems = ops::validate(path);
            if !problems.is_empty() {
                for p in &problems {
                    eprintln!("✘ {p}");
                }
                return Ok(ExitCode::FAILURE);
            }
            println!("✔ {} is valid", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn marketplace(ctx: &ops::Context, action: &MarketplaceAction) -> anyhow::Result<()> {
    match action {
        MarketplaceAction::Add { source } => {
            let name = ops::marketplace_add(ctx, source)?;
            println!("✔ Successfully added marketplace: {name} (declared in user settings)");
        }
        MarketplaceAction::List => {
            let known = ops::marketplace_list(ctx)?;
            if known.is_empty() {
                println!("No marketplaces configured");
            }
            for (name, source, at) in known {
                println!("  ❯ {name}\n    Source: {source}\n    Location: {}", at.display());
            }
        }
        MarketplaceAction::Update { name } => {
            for n in ops::marketplace_update(ctx, name.as_deref())? {
                println!("✔ Successfully updated marketplace: {n}");
            }
        }
        MarketplaceAction::Remove { name } => {
            ops::marketplace_remove(ctx, name)?;
            println!("✔ Successfully removed marketplace: {name}");
        }
    }
    Ok(())
}
