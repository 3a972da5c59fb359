//! Settings and the permission policy for a session, and `rein permissions check|list`.
//! Both read the tools' own declarations (rule kinds and effects), as the engine does.

use std::path::PathBuf;

use anyhow::{Context, bail};
use rein_policy::{Call, Effects, ToolKinds};
use rein_tools::{Registry, ToolContext};
use serde_json::{Map, Value};

use crate::args::{Args, PermissionsAction};
use rein_session::rules::load;

/// `rein permissions …`.
pub(crate) fn run(args: &Args, action: &PermissionsAction) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let home = crate::env::Env::read().home;
    let (registry, kinds) = crate::session::builtin_tools()?;
    let (settings, mut policy) = load(&args.options(), &cwd, home.as_deref(), kinds.clone())?;
    // The sandbox as a session would have it: a Bash call's decision depends on
    // whether it runs there.
    let config = rein_session::sandbox::config(&args.options(), &settings, &cwd, home.as_deref());
    let auto_allow = config.auto_allow_bash;
    let sandbox = rein_session::sandbox::setup(config, &policy, crate::env::Env::read().sandbox_tier, &mut Vec::new())?;
    if let Some(s) = &sandbox {
        policy.sandbox_auto_allow = auto_allow && s.is_active();
    }
    let (registry, kinds) = match &sandbox {
        Some(s) => rein_session::builtin_tools_in(Some(s.clone()))?,
        None => (registry, kinds),
    };
    match action {
        PermissionsAction::List => {
            println!("mode: {} (from {})", policy.mode.name(), policy.mode_source);
            let roots: Vec<String> = policy.roots.iter().map(|r| r.display().to_string()).collect();
            println!("workspace: {}", roots.join(", "));
            for rule in policy.rules() {
                let kind = if rule.is_bare() {
                    "whole tool"
                } else {
                    policy.rule_kind(&rule.tool).map(|k| k.name()).unwrap_or("field")
                };
                println!("{:5}  {:40}  {:10}  {}", rule.kind.name(), rule.text, kind, rule.origin);
            }
            Ok(())
        }
        PermissionsAction::Check { calls, auto } => {
            let mut ctx = ToolContext::new(cwd, std::env::temp_dir());
            ctx.home = home;
            let judge = if *auto { Some(crate::judge_cli::Judging::new(args)?) } else { None };
            for call in calls {
                let (tool, arg) = split_call(call)?;
                let input = example_input(&registry, &kinds, &tool, &arg);
                let effects = match registry.prepare(&tool, &input) {
                    Ok(prepared) => prepared.effects(&ctx),
                    Err(_) => Effects::undeclared(),
                };
                let d = policy.decide(&Call { tool: &tool, input: &input, effects: &effects });
                println!("{}: {tool} {input}", d.behavior.name().to_uppercase());
                println!("  why: {}", d.reason);
                println!("  decided by: {}", d.source);
                if effects.shell.is_some() {
                    println!("  path: {}", path_taken(&d, &effects, &input, sandbox.as_deref()));
                }
                println!("  mode: {} (from {})", policy.mode.name(), policy.mode_source);
                print_effects(&effects);
                if let Some(judge) = &judge {
                    let call = rein_protocol::ToolUse { id: "check".into(), name: tool.clone(), input: input.clone() };
                    judge.explain(&call, &effects, &d, &policy.roots);
                }
            }
            Ok(())
        }
    }
}

/// Where a shell command goes from this decision: run with what the person's setup
/// gives, run in the jail rein's own judgement is enforced by, tried first, asked, or
/// denied.
fn path_taken(
    d: &rein_policy::Decision,
    effects: &Effects,
    input: &Value,
    sandbox: Option<&rein_sandbox::Sandbox>,
) -> String {
    use rein_policy::{Behavior, Confinement, Grant};
    let enforced = sandbox.is_some_and(|s| s.can_enforce());
    match d.behavior {
        Behavior::Deny => "denied".into(),
        Behavior::Allow if d.grant == Grant::User => {
            let sandboxed = effects.shell.as_ref().is_some_and(|s| s.confinement == Confinement::Sandboxed);
            format!("allowed by the person's say; runs {}", if sandboxed { "in their sandbox" } else { "unsandboxed" })
        }
        Behavior::Allow if enforced => {
            format!("enforced allow: runs in rein's {} (the sandbox holds it to that)", d.grant.name())
        }
        Behavior::Allow => "allowed by rein's judgement, NOT enforced: no sandbox tier works on this host".into(),
        Behavior::Ask => {
            let background = input.get("run_in_background") == Some(&Value::Bool(true));
            let leaves = effects.shell.as_ref().is_some_and(|s| s.confinement == Confinement::Unsandboxed);
            if d.may_be_tried() && !background && !leaves && sandbox.is_some_and(|s| s.can_try()) {
                "tried first where it can change nothing; asked only if it changes files, tries the network or \
                 meets the jail's walls"
                    .into()
            } else {
                "asked".into()
            }
        }
    }
}

/// What the call touches, as the tool declared it.
fn print_effects(e: &Effects) {
    let list = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    if !e.declared {
        println!("  effects: not declared (treated as writing anywhere)");
        return;
    }
    if !e.reads.is_empty() {
        println!("  reads: {}", list(&e.reads));
    }
    if !e.writes.is_empty() {
        println!("  writes: {}", list(&e.writes));
    }
    if !e.reads_within.is_empty() {
        println!("  reads every file in: {}", list(&e.reads_within));
    }
    if !e.hosts.is_empty() {
        println!("  hosts: {}", e.hosts.join(", "));
    }
    if let Some(shell) = &e.shell {
        let commands: Vec<String> = shell.analysis.commands.iter().map(|c| c.allow_form()).collect();
        println!("  commands: {}", commands.join(" | "));
        for p in &shell.analysis.problems {
            println!("  not understood ({}): {p}", p.class.name());
        }
    }
    println!("  read-only: {}", if e.read_only { "yes" } else { "no" });
}

/// `Tool(argument)` → the tool name and its argument.
fn split_call(text: &str) -> anyhow::Result<(String, String)> {
    let t = text.trim();
    match t.find('(') {
        Some(open) => match t[open + 1..].strip_suffix(')') {
            Some(arg) => Ok((t[..open].to_string(), arg.to_string())),
            None => bail!("write the call as Tool(argument), e.g. 'Bash(git push)'"),
        },
        None => Ok((t.to_string(), String::new())),
    }
}

/// An input for `tool` with `arg` in the field its rules are about, and every other
/// required field filled with an empty value of its type.
fn example_input(registry: &Registry, kinds: &ToolKinds, tool: &str, arg: &str) -> Value {
    let mut input = Map::new();
    if let Some(field) = kinds.get(tool).and_then(|k| k.kind.subject())
        && !arg.is_empty()
    {
        input.insert(field.to_string(), Value::String(arg.to_string()));
    }
    let schema = registry.schema(tool);
    let required = schema.and_then(|s| s.get("required")).and_then(Value::as_array).cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        if input.contains_key(name) {
            continue;
        }
        let ty = schema.and_then(|s| s.pointer(&format!("/properties/{name}/type"))).and_then(Value::as_str);
        let empty = match ty {
            Some("boolean") => Value::Bool(false),
            Some("integer" | "number") => Value::from(0),
            Some("array") => Value::Array(Vec::new()),
            Some("object") => Value::Object(Map::new()),
            _ => Value::String(String::new()),
        };
        input.insert(name.to_string(), empty);
    }
    Value::Object(input)
}
