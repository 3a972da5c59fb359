//! The model table: ids, aliases, context windows (with the 1M-token `[1m]` variants),
//! output limits, prices and which thinking and effort controls each model takes. The
//! facts live in one data file, `models.json`; a dated id (`claude-sonnet-4-5-20250929`)
//! takes the entry of its longest listed prefix, an unknown id the table's `unknown` row.

use std::sync::LazyLock;

use serde::Deserialize;

/// How a model thinks: `adaptive` (it decides, 4.6+), `enabled` with a token budget,
/// or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingStyle {
    Adaptive,
    Enabled,
    None,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ModelInfo {
    #[serde(default)]
    pub id: String,
    pub context_window: u64,
    pub max_output_tokens: u32,
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
    pub thinking: ThinkingStyle,
    /// Takes `output_config.effort`.
    pub effort: bool,
    /// Has a 1M-token context variant, asked for with the `[1m]` suffix.
    pub long_context: bool,
}

#[derive(Deserialize)]
struct Table {
    default: String,
    /// The small fast model of the small-model uses (the auto-mode judge, prompt hooks).
    small: String,
    aliases: std::collections::BTreeMap<String, String>,
    unknown: ModelInfo,
    models: Vec<ModelInfo>,
}

static TABLE: LazyLock<Result<Table, serde_json::Error>> =
    LazyLock::new(|| serde_json::from_str(include_str!("models.json")));

/// The row for an unknown model when the table itself is unreadable (never, as a unit
/// test parses it).
fn fallback() -> ModelInfo {
    ModelInfo {
        id: String::new(),
        context_window: 200_000,
        max_output_tokens: 32_000,
        input_usd_per_mtok: 3.0,
        output_usd_per_mtok: 15.0,
        thinking: ThinkingStyle::Enabled,
        effort: false,
        long_context: false,
    }
}

/// Claude Code's default model.
pub fn default_model() -> String {
    match &*TABLE {
        Ok(t) => t.default.clone(),
        Err(_) => "claude-sonnet-4-5".into(),
    }
}

/// The small fast model: `ANTHROPIC_SMALL_FAST_MODEL` (read through `var`), else what
/// the `haiku` alias means (`ANTHROPIC_DEFAULT_HAIKU_MODEL` included), else the table's.
pub fn small_fast_model(var: impl Fn(&str) -> Option<String>) -> String {
    if let Some(m) = var("ANTHROPIC_SMALL_FAST_MODEL").filter(|m| !m.trim().is_empty()) {
        return resolve_alias(m.trim(), &var);
    }
    if let Some(m) = var("ANTHROPIC_DEFAULT_HAIKU_MODEL").filter(|m| !m.trim().is_empty()) {
        return m.trim().to_string();
    }
    match &*TABLE {
        Ok(t) => t.small.clone(),
        Err(_) => "claude-haiku-4-5".into(),
    }
}

/// The table's row for `model` (the `[1m]` suffix and a date suffix ignored).
pub fn model_info(model: &str) -> ModelInfo {
    let Ok(table) = &*TABLE else { return fallback() };
    let id = model.trim_end_matches("[1m]").to_ascii_lowercase();
    let id = id.rsplit_once('/').map_or(id.as_str(), |(_, last)| last);
    table
        .models
        .iter()
        // `claude-…` itself, or after a provider prefix such as `us.anthropic.`.
        .filter(|m| id.match_indices(&m.id).any(|(at, _)| at == 0 || id.as_bytes()[at - 1] == b'.'))
        .max_by_key(|m| m.id.len())
        .cloned()
        .unwrap_or_else(|| table.unknown.clone())
}

/// The context window of `model`: 1M tokens for a `[1m]` variant of a model that has one.
pub fn context_window(model: &str) -> u64 {
    let info = model_info(model);
    if model.ends_with("[1m]") && info.long_context { 1_000_000 } else { info.context_window }
}

/// What the family aliases mean in this session: `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL`
/// read once (where unset, the model table's ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    pub opus: Option<String>,
    pub sonnet: Option<String>,
    pub haiku: Option<String>,
    pub fable: Option<String>,
}

