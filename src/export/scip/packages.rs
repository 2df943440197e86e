//! Which package each symbol belongs to, decided the way scip-python and
//! scip-go decide it, so that a symbol ripple writes is the string their
//! indexes hold for the same declaration and the indexes merge.
//!
//! * Python, the repository's own code: the distribution name and version
//!   from `pyproject.toml` (`[project]`, else `[tool.poetry]`), else the
//!   directory's name and the commit (`git rev-parse HEAD`), which is what
//!   scip-python's `index` falls back to without `--project-name` and
//!   `--project-version`.
//! * Python's standard library: `python-stdlib` and the interpreter's
//!   `MAJOR.MINOR`, as pyright's execution environment reports it.
//! * Go, the repository's own code: the module path of the nearest
//!   `go.mod` and the tag at `HEAD`, else the first 12 digits of the
//!   commit, else `.` (scip-go's `--module-version` default).
//! * Go's standard library: `github.com/golang/go/src` and `go` plus the
//!   `go` directive of `go.mod` (scip-go's `--go-version` default).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

/// A package as SCIP names it: `<manager> <name> <version>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageId {
    pub name: String,
    pub version: String,
}

/// Choices that override what is read from the repository, named as the
/// indexers' own flags are.
#[derive(Debug, Clone, Default)]
pub struct PackageOverrides {
    /// scip-python's `--project-name`.
    pub project_name: Option<String>,
    /// scip-python's `--project-version`.
    pub project_version: Option<String>,
    /// scip-go's `--module-version`.
    pub module_version: Option<String>,
}

#[derive(Debug, Clone)]
struct GoModule {
    /// The directory of `go.mod`, relative, `/`-separated ("" at the root).
    dir: String,
    path: String,
    /// `require` lines: module path and version.
    requires: Vec<(String, String)>,
    go_directive: Option<String>,
}

/// The packages of one export.
#[derive(Debug)]
pub struct Packages {
    pub python_project: PackageId,
    pub python_stdlib: PackageId,
    /// Top-level modules of Python's standard library, when an
    /// interpreter could be asked.
    stdlib_modules: BTreeSet<String>,
    go_modules: Vec<GoModule>,
    go_module_version: String,
    go_std: PackageId,
    /// Directory → index into `go_modules` (or none), memoised.
    module_of_dir: std::sync::Mutex<HashMap<String, Option<usize>>>,
}

pub const GO_STD_MODULE: &str = "github.com/golang/go/src";
pub const GO_BUILTIN_MODULE: &str = "github.com/golang/go/src/builtin";
pub const PYTHON_STDLIB: &str = "python-stdlib";

impl Packages {
    /// Reads `pyproject.toml`, every `go.mod` the Go files sit under, git
    /// and, when the repository has Python, the interpreter on `PATH` (each
    /// only if present).
    pub fn discover(
        root: &Path,
        has_python: bool,
        go_files: &[&str],
        overrides: &PackageOverrides,
    ) -> Packages {
        let (py_name, py_version) = pyproject(root);
        let commit = git(root, &["rev-parse", "HEAD"]);
        let name = overrides
            .project_name
            .clone()
            .or(py_name)
            .or_else(|| {
                root.canonicalize()
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            })
            .unwrap_or_default();
        let version = overrides
            .project_version
            .clone()
            .or(py_version)
            .or_else(|| commit.clone())
            .unwrap_or_else(|| ".".to_owned());
        let (stdlib_version, stdlib_modules) = if has_python {
            python_stdlib()
        } else {
            (None, BTreeSet::new())
        };
        let go_modules = go_modules(root, go_files);
        let go_module_version = overrides
            .module_version
            .clone()
            .or_else(|| {
                git(root, &["tag", "-l", "--points-at", "HEAD"])
                    .and_then(|t| t.lines().next().map(str::to_owned))
            })
            .or_else(|| commit.as_deref().map(|c| c.chars().take(12).collect()))
            .unwrap_or_else(|| ".".to_owned());
        let go_std_version = go_modules
            .iter()
            .find_map(|m| m.go_directive.clone())
            .map(|v| format!("go{v}"))
            .unwrap_or_else(|| ".".to_owned());
        Packages {
            python_project: PackageId {
                // scip-python's ScipSymbol.package turns the first dot of
                // the name into a slash.
                name: name.trim().replacen('.', "/", 1),
                version,
            },
            python_stdlib: PackageId {
                name: PYTHON_STDLIB.to_owned(),
                version: stdlib_version.unwrap_or_else(|| ".".to_owned()),
            },
            stdlib_modules,
            go_modules,
            go_module_version,
            go_std: PackageId {
                name: GO_STD_MODULE.to_owned(),
                version: go_std_version,
            },
            module_of_dir: Default::default(),
        }
    }

