//! Walking a repository: which files ripple indexes and which it skips, with
//! the reason for every skip. Honours `.gitignore` (in a git repository or
//! not), `.ignore` and `.rippleignore`; never follows symlinks (so loops
//! cannot trap it); skips vendored trees, binaries and oversized files.
//! Generated code is indexed like any other, and recognised here
//! ([`is_generated`]) so that its declarations can be marked.

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
/// Version-control metadata and ripple's own state: never source, never
/// walked, and not listed among the skips (every repository has one).
const METADATA_DIRS: &[&str] = &[".git", ".hg", ".svn", ".ripple"];

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
    /// Generated code. The walk indexes it (its functions are called and
    /// call back); review lists it as skipped under this reason.
    Generated,
    TooLarge,
    Binary,
    Unreadable,
    Symlink,
    /// A FIFO, socket or device with a source file's name: opening a FIFO
    /// blocks until a writer comes, so none of them is ever opened.
    NotRegular,
    /// A name that is not UTF-8 (its path is reported escaped, `\xHH`).
    NonUtf8Name,
    /// A Python virtual environment (a `pyvenv.cfg` in it) or a conda
    /// environment (a `conda-meta/` in it), whatever its name: installed
    /// packages, not the repository's code.
    VirtualEnv,
    /// A directory whose name starts with `.` (`.tox`, `.mypy_cache`).
    Hidden,
    /// A Go file under a directory the go tool leaves out of every
    /// package (`_examples/`, `testdata/`): no build sees it.
    GoIgnoredDir,
    /// A Go file whose name (`_windows.go`) or `//go:build` line leaves
    /// it out of a build for this machine's platform, or out of every
    /// build (`//go:build ignore`).
    GoBuildConstraint,
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
            SkipReason::NotRegular => "not_regular",
            SkipReason::NonUtf8Name => "non_utf8_name",
            SkipReason::VirtualEnv => "virtual_env",
            SkipReason::Hidden => "hidden",
            SkipReason::GoIgnoredDir => "go_ignored_dir",
            SkipReason::GoBuildConstraint => "go_build_constraint",
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
            SkipReason::NotRegular,
            SkipReason::NonUtf8Name,
            SkipReason::VirtualEnv,
            SkipReason::Hidden,
            SkipReason::GoIgnoredDir,
            SkipReason::GoBuildConstraint,
        ]
        .into_iter()
        .find(|r| r.name() == name)
    }

    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::Vendored => "vendored or third-party directory",
            SkipReason::Generated => "generated code (in the graph, not reviewed)",
            SkipReason::TooLarge => "larger than the size limit",
            SkipReason::Binary => "binary content",
            SkipReason::Unreadable => "could not be read",
            SkipReason::Symlink => "symbolic link (not followed)",
            SkipReason::NotRegular => "not a regular file (FIFO, socket or device; never opened)",
            SkipReason::NonUtf8Name => "name is not UTF-8 (shown with \\xHH escapes)",
            SkipReason::VirtualEnv => "virtual environment (pyvenv.cfg or conda-meta/ in it)",
            SkipReason::Hidden => "hidden directory (name starts with '.')",
            SkipReason::GoIgnoredDir => "Go file in a directory the go tool ignores (_*, testdata)",
            SkipReason::GoBuildConstraint => {
                "Go file its name or //go:build line leaves out of this platform's build"
            }
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
            !(is_dir && entry.depth() > 0 && METADATA_DIRS.contains(&name.as_ref()))
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
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    // A directory that cannot be listed (no permission) is
                    // listed among the skips, not left out silently.
                    if let Some(path) = error_path(&err) {
                        let rel = relative(&root, path);
                        let rel = if path.is_dir() {
                            format!("{rel}/")
                        } else {
                            rel
                        };
                        skip(rel, SkipReason::Unreadable);
                    }
                    return ignore::WalkState::Continue;
                }
            };
            let Some(ft) = entry.file_type() else {
                return ignore::WalkState::Continue;
            };
            let rel = relative(&root, entry.path());
            if ft.is_dir() {
                if entry.depth() == 0 {
                    return ignore::WalkState::Continue;
                }
                let name = entry.file_name().to_string_lossy();
                let reason = if is_virtual_env(entry.path()) {
                    SkipReason::VirtualEnv
                } else if name.starts_with('.') {
                    SkipReason::Hidden
                } else if VENDORED_DIRS.contains(&name.as_ref()) {
                    SkipReason::Vendored
                } else {
                    return ignore::WalkState::Continue;
                };
                skip(format!("{rel}/"), reason);
                return ignore::WalkState::Skip;
            }
            if entry.file_name() == "go.mod" && ft.is_file() {
                go_mods
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(rel.clone());
            }
            let Some(lang) = Lang::from_path(&rel) else {
                other.lock().unwrap_or_else(|e| e.into_inner()).push(rel);
                return ignore::WalkState::Continue;
            };
            if entry
                .path()
                .strip_prefix(&root)
                .unwrap_or(entry.path())
                .to_str()
                .is_none()
            {
                // Indexed paths are text; this one could not be opened again
                // from its stored form.
                skip(rel, SkipReason::NonUtf8Name);
                return ignore::WalkState::Continue;
            }
            if ft.is_symlink() {
                skip(rel, SkipReason::Symlink);
                return ignore::WalkState::Continue;
            }
            if !ft.is_file() {
                skip(rel, SkipReason::NotRegular);
                return ignore::WalkState::Continue;
            }
            if lang == Lang::Go && in_go_ignored_dir(&rel) {
                skip(rel, SkipReason::GoIgnoredDir);
                return ignore::WalkState::Continue;
            }
            if lang == Lang::Go && !go_build::name_matches(&rel, go_build::Target::host()) {
                skip(rel, SkipReason::GoBuildConstraint);
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

/// The path a walk error is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// Read a file only if it is a regular one. The walk lists only regular
/// files, but a name can be replaced by a FIFO before it is read, and
/// opening a FIFO blocks until something writes to it: the open does not
/// wait (`O_NONBLOCK`), and anything but a regular file is refused.
pub fn read_regular(path: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let path = path.as_ref();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as text; invalid UTF-8 is an error, as with
/// [`std::fs::read_to_string`].
pub fn read_regular_string(path: impl AsRef<Path>) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// `path` relative to `root`, with `/` separators. A name that is not
/// UTF-8 keeps its bytes in the form [`escape_path_bytes`] documents.
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let s = match rel.to_str() {
        Some(s) => s.to_owned(),
        None => escape_path_bytes(rel),
    };
    if std::path::MAIN_SEPARATOR == '/' {
        s
    } else {
        s.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// A path that is not UTF-8, written so that no byte is lost: valid UTF-8
/// runs as they are, `\` as `\\`, and every other byte as `\xHH`
/// (`bad\xffname.py`). Only such paths are escaped; their skip reason
/// (`non_utf8_name`) says so.
pub fn escape_path_bytes(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A virtual environment is known by what it holds, not by its name: `venv`
/// and `env` are also names of ordinary packages (CPython's `Lib/venv`).
/// `python -m venv` and virtualenv write `pyvenv.cfg` at its top (PEP 405);
/// conda keeps its metadata in `conda-meta/`.
fn is_virtual_env(dir: &Path) -> bool {
    dir.join("pyvenv.cfg").is_file() || dir.join("conda-meta").is_dir()
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

/// Whether a file is generated code, by its name or its content: such a
/// file is indexed (it is called and calls back), its declarations marked.
pub fn is_generated(rel: &str, bytes: &[u8]) -> bool {
    if is_generated_name(rel) {
        return true;
    }
    let head = &bytes[..bytes.len().min(2048)];
    let head_text = String::from_utf8_lossy(head);
    // Go's convention (https://go.dev/s/generatedcode) and its Python equivalents.
    let marked = head_text.lines().take(30).any(|line| {
        let l = line.trim_start();
        (l.starts_with("//") || l.starts_with('#'))
            && ((l.contains("Code generated") && l.contains("DO NOT EDIT"))
                || l.contains("@generated"))
    });
    // Minified or machine-written: very long average lines.
    marked
        || (bytes.len() > 64 * 1024
            && bytes.len() / bytes.iter().filter(|&&b| b == b'\n').count().max(1) > 1000)
}

/// Content checks made when a file is read for parsing: the reasons to
/// skip it (generated code is not one, see [`is_generated`]).
pub fn classify_content(lang: Lang, bytes: &[u8]) -> Option<SkipReason> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Some(SkipReason::Binary);
    }
    let head_text = String::from_utf8_lossy(&head[..head.len().min(2048)]);
    if lang == Lang::Go && !go_build::constraints_hold(&head_text, go_build::Target::host()) {
        return Some(SkipReason::GoBuildConstraint);
    }
    None
}

/// The go tool's build constraints, evaluated as `go build` would on this
/// machine: a file named `x_windows.go` or `x_linux_arm64.go` is built
/// only for that platform, and a `//go:build` line (or, in files older
/// than Go 1.17, `// +build` lines) before the package clause must hold.
/// Tags that hold: the platform's GOOS and GOARCH, `unix` on Unix-like
/// systems, `gc`, and every `go1.N`; `cgo` and custom tags (`ignore`,
/// `integration`) do not.
pub mod go_build {
    const GOOS: &[&str] = &[
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "ios",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "wasip1",
        "windows",
        "zos",
    ];
    /// The GOOS values that are not Unix-like (the `unix` tag holds for the rest).
    const NOT_UNIX: &[&str] = &["js", "nacl", "plan9", "wasip1", "windows", "zos"];
    const GOARCH: &[&str] = &[
        "386",
        "amd64",
        "amd64p32",
        "arm",
        "armbe",
        "arm64",
        "arm64be",
        "loong64",
        "mips",
        "mipsle",
        "mips64",
        "mips64le",
        "mips64p32",
        "mips64p32le",
        "ppc",
        "ppc64",
        "ppc64le",
        "riscv",
        "riscv64",
        "s390",
        "s390x",
        "sparc",
        "sparc64",
        "wasm",
    ];

    /// The platform a build is for, in the go tool's names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Target {
        pub goos: &'static str,
        pub goarch: &'static str,
    }

    impl Target {
        /// This machine's platform.
        pub fn host() -> Target {
            let goos = match std::env::consts::OS {
                "macos" => "darwin",
                os => os,
            };
            let goarch = match std::env::consts::ARCH {
                "x86_64" => "amd64",
                "x86" => "386",
                "aarch64" => "arm64",
                "powerpc64" => "ppc64",
                "loongarch64" => "loong64",
                arch => arch,
            };
            Target { goos, goarch }
        }

        fn has_tag(self, tag: &str) -> bool {
            tag == self.goos
                || tag == self.goarch
                || (tag == "unix" && GOOS.contains(&self.goos) && !NOT_UNIX.contains(&self.goos))
                // GOOS=android builds linux files, illumos solaris ones,
                // ios darwin ones.
                || (tag == "linux" && self.goos == "android")
                || (tag == "solaris" && self.goos == "illumos")
                || (tag == "darwin" && self.goos == "ios")
                || tag == "gc"
                || tag
                    .strip_prefix("go1.")
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        }
    }

    /// Whether a Go file's name lets it into a build for `target`:
    /// `name_GOOS.go`, `name_GOARCH.go` and `name_GOOS_GOARCH.go` (before
    /// an optional `_test`) are built only there.
    pub fn name_matches(rel: &str, target: Target) -> bool {
        let file = rel.rsplit('/').next().unwrap_or(rel);
        let stem = file.strip_suffix(".go").unwrap_or(file);
        let stem = stem.strip_suffix("_test").unwrap_or(stem);
        let parts: Vec<&str> = stem.split('_').collect();
        // The first part is the file's own name, never a constraint
        // (`linux.go`, `windows.go` are built everywhere).
        let tail = &parts[1.min(parts.len())..];
        match tail {
            [.., os, arch] if GOOS.contains(os) && GOARCH.contains(arch) => {
                target.has_tag(os) && target.has_tag(arch)
            }
            [.., last] if GOOS.contains(last) || GOARCH.contains(last) => target.has_tag(last),
            _ => true,
        }
    }

    /// Whether the build constraints at the top of a Go file (`head`, its
    /// first bytes) hold for `target`. A constraint that does not parse
    /// keeps the file.
    pub fn constraints_hold(head: &str, target: Target) -> bool {
        let mut plus_lines = Vec::new();
        let mut in_block = false;
        for line in head.lines() {
            let l = line.trim();
            if in_block {
                in_block = !l.contains("*/");
                continue;
            }
            if l.is_empty() {
                continue;
            }
            if let Some(expr) = l.strip_prefix("//go:build") {
                return Expr::new(expr, target).parse().unwrap_or(true);
            }
            if let Some(opts) = l.strip_prefix("// +build") {
                plus_lines.push(opts);
                continue;
            }
            if l.starts_with("//") {
                continue;
            }
            if l.starts_with("/*") {
                in_block = !l.contains("*/");
                continue;
            }
            // The package clause, or anything else: constraints end here.
            break;
        }
        // Each `// +build` line must hold: any of its space-separated
        // options, each a comma-separated conjunction of maybe negated tags.
        plus_lines.iter().all(|opts| {
            opts.split_whitespace().any(|opt| {
                opt.split(',').all(|term| match term.strip_prefix('!') {
                    Some(tag) => !target.has_tag(tag),
                    None => target.has_tag(term),
                })
            })
        })
    }

    /// A `//go:build` expression: `||`, `&&`, `!`, parentheses and tags.
    struct Expr<'a> {
        rest: &'a str,
        target: Target,
    }

    impl<'a> Expr<'a> {
        fn new(text: &'a str, target: Target) -> Expr<'a> {
            Expr { rest: text, target }
        }

        fn parse(mut self) -> Option<bool> {
            let value = self.or()?;
            self.rest.trim().is_empty().then_some(value)
        }

        fn eat(&mut self, token: &str) -> bool {
            let trimmed = self.rest.trim_start();
            match trimmed.strip_prefix(token) {
                Some(rest) => {
                    self.rest = rest;
                    true
                }
                None => false,
            }
        }

        fn or(&mut self) -> Option<bool> {
            let mut value = self.and()?;
            while self.eat("||") {
                value |= self.and()?;
            }
            Some(value)
        }

        fn and(&mut self) -> Option<bool> {
            let mut value = self.not()?;
            while self.eat("&&") {
                value &= self.not()?;
            }
            Some(value)
        }

        fn not(&mut self) -> Option<bool> {
            if self.eat("!") {
                return self.not().map(|v| !v);
            }
            if self.eat("(") {
                let value = self.or()?;
                return self.eat(")").then_some(value);
            }
            let trimmed = self.rest.trim_start();
            let end = trimmed
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(trimmed.len());
            if end == 0 {
                return None;
            }
            let (tag, rest) = trimmed.split_at(end);
            self.rest = rest;
            Some(self.target.has_tag(tag))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        const LINUX: Target = Target {
            goos: "linux",
            goarch: "amd64",
        };
        const WINDOWS: Target = Target {
            goos: "windows",
            goarch: "arm64",
        };

        #[test]
        fn file_names_name_the_platforms_they_are_built_for() {
            assert!(name_matches("term/term_linux.go", LINUX));
            assert!(!name_matches("term/term_windows.go", LINUX));
            assert!(name_matches("term/term_windows.go", WINDOWS));
            assert!(!name_matches("x/sys_windows_amd64.go", LINUX));
            assert!(!name_matches("x/sys_linux_arm64_test.go", LINUX));
            assert!(name_matches("x/sys_linux_amd64_test.go", LINUX));
            assert!(!name_matches("x/asm_arm64.go", LINUX));
            // A platform name alone, or not after an underscore, is no constraint.
            assert!(name_matches("windows.go", LINUX));
            assert!(name_matches("pkg/linux_test.go", WINDOWS));
            assert!(name_matches("pkg/handler.go", LINUX));
        }

        #[test]
        fn go_build_lines_are_evaluated_for_the_target() {
            let head = |c: &str| format!("// Copyright\n\n{c}\n\npackage x\n");
            assert!(!constraints_hold(&head("//go:build windows"), LINUX));
            assert!(constraints_hold(&head("//go:build windows"), WINDOWS));
            assert!(constraints_hold(&head("//go:build !windows"), LINUX));
            assert!(constraints_hold(
                &head("//go:build linux && (amd64 || arm64)"),
                LINUX
            ));
            assert!(!constraints_hold(
                &head("//go:build linux && !amd64"),
                LINUX
            ));
            assert!(constraints_hold(&head("//go:build unix"), LINUX));
            assert!(!constraints_hold(&head("//go:build unix"), WINDOWS));
            assert!(!constraints_hold(&head("//go:build ignore"), LINUX));
            assert!(!constraints_hold(&head("//go:build cgo"), LINUX));
            assert!(constraints_hold(&head("//go:build go1.18"), LINUX));
            // Not understood: kept.
            assert!(constraints_hold(&head("//go:build linux &&"), LINUX));
            // `// +build` lines: spaces are OR, commas AND, lines AND.
            assert!(constraints_hold(&head("// +build linux darwin"), LINUX));
            assert!(!constraints_hold(&head("// +build linux,386"), LINUX));
            assert!(!constraints_hold(
                &head("// +build linux\n// +build ignore"),
                LINUX
            ));
            // //go:build wins over +build lines.
            assert!(constraints_hold(
                &head("//go:build linux\n// +build ignore"),
                LINUX
            ));
            // Only before the package clause.
            assert!(constraints_hold("package x\n\n//go:build ignore\n", LINUX));
            assert!(!constraints_hold(
                "/* licence\n   text */\n//go:build ignore\npackage x\n",
                LINUX
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_markers_and_binaries_are_recognised() {
        let go_gen = b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n";
        assert!(is_generated("x.go", go_gen));
        assert_eq!(classify_content(Lang::Go, go_gen), None);
        let py_gen = b"# @generated by tool\nx = 1\n";
        assert!(is_generated("x.py", py_gen));
        assert_eq!(classify_content(Lang::Python, py_gen), None);
        assert!(is_generated("api/user_pb2_grpc.py", b"x = 1\n"));
        assert!(!is_generated(
            "api/user.py",
            b"# Code generated once\nx = 1\n"
        ));
        let minified = format!("x = [{}]\n", "1, ".repeat(40_000));
        assert!(is_generated("data.py", minified.as_bytes()));
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

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("run mkfifo");
        assert!(status.success());
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_unlistable_directories_are_skipped_with_their_reason() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.py"), "def f(): pass\n").unwrap();
        mkfifo(&root.join("x.py"));
        mkfifo(&root.join("go.mod"));
        std::fs::create_dir(root.join("locked")).unwrap();
        std::fs::write(root.join("locked/b.py"), "x = 1\n").unwrap();
        let locked = root.join("locked");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        // Permissions do not stop root, which the tests may run as.
        let unlistable = std::fs::read_dir(&locked).is_err();
        let inv = scan(root);
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        let reasons: Vec<(&str, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason))
            .collect();
        assert!(
            reasons.contains(&("x.py", SkipReason::NotRegular)),
            "{reasons:?}"
        );
        assert!(inv.go_mods.is_empty(), "a FIFO go.mod would be read");
        let paths: Vec<&str> = inv.files.iter().map(|f| f.path.as_str()).collect();
        if unlistable {
            assert!(
                reasons.contains(&("locked/", SkipReason::Unreadable)),
                "{reasons:?}"
            );
            assert_eq!(paths, vec!["a.py"]);
        } else {
            eprintln!("running as root: the unlistable directory is not checked");
            assert_eq!(paths, vec!["a.py", "locked/b.py"]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_skipped_with_its_bytes_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let name = std::ffi::OsStr::from_bytes(b"bad\xffna\\me.py");
        std::fs::write(root.join(name), "x = 1\n").unwrap();
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"notes\xfe.txt")), "").unwrap();
        let inv = scan(root);
        assert!(inv.files.is_empty(), "{:?}", inv.files);
        assert_eq!(
            inv.skipped,
            vec![Skipped {
                path: "bad\\xffna\\\\me.py".to_owned(),
                reason: SkipReason::NonUtf8Name
            }]
        );
        assert_eq!(inv.other, vec!["notes\\xfe.txt".to_owned()]);
    }

    #[cfg(unix)]
    #[test]
    fn read_regular_refuses_a_fifo_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.py");
        mkfifo(&fifo);
        let err = read_regular(&fifo).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        assert_eq!(read_regular(dir.path().join("a.py")).unwrap(), b"x = 1\n");
    }

    #[test]
    fn virtual_environments_are_skipped_by_what_they_hold_not_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // Packages that happen to be called `venv` and `env`.
        write("venv/__init__.py", "class EnvBuilder: pass\n");
        write("lib/env/__init__.py", "x = 1\n");
        // Environments under any name.
        write("build-env/pyvenv.cfg", "home = /usr/bin\n");
        write("build-env/lib/site.py", "x = 1\n");
        write(".venv/pyvenv.cfg", "home = /usr/bin\n");
        write(".venv/lib/m.py", "x = 1\n");
        write("conda/conda-meta/history", "\n");
        write("conda/lib/m.py", "x = 1\n");
        write(".tox/py3/m.py", "x = 1\n");
        write(".git/hooks/h.py", "x = 1\n");
        let inv = scan(root);
        let paths: Vec<&str> = inv.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["lib/env/__init__.py", "venv/__init__.py"]);
        let reasons: Vec<(&str, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                (".tox/", SkipReason::Hidden),
                (".venv/", SkipReason::VirtualEnv),
                ("build-env/", SkipReason::VirtualEnv),
                ("conda/", SkipReason::VirtualEnv),
            ]
        );
        for r in [SkipReason::VirtualEnv, SkipReason::Hidden] {
            assert_eq!(SkipReason::from_name(r.name()), Some(r));
        }
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
        // No machine ripple runs on is plan9/wasm: built for that alone.
        std::fs::write(root.join("pkg/os_plan9_wasm.go"), "package pkg\n").unwrap();
        let inv = scan(root);
        let mut paths: Vec<&str> = inv.files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        // Generated code is indexed (and marked when parsed).
        assert_eq!(paths, vec!["_examples/tool.py", "pkg/a.py", "pkg/b_pb2.py"]);
        let reasons: Vec<(&str, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason))
            .collect();
        assert!(reasons.contains(&("vendor/", SkipReason::Vendored)));
        assert!(reasons.contains(&("_examples/rest/main.go", SkipReason::GoIgnoredDir)));
        assert!(reasons.contains(&("pkg/testdata/in.go", SkipReason::GoIgnoredDir)));
        assert!(reasons.contains(&("pkg/os_plan9_wasm.go", SkipReason::GoBuildConstraint)));
        assert!(inv.other_files >= 1);
        assert!(inv.other.contains(&"README.md".to_owned()));
    }
}
