//! Which model API rein talks to, chosen by `--provider`, `REIN_PROVIDER`,
//! `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX` (as Claude Code users configure
//! them) or the settings'
//! `provider`, and the client for it.

use std::sync::Arc;

use rein_model::{
    AnthropicClient, AnthropicConfig, BedrockClient, BedrockConfig, Model, OpenAiChatClient, OpenAiConfig, OpenAiWire,
    VertexClient, VertexConfig,
};

use crate::SetupError;
use crate::env::Env;

/// A model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    /// The Anthropic Messages API.
    #[default]
    Anthropic,
    /// An OpenAI-compatible Chat Completions server.
    OpenAiChat,
    /// The OpenAI Responses API.
    OpenAiResponses,
    /// The Messages API on Google Vertex AI.
    Vertex,
    /// The Messages API on Amazon Bedrock.
    Bedrock,
}

impl crate::Setup {
    /// The model API as Claude Code names it to programs: `firstParty` (Anthropic's
    /// own, or a server speaking its API), `bedrock`, `vertex`; `openai` for the others.
    pub fn api_provider(&self) -> &'static str {
        match self.provider {
            Provider::Anthropic => "firstParty",
            Provider::Bedrock => "bedrock",
            Provider::Vertex => "vertex",
            Provider::OpenAiChat | Provider::OpenAiResponses => "openai",
        }
    }
}

impl Provider {
    /// Whether the provider runs web searches itself (WebSearch is offered): the
    /// Messages API everywhere, and the Responses API; not Chat Completions.
    pub fn searches_the_web(self) -> bool {
        !matches!(self, Provider::OpenAiChat)
    }

    pub fn parse_arg(text: &str) -> Result<Provider, rein_model::UnknownChoice> {
        match text.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Provider::Anthropic),
            "openai-chat" | "openai" => Ok(Provider::OpenAiChat),
            "openai-responses" => Ok(Provider::OpenAiResponses),
            "vertex" => Ok(Provider::Vertex),
            "bedrock" => Ok(Provider::Bedrock),
            other => Err(rein_model::UnknownChoice {
                given: other.to_string(),
                what: "a provider",
                choices: "anthropic, openai-chat, openai-responses, bedrock or vertex",
            }),
        }
    }

    /// The flag, else `REIN_PROVIDER`, else `CLAUDE_CODE_USE_BEDROCK`, else
    /// `CLAUDE_CODE_USE_VERTEX`, else the settings' value, else Anthropic.
    /// `vars`: the session's own variables (its settings' `env`).
    pub fn choose(
        flag: Option<Provider>,
        from_settings: Option<&str>,
        vars: &[(String, String)],
    ) -> crate::Result<Provider> {
        if let Some(p) = flag {
            return Ok(p);
        }
        if let Some(v) = Env::lookup_in(vars, "REIN_PROVIDER") {
            return Provider::parse_arg(&v).map_err(|e| SetupError::Invalid(format!("REIN_PROVIDER: {e}")));
        }
        let on = |name: &str| Env::lookup_in(vars, name).is_some_and(|v| !matches!(v.trim(), "" | "0" | "false"));
        if on("CLAUDE_CODE_USE_BEDROCK") {
            return Ok(Provider::Bedrock);
        }
        if on("CLAUDE_CODE_USE_VERTEX") {
            return Ok(Provider::Vertex);
        }
        match from_settings {
            Some(v) => Provider::parse_arg(v).map_err(|e| SetupError::Invalid(format!("settings `provider`: {e}"))),
            None => Ok(Provider::Anthropic),
        }
    }

    /// The client, from the provider's variables (and `apiKeyHelper` for Anthropic).
    pub fn client(self, key_helper: Option<&str>) -> crate::Result<Arc<dyn Model>> {
        Ok(match self {
            Provider::Anthropic => {
                let config = AnthropicConfig::from_vars_or_helper(Env::lookup, key_helper)?;
                Arc::new(AnthropicClient::new(&config)?)
            }
            Provider::OpenAiChat => {
                Arc::new(OpenAiChatClient::new(&OpenAiConfig::from_vars(Env::lookup), OpenAiWire::ChatCompletions)?)
            }
            Provider::OpenAiResponses => {
                Arc::new(OpenAiChatClient::new(&OpenAiConfig::from_vars(Env::lookup), OpenAiWire::Responses)?)
            }
            Provider::Vertex => {
                let config = VertexConfig::from_vars(Env::lookup)?
                    .with_model_regions(Env::prefixed(rein_model::MODEL_REGION_PREFIX))?;
                Arc::new(VertexClient::new(&config)?)
            }
            Provider::Bedrock => Arc::new(BedrockClient::new(&BedrockConfig::from_vars(Env::lookup)?)?),
        })
    }
}
