//! Planning `ripple refactor move NAME DEST` (Python): a module-level
//! function or class taken out of its module, with the comment lines
//! directly above it, and appended to DEST (created when missing), and
//! every place that names it through its old module pointed at the new
//! one.
//!
//! What the plan changes:
//! - the definition (decorators, comments above, docstring) leaves its
//!   module and is appended to DEST, with the imports its body needs:
//!   what the old module imported is imported the same way (relative
//!   modules made absolute), what it defined is imported from it;
//! - `from old import f [as g]`, alone or in a group, becomes an import
//!   from DEST; `old.f` through `import old [as m]` or `from pkg import
//!   old` is read from DEST, with the import DEST needs added; a file
//!   that already imported DEST keeps that import;
//! - the old module imports `f` from DEST when it still uses it;
//! - `__all__` loses the name in the old module and gains it in DEST when
//!   DEST has one; `patch("old.f")` strings name DEST.
//!
//! Imports and strings name the old module by its qualified name: they
//! are `certain`. A `module.f(...)` call takes its edge's confidence. The
//! definition's own hunks (out of one module, into the other, the imports
//! both need) are written together or not at all.
//!
//! Refused: methods, nested definitions, a DEST that is not a `.py` file
//! of the repository or already binds the name, and a move whose body
//! needs a definition of the old module when the old module imports DEST
//! (or will, to keep using the moved name), or after which the old module
//! imports the name back while DEST imports the old module: the two
//! modules would import each other, and one of them would find the other
//! half-initialised. Only that direct cycle is seen, not one through a
//! third module.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::path::{Component, Path};

use serde::Serialize;

use super::python::{self, ImportBinding, ImportSpot};
use super::signature::{PlacedLines, place_lines};
use super::workspace::{self, Workspace};
use super::{
    CallerCounts, CheckByHand, EditKind, LineIndex, RefactorError, Selection, Verdict, names,
    overrides, rename, write,
};
use crate::conventions::{Class, Conventions};
use crate::edits::{ApplyReport, HunkId};
use crate::index::Index;
use crate::model::{Confidence, DeclKind, FileId, Lang, content_hash};
use crate::resolve::DeclId;

type Edit = (Range<usize>, String);

/// One change to one file: lines before and after, or a whole new file.
#[derive(Debug, Clone, Serialize)]
pub struct MoveHunk {
    pub id: HunkId,
    pub file: String,
    /// 1-based first and last line changed (0 for a new file).
    pub line: u32,
    pub end_line: u32,
    pub kind: EditKind,
    pub confidence: Confidence,
    /// Written by `--apply`.
    pub selected: bool,
    /// The lines before and after, `\n`-separated; a new file's whole
    /// text after.
    pub old_text: String,
    pub new_text: String,
    pub why: String,
    pub stable: bool,
    /// Creates `file`.
    pub new_file: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    #[serde(skip)]
    edits: Vec<Edit>,
    /// Part of moving the definition itself.
    #[serde(skip)]
    core: bool,
}

/// A planned move: nothing is written until [`apply`].
#[derive(Debug, Clone, Serialize)]
pub struct MovePlan {
    #[serde(skip)]
    pub target: DeclId,
    pub lang: Lang,
    /// The moved name, and what it is (`function`, `class`).
    pub name: String,
    pub kind: &'static str,
    pub from_module: String,
    pub from_file: String,
    pub to_module: String,
    pub to_file: String,
    /// DEST does not exist yet: the plan creates it.
    pub creates_file: bool,
    pub new_qualified_name: String,
    pub hunks: Vec<MoveHunk>,
    pub check_by_hand: Vec<CheckByHand>,
    pub warnings: Vec<String>,
    /// Facts about the plan that need no action.
    pub notes: Vec<String>,
    pub callers: CallerCounts,
    #[serde(skip)]
    bases: BTreeMap<String, u64>,
}

impl MovePlan {
    pub fn selected(&self) -> impl Iterator<Item = &MoveHunk> {
        self.hunks.iter().filter(|h| h.selected)
    }
}

/// What writing a plan did.
#[derive(Debug)]
pub struct AppliedMove {
    pub report: ApplyReport,
    pub hunks: usize,
}

/// A hunk before it is placed on its lines.
struct Planned {
    file: FileId,
    edits: Vec<Edit>,
    kind: EditKind,
    confidence: Confidence,
    why: String,
    /// Part of moving the definition itself: written with the others or
    /// not at all.
    core: bool,
}

/// Where the definition goes.
enum Dest {
    Existing(FileId),
    New(String),
}

