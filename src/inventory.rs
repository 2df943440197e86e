//! Walking a repository: which files ripple indexes and which it skips, with
//! the reason for every skip. Honours `.gitignore` (in a git repository or
//! not), `.ignore` and `.rippleignore`; never follows symlinks (so loops
//! cannot trap it); skips vendored trees, generated code, binaries and
//! oversized files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use serde::Serialize;

use crate::model::Lang;

/// Files larger than this are skipped as generated data, not code.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Directory names that hold other people's code or build output.
const VENDORED_DIRS: &[&str] = &[
    "vendor",
    "third_party",
    "node_modules",
    "site-packages",
    "__pycache__",
];
const ENV_DIRS: &[&str] = &[
    ".venv", "venv", ".tox", ".nox", ".ripple", ".git", ".hg", ".svn",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceFileMeta {
    /// Repository-relative path with `/` separators.
    pub path: String,
    pub lang: Lang,
    pub size: u64,
    pub mtime_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    Vendored,
    Generated,
    TooLarge,
    Binary,
    Unreadable,
    Symlink,
    /// A Go file under a directory the go tool leaves out of every
    /// package (`_examples/`, `testdata/`): no build sees it.
    GoIgnoredDir,
}

impl SkipReason {
    /// Stable name, as serialized and as stored.
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Vendored => "vendored",
            SkipReason::Generated => "generated",
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Symlink => "symlink",
            SkipReason::GoIgnoredDir => "go_ignored_dir",
        }
    }

    pub fn from_name(name: &str) -> Option<SkipReason> {
        [
            SkipReason::Vendored,
            SkipReason::Generated,
            SkipReason::TooLarge,
            SkipReason::Binary,
            SkipReason::Unreadable,
            SkipReason::Symlink,
            SkipReason::GoIgnoredDir,
        ]
        .into_iter()
        .find(|r| r.name() == name)
    }

    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Vendored => "vendored or third-party directory",
            SkipReason::Generated => "generated code",
            SkipReason::TooLarge => "larger than the size limit",
            SkipReason::Binary => "binary content",
            SkipReason::Unreadable => "could not be read",
            SkipReason::Symlink => "symbolic link (not followed)",
            SkipReason::GoIgnoredDir => "Go file in a directory the go tool ignores (_*, testdata)",
        }
    }
}

#[derive(Debug, Default, Serialize)]
pub struct Inventory {
    pub files: Vec<SourceFileMeta>,
    pub skipped: Vec<Skipped>,
    /// Files in languages ripple does not index (counted here, listed in `other`).
    pub other_files: usize,
    /// Repository-relative paths of those files, sorted (review lists them as skipped).
    pub other: Vec<String>,
    /// `go.mod` files (repository-relative), which give Go packages their import paths.
    pub go_mods: Vec<String>,
}

/// Walk `root` and classify every file. Only metadata is read here; content
/// checks (binary, generated markers) happen when a file is first parsed.
pub fn scan(root: &Path) -> Inventory {
    let skipped = Mutex::new(Vec::new());
    let files = Mutex::new(Vec::new());
    let other = Mutex::new(Vec::new());
    let go_mods = Mutex::new(Vec::new());
    let root_buf: PathBuf = root.to_path_buf();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .ignore(true)
        .parents(false)
        .follow_links(false)
        .add_custom_ignore_filename(".rippleignore")
        .threads(2)
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && (ENV_DIRS.contains(&name.as_ref())
                    || (name.starts_with('.') && entry.depth() > 0)))
        })
        .build_parallel();
    walker.run(|| {
        let root = root_buf.clone();
        let skipped = &skipped;
        let files = &files;
        let other = &other;
        let go_mods = &go_mods;
        Box::new(move |entry| {
            let skip = |path: String, reason: SkipReason| {
                skipped
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(Skipped { path, reason });
            };
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            let Some(ft) = entry.file_type() else {
                return ignore::WalkState::Continue;
            };
            let rel = relative(&root, entry.path());
            if ft.is_dir() {
                let name = entry.file_name().to_string_lossy();
                if entry.depth() > 0 && VENDORED_DIRS.contains(&name.as_ref()) {
                    skip(format!("{rel}/"), SkipReason::Vendored);
                    return ignore::WalkState::Skip;
                }
                return ignore::WalkState::Continue;
            }
            if entry.file_name() == "go.mod" {
                go_mods
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(rel.clone());
            }
            let Some(lang) = Lang::from_path(&rel) else {
                other.lock().unwrap_or_else(|e| e.into_inner()).push(rel);
                return ignore::WalkState::Continue;
            };
            if ft.is_symlink() {
                skip(rel, SkipReason::Symlink);
                return ignore::WalkState::Continue;
            }
            if lang == Lang::Go && in_go_ignored_dir(&rel) {
                skip(rel, SkipReason::GoIgnoredDir);
                return ignore::WalkState::Continue;
            }
            if is_generated_name(&rel) {
                skip(rel, SkipReason::Generated);
                return ignore::WalkState::Continue;
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(_) => {
                    skip(rel, SkipReason::Unreadable);
                    return ignore::WalkState::Continue;
                }
            };
            if meta.len() > MAX_FILE_BYTES {
                skip(rel, SkipReason::TooLarge);
                return ignore::WalkState::Continue;
            }
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_nanos() as i64)
                .unwrap_or(0);
            files
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(SourceFileMeta {
                    path: rel,
                    lang,
                    size: meta.len(),
                    mtime_ns,
                });
            ignore::WalkState::Continue
        })
    });
    let mut other = other.into_inner().unwrap_or_else(|e| e.into_inner());
    other.sort();
    let mut inv = Inventory {
        files: files.into_inner().unwrap_or_else(|e| e.into_inner()),
        skipped: skipped.into_inner().unwrap_or_else(|e| e.into_inner()),
        other_files: other.len(),
        other,
        go_mods: go_mods.into_inner().unwrap_or_else(|e| e.into_inner()),
    };
    inv.files.sort_by(|a, b| a.path.cmp(&b.path));
    inv.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    // The walk is parallel: sort so that everything keyed on it is stable.
    inv.go_mods.sort();
    inv
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let s = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        s.into_owned()
    } else {
        s.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// Whether a directory on `rel`'s path is one the go tool never builds:
/// a name starting with `_` or `testdata` (those starting with `.` are
/// not walked at all).
fn in_go_ignored_dir(rel: &str) -> bool {
    let Some((dirs, _)) = rel.rsplit_once('/') else {
        return false;
    };
    dirs.split('/')
        .any(|d| d.starts_with('_') || d == "testdata")
}

/// Generated by their name: protobuf and gRPC stubs, Go generated files.
fn is_generated_name(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".pb.go")
        || name.ends_with(".pb.gw.go")
        || name.ends_with("_generated.go")
        || name.starts_with("zz_generated")
}

