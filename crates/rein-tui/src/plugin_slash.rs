//! `/plugin`: the plugins in use, and the `rein plugin` commands from inside the session
//! (`install NAME@MARKETPLACE [--scope user|project|local]`, `uninstall`, `enable`,
//! `disable`, `marketplace add|list|update|remove`, `validate DIR`), writing the same
//! files as `claude plugin`. What they change takes effect in the next session.

use std::path::Path;

use rein_plugins::ops;

const USAGE: &str = "Usage: /plugin [list] | install|uninstall|enable|disable NAME@MARKETPLACE [--scope user|project|local] \
                     | marketplace add SOURCE | marketplace list|update [NAME]|remove NAME | validate DIR";

/// The lines `/plugin ARGS` prints; `in_use`: this session's plugins.
pub(crate) fn run(args: &str, cwd: &Path, in_use: &[String], store: Option<&rein_plugins::Store>) -> Vec<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let Some(store) = store.cloned() else {
        return vec!["HOME is not set: there is no plugins folder".into()];
    };
    let ctx = ops::Context { store, cwd: cwd.to_path_buf() };
    let scope = scope_of(&words);
    let next = " (restart rein to use the change)";
    let done = |r: rein_plugins::Result<String>| match r {
        Ok(line) => vec![line],
        Err(e) => vec![format!("✘ {e}")],
    };
    match words.as_slice() {
        [] | ["list"] => list(&ctx, in_use),
        ["install" | "i", spec, ..] => {
            done(ops::install(&ctx, spec, scope).map(|_| format!("✔ Installed {spec} (scope: {scope}){next}")))
        }
        ["uninstall" | "remove", spec, ..] => {
            done(ops::uninstall(&ctx, spec, scope).map(|_| format!("✔ Uninstalled {spec} (scope: {scope}){next}")))
        }
        ["enable", spec, ..] => {
            done(ops::set_enabled(&ctx, spec, scope, true).map(|_| format!("✔ Enabled {spec} (scope: {scope}){next}")))
        }
        ["disable", spec, ..] => done(
            ops::set_enabled(&ctx, spec, scope, false).map(|_| format!("✔ Disabled {spec} (scope: {scope}){next}")),
        ),
        ["marketplace", "add", source] => done(
            ops::marketplace_add(&ctx, source).map(|n| format!("✔ Added marketplace {n} (declared in user settings)")),
        ),
        ["marketplace"] | ["marketplace", "list"] => match ops::marketplace_list(&ctx) {
            Ok(known) if known.is_empty() => vec!["No marketplaces configured".into()],
            Ok(known) => known.into_iter().map(|(n, s, _)| format!("{n}  ({s})")).collect(),
            Err(e) => vec![format!("✘ {e}")],
        },
        ["marketplace", "update", rest @ ..] => {
            done(ops::marketplace_update(&ctx, rest.first().copied()).map(|n| format!("✔ Updated {}", n.join(", "))))
        }
        ["marketplace", "remove" | "rm", name] => {
            done(ops::marketplace_remove(&ctx, name).map(|_| format!("✔ Removed marketplace {name}")))
        }
        ["validate", dir] => {
            let problems = ops::validate(&cwd.join(dir));
            if problems.is_empty() { vec![format!("✔ {dir} is valid")] } else { problems }
        }
        _ => vec![USAGE.into()],
    }
}

fn scope_of<'a>(words: &[&'a str]) -> &'a str {
    let at = words.iter().position(|w| *w == "--scope" || *w == "-s");
    at.and_then(|i| words.get(i + 1).copied()).unwrap_or("user")
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
            out.push("Nothing installed (/plugin marketplace add SOURCE, then /plugin install).".into());
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