/// Plan moving `target` to the module at `dest` (a path from the
/// repository root). Reads the files it may touch and writes nothing.
pub fn plan_move(
    index: &Index,
    conventions: &Conventions,
    target: DeclId,
    dest: &str,
    selection: Selection,
) -> Result<MovePlan, RefactorError> {
    let res = &index.res;
    let decl = workspace::indexed(index, conventions, target)?;
    let refuse = |reason: String| RefactorError::Move {
        name: decl.name.to_string(),
        reason,
    };
    if decl.kind == DeclKind::Method {
        return Err(refuse(
            "it is a method: moving a method is not supported (move its class, or make it a module-level function first)".to_owned(),
        ));
    }
    if !matches!(decl.kind, DeclKind::Function | DeclKind::Class) {
        return Err(refuse(format!(
            "it is a {}: only module-level functions and classes can be moved",
            decl.kind.name()
        )));
    }
    if decl.lang != Lang::Python {
        return Err(refuse(
            "ripple moves Python functions and classes only".to_owned(),
        ));
    }
    if let Some(parent) = decl.parent
        && res.decls[parent].kind != DeclKind::Module
    {
        return Err(refuse(format!(
            "it is defined inside {}: only module-level functions and classes can be moved",
            res.decls[parent].name
        )));
    }
    let Some(src_file) = decl.file else {
        return Err(refuse("ripple does not know its file".to_owned()));
    };
    let name = decl
        .name
        .rsplit('.')
        .next()
        .unwrap_or(&decl.name)
        .to_owned();
    let src_path = index.files[src_file.index()].path.clone();
    let src_mod = res.file_module[src_file.index()].clone();
    let dest_path = repo_path(&index.root, dest).map_err(|why| refuse(format!("{dest} {why}")))?;
    if !dest_path.ends_with(".py") {
        return Err(refuse(format!(
            "{dest_path} is not a Python file: DEST is the path of a .py module"
        )));
    }
    if dest_path == src_path {
        return Err(refuse(format!("it is already in {dest_path}")));
    }
    for path in [&src_path, &dest_path] {
        if conventions.is_secret(path) || conventions.class_of_path(path) == Some(Class::OffLimits)
        {
            return Err(RefactorError::OffLimits { name: path.clone() });
        }
    }
    let dest_target = match index.files.iter().position(|f| f.path == dest_path) {
        Some(i) if index.files[i].lang == Lang::Python => Dest::Existing(FileId::new(i)),
        Some(_) => return Err(refuse(format!("{dest_path} is not a Python module"))),
        None if index.root.join(&dest_path).exists() => {
            return Err(refuse(format!(
                "{dest_path} exists but ripple did not index it (ignored, generated or unreadable)"
            )));
        }
        None => Dest::New(dest_path.clone()),
    };
    let dest_mod = match &dest_target {
        Dest::Existing(f) => res.file_module[f.index()].clone(),
        Dest::New(path) => new_module_name(index, path).map_err(refuse)?,
    };

    let mut ws = Workspace::new(index);
    let mut m = Mover {
        index,
        name: name.clone(),
        src_mod: src_mod.clone(),
        dest_mod: dest_mod.clone(),
        planned: Vec::new(),
        notes: Vec::new(),
        warnings: Vec::new(),
    };

    // The definition and what its body reads from its module.
    let src = ws
        .parsed(src_file)?
        .ok_or_else(|| refuse(format!("{src_path} does not parse")))?;
    let def = python::top_definition_at(src, decl.span.start_byte as usize)
        .filter(|d| d.name == name && d.is_class == (decl.kind == DeclKind::Class))
        .ok_or_else(|| {
            refuse(format!(
                "{src_path} does not define it with a top-level `def` or `class` ripple can move (a conditional or generated definition)"
            ))
        })?;
    let src_lines = LineIndex::new(&src.source);
    let block_start = src_lines
        .text_range(src_lines.line_of(def.comments_start))
        .0;
    let block = block_start..def.statement.end;
    let moved_text = String::from_utf8_lossy(&src.source[block.clone()]).replace("\r\n", "\n");
    let removal = removal_range(&src.source, block.clone());
    let src_is_package = src_path.ends_with("__init__.py");
    let used = python::names_used(src, block.clone());
    let src_imports: Vec<ImportBinding> = python::import_bindings(src)
        .into_iter()
        .filter(|b| b.top_level)
        .collect();
    let src_defs = python::top_level_definitions(src);
    let mut needed: Vec<(String, String)> = Vec::new();
    let mut helpers: Vec<String> = Vec::new();
    for n in used.iter().filter(|n| **n != name) {
        if let Some(b) = src_imports.iter().find(|b| b.bound == *n) {
            // What the old module imports from DEST is DEST's own.
            if b.from.as_deref().is_some_and(|f| {
                overrides::absolute_module(f, &src_mod, src_is_package) == dest_mod
            }) {
                continue;
            }
            needed.push((n.clone(), import_line(b, &src_mod, src_is_package)));
        } else if src_defs.iter().any(|(d, r)| d == n && *r != def.statement) {
            helpers.push(n.clone());
            needed.push((n.clone(), format!("from {src_mod} import {n}")));
        }
    }
    let uses_left: Vec<usize> = python::name_reads(src, &name)
        .into_iter()
        .filter(|r| !block.contains(&r.start))
        .map(|r| r.start)
        .collect();
    let src_imports_dest = src_imports
        .iter()
        .find(|b| imports_module(b, &src_mod, src_is_package, &dest_mod));
    if !helpers.is_empty() {
        let why = match (src_imports_dest, uses_left.first()) {
            (Some(b), _) => Some(format!(
                "{src_mod} imports {dest_mod} (line {})",
                src_lines.line_of(b.statement.start)
            )),
            (None, Some(&at)) => Some(format!(
                "{src_mod} still uses {name} (line {}) and would import it from {dest_mod}",
                src_lines.line_of(at)
            )),
            (None, None) => None,
        };
        if let Some(why) = why {
            return Err(refuse(format!(
                "its body uses {} from {src_mod}, so {dest_mod} would import {src_mod}; {why}: the two modules would import each other. Move {} as well, or move what they share to a third module first",
                quoted(&helpers),
                helpers.join(", ")
            )));
        }
    }
    let in_all = python::all_list(src).and_then(|list| {
        let i = list
            .items
            .iter()
            .position(|(_, text)| text.as_deref() == Some(name.as_str()))?;
        let ranges: Vec<Range<usize>> = list.items.iter().map(|(r, _)| r.clone()).collect();
        Some(python::item_removal(&ranges, i))
    });
    let src_spot = python::import_spot(src, std::slice::from_ref(&removal));
    let imports_back = uses_left.first().map(|&at| src_lines.line_of(at));

    // The old module: the definition out, `f` imported back if it is
    // still used, the `__all__` entry out.
    let mut out_edits = vec![(removal.clone(), String::new())];
    let mut import_back = None;
    if let Some(&at) = uses_left.first() {
        let line = format!("from {dest_mod} import {name}");
        let edit = spot_edit(&src_spot, &line);
        let why = format!(
            "{src_mod} still uses {name} (line {})",
            src_lines.line_of(at)
        );
        if removal.start <= edit.0.start && edit.0.start <= removal.end {
            out_edits[0].1 = edit.1;
            m.notes.push(why);
        } else {
            import_back = Some((edit, why));
        }
    }
    m.push(Planned {
        file: src_file,
        edits: out_edits,
        kind: EditKind::MovedOut,
        confidence: Confidence::Certain,
        why: format!("{name} moves to {dest_mod}"),
        core: true,
    });
    if let Some((edit, why)) = import_back {
        m.push(Planned {
            file: src_file,
            edits: vec![edit],
            kind: EditKind::Import,
            confidence: Confidence::Certain,
            why,
            core: true,
        });
    }
    if let Some(r) = in_all.clone() {
        m.push(Planned {
            file: src_file,
            edits: vec![(r, String::new())],
            kind: EditKind::AllEntry,
            confidence: Confidence::Certain,
            why: format!("{name} is no longer defined in {src_mod}"),
            core: true,
        });
    }

    // DEST: what it must not bind already, the imports, the definition.
    let mut new_file: Option<String> = None;
    match &dest_target {
        Dest::Existing(dest_file) => {
            m.append_to_existing(
                &mut ws,
                *dest_file,
                &moved_text,
                &needed,
                in_all.is_some(),
                imports_back,
            )?;
        }
        Dest::New(_) => {
            let mut text = String::new();
            let lines: Vec<&str> = needed.iter().map(|(_, l)| l.as_str()).collect();
            let lines = dedup(&lines);
            if !lines.is_empty() {
                text.push_str(&lines.join("\n"));
                text.push_str("\n\n\n");
            }
            text.push_str(moved_text.trim_end());
            text.push('\n');
            new_file = Some(text);
        }
    }

    // Everyone else who names it through the old module.
    let scanned = ws.files_mentioning(Lang::Python, &name)?;
    let members: HashSet<DeclId> = HashSet::from([target]);
    let sites = ws.sites_reaching(&members)?;
    let mut at_site: HashMap<(FileId, usize), (Confidence, DeclId)> = HashMap::new();
    for (&(file, call), reaching) in &sites {
        let Some((_, site)) = index.call_site(file, call) else {
            continue;
        };
        if let Ok(Some(parsed)) = ws.parsed(file)
            && let Some(r) = parsed.callee_name(site.span)
        {
            at_site.insert((file, r.start), (reaching.confidence, reaching.caller));
        }
    }
    let dest_file = match &dest_target {
        Dest::Existing(f) => Some(*f),
        Dest::New(_) => None,
    };
    for &file in &scanned {
        if file == src_file {
            continue;
        }
        m.importer(&mut ws, file, dest_file)?;
        m.attributes(&mut ws, file, Some(file) == dest_file, &at_site)?;
        m.patches(&mut ws, file, !uses_left.is_empty())?;
    }
    let covered: HashSet<(FileId, u32)> = sites.keys().copied().collect();
    ws.unresolved(&name, &covered, &format!("point it at {dest_mod}"));

    // Imports of the old module only the moved body read.
    let mut outside = BTreeSet::new();
    if let Some(src) = ws.parsed(src_file)? {
        outside.extend(python::names_used(src, 0..block.start));
        outside.extend(python::names_used(src, block.end..src.source.len()));
    }
    let orphaned: Vec<String> = src_imports
        .iter()
        .filter(|b| used.contains(&b.bound) && !outside.contains(&b.bound))
        .map(|b| b.bound.clone())
        .collect();
    if !orphaned.is_empty() {
        m.notes.push(format!(
            "{src_path} no longer uses {} once {name} is gone: remove the import(s) if nothing else needs them",
            quoted(&dedup_owned(orphaned))
        ));
    }

    let stable_symbol = workspace::stable_symbol(index, conventions, &[target]);
    let (mut hunks, bases) = place(&ws, &m.planned, conventions, stable_symbol, selection);
    if let Some(text) = new_file {
        let Verdict {
            selected,
            stable,
            refused,
        } = Verdict::of(
            conventions,
            &dest_path,
            Confidence::Certain,
            stable_symbol,
            selection,
        );
        hunks.push(MoveHunk {
            id: HunkId::of(&dest_path, "", &text),
            file: dest_path.clone(),
            line: 0,
            end_line: 0,
            kind: EditKind::MovedIn,
            confidence: Confidence::Certain,
            selected,
            old_text: String::new(),
            new_text: text,
            why: format!("{name} moves here from {src_mod} (a new file)"),
            stable,
            new_file: true,
            refused,
            edits: Vec::new(),
            core: true,
        });
        hunks.sort_by(|x, y| (&x.file, x.line).cmp(&(&y.file, y.line)));
    }
    let core_held = hunks.iter().any(|h| h.core && !h.selected);
    if core_held {
        for h in &mut hunks {
            h.selected = false;
        }
        m.warnings.push(format!(
            "moving {name} changes stable code (ripple.toml `stable`): nothing is selected; --allow-stable selects it"
        ));
    } else {
        let left = hunks
            .iter()
            .filter(|h| !h.selected && h.refused.is_none() && !h.stable)
            .count();
        if left > 0 {
            let still = if uses_left.is_empty() {
                "which will no longer exist".to_owned()
            } else {
                format!("which {src_mod} will import from {dest_mod}")
            };
            m.warnings.push(format!(
                "{left} likely or possible hunk(s) are not selected: after --apply they still name {src_mod}.{name}, {still}; --include-likely and --include-possible select them"
            ));
        }
        let refused = hunks.iter().filter(|h| h.refused.is_some()).count();
        if refused > 0 {
            m.warnings.push(format!(
                "{refused} hunk(s) are in files ripple never edits: they still name {src_mod}.{name}"
            ));
        }
    }
    Ok(MovePlan {
        target,
        lang: Lang::Python,
        kind: decl.kind.name(),
        from_module: src_mod,
        from_file: src_path,
        to_module: dest_mod.clone(),
        to_file: dest_path,
        creates_file: matches!(dest_target, Dest::New(_)),
        new_qualified_name: format!("{dest_mod}.{name}"),
        name,
        hunks,
        check_by_hand: ws.check.into_iter().collect(),
        warnings: m.warnings,
        notes: m.notes,
        callers: rename::caller_counts(index, &members),
        bases,
    })
}

