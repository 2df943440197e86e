//! Repository conventions: what the team says about its own code, read from
//! `ripple.toml` at the repository root, and who owns what, read from
//! CODEOWNERS.
//!
//! `[conventions]` sorts paths and symbols into three classes — `stable`
//! (public interfaces: edits need a second confirmation), `active` (code under
//! change) and `off_limits` (never sent to a model, never edited) — and adds
//! user patterns to a built-in list of secret files that are never sent
//! anywhere. Entries are gitignore-style globs or `symbol:NAME` names. The raw
//! `[llm]` table is handed to the provider layer untouched, so this module does
//! not need to know every provider's settings.
//!
//! The file is read by [`RippleToml`] (`file.rs`), the one reader of
//! `ripple.toml`, which also holds the other tables for the modules that use
//! them. A missing `ripple.toml` means the defaults; a malformed one is an error that
//! names the line, because silently ignoring a typo in `off_limits` would let a
//! model edit code the team fenced off.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

mod file;

pub use file::{
    ContextSettings, ConventionsTable, RippleToml, SCHEMA, SearchTable, TableSchema, TestCommands,
    UnknownKey,
};

/// The file name of the conventions file at the repository root.
pub const CONVENTIONS_FILE: &str = "ripple.toml";

/// Secret files never sent to a model or edited, whatever `ripple.toml` says.
/// Patterns without a `/` match a file or directory name at any depth.
pub const BUILTIN_SECRETS: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "credentials*.json",
    "service-account*.json",
    "secrets.*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".htpasswd",
    ".aws/credentials",
    ".docker/config.json",
];

/// How the team treats a path or symbol. Ordered by strictness, so when
/// several entries match, the strictest class wins (`max`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Class {
    /// Code under active change.
    Active,
    /// A public interface: edits need a second, explicit confirmation.
    Stable,
    /// Never sent to a model, never edited.
    OffLimits,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Active => "active",
            Class::Stable => "stable",
            Class::OffLimits => "off-limits",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConventionsError {
    #[error("cannot read {}: {source}; check that the file is readable", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error(
        "{}:{line}:{column}: {message}; fix that line (or delete the file to use the defaults)",
        path.display()
    )]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{}:{line}: `{pattern}` in `{list}` is not a usable pattern: {reason}; write a glob such as `api/**` or `symbol:pkg.func`",
        path.display()
    )]
    Pattern {
        path: PathBuf,
        line: usize,
        list: &'static str,
        pattern: String,
        reason: String,
    },
}

/// The `[conventions]`, `[tests]` and `[llm]` tables of `ripple.toml`, compiled.
#[derive(Debug, Clone)]
pub struct Conventions {
    source: Option<PathBuf>,
    stable: ClassRules,
    active: ClassRules,
    off_limits: ClassRules,
    secrets: PathRules,
    user_secrets: Vec<String>,
    llm: Option<toml::Table>,
    tests: TestCommands,
}

impl Default for Conventions {
    fn default() -> Conventions {
        Conventions::from_file(RippleToml::default())
            .expect("the built-in secret patterns are valid globs")
    }
}

impl Conventions {
    /// Read `ripple.toml` at `root`. A missing file gives the defaults.
    pub fn load(root: &Path) -> Result<Conventions, ConventionsError> {
        Conventions::from_file(RippleToml::load(root)?)
    }

