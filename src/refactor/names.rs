//! Whether a new name can stand where the old one stood: an identifier of
//! the language, not a keyword, and (Go) what happens to its exportedness;
//! Go's qualified names (go/ssa's) taken apart.

use crate::model::Lang;

/// A Go type name without its type arguments (`Set[K]` → `Set`).
pub(crate) fn strip_type_args(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// `import/path.Member` split at the dot after the last slash.
pub(crate) fn split_go_qualified(name: &str) -> Option<(&str, &str)> {
    let start = name.rfind('/').map_or(0, |i| i + 1);
    let dot = name[start..].find('.')? + start;
    Some((&name[..dot], &name[dot + 1..]))
}

/// `(*import/path.T).M` or `(import/path.T[K]).M` as (package, type, method).
pub(crate) fn split_go_method(name: &str) -> Option<(&str, &str, &str)> {
    let inner = name.strip_prefix('(')?;
    let (receiver, method) = inner.rsplit_once(").")?;
    let receiver = receiver.trim_start_matches('*');
    let (package, ty) = split_go_qualified(receiver)?;
    Some((package, strip_type_args(ty), method))
}

/// Python's hard keywords (`keyword.kwlist`). Soft keywords (`match`,
/// `case`, `type`, `_`) are ordinary names outside their statements.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// The Go specification's 25 keywords.
const GO_KEYWORDS: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];

/// Why a name cannot be used, phrased for the user.
pub fn invalid_reason(lang: Lang, name: &str) -> Option<String> {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return Some("the new name is empty".to_owned());
    };
    // Python's identifiers are XID_Start XID_Continue*, Go's a letter (or
    // `_`) then letters and digits; Unicode's alphabetic and alphanumeric
    // classes are the closest the standard library offers to both.
    let starts = first == '_' || first.is_alphabetic();
    let continues = chars.all(|c| c == '_' || c.is_alphanumeric());
    if !starts || !continues {
        return Some(format!(
            "`{name}` is not a {} identifier: it must start with a letter or `_` and hold only letters, digits and `_`",
            lang.name()
        ));
    }
    let keywords = match lang {
        Lang::Python => PYTHON_KEYWORDS,
        Lang::Go => GO_KEYWORDS,
    };
    if keywords.contains(&name) {
        return Some(format!("`{name}` is a {} keyword", lang.name()));
    }
    if lang == Lang::Go && name == "_" {
        return Some("`_` is Go's blank identifier: nothing can be called by it".to_owned());
    }
    None
}

/// Whether a Go name is exported: its first character is an upper-case
/// letter (the specification's rule, Unicode class Lu).
pub fn go_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_keywords_are_told_apart() {
        assert_eq!(invalid_reason(Lang::Python, "calculate_total"), None);
        assert_eq!(invalid_reason(Lang::Python, "_private2"), None);
        assert_eq!(invalid_reason(Lang::Python, "größe"), None);
        assert_eq!(invalid_reason(Lang::Python, "match"), None);
        assert!(invalid_reason(Lang::Python, "class").is_some());
        assert!(invalid_reason(Lang::Python, "2fast").is_some());
        assert!(invalid_reason(Lang::Python, "a-b").is_some());
        assert!(invalid_reason(Lang::Python, "a.b").is_some());
        assert!(invalid_reason(Lang::Python, "").is_some());
        assert_eq!(invalid_reason(Lang::Go, "Estimate"), None);
        assert!(invalid_reason(Lang::Go, "func").is_some());
        assert!(invalid_reason(Lang::Go, "_").is_some());
        assert!(go_exported("Quote"));
        assert!(!go_exported("quote"));
        assert!(!go_exported("_Quote"));
    }
}