/// Write the plan's selected hunks and the file it creates, journaled so
/// that `ripple undo` restores the files (and deletes the new one);
/// checked first as a rename's are, or nothing is written.
pub fn apply(root: &Path, plan: &MovePlan) -> Result<AppliedMove, RefactorError> {
    let replacements = plan
        .selected()
        .flat_map(|h| {
            h.edits.iter().map(|(bytes, text)| write::Replacement {
                file: &h.file,
                bytes: bytes.clone(),
                text,
                stable: h.stable,
            })
        })
        .collect();
    let new_files: Vec<write::NewFile> = plan
        .selected()
        .filter(|h| h.new_file)
        .map(|h| write::NewFile {
            path: &h.file,
            text: &h.new_text,
            stable: h.stable,
        })
        .collect();
    let (report, _) = write::write(root, &plan.bases, replacements, &new_files)?;
    Ok(AppliedMove {
        report,
        hunks: plan.selected().count(),
    })
}

struct Mover<'a> {
    index: &'a Index,
    name: String,
    src_mod: String,
    dest_mod: String,
    planned: Vec<Planned>,
    notes: Vec<String>,
    warnings: Vec<String>,
}

impl Mover<'_> {
    fn push(&mut self, p: Planned) {
        self.planned.push(p);
    }

    fn refuse(&self, reason: String) -> RefactorError {
        RefactorError::Move {
            name: format!("{}.{}", self.src_mod, self.name),
            reason,
        }
    }

    /// An existing DEST: refuse if it binds the name (other than by
    /// importing it from the old module, which the move takes out), then
    /// its imports, its `__all__` and the definition at its end.
    fn append_to_existing(
        &mut self,
        ws: &mut Workspace,
        dest_file: FileId,
        moved_text: &str,
        needed: &[(String, String)],
        in_all: bool,
        imports_back: Option<u32>,
    ) -> Result<(), RefactorError> {
        let index = self.index;
        let res = &index.res;
        let dest_path = ws.path(dest_file);
        let qualified = format!("{}.{}", self.dest_mod, self.name);
        if let Some(other) = res
            .decls
            .iter()
            .find(|d| *d.name == *qualified && !d.is_external())
        {
            return Err(RefactorError::AlreadyBound {
                qualified: format!("{}.{}", self.src_mod, self.name),
                name: self.name.clone(),
                module: self.dest_mod.clone(),
                location: format!(
                    "{} {dest_path}:{}",
                    other.kind.name(),
                    other.span.start_line
                ),
            });
        }
        let dest_is_package = dest_path.ends_with("__init__.py");
        let parsed = ws
            .parsed(dest_file)?
            .ok_or_else(|| self.refuse(format!("{dest_path} does not parse")))?;
        let lines = LineIndex::new(&parsed.source);
        let bindings: Vec<ImportBinding> = python::import_bindings(parsed)
            .into_iter()
            .filter(|b| b.top_level)
            .collect();
        let defs = python::top_level_definitions(parsed);
        let imports_it = |b: &ImportBinding| {
            b.alias.is_none()
                && b.name == self.name
                && b.from.as_deref().is_some_and(|m| {
                    overrides::absolute_module(m, &self.dest_mod, dest_is_package) == self.src_mod
                })
        };
        // Bound at the top level by anything but `from old import name`
        // (which the move takes out): the moved name would clash.
        for line in python::module_bindings(parsed, &self.name) {
            let mut on_line = bindings
                .iter()
                .filter(|b| b.bound == self.name && lines.line_of(b.statement.start) == line)
                .peekable();
            if on_line.peek().is_none() || !on_line.all(imports_it) {
                return Err(RefactorError::AlreadyBound {
                    qualified: format!("{}.{}", self.src_mod, self.name),
                    name: self.name.clone(),
                    module: self.dest_mod.clone(),
                    location: format!("{dest_path}:{line}"),
                });
            }
        }
        // The old module importing the name back from DEST while DEST
        // imports the old module for something else: each would find the
        // other half-initialised.
        if let Some(used_at) = imports_back
            && let Some(b) = bindings.iter().find(|b| {
                !imports_it(b) && imports_module(b, &self.dest_mod, dest_is_package, &self.src_mod)
            })
        {
            return Err(self.refuse(format!(
                "{src} still uses {name} (line {used_at}) and would import it from {dest}, while {dest} imports {src} (line {}): the two modules would import each other. Move what {dest} takes from {src} first, or move {name} to a module {src} does not depend on",
                lines.line_of(b.statement.start),
                src = self.src_mod,
                dest = self.dest_mod,
                name = self.name,
            )));
        }
        // The statements the move takes out of DEST (its import of the
        // name) cannot anchor new imports.
        let skip: Vec<Range<usize>> = python::from_imports_of(parsed, &self.name)
            .into_iter()
            .filter(|i| {
                i.items.len() == 1
                    && overrides::absolute_module(&i.module, &self.dest_mod, dest_is_package)
                        == self.src_mod
            })
            .map(|i| i.statement)
            .collect();
        let mut adds: Vec<&str> = Vec::new();
        let mut clashes: Vec<(usize, String)> = Vec::new();
        for (n, line) in needed {
            let same = |b: &ImportBinding| import_line(b, &self.dest_mod, dest_is_package) == *line;
            if let Some(b) = bindings.iter().find(|b| b.bound == *n) {
                if !same(b) {
                    clashes.push((b.statement.start, n.clone()));
                }
            } else if let Some((_, r)) = defs.iter().find(|(d, _)| d == n) {
                clashes.push((r.start, n.clone()));
            } else {
                adds.push(line);
            }
        }
        let adds = dedup(&adds);
        let content_end = parsed
            .source
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        let spot = python::import_spot(parsed, &skip);
        let mut append = format!(
            "{}{}",
            if content_end == 0 { "" } else { "\n\n\n" },
            moved_text.trim_end()
        );
        let mut import_edit = None;
        if !adds.is_empty() {
            let edit = spot_edit(&spot, &adds.join("\n"));
            if edit.0.start >= content_end {
                // Nothing but imports in DEST: they go with the definition.
                append = format!("{}\n\n\n{}", edit.1.trim_end(), moved_text.trim_end());
                if content_end > 0 && !append.starts_with('\n') {
                    append.insert(0, '\n');
                }
            } else {
                import_edit = Some(edit);
            }
        }
        let all_edit = if in_all {
            python::all_list(parsed).map(|list| match list.items.last() {
                Some((last, _)) => (last.end..last.end, format!(", \"{}\"", self.name)),
                None => (list.open..list.open, format!("\"{}\"", self.name)),
            })
        } else {
            None
        };
        for (at, n) in clashes {
            ws.note(
                dest_file,
                at,
                format!(
                    "the moved body reads `{n}` as {} binds it; {} binds `{n}` already, and the move keeps that binding: check they are the same",
                    self.src_mod, self.dest_mod
                ),
            );
        }
        if let Some(edit) = import_edit {
            self.push(Planned {
                file: dest_file,
                edits: vec![edit],
                kind: EditKind::Import,
                confidence: Confidence::Certain,
                why: format!("the body of {} needs them", self.name),
                core: true,
            });
        }
        if let Some(edit) = all_edit {
            self.push(Planned {
                file: dest_file,
                edits: vec![edit],
                kind: EditKind::AllEntry,
                confidence: Confidence::Certain,
                why: format!("{} listed it in __all__", self.src_mod),
                core: true,
            });
        }
        self.push(Planned {
            file: dest_file,
            edits: vec![(content_end..content_end, append)],
            kind: EditKind::MovedIn,
            confidence: Confidence::Certain,
            why: format!("{} moves here from {}", self.name, self.src_mod),
            core: true,
        });
        Ok(())
    }

    /// `from old import name [as alias]` in `file`: from DEST now; in
    /// DEST itself, taken out.
    fn importer(
        &mut self,
        ws: &mut Workspace,
        file: FileId,
        dest_file: Option<FileId>,
    ) -> Result<(), RefactorError> {
        let path = ws.path(file);
        let is_package = path.ends_with("__init__.py");
        let importer = self.index.res.file_module[file.index()].clone();
        let Some(parsed) = ws.parsed(file)? else {
            return Ok(());
        };
        let lines = LineIndex::new(&parsed.source);
        let mut found = Vec::new();
        for i in python::from_imports_of(parsed, &self.name) {
            if overrides::absolute_module(&i.module, &importer, is_package) != self.src_mod {
                continue;
            }
            let (line_start, _) = lines.text_range(lines.line_of(i.statement.start));
            let indent = indentation(&parsed.source[line_start..]);
            let here = Some(file) == dest_file;
            let edits = if here && i.items.len() == 1 {
                vec![(
                    whole_lines(&parsed.source, i.statement.clone()),
                    String::new(),
                )]
            } else if here {
                vec![(python::item_removal(&i.items, i.item), String::new())]
            } else if i.items.len() == 1 {
                vec![(i.module_bytes.clone(), self.dest_mod.clone())]
            } else {
                let alias = i.alias.map_or(String::new(), |a| format!(" as {a}"));
                vec![
                    (python::item_removal(&i.items, i.item), String::new()),
                    (
                        i.statement.end..i.statement.end,
                        format!(
                            "\n{indent}from {} import {}{alias}",
                            self.dest_mod, self.name
                        ),
                    ),
                ]
            };
            found.push(Planned {
                file,
                edits,
                kind: EditKind::Import,
                confidence: Confidence::Certain,
                why: if here {
                    format!("{} is defined here now", self.name)
                } else {
                    format!("import from {}", self.src_mod)
                },
                core: here,
            });
        }
        self.planned.extend(found);
        Ok(())
    }

    /// `module.name` where `module` is the old module through an import
    /// of `file`: read from DEST, importing it as the file imported the
    /// old one; in DEST itself (`here`), the bare name. A call there takes
    /// its edge's confidence.
    fn attributes(
        &mut self,
        ws: &mut Workspace,
        file: FileId,
        here: bool,
        at_site: &HashMap<(FileId, usize), (Confidence, DeclId)>,
    ) -> Result<(), RefactorError> {
        let res = &self.index.res;
        let path = ws.path(file);
        let is_package = path.ends_with("__init__.py");
        let importer = res.file_module[file.index()].clone();
        let Some(parsed) = ws.parsed(file)? else {
            return Ok(());
        };
        let bindings = python::import_bindings(parsed);
        let bound_otherwise = |n: &str| {
            !python::module_bindings(parsed, n).is_empty()
                || python::top_level_definitions(parsed)
                    .iter()
                    .any(|(d, _)| d == n)
        };
        let full_import = format!("import {}", self.dest_mod);
        let has_full = bindings
            .iter()
            .any(|b| b.from.is_none() && b.alias.is_none() && b.name == self.dest_mod);
        let (dest_parent, dest_last) = match self.dest_mod.rsplit_once('.') {
            Some((p, l)) => (Some(p.to_owned()), l.to_owned()),
            None => (None, self.dest_mod.clone()),
        };
        let short_import = match &dest_parent {
            Some(p) => format!("from {p} import {dest_last}"),
            None => format!("import {dest_last}"),
        };
        let has_short = bindings.iter().any(|b| {
            b.bound == dest_last
                && b.alias.is_none()
                && match (&b.from, &dest_parent) {
                    (Some(f), Some(p)) => {
                        overrides::absolute_module(f, &importer, is_package) == *p
                            && b.name == dest_last
                    }
                    (None, None) => b.name == dest_last,
                    _ => false,
                }
        });
        let mut edits: Vec<Planned> = Vec::new();
        let mut additions: BTreeMap<usize, (BTreeSet<String>, Confidence)> = BTreeMap::new();
        let mut notes = Vec::new();
        for (object, text, attr) in python::attribute_uses(parsed, &self.name) {
            let full = bindings.iter().find(|b| {
                b.from.is_none()
                    && ((b.alias.is_none()
                        && text == self.src_mod
                        && (b.name == self.src_mod
                            || b.name.starts_with(&format!("{}.", self.src_mod))))
                        || (b.alias.as_deref() == Some(text.as_str()) && b.name == self.src_mod))
            });
            let short = bindings.iter().find(|b| {
                b.bound == text
                    && b.from.as_deref().is_some_and(|f| {
                        let from = overrides::absolute_module(f, &importer, is_package);
                        format!("{from}.{}", b.name) == self.src_mod
                    })
            });
            let reached = at_site.get(&(file, attr.start)).copied();
            let (binding, new_object, import, present) = match (full, short) {
                (_, Some(b)) if has_short || !bound_otherwise(&dest_last) => {
                    (b, dest_last.clone(), short_import.clone(), has_short)
                }
                (Some(b), _) | (None, Some(b)) => {
                    (b, self.dest_mod.clone(), full_import.clone(), has_full)
                }
                (None, None) => {
                    if let Some((_, caller)) = reached {
                        notes.push((
                            attr.start,
                            format!(
                                "calls {} through `{text}` in {}, which ripple cannot point at {}: change it by hand",
                                self.name, res.decls[caller].name, self.dest_mod
                            ),
                        ));
                    }
                    continue;
                }
            };
            let (kind, confidence, why) = match reached {
                Some((c, caller)) => (
                    EditKind::Call,
                    c,
                    format!("call in {}", res.decls[caller].name),
                ),
                None => (
                    EditKind::Reference,
                    Confidence::Certain,
                    format!("{text}.{} names {}", self.name, self.src_mod),
                ),
            };
            if here {
                edits.push(Planned {
                    file,
                    edits: vec![(object.start..attr.start, String::new())],
                    kind,
                    confidence,
                    why: format!("{why}: {} is defined here now", self.name),
                    core: false,
                });
                continue;
            }
            if !present {
                let entry = additions
                    .entry(binding.statement.end)
                    .or_insert_with(|| (BTreeSet::new(), confidence));
                entry.0.insert(import);
                entry.1 = entry.1.min(confidence);
            }
            edits.push(Planned {
                file,
                edits: vec![(object, new_object)],
                kind,
                confidence,
                why,
                core: false,
            });
        }
        let lines = LineIndex::new(&parsed.source);
        let mut added: HashSet<String> = HashSet::new();
        for (at, (imports, confidence)) in additions {
            let (line_start, _) = lines.text_range(lines.line_of(at));
            let indent = indentation(&parsed.source[line_start..]);
            let text: String = imports
                .into_iter()
                .filter(|i| added.insert(i.clone()))
                .map(|i| format!("\n{indent}{i}"))
                .collect();
            if text.is_empty() {
                continue;
            }
            edits.push(Planned {
                file,
                edits: vec![(at..at, text)],
                kind: EditKind::Import,
                confidence,
                why: format!("for {}.{}", self.dest_mod, self.name),
                core: false,
            });
        }
        self.planned.extend(edits);
        for (at, reason) in notes {
            ws.note(file, at, reason);
        }
        Ok(())
    }

    /// `patch("old.name")`: names DEST. `likely` when the old module
    /// keeps a binding of the name (it imports it back), which such a
    /// patch may have been meant for.
    fn patches(
        &mut self,
        ws: &mut Workspace,
        file: FileId,
        kept: bool,
    ) -> Result<(), RefactorError> {
        let Some(parsed) = ws.parsed(file)? else {
            return Ok(());
        };
        let dotted = format!("{}.{}", self.src_mod, self.name);
        let mut found = Vec::new();
        for r in python::patch_strings(parsed, &self.name, std::slice::from_ref(&dotted)) {
            let start = r.start - 1 - self.src_mod.len();
            found.push(Planned {
                file,
                edits: vec![(start..r.start - 1, self.dest_mod.clone())],
                kind: EditKind::PatchString,
                confidence: if kept {
                    Confidence::Likely
                } else {
                    Confidence::Certain
                },
                why: if kept {
                    format!(
                        "patch(\"{dotted}\"): {} keeps importing {}, and the patch may be meant for its uses there",
                        self.src_mod, self.name
                    )
                } else {
                    format!("patch(\"{dotted}\")")
                },
                core: false,
            });
        }
        let owner = self
            .src_mod
            .rsplit('.')
            .next()
            .unwrap_or(&self.src_mod)
            .to_owned();
        let objects = python::patch_object_strings(parsed, &[owner.as_str()], &self.name);
        self.planned.extend(found);
        for r in objects {
            ws.note(
                file,
                r.start,
                format!(
                    "patch.object(…, \"{}\") on a module named like {}: patch {} if it means the moved {}",
                    self.name, self.src_mod, self.dest_mod, self.name
                ),
            );
        }
        Ok(())
    }
}

