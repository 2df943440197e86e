//! Cost estimates from a small table of list prices. Prices change and
//! differ by provider contract, so every figure is labelled approximate;
//! the table is here so a dry run can say "about $2", not to bill anyone.

use serde::Serialize;

use crate::tokens::TokenCount;

/// USD per million tokens, input and output, as listed by the vendors in 2025.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Price {
    pub model: &'static str,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

pub const PRICES: &[Price] = &[
    Price {
        model: "claude-sonnet-4.5",
        input_per_mtok: 3.0,
        output_per_mtok: 15.0,
    },
    Price {
        model: "claude-haiku-4.5",
        input_per_mtok: 1.0,
        output_per_mtok: 5.0,
    },
    Price {
        model: "gpt-4.1",
        input_per_mtok: 2.0,
        output_per_mtok: 8.0,
    },
    Price {
        model: "gpt-4.1-mini",
        input_per_mtok: 0.4,
        output_per_mtok: 1.6,
    },
    Price {
        model: "local (ollama, llama.cpp)",
        input_per_mtok: 0.0,
        output_per_mtok: 0.0,
    },
];

/// Output tokens assumed per chunk before a run: findings are short, and
/// a reply that runs longer is cut by the provider's output limit.
pub const ASSUMED_OUTPUT_PER_CHUNK: u64 = 800;

#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub model: &'static str,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    pub usd: f64,
}

/// The cost of `input` and `output` tokens under every price in the table.
pub fn estimate(input: TokenCount, output: TokenCount) -> Vec<Estimate> {
    PRICES
        .iter()
        .map(|p| Estimate {
            model: p.model,
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
            usd: (input.get() as f64 * p.input_per_mtok + output.get() as f64 * p.output_per_mtok)
                / 1e6,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_tokens_cost_the_listed_price() {
        let e = estimate(TokenCount(1_000_000), TokenCount(0));
        assert!((e[0].usd - PRICES[0].input_per_mtok).abs() < 1e-9);
        let e = estimate(TokenCount(0), TokenCount(2_000_000));
        assert!((e[2].usd - 2.0 * PRICES[2].output_per_mtok).abs() < 1e-9);
    }
}
