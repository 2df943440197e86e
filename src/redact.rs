//! Secrets in text bound for a model. Code under review or migration can
//! hold credentials written inline (a cloud key, a private key, a
//! `password = "…"`), and a prompt leaves the machine. Every request passes
//! through [`redact`] on its way out, which replaces each match of a
//! well-known secret pattern with a `<redacted:RULE>` placeholder and counts
//! what it replaced, so the user can be told.
//!
//! The rules are a subset of gitleaks' default configuration (its
//! `config/gitleaks.toml`): the formats of major providers' keys, which are
//! distinctive enough to match without context, plus gitleaks' generic
//! assignment rule (a secret-like name assigned a quoted, high-entropy value).
//! A pattern that also matches ordinary code would break the edits a model
//! proposes (their SEARCH text quotes the code), so every rule requires
//! either a provider's fixed prefix or that assignment shape.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// One rule: its id (shown in the placeholder) and its pattern. A pattern
/// with a capture group named `secret` replaces only that group.
struct Rule {
    id: &'static str,
    pattern: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        id: "private-key",
        pattern: r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
    },
    Rule {
        id: "aws-access-key",
        pattern: r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
    },
    Rule {
        id: "github-token",
        pattern: r"\b(?:gh[pousr]_[0-9A-Za-z]{36}|github_pat_[0-9A-Za-z_]{82})\b",
    },
    Rule {
        id: "gitlab-token",
        pattern: r"\bglpat-[0-9A-Za-z_-]{20}\b",
    },
    Rule {
        id: "anthropic-key",
        pattern: r"\bsk-ant-[0-9A-Za-z_-]{20,}",
    },
    Rule {
        id: "openai-key",
        pattern: r"\bsk-(?:(?:proj|svcacct|admin)-[0-9A-Za-z_-]{20,}|[0-9A-Za-z]{20}T3BlbkFJ[0-9A-Za-z]{20})",
    },
    Rule {
        id: "slack-token",
        pattern: r"\bxox[abeprs]-[0-9A-Za-z-]{10,}",
    },
    Rule {
        id: "stripe-key",
        pattern: r"\b(?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{10,99}\b",
    },
    Rule {
        id: "gcp-api-key",
        pattern: r"\bAIza[0-9A-Za-z_-]{35}\b",
    },
    Rule {
        id: "npm-token",
        pattern: r"\bnpm_[0-9A-Za-z]{36}\b",
    },
    Rule {
        id: "pypi-token",
        pattern: r"\bpypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}",
    },
    Rule {
        id: "sendgrid-key",
        pattern: r"\bSG\.[0-9A-Za-z_-]{22}\.[0-9A-Za-z_-]{43}\b",
    },
    Rule {
        id: "jwt",
        pattern: r"\bey[0-9A-Za-z_-]{17,}\.ey[0-9A-Za-z_-]{17,}\.[0-9A-Za-z_-]{10,}={0,2}",
    },
    Rule {
        id: "generic-secret",
        pattern: r#"(?i)\b[a-z0-9_.-]*(?:password|passwd|pwd|secret|api_?key|apikey|access_?key|auth_?token|access_?token|client_?secret|private_?key|credentials?)[a-z0-9_]*["']?\s*(?:[:=]|:=|=>)\s*[bru]?["'](?P<secret>[^"'\s]{6,200})["']"#,
    },
];

/// The lowest Shannon entropy (bits per character) a generic assignment's
/// value needs to count as a secret: `"hunter2"` passes, `"aaaaaa"` does
/// not, nor do the empty or placeholder values tests are full of.
const GENERIC_MIN_ENTROPY: f64 = 2.5;

fn compiled() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        RULES
            .iter()
            .map(|r| {
                // The patterns are constants checked by a unit test.
                (
                    r.id,
                    Regex::new(r.pattern).expect("a valid built-in pattern"),
                )
            })
            .collect()
    })
}

/// How many matches of each rule were replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Redactions {
    pub total: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
}

impl Redactions {
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub fn add(&mut self, other: &Redactions) {
        self.total += other.total;
        for (rule, n) in &other.by_rule {
            *self.by_rule.entry(rule).or_default() += n;
        }
    }

    fn note(&mut self, rule: &'static str) {
        self.total += 1;
        *self.by_rule.entry(rule).or_default() += 1;
    }

    /// `3 secrets (aws-access-key ×2, private-key)`, for messages.
    pub fn describe(&self) -> String {
        let rules: Vec<String> = self
            .by_rule
            .iter()
            .map(|(rule, n)| {
                if *n == 1 {
                    (*rule).to_owned()
                } else {
                    format!("{rule} ×{n}")
                }
            })
            .collect();
        let noun = if self.total == 1 { "secret" } else { "secrets" };
        format!("{} {noun} ({})", self.total, rules.join(", "))
    }
}

