//! The undo journal: before a batch of hunks is written, the exact previous
//! bytes and permissions of every file it touches are saved under
//! `.ripple/journal/<batch>/`, so `u` and `ripple undo` can put them back
//! byte for byte. The journal is written before the files, so even a crash
//! mid-apply leaves the previous bytes on disk; an entry counts only once its
//! `meta.json` exists. Undo is a stack: it restores the newest batch and then
//! drops its entry, so the next undo reaches the batch before.

use std::fs::{self, Permissions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::edits::EditError;
use crate::edits::atomic::{FileChange, commit, write_atomic};
use crate::edits::paths::{canonical_root, check_path};
use crate::model::content_hash;

const META: &str = "meta.json";
const FORMAT_VERSION: u32 = 1;

/// Where ripple keeps the undo journal of a repository.
pub fn default_journal_dir(root: &Path) -> PathBuf {
    crate::ripple_dir::path(root).join("journal")
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Meta {
    version: u32,
    batch: String,
    created_unix_ms: u64,
    files: Vec<JournalFile>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalFile {
    path: String,
    /// Blob holding the previous bytes; `None`: the batch created the file.
    before_blob: Option<String>,
    before_hash: Option<u64>,
    /// Unix mode bits of the previous file (or the read-only flag elsewhere).
    mode: Option<u32>,
    readonly: bool,
    /// Hash of what the batch wrote; `None`: the batch deleted the file.
    after_hash: Option<u64>,
    /// Directories the batch created, outermost first, repository-relative.
    created_dirs: Vec<String>,
}

/// One batch in the journal, newest last in [`batches`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchInfo {
    pub batch: String,
    pub created_unix_ms: u64,
    pub files: Vec<String>,
}

/// What an undo put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoReport {
    pub batch: String,
    /// Files whose previous bytes were restored.
    pub restored: Vec<String>,
    /// Files the batch had created, now removed.
    pub removed: Vec<String>,
}

static BATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Save the previous state of every file in `changes` as a new batch; returns
/// the batch name and its directory.
pub(crate) fn record(
    journal_dir: &Path,
    root: &Path,
    changes: &[FileChange],
) -> Result<(String, PathBuf), EditError> {
    let journal_err = |path: &Path, source: std::io::Error| EditError::Journal {
        path: path.to_path_buf(),
        source,
    };
    crate::ripple_dir::create_dir(journal_dir)?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    // Zero-padded so that names sort in the order batches were made.
    let (batch, dir) = loop {
        let n = BATCH_COUNTER.fetch_add(1, Ordering::Relaxed);
        let batch = format!("{now_ms:015}-{:010}-{n:06}", std::process::id());
        let dir = journal_dir.join(&batch);
        match fs::create_dir(&dir) {
            Ok(()) => break (batch, dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(journal_err(&dir, e)),
        }
    };
    let result = (|| {
        let mut files = Vec::new();
        for (i, change) in changes.iter().enumerate() {
            let before_blob = match &change.before {
                Some(bytes) => {
                    let name = format!("{i}.before");
                    write_atomic(&dir.join(&name), bytes, None)
                        .map_err(|e| journal_err(&dir.join(&name), e))?;
                    Some(name)
                }
                None => None,
            };
            let rel_dir = |d: &PathBuf| {
                d.strip_prefix(root)
                    .unwrap_or(d)
                    .to_string_lossy()
                    .replace('\\', "/")
            };
            files.push(JournalFile {
                path: change.rel.clone(),
                before_blob,
                before_hash: change.before.as_deref().map(content_hash),
                mode: change.before_perms.as_ref().and_then(mode_of),
                readonly: change.before_perms.as_ref().is_some_and(|p| p.readonly()),
                after_hash: change.after.as_deref().map(content_hash),
                created_dirs: change.create_dirs.iter().map(rel_dir).collect(),
            });
        }
        let meta = Meta {
            version: FORMAT_VERSION,
            batch: batch.clone(),
            created_unix_ms: now_ms,
            files,
        };
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| journal_err(&dir, e.into()))?;
        write_atomic(&dir.join(META), &json, None).map_err(|e| journal_err(&dir.join(META), e))
    })();
    if let Err(e) = result {
        let _ = fs::remove_dir_all(&dir);
        return Err(e);
    }
    Ok((batch, dir))
}

/// Drop a batch whose files were never written (the apply rolled back).
pub(crate) fn forget(entry_dir: &Path) {
    let _ = fs::remove_dir_all(entry_dir);
}

/// Every complete batch, oldest first.
pub fn batches(journal_dir: &Path) -> Result<Vec<BatchInfo>, EditError> {
    Ok(entries(journal_dir)?
        .into_iter()
        .map(|(_, meta)| BatchInfo {
            batch: meta.batch,
            created_unix_ms: meta.created_unix_ms,
            files: meta.files.into_iter().map(|f| f.path).collect(),
        })
        .collect())
}

fn entries(journal_dir: &Path) -> Result<Vec<(PathBuf, Meta)>, EditError> {
    // Undo restores the bytes it finds here and then deletes the entry:
    // neither may happen through a link.
    crate::ripple_dir::check(journal_dir)?;
    let read_dir = match fs::read_dir(journal_dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(EditError::Journal {
                path: journal_dir.to_path_buf(),
                source,
            });
        }
    };
    let mut dirs: Vec<PathBuf> = read_dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(META).is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let meta_path = dir.join(META);
            let bytes = fs::read(&meta_path).map_err(|source| EditError::Journal {
                path: meta_path.clone(),
                source,
            })?;
            let meta: Meta =
                serde_json::from_slice(&bytes).map_err(|e| EditError::JournalCorrupt {
                    path: meta_path.clone(),
                    reason: e.to_string(),
                })?;
            if meta.version != FORMAT_VERSION {
                return Err(EditError::JournalCorrupt {
                    path: meta_path,
                    reason: format!(
                        "written by a ripple with journal format {}, this one reads {FORMAT_VERSION}",
                        meta.version
                    ),
                });
            }
            Ok((dir, meta))
        })
        .collect()
}

