//! What hooks said (spec §A5–A6): each handler's stdout parsed once into a typed
//! [`HookOutput`], then merged across the handlers of one event. Fields of the wrong type
//! are ignored one by one, so a stray field never hides a decision.

use serde::{Deserialize, Deserializer};
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

impl HookDecision {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "allow" | "approve" => HookDecision::Allow,
            "ask" => HookDecision::Ask,
            "defer" => HookDecision::Defer,
            "deny" | "block" => HookDecision::Deny,
            _ => return None,
        })
    }
}

/// A value of the expected type, or `None` when it has another type.
fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

/// The JSON a handler prints (spec §A6).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    #[serde(rename = "continue", default, deserialize_with = "lenient")]
    pub continue_: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    pub stop_reason: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub system_message: Option<String>,
    /// `block` (and the deprecated PreToolUse `approve`).
    #[serde(default, deserialize_with = "lenient")]
    pub decision: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub hook_specific_output: Option<SpecificOutput>,
}

/// Why `out` is not taken for `event`: its `hookSpecificOutput` names another event.
fn mislabelled(out: &HookOutput, event: Option<&str>) -> Option<String> {
    let named = out.hook_specific_output.as_ref()?.hook_event_name.as_deref()?;
    let event = event?;
    (named != event).then(|| format!("its hookSpecificOutput is for {named}, not {event}: the output was not used"))
}

/// `hookSpecificOutput`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecificOutput {
    /// The event the output is for (it must be the event that ran the hook).
    #[serde(default, deserialize_with = "lenient")]
    pub hook_event_name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub permission_decision: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub permission_decision_reason: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub updated_input: Option<serde_json::Map<String, Value>>,
    #[serde(default, deserialize_with = "lenient")]
    pub additional_context: Option<String>,
    /// PermissionRequest's answer.
    #[serde(default, deserialize_with = "lenient")]
    pub decision: Option<PermissionAnswerJson>,
    /// PostToolUse: the result the model sees instead of the tool's.
    #[serde(default)]
    pub updated_tool_output: Option<Value>,
    /// PostToolUse on an MCP tool: the same.
    #[serde(default, rename = "updatedMCPToolOutput")]
    pub updated_mcp_tool_output: Option<Value>,
    /// MessageDisplay: what to show instead of the text (the conversation keeps it).
    #[serde(default, deserialize_with = "lenient")]
    pub display_content: Option<String>,
    /// SessionStart, CwdChanged, FileChanged: more files to watch (FileChanged).
    #[serde(default, deserialize_with = "lenient")]
    pub watch_paths: Option<Vec<String>>,
    /// Elicitation / ElicitationResult: `accept`, `decline` or `cancel`.
    #[serde(default, deserialize_with = "lenient")]
    pub action: Option<String>,
    /// Elicitation / ElicitationResult: the form's answer.
    #[serde(default)]
    pub content: Option<Value>,
}

/// PermissionRequest's `decision`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAnswerJson {
    #[serde(default, deserialize_with = "lenient")]
    pub behavior: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub updated_input: Option<serde_json::Map<String, Value>>,
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
}

/// A PermissionRequest hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionAnswer {
    pub allow: bool,
    pub updated_input: Option<Value>,
    pub message: String,
    pub hook: String,
}

/// A PreToolUse hook's say on a call.
#[derive(Debug, Clone, PartialEq)]
pub struct PreToolDecision {
    pub decision: HookDecision,
    pub reason: String,
    pub hook: String,
}

/// The merged outcome of one event's handlers.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub runs: Vec<Run>,
    /// Where hook text too long for the context is saved.
    pub spill_dir: Option<std::path::PathBuf>,
    /// Where each run's handler was defined (a settings file and line, a plugin's hook
    /// file), in the order of `runs`: a failure names it.
    pub origins: Vec<String>,
    /// The event the handlers ran for: a `hookSpecificOutput` naming another one is
    /// not taken (Claude Code rejects it too).
    pub event: Option<&'static str>,
}

/// One handler's parsed result.
pub(crate) struct Parsed<'a> {
    run: &'a Run,
    json: Option<HookOutput>,
    /// Exit 0 with stdout that starts with `{` but is not a JSON object.
    bad_json: Option<String>,
}

