//! Terms: how identifiers and prose become the words the ranker counts.
//!
//! Code spells one idea many ways (`parse_header`, `parseHeader`,
//! `HTTPHeaderParser`, `headers`), so every identifier is split into
//! sub-tokens at underscores, case changes and letter/digit boundaries,
//! lowercased and lightly stemmed; prose goes through the same path, which
//! is what lets a question in English meet code that has no docstring.

/// Words that carry no meaning for search, in prose or in code.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "cls", "def", "do",
    "does", "for", "from", "func", "has", "have", "if", "in", "into", "is", "it", "its", "of",
    "on", "or", "self", "should", "so", "that", "the", "their", "then", "there", "these", "this",
    "those", "to", "was", "were", "which", "will", "with", "would",
];

/// Common code abbreviations and the word they stand for. A query says
/// "directory", the code says `dir`; both sides map to the same term
/// (the abbreviation's stem), so neither needs the other's spelling.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("addr", "address"),
    ("alloc", "allocate"),
    ("arg", "argument"),
    ("attr", "attribute"),
    ("auth", "authenticate"),
    ("buf", "buffer"),
    ("calc", "calculate"),
    ("cb", "callback"),
    ("cfg", "configuration"),
    ("char", "character"),
    ("cmd", "command"),
    ("cmp", "compare"),
    ("cnt", "count"),
    ("conf", "configuration"),
    ("config", "configuration"),
    ("conn", "connection"),
    ("ctx", "context"),
    ("cur", "current"),
    ("db", "database"),
    ("decl", "declaration"),
    ("def", "definition"),
    ("del", "delete"),
    ("dest", "destination"),
    ("dict", "dictionary"),
    ("dir", "directory"),
    ("doc", "document"),
    ("dst", "destination"),
    ("elem", "element"),
    ("env", "environment"),
    ("eq", "equal"),
    ("err", "error"),
    ("exc", "exception"),
    ("expr", "expression"),
    ("ext", "extension"),
    ("fd", "descriptor"),
    ("fmt", "format"),
    ("fn", "function"),
    ("func", "function"),
    ("gen", "generate"),
    ("hdr", "header"),
    ("idx", "index"),
    ("impl", "implementation"),
    ("info", "information"),
    ("init", "initialize"),
    ("iter", "iterate"),
    ("len", "length"),
    ("lib", "library"),
    ("lst", "list"),
    ("max", "maximum"),
    ("min", "minimum"),
    ("mod", "module"),
    ("msg", "message"),
    ("num", "number"),
    ("obj", "object"),
    ("param", "parameter"),
    ("pkg", "package"),
    ("pos", "position"),
    ("prev", "previous"),
    ("proc", "process"),
    ("ptr", "pointer"),
    ("recv", "receive"),
    ("ref", "reference"),
    ("regex", "expression"),
    ("req", "request"),
    ("res", "result"),
    ("resp", "response"),
    ("ret", "return"),
    ("seq", "sequence"),
    ("sock", "socket"),
    ("spec", "specification"),
    ("src", "source"),
    ("stat", "status"),
    ("stmt", "statement"),
    ("str", "string"),
    ("sym", "symbol"),
    ("sys", "system"),
    ("temp", "temporary"),
    ("tmp", "temporary"),
    ("tok", "token"),
    ("ts", "timestamp"),
    ("val", "value"),
    ("var", "variable"),
    ("ver", "version"),
];

