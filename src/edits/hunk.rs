//! Hunks: edit blocks resolved against the files they change. Planning never
//! writes anything; it decides, for each block, whether it is refused (outside
//! the repository, off-limits, a secret), a conflict (SEARCH not found, found
//! several times, overlapping an earlier block) or resolved to a line range —
//! and whether it touches a stable interface that needs a second confirmation.
//!
//! Given the files of the change (the context pack the model was shown), the
//! planner also says whether a hunk stays inside them ([`Scope`]): a reply
//! may try to edit any file, and anything beyond the change is refused in
//! headless runs unless allowed, and only ever accepted one by one in review.
//!
//! Every block of a reply is resolved against the same content of its file
//! (the snapshot the prompt was built from, or the file as first read), never
//! against the output of an earlier block: the model saw one version of each
//! file, so that is the version its SEARCH lines quote.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::conventions::{Class, Conventions};
use crate::edits::file_text::{FileText, body_lines};
use crate::edits::matching::{MatchRule, Outcome, locate};
use crate::edits::parse::EditBlock;
use crate::edits::paths::{canonical_root, check_path};
use crate::model::{DeclKind, Lang, content_hash};

/// A hunk's identity: a hash of its path, SEARCH and REPLACE text, so a stale
/// screen can never accept or apply a different hunk than the one shown.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct HunkId(String);

impl HunkId {
    pub fn of(path: &str, search: &str, replace: &str) -> HunkId {
        // Length prefixes keep ("a", "bc") and ("ab", "c") apart.
        let mut bytes = Vec::with_capacity(path.len() + search.len() + replace.len() + 24);
        for part in [path, search, replace] {
            bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
            bytes.extend_from_slice(part.as_bytes());
        }
        HunkId(format!("{:016x}", content_hash(&bytes)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for HunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The reviewer's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum HunkState {
    #[default]
    Pending,
    Accepted,
    Rejected,
    Skipped,
}

/// Where a hunk's file stands relative to the change the model was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// A file of the context pack (or no pack was given to compare with).
    #[default]
    Change,
    /// An existing file of the repository that the model was not shown.
    Outside,
    /// A file that does not exist yet.
    NewFile,
}

impl Scope {
    /// The mark shown next to a hunk that needs an explicit decision.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Scope::Change => None,
            Scope::Outside => Some("outside the change"),
            Scope::NewFile => Some("new file"),
        }
    }
}

/// What the planner does with a hunk whose scope is not [`Scope::Change`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutsidePolicy {
    /// Refuse it unless its kind is allowed: nobody looks at each hunk
    /// before it is written (`ripple migrate --apply`, `--patch`).
    Refuse {
        allow_outside: bool,
        allow_new_files: bool,
    },
    /// Keep it, marked, for a reviewer to accept on its own (the explorer).
    Review,
}

/// What the file was when the hunk was planned; applying checks it still is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FileBase {
    Missing,
    Content { hash: u64 },
}

