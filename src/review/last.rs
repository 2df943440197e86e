//! The last real review, kept at `.ripple/last-review.json` so the explorer
//! can list its findings (`R`) without another model call. The file is the
//! same JSON document `ripple review --format json` prints, written
//! atomically (a reader never sees half a report); a dry run never
//! replaces it, because it has no findings.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::findings::Finding;

/// Where the last review's report lives in a repository.
pub fn path(root: &Path) -> PathBuf {
    crate::ripple_dir::path(root).join("last-review.json")
}

#[derive(Debug, thiserror::Error)]
pub enum LastReviewError {
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    RippleDir(#[from] crate::ripple_dir::RippleDirError),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a ripple review report ({source}); run `ripple review` again", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// What the explorer needs from a saved report.
#[derive(Debug, Clone, Deserialize)]
pub struct LastReview {
    pub findings: Vec<Finding>,
}

/// Save a run's JSON report (the text `--format json` renders).
pub fn save(root: &Path, json_report: &str) -> Result<PathBuf, LastReviewError> {
    let path = path(root);
    crate::ripple_dir::prepare_file(&path)?;
    crate::edits::write_atomic(&path, json_report.as_bytes(), None).map_err(|source| {
        LastReviewError::Write {
            path: path.clone(),
            source,
        }
    })?;
    Ok(path)
}

/// The last review, or `None` when no review has been run here.
pub fn load(root: &Path) -> Result<Option<LastReview>, LastReviewError> {
    let path = path(root);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(LastReviewError::Read { path, source }),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|source| LastReviewError::Parse { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_symlinked_ripple_dir_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".ripple")).unwrap();
        let err = save(dir.path(), "{}").unwrap_err();
        assert!(err.to_string().contains("is a symlink"), "{err}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_saved_report_reads_back_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_none());
        let report = r#"{"root": "/r", "mode": {"kind": "repository"}, "figures": {},
            "findings": [{"file": "a.py", "start_line": 3, "end_line": 4, "severity": "major",
                          "category": "bug", "message": "m", "confidence": 0.5, "chunks": [0]}]}"#;
        let path = save(dir.path(), report).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), report);
        let last = load(dir.path()).unwrap().unwrap();
        assert_eq!(last.findings.len(), 1);
        assert_eq!(last.findings[0].start_line, 3);
        std::fs::write(&path, "{not json").unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("run `ripple review` again"),
            "{err}"
        );
    }
}
