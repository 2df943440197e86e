//! Whether a path named by a model may be written: it must stay inside the
//! repository after every symlink is followed. Checked when a hunk is planned
//! and again right before it is applied, because the tree can change between
//! the two (a directory swapped for a symlink must not redirect a write).

use std::path::{Path, PathBuf};

/// Directories ripple never edits: git's own data and ripple's index and
/// undo journal.
const INTERNAL_DIRS: &[&str] = &[".git", ".ripple"];

/// Check `rel` against the canonical repository root and return its
/// normalised form (`./a//b.py` → `a/b.py`), or why it is refused.
pub fn check_path(canon_root: &Path, rel: &str) -> Result<String, String> {
    if rel.trim().is_empty() {
        return Err("the path is empty".to_owned());
    }
    if rel.contains('\0') {
        return Err("the path contains a NUL byte".to_owned());
    }
    if rel.contains('\\') {
        return Err("the path contains `\\`; use `/` between directories".to_owned());
    }
    let bytes = rel.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if rel.starts_with('/') || drive || Path::new(rel).is_absolute() {
        return Err(
            "absolute paths are refused; name files relative to the repository root".to_owned(),
        );
    }
    let mut parts = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(
                    "`..` would leave the repository; name files relative to its root".to_owned(),
                );
            }
            p => parts.push(p),
        }
    }
    let Some(first) = parts.first() else {
        return Err("the path names the repository root itself".to_owned());
    };
    if INTERNAL_DIRS.contains(first) {
        return Err(format!("`{first}/` is internal data, never edited"));
    }
    let normalised = parts.join("/");
    let mut here = canon_root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        here.push(part);
        let last = i + 1 == parts.len();
        let meta = match std::fs::symlink_metadata(&here) {
            Ok(m) => m,
            // The rest does not exist yet: it will be created inside `here`'s
            // parent, which was already checked.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(format!("cannot inspect `{}`: {e}", parts[..=i].join("/"))),
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::canonicalize(&here).map_err(|e| {
                format!(
                    "`{}` is a symlink that cannot be followed: {e}",
                    parts[..=i].join("/")
                )
            })?;
            if !target.starts_with(canon_root) {
                return Err(format!(
                    "`{}` is a symlink to {}, outside the repository",
                    parts[..=i].join("/"),
                    target.display()
                ));
            }
            if last {
                // Replacing the file atomically would replace the link itself.
                let inside = target.strip_prefix(canon_root).unwrap_or(&target);
                return Err(format!(
                    "`{normalised}` is a symlink; edit its target `{}` instead",
                    inside.display()
                ));
            }
            here = target;
        } else if last && meta.is_dir() {
            return Err(format!("`{normalised}` is a directory"));
        } else if !last && !meta.is_dir() {
            return Err(format!(
                "`{}` is a file, not a directory",
                parts[..=i].join("/")
            ));
        }
    }
    Ok(normalised)
}

/// The canonical repository root, or why it cannot be used.
pub fn canonical_root(root: &Path) -> Result<PathBuf, String> {
    std::fs::canonicalize(root)
        .map_err(|e| format!("cannot open the repository root {}: {e}", root.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_refusals() {
        let root = tempfile::tempdir().unwrap();
        let root = canonical_root(root.path()).unwrap();
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/..",
            "C:/x",
            "a\\b",
            ".git/config",
            "./.ripple/x",
            ".",
        ] {
            assert!(check_path(&root, bad).is_err(), "{bad} should be refused");
        }
        assert_eq!(check_path(&root, "./a//b.py").unwrap(), "a/b.py");
        assert_eq!(
            check_path(&root, "new/dir/file.py").unwrap(),
            "new/dir/file.py"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_must_stay_inside() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/a.py"), "x\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        std::os::unix::fs::symlink(root.join("real/a.py"), root.join("link.py")).unwrap();
        assert!(
            check_path(&root, "out/x.py")
                .unwrap_err()
                .contains("outside")
        );
        assert_eq!(check_path(&root, "alias/a.py").unwrap(), "alias/a.py");
        assert!(
            check_path(&root, "link.py")
                .unwrap_err()
                .contains("real/a.py")
        );
        assert!(check_path(&root, "real").unwrap_err().contains("directory"));
        assert!(
            check_path(&root, "real/a.py/b")
                .unwrap_err()
                .contains("not a directory")
        );
    }
}