impl Aliases {
    /// Read the three variables through `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Aliases {
        Aliases {
            opus: var("ANTHROPIC_DEFAULT_OPUS_MODEL"),
            sonnet: var("ANTHROPIC_DEFAULT_SONNET_MODEL"),
            haiku: var("ANTHROPIC_DEFAULT_HAIKU_MODEL"),
            fable: var("ANTHROPIC_DEFAULT_FABLE_MODEL"),
        }
    }

    /// `model` as an id (an alias, with an optional `[1m]`; anything else as given).
    pub fn resolve(&self, model: &str) -> String {
        resolve_alias(model, |name| match name {
            "ANTHROPIC_DEFAULT_OPUS_MODEL" => self.opus.clone(),
            "ANTHROPIC_DEFAULT_SONNET_MODEL" => self.sonnet.clone(),
            "ANTHROPIC_DEFAULT_HAIKU_MODEL" => self.haiku.clone(),
            "ANTHROPIC_DEFAULT_FABLE_MODEL" => self.fable.clone(),
            _ => None,
        })
    }
}

/// An alias (`opus`, `sonnet`, `haiku`, `fable`, `best`, with an optional `[1m]`) as a
/// model id, as Claude Code 2.1.33x resolves them (opus 5.5, sonnet 4.6, haiku 4.5, fable
/// 5.2); `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL` (read through `var`) choose
/// what the family aliases mean. Anything else is returned as given.
pub fn resolve_alias(model: &str, var: impl Fn(&str) -> Option<String>) -> String {
    let (name, suffix) = match model.strip_suffix("[1m]") {
        Some(name) => (name, "[1m]"),
        None => (model, ""),
    };
    let overridden = match name {
        "opus" | "best" => var("ANTHROPIC_DEFAULT_OPUS_MODEL"),
        "sonnet" => var("ANTHROPIC_DEFAULT_SONNET_MODEL"),
        "haiku" => var("ANTHROPIC_DEFAULT_HAIKU_MODEL"),
        "fable" => var("ANTHROPIC_DEFAULT_FABLE_MODEL"),
        _ => None,
    };
    let table = TABLE.as_ref().ok().and_then(|t| t.aliases.get(name).cloned());
    match overridden.filter(|v| !v.trim().is_empty()).or(table) {
        Some(id) => format!("{id}{suffix}"),
        None => model.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_alias_names_a_listed_model() {
        let table = TABLE.as_ref().unwrap();
        assert!(table.models.iter().any(|m| m.id == table.default));
        for id in table.aliases.values() {
            assert!(table.models.iter().any(|m| &m.id == id), "{id}");
        }
    }

    #[test]
    fn dated_ids_take_their_family_row_and_unknown_ids_the_default_row() {
        assert_eq!(model_info("claude-sonnet-4-5-20250929").id, "claude-sonnet-4-5");
        assert_eq!(model_info("claude-opus-4-1-20250805").max_output_tokens, 32_000);
        assert_eq!(model_info("us.anthropic.claude-haiku-4-5-20251001-v1:0").id, "claude-haiku-4-5");
        assert_eq!(model_info("claude-sonnet-4-20250514").id, "claude-sonnet-4");
        assert_eq!(model_info("llama3.1").id, "");
        assert_eq!(context_window("claude-sonnet-4-5[1m]"), 1_000_000);
        assert_eq!(context_window("claude-haiku-4-5[1m]"), 200_000, "no 1M variant");
    }

    #[test]
    fn aliases_follow_the_environment() {
        let none = |_: &str| None;
        assert_eq!(resolve_alias("sonnet", none), "claude-sonnet-5-5");
        assert_eq!(resolve_alias("fable", none), "claude-fable-5-2");
        assert_eq!(resolve_alias("haiku", none), "claude-haiku-4-5");
        assert_eq!(resolve_alias("opus[1m]", none), "claude-opus-5-5[1m]");
        assert_eq!(resolve_alias("claude-x", none), "claude-x");
        let env = |k: &str| (k == "ANTHROPIC_DEFAULT_HAIKU_MODEL").then(|| "my-haiku".to_string());
        assert_eq!(resolve_alias("haiku", env), "my-haiku");
    }
}