/// Words a question uses and the words code uses for the same act, as
/// query word → code words. Programmers name the act with a short verb
/// (`get_size`, `is_valid`, `del_item`) that prose rarely uses ("Return the
/// size", "Check whether", "Remove the item"): the pairs come from studies of
/// how identifiers and comments name the same action (Howard et al.,
/// "Automatically mining software-based, semantically-similar words from
/// comment-code mappings", MSR 2013), not from any one code base.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("return", &["get"]),
    ("retrieve", &["get", "fetch"]),
    ("fetch", &["get"]),
    ("obtain", &["get"]),
    ("create", &["make", "new", "build"]),
    ("construct", &["make", "build", "new"]),
    ("remove", &["delete", "del", "drop", "pop"]),
    ("delete", &["remove", "del"]),
    ("check", &["is", "validate", "verify", "assert"]),
    ("verify", &["check", "assert"]),
    ("ensure", &["check", "assert"]),
    ("fail", &["assert", "error"]),
    ("determine", &["is", "check"]),
    ("whether", &["is", "has"]),
    ("find", &["search", "lookup", "get"]),
    ("search", &["find", "lookup"]),
    ("look", &["lookup", "find"]),
    ("convert", &["to", "from"]),
    ("initialize", &["init", "setup"]),
    ("begin", &["start"]),
    ("start", &["begin", "run"]),
    ("terminate", &["stop", "kill", "close"]),
    ("finish", &["end", "close", "done"]),
    ("stop", &["close", "end", "halt"]),
    ("send", &["write", "put", "emit"]),
    ("receive", &["read", "get"]),
    ("append", &["add", "push"]),
    ("insert", &["add", "put"]),
    ("add", &["append", "insert", "register"]),
    ("display", &["show", "print"]),
    ("show", &["print", "display"]),
    ("print", &["show", "write"]),
    ("compute", &["calculate", "get"]),
    ("calculate", &["compute"]),
    ("modify", &["set", "update", "change"]),
    ("update", &["set"]),
    ("change", &["set", "update"]),
    ("duplicate", &["copy", "clone"]),
    ("clear", &["reset", "empty"]),
    ("empty", &["clear"]),
    ("number", &["count", "size"]),
    ("size", &["length", "count"]),
    ("length", &["size"]),
    ("execute", &["run", "exec", "call"]),
    ("invoke", &["call", "run"]),
    ("run", &["exec", "execute"]),
    ("load", &["read", "open"]),
    ("save", &["write", "store", "dump"]),
    ("store", &["save", "set", "put"]),
    ("open", &["load", "read"]),
    ("close", &["shutdown", "end"]),
    ("wait", &["join", "sleep"]),
    ("handle", &["process", "dispatch"]),
    ("process", &["handle"]),
    ("generate", &["make", "create"]),
    ("register", &["add"]),
    ("iterate", &["iter", "each", "next"]),
    ("iterator", &["iter"]),
    ("asynchronous", &["async", "await"]),
    ("synchronous", &["sync"]),
    ("equal", &["eq"]),
    ("representation", &["repr"]),
];

/// The special methods that operators written in prose name: a docstring
/// says "Return self + other" where the code says `__add__`. Binary
/// operators count only between two operands set off by spaces (`a - b`,
/// not a hyphenated word); unary ones only directly before an operand
/// (`-self`, `~x`).
pub fn operator_words(text: &str, mut f: impl FnMut(&'static str)) {
    const BINARY: &[(&str, &str)] = &[
        ("+", "add"),
        ("-", "sub"),
        ("*", "mul"),
        ("/", "truediv"),
        ("//", "floordiv"),
        ("%", "mod"),
        ("**", "pow"),
        ("@", "matmul"),
        ("&", "and"),
        ("|", "or"),
        ("^", "xor"),
        ("<<", "lshift"),
        (">>", "rshift"),
        ("<", "lt"),
        ("<=", "le"),
        (">", "gt"),
        (">=", "ge"),
        ("==", "eq"),
        ("!=", "ne"),
    ];
    const UNARY: &[(&str, &str)] = &[("-", "neg"), ("+", "pos"), ("~", "invert")];
    let is_operand = |w: &str| {
        let w = w.trim_matches(|c: char| "()[],.;:".contains(c));
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        if i > 0
            && i + 1 < words.len()
            && is_operand(words[i - 1])
            && is_operand(words[i + 1])
            && let Some((_, name)) = BINARY.iter().find(|(op, _)| op == w)
        {
            f(name);
            continue;
        }
        let w = w.trim_start_matches('(');
        for (op, name) in UNARY {
            if let Some(rest) = w.strip_prefix(op)
                && rest.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && is_operand(rest)
            {
                f(name);
            }
        }
    }
}

/// The code words for a query term (see [`SYNONYMS`]), as terms.
pub fn synonyms(t: &str) -> &'static [String] {
    use std::sync::OnceLock;
    static MAP: OnceLock<rustc_hash::FxHashMap<String, Vec<String>>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut m: rustc_hash::FxHashMap<String, Vec<String>> = Default::default();
        for (word, code) in SYNONYMS {
            let list = m.entry(term(word)).or_default();
            list.extend(code.iter().map(|c| term(c)).filter(|c| !is_stopword(c)));
        }
        m
    });
    map.get(t).map(Vec::as_slice).unwrap_or(&[])
}

pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.binary_search(&w).is_ok()
}

/// The canonical term for an already stemmed word: abbreviations and the
/// word they abbreviate share one term.
fn canonical(stemmed: String) -> String {
    use std::sync::OnceLock;
    static MAP: OnceLock<rustc_hash::FxHashMap<String, String>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut m = rustc_hash::FxHashMap::default();
        for (short, long) in ABBREVIATIONS {
            m.insert(stem(long), stem(short));
        }
        m
    });
    match map.get(&stemmed) {
        Some(short) => short.clone(),
        None => stemmed,
    }
}

/// A light English stemmer: plurals, `-ing`, `-ed`, `-ly`, `-er` and a final
/// `e`, so `parse`, `parses`, `parsing`, `parsed` and `parser` meet. Heavier
/// stemmers (Porter) conflate more code words that mean different things
/// (`general`/`generate`); this one only removes inflections.
pub fn stem(w: &str) -> String {
    let n = w.len();
    if n <= 2 || !w.is_ascii() {
        return w.to_owned();
    }
    let mut s = w;
    let owned;
    if let Some(base) = s.strip_suffix("ies").filter(|b| b.len() >= 2) {
        owned = format!("{base}y");
        s = &owned;
    } else if s.ends_with("sses")
        || s.ends_with("xes")
        || s.ends_with("ches")
        || s.ends_with("shes")
    {
        s = &s[..n - 2];
    } else if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s = &s[..n - 1];
    }
    // Two rounds: `filtering` → `filter` → `filt`, the same as `filter`.
    for _ in 0..2 {
        let mut changed = false;
        for (suffix, min_base) in [("ing", 3), ("ed", 3), ("ly", 4), ("er", 3)] {
            if let Some(base) = s.strip_suffix(suffix)
                && base.len() >= min_base
                && base.bytes().any(|b| b"aeiouy".contains(&b))
            {
                s = base;
                // `running` → `runn` → `run`; `fill`, `pass` stay whole.
                let b = s.as_bytes();
                let l = b.len();
                if l >= 4 && b[l - 1] == b[l - 2] && !b"lsz".contains(&b[l - 1]) {
                    s = &s[..l - 1];
                }
                changed = true;
                break;
            }
        }
        if !changed {
            break;
        }
    }
    let s = if s.len() > 3 {
        s.strip_suffix('e').unwrap_or(s)
    } else {
        s
    };
    s.to_owned()
}

/// The normalized term of one lowercase sub-token.
pub fn term(sub: &str) -> String {
    canonical(stem(sub))
}

/// Call `f` with every sub-token of `text`, lowercased (not stemmed).
/// `HTTPServer2_start` → `http`, `server`, `2`, `start`.
pub fn subtokens(text: &str, mut f: impl FnMut(&str)) {
    subtokens_in_words(text, |s, _| f(s));
}

