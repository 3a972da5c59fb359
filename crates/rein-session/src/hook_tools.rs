//! What `agent` and `mcp_tool` hooks run on, from the session's own parts: an agent
//! hook is a subagent on the small fast model with only Read, Grep and Glob, no hooks
//! of its own (a hook never raises hooks) and no one to ask (what the rules do not
//! allow is refused); an mcp_tool hook calls the server's tool as the session has it.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_engine::{End, Engine, EngineConfig, Gate};
use rein_hooks::DelegatedError;
use rein_model::Model;
use rein_policy::SharedPolicy;
use rein_protocol::Message;
use rein_tools::{Registry, ToolContext};
use serde_json::Value;

/// The tools an agent hook may use: it looks, it never changes anything.
const READ_ONLY: [&str; 3] = ["Read", "Grep", "Glob"];
/// An agent hook's turns (as Claude Code's).
const MAX_TURNS: u32 = 50;

/// The system prompt of every agent hook (it names itself, as the judges' do).
pub(crate) const AGENT_HOOK_RUBRIC: &str = "You are rein's hook verifier. A user configured a hook that asks you to check a \
moment of a coding agent's work (a tool call, a prompt, the end of a turn) against their condition. You may look at \
the project with Read, Grep and Glob; you change nothing. When you know, answer with exactly one JSON object and \
nothing else: {\"ok\": true} when the condition is met (the agent may go on), or {\"ok\": false, \"reason\": \"<one \
short line for the agent>\"} when it is not.";

/// The session's parts agent and mcp_tool hooks use.
pub(crate) struct SessionHookTools {
    pub model: Arc<dyn Model>,
    /// The small fast model: an agent hook's model unless it names one.
    pub model_name: String,
    pub registry: Arc<Registry>,
    pub policy: SharedPolicy,
    pub ctx: ToolContext,
    pub config: EngineConfig,
}

impl rein_hooks::HookTools for SessionHookTools {
    fn verify<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(bool, String), DelegatedError>> {
        Box::pin(async move {
            let registry = self.registry.for_subagent(|name| READ_ONLY.contains(&name));
            let mut config = self.config.clone();
            config.system = AGENT_HOOK_RUBRIC.to_string().into();
            config.model = model.map_or_else(|| self.model_name.clone(), |m| config.aliases.resolve(m));
            config.max_turns = Some(MAX_TURNS);
            config.nested_memory = None;
            let gate = Gate::new(SharedPolicy::new((*self.policy.get()).clone()));
            let mut ctx = self.ctx.clone();
            ctx.abort = ctx.abort.child_token();
            let mut engine = Engine::new(self.model.clone(), Arc::new(registry), gate, ctx, config);
            let outcome = engine.run(Message::user_text(prompt), &mut |_| {}).await;
            match outcome.end {
                End::Completed | End::Stopped(_) => {
                    verdict(&outcome.result_text).map_err(|e| DelegatedError::NoVerdict(e.to_string()))
                }
                End::MaxTurns | End::MaxBudget => {
                    Err(DelegatedError::NoAnswer(format!("the agent hook gave no answer in {MAX_TURNS} turns")))
                }
                End::Interrupted => Err(DelegatedError::NoAnswer("the agent hook was interrupted".into())),
                End::Deferred(_) => Err(DelegatedError::NoAnswer("the agent hook's call was deferred".into())),
                End::Failed(e) => Err(DelegatedError::failed("the agent hook failed", e)),
            }
        })
    }

    fn call_mcp_tool<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: Value,
    ) -> BoxFuture<'a, Result<String, DelegatedError>> {
        Box::pin(async move {
            let name = rein_mcp::names::tool_name(server, tool);
            self.registry.ready(&name).await;
            let call = self
                .registry
                .prepare(&name, &input)
                .map_err(|e| DelegatedError::Tool(format!("MCP server {server:?} has no usable tool {tool:?}: {e}")))?;
            let output = call.call(self.ctx.clone()).await.map_err(|e| DelegatedError::Tool(e.0))?;
            let text = output.content.to_text();
            if output.is_error { Err(DelegatedError::Tool(text)) } else { Ok(text) }
        })
    }
}

/// The verdict in an agent's last answer: the JSON object, or the last one in its text.
fn verdict(text: &str) -> Result<(bool, String), rein_judge::AnswerError> {
    rein_judge::parse_verdict(text).or_else(|first| {
        let start = text.rfind("{\"ok\"").or_else(|| text.rfind('{')).ok_or_else(|| first.clone())?;
        let end = text.rfind('}').filter(|e| *e > start).ok_or(first)?;
        rein_judge::parse_verdict(&text[start..=end])
    })
}

#[cfg(test)]
mod tests {
    use super::verdict;

    #[test]
    fn the_verdict_is_found_after_the_agents_notes() {
        assert_eq!(verdict("{\"ok\": true}"), Ok((true, String::new())));
        assert_eq!(
            verdict("I read src/lib.rs: no test covers it.\n{\"ok\": false, \"reason\": \"no test\"}"),
            Ok((false, "no test".into()))
        );
        assert!(verdict("I could not decide").is_err());
    }
}
