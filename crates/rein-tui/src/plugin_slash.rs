//! `/plugin`: the plugins in use, and the `rein plugin` commands from inside the session
//! (`install NAME[@MARKETPLACE] [--scope user|project|local]`, `uninstall`, `enable`,
//! `disable`, `browse [MARKETPLACE]`, `marketplace add|list|update|remove`, `validate
//! DIR`), writing the same files as `claude plugin`. A plugin named without its
//! marketplace is the one some marketplace offers; an uninstall, enable or disable
//! without `--scope` acts where the plugin is installed. What they change takes effect
//! in the next session. [`crate::plugin_view`] draws the same as lists to pick from.

use std::path::Path;

use rein_plugins::{catalogue, ops};

const USAGE: &str = "Usage: /plugin [list] | browse [MARKETPLACE] | install|uninstall|enable|disable NAME[@MARKETPLACE] \
                     [--scope user|project|local] | marketplace add SOURCE | marketplace list [NAME] | marketplace \
                     update [NAME] | marketplace remove NAME | validate DIR";

/// Where the commands act, when there is a plugins folder.
pub(crate) fn context(cwd: &Path, store: Option<&rein_plugins::Store>) -> Option<ops::Context> {
    Some(ops::Context { store: store?.clone(), cwd: cwd.to_path_buf() })
}

/// The lines `/plugin ARGS` prints; `in_use`: this session's plugins.
pub(crate) fn run(args: &str, cwd: &Path, in_use: &[String], store: Option<&rein_plugins::Store>) -> Vec<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let Some(ctx) = context(cwd, store) else {
        return vec!["HOME is not set: there is no plugins folder".into()];
    };
    let told = words.iter().position(|w| *w == "--scope" || *w == "-s").and_then(|i| words.get(i + 1).copied());
    let next = " (restart rein to use the change)";
    let done = |r: rein_plugins::Result<String>| match r {
        Ok(line) => vec![line],
        Err(e) => vec![format!("✘ {e}")],
    };
    // Where an installed plugin is acted on: as told, else where it is installed.
    let scope_of = |spec: &str| told.map_or_else(|| catalogue::installed_scope(&ctx, spec), |s| Ok(s.to_string()));
    match words.as_slice() {
        [] | ["list"] => list(&ctx, in_use),
        ["browse"] | ["marketplace", "list", _] | ["browse", _] => {
            browse(&ctx, words.last().filter(|w| **w != "browse"))
        }
        ["install" | "i", spec, ..] => done(catalogue::full_spec(&ctx, spec).and_then(|spec| {
            let scope = told.unwrap_or("user");
            ops::install(&ctx, &spec, scope).map(|_| format!("✔ Installed {spec} (scope: {scope}){next}"))
        })),
        ["uninstall" | "remove", spec, ..] => done(catalogue::full_spec(&ctx, spec).and_then(|spec| {
            let scope = scope_of(&spec)?;
            ops::uninstall(&ctx, &spec, &scope).map(|_| format!("✔ Uninstalled {spec} (scope: {scope}){next}"))
        })),
        [verb @ ("enable" | "disable"), spec, ..] => done(catalogue::full_spec(&ctx, spec).and_then(|spec| {
            let scope = scope_of(&spec)?;
            let on = *verb == "enable";
            let word = if on { "Enabled" } else { "Disabled" };
            ops::set_enabled(&ctx, &spec, &scope, on).map(|_| format!("✔ {word} {spec} (scope: {scope}){next}"))
        })),
        ["marketplace", "add", source] => done(ops::marketplace_add(&ctx, source).map(|n| {
            format!("✔ Added marketplace {n} (declared in user settings): /plugin browse {n} lists what it offers")
        })),
        ["marketplace"] | ["marketplace", "list"] => match ops::marketplace_list(&ctx) {
            Ok(known) if known.is_empty() => vec!["No marketplaces configured".into()],
            Ok(known) => known.into_iter().map(|(n, s, _)| format!("{n}  ({s})")).collect(),
            Err(e) => vec![format!("✘ {e}")],
        },
        ["marketplace", "update", rest @ ..] => {
            done(ops::marketplace_update(&ctx, rest.first().copied()).map(|n| format!("✔ Updated {}", n.join(", "))))
        }
        ["marketplace", "remove" | "rm", name] => {
            let left = catalogue::installed_from(&ctx, name).unwrap_or_default();
            let mut out = done(ops::marketplace_remove(&ctx, name).map(|_| format!("✔ Removed marketplace {name}")));
            if !left.is_empty() && out.iter().all(|l| l.starts_with('✔')) {
                out.push(format!(
                    "Still installed from it, now without updates: {} (/plugin uninstall NAME removes one)",
                    left.join(", ")
                ));
            }
            out
        }
        ["validate", dir] => {
            let problems = ops::validate(&cwd.join(dir));
            if problems.is_empty() { vec![format!("✔ {dir} is valid")] } else { problems }
        }
        _ => vec![USAGE.into()],
    }
}

/// What the marketplaces (or `only` one) offer, one plugin a line.
fn browse(ctx: &ops::Context, only: Option<&&str>) -> Vec<String> {
    match catalogue::offered(ctx, only.copied()) {
        Ok(offers) if offers.is_empty() => {
            vec!["No marketplace offers anything yet (/plugin marketplace add SOURCE adds one)".into()]
        }
        Ok(offers) => offers.iter().map(offer_line).collect(),
        Err(e) => vec![format!("✘ {e}")],
    }
}

/// One offer as a line: its id, what it is, whether it is installed.
pub(crate) fn offer_line(o: &catalogue::Offer) -> String {
    let installed =
        if o.installed.is_empty() { String::new() } else { format!(" [installed: {}]", o.installed.join(", ")) };
    let about = if o.description.is_empty() { String::new() } else { format!(" — {}", o.description) };
    format!("{}{about}{installed}", o.id())
}

fn list(ctx: &ops::Context, in_use: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if in_use.is_empty() {
        out.push("No plugins in use in this session.".into());
    } else {
        out.push("In use:".into());
        out.extend(in_use.iter().map(|p| format!("  {p}")));
    }
    match ops::list(ctx) {
        Ok(listed) if listed.is_empty() => {
            let markets = ops::marketplace_list(ctx).map(|m| m.len()).unwrap_or(0);
            out.push(if markets == 0 {
                "Nothing installed (/plugin marketplace add SOURCE, then /plugin browse and /plugin install).".into()
            } else {
                format!("Nothing installed yet: /plugin browse lists what {markets} marketplace(s) offer.")
            });
        }
        Ok(listed) => {
            out.push("Installed:".into());
            for l in listed {
                let on = if l.enabled { "enabled" } else { "disabled" };
                out.push(format!("  {} {} ({}, {on})", l.id, l.version, l.scope));
            }
        }
        Err(e) => out.push(format!("✘ {e}")),
    }
    out
}
