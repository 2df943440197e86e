//! `ripple.toml`, read once into one typed document: every setting a
//! command needs comes from [`RippleToml`], so a key means the same thing to
//! every part of ripple and the schema below is the one list of keys (the
//! manual's configuration section is checked against it).
//!
//! Unknown keys in `[conventions]` and `[tests]` are errors, because a typo
//! there changes what a model may see or which command runs. Elsewhere an
//! unknown key or table is a warning ([`RippleToml::warnings`]): ripple still
//! runs, but a misspelt `[context] simlar` does not go unnoticed.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{CONVENTIONS_FILE, ConventionsError};

/// One table of the schema.
#[derive(Debug, Clone, Copy)]
pub struct TableSchema {
    pub name: &'static str,
    pub keys: &'static [&'static str],
    /// An unknown key is an error rather than a warning.
    pub strict: bool,
}

/// Every table `ripple.toml` may hold and its keys. `[llm]` lists the keys
/// the provider layer reads from its raw table (`prices` is a table of
/// model ids).
pub const SCHEMA: &[TableSchema] = &[
    TableSchema {
        name: "conventions",
        keys: &["stable", "active", "off_limits", "secrets"],
        strict: true,
    },
    TableSchema {
        name: "llm",
        keys: &[
            "provider",
            "model",
            "base_url",
            "api_key_env",
            "max_tokens",
            "max_tokens_field",
            "temperature",
            "max_retries",
            "connect_timeout_secs",
            "idle_timeout_secs",
            "prices",
        ],
        strict: false,
    },
    TableSchema {
        name: "context",
        keys: &["similar"],
        strict: false,
    },
    TableSchema {
        name: "search",
        keys: &["provider", "model", "base_url", "dimensions", "model_dir"],
        strict: false,
    },
    TableSchema {
        name: "tests",
        keys: &["python", "go"],
        strict: true,
    },
];

/// The whole of `ripple.toml`, typed. Missing tables and keys are defaults.
#[derive(Debug, Clone, Default)]
pub struct RippleToml {
    /// The file read, `None` when there was none.
    pub source: Option<PathBuf>,
    pub conventions: ConventionsTable,
    /// Raw: the provider layer reads it, and `ripple trust` fingerprints it.
    pub llm: Option<toml::Table>,
    pub context: ContextSettings,
    pub search: SearchTable,
    pub tests: TestCommands,
    /// Keys and tables the schema does not know.
    pub warnings: Vec<UnknownKey>,
    /// The file's text, for error messages that name a line.
    pub(super) text: String,
}

/// `[conventions]`: entries as written, compiled by [`super::Conventions`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConventionsTable {
    #[serde(default)]
    pub stable: Vec<String>,
    #[serde(default)]
    pub active: Vec<String>,
    #[serde(default)]
    pub off_limits: Vec<String>,
    #[serde(default)]
    pub secrets: Vec<String>,
}

/// `[tests]`: the commands that run selected tests, as templates (see
/// `testrun` for the placeholders). `None` means the default
/// (`pytest {tests}`, `go test -run '^({names})$' {packages}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCommands {
    pub python: Option<String>,
    pub go: Option<String>,
}

/// `[context]`: what every context pack holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ContextSettings {
    /// Similar declarations offered in every pack (0: none).
    #[serde(default)]
    pub similar: usize,
}

/// `[search]` as written; `semantic::config` resolves it with the
/// environment into an embedding configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SearchTable {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub dimensions: Option<usize>,
    pub model_dir: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
struct Document {
    #[serde(default)]
    conventions: ConventionsTable,
    llm: Option<toml::Table>,
    #[serde(default)]
    context: ContextSettings,
    #[serde(default)]
    search: SearchTable,
    #[serde(default)]
    tests: TestCommands,
}

/// A key or table of `ripple.toml` that no part of ripple reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The table holding the key; `None` for a top-level key or table.
    pub table: Option<&'static str>,
    pub key: String,
}

impl fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.table {
            Some(table) => {
                let known = SCHEMA
                    .iter()
                    .find(|t| t.name == table)
                    .map_or_else(String::new, |t| t.keys.join(", "));
                write!(f, "unknown key [{table}] {} (known: {known})", self.key)
            }
            None => {
                let known: Vec<&str> = SCHEMA.iter().map(|t| t.name).collect();
                write!(
                    f,
                    "unknown table [{}] (known: {})",
                    self.key,
                    known.join(", ")
                )
            }
        }
    }
}

