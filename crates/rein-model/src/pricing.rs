//! List prices from the model table, for `total_cost_usd` in results.

use rein_protocol::Usage;

use crate::models::model_info;

/// Cost of one usage record: cache writes at 1.25× input, cache reads at 0.1×.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    let info = model_info(model);
    let (input, output) = (info.input_usd_per_mtok, info.output_usd_per_mtok);
    let mtok = 1_000_000.0;
    (usage.input_tokens as f64 * input
        + usage.cache_creation_input_tokens as f64 * input * 1.25
        + usage.cache_read_input_tokens as f64 * input * 0.1
        + usage.output_tokens as f64 * output)
        / mtok
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
}