    /// Fixed packages for unit tests: Python 3.11 with `json` and `os` in
    /// its standard library, no Go modules.
    #[cfg(test)]
    pub(super) fn for_tests() -> Packages {
        Packages {
            python_project: PackageId {
                name: "demo".to_owned(),
                version: "1.0".to_owned(),
            },
            python_stdlib: PackageId {
                name: PYTHON_STDLIB.to_owned(),
                version: "3.11".to_owned(),
            },
            stdlib_modules: ["json", "os"].iter().map(|m| m.to_string()).collect(),
            go_modules: Vec::new(),
            go_module_version: ".".to_owned(),
            go_std: PackageId {
                name: GO_STD_MODULE.to_owned(),
                version: "go1.21".to_owned(),
            },
            module_of_dir: Default::default(),
        }
    }

    /// The package of an out-of-repository Python module (`os.path`).
    pub fn python_external(&self, module: &str) -> PackageId {
        let top = module.split('.').next().unwrap_or(module);
        if top == "builtins" || self.stdlib_modules.contains(top) {
            self.python_stdlib.clone()
        } else {
            // The installed distribution and its version are what
            // scip-python writes; ripple reads no environment, so the
            // top-level module stands for the distribution.
            PackageId {
                name: top.to_owned(),
                version: ".".to_owned(),
            }
        }
    }

    /// The module a repository Go file belongs to.
    pub fn go_module_of(&self, file: &str) -> PackageId {
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        match self.module_index(dir) {
            Some(i) => PackageId {
                name: self.go_modules[i].path.clone(),
                version: self.go_module_version.clone(),
            },
            None => PackageId {
                name: ".".to_owned(),
                version: self.go_module_version.clone(),
            },
        }
    }

    /// The module of an out-of-repository Go package, as imported from
    /// `file`: the standard library, a `require` of its `go.mod`, or the
    /// import path itself with no version.
    pub fn go_external(&self, file: &str, import_path: &str) -> PackageId {
        if import_path == "builtin" {
            return PackageId {
                name: GO_BUILTIN_MODULE.to_owned(),
                version: self.go_std.version.clone(),
            };
        }
        let first = import_path.split('/').next().unwrap_or(import_path);
        if !first.contains('.') {
            return self.go_std.clone();
        }
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        let required = self.module_index(dir).and_then(|i| {
            self.go_modules[i]
                .requires
                .iter()
                .filter(|(path, _)| {
                    import_path == path || import_path.starts_with(&format!("{path}/"))
                })
                .max_by_key(|(path, _)| path.len())
        });
        match required {
            Some((path, version)) => PackageId {
                name: path.clone(),
                version: version.clone(),
            },
            None => PackageId {
                name: import_path.to_owned(),
                version: ".".to_owned(),
            },
        }
    }

    fn module_index(&self, dir: &str) -> Option<usize> {
        let mut memo = self.module_of_dir.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = memo.get(dir) {
            return *found;
        }
        let found = self
            .go_modules
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.dir.is_empty() || dir == m.dir || dir.starts_with(&format!("{}/", m.dir))
            })
            .max_by_key(|(_, m)| m.dir.len())
            .map(|(i, _)| i);
        memo.insert(dir.to_owned(), found);
        found
    }
}

