//! Hook configuration (spec §A1–A2): event → matcher groups → handlers, merged from
//! every settings scope, identical handlers run once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rein_settings::{Scope, Settings};
use serde_json::Value;

use crate::HookEvent;

/// How a handler is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandlerKind {
    /// `command` run through `sh -c` (shell form) or directly with `args` (exec form).
    Command { command: String, args: Option<Vec<String>> },
    /// A callback the Agent SDK registered in `initialize` (`hook_<n>`), run as a
    /// `hook_callback` control request; its reply is the hook's JSON output.
    /// `block_on_failure`: an error reply or a timeout blocks (`onFailure: "block"`).
    Callback { id: String, block_on_failure: bool },
    /// `http`: POST the hook's input as JSON to `url`; the response body is the hook's
    /// output. `${VAR}` in headers is filled only from the variables `allowedEnvVars`
    /// names.
    Http { url: String, headers: Vec<(String, String)>, allowed_env: Vec<String> },
    /// `prompt`: a small model judges `prompt` (with `$ARGUMENTS`) yes or no.
    Prompt { prompt: String, model: Option<String> },
    /// `agent`: a subagent with read-only tools (Read, Grep, Glob) checks `prompt`
    /// (with `$ARGUMENTS`) in up to 50 turns and answers yes or no, as a prompt hook.
    Agent { prompt: String, model: Option<String> },
    /// `mcp_tool`: call `tool` on the connected MCP server `server` with `input`
    /// (`${tool_input.file_path}`-style placeholders filled from the hook's input); the
    /// tool's text is read as a command hook's stdout.
    McpTool { server: String, tool: String, input: Value },
    /// A handler type Claude Code does not define.
    Unsupported(String),
}

/// One configured handler.
#[derive(Debug, Clone)]
pub struct Handler {
    pub kind: HandlerKind,
    /// Seconds; 600 by default.
    pub timeout: Option<f64>,
    /// A permission-rule string (`Bash(git *)`) that must match for tool events; on
    /// other events a handler with `if` never runs.
    pub if_rule: Option<String>,
    pub is_async: bool,
    /// Where it is defined: the settings file and the line of its event.
    pub origin: String,
    pub managed: bool,
    /// `once: true` (skills' hooks): set when it has run, and then it runs no more.
    pub once: Option<Arc<AtomicBool>>,
}

impl Handler {
    /// The command line, for messages and the audit log.
    pub fn display(&self) -> String {
        match &self.kind {
            HandlerKind::Command { command, args: Some(a) } => format!("{command} {}", a.join(" ")),
            HandlerKind::Command { command, args: None } => command.clone(),
            HandlerKind::Callback { id, .. } => format!("SDK callback {id}"),
            HandlerKind::Http { url, .. } => format!("POST {url}"),
            HandlerKind::Prompt { prompt, .. } => {
                format!("prompt: {}", prompt.chars().take(60).collect::<String>())
            }
            HandlerKind::Agent { prompt, .. } => {
                format!("agent: {}", prompt.chars().take(60).collect::<String>())
            }
            HandlerKind::McpTool { server, tool, .. } => format!("MCP tool {tool} of {server}"),
            HandlerKind::Unsupported(t) => format!("({t} handler)"),
        }
    }

    fn identity(&self) -> (HandlerKind, Option<String>) {
        (self.kind.clone(), self.if_rule.clone())
    }
}

/// Which values a matcher accepts.
#[derive(Debug, Clone)]
pub enum Matcher {
    All,
    Names(Vec<String>),
    Regex(regex::Regex),
}

