//! All-or-nothing writes of a set of files. Each file is replaced atomically
//! (temp file in the same directory, fsync, rename — a reader sees the old
//! bytes or the new ones, never half), keeping its permissions; if any file of
//! the set fails, every file already written is put back, so a batch of hunks
//! lands completely or not at all.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One file's planned change.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub abs: PathBuf,
    pub rel: String,
    /// The bytes now on disk (`None`: the file does not exist).
    pub before: Option<Vec<u8>>,
    /// Permissions now on disk, restored on the new file and on rollback.
    pub before_perms: Option<Permissions>,
    /// The bytes to write (`None`: delete the file).
    pub after: Option<Vec<u8>>,
    /// Permissions for the written file (`None`: the default for new files).
    pub after_perms: Option<Permissions>,
    /// Directories to create first (outermost first); removed again on
    /// rollback if still empty.
    pub create_dirs: Vec<PathBuf>,
    /// Directories to remove, if empty, after the change (innermost first).
    pub remove_dirs: Vec<PathBuf>,
}

/// A write that failed and how far the rollback got.
#[derive(Debug)]
pub struct CommitError {
    pub rel: String,
    pub source: io::Error,
    /// Files put back to their previous bytes.
    pub restored: usize,
    /// A file the rollback could not put back, with the error.
    pub rollback_failed: Option<(String, io::Error)>,
}

/// Apply every change or none.
pub fn commit(changes: &[FileChange]) -> Result<(), CommitError> {
    for (done, change) in changes.iter().enumerate() {
        if let Err(source) = apply_one(change) {
            let mut restored = 0;
            let mut rollback_failed = None;
            // The failed file itself may be half-done (directories created).
            if let Err(e) = revert_one(change) {
                rollback_failed = Some((change.rel.clone(), e));
            }
            for undo in changes[..done].iter().rev() {
                match revert_one(undo) {
                    Ok(()) => restored += 1,
                    Err(e) => {
                        rollback_failed.get_or_insert((undo.rel.clone(), e));
                    }
                }
            }
            return Err(CommitError {
                rel: change.rel.clone(),
                source,
                restored,
                rollback_failed,
            });
        }
    }
    Ok(())
}

fn apply_one(change: &FileChange) -> io::Result<()> {
    for dir in &change.create_dirs {
        match fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    match &change.after {
        Some(bytes) => {
            // A rename ignores the target's permissions, so without this check
            // a file the user made read-only would be silently replaced.
            if let Some(perms) = &change.before_perms
                && perms.readonly()
            {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "the file is read-only; make it writable to let ripple change it",
                ));
            }
            write_atomic(&change.abs, bytes, change.after_perms.as_ref())?;
        }
        None => match fs::remove_file(&change.abs) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        },
    }
    for dir in &change.remove_dirs {
        // Only empty directories go; anything else is someone's data.
        let _ = fs::remove_dir(dir);
    }
    Ok(())
}

fn revert_one(change: &FileChange) -> io::Result<()> {
    let on_disk = match fs::read(&change.abs) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if on_disk != change.before {
        match &change.before {
            Some(bytes) => write_atomic(&change.abs, bytes, change.before_perms.as_ref())?,
            None => fs::remove_file(&change.abs)?,
        }
    }
    for dir in change.create_dirs.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
    for dir in change.remove_dirs.iter().rev() {
        match fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replace `path` with `bytes` atomically: write a temp file beside it,
/// give it `perms`, fsync, rename over the target, fsync the directory.
pub fn write_atomic(path: &Path, bytes: &[u8], perms: Option<&Permissions>) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let candidate = dir.join(format!(".{name}.ripple-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(file) => break (candidate, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let (tmp_path, mut file) = tmp;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(perms) = perms {
            file.set_permissions(perms.clone())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp_path, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(e);
    }
    // The rename is durable only once the directory entry is; some
    // filesystems cannot fsync a directory, which is not worth failing over.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new", None).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failed_commit_restores_earlier_files_and_removes_created_ones() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let ro = dir.path().join("ro.txt");
        fs::write(&a, "A").unwrap();
        fs::write(&ro, "R").unwrap();
        let mut perms = fs::metadata(&ro).unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&ro, perms.clone()).unwrap();
        let changes = vec![
            FileChange {
                abs: a.clone(),
                rel: "a.txt".into(),
                before: Some(b"A".to_vec()),
                before_perms: Some(fs::metadata(&a).unwrap().permissions()),
                after: Some(b"A2".to_vec()),
                after_perms: None,
                create_dirs: vec![],
                remove_dirs: vec![],
            },
            FileChange {
                abs: dir.path().join("new/b.txt"),
                rel: "new/b.txt".into(),
                before: None,
                before_perms: None,
                after: Some(b"B".to_vec()),
                after_perms: None,
                create_dirs: vec![dir.path().join("new")],
                remove_dirs: vec![],
            },
            FileChange {
                abs: ro.clone(),
                rel: "ro.txt".into(),
                before: Some(b"R".to_vec()),
                before_perms: Some(perms),
                after: Some(b"R2".to_vec()),
                after_perms: None,
                create_dirs: vec![],
                remove_dirs: vec![],
            },
        ];
        let err = commit(&changes).unwrap_err();
        assert_eq!(err.rel, "ro.txt");
        assert_eq!(err.restored, 2);
        assert!(err.rollback_failed.is_none());
        assert_eq!(fs::read(&a).unwrap(), b"A");
        assert!(!dir.path().join("new").exists());
        assert_eq!(fs::read(&ro).unwrap(), b"R");
    }
}