    /// Parse the text of a `ripple.toml`; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Conventions, ConventionsError> {
        Conventions::from_file(RippleToml::parse(text, path)?)
    }

    /// Compile the `[conventions]` of a file read by [`RippleToml`].
    pub fn from_file(file: RippleToml) -> Result<Conventions, ConventionsError> {
        let path = file.path();
        let text = file.text.as_str();
        let pattern_error =
            |list: &'static str, pattern: &str, reason: String| ConventionsError::Pattern {
                path: path.clone(),
                line: line_of_entry(text, list, pattern),
                list,
                pattern: pattern.to_owned(),
                reason,
            };
        let class_rules = |list: &'static str, entries: &[String]| {
            ClassRules::new(entries)
                .map_err(|(pattern, reason)| pattern_error(list, &pattern, reason))
        };
        let c = &file.conventions;
        let stable = class_rules("stable", &c.stable)?;
        let active = class_rules("active", &c.active)?;
        let off_limits = class_rules("off_limits", &c.off_limits)?;
        let mut secret_patterns: Vec<String> =
            BUILTIN_SECRETS.iter().map(|s| (*s).to_owned()).collect();
        for s in &c.secrets {
            if s.starts_with("symbol:") {
                return Err(pattern_error(
                    "secrets",
                    s,
                    "secrets are files, not symbols".to_owned(),
                ));
            }
            secret_patterns.push(s.clone());
        }
        let secrets = PathRules::new(&secret_patterns)
            .map_err(|(pattern, reason)| pattern_error("secrets", &pattern, reason))?;
        Ok(Conventions {
            stable,
            active,
            off_limits,
            secrets,
            user_secrets: c.secrets.clone(),
            source: file.source,
            llm: file.llm,
            tests: file.tests,
        })
    }

    /// The file these conventions came from, `None` for the defaults.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The strictest class whose path globs match `path` (repository-relative,
    /// `/`-separated).
    pub fn class_of_path(&self, path: &str) -> Option<Class> {
        let path = normalise_rel(path);
        [
            (Class::OffLimits, &self.off_limits),
            (Class::Stable, &self.stable),
            (Class::Active, &self.active),
        ]
        .into_iter()
        .find(|(_, rules)| rules.paths.is_match(path))
        .map(|(class, _)| class)
    }

    /// The strictest class of a declaration: its `symbol:` entries (matching
    /// the qualified name or a dotted suffix of it, so `symbol:auth.validate`
    /// matches `app.auth.validate`) and the globs matching its file.
    pub fn class_of_symbol(&self, qualified_name: &str, path: &str) -> Option<Class> {
        let name = normalise_symbol(qualified_name);
        let by_symbol = [
            (Class::OffLimits, &self.off_limits),
            (Class::Stable, &self.stable),
            (Class::Active, &self.active),
        ]
        .into_iter()
        .find(|(_, rules)| rules.symbol_match(&name).is_some())
        .map(|(class, _)| class);
        by_symbol.max(self.class_of_path(path))
    }

    /// Whether `path` is a secret file (built-in list plus user `secrets`).
    pub fn is_secret(&self, path: &str) -> bool {
        self.secrets.is_match(normalise_rel(path))
    }

    /// The `secrets` pattern (built-in first, then the user's) that makes
    /// `path` a secret file, as written — so a skipped file can say why.
    pub fn secret_pattern(&self, path: &str) -> Option<&str> {
        self.secrets.first_match(normalise_rel(path))
    }

    /// The `off_limits` glob that fences `path` off, as written.
    pub fn off_limits_pattern(&self, path: &str) -> Option<&str> {
        self.off_limits.paths.first_match(normalise_rel(path))
    }

    /// The `off_limits` `symbol:` entry naming this declaration, as written.
    pub fn off_limits_symbol(&self, qualified_name: &str) -> Option<&str> {
        self.off_limits
            .symbol_match(&normalise_symbol(qualified_name))
    }

    /// Whether any `off_limits` entry names a symbol, so callers can skip
    /// walking every declaration when none does.
    pub fn has_off_limits_symbols(&self) -> bool {
        !self.off_limits.symbols.is_empty()
    }

    /// The raw entries of one class, as written (for legends and `--json`).
    pub fn entries(&self, class: Class) -> &[String] {
        match class {
            Class::Stable => &self.stable.entries,
            Class::Active => &self.active.entries,
            Class::OffLimits => &self.off_limits.entries,
        }
    }

    /// The user's `secrets` patterns (the built-in ones are [`BUILTIN_SECRETS`]).
    pub fn user_secrets(&self) -> &[String] {
        &self.user_secrets
    }

    /// How `[tests]` says to run selected tests.
    pub fn test_commands(&self) -> &TestCommands {
        &self.tests
    }

    /// The raw `[llm]` table, for the provider layer.
    pub fn llm_table(&self) -> Option<&toml::Table> {
        self.llm.as_ref()
    }
}

/// One class's entries split into path globs and `symbol:` names.
#[derive(Debug, Clone)]
struct ClassRules {
    entries: Vec<String>,
    paths: PathRules,
    /// Normalised symbol names (see [`normalise_symbol`]), each with its
    /// entry as written.
    symbols: Vec<(String, String)>,
}

impl ClassRules {
    fn new(entries: &[String]) -> Result<ClassRules, (String, String)> {
        let mut globs = Vec::new();
        let mut symbols = Vec::new();
        for entry in entries {
            if let Some(name) = entry.strip_prefix("symbol:") {
                let name = name.trim();
                if name.is_empty() {
                    return Err((entry.clone(), "the symbol name is empty".to_owned()));
                }
                symbols.push((normalise_symbol(name), entry.clone()));
            } else {
                globs.push(entry.clone());
            }
        }
        Ok(ClassRules {
            entries: entries.to_vec(),
            paths: PathRules::new(&globs)?,
            symbols,
        })
    }