/// Place the planned changes on their lines, decide selection, and record
/// each touched file's content hash.
fn place(
    ws: &Workspace,
    planned: &[Planned],
    conventions: &Conventions,
    stable_symbol: bool,
    selection: Selection,
) -> (Vec<MoveHunk>, BTreeMap<String, u64>) {
    let mut hunks = Vec::new();
    let mut bases = BTreeMap::new();
    for p in merged(ws, planned) {
        let Some(Some(parsed)) = ws.files.get(&p.file) else {
            continue;
        };
        let path = ws.path(p.file);
        bases
            .entry(path.to_owned())
            .or_insert_with(|| content_hash(&parsed.source));
        let PlacedLines {
            id,
            line,
            end_line,
            old_text,
            new_text,
        } = place_lines(path, &parsed.source, &p.edits);
        let Verdict {
            selected,
            stable,
            refused,
        } = Verdict::of(conventions, path, p.confidence, stable_symbol, selection);
        hunks.push(MoveHunk {
            id,
            file: path.to_owned(),
            line,
            end_line,
            kind: p.kind,
            confidence: p.confidence,
            selected,
            old_text,
            new_text,
            why: p.why.clone(),
            stable,
            new_file: false,
            refused,
            edits: p.edits.clone(),
            core: p.core,
        });
    }
    hunks.sort_by(|x, y| (&x.file, x.line).cmp(&(&y.file, y.line)));
    (hunks, bases)
}