impl Matcher {
    pub fn parse(m: Option<&str>) -> Result<Matcher, HandlerError> {
        let m = m.map(str::trim).unwrap_or("");
        if m.is_empty() || m == "*" {
            return Ok(Matcher::All);
        }
        if m.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | ',' | '|' | '-')) {
            let names = m.split(['|', ',']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
            return Ok(Matcher::Names(names));
        }
        regex::Regex::new(m)
            .map(Matcher::Regex)
            .map_err(|source| HandlerError::Matcher { matcher: m.to_string(), source: Box::new(source) })
    }

    /// A list of literal file names joined by `|` (FileChanged's matcher).
    pub fn files(m: Option<&str>) -> Matcher {
        let names: Vec<String> =
            m.unwrap_or("").split('|').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
        if names.is_empty() || names.iter().any(|n| n == "*") { Matcher::All } else { Matcher::Names(names) }
    }

    pub fn matches(&self, value: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(n) => n.iter().any(|x| x == value),
            Matcher::Regex(r) => r.is_match(value),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Group {
    pub matcher: Matcher,
    pub handlers: Vec<Handler>,
}

/// Why one handler or matcher of a hooks block cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HandlerError {
    #[error("matcher {matcher:?} is not a valid regex: {source}")]
    Matcher { matcher: String, source: Box<regex::Error> },
    #[error("{hook} hook needs `{field}`")]
    Missing { hook: &'static str, field: &'static str },
    /// A field of the wrong shape: what it must be.
    #[error("{0}")]
    Shape(&'static str),
}

/// A hooks block that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{origin}: invalid hooks configuration for {event}: {reason}")]
pub struct HookConfigError {
    pub origin: String,
    pub event: String,
    pub reason: String,
}

/// All hooks of a session, by event.
#[derive(Debug, Clone, Default)]
pub struct HookConfig {
    pub events: BTreeMap<HookEvent, Vec<Group>>,
    /// Every handler's `if` rule with where it is written (`file:line`), for the policy
    /// to check at start.
    pub if_rules: Vec<(String, String)>,
    /// Whether hooks in subagents' and skills' front matter may run: not when hooks are
    /// disabled (`disableAllHooks`) or only managed hooks are (`allowManagedHooksOnly`).
    pub definitions_allowed: bool,
    /// What was skipped, for the person (`file:line: …`): an event rein does not know
    /// (a newer Claude Code's) is named and its hooks left out, never fatal.
    pub warnings: Vec<String>,
}

impl HookConfig {
    /// Merge the `hooks` of every settings file. `disableAllHooks` from the highest scope
    /// that sets it turns hooks off (managed hooks only by a managed value);
    /// `allowManagedHooksOnly` in managed settings keeps only managed hooks.
    pub fn from_settings(settings: &Settings) -> Result<HookConfig, HookConfigError> {
        let disabled = settings.scalar("/disableAllHooks").and_then(|(v, f)| v.as_bool().map(|b| (b, f.scope)));
        let managed_only = settings.files.iter().any(|f| {
            f.scope == Scope::Managed && f.get("/allowManagedHooksOnly").and_then(Value::as_bool) == Some(true)
        });
        let mut config = HookConfig::default();
        for file in &settings.files {
            let managed = file.scope == Scope::Managed;
            match disabled {
                Some((true, Scope::Managed)) => continue,
                Some((true, _)) if !managed => continue,
                _ => {}
            }
            if managed_only && !managed {
                continue;
            }
            let Some(hooks) = file.get("/hooks").and_then(Value::as_object) else { continue };
            for (name, groups) in hooks {
                let origin = match file.line_of(name) {
                    Some(line) => format!("{}:{line}", file.origin()),
                    None => file.origin(),
                };
                let event = match parse_event(name, &origin) {
                    Ok(e) => e,
                    Err(e) => {
                        config.warnings.push(skipped_event(&e));
                        continue;
                    }
                };
                let rule_at = |rule: &str| file.line_of(rule).map(|l| format!("{}:{l}", file.origin()));
                config.add_groups(event, name, groups, (&origin, &origin), managed, rule_at)?;
            }
        }
        config.definitions_allowed = !managed_only && !disabled.is_some_and(|(off, _)| off);
        Ok(config)
    }

    /// Add `groups` (a settings `hooks` entry's list) for `event`; errors name `origin`,
    /// handlers record `handler_origin`.
    pub(crate) fn add_groups(
        &mut self,
        event: HookEvent,
        name: &str,
        groups: &Value,
        (origin, handler_origin): (&str, &str),
        managed: bool,
        rule_at: impl Fn(&str) -> Option<String>,
    ) -> Result<(), HookConfigError> {
        let err = |reason: String| HookConfigError { origin: origin.to_string(), event: name.to_string(), reason };
        let Some(groups) = groups.as_array() else {
            return Err(err("expected a list of matcher groups".into()));
        };
        for g in groups {
            let text = g.get("matcher").and_then(Value::as_str);
            let matcher = match event {
                // FileChanged's matcher lists file names (`.envrc|.env`), never a regex.
                HookEvent::FileChanged => Matcher::files(text),
                _ => Matcher::parse(text).map_err(|e| err(e.to_string()))?,
            };
            let Some(list) = g.get("hooks").and_then(Value::as_array) else {
                return Err(err("a matcher group needs a `hooks` list".into()));
            };
            let mut handlers = Vec::new();
            for h in list {
                let mut handler = parse_handler(h, handler_origin, managed).map_err(|e| err(e.to_string()))?;
                // Command hooks on UserPromptSubmit and MessageDisplay hold up what the
                // person sees: shorter default timeouts, as Claude Code's.
                if handler.timeout.is_none() && matches!(handler.kind, HandlerKind::Command { .. }) {
                    handler.timeout = match event {
                        HookEvent::UserPromptSubmit => Some(30.0),
                        HookEvent::MessageDisplay => Some(10.0),
                        _ => None,
                    };
                }
                if let Some(rule) = &handler.if_rule {
                    self.if_rules.push((rule.clone(), rule_at(rule).unwrap_or_else(|| origin.to_string())));
                }
                handlers.push(handler);
            }
            self.events.entry(event).or_default().push(Group { matcher, handlers });
        }
        Ok(())
    }

    /// The handlers of `event` whose matcher accepts `value`, duplicates removed.
    pub fn matching(&self, event: HookEvent, value: Option<&str>) -> Vec<Handler> {
        let mut out: Vec<Handler> = Vec::new();
        for g in self.events.get(&event).into_iter().flatten() {
            if let Some(v) = value
                && !g.matcher.matches(v)
            {
                continue;
            }
            for h in &g.handlers {
                // `if` is only checked on tool events; elsewhere such a handler never runs.
                if h.if_rule.is_some() && !event.is_tool_event() {
                    continue;
                }
                if h.once.as_ref().is_some_and(|ran| ran.load(Ordering::Acquire)) {
                    continue;
                }
                if h.is_async || !out.iter().any(|o| o.identity() == h.identity()) {
                    out.push(h.clone());
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Add the Agent SDK's callbacks for `event` (from `initialize.hooks`): one group with
    /// `matcher` (`None`: every value), run like any other handler of the event.
    pub fn add_callbacks(
        &mut self,
        event: HookEvent,
        matcher: Option<&str>,
        ids: &[String],
        timeout: Option<f64>,
        block_on_failure: bool,
    ) -> Result<(), HandlerError> {
        let matcher = Matcher::parse(matcher)?;
        let handlers = ids
            .iter()
            .map(|id| Handler {
                kind: HandlerKind::Callback { id: id.clone(), block_on_failure },
                timeout: timeout.filter(|t| *t > 0.0),
                if_rule: None,
                is_async: false,
                origin: "the Agent SDK (initialize)".into(),
                managed: false,
                once: None,
            })
            .collect();
        self.events.entry(event).or_default().push(Group { matcher, handlers });
        Ok(())
    }
}

fn parse_handler(h: &Value, origin: &str, managed: bool) -> Result<Handler, HandlerError> {
    let kind = match h.get("type").and_then(Value::as_str).unwrap_or("command") {
        "command" => {
            let command = h
                .get("command")
                .and_then(Value::as_str)
                .ok_or(HandlerError::Missing { hook: "a command", field: "command" })?
                .to_string();
            let args = match h.get("args") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|x| x.as_str().map(str::to_string).ok_or(HandlerError::Shape("`args` must be strings")))
                        .collect::<Result<_, _>>()?,
                ),
                Some(_) => return Err(HandlerError::Shape("`args` must be a list of strings")),
            };
            HandlerKind::Command { command, args }
        }
        "http" => {
            let url = h
                .get("url")
                .and_then(Value::as_str)
                .ok_or(HandlerError::Missing { hook: "an http", field: "url" })?
                .to_string();
            let headers = h
                .get("headers")
                .and_then(Value::as_object)
                .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default();
            let allowed_env = h
                .get("allowedEnvVars")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            HandlerKind::Http { url, headers, allowed_env }
        }
        "prompt" => {
            let prompt = h
                .get("prompt")
                .and_then(Value::as_str)
                .ok_or(HandlerError::Missing { hook: "a prompt", field: "prompt" })?
                .to_string();
            HandlerKind::Prompt { prompt, model: h.get("model").and_then(Value::as_str).map(str::to_string) }
        }
        "agent" => {
            let prompt = h
                .get("prompt")
                .and_then(Value::as_str)
                .ok_or(HandlerError::Missing { hook: "an agent", field: "prompt" })?
                .to_string();
            HandlerKind::Agent { prompt, model: h.get("model").and_then(Value::as_str).map(str::to_string) }
        }
        "mcp_tool" => {
            let field = |k: &str| h.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
            let server = field("server").ok_or(HandlerError::Missing { hook: "an mcp_tool", field: "server" })?;
            let tool = field("tool").ok_or(HandlerError::Missing { hook: "an mcp_tool", field: "tool" })?;
            let input = match h.get("input") {
                None | Some(Value::Null) => Value::Object(Default::default()),
                Some(v @ Value::Object(_)) => v.clone(),
                Some(_) => return Err(HandlerError::Shape("`input` of an mcp_tool hook must be an object")),
            };
            HandlerKind::McpTool { server, tool, input }
        }
        other => HandlerKind::Unsupported(other.to_string()),
    };
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|t| *t > 0.0)
                .ok_or(HandlerError::Shape("`timeout` must be a positive number of seconds"))?,
        ),
    };
    Ok(Handler {
        kind,
        timeout,
        if_rule: match h.get("if") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(HandlerError::Shape("`if` must be a permission rule string")),
        },
        is_async: h.get("async").and_then(Value::as_bool).unwrap_or(false),
        origin: origin.to_string(),
        managed,
        once: (h.get("once").and_then(Value::as_bool) == Some(true)).then(|| Arc::new(AtomicBool::new(false))),
    })
}

