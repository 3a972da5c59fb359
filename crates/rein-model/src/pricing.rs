//! Approximate list prices, for `total_cost_usd` in results.

use rein_protocol::Usage;

/// (input, output) US dollars per million tokens for a model id.
fn price_per_mtok(model: &str) -> (f64, f64) {
    let m = model.to_ascii_lowercase();
    if m.contains("opus-4-5") || m.contains("opus-4-6") || m.contains("opus-4-7") {
        (5.0, 25.0)
    } else if m.contains("opus") {
        (15.0, 75.0)
    } else if m.contains("haiku-3") {
        (0.8, 4.0)
    } else if m.contains("haiku") {
        (1.0, 5.0)
    } else {
        (3.0, 15.0)
    }
}

/// Cost of one usage record: cache writes at 1.25× input, cache reads at 0.1×.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    let (input, output) = price_per_mtok(model);
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
    fn sonnet_prices() {
        let u = Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..Usage::default() };
        assert!((cost_usd("claude-sonnet-4-5", &u) - 18.0).abs() < 1e-9);
    }
}
