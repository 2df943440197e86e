//! Token counts with a real tokenizer (OpenAI's o200k_base via `bpe-openai`),
//! the currency of context packs and review chunks. Counting is lazy: the
//! first question about the whole repository counts every file once (in
//! parallel) and caches the count by content hash in the index.

use serde::{Deserialize, Serialize};

/// A number of model tokens.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct TokenCount(pub u64);

impl TokenCount {
    pub fn get(self) -> u64 {
        self.0
    }
}

impl std::ops::Add for TokenCount {
    type Output = TokenCount;
    fn add(self, rhs: TokenCount) -> TokenCount {
        TokenCount(self.0 + rhs.0)
    }
}

impl std::ops::AddAssign for TokenCount {
    fn add_assign(&mut self, rhs: TokenCount) {
        self.0 += rhs.0;
    }
}

impl std::iter::Sum for TokenCount {
    fn sum<I: Iterator<Item = TokenCount>>(iter: I) -> TokenCount {
        TokenCount(iter.map(|t| t.0).sum())
    }
}

impl std::fmt::Display for TokenCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Count the o200k tokens of `text` (the encoding of current OpenAI models;
/// for other providers an estimate within a few percent on code).
pub fn count(text: &str) -> TokenCount {
    TokenCount(bpe_openai::o200k_base().count(text) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_real_tokens_not_characters() {
        assert_eq!(count(""), TokenCount(0));
        let hello = count("hello world");
        assert_eq!(hello, TokenCount(2));
        let code = count("def validate_token(token: str) -> Claims:\n    return decode(token)\n");
        assert!(code.0 > 10 && code.0 < 40, "{code}");
    }
}