    /// The entry of the first `symbol:` naming `name` (already normalised).
    fn symbol_match(&self, name: &str) -> Option<&str> {
        self.symbols
            .iter()
            .find(|(s, _)| symbol_matches(name, s))
            .map(|(_, entry)| entry.as_str())
    }
}

/// Gitignore-style patterns compiled into one glob set. Each pattern keeps its
/// index so callers can ask for the last one that matched (CODEOWNERS).
#[derive(Debug, Clone)]
struct PathRules {
    set: GlobSet,
    /// Glob index in `set` → pattern index.
    pattern_of: Vec<usize>,
    patterns: Vec<String>,
}

impl PathRules {
    /// Compile `patterns`; the error is (pattern, reason).
    fn new(patterns: &[String]) -> Result<PathRules, (String, String)> {
        let mut builder = GlobSetBuilder::new();
        let mut pattern_of = Vec::new();
        for (i, pattern) in patterns.iter().enumerate() {
            for glob in gitignore_globs(pattern).map_err(|reason| (pattern.clone(), reason))? {
                let glob = GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| (pattern.clone(), e.kind().to_string()))?;
                builder.add(glob);
                pattern_of.push(i);
            }
        }
        let set = builder
            .build()
            .map_err(|e| (patterns.join(", "), e.to_string()))?;
        Ok(PathRules {
            set,
            pattern_of,
            patterns: patterns.to_vec(),
        })
    }

    fn is_match(&self, path: &str) -> bool {
        self.set.is_match(path)
    }

    /// The first pattern (in written order) matching `path`.
    fn first_match(&self, path: &str) -> Option<&str> {
        self.set
            .matches(path)
            .into_iter()
            .map(|g| self.pattern_of[g])
            .min()
            .map(|i| self.patterns[i].as_str())
    }

    /// The index of the last pattern matching `path`.
    fn last_match(&self, path: &str) -> Option<usize> {
        self.set
            .matches(path)
            .into_iter()
            .map(|g| self.pattern_of[g])
            .max()
    }
}

/// Translate one gitignore-style pattern into globs over repository-relative
/// paths. As in gitignore and CODEOWNERS: a pattern with a `/` at the start or
/// in the middle is anchored at the root, one without matches at any depth; a
/// trailing `/` means a directory; a pattern matching a directory matches
/// everything under it.
fn gitignore_globs(pattern: &str) -> Result<Vec<String>, String> {
    let p = pattern.trim();
    if p.starts_with('!') {
        return Err("negated patterns are not supported; list what to include instead".to_owned());
    }
    let dir_only = p.ends_with('/');
    let p = p.trim_end_matches('/');
    let anchored = p.contains('/');
    let p = p.trim_start_matches('/');
    if p.is_empty() {
        return Err("the pattern is empty".to_owned());
    }
    let base = if anchored {
        p.to_owned()
    } else {
        format!("**/{p}")
    };
    let under = if base.ends_with("/**") {
        base.clone()
    } else {
        format!("{base}/**")
    };
    Ok(if dir_only {
        vec![under]
    } else {
        vec![base, under]
    })
}

/// `./a/b` → `a/b`; paths are compared in the index's `/`-separated form.
fn normalise_rel(path: &str) -> &str {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.trim_start_matches('/')
}

/// Go method names are written `(*pkg.T).M`; conventions name them `pkg.T.M`,
/// so receivers' parentheses and pointer stars are dropped before comparing.
fn normalise_symbol(name: &str) -> String {
    name.trim()
        .chars()
        .filter(|c| !matches!(c, '(' | ')' | '*'))
        .collect()
}

/// `name` equals the qualified name or is a suffix of it starting after a
/// `.` (Python modules, Go package members) or a `/` (Go import paths).
fn symbol_matches(qualified: &str, name: &str) -> bool {
    qualified == name
        || qualified
            .strip_suffix(name)
            .is_some_and(|head| head.ends_with('.') || head.ends_with('/'))
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The line a list entry was written on, for error messages: the first line
/// holding the quoted entry, else the line naming the list, else 1.
fn line_of_entry(text: &str, list: &str, entry: &str) -> usize {
    let quoted = [format!("\"{entry}\""), format!("'{entry}'")];
    let lines = || text.lines().enumerate();
    lines()
        .find(|(_, l)| quoted.iter().any(|q| l.contains(q.as_str())))
        .or_else(|| lines().find(|(_, l)| l.trim_start().starts_with(list)))
        .map_or(1, |(i, _)| i + 1)
}

/// The CODEOWNERS locations GitHub reads, in the order it reads them; the
/// first file found is the only one used.
pub const CODEOWNERS_LOCATIONS: &[&str] = &[".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"];

/// A line of CODEOWNERS that was ignored, and why (GitHub ignores them too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    pub line: usize,
    pub reason: String,
}