/// Content checks made when a file is read for parsing.
pub fn classify_content(lang: Lang, bytes: &[u8]) -> Option<SkipReason> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Some(SkipReason::Binary);
    }
    let head_text = String::from_utf8_lossy(&head[..head.len().min(2048)]);
    // Go's convention (https://go.dev/s/generatedcode) and its Python equivalents.
    let generated = head_text.lines().take(30).any(|line| {
        let l = line.trim_start();
        (l.starts_with("//") || l.starts_with('#'))
            && ((l.contains("Code generated") && l.contains("DO NOT EDIT"))
                || l.contains("@generated"))
    });
    if generated {
        return Some(SkipReason::Generated);
    }
    // Minified or machine-written: very long average lines.
    let lines = bytes.iter().filter(|&&b| b == b'\n').count().max(1);
    if bytes.len() > 64 * 1024 && bytes.len() / lines > 1000 {
        return Some(SkipReason::Generated);
    }
    let _ = lang;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_markers_and_binaries_are_recognised() {
        assert_eq!(
            classify_content(
                Lang::Go,
                b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n"
            ),
            Some(SkipReason::Generated)
        );
        assert_eq!(
            classify_content(Lang::Python, b"# @generated by tool\nx = 1\n"),
            Some(SkipReason::Generated)
        );
        assert_eq!(
            classify_content(Lang::Python, b"x = 1\x00\x00"),
            Some(SkipReason::Binary)
        );
        assert_eq!(
            classify_content(Lang::Python, b"def f():\n    return 1\n"),
            None
        );
        assert!(is_generated_name("api/v1/user_pb2.py"));
        assert!(!is_generated_name("api/v1/user.py"));
    }

    #[test]
    fn scan_honours_ignores_and_reports_skips() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join("vendor/lib")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "def f(): pass\n").unwrap();
        std::fs::write(root.join("pkg/b_pb2.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("vendor/lib/c.go"), "package lib\n").unwrap();
        std::fs::write(root.join("ignored.py"), "x = 1\n").unwrap();
        std::fs::write(root.join(".rippleignore"), "ignored.py\n").unwrap();
        std::fs::write(root.join("README.md"), "hi\n").unwrap();
        // The go tool builds no package from `_examples/` or `testdata/`;
        // Python files there are code like any other.
        std::fs::create_dir_all(root.join("_examples/rest")).unwrap();
        std::fs::create_dir_all(root.join("pkg/testdata")).unwrap();
        std::fs::write(root.join("_examples/rest/main.go"), "package main\n").unwrap();
        std::fs::write(root.join("pkg/testdata/in.go"), "package in\n").unwrap();
        std::fs::write(root.join("_examples/tool.py"), "x = 1\n").unwrap();
        let inv = scan(root);
        let mut paths: Vec<&str> = inv.files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(paths, vec!["_examples/tool.py", "pkg/a.py"]);
        let reasons: Vec<(&str, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason))
            .collect();
        assert!(reasons.contains(&("pkg/b_pb2.py", SkipReason::Generated)));
        assert!(reasons.contains(&("vendor/", SkipReason::Vendored)));
        assert!(reasons.contains(&("_examples/rest/main.go", SkipReason::GoIgnoredDir)));
        assert!(reasons.contains(&("pkg/testdata/in.go", SkipReason::GoIgnoredDir)));
        assert!(inv.other_files >= 1);
        assert!(inv.other.contains(&"README.md".to_owned()));
    }
}