/// The placeholder that stands where a secret was.
pub fn placeholder(rule: &str) -> String {
    format!("<redacted:{rule}>")
}

/// `text` with every secret replaced, and what was replaced. `extra` are
/// literal strings to replace as well (the user's own API key).
pub fn redact(text: &str, extra: &[&str], found: &mut Redactions) -> String {
    let mut out = text.to_owned();
    for secret in extra.iter().filter(|s| s.len() >= 8) {
        let n = out.matches(secret).count();
        if n > 0 {
            out = out.replace(secret, &placeholder("api-key"));
            found.total += n;
            *found.by_rule.entry("api-key").or_default() += n;
        }
    }
    for (rule, re) in compiled() {
        if !re.is_match(&out) {
            continue;
        }
        let mut replaced = String::with_capacity(out.len());
        let mut last = 0;
        for caps in re.captures_iter(&out) {
            let Some(whole) = caps.get(0) else { continue };
            let target = caps.name("secret").unwrap_or(whole);
            if caps.name("secret").is_some() && entropy(target.as_str()) < GENERIC_MIN_ENTROPY {
                continue;
            }
            if target.as_str().starts_with("<redacted:") {
                continue;
            }
            replaced.push_str(&out[last..target.start()]);
            replaced.push_str(&placeholder(rule));
            last = target.end();
            found.note(rule);
        }
        replaced.push_str(&out[last..]);
        out = replaced;
    }
    out
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (String, Redactions) {
        let mut found = Redactions::default();
        let out = redact(text, &[], &mut found);
        (out, found)
    }

    #[test]
    fn every_builtin_pattern_compiles() {
        assert_eq!(compiled().len(), RULES.len());
    }

    #[test]
    fn provider_keys_are_replaced_by_their_rule() {
        let cases = [
            ("AWS_KEY = 'AKIAIOSFODNN7EXAMPLE'", "aws-access-key"),
            (
                "token: ghp_0123456789abcdefghijklmnopqrstuvwxyZ",
                "github-token",
            ),
            (
                "k = \"sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\"",
                "anthropic-key",
            ),
            (
                "x = 'AIzaSyA1234567890abcdefghijklmnopqrstuv'",
                "gcp-api-key",
            ),
            ("stripe = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "stripe-key"),
            ("slack = 'xoxb-123456789012-abcdefABCDEF'", "slack-token"),
        ];
        for (text, rule) in cases {
            let (out, found) = run(text);
            assert!(out.contains(&placeholder(rule)), "{text} -> {out}");
            assert_eq!(found.by_rule.get(rule), Some(&1), "{text}");
        }
    }

    #[test]
    fn a_private_key_block_goes_whole() {
        let text = "KEY = \"\"\"\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd\n-----END RSA PRIVATE KEY-----\n\"\"\"\nprint(KEY)\n";
        let (out, found) = run(text);
        assert!(!out.contains("MIIEow"), "{out}");
        assert!(out.contains("<redacted:private-key>"));
        assert!(out.contains("print(KEY)"));
        assert_eq!(found.total, 1);
    }

    #[test]
    fn generic_assignments_keep_the_name_and_lose_the_value() {
        let (out, found) = run("db_password = \"hunter2-prod\"\n");
        assert_eq!(out, "db_password = \"<redacted:generic-secret>\"\n");
        assert_eq!(found.total, 1);
        let (out, _) = run("config = {\"api_key\": \"f00b4rB4zQux\"}");
        assert!(out.contains("<redacted:generic-secret>"), "{out}");
        let (out, _) = run("Password := \"s3cr3t!x\"");
        assert!(out.contains("<redacted:generic-secret>"), "{out}");
    }

    #[test]
    fn ordinary_code_is_left_alone() {
        let code = "def validate_token(token: str) -> bool:\n    password = \"\"\n    secret = \"aaaaaa\"\n    key = lookup('api_key')\n    return check(token, SECRET_NAME)\n";
        let (out, found) = run(code);
        assert_eq!(out, code);
        assert!(found.is_empty());
    }

    #[test]
    fn the_users_own_key_is_replaced_wherever_it_appears() {
        let mut found = Redactions::default();
        let out = redact(
            "echo MYKEY-1234567890 twice MYKEY-1234567890",
            &["MYKEY-1234567890"],
            &mut found,
        );
        assert_eq!(out, "echo <redacted:api-key> twice <redacted:api-key>");
        assert_eq!(found.total, 2);
        assert_eq!(found.describe(), "2 secrets (api-key ×2)");
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        let (once, _) = run("a = 'AKIAIOSFODNN7EXAMPLE'\npassword = 'hunter2-prod'\n");
        let (twice, found) = run(&once);
        assert_eq!(once, twice);
        assert!(found.is_empty(), "{found:?}");
    }
}
