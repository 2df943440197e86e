//! ripple's own directory in a repository, `.ripple/`: the index, the cached
//! graph, the undo journal and the last review. Besides the files a user
//! accepts, it is the only place ripple writes, so it is never written
//! through a symlink: git tracks a committed `.ripple` link even when
//! `.gitignore` lists `.ripple/`, and following it would put the index and
//! the journal (and let undo restore bytes from) wherever it points.
//!
//! Every write under `.ripple/` goes through [`create_dir`] or
//! [`prepare_file`]; reads that lead to removals go through [`check`]. Paths
//! outside any `.ripple` directory (a database location the user named with
//! `--db`) are the user's choice and are not checked.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The directory's name, at the repository root.
pub const NAME: &str = ".ripple";

#[derive(Debug, thiserror::Error)]
pub enum RippleDirError {
    #[error(
        "{} is a symlink; ripple never writes its index or undo journal through a link, \
         which would put them wherever it points — remove the link (`rm {}`: .ripple/ is \
         ripple's local state, not meant to be committed) and run again",
        path.display(),
        path.display()
    )]
    Symlink { path: PathBuf },
    #[error(
        "{} is not a directory; move it aside so that ripple can keep its data there, and run again",
        path.display()
    )]
    NotADirectory { path: PathBuf },
    #[error("cannot create {}: {source}", path.display())]
    Create { path: PathBuf, source: io::Error },
    #[error("cannot inspect {}: {source}", path.display())]
    Inspect { path: PathBuf, source: io::Error },
}

/// `ROOT/.ripple`.
pub fn path(root: &Path) -> PathBuf {
    root.join(NAME)
}

/// Create `dir` for ripple's data: from its `.ripple` component down, each
/// level must be a real directory or is created with `create_dir`, which
/// never follows a link.
pub fn create_dir(dir: &Path) -> Result<(), RippleDirError> {
    let Some((mut here, below)) = split(dir) else {
        return std::fs::create_dir_all(dir).map_err(|source| RippleDirError::Create {
            path: dir.to_path_buf(),
            source,
        });
    };
    if let Some(parent) = here.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| RippleDirError::Create {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    for (i, part) in below.iter().enumerate() {
        if i > 0 {
            here.push(part);
        }
        if level(&here)?.is_none() {
            match std::fs::create_dir(&here) {
                Ok(()) => {}
                // Another ripple made it first: it must still be a directory.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    level(&here)?;
                }
                Err(source) => {
                    return Err(RippleDirError::Create {
                        path: here.clone(),
                        source,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Before `file` is written inside `.ripple/`: its directories exist as
/// [`create_dir`] makes them, and `file` itself is not a symlink (it may not
/// exist yet).
pub fn prepare_file(file: &Path) -> Result<(), RippleDirError> {
    if split(file).is_none() {
        return Ok(());
    }
    if let Some(parent) = file.parent() {
        create_dir(parent)?;
    }
    not_a_link(file)
}

/// Whether everything from `.ripple` down to `path` that exists is a real
/// directory (the last level may be a file), without creating anything: for
/// reading the journal, whose entries undo removes.
pub fn check(path: &Path) -> Result<(), RippleDirError> {
    let Some((mut here, below)) = split(path) else {
        return Ok(());
    };
    for (i, part) in below.iter().enumerate() {
        if i > 0 {
            here.push(part);
        }
        let last = i + 1 == below.len();
        if last {
            return not_a_link(&here);
        }
        if level(&here)?.is_none() {
            return Ok(());
        }
    }
    Ok(())
}

/// `path` split before its last `.ripple` component: the path up to and
/// including `.ripple`, and the components from `.ripple` on.
fn split(path: &Path) -> Option<(PathBuf, Vec<PathBuf>)> {
    let parts: Vec<Component> = path.components().collect();
    let at = parts
        .iter()
        .rposition(|c| matches!(c, Component::Normal(n) if *n == NAME))?;
    let base: PathBuf = parts[..=at].iter().collect();
    let below = parts[at..]
        .iter()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect();
    Some((base, below))
}

/// `Some(())` for a real directory, `None` for nothing there.
fn level(path: &Path) -> Result<Option<()>, RippleDirError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(RippleDirError::Symlink {
            path: path.to_path_buf(),
        }),
        Ok(m) if m.is_dir() => Ok(Some(())),
        Ok(_) => Err(RippleDirError::NotADirectory {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(RippleDirError::Inspect {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn not_a_link(path: &Path) -> Result<(), RippleDirError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(RippleDirError::Symlink {
            path: path.to_path_buf(),
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(RippleDirError::Inspect {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn is_empty(dir: &Path) -> bool {
        std::fs::read_dir(dir).unwrap().next().is_none()
    }

    #[test]
    fn a_real_directory_is_created_level_by_level() {
        let root = tempfile::tempdir().unwrap();
        let journal = path(root.path()).join("journal");
        create_dir(&journal).unwrap();
        assert!(journal.is_dir());
        create_dir(&journal).unwrap();
        prepare_file(&path(root.path()).join("index.db")).unwrap();
        check(&journal.join("batch")).unwrap();
    }

    #[test]
    fn a_linked_ripple_dir_is_refused_and_nothing_lands_behind_it() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        symlink(outside.path(), path(root.path())).unwrap();
        let err = create_dir(&path(root.path()).join("journal")).unwrap_err();
        assert!(matches!(err, RippleDirError::Symlink { .. }), "{err}");
        assert!(err.to_string().contains("remove the link"), "{err}");
        assert!(prepare_file(&path(root.path()).join("index.db")).is_err());
        assert!(check(&path(root.path()).join("journal")).is_err());
        assert!(is_empty(outside.path()));
    }

    #[test]
    fn links_inside_the_ripple_dir_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let dir = path(root.path());
        std::fs::create_dir(&dir).unwrap();
        symlink(outside.path().join("db"), dir.join("index.db")).unwrap();
        symlink(outside.path(), dir.join("journal")).unwrap();
        assert!(prepare_file(&dir.join("index.db")).is_err());
        assert!(create_dir(&dir.join("journal")).is_err());
        assert!(prepare_file(&dir.join("journal/1/meta.json")).is_err());
        assert!(check(&dir.join("journal")).is_err());
        assert!(is_empty(outside.path()));
    }

    #[test]
    fn paths_outside_a_ripple_dir_are_the_users_choice() {
        let root = tempfile::tempdir().unwrap();
        let db_dir = root.path().join("elsewhere/db");
        create_dir(&db_dir).unwrap();
        assert!(db_dir.is_dir());
        prepare_file(&db_dir.join("index.db")).unwrap();
    }
}
