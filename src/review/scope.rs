//! What a review covers: every file the repository walk sees is either
//! reviewed or listed as skipped with its reason — nothing is dropped
//! silently.
//!
//! The list starts from the index's inventory (gitignore, vendored trees,
//! generated code, binaries, oversized files) and adds the team's fences from
//! `ripple.toml`: `[conventions] off_limits` (globs or `symbol:NAME`) and
//! `secrets` (globs added to a built-in list). Off-limits and secret code is
//! never sent to a model. Only the indexed languages (Python, Go) are
//! reviewed for now; every other file is listed as not reviewed.
//!
//! `ripple.toml` is read for these two keys only; a malformed file is an
//! error, because ignoring a typo in `off_limits` would send fenced-off code
//! to a model.

use std::collections::HashMap;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::index::Index;
use crate::inventory::{self, SkipReason};
use crate::lookup;
use crate::model::Lang;

use super::ReviewError;

/// The same built-in secrets list as migrate uses: one list, one policy.
pub use crate::conventions::BUILTIN_SECRETS;

/// Why a file (or part of one) is not reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    Vendored,
    Generated,
    TooLarge,
    Binary,
    Unreadable,
    Symlink,
    /// A secret file (built-in list or `ripple.toml` `secrets`).
    Secret,
    /// Matched `ripple.toml` `off_limits`.
    OffLimits,
    /// A language ripple does not review yet (only Python and Go are).
    LanguageNotReviewed,
    /// Nothing but whitespace.
    Empty,
    /// Changed in a diff review, but deleted: nothing left to review.
    Deleted,
    /// Excluded by `.gitignore`, `.ignore` or `.rippleignore`.
    Ignored,
    /// One declaration (or top-level statement) larger than the whole chunk
    /// budget: it cannot be sent without cutting it, and cutting a function
    /// in half would invite wrong findings.
    OverBudget,
}

impl From<SkipReason> for SkipKind {
    fn from(r: SkipReason) -> SkipKind {
        match r {
            SkipReason::Vendored => SkipKind::Vendored,
            SkipReason::Generated => SkipKind::Generated,
            SkipReason::TooLarge => SkipKind::TooLarge,
            SkipReason::Binary => SkipKind::Binary,
            SkipReason::Unreadable => SkipKind::Unreadable,
            SkipReason::Symlink => SkipKind::Symlink,
        }
    }
}

impl SkipKind {
    pub fn describe(self) -> &'static str {
        match self {
            SkipKind::Vendored => "vendored or third-party directory",
            SkipKind::Generated => "generated code",
            SkipKind::TooLarge => "larger than the size limit",
            SkipKind::Binary => "binary content",
            SkipKind::Unreadable => "could not be read",
            SkipKind::Symlink => "symbolic link (not followed)",
            SkipKind::Secret => "secret file (never sent to a model)",
            SkipKind::OffLimits => "off-limits in ripple.toml (never sent to a model)",
            SkipKind::LanguageNotReviewed => "language not reviewed yet (only Python and Go)",
            SkipKind::Empty => "empty",
            SkipKind::Deleted => "deleted since the base revision",
            SkipKind::Ignored => "ignored (.gitignore, .ignore or .rippleignore)",
            SkipKind::OverBudget => "one declaration larger than the chunk budget",
        }
    }
}

/// A file, or a line range of one, that the review does not cover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    pub file: String,
    pub reason: SkipKind,
    /// The lines skipped when only part of the file is (`OverBudget`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<(u32, u32)>,
    /// The rule that matched, or other specifics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A file to review: its index in `Index::files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewFile {
    pub file: u32,
    pub lang: Lang,
}

#[derive(Debug, Default)]
pub struct Scope {
    pub files: Vec<ReviewFile>,
    pub skipped: Vec<SkippedFile>,
}

/// The two `[conventions]` keys review needs.
#[derive(Debug, Default, Deserialize)]
struct RippleToml {
    #[serde(default)]
    conventions: ConventionsTable,
}

#[derive(Debug, Default, Deserialize)]
struct ConventionsTable {
    #[serde(default)]
    off_limits: Vec<String>,
    #[serde(default)]
    secrets: Vec<String>,
}

/// Off-limits and secret rules, compiled.
pub struct Fences {
    secrets: GlobSet,
    secret_patterns: Vec<String>,
    off_limits: GlobSet,
    off_limit_patterns: Vec<String>,
    off_limit_symbols: Vec<String>,
}

impl Fences {
    /// Read `ROOT/ripple.toml` (absent means the built-in secrets only).
    pub fn load(root: &Path) -> Result<Fences, ReviewError> {
        let path = root.join("ripple.toml");
        let table = match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str::<RippleToml>(&text)
                .map_err(|e| ReviewError::Conventions(e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => RippleToml::default(),
            Err(source) => {
                return Err(ReviewError::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        Fences::new(&table.conventions.off_limits, &table.conventions.secrets)
    }

    pub fn new(off_limits: &[String], secrets: &[String]) -> Result<Fences, ReviewError> {
        let secret_patterns: Vec<String> = BUILTIN_SECRETS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(secrets.iter().cloned())
            .collect();
        let (symbols, globs): (Vec<&String>, Vec<&String>) =
            off_limits.iter().partition(|p| p.starts_with("symbol:"));
        let off_limit_patterns: Vec<String> = globs.into_iter().cloned().collect();
        Ok(Fences {
            secrets: glob_set(&secret_patterns)?,
            secret_patterns,
            off_limits: glob_set(&off_limit_patterns)?,
            off_limit_patterns,
            off_limit_symbols: symbols
                .into_iter()
                .map(|s| s.trim_start_matches("symbol:").trim().to_owned())
                .collect(),
        })
    }

    fn secret(&self, path: &str) -> Option<&str> {
        first_match(&self.secrets, &self.secret_patterns, path)
    }

    fn off_limits(&self, path: &str) -> Option<&str> {
        first_match(&self.off_limits, &self.off_limit_patterns, path)
    }
}

/// Patterns follow gitignore habits: without a `/` they match a name at any
/// depth, and a match on a directory covers everything below it.
fn glob_set(patterns: &[String]) -> Result<GlobSet, ReviewError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let p = p.trim().trim_start_matches('/');
        let anchored = p.contains('/');
        let base = if anchored {
            p.to_owned()
        } else {
            format!("**/{p}")
        };
        for pat in [base.clone(), format!("{}/**", base.trim_end_matches('/'))] {
            let glob = GlobBuilder::new(&pat)
                .literal_separator(true)
                .build()
                .map_err(|e| ReviewError::Conventions(format!("bad glob `{p}`: {e}")))?;
            b.add(glob);
        }
    }
    b.build()
        .map_err(|e| ReviewError::Conventions(e.to_string()))
}

/// Each pattern contributes two globs (the path and everything below it).
fn first_match<'a>(set: &GlobSet, patterns: &'a [String], path: &str) -> Option<&'a str> {
    set.matches(path).first().map(|&i| patterns[i / 2].as_str())
}

