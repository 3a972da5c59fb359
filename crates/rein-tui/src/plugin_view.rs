//! `/plugin` as lists to pick from: what is installed (each opens what can be done with
//! it), each marketplace to browse, and adding one; a marketplace's plugins (taking one
//! installs it, or opens what can be done with it when it is installed). Each choice
//! runs the `/plugin` command it stands for ([`crate::plugin_slash`]), so the lists and
//! the typed commands can never disagree.

use rein_plugins::{catalogue, ops};

use crate::app::App;
use crate::pickers::{Choose, Pick};

/// The list `/plugin ARGS` opens, when it opens one: none for ARGS that print.
pub(crate) fn open(app: &App, args: &str) -> Option<Choose> {
    let ctx = crate::plugin_slash::context(&app.cwd, app.info.plugin_store.as_ref())?;
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] => Some(menu(&ctx)),
        ["browse"] => browse(&ctx, None),
        ["browse", name] => browse(&ctx, Some(name)),
        ["manage", id, "--scope", scope] => Some(manage(&ctx, id, scope)),
        _ => None,
    }
}

fn choose(title: String, items: Vec<(String, Pick)>) -> Choose {
    Choose { title, items, selected: 0 }
}

/// Installed plugins, marketplaces to browse, adding one.
fn menu(ctx: &ops::Context) -> Choose {
    let mut items = Vec::new();
    for l in ops::list(ctx).unwrap_or_default() {
        let on = if l.enabled { "enabled" } else { "disabled" };
        let label = format!("{} {} ({}, {on})", l.id, l.version, l.scope);
        items.push((label, Pick::Run(format!("plugin manage {} --scope {}", l.id, l.scope))));
    }
    // What every marketplace offers, read once.
    let offers = catalogue::offered(ctx, None).unwrap_or_default();
    for (name, source, _) in ops::marketplace_list(ctx).unwrap_or_default() {
        let offered = offers.iter().filter(|o| o.marketplace == name).count();
        let label = format!("Browse {name}: {offered} plugin(s) ({source})");
        items.push((label, Pick::Run(format!("plugin browse {name}"))));
    }
    items.push(("Add a marketplace…".into(), Pick::Draft("/plugin marketplace add ".into())));
    choose("Plugins".into(), items)
}

/// A marketplace's plugins (or every marketplace's).
fn browse(ctx: &ops::Context, only: Option<&str>) -> Option<Choose> {
    let offers = catalogue::offered(ctx, only).ok()?;
    let items = offers
        .iter()
        .map(|o| {
            let pick = match o.installed.first() {
                Some(scope) => Pick::Run(format!("plugin manage {} --scope {scope}", o.id())),
                None => Pick::Run(format!("plugin install {}", o.id())),
            };
            (crate::plugin_slash::offer_line(o), pick)
        })
        .collect();
    let title = match only {
        Some(name) => format!("Plugins of {name}: enter installs"),
        None => "Plugins the marketplaces offer: enter installs".into(),
    };
    Some(choose(title, items))
}

/// What can be done with an installed plugin.
fn manage(ctx: &ops::Context, id: &str, scope: &str) -> Choose {
    let enabled = ops::list(ctx).unwrap_or_default().iter().any(|l| l.id == id && l.scope == scope && l.enabled);
    let (verb, word) = if enabled { ("disable", "Disable") } else { ("enable", "Enable") };
    let mut items = vec![
        (format!("{word} it"), Pick::Run(format!("plugin {verb} {id} --scope {scope}"))),
        ("Uninstall it".into(), Pick::Run(format!("plugin uninstall {id} --scope {scope}"))),
    ];
    if let Some((_, market)) = id.rsplit_once('@') {
        items.push((
            format!("Update the {market} marketplace"),
            Pick::Run(format!("plugin marketplace update {market}")),
        ));
    }
    choose(format!("{id} ({scope})"), items)
}
