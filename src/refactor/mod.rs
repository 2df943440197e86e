//! Refactorings along the call graph, without a model: a plan of hunks,
//! each with the confidence of the edge that asked for it, and a write
//! through the same journal `ripple undo` reverts.
//!
//! * [`rename`] — renaming a function or method: its definition, the call
//!   sites the graph resolves to it, imports, `__all__` and `mock.patch`
//!   strings (Python), overrides along the class hierarchy (Python);
//! * [`signature`] — adding, removing and reordering parameters: the
//!   definition, its overrides (Python) and the arguments at call sites;
//! * [`relocate`] — moving a Python function or class to another module
//!   (`ripple refactor move`): its text, the imports its body needs, and
//!   every import and `module.f` use pointed at the new module;
//! * [`overrides`] — the methods a Python method's rename carries along;
//! * [`names`] — whether the new name is an identifier, and Go exportedness;
//! * `syntax`, `python`, `go` — what a rename reads from a file's tree;
//! * `workspace` — the files a plan reads, the call sites reaching its
//!   target, and what it leaves to check by hand;
//! * `write` — a plan's replacements written as line hunks through the
//!   journal.
//!
//! Confidence decides what is selected: hunks at `certain` call sites are,
//! `likely` and `possible` ones are listed unselected unless asked for, and
//! call sites ripple could not resolve but that are named like the target
//! are listed to check by hand. Nothing is guessed into the files.

mod go;
pub(crate) mod go_impls;
pub mod names;
pub mod overrides;
mod python;
pub mod relocate;
pub mod rename;
pub mod signature;
pub(crate) mod syntax;
mod workspace;
mod write;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::conventions::{Class, Conventions};
use crate::edits::{ApplyReport, EditError, HunkId};
use crate::model::{Confidence, Lang};
use crate::resolve::DeclId;

pub use rename::plan_rename;

/// Why a refactoring cannot be planned or written.
#[derive(Debug, thiserror::Error)]
pub enum RefactorError {
    #[error(
        "{name} is outside the repository (an external callee): ripple refactors only declarations it indexed"
    )]
    External { name: String },
    #[error("{name} is a {kind}: ripple refactors functions and methods")]
    NotRefactorable { name: String, kind: &'static str },
    #[error("{reason}; choose another name")]
    InvalidName { reason: String },
    #[error("{name} is already called `{name_new}`: nothing to rename", name_new = new_name)]
    SameName { name: String, new_name: String },
    #[error(
        "{name} implements {interfaces}: {change} alone would stop its type implementing {them} and break the build, and ripple does not change an interface method together with its implementations — change them together by hand (or rename with `gopls rename`)"
    )]
    ImplementsInterface {
        name: String,
        /// `pkg.Iface.Method (path:line)`, comma-separated.
        interfaces: String,
        /// "renaming it", "changing its parameters".
        change: &'static str,
        them: &'static str,
    },
    #[error("{name} is off-limits in ripple.toml: ripple never edits it")]
    OffLimits { name: String },
    #[error(
        "`{new_name}` already exists in {scope} ({location}): the renamed {name} would clash with it — rename or remove that one first, or choose another name"
    )]
    Exists {
        name: String,
        new_name: String,
        scope: String,
        location: String,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "{path} changed since the refactoring was planned; nothing was written — run the command again"
    )]
    Stale { path: String },
    #[error(
        "the refactoring would leave syntax errors in {}; nothing was written",
        .files.iter().map(|(p, before, after)| format!("{p} ({before} before, {after} after)")).collect::<Vec<_>>().join(", ")
    )]
    BreaksSyntax { files: Vec<(String, u32, u32)> },
    #[error(
        "two selected hunks change the same text at {path}:{line}; nothing was written — leave one of them unselected"
    )]
    Overlap { path: String, line: u32 },
    #[error("{reason}")]
    Signature { reason: String },
    #[error(
        "{module} already binds `{name}` ({location}): the moved {qualified} would clash with it — rename or remove that one first, or move it elsewhere"
    )]
    AlreadyBound {
        qualified: String,
        name: String,
        module: String,
        location: String,
    },
    /// `name` is the declaration that cannot be moved.
    #[error("{reason}")]
    Move { name: String, reason: String },
    #[error(
        "the body of {name} still uses `{param}` ({places}): remove those uses first, or pass --force to remove the parameter anyway"
    )]
    ParamInUse {
        name: String,
        param: String,
        places: String,
    },
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// What one hunk of a rename changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    /// The target's own `def` / `func`.
    Definition,
    /// A method the target overrides or that overrides it.
    Override,
    /// The callee's name at a call site the graph resolves to the target.
    Call,
    /// `from m import f [as g]`: the imported name (an alias stays).
    Import,
    /// A string of `__all__`.
    AllEntry,
    /// `mock.patch("pkg.mod.f")`: the string's last component;
    /// `patch.object(Owner, "f")`: the string.
    PatchString,
    /// A moved definition taken out of its module.
    MovedOut,
    /// A moved definition written into its new module.
    MovedIn,
    /// `module.f` that is not a call: the module it is read from.
    Reference,
    /// The name in the definition's documentation (the comments above it,
    /// a docstring).
    DocMention,
}