/// The warning for an event rein does not know.
pub(crate) fn skipped_event(e: &HookConfigError) -> String {
    format!("{}: hook event `{}` is not one rein knows; its hooks are skipped ({})", e.origin, e.event, e.reason)
}

/// The event `name` names; a name that is no event is an error naming the nearest one.
pub(crate) fn parse_event(name: &str, origin: &str) -> Result<HookEvent, HookConfigError> {
    HookEvent::parse(name).ok_or_else(|| HookConfigError {
        origin: origin.to_string(),
        event: name.to_string(),
        reason: format!("the nearest rein knows is {}; event names are Claude Code's", HookEvent::nearest(name)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers() {
        let m = Matcher::parse(Some("Edit|Write, Bash")).unwrap();
        assert!(m.matches("Bash") && m.matches("Write") && !m.matches("NotebookEdit"));
        let m = Matcher::parse(Some("Edit.*")).unwrap();
        assert!(m.matches("NotebookEdit") && m.matches("Edit"), "regexes are unanchored");
        let m = Matcher::parse(Some("mcp__memory__.*")).unwrap();
        assert!(m.matches("mcp__memory__create"));
        assert!(!Matcher::parse(Some("mcp__memory")).unwrap().matches("mcp__memory__create"));
        assert!(Matcher::parse(None).unwrap().matches("anything"));
        assert!(Matcher::parse(Some("*")).unwrap().matches("anything"));
        assert!(Matcher::parse(Some("(")).is_err());
    }
}