/// Restore the exact previous bytes of the newest batch, or refuse if any of
/// its files changed since ripple wrote it (nothing is restored then).
pub fn undo(root: &Path, journal_dir: &Path) -> Result<UndoReport, EditError> {
    let Some((dir, meta)) = entries(journal_dir)?.pop() else {
        return Err(EditError::NothingToUndo {
            journal: journal_dir.to_path_buf(),
        });
    };
    let canon_root = canonical_root(root).map_err(|reason| EditError::Refused {
        path: root.display().to_string(),
        reason,
    })?;
    let mut changes = Vec::new();
    let mut report = UndoReport {
        batch: meta.batch.clone(),
        restored: Vec::new(),
        removed: Vec::new(),
    };
    for file in &meta.files {
        let rel = check_path(&canon_root, &file.path).map_err(|reason| EditError::Refused {
            path: file.path.clone(),
            reason,
        })?;
        let abs = canon_root.join(&rel);
        let current =
            crate::edits::hunk::read_optional(&abs).map_err(|source| EditError::Read {
                path: rel.clone(),
                source,
            })?;
        let current_hash = current.as_deref().map(content_hash);
        if current_hash == file.before_hash {
            // Already back to the previous bytes (say, a crash after the
            // journal was written but before this file was).
            continue;
        }
        if current_hash != file.after_hash {
            return Err(EditError::UndoStale {
                path: rel,
                batch: meta.batch.clone(),
            });
        }
        let before = match &file.before_blob {
            Some(blob) => {
                let blob_path = dir.join(blob);
                let bytes = fs::read(&blob_path).map_err(|source| EditError::Journal {
                    path: blob_path.clone(),
                    source,
                })?;
                if Some(content_hash(&bytes)) != file.before_hash {
                    return Err(EditError::JournalCorrupt {
                        path: blob_path,
                        reason: "the saved bytes do not match their recorded hash".to_owned(),
                    });
                }
                Some(bytes)
            }
            None => None,
        };
        let before_perms = fs::metadata(&abs).ok().map(|m| m.permissions());
        match &before {
            Some(_) => report.restored.push(rel.clone()),
            None => report.removed.push(rel.clone()),
        }
        changes.push(FileChange {
            abs,
            rel,
            before: current,
            before_perms,
            after: before,
            after_perms: restore_perms(file),
            create_dirs: Vec::new(),
            remove_dirs: file
                .created_dirs
                .iter()
                .rev()
                .map(|d| canon_root.join(d))
                .collect(),
        });
    }
    commit(&changes).map_err(|e| EditError::from_commit(e, &dir))?;
    forget(&dir);
    Ok(report)
}

#[cfg(unix)]
fn mode_of(perms: &Permissions) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(perms.mode())
}

#[cfg(not(unix))]
fn mode_of(_perms: &Permissions) -> Option<u32> {
    None
}

fn restore_perms(file: &JournalFile) -> Option<Permissions> {
    file.before_blob.as_ref()?;
    #[cfg(unix)]
    if let Some(mode) = file.mode {
        use std::os::unix::fs::PermissionsExt;
        return Some(Permissions::from_mode(mode));
    }
    // Without mode bits, only the read-only flag can be carried over; the
    // restored file keeps the current permissions otherwise.
    let _ = file.readonly;
    None
}