/// The planned changes with those sharing a line made one: a hunk is
/// written whole, so two on one line would each show the other's text
/// unchanged.
fn merged(ws: &Workspace, planned: &[Planned]) -> Vec<Planned> {
    let mut placed: Vec<(FileId, u32, u32, &Planned)> = Vec::new();
    for p in planned.iter().filter(|p| !p.edits.is_empty()) {
        let Some(Some(parsed)) = ws.files.get(&p.file) else {
            continue;
        };
        let lines = LineIndex::new(&parsed.source);
        let start = p.edits.iter().map(|(r, _)| r.start).min().unwrap_or(0);
        let end = p.edits.iter().map(|(r, _)| r.end).max().unwrap_or(0);
        placed.push((p.file, lines.line_of(start), lines.line_of(end), p));
    }
    placed.sort_by_key(|(file, line, end, _)| (*file, *line, *end));
    let mut out: Vec<(FileId, u32, Planned)> = Vec::new();
    for (file, line, end, p) in placed {
        match out.last_mut() {
            Some((f, last_end, m)) if *f == file && line <= *last_end => {
                *last_end = (*last_end).max(end);
                m.edits.extend(p.edits.iter().cloned());
                m.confidence = m.confidence.max(p.confidence);
                m.why = format!("{}; {}", m.why, p.why);
                m.core |= p.core;
            }
            _ => out.push((
                file,
                end,
                Planned {
                    file: p.file,
                    edits: p.edits.clone(),
                    kind: p.kind,
                    confidence: p.confidence,
                    why: p.why.clone(),
                    core: p.core,
                },
            )),
        }
    }
    out.into_iter().map(|(_, _, p)| p).collect()
}

