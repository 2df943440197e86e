//! Edits proposed by a model, from its streamed reply to bytes on disk:
//!
//! * [`parse`] — SEARCH/REPLACE blocks out of a reply arriving in fragments;
//! * [`hunk`] — each block resolved against its file (or refused, or a
//!   conflict), with the conventions of `ripple.toml` enforced;
//! * [`matching`] — the spec's match rules and the "did you mean" region;
//! * [`diff`] — hunks as unified diffs, alone or as one patch;
//! * [`apply`] — accepted hunks written atomically, all files or none;
//! * [`journal`] — the previous bytes of every batch, for exact undo.
//!
//! The rules are those of `llm-wire-formats.md` §5: parse leniently, apply
//! strictly, fail loudly, never guess.

pub mod apply;
mod atomic;
pub mod diff;
mod file_text;
pub mod hunk;
pub mod journal;
pub mod matching;
pub mod parse;
mod paths;

use std::path::{Path, PathBuf};

pub use apply::{AppliedFile, ApplyReport, apply};
pub use atomic::write_atomic;
pub use diff::{render_hunk, render_patch};
pub use hunk::{
    FileBase, Hunk, HunkId, HunkState, OutsidePolicy, Planner, Resolution, Scope, Snapshot, plan,
};
pub use journal::{BatchInfo, UndoReport, batches, default_journal_dir, undo};
pub use matching::MatchRule;
pub use parse::{DiscardedBlock, EditBlock, EditStreamParser, ParseSummary, PathOrigin};

use crate::model::Lang;

#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("hunk {id} for {path} cannot be applied: {reason}; only resolved hunks can be applied")]
    NotResolved {
        id: HunkId,
        path: String,
        reason: String,
    },
    #[error("refused to write {path}: {reason}")]
    Refused { path: String, reason: String },
    #[error(
        "{path} changed since its hunks were planned; nothing was written — plan the edits again against the current file"
    )]
    Stale { path: String },
    #[error(
        "hunks for {path} were planned against different versions of the file; nothing was written — plan them together"
    )]
    MixedBases { path: String },
    #[error(
        "hunks {first} and {second} change overlapping lines of {path}; nothing was written — accept only one of them"
    )]
    Overlap {
        path: String,
        first: HunkId,
        second: HunkId,
    },
    #[error("cannot read {path}: {source}; nothing was written")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "cannot write {path}: {source}; nothing was changed ({restored} file(s) already written were restored)"
    )]
    Write {
        path: String,
        source: std::io::Error,
        restored: usize,
    },
    #[error(
        "cannot write {path}: {source}; restoring {failed} then failed ({rollback}) — its previous bytes are kept in {}",
        journal.display()
    )]
    Rollback {
        path: String,
        source: std::io::Error,
        failed: String,
        rollback: std::io::Error,
        journal: PathBuf,
    },
    #[error("cannot write the undo journal at {}: {source}; nothing was changed — check that .ripple/ is writable", path.display())]
    Journal {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    RippleDir(#[from] crate::ripple_dir::RippleDirError),
    #[error("the undo journal entry {} is unreadable: {reason}; undo this batch by hand (git) and delete the entry", path.display())]
    JournalCorrupt { path: PathBuf, reason: String },
    #[error("nothing to undo: no applied batch in {}", journal.display())]
    NothingToUndo { journal: PathBuf },
    #[error(
        "{path} changed since ripple wrote it in batch {batch}; undo refused and nothing was restored — revert that file by hand (or with git) first"
    )]
    UndoStale { path: String, batch: String },
}

impl EditError {
    fn from_commit(e: atomic::CommitError, journal_entry: &Path) -> EditError {
        match e.rollback_failed {
            None => EditError::Write {
                path: e.rel,
                source: e.source,
                restored: e.restored,
            },
            Some((failed, rollback)) => EditError::Rollback {
                path: e.rel,
                source: e.source,
                failed,
                rollback,
                journal: journal_entry.to_path_buf(),
            },
        }
    }
}

/// Syntax errors (tree-sitter ERROR and MISSING nodes) in `new_content`
/// parsed as `lang`; compare with the count before the edit to flag a hunk
/// that broke the file.
pub fn syntax_errors_after(lang: Lang, new_content: &[u8]) -> u32 {
    crate::lang::extract(lang, "", new_content).syntax_errors
}
