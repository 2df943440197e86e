//! Whether a path named by a model may be written: it must stay inside the
//! repository after every symlink is followed, and it must not be one of the
//! files that steer ripple, git or code review (protected whatever the user
//! allows). Checked when a hunk is planned and again right before it is
//! applied, because the tree can change between the two (a directory swapped
//! for a symlink must not redirect a write).

use std::path::{Path, PathBuf};

/// Directories never edited, at any depth: git's own data (hooks and config
/// run code on the user's machine; a submodule keeps its own `.git`) and
/// ripple's index and undo journal.
const INTERNAL_DIRS: &[&str] = &[".git", ".ripple"];

/// Where git hosts look for CODEOWNERS: editing it would let a change
/// choose its own reviewers.
const CODEOWNERS_DIRS: &[&str] = &["", ".github/", "docs/", ".gitlab/"];

/// Why `parts` (a normalised repository-relative path, split at `/`) is
/// never edited, if it is not. Compared without regard to case: on a
/// case-insensitive filesystem `.GIT/config` is `.git/config`.
fn protected(parts: &[&str]) -> Option<String> {
    let lower: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
    if let Some(dir) = lower.iter().find(|p| INTERNAL_DIRS.contains(&p.as_str())) {
        return Some(format!("`{dir}/` is internal data, never edited"));
    }
    let joined = lower.join("/");
    if lower.last().is_some_and(|name| name == "ripple.toml") {
        return Some(
            "`ripple.toml` holds the repository's conventions and is never edited by a model"
                .to_owned(),
        );
    }
    if CODEOWNERS_DIRS
        .iter()
        .any(|dir| joined == format!("{dir}codeowners"))
    {
        return Some("CODEOWNERS decides who reviews a change; never edited by a model".to_owned());
    }
    None
}

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
    if parts.is_empty() {
        return Err("the path names the repository root itself".to_owned());
    }
    if let Some(reason) = protected(&parts) {
        return Err(reason);
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
            // A link to `.git` (or to ripple.toml's directory…) must not
            // open a way around the rule above.
            let inside = target.strip_prefix(canon_root).unwrap_or(&target);
            let mut resolved: Vec<String> = inside
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            resolved.extend(parts[i + 1..].iter().map(|p| (*p).to_owned()));
            let resolved: Vec<&str> = resolved.iter().map(String::as_str).collect();
            if let Some(reason) = protected(&resolved) {
                return Err(format!(
                    "`{normalised}` leads through a symlink to `{}`: {reason}",
                    resolved.join("/")
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
        for protected in [
            "ripple.toml",
            "./ripple.toml",
            "sub/ripple.toml",
            "Ripple.TOML",
            ".git/hooks/pre-commit",
            ".GIT/config",
            "vendor/lib/.git/hooks/post-checkout",
            ".ripple/journal/x/meta.json",
            "CODEOWNERS",
            ".github/CODEOWNERS",
            "docs/CODEOWNERS",
            ".gitlab/CODEOWNERS",
        ] {
            let reason = check_path(&root, protected).unwrap_err();
            assert!(reason.contains("never edited"), "{protected}: {reason}");
        }
        // Only the names git hosts read are CODEOWNERS files.
        assert!(check_path(&root, "src/CODEOWNERS.md").is_ok());
        assert!(check_path(&root, "docs/ripple.toml.md").is_ok());
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
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink(root.join(".git"), root.join("g")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("up")).unwrap();
        for sneaky in [
            "g/hooks/pre-commit",
            "up/ripple.toml",
            "up/.github/CODEOWNERS",
        ] {
            let reason = check_path(&root, sneaky).unwrap_err();
            assert!(reason.contains("never edited"), "{sneaky}: {reason}");
        }
        assert!(
            check_path(&root, "real/a.py/b")
                .unwrap_err()
                .contains("not a directory")
        );
    }
}