/// `dest` as a path from the repository root, or why it is not one.
fn repo_path(root: &Path, dest: &str) -> Result<String, &'static str> {
    let p = Path::new(dest);
    let rel = if p.is_absolute() {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        p.strip_prefix(&canonical)
            .or_else(|_| p.strip_prefix(root))
            .map_err(|_| "is outside the repository")?
    } else {
        p
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str().ok_or("is not UTF-8")?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop().ok_or("is outside the repository")?;
            }
            _ => return Err("is outside the repository"),
        }
    }
    if parts.is_empty() {
        return Err("names no file");
    }
    Ok(parts.join("/"))
}

/// The module name a new file at `path` will have: its directory's, read
/// from a module already indexed there.
fn new_module_name(index: &Index, path: &str) -> Result<String, String> {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = file.trim_end_matches(".py");
    if let Some(reason) = names::invalid_reason(Lang::Python, stem) {
        return Err(format!("{path} cannot be imported: {reason}"));
    }
    if stem == "__init__" {
        return Err(format!(
            "{path} would create a package: create it first, then move into it"
        ));
    }
    for (i, f) in index.files.iter().enumerate() {
        if f.lang != Lang::Python {
            continue;
        }
        let (d, n) = f.path.rsplit_once('/').unwrap_or(("", f.path.as_str()));
        if d != dir {
            continue;
        }
        let module = &index.res.file_module[i];
        let package = if n == "__init__.py" {
            Some(module.as_str())
        } else {
            module.rsplit_once('.').map(|(p, _)| p)
        };
        return Ok(match package {
            Some(p) if p != "__init__" => format!("{p}.{stem}"),
            _ => stem.to_owned(),
        });
    }
    if dir.is_empty() {
        return Ok(stem.to_owned());
    }
    Err(format!(
        "{dir} holds no Python module ripple indexed, so the new module's import name is unknown: create {path} first"
    ))
}