impl Parsed<'_> {
    pub(crate) fn ok(&self) -> bool {
        self.run.exit == Exit::Code(Some(0))
    }

    pub(crate) fn specific(&self) -> Option<&SpecificOutput> {
        self.json.as_ref()?.hook_specific_output.as_ref()
    }

    /// Exit 2: the message (the JSON `reason`, else stderr).
    fn blocking_message(&self) -> Option<String> {
        if self.run.exit != Exit::Code(Some(2)) {
            return None;
        }
        let reason = self.json.as_ref().and_then(|j| j.reason.clone());
        Some(reason.unwrap_or_else(|| self.run.stderr.trim().to_string()))
    }
}

impl Outcome {
    pub(crate) fn parsed(&self) -> impl Iterator<Item = Parsed<'_>> {
        self.runs.iter().map(|run| {
            let trimmed = run.stdout.trim_start();
            let (json, bad_json) = if trimmed.starts_with('{') {
                match serde_json::from_str::<Value>(trimmed) {
                    Ok(v @ Value::Object(_)) => match serde_json::from_value::<HookOutput>(v) {
                        Ok(out) => match mislabelled(&out, self.event) {
                            Some(why) => (None, Some(why)),
                            None => (Some(out), None),
                        },
                        Err(e) => (None, Some(format!("invalid JSON output: {e}"))),
                    },
                    Ok(_) => (None, Some("the output is not a JSON object".to_string())),
                    Err(e) => (None, Some(format!("invalid JSON output: {e}"))),
                }
            } else {
                (None, None)
            };
            Parsed { run, json, bad_json }
        })
    }

    /// PreToolUse: the strongest decision among the handlers (deny > defer > ask > allow),
    /// its reason and the handler that gave it. Exit 2 is a deny.
    pub fn pre_tool_decision(&self) -> Option<PreToolDecision> {
        let mut best: Option<PreToolDecision> = None;
        for p in self.parsed() {
            let decision = if let Some(msg) = p.blocking_message() {
                Some((HookDecision::Deny, msg))
            } else if !p.ok() {
                None
            } else {
                p.json.as_ref().and_then(|j| {
                    let hso = j.hook_specific_output.as_ref();
                    let reason = hso
                        .and_then(|h| h.permission_decision_reason.clone())
                        .or_else(|| j.reason.clone())
                        .unwrap_or_default();
                    // The deprecated top-level `decision` (approve/block) counts too.
                    let d = hso.and_then(|h| h.permission_decision.as_deref()).or(j.decision.as_deref())?;
                    Some((HookDecision::parse(d)?, reason))
                })
            };
            if let Some((decision, reason)) = decision
                && best.as_ref().is_none_or(|b| decision > b.decision)
            {
                best = Some(PreToolDecision { decision, reason, hook: p.run.handler.clone() });
            }
        }
        best
    }

    /// The last `updatedInput` given with allow or ask.
    pub fn updated_input(&self) -> Option<Value> {
        self.parsed().filter(Parsed::ok).filter_map(|p| p.specific()?.updated_input.clone()).last().map(Value::Object)
    }

    /// PermissionRequest: the first handler that answered allow or deny.
    pub fn permission_answer(&self) -> Option<PermissionAnswer> {
        self.parsed().filter(Parsed::ok).find_map(|p| {
            let d = p.specific()?.decision.clone()?;
            let allow = match d.behavior.as_deref() {
                Some("allow") => true,
                Some("deny") => false,
                _ => return None,
            };
            Some(PermissionAnswer {
                allow,
                updated_input: d.updated_input.map(Value::Object),
                message: d.message.unwrap_or_default(),
                hook: p.run.handler.clone(),
            })
        })
    }

    /// A block (`decision: "block"` with its reason, or exit 2 with stderr): the reason
    /// and the handler.
    pub fn block(&self) -> Option<(String, String)> {
        for p in self.parsed() {
            if let Some(msg) = p.blocking_message() {
                return Some((msg, p.run.handler.clone()));
            }
            if p.ok()
                && let Some(j) = &p.json
                && j.decision.as_deref() == Some("block")
            {
                let reason = j.reason.clone().unwrap_or_else(|| "blocked by a hook".to_string());
                return Some((reason, p.run.handler.clone()));
            }
        }
        None
    }

    /// `continue: false`: stop everything, with the `stopReason` for the user.
    pub fn stop(&self) -> Option<String> {
        self.parsed().find_map(|p| {
            let j = p.json.as_ref()?;
            (j.continue_ == Some(false))
                .then(|| j.stop_reason.clone().unwrap_or_else(|| "a hook stopped the session".to_string()))
        })
    }

    /// PostToolUse: the result a hook gives the model instead of the tool's
    /// (`updatedToolOutput`, or `updatedMCPToolOutput`), the last one that did.
    pub fn updated_tool_output(&self) -> Option<Value> {
        self.parsed()
            .filter(Parsed::ok)
            .filter_map(|p| {
                let h = p.specific()?;
                h.updated_tool_output.clone().or_else(|| h.updated_mcp_tool_output.clone())
            })
            .last()
    }

    /// Elicitation / ElicitationResult: the answer a hook gives (`action`, `content`),
    /// the last one that did; exit 2 declines.
    pub fn elicitation_answer(&self) -> Option<(String, Option<Value>)> {
        let parsed: Vec<Parsed<'_>> = self.parsed().collect();
        if parsed.iter().any(|p| p.blocking_message().is_some()) {
            return Some(("decline".into(), None));
        }
        parsed.iter().rev().filter(|p| p.ok()).find_map(|p| {
            let h = p.specific()?;
            Some((h.action.clone()?, h.content.clone()))
        })
    }

    /// MessageDisplay: the text to show instead, from the last hook that gave one.
    pub fn display_content(&self) -> Option<String> {
        self.parsed().filter(Parsed::ok).filter_map(|p| p.specific().and_then(|s| s.display_content.clone())).last()
    }

    /// Context for the model: `additionalContext`, and plain stdout where the event
    /// takes it (UserPromptSubmit, SessionStart).
    pub fn context(&self, plain_stdout_is_context: bool) -> Vec<String> {
        let mut out = Vec::new();
        for p in self.parsed().filter(Parsed::ok) {
            match &p.json {
                Some(_) => {
                    if let Some(c) = p.specific().and_then(|h| h.additional_context.as_deref()) {
                        out.push(self.fit(c));
                    }
                }
                None if plain_stdout_is_context && p.bad_json.is_none() && !p.run.stdout.trim().is_empty() => {
                    out.push(self.fit(p.run.stdout.trim()));
                }
                None => {}
            }
        }
        out
    }

    /// Messages for the user: `systemMessage`s and hook errors (non-blocking codes,
    /// hooks that could not start, timeouts, invalid JSON), each naming the hook.
    pub fn notices(&self, event: crate::HookEvent) -> Vec<String> {
        let mut out = Vec::new();
        for (i, p) in self.parsed().enumerate() {
            let h = &short(&p.run.handler);
            let at = match self.origins.get(i).filter(|o| !o.is_empty()) {
                Some(origin) => format!(" [{origin}]"),
                None => String::new(),
            };
            match &p.run.exit {
                Exit::NotStarted(why) => out.push(format!("{event} hook failed to start: {why}{at}")),
                Exit::TimedOut(t) => {
                    out.push(format!("{event} hook `{h}` timed out after {}s and was killed{at}", t.as_secs_f64()));
                }
                Exit::Code(Some(0)) | Exit::Code(Some(2)) => {}
                Exit::Code(code) => {
                    let first = p.run.stderr.lines().next().unwrap_or("").trim().to_string();
                    let code = code.map(|c| c.to_string()).unwrap_or_else(|| "signal".into());
                    out.push(format!("{event} hook `{h}` error (exit {code}): {first}{at}"));
                }
            }
            if let Some(bad) = &p.bad_json {
                out.push(format!("{event} hook `{h}`: {bad}{at}"));
            }
            if let Some(m) = p.json.as_ref().and_then(|j| j.system_message.clone()) {
                out.push(m);
            }
        }
        out
    }
}

