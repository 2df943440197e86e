//! Applying accepted hunks (`llm-wire-formats.md` §5, step 4): grouped by
//! file, each file is checked to still be exactly what its hunks were planned
//! against (else nothing is written), the hunks are spliced in bottom-up so
//! earlier line numbers stay valid, line endings and the final-newline state
//! are kept, the previous bytes are journaled, and the files are written all
//! or nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::edits::EditError;
use crate::edits::atomic::{FileChange, commit};
use crate::edits::file_text::{FileText, body_lines};
use crate::edits::hunk::{FileBase, Hunk, HunkId, Resolution, read_optional};
use crate::edits::journal;
use crate::edits::paths::{canonical_root, check_path};

/// What an apply wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyReport {
    /// The journal batch that `undo` restores (`None` when nothing was given).
    pub batch: Option<String>,
    pub files: Vec<AppliedFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppliedFile {
    pub path: String,
    pub created: bool,
    pub hunks: Vec<HunkId>,
}

/// One file's new content, computed but not written.
#[derive(Debug, Clone)]
pub struct PreparedFile {
    pub path: String,
    pub abs: PathBuf,
    pub before: Option<Vec<u8>>,
    pub after: Vec<u8>,
    pub hunks: Vec<HunkId>,
    /// Missing parent directories, outermost first.
    create_dirs: Vec<PathBuf>,
}

/// Write `hunks` (their review state is not consulted: pass the accepted
/// ones) and journal the previous bytes under `journal_dir`.
pub fn apply(root: &Path, hunks: &[&Hunk], journal_dir: &Path) -> Result<ApplyReport, EditError> {
    let prepared = prepare(root, hunks)?;
    if prepared.is_empty() {
        return Ok(ApplyReport {
            batch: None,
            files: Vec::new(),
        });
    }
    let changes: Vec<FileChange> = prepared
        .iter()
        .map(|p| {
            let perms = std::fs::metadata(&p.abs).ok().map(|m| m.permissions());
            FileChange {
                abs: p.abs.clone(),
                rel: p.path.clone(),
                before: p.before.clone(),
                before_perms: perms.clone(),
                after: Some(p.after.clone()),
                after_perms: perms,
                create_dirs: p.create_dirs.clone(),
                remove_dirs: Vec::new(),
            }
        })
        .collect();
    let (batch, entry) = journal::record(journal_dir, &canonical(root)?, &changes)?;
    if let Err(e) = commit(&changes) {
        let err = EditError::from_commit(e, &entry);
        if !matches!(err, EditError::Rollback { .. }) {
            journal::forget(&entry);
        }
        return Err(err);
    }
    Ok(ApplyReport {
        batch: Some(batch),
        files: prepared
            .into_iter()
            .map(|p| AppliedFile {
                created: p.before.is_none(),
                path: p.path,
                hunks: p.hunks,
            })
            .collect(),
    })
}

fn canonical(root: &Path) -> Result<PathBuf, EditError> {
    canonical_root(root).map_err(|reason| EditError::Refused {
        path: root.display().to_string(),
        reason,
    })
}

/// Compute every touched file's new content from the disk as it is now,
/// checking that each still matches what its hunks were planned against.
pub fn prepare(root: &Path, hunks: &[&Hunk]) -> Result<Vec<PreparedFile>, EditError> {
    let canon_root = canonical(root)?;
    let mut by_file: BTreeMap<String, Vec<&Hunk>> = BTreeMap::new();
    for h in hunks {
        if let Resolution::Conflict { reason, .. } | Resolution::Refused { reason } = &h.resolution
        {
            return Err(EditError::NotResolved {
                id: h.id.clone(),
                path: h.path.clone(),
                reason: reason.clone(),
            });
        }
        // Re-checked now: the tree may have changed since planning.
        let rel = check_path(&canon_root, &h.path).map_err(|reason| EditError::Refused {
            path: h.path.clone(),
            reason,
        })?;
        by_file.entry(rel).or_default().push(h);
    }
    let mut out = Vec::new();
    for (rel, mut file_hunks) in by_file {
        // The same hunk passed twice is applied once.
        file_hunks.sort_by(|a, b| a.id.cmp(&b.id));
        file_hunks.dedup_by(|a, b| a.id == b.id);
        let base = file_hunks[0].base;
        if file_hunks.iter().any(|h| h.base != base) {
            return Err(EditError::MixedBases { path: rel });
        }
        let abs = canon_root.join(&rel);
        let before = read_optional(&abs).map_err(|source| EditError::Read {
            path: rel.clone(),
            source,
        })?;
        if FileBase::of(before.as_deref()) != base {
            return Err(EditError::Stale { path: rel });
        }
        let mut ranges: Vec<(usize, usize, &Hunk)> = file_hunks
            .iter()
            .filter_map(|h| h.lines().map(|(s, e)| (s, e, *h)))
            .collect();
        // Bottom-up, so splicing one range never moves another.
        ranges.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for pair in ranges.windows(2) {
            let (upper, lower) = (&pair[1], &pair[0]);
            if upper.1 >= lower.0 || upper.0 == lower.0 {
                return Err(EditError::Overlap {
                    path: rel,
                    first: upper.2.id.clone(),
                    second: lower.2.id.clone(),
                });
            }
        }
        let mut text = match &before {
            Some(bytes) => FileText::parse(bytes).ok_or_else(|| EditError::Refused {
                path: rel.clone(),
                reason: "not UTF-8 text".to_owned(),
            })?,
            None => FileText {
                bom: false,
                lines: Vec::new(),
            },
        };
        for (start, end, h) in &ranges {
            if let Resolution::Resolved { replacement, .. } = &h.resolution {
                text.splice(*start, *end, &body_lines(replacement));
            }
        }
        let create_dirs = if before.is_none() {
            missing_dirs(&canon_root, &abs)
        } else {
            Vec::new()
        };
        out.push(PreparedFile {
            path: rel,
            abs,
            before,
            after: text.to_bytes(),
            hunks: ranges.iter().rev().map(|(_, _, h)| h.id.clone()).collect(),
            create_dirs,
        });
    }
    Ok(out)
}

/// The ancestors of `file` below `root` that do not exist yet, outermost first.
fn missing_dirs(root: &Path, file: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root) && *d != root && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}
