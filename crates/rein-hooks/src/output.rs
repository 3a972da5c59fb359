//! What hooks said (spec §A5–A6), merged across the handlers of one event.

use serde_json::Value;

use crate::run::{Exit, Run};

/// A PreToolUse permission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HookDecision {
    Allow,
    Ask,
    Defer,
    Deny,
}

/// The merged outcome of one event's handlers.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub runs: Vec<Run>,
}

/// One handler's parsed result.
struct Parsed<'a> {
    run: &'a Run,
    json: Option<Value>,
    /// Exit 0 with stdout that starts with `{` but is not JSON.
    bad_json: Option<String>,
}

impl Outcome {
    fn parsed(&self) -> impl Iterator<Item = Parsed<'_>> {
        self.runs.iter().map(|run| {
            let trimmed = run.stdout.trim_start();
            let (json, bad_json) = if trimmed.starts_with('{') {
                match serde_json::from_str::<Value>(trimmed) {
                    Ok(v) if v.is_object() => (Some(v), None),
                    Ok(_) => (None, Some("the output is not a JSON object".to_string())),
                    Err(e) => (None, Some(format!("invalid JSON output: {e}"))),
                }
            } else {
                (None, None)
            };
            Parsed { run, json, bad_json }
        })
    }

    /// Exit 2: the message (the JSON `reason`, else stderr).
    fn blocking_message(p: &Parsed<'_>) -> Option<String> {
        if p.run.exit != Exit::Code(Some(2)) {
            return None;
        }
        let reason = p.json.as_ref().and_then(|j| j.get("reason")).and_then(Value::as_str).map(str::to_string);
        Some(reason.unwrap_or_else(|| p.run.stderr.trim().to_string()))
    }

    /// PreToolUse: the strongest decision among the handlers (deny > defer > ask > allow),
    /// its reason and the handler that gave it. Exit 2 is a deny.
    pub fn pre_tool_decision(&self) -> Option<(HookDecision, String, String)> {
        let mut best: Option<(HookDecision, String, String)> = None;
        for p in self.parsed() {
            let decision = if let Some(msg) = Self::blocking_message(&p) {
                Some((HookDecision::Deny, msg))
            } else if p.run.exit != Exit::Code(Some(0)) {
                None
            } else {
                p.json.as_ref().and_then(|j| {
                    let hso = j.get("hookSpecificOutput");
                    let reason = hso
                        .and_then(|h| h.get("permissionDecisionReason"))
                        .or_else(|| j.get("reason"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let d = hso.and_then(|h| h.get("permissionDecision")).and_then(Value::as_str).or_else(|| {
                        // Deprecated top-level form.
                        match j.get("decision").and_then(Value::as_str) {
                            Some("approve") => Some("allow"),
                            Some("block") => Some("deny"),
                            _ => None,
                        }
                    })?;
                    let d = match d {
                        "allow" => HookDecision::Allow,
                        "ask" => HookDecision::Ask,
                        "defer" => HookDecision::Defer,
                        "deny" => HookDecision::Deny,
                        _ => return None,
                    };
                    Some((d, reason))
                })
            };
            if let Some((d, reason)) = decision
                && best.as_ref().is_none_or(|(b, _, _)| d > *b)
            {
                best = Some((d, reason, p.run.handler.clone()));
            }
        }
        best
    }

    /// The last `updatedInput` given with allow or ask.
    pub fn updated_input(&self) -> Option<Value> {
        self.parsed()
            .filter(|p| p.run.exit == Exit::Code(Some(0)))
            .filter_map(|p| p.json.as_ref()?.get("hookSpecificOutput")?.get("updatedInput").cloned())
            .filter(Value::is_object)
            .last()
    }

    /// A block (`decision: "block"` with its reason, or exit 2 with stderr): the reason
    /// and the handler.
    pub fn block(&self) -> Option<(String, String)> {
        for p in self.parsed() {
            if let Some(msg) = Self::blocking_message(&p) {
                return Some((msg, p.run.handler.clone()));
            }
            if p.run.exit == Exit::Code(Some(0))
                && let Some(j) = &p.json
                && j.get("decision").and_then(Value::as_str) == Some("block")
            {
                let reason = j.get("reason").and_then(Value::as_str).unwrap_or("blocked by a hook").to_string();
                return Some((reason, p.run.handler.clone()));
            }
        }
        None
    }

    /// `continue: false`: stop everything, with the `stopReason` for the user.
    pub fn stop(&self) -> Option<String> {
        self.parsed().find_map(|p| {
            let j = p.json.as_ref()?;
            (j.get("continue").and_then(Value::as_bool) == Some(false)).then(|| {
                j.get("stopReason").and_then(Value::as_str).unwrap_or("a hook stopped the session").to_string()
            })
        })
    }

    /// Context for the model: `additionalContext`, and plain stdout where the event
    /// takes it (UserPromptSubmit, SessionStart).
    pub fn context(&self, plain_stdout_is_context: bool) -> Vec<String> {
        let mut out = Vec::new();
        for p in self.parsed() {
            if p.run.exit != Exit::Code(Some(0)) {
                continue;
            }
            match &p.json {
                Some(j) => {
                    if let Some(c) =
                        j.get("hookSpecificOutput").and_then(|h| h.get("additionalContext")).and_then(Value::as_str)
                    {
                        out.push(cap(c));
                    }
                }
                None if plain_stdout_is_context && p.bad_json.is_none() && !p.run.stdout.trim().is_empty() => {
                    out.push(cap(p.run.stdout.trim()))
                }
                None => {}
            }
        }
        out
    }

    /// Messages for the user: `systemMessage`s and hook errors (non-blocking codes,
    /// hooks that could not start, timeouts, invalid JSON), each naming the hook.
    pub fn notices(&self, event: &str) -> Vec<String> {
        let mut out = Vec::new();
        for p in self.parsed() {
            let h = &p.run.handler;
            match &p.run.exit {
                Exit::NotStarted(why) => out.push(format!("{event} hook failed to start: {why}")),
                Exit::TimedOut(t) => {
                    out.push(format!("{event} hook `{h}` timed out after {}s and was killed", t.as_secs_f64()))
                }
                Exit::Code(Some(0)) | Exit::Code(Some(2)) => {}
                Exit::Code(code) => {
                    let first = p.run.stderr.lines().next().unwrap_or("").trim().to_string();
                    let code = code.map(|c| c.to_string()).unwrap_or_else(|| "signal".into());
                    out.push(format!("{event} hook `{h}` error (exit {code}): {first}"));
                }
            }
            if let Some(bad) = &p.bad_json {
                out.push(format!("{event} hook `{h}`: {bad}"));
            }
            if let Some(m) = p.json.as_ref().and_then(|j| j.get("systemMessage")).and_then(Value::as_str) {
                out.push(m.to_string());
            }
        }
        out
    }
}

/// Hook text is capped at 10 000 characters.
fn cap(s: &str) -> String {
    match s.char_indices().nth(10_000) {
        Some((i, _)) => format!("{}… [hook output truncated]", &s[..i]),
        None => s.to_string(),
    }
}
