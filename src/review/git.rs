//! What git knows that the index does not: how often each file changed
//! lately (churn, for ordering a review) and which lines changed since a
//! base revision (for `--diff`). Both run the `git` binary, so the answer
//! is exactly what the user's git would say; a directory that is not a git
//! repository has no churn, which is not an error.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use super::units::Lines;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git ({0}); --diff needs git on PATH")]
    Spawn(std::io::Error),
    #[error("{root} is not inside a git repository; --diff compares against a git revision")]
    NotARepo { root: String },
    #[error("git diff {base} failed: {stderr}")]
    Diff { base: String, stderr: String },
}

fn git(root: &Path, args: &[&str]) -> Result<std::process::Output, GitError> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(GitError::Spawn)
}

pub fn is_repo(root: &Path) -> bool {
    git(root, &["rev-parse", "--is-inside-work-tree"])
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"true"))
}

/// The path of `root` inside its git work tree (`assets/demo/`), empty at
/// the top; `None` outside git.
pub fn prefix(root: &Path) -> Option<String> {
    let o = git(root, &["rev-parse", "--show-prefix"]).ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

/// Commits touching each file (relative to `root`) in the last `days`
/// days, over at most the last 2000 commits so a huge history stays fast.
/// Empty outside a git repository or without git.
pub fn churn(root: &Path, days: u32) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    if !is_repo(root) {
        return out;
    }
    let since = format!("--since={days}.days");
    let Ok(o) = git(
        root,
        &[
            "log",
            &since,
            "--max-count=2000",
            "--no-merges",
            "--name-only",
            "--format=",
            "--relative",
            "--",
            ".",
        ],
    ) else {
        return out;
    };
    if !o.status.success() {
        return out;
    }
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let path = line.trim();
        if !path.is_empty() {
            *out.entry(unquote(path)).or_default() += 1;
        }
    }
    out
}

/// The lines of one file changed since the base, in the file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Relative to the reviewed root.
    pub path: String,
    /// Added or modified lines.
    pub lines: Vec<Lines>,
    /// Lines after which something was only deleted.
    pub deletions_after: Vec<u32>,
    /// The file no longer exists.
    pub deleted: bool,
}

/// `git diff BASE` (working tree against BASE, untracked files excluded)
/// as changed line ranges per file under `root`.
pub fn changes(root: &Path, base: &str) -> Result<Vec<FileChange>, GitError> {
    if !is_repo(root) {
        return Err(GitError::NotARepo {
            root: root.display().to_string(),
        });
    }
    let o = git(
        root,
        &[
            "diff",
            "--unified=0",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            base,
            "--",
            ".",
        ],
    )?;
    if !o.status.success() {
        return Err(GitError::Diff {
            base: base.to_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).trim().to_owned(),
        });
    }
    Ok(parse_diff(&String::from_utf8_lossy(&o.stdout)))
}

/// Parse unified diff output with zero context lines.
pub fn parse_diff(text: &str) -> Vec<FileChange> {
    let mut out: Vec<FileChange> = Vec::new();
    let mut old_path: Option<String> = None;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("--- ") {
            old_path = p.strip_prefix("a/").map(unquote).or(Some(unquote(p)));
            continue;
        }
        if let Some(p) = line.strip_prefix("+++ ") {
            let p = unquote(p);
            let (path, deleted) = match p.strip_prefix("b/") {
                Some(rest) => (rest.to_owned(), false),
                None => (
                    old_path
                        .clone()
                        .map(|o| o.trim_start_matches("a/").to_owned())
                        .unwrap_or_default(),
                    true,
                ),
            };
            out.push(FileChange {
                path,
                lines: Vec::new(),
                deletions_after: Vec::new(),
                deleted,
            });
            continue;
        }
        if let Some(h) = line.strip_prefix("@@ ")
            && let Some(cur) = out.last_mut()
        {
            let Some(new) = h.split_whitespace().find(|w| w.starts_with('+')) else {
                continue;
            };
            let new = &new[1..];
            let (start, count) = match new.split_once(',') {
                Some((s, c)) => (s.parse().unwrap_or(0), c.parse().unwrap_or(0)),
                None => (new.parse().unwrap_or(0), 1u32),
            };
            if count == 0 {
                cur.deletions_after.push(start);
            } else {
                cur.lines.push(Lines::new(start, start + count - 1));
            }
        }
    }
    out
}

/// Git quotes paths with unusual characters (`"a/sp\303\251cial.py"`).
fn unquote(p: &str) -> String {
    let p = p.trim();
    let Some(inner) = p.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return p.to_owned();
    };
    let mut bytes = Vec::new();
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next() {
            Some(d @ b'0'..=b'7') => {
                let mut v = (d - b'0') as u32;
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = it.peek() {
                        v = v * 8 + (n - b'0') as u32;
                        it.next();
                    }
                }
                bytes.push(v as u8);
            }
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_context_hunks_become_changed_lines_in_the_new_file() {
        let diff = "diff --git a/pkg/a.py b/pkg/a.py\n\
index 1..2 100644\n\
--- a/pkg/a.py\n\
+++ b/pkg/a.py\n\
@@ -3,0 +4,2 @@ def f():\n\
+    x = 1\n\
+    y = 2\n\
@@ -10 +12 @@ def g():\n\
-    return 1\n\
+    return 2\n\
@@ -20,3 +22,0 @@ def h():\n\
-    a\n\
-    b\n\
-    c\n\
diff --git a/old.py b/old.py\n\
deleted file mode 100644\n\
--- a/old.py\n\
+++ /dev/null\n\
@@ -1,2 +0,0 @@\n\
-x = 1\n\
-y = 2\n\
diff --git \"a/sp\\303\\251cial.py\" \"b/sp\\303\\251cial.py\"\n\
--- \"a/sp\\303\\251cial.py\"\n\
+++ \"b/sp\\303\\251cial.py\"\n\
@@ -1 +1 @@\n\
-a\n\
+b\n";
        let c = parse_diff(diff);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].path, "pkg/a.py");
        assert_eq!(c[0].lines, vec![Lines::new(4, 5), Lines::new(12, 12)]);
        assert_eq!(c[0].deletions_after, vec![22]);
        assert!(!c[0].deleted);
        assert_eq!(c[1].path, "old.py");
        assert!(c[1].deleted);
        assert_eq!(c[2].path, "spécial.py");
    }
}
