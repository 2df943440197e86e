//! All-or-nothing writes of a set of files. Each file is replaced atomically
//! (temp file in the same directory, fsync, rename — a reader sees the old
//! bytes or the new ones, never half), keeping its permissions; if any file of
//! the set fails, every file already written is put back, so a batch of hunks
//! lands completely or not at all.
//!
//! A ripple killed between creating a temp file and renaming it leaves the
//! temp in the source tree; the next batch written to (or restored in) the
//! same directory removes it, once its process is gone.

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
    let mut dirs: Vec<&Path> = changes.iter().filter_map(|c| c.abs.parent()).collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        remove_stale_temps(dir);
    }
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

/// The temp file [`write_atomic`] uses for `name` in process `pid`.
fn temp_name(name: &str, pid: u32, n: u64) -> String {
    format!(".{name}.ripple-{pid}-{n}.tmp")
}

/// The process that wrote `file_name`, if it is one of [`temp_name`]'s.
fn temp_owner(file_name: &str) -> Option<u32> {
    let stem = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, n) = stem.rsplit_once('-')?;
    let (rest, pid) = rest.rsplit_once('-')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(n) || !all_digits(pid) {
        return None;
    }
    let name = rest.strip_suffix(".ripple")?;
    if name.is_empty() {
        return None;
    }
    pid.parse().ok()
}

/// Remove the temp files in `dir` left by ripple processes that are gone;
/// returns what was removed. Only exact [`temp_name`]s that are plain
/// files are considered, and a temp whose process may still be running (this
/// one, another ripple mid-write, or a process that cannot be checked) stays.
pub fn remove_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let path = entry.path();
        let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if is_file && fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    // 0 and negative ids name process groups, not a process.
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: signal 0 is never delivered; kill only checks that the
    // process exists and may be signalled.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    // EPERM: it exists but belongs to someone else.
    io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

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
        let candidate = dir.join(temp_name(&name, std::process::id(), n));
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

    /// The pid of a process that has exited.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn temp_names_are_recognised_exactly() {
        assert_eq!(temp_owner(&temp_name("a.py", 42, 7)), Some(42));
        assert_eq!(temp_owner(".a.b.ripple-1-2.tmp"), Some(1));
        for other in [
            "a.py.ripple-1-2.tmp",
            "..ripple-1-2.tmp",
            ".a.py.ripple-x-2.tmp",
            ".a.py.ripple-1-.tmp",
            ".a.py.ripple-1-2.tmp~",
            ".a.py.rippl-1-2.tmp",
            ".a.py.ripple--2.tmp",
        ] {
            assert_eq!(temp_owner(other), None, "{other}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_commit_removes_temps_of_dead_ripples_beside_its_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.py");
        fs::write(&a, "A").unwrap();
        let dead = dir.path().join(temp_name("a.py", dead_pid(), 0));
        let dead_other = dir.path().join(temp_name("b.py", dead_pid(), 3));
        let live = dir.path().join(temp_name("a.py", std::process::id(), 99));
        let lookalike = dir.path().join(format!("a.py.ripple-{}-0.tmp", dead_pid()));
        for p in [&dead, &dead_other, &live, &lookalike] {
            fs::write(p, "partial").unwrap();
        }
        let change = FileChange {
            abs: a.clone(),
            rel: "a.py".into(),
            before: Some(b"A".to_vec()),
            before_perms: None,
            after: Some(b"A2".to_vec()),
            after_perms: None,
            create_dirs: vec![],
            remove_dirs: vec![],
        };
        commit(&[change]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"A2");
        assert!(!dead.exists());
        assert!(!dead_other.exists());
        assert!(live.exists(), "this process's temp must stay");
        assert!(lookalike.exists(), "not ripple's naming");
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