/// `[project]` (PEP 621), else `[tool.poetry]`, name and version.
fn pyproject(root: &Path) -> (Option<String>, Option<String>) {
    let Ok(text) = crate::inventory::read_regular_string(root.join("pyproject.toml")) else {
        return (None, None);
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return (None, None);
    };
    let field = |table: Option<&toml::Value>, key: &str| {
        table
            .and_then(|t| t.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let project = doc.get("project");
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    (
        field(project, "name").or_else(|| field(poetry, "name")),
        field(project, "version").or_else(|| field(poetry, "version")),
    )
}

/// One line of `git`'s output in `root`, if git runs and answers.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}

/// The interpreter's `MAJOR.MINOR` and its standard library's top-level
/// module names (`sys.stdlib_module_names`, Python 3.10 and later).
fn python_stdlib() -> (Option<String>, BTreeSet<String>) {
    let probe = "import sys\nprint('%d.%d' % sys.version_info[:2])\nprint(' '.join(sorted(getattr(sys, 'stdlib_module_names', ()))))";
    let Ok(out) = Command::new("python3")
        .args(["-I", "-c", probe])
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return (None, BTreeSet::new());
    };
    if !out.status.success() {
        return (None, BTreeSet::new());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let version = lines.next().map(|v| v.trim().to_owned());
    let modules = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    (version, modules)
}

/// Every `go.mod` in a directory holding a Go file or above it.
fn go_modules(root: &Path, go_files: &[&str]) -> Vec<GoModule> {
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    for file in go_files {
        let mut dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        loop {
            if !dirs.insert(dir.to_owned()) {
                break;
            }
            match dir.rsplit_once('/') {
                Some((up, _)) => dir = up,
                None if !dir.is_empty() => dir = "",
                None => break,
            }
        }
    }
    dirs.into_iter()
        .filter_map(|dir| {
            let path = if dir.is_empty() {
                root.join("go.mod")
            } else {
                root.join(&dir).join("go.mod")
            };
            let text = crate::inventory::read_regular_string(path).ok()?;
            parse_go_mod(&text).map(|(path, go, requires)| GoModule {
                dir,
                path,
                requires,
                go_directive: go,
            })
        })
        .collect()
}

type GoMod = (String, Option<String>, Vec<(String, String)>);

/// The module path, the `go` directive and the `require`d modules of a
/// `go.mod` (single lines and `require ( … )` blocks).
fn parse_go_mod(text: &str) -> Option<GoMod> {
    let mut module = None;
    let mut go = None;
    let mut requires = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if let Some(r) = require_line(line) {
                requires.push(r);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("module ") {
            module = Some(rest.trim().trim_matches('"').to_owned());
        } else if let Some(rest) = line.strip_prefix("go ") {
            go = Some(rest.trim().to_owned());
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
            } else if let Some(r) = require_line(rest) {
                requires.push(r);
            }
        }
    }
    Some((module?, go, requires))
}

fn require_line(line: &str) -> Option<(String, String)> {
    let mut words = line.split_whitespace();
    let path = words.next()?.trim_matches('"');
    let version = words.next()?;
    Some((path.to_owned(), version.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_gives_module_go_directive_and_requires() {
        let text = "module example.com/shop // the shop\n\ngo 1.21\n\nrequire github.com/pkg/errors v0.9.1\nrequire (\n\tgolang.org/x/sync v0.6.0\n\tgithub.com/google/uuid v1.6.0 // indirect\n)\n";
        let (module, go, requires) = parse_go_mod(text).unwrap();
        assert_eq!(module, "example.com/shop");
        assert_eq!(go.as_deref(), Some("1.21"));
        assert_eq!(
            requires,
            vec![
                ("github.com/pkg/errors".to_owned(), "v0.9.1".to_owned()),
                ("golang.org/x/sync".to_owned(), "v0.6.0".to_owned()),
                ("github.com/google/uuid".to_owned(), "v1.6.0".to_owned()),
            ]
        );
    }

    #[test]
    fn a_go_mod_without_a_module_line_is_not_a_module() {
        assert!(parse_go_mod("go 1.21\n").is_none());
    }
}
