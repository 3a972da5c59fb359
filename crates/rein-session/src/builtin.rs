//! The built-in tools' table: the tools rein ships and the engine's own, and how each
//! reads its permission rules.

use std::sync::Arc;

use rein_tools::{Registry, ToolKinds, register_builtins, register_builtins_sandboxed};

/// The built-in tools and the engine's own (Agent, ExitPlanMode, AskUserQuestion,
/// Skill), and how each of them reads its permission rules.
pub fn builtin_tools() -> crate::Result<(Registry, ToolKinds)> {
    let mut registry = Registry::new();
    register_builtins(&mut registry)?;
    rein_engine::register_engine_tools(&mut registry, Default::default())?;
    let kinds = registry.rule_kinds();
    Ok((registry, kinds))
}

/// The built-in tools as a session with `sandbox` has them (the Bash tool runs its
/// commands there, and its calls say so), and how their rules are read.
pub fn builtin_tools_in(sandbox: Option<Arc<rein_sandbox::Sandbox>>) -> crate::Result<(Registry, ToolKinds)> {
    let mut registry = Registry::new();
    register_builtins_sandboxed(&mut registry, sandbox)?;
    rein_engine::register_engine_tools(&mut registry, Default::default())?;
    let kinds = registry.rule_kinds();
    Ok((registry, kinds))
}

/// How each built-in tool (the engine's own included) reads its permission rules, found
/// once a process. The registry they were read from is kept for the first session's
/// tools ([`fresh_builtin_tools`]), so that a process with one session makes it once.
pub fn builtin_kinds() -> crate::Result<ToolKinds> {
    static KINDS: std::sync::OnceLock<ToolKinds> = std::sync::OnceLock::new();
    if let Some(kinds) = KINDS.get() {
        return Ok(kinds.clone());
    }
    let (registry, kinds) = builtin_tools()?;
    *SPARE.lock().unwrap_or_else(|p| p.into_inner()) = Some(registry);
    Ok(KINDS.get_or_init(|| kinds).clone())
}

/// The registry [`builtin_kinds`] made, not yet given to a session.
static SPARE: std::sync::Mutex<Option<Registry>> = std::sync::Mutex::new(None);

/// The built-in tools for a session: new instances (tools keep state), the spare
/// registry when there is one.
pub(crate) fn fresh_builtin_tools() -> crate::Result<Registry> {
    match SPARE.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(registry) => Ok(registry),
        None => Ok(builtin_tools()?.0),
    }
}

/// The names of the built-in tools (the engine's own included), found once a process.
pub fn builtin_tool_names() -> crate::Result<Vec<String>> {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    if let Some(names) = NAMES.get() {
        return Ok(names.clone());
    }
    let names = builtin_tools()?.0.registered_names();
    Ok(NAMES.get_or_init(|| names).clone())
}
