//! What a review covers: every file the repository walk sees is either
//! reviewed or listed as skipped with its reason — nothing is dropped
//! silently.
//!
//! The list starts from the index's inventory (gitignore, vendored trees,
//! binaries, oversized files), adds the generated files the index holds
//! (in the graph, but nobody edits them by hand) and the team's fences from
//! `ripple.toml`: `[conventions] off_limits` (globs or `symbol:NAME`) and
//! `secrets` (globs added to a built-in list). Off-limits and secret code is
//! never sent to a model. Only the indexed languages (Python, Go) are
//! reviewed for now; every other file is listed as not reviewed.
//!
//! The rules come from [`crate::conventions`], the one parser of
//! `ripple.toml`, so review and migrate fence off exactly the same code; a
//! malformed file is an error there, because ignoring a typo in `off_limits`
//! would send fenced-off code to a model.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::conventions::Conventions;
use crate::index::Index;
use crate::inventory::{self, SkipReason};
use crate::model::{FileId, Lang};

/// The same built-in secrets list as migrate uses: one list, one policy.
pub use crate::conventions::BUILTIN_SECRETS;

/// Why a file (or part of one) is not reviewed: the repository walk's own
/// reasons, then the review's. Serialized as one flat name (`too_large`,
/// `secret`), as `ripple index` names the walk's reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipKind {
    /// Skipped by the repository walk (vendored, generated, binary…).
    Walk(SkipReason),
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
        SkipKind::Walk(r)
    }
}

impl SkipKind {
    /// Stable name, as serialized.
    pub fn name(self) -> &'static str {
        match self {
            SkipKind::Walk(r) => r.name(),
            SkipKind::Secret => "secret",
            SkipKind::OffLimits => "off_limits",
            SkipKind::LanguageNotReviewed => "language_not_reviewed",
            SkipKind::Empty => "empty",
            SkipKind::Deleted => "deleted",
            SkipKind::Ignored => "ignored",
            SkipKind::OverBudget => "over_budget",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            SkipKind::Walk(r) => r.describe(),
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

impl Serialize for SkipKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
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
    pub file: FileId,
    pub lang: Lang,
}

#[derive(Debug, Default)]
pub struct Scope {
    pub files: Vec<ReviewFile>,
    pub skipped: Vec<SkippedFile>,
    /// Indexed files whose code is never sent: secret or off-limits, by path
    /// or by a symbol they declare. Their declarations must not appear even
    /// as the related signatures of another chunk.
    pub fenced: HashSet<FileId>,
}

/// Sort every file of the repository into reviewed or skipped.
pub fn build(index: &Index, conventions: &Conventions) -> Scope {
    let mut skipped: Vec<SkippedFile> = Vec::new();
    let fenced = |path: &str| -> Option<SkippedFile> {
        if let Some(p) = conventions.secret_pattern(path) {
            return Some(SkippedFile {
                file: path.to_owned(),
                reason: SkipKind::Secret,
                lines: None,
                detail: Some(format!("matches `{p}`")),
            });
        }
        conventions.off_limits_pattern(path).map(|p| SkippedFile {
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
    let symbol_files = off_limit_symbol_files(index, conventions);
    let mut files = Vec::new();
    let mut fenced_files = HashSet::new();
    for (i, f) in index.files.iter().enumerate() {
        if let Some(s) = fenced(&f.path) {
            fenced_files.insert(FileId::new(i));
            skipped.push(s);
        } else if f.generated {
            // Indexed for the graph; a finding in code nobody edits by hand
            // is no use. Its signatures may still be related context.
            skipped.push(SkippedFile {
                file: f.path.clone(),
                reason: SkipReason::Generated.into(),
                lines: None,
                detail: None,
            });
        } else if let Some(sym) = symbol_files.get(&FileId::new(i)) {
            fenced_files.insert(FileId::new(i));
            // A fenced symbol keeps its whole file out: cutting the
            // declaration out would still send its callers' view of it.
            skipped.push(SkippedFile {
                file: f.path.clone(),
                reason: SkipKind::OffLimits,
                lines: None,
                detail: Some(format!("contains off-limits `{sym}`")),
            });
        } else {
            files.push(ReviewFile {
                file: FileId::new(i),
                lang: f.lang,
            });
        }
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    Scope {
        files,
        skipped,
        fenced: fenced_files,
    }
}

/// Files declaring an off-limits symbol, with the entry that names it.
fn off_limit_symbol_files(index: &Index, conventions: &Conventions) -> HashMap<FileId, String> {
    let mut out = HashMap::new();
    if !conventions.has_off_limits_symbols() {
        return out;
    }
    for d in &index.res.decls {
        let Some(file) = d.file else { continue };
        if let Some(entry) = conventions.off_limits_symbol(&d.name) {
            out.entry(file).or_insert_with(|| entry.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_reason_keeps_its_name_as_a_review_reason() {
        for name in ["too_large", "binary", "not_regular", "go_build_constraint"] {
            let r = SkipReason::from_name(name).unwrap();
            let as_walk = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::to_string(&SkipKind::from(r)).unwrap(), as_walk);
            assert_eq!(as_walk, format!("\"{name}\""));
        }
        assert_eq!(
            serde_json::to_string(&SkipKind::LanguageNotReviewed).unwrap(),
            "\"language_not_reviewed\""
        );
    }

    fn conventions(text: &str) -> Conventions {
        Conventions::parse(text, std::path::Path::new("ripple.toml")).unwrap()
    }

    // Review reports which rule fenced a file off; the rules themselves are
    // conventions.rs's, so this checks the names it hands back.
    #[test]
    fn the_rule_that_fences_a_file_off_is_named_as_written() {
        let c = conventions(
            "[conventions]\noff_limits = [\"legacy/**\", \"*_old.py\", \"symbol:pkg.vault.unseal\"]\nsecrets = [\"config/prod_*.py\"]\n",
        );
        assert_eq!(c.secret_pattern(".env"), Some(".env"));
        assert_eq!(c.secret_pattern("deploy/.env.production"), Some(".env.*"));
        assert_eq!(c.secret_pattern("keys/server.pem"), Some("*.pem"));
        assert_eq!(
            c.secret_pattern("config/prod_db.py"),
            Some("config/prod_*.py")
        );
        assert_eq!(c.secret_pattern("app/config/prod_db.py"), None);
        assert_eq!(c.secret_pattern("shop/orders.py"), None);
        assert_eq!(c.off_limits_pattern("legacy/a/b.py"), Some("legacy/**"));
        assert_eq!(c.off_limits_pattern("x/legacy/b.py"), None);
        assert_eq!(c.off_limits_pattern("pkg/auth_old.py"), Some("*_old.py"));
        assert_eq!(c.off_limits_pattern("pkg/auth.py"), None);
        assert_eq!(
            c.off_limits_symbol("app.pkg.vault.unseal"),
            Some("symbol:pkg.vault.unseal")
        );
        assert_eq!(c.off_limits_symbol("app.pkg.vault.seal"), None);
    }
}
