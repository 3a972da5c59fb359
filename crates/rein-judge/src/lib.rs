//! The auto-mode judge: the engine's `Judge` seam answered by a small fast model
//! (`ANTHROPIC_SMALL_FAST_MODEL` or the model table's small model, on whichever
//! provider the session uses). One request per call, the rubric as its cached prefix;
//! the answer must be one well-formed JSON verdict within the timeout, or the judgement
//! fails — and a failed judgement never allows. Identical calls reuse their verdict.
//! The same small model names sessions ([`session_title`]).

mod ask;
mod error;
mod prompt_hook;
mod rubric;
mod title;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use rein_engine::{Judge, JudgeRequest, JudgeVerdict, Judgement};
use rein_model::Model;
use rein_protocol::Usage;
use serde_json::Value;

pub use error::{AnswerError, AskError, JudgeError, TitleError};
pub use prompt_hook::{HOOK_RUBRIC, PromptHookJudge, parse as parse_verdict};
pub use rubric::{RUBRIC, describe};
pub use title::{TITLE_RUBRIC, session_title};

/// The judge's answer is short.
const MAX_TOKENS: u32 = 400;

/// A judge on a model.
pub struct ModelJudge {
    model: Arc<dyn Model>,
    model_name: String,
    timeout: Duration,
    /// Verdicts by call (tool and input), reused for identical calls.
    verdicts: Mutex<HashMap<String, (JudgeVerdict, String)>>,
}

impl ModelJudge {
    pub fn new(model: Arc<dyn Model>, model_name: String, timeout: Duration) -> Self {
        ModelJudge { model, model_name, timeout, verdicts: Mutex::new(HashMap::new()) }
    }

    async fn ask(&self, request: &JudgeRequest<'_>) -> Result<(JudgeVerdict, String, Usage), JudgeError> {
        let prompt = rubric::describe(request);
        let (text, usage) =
            ask::ask_text(&*self.model, &self.model_name, RUBRIC, prompt, MAX_TOKENS).await.map_err(JudgeError::Ask)?;
        let (verdict, reason) = parse(&text)?;
        Ok((verdict, reason, usage))
    }
}

impl Judge for ModelJudge {
    fn judge<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Judgement> {
        Box::pin(async move {
            let started = Instant::now();
            let key = format!("{}\u{0}{}", request.call.name, request.call.input);
            let mut judgement = Judgement {
                verdict: JudgeVerdict::Failed,
                reason: String::new(),
                model: self.model_name.clone(),
                latency: Duration::ZERO,
                usage: Usage::default(),
                cost_usd: 0.0,
                cached: false,
            };
            let known = self.verdicts.lock().unwrap_or_else(|p| p.into_inner()).get(&key).cloned();
            if let Some((verdict, reason)) = known {
                judgement.verdict = verdict;
                judgement.reason = reason;
                judgement.cached = true;
                judgement.latency = started.elapsed();
                return judgement;
            }
            match tokio::time::timeout(self.timeout, self.ask(&request)).await {
                Ok(Ok((verdict, reason, usage))) => {
                    judgement.cost_usd = rein_model::cost_usd(&self.model_name, &usage);
                    judgement.usage = usage;
                    self.verdicts
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(key, (verdict.clone(), reason.clone()));
                    judgement.verdict = verdict;
                    judgement.reason = reason;
                }
                Ok(Err(why)) => judgement.reason = why.to_string(),
                Err(_) => judgement.reason = format!("no answer within {} s", self.timeout.as_secs_f64()),
            }
            judgement.latency = started.elapsed();
            judgement
        })
    }
}

/// Read the verdict: one JSON object (a code fence around it is tolerated) with
/// `decision` `allow` or `block` and a `reason`. Anything else fails.
pub fn parse(text: &str) -> Result<(JudgeVerdict, String), AnswerError> {
    let value = ask::json_answer(text).map_err(|_| AnswerError::NotAVerdict(ask::one_line(text)))?;
    let reason = value
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .ok_or_else(|| AnswerError::NoReason(ask::one_line(text)))?;
    let verdict = match value.get("decision").and_then(Value::as_str) {
        Some("allow") => JudgeVerdict::Allow,
        Some("block") => JudgeVerdict::Block,
        _ => return Err(AnswerError::NoDecision(ask::one_line(text))),
    };
    Ok((verdict, reason.lines().next().unwrap_or(reason).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_verdict_counts() {
        assert_eq!(parse(r#"{"decision":"allow","reason":"runs the tests"}"#).unwrap().0, JudgeVerdict::Allow);
        let fenced = "```json\n{\"decision\": \"block\", \"reason\": \"deletes the home directory\"}\n```";
        assert_eq!(parse(fenced).unwrap(), (JudgeVerdict::Block, "deletes the home directory".into()));
        for bad in [
            "allow",
            r#"{"decision":"yes","reason":"x"}"#,
            r#"{"decision":"allow"}"#,
            r#"{"decision":"allow","reason":"  "}"#,
            r#"Sure! {"decision":"allow","reason":"x"}"#,
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} must fail");
        }
    }
}
