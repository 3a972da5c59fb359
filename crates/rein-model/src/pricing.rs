//! List prices from the model table, for `total_cost_usd` in results.

use rein_protocol::Usage;

use crate::models::model_info;

/// What one web search costs ($10 per 1 000), on every provider that offers it.
pub const WEB_SEARCH_USD: f64 = 0.01;

/// Cost of one usage record: cache writes at 1.25× input (2× for 1-hour writes, when the
/// usage splits them out), cache reads at 0.1×, and the web searches it ran.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    let info = model_info(model);
    let (input, output) = (info.input_usd_per_mtok, info.output_usd_per_mtok);
    let mtok = 1_000_000.0;
    let one_hour =
        usage.cache_creation.map_or(0, |c| c.ephemeral_1h_input_tokens).min(usage.cache_creation_input_tokens);
    let five_minutes = usage.cache_creation_input_tokens - one_hour;
    (usage.input_tokens as f64 * input
        + five_minutes as f64 * input * 1.25
        + one_hour as f64 * input * 2.0
        + usage.cache_read_input_tokens as f64 * input * 0.1
        + usage.output_tokens as f64 * output)
        / mtok
        + usage.web_searches() as f64 * WEB_SEARCH_USD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_come_from_the_table() {
        let u = Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..Usage::default() };
        assert!((cost_usd("claude-sonnet-4-5", &u) - 18.0).abs() < 1e-9);
        assert!((cost_usd("claude-opus-4-1-20250805", &u) - 90.0).abs() < 1e-9);
        assert!((cost_usd("claude-haiku-4-5", &u) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn one_hour_cache_writes_cost_twice_the_input_price() {
        let five = Usage { cache_creation_input_tokens: 1_000_000, ..Usage::default() };
        assert!((cost_usd("claude-sonnet-4-5", &five) - 3.75).abs() < 1e-9, "5-minute writes: 1.25×");
        let split = rein_protocol::CacheCreation { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1_000_000 };
        let hour = Usage { cache_creation: Some(split), ..five };
        assert!((cost_usd("claude-sonnet-4-5", &hour) - 6.0).abs() < 1e-9, "1-hour writes: 2×");
        let read = Usage { cache_read_input_tokens: 1_000_000, ..Usage::default() };
        assert!((cost_usd("claude-sonnet-4-5", &read) - 0.3).abs() < 1e-9, "reads: 0.1×");
    }

    #[test]
    fn a_web_search_costs_a_cent() {
        let searched = rein_protocol::ServerToolUse { web_search_requests: 3, web_fetch_requests: 0 };
        let u = Usage { server_tool_use: Some(searched), ..Usage::default() };
        assert!((cost_usd("claude-haiku-4-5", &u) - 0.03).abs() < 1e-9);
    }
}
