//! The one matcher of what users type into the tree filter (`f`) and the
//! command palette (`:`): case-insensitive, a substring first, else the
//! query's characters in order (`vtok` finds `validate_token`).

/// How well `text` matches `query`, higher is better; `None` for no match.
/// An empty query matches everything equally.
pub fn score(text: &str, query: &str) -> Option<i64> {
    let query = query.trim();
    if query.is_empty() {
        return Some(0);
    }
    let text = text.to_lowercase();
    let query = query.to_lowercase();
    if let Some(at) = text.find(&query) {
        // Earlier is better: a name or a description that starts with it.
        let start = at == 0 || !text[..at].ends_with(char::is_alphanumeric);
        return Some(10_000 - at as i64 + if start { 1_000 } else { 0 });
    }
    let hay: Vec<char> = text.chars().collect();
    let mut score = 0i64;
    let mut from = 0usize;
    let mut prev: Option<usize> = None;
    for qc in query.chars() {
        let pos = from + hay[from..].iter().position(|&c| c == qc)?;
        score += 10;
        if prev.is_some_and(|p| p + 1 == pos) {
            score += 15;
        }
        if pos == 0 || !hay[pos - 1].is_alphanumeric() {
            score += 20;
        }
        prev = Some(pos);
        from = pos + 1;
    }
    Some(score - hay.len() as i64 / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substrings_in_any_case_then_subsequences() {
        assert!(score("tokens.validate_token", "VALIDATE").is_some());
        assert!(score("tokens.validate_token", "vtok").is_some());
        assert!(score("tokens.validate_token", "xyz").is_none());
        assert!(score("b.a", "ab").is_none(), "order matters");
        let substring = score("run the tests that reach it", "tests").unwrap();
        let scattered = score("toggle callers / callees", "tests");
        assert!(scattered.is_none_or(|s| s < substring));
        assert_eq!(score("anything", "  "), Some(0));
    }

    #[test]
    fn a_match_at_a_word_start_ranks_first() {
        let start = score("copy its file:line", "copy").unwrap();
        let inside = score("the last copy", "copy").unwrap();
        assert!(start > inside);
    }
}