/// What to delete with a top-level definition spanning `block` (whole
/// lines): the blank lines after it too, or, at the end of the file, the
/// blank lines before it.
fn removal_range(src: &[u8], block: Range<usize>) -> Range<usize> {
    let mut at = block.end;
    while let Some(nl) = src[at..].iter().position(|b| *b == b'\n') {
        let next = at + nl + 1;
        let line_end = src[next..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(src.len(), |i| next + i);
        if src[next..line_end].iter().all(|b| b.is_ascii_whitespace()) && line_end < src.len() {
            at = line_end;
            continue;
        }
        if src[next..line_end].iter().all(|b| b.is_ascii_whitespace()) {
            break;
        }
        return block.start..next;
    }
    let before = src[..block.start]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    before..block.end
}

/// The whole lines holding `range`, with the line break after them.
fn whole_lines(src: &[u8], range: Range<usize>) -> Range<usize> {
    let start = src[..range.start]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let end = src[range.end..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(src.len(), |i| range.end + i + 1);
    start..end
}

/// The spaces and tabs a line starts with: a statement added below
/// another takes its indentation.
fn indentation(line: &[u8]) -> String {
    let n = line
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    String::from_utf8_lossy(&line[..n]).into_owned()
}

/// The edit adding import `lines` at `spot`.
fn spot_edit(spot: &ImportSpot, lines: &str) -> Edit {
    match *spot {
        ImportSpot::AfterImport(at) => (at..at, format!("\n{lines}")),
        ImportSpot::AfterHeader(at) => (at..at, format!("\n\n{lines}")),
        ImportSpot::Start => (0..0, format!("{lines}\n\n\n")),
    }
}

/// The import statement binding `b` as a line of its own, its module made
/// absolute from `module`, the importing module.
fn import_line(b: &ImportBinding, module: &str, is_package: bool) -> String {
    let alias = b
        .alias
        .as_ref()
        .map_or(String::new(), |a| format!(" as {a}"));
    match &b.from {
        Some(m) => format!(
            "from {} import {}{alias}",
            overrides::absolute_module(m, module, is_package),
            b.name
        ),
        None => format!("import {}{alias}", b.name),
    }
}

/// Whether import `b` of `module` brings in `target` as a module.
fn imports_module(b: &ImportBinding, module: &str, is_package: bool, target: &str) -> bool {
    match &b.from {
        Some(m) => {
            let from = overrides::absolute_module(m, module, is_package);
            from == target || format!("{from}.{}", b.name) == target
        }
        None => b.name == target || b.name.starts_with(&format!("{target}.")),
    }
}

fn dedup<'s>(lines: &[&'s str]) -> Vec<&'s str> {
    let mut seen = HashSet::new();
    lines.iter().copied().filter(|l| seen.insert(*l)).collect()
}