/// Hook text longer than this is saved to a file; the model gets a preview and the path.
const MAX_HOOK_TEXT: usize = 10_000;
const PREVIEW: usize = 2_000;

impl Outcome {
    /// `s` as context: whole up to 10 000 characters, else saved in the session's
    /// directory, with a preview and where to read the rest (cut when it cannot be
    /// saved).
    fn fit(&self, s: &str) -> String {
        let Some((_, _)) = s.char_indices().nth(MAX_HOOK_TEXT) else { return s.to_string() };
        let preview_end = s.char_indices().nth(PREVIEW).map_or(s.len(), |(i, _)| i);
        let total = s.chars().count();
        if let Some(dir) = &self.spill_dir {
            // Beside the session's other saved outputs, which Read opens without asking;
            // a new file only, never through a link left at that name.
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = dir.join("tool-results");
            let path = dir.join(format!("hook-output-{}-{n}.txt", std::process::id()));
            let written = std::fs::create_dir_all(&dir).and_then(|()| {
                use std::io::Write as _;
                std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?.write_all(s.as_bytes())
            });
            if written.is_ok() {
                return format!(
                    "{}…\n[hook output: {total} characters; the whole text is in {} (read it for the rest)]",
                    &s[..preview_end],
                    path.display()
                );
            }
        }
        let end = s.char_indices().nth(MAX_HOOK_TEXT).map_or(s.len(), |(i, _)| i);
        format!("{}… [hook output truncated]", &s[..end])
    }
}