impl EditKind {
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Definition => "definition",
            EditKind::Override => "override",
            EditKind::Call => "call",
            EditKind::Import => "import",
            EditKind::AllEntry => "__all__",
            EditKind::PatchString => "patch string",
            EditKind::MovedOut => "moved out",
            EditKind::MovedIn => "moved in",
            EditKind::Reference => "reference",
            EditKind::DocMention => "doc mention",
        }
    }
}

/// One identifier replaced: a line before and after, with what asked for
/// it. Hunks on the same line are written together.
#[derive(Debug, Clone, Serialize)]
pub struct RenameHunk {
    /// Names the file, place and new text, so a stale selection can never
    /// write another hunk.
    pub id: HunkId,
    pub file: String,
    /// 1-based line and byte column of the identifier.
    pub line: u32,
    pub column: u32,
    pub kind: EditKind,
    pub confidence: Confidence,
    /// Written by `--apply`.
    pub selected: bool,
    /// The whole line before and after this hunk alone.
    pub old_text: String,
    pub new_text: String,
    /// What asked for it: the caller, the import, the override.
    pub why: String,
    /// Touches a stable path or symbol: selected only with `--allow-stable`.
    pub stable: bool,
    /// Never written (off-limits or secret), and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The identifier's bytes in the file.
    #[serde(skip)]
    pub(crate) bytes: std::ops::Range<usize>,
}

/// A place the rename may have to change that ripple cannot decide.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CheckByHand {
    pub file: String,
    pub line: u32,
    /// The line as it is (trimmed).
    pub text: String,
    pub reason: String,
}

/// Which confidence levels to select beyond `certain`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    pub likely: bool,
    pub possible: bool,
    /// Select hunks in stable code (ripple.toml `stable`).
    pub allow_stable: bool,
}

impl Selection {
    pub fn includes(&self, c: Confidence) -> bool {
        match c {
            Confidence::Certain => true,
            Confidence::Likely => self.likely,
            Confidence::Possible => self.possible,
        }
    }
}

/// Callers by confidence, distinct declarations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CallerCounts {
    pub total: usize,
    pub certain: usize,
    pub likely: usize,
    pub possible: usize,
}

/// A declaration's qualified name before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenamedDecl {
    pub old: String,
    pub new: String,
}

/// A planned rename: nothing is written until [`apply`].
#[derive(Debug, Clone, Serialize)]
pub struct RenamePlan {
    #[serde(skip)]
    pub target: DeclId,
    pub lang: Lang,
    pub old_name: String,
    pub new_name: String,
    /// The target's qualified name once renamed.
    pub new_qualified_name: String,
    /// Every declaration renamed: the target first, then the methods
    /// renamed with it.
    pub declarations: Vec<RenamedDecl>,
    pub hunks: Vec<RenameHunk>,
    pub check_by_hand: Vec<CheckByHand>,
    pub warnings: Vec<String>,
    /// Direct callers of the target (and the methods renamed with it).
    pub callers: CallerCounts,
    /// Each touched file's content hash when planned.
    #[serde(skip)]
    pub(crate) bases: BTreeMap<String, u64>,
}

impl RenamePlan {
    pub fn selected(&self) -> impl Iterator<Item = &RenameHunk> {
        self.hunks.iter().filter(|h| h.selected)
    }
}

/// What writing a plan did.
#[derive(Debug)]
pub struct AppliedRename {
    pub report: ApplyReport,
    /// Hunks written (several on one line count apart).
    pub hunks: usize,
}

/// Write the plan's selected hunks, journaled so that `ripple undo`
/// restores the files. Every file is checked first: still what the plan
/// read, and no more syntax errors after than before; otherwise nothing
/// is written.
pub fn apply(root: &Path, plan: &RenamePlan) -> Result<AppliedRename, RefactorError> {
    let replacements = plan
        .selected()
        .map(|h| write::Replacement {
            file: &h.file,
            bytes: h.bytes.clone(),
            text: &plan.new_name,
            stable: h.stable,
        })
        .collect();
    let (report, hunks) = write::write(root, &plan.bases, replacements, &[])?;
    Ok(AppliedRename { report, hunks })
}