impl FileBase {
    pub fn of(content: Option<&[u8]>) -> FileBase {
        match content {
            None => FileBase::Missing,
            Some(bytes) => FileBase::Content {
                hash: content_hash(bytes),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Resolution {
    /// Lines `start_line..=end_line` (1-based; `end_line = start_line - 1`
    /// for a new file) are replaced by `replacement`.
    Resolved {
        start_line: usize,
        end_line: usize,
        rule: MatchRule,
        /// Touches a stable path or symbol: needs a second confirmation.
        stable: bool,
        /// The file's lines in the range, LF-ended (the "-" side of the diff).
        original: String,
        /// The lines that replace them, LF-ended, re-indented if the rule did.
        replacement: String,
        /// Declarations the range overlaps (best-effort qualified names).
        symbols: Vec<String>,
    },
    /// Could not be placed; shown with the closest lines, never guessed.
    Conflict {
        reason: String,
        /// 1-based first line and the file's lines there.
        nearest: Option<(usize, Vec<String>)>,
        already_applied: bool,
    },
    /// Not allowed at all (outside the repository, off-limits, secret).
    Refused { reason: String },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hunk {
    pub id: HunkId,
    /// Position of the block in the model's reply.
    pub block_index: usize,
    /// Repository-relative path (normalised when it passed the path checks).
    pub path: String,
    pub search: String,
    pub replace: String,
    pub state: HunkState,
    pub resolution: Resolution,
    pub base: FileBase,
    pub scope: Scope,
}

impl Hunk {
    pub fn is_resolved(&self) -> bool {
        matches!(self.resolution, Resolution::Resolved { .. })
    }

    pub fn is_stable(&self) -> bool {
        matches!(self.resolution, Resolution::Resolved { stable: true, .. })
    }

    /// Outside the files of the change or a new file: never accepted in
    /// bulk, only by a decision on the hunk itself.
    pub fn needs_own_decision(&self) -> bool {
        self.is_stable() || self.scope != Scope::Change
    }

    /// The 1-based line range, when resolved.
    pub fn lines(&self) -> Option<(usize, usize)> {
        match self.resolution {
            Resolution::Resolved {
                start_line,
                end_line,
                ..
            } => Some((start_line, end_line)),
            _ => None,
        }
    }

    /// `path:12-15` for a placed hunk, `path` otherwise: where it is,
    /// for a line that says its status apart.
    pub fn location(&self) -> String {
        match self.lines() {
            Some((start, end)) if start == end => format!("{}:{start}", self.path),
            Some((start, end)) => format!("{}:{start}-{end}", self.path),
            None => self.path.clone(),
        }
    }

    /// `path:12-15 (exact)`, `path (conflict: …)` — the hunk header line.
    pub fn header(&self) -> String {
        match &self.resolution {
            Resolution::Resolved {
                start_line,
                end_line,
                rule,
                stable,
                ..
            } => {
                let stable = if *stable { ", stable" } else { "" };
                if *rule == MatchRule::NewFile {
                    return format!("{} (new file{stable})", self.path);
                }
                let range = if start_line == end_line {
                    format!("{start_line}")
                } else {
                    format!("{start_line}-{end_line}")
                };
                format!("{}:{range} ({}{stable})", self.path, rule.name())
            }
            Resolution::Conflict { reason, .. } => format!("{} (conflict: {reason})", self.path),
            Resolution::Refused { reason } => format!("{} (refused: {reason})", self.path),
        }
    }
}

/// File contents the hunks are resolved against, by repository-relative
/// path; `None` records a file that did not exist. Files not in the snapshot
/// are read from disk the first time a block names them.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    files: HashMap<String, Option<Arc<[u8]>>>,
}

impl Snapshot {
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// Record `path`'s content (`None`: it does not exist).
    pub fn insert(&mut self, path: impl Into<String>, content: Option<Vec<u8>>) {
        self.files.insert(path.into(), content.map(Arc::from));
    }

    pub fn get(&self, path: &str) -> Option<Option<&[u8]>> {
        self.files.get(path).map(|c| c.as_deref())
    }

    /// Read `paths` from disk now (for the prompt), missing files as `None`.
    pub fn capture<'a>(
        root: &Path,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> std::io::Result<Snapshot> {
        let mut s = Snapshot::new();
        for p in paths {
            s.insert(p, read_optional(&root.join(p))?);
        }
        Ok(s)
    }
}

pub(crate) fn read_optional(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Plans hunks one block at a time, so a streaming reply can show each hunk
/// as its block completes; overlaps are checked against earlier blocks.
pub struct Planner<'c> {
    root: PathBuf,
    canon_root: Result<PathBuf, String>,
    snapshot: Snapshot,
    conventions: &'c Conventions,
    /// Resolved ranges per file: (start, end, block index).
    taken: HashMap<String, Vec<(usize, usize, usize)>>,
    decls: HashMap<String, Arc<Vec<DeclRange>>>,
    /// The files of the change and what to do with hunks beyond them;
    /// `None`: every file counts as part of the change.
    pack: Option<(HashSet<String>, OutsidePolicy)>,
}

/// A declaration's lines and best-effort qualified name.
type DeclRange = (usize, usize, String);

/// Plan every block of a reply (see [`Planner`]).
pub fn plan(
    root: &Path,
    snapshot: &Snapshot,
    blocks: &[EditBlock],
    conventions: &Conventions,
) -> Vec<Hunk> {
    let mut planner = Planner::new(root, snapshot.clone(), conventions);
    blocks.iter().map(|b| planner.plan_block(b)).collect()
}

impl<'c> Planner<'c> {
    pub fn new(root: &Path, snapshot: Snapshot, conventions: &'c Conventions) -> Planner<'c> {
        Planner {
            root: root.to_path_buf(),
            canon_root: canonical_root(root),
            snapshot,
            conventions,
            taken: HashMap::new(),
            decls: HashMap::new(),
            pack: None,
        }
    }

    /// Judge every hunk against `files` (repository-relative paths, as the
    /// index names them): the files the model was shown.
    pub fn with_pack(
        mut self,
        files: impl IntoIterator<Item = String>,
        policy: OutsidePolicy,
    ) -> Planner<'c> {
        self.pack = Some((files.into_iter().collect(), policy));
        self
    }

    pub fn plan_block(&mut self, block: &EditBlock) -> Hunk {
        let mut hunk = Hunk {
            id: HunkId::of(&block.path, &block.search, &block.replace),
            block_index: block.index,
            path: block.path.clone(),
            search: block.search.clone(),
            replace: block.replace.clone(),
            state: HunkState::Pending,
            resolution: Resolution::Refused {
                reason: String::new(),
            },
            base: FileBase::Missing,
            scope: Scope::Change,
        };
        let (resolution, base) = self.resolve(block, &mut hunk.path, &mut hunk.scope);
        hunk.resolution = resolution;
        hunk.base = base;
        // The id names the normalised path, so `./a.py` and `a.py` agree.
        hunk.id = HunkId::of(&hunk.path, &hunk.search, &hunk.replace);
        hunk
    }

    fn resolve(
        &mut self,
        block: &EditBlock,
        path: &mut String,
        scope: &mut Scope,
    ) -> (Resolution, FileBase) {
        let refused = |reason: String| (Resolution::Refused { reason }, FileBase::Missing);
        let canon_root = match &self.canon_root {
            Ok(r) => r.clone(),
            Err(e) => return refused(e.clone()),
        };
        let rel = match check_path(&canon_root, &block.path) {
            Ok(rel) => rel,
            Err(reason) => return refused(reason),
        };
        *path = rel.clone();
        if self.conventions.is_secret(&rel) {
            return refused(
                "a secret file (ripple.toml `secrets` or the built-in list): never edited"
                    .to_owned(),
            );
        }
        if self.conventions.class_of_path(&rel) == Some(Class::OffLimits) {
            return refused("off-limits in ripple.toml: never edited".to_owned());
        }
        let content = match self.content(&rel) {
            Ok(c) => c,
            Err(reason) => return conflict(reason, FileBase::Missing),
        };
        let base = FileBase::of(content.as_deref());
        if let Some((files, policy)) = &self.pack {
            *scope = match &content {
                None => Scope::NewFile,
                Some(_) if files.contains(&rel) => Scope::Change,
                Some(_) => Scope::Outside,
            };
            if let OutsidePolicy::Refuse {
                allow_outside,
                allow_new_files,
            } = *policy
            {
                match *scope {
                    Scope::Outside if !allow_outside => {
                        return (
                            Resolution::Refused {
                                reason: format!(
                                    "`{rel}` is outside the change (the model was not shown it); \
                                     --allow-outside applies edits to other files of the repository"
                                ),
                            },
                            base,
                        );
                    }
                    Scope::NewFile if !allow_new_files => {
                        return (
                            Resolution::Refused {
                                reason: format!(
                                    "`{rel}` does not exist and would be created; \
                                     --allow-new-files allows new files"
                                ),
                            },
                            base,
                        );
                    }
                    _ => {}
                }
            }
        }
        let search = body_lines(&block.search);
        let replace = body_lines(&block.replace);
        let Some(content) = content else {
            if !search.is_empty() {
                return conflict(
                    format!(
                        "`{rel}` does not exist; to create it, send a block with an empty SEARCH"
                    ),
                    base,
                );
            }
            if let Some(&(_, _, other)) = self.taken.get(&rel).and_then(|t| t.first()) {
                return conflict(format!("block {} already creates `{rel}`", other + 1), base);
            }
            self.taken
                .entry(rel.clone())
                .or_default()
                .push((1, 0, block.index));
            let stable = self.conventions.class_of_path(&rel) == Some(Class::Stable);
            return (
                Resolution::Resolved {
                    start_line: 1,
                    end_line: 0,
                    rule: MatchRule::NewFile,
                    stable,
                    original: String::new(),
                    replacement: block.replace.clone(),
                    symbols: Vec::new(),
                },
                base,
            );
        };
        if search.is_empty() {
            return conflict(
                format!(
                    "SEARCH is empty but `{rel}` exists; an empty SEARCH only creates new files — \
                     SEARCH for the lines to change instead"
                ),
                base,
            );
        }
        let Some(text) = FileText::parse(&content) else {
            return (
                Resolution::Refused {
                    reason: format!("`{rel}` is not UTF-8 text"),
                },
                base,
            );
        };
        let file_lines = text.texts();
        let found = match locate(&file_lines, &search, &replace) {
            Outcome::Unique(found) => found,
            Outcome::Ambiguous { rule, starts } => {
                let lines: Vec<String> = starts.iter().map(|s| (s + 1).to_string()).collect();
                return conflict(
                    format!(
                        "SEARCH matches {} places in `{rel}` (lines {}, {}); add surrounding lines so it matches once",
                        starts.len(),
                        lines.join(", "),
                        rule.name()
                    ),
                    base,
                );
            }
            Outcome::NotFound {
                nearest,
                already_applied,
            } => {
                let hint = if already_applied {
                    "; its REPLACE text is already there — was it applied before?"
                } else if nearest.is_some() {
                    "; the closest lines are shown — resend the block with the file's exact lines"
                } else {
                    "; resend the block with lines copied exactly from the file"
                };
                return (
                    Resolution::Conflict {
                        reason: format!("SEARCH not found in `{rel}`{hint}"),
                        nearest: nearest.map(|(start, lines)| (start + 1, lines)),
                        already_applied,
                    },
                    base,
                );
            }
            Outcome::Unusable(reason) => return conflict(reason, base),
        };
        let (start_line, end_line) = (found.start + 1, found.start + found.len);
        let taken = self.taken.entry(rel.clone()).or_default();
        if let Some(&(s, e, other)) = taken
            .iter()
            .find(|(s, e, _)| *s <= end_line && start_line <= *e)
        {
            return conflict(
                format!(
                    "lines {start_line}-{end_line} overlap block {} (lines {s}-{e}); merge the two blocks into one",
                    other + 1
                ),
                base,
            );
        }
        taken.push((start_line, end_line, block.index));
        let symbols: Vec<String> = self
            .decls_of(&rel, &content)
            .iter()
            .filter(|(s, e, _)| *s <= end_line && start_line <= *e)
            .map(|(_, _, q)| q.clone())
            .collect();
        let classes: Vec<Option<Class>> = std::iter::once(self.conventions.class_of_path(&rel))
            .chain(
                symbols
                    .iter()
                    .map(|q| self.conventions.class_of_symbol(q, &rel)),
            )
            .collect();
        if let Some(q) = symbols
            .iter()
            .zip(&classes[1..])
            .find(|(_, c)| **c == Some(Class::OffLimits))
            .map(|(q, _)| q)
        {
            // Release the range: a refused hunk must not block others.
            if let Some(t) = self.taken.get_mut(&rel) {
                t.retain(|&(_, _, b)| b != block.index);
            }
            return (
                Resolution::Refused {
                    reason: format!("changes `{q}`, off-limits in ripple.toml: never edited"),
                },
                base,
            );
        }
        let stable = classes.contains(&Some(Class::Stable));
        let original: String = file_lines[found.start..found.start + found.len]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        let replacement: String = found.replacement.iter().map(|l| format!("{l}\n")).collect();
        (
            Resolution::Resolved {
                start_line,
                end_line,
                rule: found.rule,
                stable,
                original,
                replacement,
                symbols,
            },
            base,
        )
    }

    /// The file's content as the hunks see it: the snapshot's, else the
    /// disk's as first read (then kept, so later blocks see the same bytes).
    fn content(&mut self, rel: &str) -> Result<Option<Arc<[u8]>>, String> {
        if let Some(c) = self.snapshot.files.get(rel) {
            return Ok(c.clone());
        }
        let content = read_optional(&self.root.join(rel))
            .map_err(|e| format!("cannot read `{rel}`: {e}"))?
            .map(Arc::from);
        self.snapshot.files.insert(rel.to_owned(), content.clone());
        Ok(content)
    }

    fn decls_of(&mut self, rel: &str, content: &[u8]) -> Arc<Vec<DeclRange>> {
        if let Some(d) = self.decls.get(rel) {
            return d.clone();
        }
        let decls = Arc::new(match Lang::from_path(rel) {
            Some(lang) => {
                let facts = crate::lang::extract(lang, rel, content);
                let prefix = symbol_prefix(lang, rel);
                facts
                    .decls
                    .iter()
                    .filter(|d| !matches!(d.kind, DeclKind::Module | DeclKind::Package))
                    .map(|d| {
                        (
                            d.span.start_line as usize,
                            d.span.end_line as usize,
                            qualify(lang, &prefix, &d.local_name),
                        )
                    })
                    .collect()
            }
            None => Vec::new(),
        });
        self.decls.insert(rel.to_owned(), decls.clone());
        decls
    }
}

fn conflict(reason: String, base: FileBase) -> (Resolution, FileBase) {
    (
        Resolution::Conflict {
            reason,
            nearest: None,
            already_applied: false,
        },
        base,
    )
}

/// A best-effort module or package name from the path alone (the resolver's
/// exact names need the whole repository). `symbol:` entries match by dotted
/// suffix, so `symbol:auth.validate` still matches `src.app.auth.validate`.
fn symbol_prefix(lang: Lang, rel: &str) -> String {
    match lang {
        Lang::Python => {
            let stem = rel.trim_end_matches(".py");
            let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
            if stem == "__init__" {
                String::new()
            } else {
                stem.replace('/', ".")
            }
        }
        Lang::Go => rel
            .rsplit_once('/')
            .map(|(d, _)| d.to_owned())
            .unwrap_or_default(),
    }
}

fn qualify(lang: Lang, prefix: &str, local: &str) -> String {
    if prefix.is_empty() {
        return local.to_owned();
    }
    match (lang, local.strip_prefix("(*"), local.strip_prefix('(')) {
        (Lang::Go, Some(rest), _) => format!("(*{prefix}.{rest}"),
        (Lang::Go, None, Some(rest)) => format!("({prefix}.{rest}"),
        _ => format!("{prefix}.{local}"),
    }
}