impl RippleToml {
    /// Read `ripple.toml` at `root`. A missing file gives the defaults.
    pub fn load(root: &Path) -> Result<RippleToml, ConventionsError> {
        let path = root.join(CONVENTIONS_FILE);
        match crate::inventory::read_regular_string(&path) {
            Ok(text) => RippleToml::parse(&text, &path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(RippleToml::default()),
            Err(source) => Err(ConventionsError::Read { path, source }),
        }
    }

    /// Parse the text of a `ripple.toml`; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<RippleToml, ConventionsError> {
        let doc: Document = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|span| super::line_col(text, span.start))
                .unwrap_or((1, 1));
            ConventionsError::Syntax {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_owned(),
            }
        })?;
        // The typed document drops what it does not know; the plain table of
        // the same text still has it. It parses, since the typed parse did.
        let warnings = text
            .parse::<toml::Table>()
            .map(|t| unknown_keys(&t))
            .unwrap_or_default();
        Ok(RippleToml {
            source: Some(path.to_path_buf()),
            conventions: doc.conventions,
            llm: doc.llm,
            context: doc.context,
            search: doc.search,
            tests: doc.tests,
            warnings,
            text: text.to_owned(),
        })
    }

    /// Where the file is, or would be: for messages.
    pub fn path(&self) -> PathBuf {
        self.source
            .clone()
            .unwrap_or_else(|| PathBuf::from(CONVENTIONS_FILE))
    }
}

/// Keys of `doc` outside [`SCHEMA`] (strict tables are checked by the typed
/// parse, which refuses them).
fn unknown_keys(doc: &toml::Table) -> Vec<UnknownKey> {
    let mut out = Vec::new();
    for (name, value) in doc {
        let Some(schema) = SCHEMA.iter().find(|t| t.name == name) else {
            out.push(UnknownKey {
                table: None,
                key: name.clone(),
            });
            continue;
        };
        let Some(table) = value.as_table() else {
            continue;
        };
        for key in table.keys() {
            if !schema.keys.contains(&key.as_str()) {
                out.push(UnknownKey {
                    table: Some(schema.name),
                    key: key.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> RippleToml {
        RippleToml::parse(text, Path::new("ripple.toml")).unwrap()
    }

    #[test]
    fn every_table_is_read_in_one_parse() {
        let doc = parse(
            "[conventions]\nstable = [\"api/**\"]\n[context]\nsimilar = 2\n\
             [search]\nprovider = \"ollama\"\nmodel = \"m\"\n[tests]\ngo = \"go test\"\n\
             [llm]\nprovider = \"openai\"\n",
        );
        assert_eq!(doc.conventions.stable, ["api/**"]);
        assert_eq!(doc.context.similar, 2);
        assert_eq!(doc.search.provider.as_deref(), Some("ollama"));
        assert_eq!(doc.tests.go.as_deref(), Some("go test"));
        assert!(doc.llm.unwrap().contains_key("provider"));
        assert!(doc.warnings.is_empty());
    }

    #[test]
    fn unknown_keys_and_tables_are_warnings() {
        let doc = parse("[context]\nsimlar = 2\n[serach]\nmodel = \"m\"\n[llm]\nmodle = \"x\"\n");
        let text: Vec<String> = doc.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "unknown key [context] simlar (known: similar)",
                "unknown key [llm] modle (known: provider, model, base_url, api_key_env, \
                 max_tokens, max_tokens_field, temperature, max_retries, connect_timeout_secs, \
                 idle_timeout_secs, prices)",
                "unknown table [serach] (known: conventions, llm, context, search, tests)",
            ]
        );
        assert_eq!(doc.context.similar, 0);
    }

    #[test]
    fn malformed_values_are_errors_naming_the_line() {
        for text in [
            "[context]\nsimilar = \"x\"\n",
            "[search]\ndimensions = -1\n",
        ] {
            let err = RippleToml::parse(text, Path::new("ripple.toml")).unwrap_err();
            assert!(
                matches!(err, ConventionsError::Syntax { line: 2, .. }),
                "{err}"
            );
        }
    }

    #[test]
    fn the_manual_lists_the_schema() {
        let mut table = String::from("| table | keys |\n|---|---|\n");
        for t in SCHEMA {
            let keys: Vec<String> = t.keys.iter().map(|k| format!("`{k}`")).collect();
            table.push_str(&format!("| `[{}]` | {} |\n", t.name, keys.join(", ")));
        }
        let manual =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/manual.md"))
                .unwrap();
        assert!(
            manual.contains(&table),
            "docs/manual.md should list the ripple.toml schema as:\n{table}"
        );
    }
}