/// [`subtokens`], also telling whether each sub-token begins an
/// identifier (`parse` in `parse_header`, not `header`). Underscores join
/// an identifier's parts; anything else that is not a letter or a digit
/// separates words.
pub fn subtokens_in_words(text: &str, mut f: impl FnMut(&str, bool)) {
    let mut buf = String::new();
    for ident in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let mut first = true;
        for word in ident.split('_').filter(|w| !w.is_empty()) {
            let chars: Vec<char> = word.chars().collect();
            let mut start = 0;
            for i in 1..=chars.len() {
                let boundary = i == chars.len() || {
                    let (p, c) = (chars[i - 1], chars[i]);
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_numeric())
                        || (p.is_numeric() && c.is_alphabetic())
                        // `HTTPServer`: the last capital of a run starts the next word.
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                };
                if boundary {
                    buf.clear();
                    buf.extend(chars[start..i].iter().flat_map(|c| c.to_lowercase()));
                    f(&buf, first);
                    first = false;
                    start = i;
                }
            }
        }
    }
}

/// Call `f` with every search term of `text`: sub-tokens without
/// stopwords, one-letter tokens and long numbers, normalized by [`term`].
pub fn terms(text: &str, mut f: impl FnMut(String)) {
    terms_in_words(text, |t, _| f(t));
}

/// [`terms`], also telling whether each term begins an identifier (or a
/// word of prose), the way [`subtokens_in_words`] does; a dropped token
/// passes that on to the next.
pub fn terms_in_words(text: &str, mut f: impl FnMut(String, bool)) {
    let mut begins = true;
    subtokens_in_words(text, |sub, first| {
        begins |= first;
        if sub.len() < 2 || is_stopword(sub) {
            return;
        }
        if sub.bytes().all(|b| b.is_ascii_digit()) && sub.len() > 4 {
            return;
        }
        f(term(sub), begins);
        begins = false;
    });
}

/// Every term of `text`, in order.
pub fn terms_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    terms(text, |t| out.push(t));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_in_prose_name_special_methods() {
        let words = |t: &str| {
            let mut out = Vec::new();
            operator_words(t, |w| out.push(w));
            out
        };
        assert_eq!(words("Return self + other."), ["add"]);
        assert_eq!(
            words("Return (self // other, self % other)"),
            ["floordiv", "mod"]
        );
        assert_eq!(words("Returns e ** self."), ["pow"]);
        assert_eq!(words("Return -self, or ~x when asked"), ["neg", "invert"]);
        assert_eq!(words("True if a <= b"), ["le"]);
        // Dashes and hyphens in prose are not operators.
        assert!(words("round-towards-0, a well-known rule").is_empty());
        assert!(words("the -- separator, x - ").is_empty());
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn identifiers_split_at_underscores_case_and_digits() {
        let mut out = Vec::new();
        subtokens("parse_header HTTPServer2 getX os.path.join", |s| {
            out.push(s.to_owned())
        });
        assert_eq!(
            out,
            [
                "parse", "header", "http", "server", "2", "get", "x", "os", "path", "join"
            ]
        );
    }

    #[test]
    fn words_begin_identifiers_not_their_parts() {
        let mut out = Vec::new();
        terms_in_words("get_the_value(parseHeader) in __init__", |t, b| {
            out.push((t, b))
        });
        let want = [
            ("get", true),
            ("value", false),
            ("parse", true),
            ("header", false),
            ("init", true),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(t, b)| (term(t), *b)).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn inflections_meet_and_abbreviations_meet_their_word() {
        let t = |w: &str| term(w);
        assert_eq!(t("parse"), t("parsing"));
        assert_eq!(t("parsed"), t("parses"));
        assert_eq!(t("parser"), t("parse"));
        assert_eq!(t("headers"), t("header"));
        assert_eq!(t("directories"), t("dir"));
        assert_eq!(t("directory"), t("dirs"));
        assert_eq!(t("string"), t("str"));
        assert_eq!(t("running"), t("run"));
        assert_ne!(t("general"), t("generate"));
        assert_eq!(t("class"), "class");
    }

    #[test]
    fn prose_and_code_share_terms() {
        let q = terms_of("Return the number of open file descriptors.");
        let code = terms_of("def count_open_fds(self): return num_fds");
        assert!(q.contains(&term("number")) && code.contains(&term("num")));
        assert!(q.contains(&term("descriptors")) && code.contains(&term("fd")));
        assert!(!q.contains(&"the".to_owned()));
    }
}