/// Code owners by path, from the repository's CODEOWNERS file.
#[derive(Debug, Clone)]
pub struct Codeowners {
    source: Option<PathBuf>,
    rules: PathRules,
    /// Owners per pattern, in file order.
    owners: Vec<Vec<String>>,
    skipped: Vec<SkippedLine>,
}

impl Default for Codeowners {
    fn default() -> Codeowners {
        Codeowners::parse("", None)
    }
}

impl Codeowners {
    /// Read the first CODEOWNERS file GitHub would use; none means no owners.
    pub fn load(root: &Path) -> Result<Codeowners, ConventionsError> {
        for location in CODEOWNERS_LOCATIONS {
            let path = root.join(location);
            match crate::inventory::read_regular_string(&path) {
                Ok(text) => return Ok(Codeowners::parse(&text, Some(path))),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) => {}
                Err(source) => return Err(ConventionsError::Read { path, source }),
            }
        }
        Ok(Codeowners::default())
    }

    /// Parse CODEOWNERS text. Lines GitHub would reject are skipped and listed
    /// in [`Codeowners::skipped`], never fatal: ownership is advisory.
    pub fn parse(text: &str, source: Option<PathBuf>) -> Codeowners {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        let mut skipped = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let Some(pattern) = words.next() else {
                continue;
            };
            // `\#` escapes a pattern that starts with `#`.
            let pattern = pattern
                .strip_prefix('\\')
                .filter(|p| p.starts_with('#'))
                .unwrap_or(pattern);
            let line_owners: Vec<String> = words
                .take_while(|w| !w.starts_with('#'))
                .map(str::to_owned)
                .collect();
            match PathRules::new(&[pattern.to_owned()]) {
                Ok(_) => {
                    patterns.push(pattern.to_owned());
                    owners.push(line_owners);
                }
                Err((_, reason)) => skipped.push(SkippedLine {
                    line: i + 1,
                    reason,
                }),
            }
        }
        // Every pattern compiled on its own above, so the set compiles too.
        let rules = PathRules::new(&patterns).unwrap_or(PathRules {
            set: GlobSet::empty(),
            pattern_of: Vec::new(),
            patterns: Vec::new(),
        });
        Codeowners {
            source,
            rules,
            owners,
            skipped,
        }
    }

    /// The file the owners came from, `None` when the repository has none.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    pub fn skipped(&self) -> &[SkippedLine] {
        &self.skipped
    }

    /// The owners of `path`: those of the last matching pattern (a later
    /// pattern with no owners makes the path unowned, as on GitHub).
    pub fn owners_of(&self, path: &str) -> Vec<String> {
        self.rules
            .last_match(normalise_rel(path))
            .map(|i| self.owners[i].clone())
            .unwrap_or_default()
    }

    /// Every owner of any of `paths`, sorted ("this migration touches code
    /// owned by @team-a, @team-b").
    pub fn owners_of_all<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
        paths.into_iter().flat_map(|p| self.owners_of(p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(text: &str) -> Conventions {
        Conventions::parse(text, Path::new("ripple.toml")).unwrap()
    }

    #[test]
    fn defaults_know_the_builtin_secrets_and_no_classes() {
        let c = Conventions::default();
        for secret in [
            ".env",
            "deploy/.env.production",
            "certs/server.pem",
            "home/.ssh/id_rsa",
            "id_ed25519.pub",
            "config/credentials-prod.json",
            "secrets.yaml",
            ".npmrc",
            "a/.pypirc",
        ] {
            assert!(c.is_secret(secret), "{secret} should be a secret");
        }
        for plain in ["src/env.py", "environment.md", "keys.go", "pemfile.txt"] {
            assert!(!c.is_secret(plain), "{plain} should not be a secret");
        }
        assert_eq!(c.class_of_path("anything.py"), None);
        assert!(c.llm_table().is_none());
    }

    #[test]
    fn design_example_classifies_paths_and_symbols() {
        let c = conv(
            r#"
[conventions]
stable     = ["api/**", "symbol:auth.validate"]
active     = ["services/**"]
off_limits = ["legacy/**", "**/*_pb2.py"]
secrets    = [".env*", "**/*.cert"]

[llm]
provider = "anthropic"
model    = "claude"
"#,
        );
        assert_eq!(c.class_of_path("api/v1/users.py"), Some(Class::Stable));
        assert_eq!(
            c.class_of_path("./services/billing.go"),
            Some(Class::Active)
        );
        assert_eq!(c.class_of_path("legacy/old.py"), Some(Class::OffLimits));
        assert_eq!(c.class_of_path("gen/deep/x_pb2.py"), Some(Class::OffLimits));
        assert_eq!(c.class_of_path("x_pb2.py"), Some(Class::OffLimits));
        assert_eq!(c.class_of_path("apiary/x.py"), None);
        assert_eq!(
            c.class_of_path("src/api/x.py"),
            None,
            "`api/**` is anchored"
        );

        assert_eq!(
            c.class_of_symbol("app.auth.validate", "app/auth.py"),
            Some(Class::Stable)
        );
        assert_eq!(
            c.class_of_symbol("auth.validate", "auth.py"),
            Some(Class::Stable)
        );
        assert_eq!(
            c.class_of_symbol("app.myauth.validate", "app/auth.py"),
            None
        );
        // The path class still counts, and the stricter class wins.
        assert_eq!(
            c.class_of_symbol("x.auth.validate", "legacy/a.py"),
            Some(Class::OffLimits)
        );
        assert!(c.is_secret(".envrc"));
        assert!(c.is_secret("tls/site.cert"));
        assert_eq!(
            c.llm_table().unwrap()["provider"].as_str(),
            Some("anthropic")
        );
    }

    #[test]
    fn go_symbols_match_through_receivers_and_import_paths() {
        let c =
            conv("[conventions]\nstable = [\"symbol:auth.Validate\", \"symbol:store.DB.Save\"]\n");
        assert_eq!(
            c.class_of_symbol("example.com/x/auth.Validate", "auth/a.go"),
            Some(Class::Stable)
        );
        assert_eq!(
            c.class_of_symbol("(*example.com/store.DB).Save", "store/db.go"),
            Some(Class::Stable)
        );
        assert_eq!(
            c.class_of_symbol("example.com/store.DB.Load", "store/db.go"),
            None
        );
    }

    #[test]
    fn unanchored_names_match_directories_at_any_depth() {
        let c = conv("[conventions]\noff_limits = [\"vendor\", \"generated/\"]\n");
        assert_eq!(c.class_of_path("vendor/a.go"), Some(Class::OffLimits));
        assert_eq!(c.class_of_path("x/vendor/y/a.go"), Some(Class::OffLimits));
        assert_eq!(c.class_of_path("x/generated/a.py"), Some(Class::OffLimits));
        assert_eq!(
            c.class_of_path("generated"),
            None,
            "a trailing / means a directory"
        );
    }

    #[test]
    fn test_commands_come_from_the_tests_table() {
        let c = Conventions::parse(
            "[tests]\npython = \"pytest -q {tests}\"\n",
            Path::new("ripple.toml"),
        )
        .unwrap();
        assert_eq!(
            c.test_commands().python.as_deref(),
            Some("pytest -q {tests}")
        );
        assert_eq!(c.test_commands().go, None);
        assert_eq!(
            Conventions::default().test_commands(),
            &TestCommands::default()
        );
        // A typo must not silently fall back to the default command.
        let err =
            Conventions::parse("[tests]\npyhton = \"x\"\n", Path::new("ripple.toml")).unwrap_err();
        assert!(err.to_string().contains("pyhton"), "{err}");
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = Conventions::parse(
            "[conventions]\nstable = [\"api/**\"\nactive = []\n",
            Path::new("/repo/ripple.toml"),
        )
        .unwrap_err();
        let ConventionsError::Syntax { line, .. } = &err else {
            panic!("{err}")
        };
        assert!(*line == 2 || *line == 3, "{err}");
        assert!(err.to_string().starts_with("/repo/ripple.toml:"), "{err}");
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_errors_with_lines() {
        let err = Conventions::parse(
            "\n[conventions]\noff-limits = [\"x\"]\n",
            Path::new("ripple.toml"),
        )
        .unwrap_err();
        assert!(
            matches!(err, ConventionsError::Syntax { line: 3, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("off-limits"), "{err}");

        let err = Conventions::parse(
            "[conventions]\nstable = \"api/**\"\n",
            Path::new("ripple.toml"),
        )
        .unwrap_err();
        assert!(
            matches!(err, ConventionsError::Syntax { line: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn bad_globs_and_empty_symbols_name_the_entry_and_line() {
        let err = Conventions::parse(
            "[conventions]\nstable = [\"ok/**\"]\nactive = [\n  \"src/[a\",\n]\n",
            Path::new("ripple.toml"),
        )
        .unwrap_err();
        let ConventionsError::Pattern {
            line,
            list,
            pattern,
            ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!((*line, *list, pattern.as_str()), (4, "active", "src/[a"));

        let err = Conventions::parse(
            "[conventions]\nstable = [\"symbol:\"]\n",
            Path::new("ripple.toml"),
        )
        .unwrap_err();
        assert!(
            matches!(err, ConventionsError::Pattern { line: 2, .. }),
            "{err}"
        );
        let err = Conventions::parse(
            "[conventions]\nactive = [\"!keep\"]\n",
            Path::new("ripple.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("negated"), "{err}");
    }

    #[test]
    fn load_reads_the_root_file_or_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Conventions::load(dir.path()).unwrap().source().is_none());
        std::fs::write(
            dir.path().join(CONVENTIONS_FILE),
            "[conventions]\nactive = [\"a/**\"]\n",
        )
        .unwrap();
        let c = Conventions::load(dir.path()).unwrap();
        assert_eq!(c.class_of_path("a/b.py"), Some(Class::Active));
        std::fs::write(dir.path().join(CONVENTIONS_FILE), "[conventions\n").unwrap();
        assert!(matches!(
            Conventions::load(dir.path()),
            Err(ConventionsError::Syntax { line: 1, .. })
        ));
    }

    #[test]
    fn codeowners_last_matching_pattern_wins() {
        let co = Codeowners::parse(
            "# owners\n\
             *                @org/everyone\n\
             *.go             @org/gophers   # inline comment\n\
             /docs/           @org/writers\n\
             apps/            @org/apps\n\
             /build/logs/     \n\
             src/api/**/*.py  @org/api @alice\n\
             \\#odd           @org/odd\n",
            None,
        );
        assert_eq!(co.owners_of("README.md"), ["@org/everyone"]);
        assert_eq!(co.owners_of("cmd/main.go"), ["@org/gophers"]);
        assert_eq!(co.owners_of("docs/guide.md"), ["@org/writers"]);
        assert_eq!(
            co.owners_of("x/docs/guide.md"),
            ["@org/everyone"],
            "/docs/ is anchored"
        );
        assert_eq!(
            co.owners_of("deep/apps/web/x.ts"),
            ["@org/apps"],
            "apps/ matches at any depth"
        );
        assert!(
            co.owners_of("build/logs/today.log").is_empty(),
            "no owners = unowned"
        );
        assert_eq!(co.owners_of("src/api/v1/users.py"), ["@org/api", "@alice"]);
        assert_eq!(co.owners_of("#odd"), ["@org/odd"]);
        let all = co.owners_of_all(["cmd/main.go", "src/api/a.py"]);
        assert_eq!(
            all.into_iter().collect::<Vec<_>>(),
            ["@alice", "@org/api", "@org/gophers"]
        );
    }

    #[test]
    fn codeowners_skips_bad_lines_and_is_found_where_github_looks() {
        let co = Codeowners::parse("src/[x @a\nsrc/ @b\n", None);
        assert_eq!(co.skipped().len(), 1);
        assert_eq!(co.skipped()[0].line, 1);
        assert_eq!(co.owners_of("src/a.py"), ["@b"]);

        let dir = tempfile::tempdir().unwrap();
        assert!(Codeowners::load(dir.path()).unwrap().source().is_none());
        std::fs::create_dir_all(dir.path().join(".github")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/CODEOWNERS"), "* @docs\n").unwrap();
        assert_eq!(
            Codeowners::load(dir.path()).unwrap().owners_of("a"),
            ["@docs"]
        );
        std::fs::write(dir.path().join("CODEOWNERS"), "* @root\n").unwrap();
        assert_eq!(
            Codeowners::load(dir.path()).unwrap().owners_of("a"),
            ["@root"]
        );
        std::fs::write(dir.path().join(".github/CODEOWNERS"), "* @gh\n").unwrap();
        assert_eq!(
            Codeowners::load(dir.path()).unwrap().owners_of("a"),
            ["@gh"]
        );
    }
}