/// Sort every file of the repository into reviewed or skipped.
pub fn build(index: &Index, fences: &Fences) -> Scope {
    let mut skipped: Vec<SkippedFile> = Vec::new();
    let fenced = |path: &str| -> Option<SkippedFile> {
        if let Some(p) = fences.secret(path) {
            return Some(SkippedFile {
                file: path.to_owned(),
                reason: SkipKind::Secret,
                lines: None,
                detail: Some(format!("matches `{p}`")),
            });
        }
        fences.off_limits(path).map(|p| SkippedFile {
            file: path.to_owned(),
            reason: SkipKind::OffLimits,
            lines: None,
            detail: Some(format!("matches `{p}`")),
        })
    };
    for s in &index.stats.skipped {
        skipped.push(fenced(&s.path).unwrap_or(SkippedFile {
            file: s.path.clone(),
            reason: s.reason.into(),
            lines: None,
            detail: None,
        }));
    }
    // The index keeps a count of other languages' files; their names come
    // from a fresh walk (metadata only, milliseconds even on big trees).
    for path in inventory::scan(&index.root).other {
        skipped.push(fenced(&path).unwrap_or(SkippedFile {
            file: path,
            reason: SkipKind::LanguageNotReviewed,
            lines: None,
            detail: None,
        }));
    }
    let symbol_files = off_limit_symbol_files(index, &fences.off_limit_symbols);
    let mut files = Vec::new();
    for (i, f) in index.files.iter().enumerate() {
        if let Some(s) = fenced(&f.path) {
            skipped.push(s);
        } else if let Some(sym) = symbol_files.get(&(i as u32)) {
            // A fenced symbol keeps its whole file out: cutting the
            // declaration out would still send its callers' view of it.
            skipped.push(SkippedFile {
                file: f.path.clone(),
                reason: SkipKind::OffLimits,
                lines: None,
                detail: Some(format!("contains off-limits `symbol:{sym}`")),
            });
        } else {
            files.push(ReviewFile {
                file: i as u32,
                lang: f.lang,
            });
        }
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    Scope { files, skipped }
}

/// Files declaring a symbol named (or suffixed) like an off-limits entry.
fn off_limit_symbol_files(index: &Index, symbols: &[String]) -> HashMap<u32, String> {
    let mut out = HashMap::new();
    if symbols.is_empty() {
        return out;
    }
    let wanted: Vec<(String, &String)> =
        symbols.iter().map(|s| (lookup::normalized(s), s)).collect();
    for d in &index.res.decls {
        let Some(file) = d.file else { continue };
        let name = lookup::normalized(&d.name);
        for (q, original) in &wanted {
            if name == *q || name.ends_with(&format!(".{q}")) {
                out.entry(file).or_insert_with(|| (*original).clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_and_off_limits_globs_match_like_gitignore() {
        let f = Fences::new(
            &["legacy/**".to_owned(), "*_old.py".to_owned()],
            &["config/prod_*.py".to_owned()],
        )
        .unwrap();
        assert_eq!(f.secret(".env"), Some(".env"));
        assert_eq!(f.secret("deploy/.env.production"), Some(".env.*"));
        assert_eq!(f.secret("keys/server.pem"), Some("*.pem"));
        assert_eq!(f.secret("config/prod_db.py"), Some("config/prod_*.py"));
        assert_eq!(f.secret("app/config/prod_db.py"), None);
        assert_eq!(f.secret("shop/orders.py"), None);
        assert_eq!(f.off_limits("legacy/a/b.py"), Some("legacy/**"));
        assert_eq!(f.off_limits("x/legacy/b.py"), None);
        assert_eq!(f.off_limits("pkg/auth_old.py"), Some("*_old.py"));
        assert_eq!(f.off_limits("pkg/auth.py"), None);
    }

    #[test]
    fn a_malformed_ripple_toml_is_an_error_not_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("ripple.toml"),
            "[conventions]\noff_limits = \"legacy/**\"\n",
        )
        .unwrap();
        assert!(matches!(
            Fences::load(dir.path()),
            Err(ReviewError::Conventions(_))
        ));
        std::fs::write(
            dir.path().join("ripple.toml"),
            "[conventions]\noff_limits = [\"legacy/**\"]\nstable = [\"api/**\"]\n[llm]\nprovider = \"x\"\n",
        )
        .unwrap();
        let f = Fences::load(dir.path()).unwrap();
        assert_eq!(f.off_limits("legacy/x.py"), Some("legacy/**"));
    }
}