/// A hook's command as a notice names it: without the plugin-root prefix rein adds, and
/// cut after 80 characters (plugins ship commands of kilobytes).
fn short(handler: &str) -> String {
    let plain = match handler.strip_prefix("export CLAUDE_PLUGIN_ROOT='") {
        Some(rest) => rest.split_once("'; ").map_or(handler, |(_, cmd)| cmd),
        None => handler,
    };
    match plain.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &plain[..at]),
        None => plain.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(stdout: &str, code: i32) -> Outcome {
        let run =
            Run { handler: "h".into(), exit: Exit::Code(Some(code)), stdout: stdout.into(), stderr: "err".into() };
        Outcome { runs: vec![run], spill_dir: None, origins: Vec::new(), event: Some("PreToolUse") }
    }

    #[test]
    fn notices_name_a_long_plugin_hook_briefly() {
        let long = format!("export CLAUDE_PLUGIN_ROOT='/p'; node run.js {}", "x".repeat(200));
        let named = short(&long);
        assert!(named.starts_with("node run.js x") && named.ends_with('…') && named.chars().count() == 81, "{named}");
        assert_eq!(short("echo hi"), "echo hi");
    }

    #[test]
    fn a_field_of_the_wrong_type_does_not_hide_a_deny() {
        let o = outcome(
            r#"{"hookSpecificOutput": {"permissionDecision": "deny", "additionalContext": 5}, "continue": "yes"}"#,
            0,
        );
        assert_eq!(o.pre_tool_decision().map(|d| d.decision), Some(HookDecision::Deny));
        assert_eq!(o.stop(), None);
    }

    /// Output that names another event is not taken, and the person is told why.
    #[test]
    fn output_for_another_event_is_rejected() {
        let allow = |event: &str| {
            format!(r#"{{"hookSpecificOutput": {{"hookEventName": "{event}", "permissionDecision": "allow"}}}}"#)
        };
        let right = outcome(&allow("PreToolUse"), 0);
        assert_eq!(right.pre_tool_decision().map(|d| d.decision), Some(HookDecision::Allow));
        let wrong = outcome(&allow("PostToolUse"), 0);
        assert_eq!(wrong.pre_tool_decision(), None);
        let said = wrong.notices(crate::HookEvent::PreToolUse);
        assert!(said.iter().any(|n| n.contains("is for PostToolUse, not PreToolUse")), "{said:?}");
        // No name at all is taken as it stands.
        let unnamed = outcome(r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#, 0);
        assert_eq!(unnamed.pre_tool_decision().map(|d| d.decision), Some(HookDecision::Allow));
    }

    #[test]
    fn exit_two_blocks_with_stderr_or_the_reason() {
        assert_eq!(outcome("", 2).pre_tool_decision().map(|d| d.reason), Some("err".into()));
        assert_eq!(outcome(r#"{"reason": "no"}"#, 2).block().map(|b| b.0), Some("no".into()));
    }

    #[test]
    fn permission_request_answers() {
        let o = outcome(
            r#"{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}"#,
            0,
        );
        let a = o.permission_answer().unwrap();
        assert!(a.allow);
        assert_eq!(a.updated_input, Some(serde_json::json!({"command": "ls"})));
    }
}