/// What a hunk's confidence, file and symbol decide about it.
pub(crate) struct Verdict {
    pub(crate) selected: bool,
    pub(crate) stable: bool,
    pub(crate) refused: Option<String>,
}

impl Verdict {
    pub(crate) fn of(
        conventions: &Conventions,
        path: &str,
        confidence: Confidence,
        stable_symbol: bool,
        selection: Selection,
    ) -> Verdict {
        let refused = if conventions.is_secret(path) {
            Some("a secret file: never edited".to_owned())
        } else if conventions.class_of_path(path) == Some(Class::OffLimits) {
            Some("off-limits in ripple.toml: never edited".to_owned())
        } else {
            None
        };
        let stable = stable_symbol || conventions.class_of_path(path) == Some(Class::Stable);
        let selected = refused.is_none()
            && selection.includes(confidence)
            && (!stable || selection.allow_stable);
        Verdict {
            selected,
            stable,
            refused,
        }
    }
}

/// Where each line of a file starts, to turn byte ranges into lines and
/// columns the way the edit pipeline splits them (a UTF-8 byte-order mark
/// is not part of the first line, `\r\n` ends a line like `\n`).
pub(crate) struct LineIndex<'a> {
    bytes: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> LineIndex<'a> {
        let first = if bytes.starts_with("\u{feff}".as_bytes()) {
            3
        } else {
            0
        };
        let mut starts = vec![first];
        starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { bytes, starts }
    }

    /// The 1-based line holding byte `at`.
    pub(crate) fn line_of(&self, at: usize) -> u32 {
        self.starts.partition_point(|&s| s <= at).max(1) as u32
    }

    /// A line's text without its ending, as a byte range.
    pub(crate) fn text_range(&self, line: u32) -> (usize, usize) {
        let i = (line as usize).saturating_sub(1).min(self.starts.len() - 1);
        let start = self.starts[i];
        let mut end = self
            .starts
            .get(i + 1)
            .map_or(self.bytes.len(), |next| next - 1);
        if end > start && self.bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end.max(start))
    }

    pub(crate) fn text(&self, line: u32) -> &'a str {
        let (start, end) = self.text_range(line);
        std::str::from_utf8(&self.bytes[start..end]).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_as_the_edit_pipeline_splits_them() {
        let bytes = "\u{feff}a = 1\r\nb = f()\nlast".as_bytes();
        let lines = LineIndex::new(bytes);
        assert_eq!(lines.text(1), "a = 1");
        assert_eq!(lines.text(2), "b = f()");
        assert_eq!(lines.text(3), "last");
        let f = bytes.iter().position(|b| *b == b'f').unwrap();
        assert_eq!(lines.line_of(f), 2);
        assert_eq!(lines.line_of(3), 1);
    }

    fn planned(source: &str, new_name: &str) -> (tempfile::TempDir, RenamePlan) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.py"), source).unwrap();
        let index = crate::index::Index::open(dir.path(), &crate::index::NoProgress).unwrap();
        let target = crate::lookup::resolve(&index.res, "m.f").unwrap();
        let plan = plan_rename(
            &index,
            &crate::conventions::Conventions::default(),
            target,
            new_name,
            Selection::default(),
        )
        .unwrap();
        (dir, plan)
    }

    #[test]
    fn a_write_that_would_break_the_syntax_is_refused_whole() {
        let source = "def f():\n    return 1\n\n\nx = f() + f()\n";
        let (dir, mut plan) = planned(source, "g");
        assert_eq!(plan.selected().count(), 3);
        // Only a name that is no identifier can break a file: force one.
        plan.new_name = "g(".to_owned();
        let err = apply(dir.path(), &plan).unwrap_err();
        assert!(matches!(err, RefactorError::BreaksSyntax { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("m.py")).unwrap(),
            source
        );
    }

    #[test]
    fn two_renames_on_one_line_are_one_hunk_and_a_changed_file_is_stale() {
        let source = "def f():\n    return 1\n\n\nx = f() + f()\n";
        let (dir, plan) = planned(source, "g");
        let applied = apply(dir.path(), &plan).unwrap();
        assert_eq!(applied.hunks, 3);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("m.py")).unwrap(),
            "def g():\n    return 1\n\n\nx = g() + g()\n"
        );
        let err = apply(dir.path(), &plan).unwrap_err();
        assert!(matches!(err, RefactorError::Stale { .. }), "{err}");
    }
}
