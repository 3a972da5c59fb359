//! Thinking and effort: what a request asks for, chosen from the person's switches and
//! what the model takes (the model table's `thinking` and `effort` columns), plus the
//! `anthropic-beta` values those fields need.

use serde::Serialize;

use crate::models::{ThinkingStyle, model_info};

/// The `thinking` field of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Thinking {
    /// The model decides how much to think (4.6+); `display` says what the stream shows.
    Adaptive {
        #[serde(skip_serializing_if = "Option::is_none")]
        display: Option<String>,
    },
    /// Think up to `budget_tokens` (at least 1024, below `max_tokens`).
    Enabled {
        budget_tokens: u32,
    },
    Disabled,
}

/// `output_config.effort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

impl Effort {
    /// `low`, `medium`, … (the settings key `effortLevel`).
    pub fn parse(text: &str) -> Option<Effort> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "low" => Effort::Low,
            "medium" => Effort::Medium,
            "high" => Effort::High,
            "xhigh" => Effort::Xhigh,
            "max" => Effort::Max,
            _ => return None,
        })
    }

    /// For `--effort`: the value, or an error naming the choices.
    pub fn parse_arg(text: &str) -> Result<Effort, crate::UnknownChoice> {
        Effort::parse(text).ok_or_else(|| crate::UnknownChoice {
            given: text.to_string(),
            what: "an effort",
            choices: "low, medium, high, xhigh or max",
        })
    }
}

/// `--thinking`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingMode {
    Adaptive,
    Enabled,
    Disabled,
}

impl ThinkingMode {
    /// For `--thinking`: `adaptive`, `enabled` or `disabled`.
    pub fn parse_arg(text: &str) -> Result<ThinkingMode, crate::UnknownChoice> {
        match text.trim().to_ascii_lowercase().as_str() {
            "adaptive" => Ok(ThinkingMode::Adaptive),
            "enabled" => Ok(ThinkingMode::Enabled),
            "disabled" => Ok(ThinkingMode::Disabled),
            _ => Err(crate::UnknownChoice {
                given: text.to_string(),
                what: "a thinking mode",
                choices: "adaptive, enabled or disabled",
            }),
        }
    }
}

/// What the person asked for, from flags, environment and settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThinkingChoice {
    /// `--thinking`.
    pub mode: Option<ThinkingMode>,
    /// `--max-thinking-tokens` / `MAX_THINKING_TOKENS`; 0 turns thinking off.
    pub max_thinking_tokens: Option<u32>,
    /// The settings' `alwaysThinkingEnabled`.
    pub always: Option<bool>,
    /// `--effort` / `effortLevel`.
    pub effort: Option<Effort>,
}

/// The thinking budget when none is given (Claude Code's).
const DEFAULT_BUDGET: u32 = 31_999;
/// The smallest budget the API takes.
const MIN_BUDGET: u32 = 1_024;

/// The reasoning fields of requests to one model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reasoning {
    pub thinking: Option<Thinking>,
    pub effort: Option<Effort>,
}

impl Reasoning {
    /// Choose for `model` with `max_tokens` of output. Models that think adaptively do
    /// so unless turned off; the others think when asked (a budget, `--thinking`, or
    /// `alwaysThinkingEnabled`). Effort goes only to models that take it, `medium` by
    /// default.
    pub fn choose(model: &str, max_tokens: u32, choice: &ThinkingChoice) -> Reasoning {
        let info = model_info(model);
        let off = choice.mode == Some(ThinkingMode::Disabled)
            || choice.max_thinking_tokens == Some(0)
            || (choice.always == Some(false) && choice.mode.is_none() && choice.max_thinking_tokens.is_none());
        let asked = choice.mode.is_some() || choice.max_thinking_tokens.is_some() || choice.always == Some(true);
        let thinking = match info.thinking {
            ThinkingStyle::None => None,
            _ if off => Some(Thinking::Disabled),
            ThinkingStyle::Adaptive if choice.mode != Some(ThinkingMode::Enabled) => {
                Some(Thinking::Adaptive { display: Some("updates".into()) })
            }
            _ if asked && max_tokens > MIN_BUDGET => {
                let budget = choice.max_thinking_tokens.unwrap_or(DEFAULT_BUDGET);
                Some(Thinking::Enabled { budget_tokens: budget.clamp(MIN_BUDGET, max_tokens - 1) })
            }
            _ => None,
        };
        let effort = info.effort.then(|| choice.effort.unwrap_or(Effort::Medium));
        Reasoning { thinking, effort }
    }

    /// Whether the model will think.
    pub fn thinks(&self) -> bool {
        matches!(self.thinking, Some(Thinking::Adaptive { .. } | Thinking::Enabled { .. }))
    }
}

/// Interleaved thinking between tool calls.
pub const BETA_INTERLEAVED: &str = "interleaved-thinking-2025-05-14";
/// `context_management` edits.
pub const BETA_CONTEXT_MANAGEMENT: &str = "context-management-2025-06-27";
/// `output_config.effort`.
pub const BETA_EFFORT: &str = "effort-2025-11-24";

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(model: &str, choice: ThinkingChoice) -> Reasoning {
        Reasoning::choose(model, 64_000, &choice)
    }

    #[test]
    fn adaptive_models_think_by_default_at_medium_effort() {
        let r = choose("claude-opus-5-5", ThinkingChoice::default());
        assert_eq!(r.thinking, Some(Thinking::Adaptive { display: Some("updates".into()) }));
        assert_eq!(r.effort, Some(Effort::Medium));
        let off = choose("claude-opus-5-5", ThinkingChoice { max_thinking_tokens: Some(0), ..Default::default() });
        assert_eq!(off.thinking, Some(Thinking::Disabled));
    }

    #[test]
    fn budget_models_think_when_asked_with_a_clamped_budget() {
        assert_eq!(choose("claude-sonnet-4-5", ThinkingChoice::default()), Reasoning::default());
        let r = choose("claude-sonnet-4-5", ThinkingChoice { max_thinking_tokens: Some(8_000), ..Default::default() });
        assert_eq!(r.thinking, Some(Thinking::Enabled { budget_tokens: 8_000 }));
        assert_eq!(r.effort, None, "sonnet 4.5 takes no effort");
        let r =
            Reasoning::choose("claude-sonnet-4-5", 4_000, &ThinkingChoice { always: Some(true), ..Default::default() });
        assert_eq!(r.thinking, Some(Thinking::Enabled { budget_tokens: 3_999 }));
        let r = choose("claude-3-5-haiku", ThinkingChoice { mode: Some(ThinkingMode::Enabled), ..Default::default() });
        assert_eq!(r.thinking, None, "a model without thinking gets no field");
    }

    #[test]
    fn effort_parses_and_serialises_lowercase() {
        assert_eq!(Effort::parse("HIGH"), Some(Effort::High));
        assert_eq!(Effort::parse("extreme"), None);
        assert_eq!(serde_json::to_value(Effort::Xhigh).unwrap(), "xhigh");
        assert_eq!(
            serde_json::to_value(Thinking::Enabled { budget_tokens: 2048 }).unwrap(),
            serde_json::json!({"type": "enabled", "budget_tokens": 2048})
        );
    }
}
