//! Handlers the session carries out for the hooks: `agent` (a read-only subagent checks
//! a condition) and `mcp_tool` (a tool of a connected MCP server is called). Both reach
//! the session through [`HookTools`]; without it they do not start.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::{Exit, Handler, Run};

/// An agent hook's timeout when it sets none (as Claude Code's).
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a handler rein runs with its own model or tools (a `prompt` or `agent` hook, an
/// `mcp_tool` hook, an Agent SDK callback) gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum DelegatedError {
    /// The model, the subagent or the SDK host failed; the cause is kept.
    #[error("{what}: {source}")]
    Failed { what: &'static str, source: Box<dyn std::error::Error + Send + Sync> },
    /// It ended without an answer (out of turns, interrupted, a call deferred).
    #[error("{0}")]
    NoAnswer(String),
    /// Its answer holds no `{"ok": …}` verdict.
    #[error("{0}")]
    NoVerdict(String),
    /// The MCP tool is not there or answered with an error: its text.
    #[error("{0}")]
    Tool(String),
}

impl DelegatedError {
    /// `source` as the failure of `what`.
    pub fn failed(what: &'static str, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        DelegatedError::Failed { what, source: Box::new(source) }
    }
}

/// What the session offers `agent` and `mcp_tool` handlers.
pub trait HookTools: Send + Sync {
    /// Run a subagent with read-only tools on `prompt`; `Ok((ok, reason))` from its
    /// final answer `{"ok": …, "reason": …}`.
    fn verify<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(bool, String), DelegatedError>>;
    /// Call `tool` of the MCP server `server` with `input`; `Ok(text)` is the tool's
    /// text, `Err` a tool error or a server that is not connected.
    fn call_mcp_tool<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: Value,
    ) -> BoxFuture<'a, Result<String, DelegatedError>>;
}

fn run(handler: String, exit: Exit, stdout: String, stderr: String) -> Run {
    Run { handler, exit, stdout, stderr }
}

/// An `agent` handler: "no" blocks as exit 2 does, with the subagent's reason.
pub(crate) async fn agent(
    tools: Option<&dyn HookTools>,
    h: &Handler,
    prompt: &str,
    model: Option<&str>,
    input: &str,
) -> Run {
    let Some(tools) = tools else {
        return run(h.display(), Exit::NotStarted("agent hooks need a session".into()), String::new(), String::new());
    };
    let timeout = h.timeout.map(Duration::from_secs_f64).unwrap_or(AGENT_TIMEOUT);
    judged(h.display(), timeout, tools.verify(prompt_text(prompt, input), model)).await
}

/// A prompt or agent hook's text: `$ARGUMENTS` is the hook's input, else it follows.
pub(crate) fn prompt_text(prompt: &str, input: &str) -> String {
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", input)
    } else {
        format!("{prompt}\n\nThe hook's input:\n{input}")
    }
}

/// A model's yes/no judgement as a handler run: yes is exit 0, no is exit 2 with the
/// reason, no answer (or none in `timeout`) a failure that decides nothing.
pub(crate) async fn judged(
    display: String,
    timeout: Duration,
    verdict: impl std::future::Future<Output = Result<(bool, String), DelegatedError>>,
) -> Run {
    match tokio::time::timeout(timeout, verdict).await {
        Ok(Ok((true, _))) => run(display, Exit::Code(Some(0)), String::new(), String::new()),
        Ok(Ok((false, reason))) => run(display, Exit::Code(Some(2)), String::new(), reason),
        Ok(Err(e)) => run(display, Exit::NotStarted(e.to_string()), String::new(), String::new()),
        Err(_) => run(display, Exit::TimedOut(timeout), String::new(), String::new()),
    }
}

/// An `mcp_tool` handler: the tool's text is the hook's stdout (read for JSON decisions
/// like a command's); a tool error is a non-blocking error.
pub(crate) async fn mcp_tool(
    tools: Option<&dyn HookTools>,
    h: &Handler,
    (server, tool, template): (&str, &str, &Value),
    input: &Value,
) -> Run {
    let display = h.display();
    let Some(tools) = tools else {
        return run(display, Exit::NotStarted("mcp_tool hooks need a session".into()), String::new(), String::new());
    };
    let args = fill(template, input);
    let timeout = h.timeout.map(Duration::from_secs_f64).unwrap_or(crate::DEFAULT_TIMEOUT);
    match tokio::time::timeout(timeout, tools.call_mcp_tool(server, tool, args)).await {
        Ok(Ok(text)) => run(display, Exit::Code(Some(0)), text, String::new()),
        Ok(Err(e)) => run(display, Exit::Code(Some(1)), String::new(), e.to_string()),
        Err(_) => run(display, Exit::TimedOut(timeout), String::new(), String::new()),
    }
}

/// `input` with every `${a.b}` filled from the hook's input: a string that is one
/// placeholder takes the value as it is (a number stays a number), a placeholder inside
/// text takes its text; a path the input lacks becomes empty.
pub fn fill(template: &Value, input: &Value) -> Value {
    match template {
        Value::String(s) => fill_str(s, input),
        Value::Array(a) => Value::Array(a.iter().map(|v| fill(v, input)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), fill(v, input))).collect()),
        other => other.clone(),
    }
}

fn lookup<'a>(input: &'a Value, path: &str) -> Option<&'a Value> {
    path.trim().split('.').try_fold(input, |v, key| match v {
        Value::Array(a) => a.get(key.parse::<usize>().ok()?),
        _ => v.get(key),
    })
}

fn fill_str(s: &str, input: &Value) -> Value {
    if let Some(path) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')).filter(|p| !p.contains(['$', '}'])) {
        return lookup(input, path).cloned().unwrap_or_else(|| Value::String(String::new()));
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else { break };
        out.push_str(&rest[..start]);
        match lookup(input, &rest[start + 2..start + len]) {
            Some(Value::String(t)) => out.push_str(t),
            Some(v) => out.push_str(&v.to_string()),
            None => {}
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    Value::String(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_the_hook_inputs_values() {
        let input = json!({"tool_input": {"file_path": "/p/a.rs", "limit": 3}, "tool_name": "Write"});
        let template = json!({
            "path": "${tool_input.file_path}",
            "n": "${tool_input.limit}",
            "say": "wrote ${tool_input.file_path} with ${tool_name}",
            "missing": "${tool_input.nothing}",
            "nested": ["${tool_name}", 1],
        });
        assert_eq!(
            fill(&template, &input),
            json!({"path": "/p/a.rs", "n": 3, "say": "wrote /p/a.rs with Write", "missing": "", "nested": ["Write", 1]})
        );
    }
}