fn dedup_owned(names: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .into_iter()
        .filter(|n| seen.insert(n.clone()))
        .collect()
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_definition_takes_the_blank_lines_after_it_or_at_the_end_before_it() {
        let text = "a = 1\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n";
        let src = text.as_bytes();
        let f = text.find("def f").unwrap();
        let block = f..text.find("\n\n\ndef g").unwrap();
        let r = removal_range(src, block);
        assert_eq!(&text[r], "def f():\n    pass\n\n\n");
        let last = text.find("def g").unwrap()..text.len() - 1;
        let r = removal_range(src, last);
        assert_eq!(&text[r], "\n\n\ndef g():\n    pass");
    }

    fn plan_in(source: &str, name: &str, dest: &str) -> Result<MovePlan, RefactorError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.py"), source).unwrap();
        let index = crate::index::Index::open(dir.path(), &crate::index::NoProgress).unwrap();
        let target = crate::lookup::resolve(&index.res, name).unwrap();
        plan_move(
            &index,
            &Conventions::default(),
            target,
            dest,
            Selection::default(),
        )
    }

    #[test]
    fn only_module_level_definitions_move() {
        let source = "def outer():\n    def inner():\n        return 1\n    return inner()\n";
        let err = plan_in(source, "m.outer.inner", "n.py").unwrap_err();
        assert!(
            err.to_string()
                .contains("it is defined inside m.outer: only module-level"),
            "{err}"
        );
        let plan = plan_in(source, "m.outer", "n.py").unwrap();
        assert_eq!(plan.to_module, "n");
        assert!(plan.creates_file);
        // The module is left without its only definition, and the new one
        // holds it whole.
        let out = plan
            .hunks
            .iter()
            .find(|h| h.kind == EditKind::MovedOut)
            .unwrap();
        assert_eq!(out.old_text, source.trim_end());
        let made = plan.hunks.iter().find(|h| h.new_file).unwrap();
        assert_eq!(made.new_text, source);
    }

    fn package_plan(
        files: &[(&str, &str)],
        name: &str,
        dest: &str,
    ) -> Result<MovePlan, RefactorError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        let index = crate::index::Index::open(dir.path(), &crate::index::NoProgress).unwrap();
        let target = crate::lookup::resolve(&index.res, name).unwrap();
        plan_move(
            &index,
            &Conventions::default(),
            target,
            dest,
            Selection::default(),
        )
    }

    #[test]
    fn an_indented_group_keeps_its_indentation_and_a_new_cycle_is_refused() {
        let a = (
            "pkg/a.py",
            "def f():\n    return 1\n\n\ndef g():\n    return f()\n",
        );
        let init = ("pkg/__init__.py", "");
        let c = (
            "pkg/c.py",
            "import os\nif os.sep:\n    from pkg.a import g, f\n",
        );
        let b = (
            "pkg/b.py",
            "from pkg.a import f\n\n\ndef h():\n    return f()\n",
        );
        let plan = package_plan(&[init, a, b, c], "pkg.a.f", "pkg/b.py").unwrap();
        let text = |file: &str, kind: EditKind| {
            plan.hunks
                .iter()
                .find(|h| h.file == file && h.kind == kind)
                .map(|h| h.new_text.clone())
                .unwrap_or_else(|| panic!("no {kind:?} hunk in {file}: {plan:#?}"))
        };
        assert_eq!(
            text("pkg/c.py", EditKind::Import),
            "    from pkg.a import g\n    from pkg.b import f"
        );
        assert_eq!(
            text("pkg/a.py", EditKind::MovedOut),
            "from pkg.b import f\n\n\ndef g():"
        );
        // DEST's own import of the name goes with the move.
        assert!(text("pkg/b.py", EditKind::Import).is_empty());

        let b_needs_g = (
            "pkg/b.py",
            "from pkg.a import f, g\n\n\ndef h():\n    return f() + g()\n",
        );
        let err = package_plan(&[init, a, b_needs_g, c], "pkg.a.f", "pkg/b.py").unwrap_err();
        assert!(
            err.to_string().contains(
                "pkg.a still uses f (line 6) and would import it from pkg.b, while pkg.b imports pkg.a (line 1)"
            ),
            "{err}"
        );
    }

    #[test]
    fn dest_paths_stay_in_the_repository() {
        let root = Path::new("/repo");
        assert_eq!(repo_path(root, "./shop/../shop/m.py").unwrap(), "shop/m.py");
        assert_eq!(repo_path(root, "/repo/shop/m.py").unwrap(), "shop/m.py");
        assert!(repo_path(root, "../m.py").is_err());
        assert!(repo_path(root, "/elsewhere/m.py").is_err());
        assert!(repo_path(root, ".").is_err());
    }
}
