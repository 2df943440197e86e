//! Planning `ripple refactor rename NAME NEW_NAME`: the hunks that rename a
//! function or method everywhere the index can see it, each with the
//! confidence of what asked for it, and the places it cannot decide.
//!
//! Where the hunks come from:
//! - the definition (and, for a Python method, the overrides linked to it
//!   by [`super::overrides`]): `certain`, or `likely` through a base found
//!   by its short name only;
//! - every call site with an edge to one of them: the callee's name token
//!   at the site, with the edge's confidence (the surest, when the site
//!   reaches several of them). A site that calls it through another name
//!   (an alias, a variable) needs no edit;
//! - Python `from m import f [as g]` of a module that exports it (the
//!   defining module, and any module that imports it without an alias and
//!   so exports it too), `__all__` entries of those modules, and
//!   `patch("pkg.mod.f")` strings naming it: `certain`, they name it by its
//!   qualified name.
//!
//! What is listed to check by hand: unresolved call sites named like the
//! target, call sites that hand it to code ripple does not follow, Go
//! interface methods of the same name, and other mentions of the old name
//! in the files the rename touches.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;

use super::syntax::Parsed;
use super::workspace::{self, Workspace};
use super::{
    CallerCounts, EditKind, LineIndex, RefactorError, RenameHunk, RenamePlan, RenamedDecl,
    Selection, Verdict, go, names, overrides, python,
};
use crate::conventions::Conventions;
use crate::edits::HunkId;
use crate::graph::Direction;
use crate::index::Index;
use crate::model::{Confidence, DeclKind, FileId, Lang, content_hash};
use crate::resolve::DeclId;

/// One identifier to replace, before it is placed on its line.
struct Edit {
    file: FileId,
    bytes: Range<usize>,
    kind: EditKind,
    confidence: Confidence,
    why: String,
}

/// Plan renaming `target` to `new_name`. Reads the files the rename may
/// touch from disk (they must still be what the index holds) and writes
/// nothing.
pub fn plan_rename(
    index: &Index,
    conventions: &Conventions,
    target: DeclId,
    new_name: &str,
    selection: Selection,
) -> Result<RenamePlan, RefactorError> {
    let res = &index.res;
    let decl = workspace::editable(index, conventions, target)?;
    let lang = decl.lang;
    let (prefix, old) = decl.name.rsplit_once('.').unwrap_or(("", &decl.name));
    let old = old.to_owned();
    if let Some(reason) = names::invalid_reason(lang, new_name) {
        return Err(RefactorError::InvalidName { reason });
    }
    if new_name == old {
        return Err(RefactorError::SameName {
            name: decl.name.to_string(),
            new_name: new_name.to_owned(),
        });
    }
    workspace::refuse_interface_implementation(index, target, "renaming it")?;
    let mut p = Planner {
        index,
        old: old.clone(),
        new: new_name.to_owned(),
        ws: Workspace::new(index),
        edits: Vec::new(),
        placed: HashMap::new(),
        warnings: Vec::new(),
    };
    let family = if lang == Lang::Python && decl.kind == DeclKind::Method {
        overrides::family(index, target, &old)
    } else {
        vec![overrides::Member {
            method: target,
            confidence: Confidence::Certain,
            why: String::new(),
        }]
    };
    for m in &family {
        p.check_free(m.method)?;
    }
    let members: HashSet<DeclId> = family.iter().map(|m| m.method).collect();
    for m in &family {
        p.definition(m)?;
    }
    let covered_sites = p.calls(&members)?;
    let scanned = p.ws.files_mentioning(lang, &old)?;
    let module_level = decl
        .parent
        .is_none_or(|parent| matches!(res.decls[parent].kind, DeclKind::Module));
    if lang == Lang::Python {
        let dotted: Vec<String> = if module_level {
            let exporting = p.imports(target, &scanned)?;
            for &f in &exporting {
                p.all_entries(f)?;
            }
            exporting
                .iter()
                .map(|&f| format!("{}.{old}", res.file_module[f.index()]))
                .collect()
        } else {
            family
                .iter()
                .map(|m| res.decls[m.method].name.to_string())
                .collect()
        };
        p.patch_strings(&scanned, &dotted)?;
        // `patch.object(owner, "name")`: the owners are the classes (for a
        // method) or the exporting modules, by their last name.
        let owners: Vec<String> = dotted
            .iter()
            .filter_map(|d| d.rsplit_once('.'))
            .map(|(owner, _)| owner.rsplit('.').next().unwrap_or(owner).to_owned())
            .collect();
        p.patch_object_strings(&scanned, &owners)?;
    }
    p.ws.unresolved(&old, &covered_sites, "rename it");
    p.ws.handed_out(&members, |callee| format!(
        "passed to `{callee}`, which ripple does not follow: a name it is looked up by (a string, a keyword) may need the new name too"
    ));
    if lang == Lang::Go && decl.kind == DeclKind::Method {
        let old = old.clone();
        p.ws.interface_methods(&scanned, &old, |iface| {
            format!(
                "{iface} declares `{old}`: if {} implements it, rename this method and every other implementation with it (ripple does not rename interface methods yet)",
                decl.name
            )
        })?;
    }
    // Mentions are listed where the name can mean the target: the files
    // the rename edits and, for a function, the files of its module or
    // package and those importing it. A method's name (`save`, `run`) is
    // too common to list beyond the files edited.
    let mut mention_files: Vec<FileId> = p.edits.iter().map(|e| e.file).collect();
    if decl.kind != DeclKind::Method
        && let Some(home) = decl.file
    {
        let near = workspace::near_module(index, home);
        mention_files.extend(scanned.iter().filter(|f| near(f)));
    }
    mention_files.sort();
    mention_files.dedup();
    p.mentions(&mention_files, &members)?;
    if lang == Lang::Go && names::go_exported(&old) != names::go_exported(new_name) {
        p.exportedness_warning(target);
    }

    let new_qualified_name = if prefix.is_empty() {
        new_name.to_owned()
    } else {
        format!("{prefix}.{new_name}")
    };
    let family_ids: Vec<DeclId> = family.iter().map(|m| m.method).collect();
    let stable_symbol = workspace::stable_symbol(index, conventions, &family_ids);
    let (hunks, bases) = p.hunks(conventions, stable_symbol, selection);
    let stable_left = hunks
        .iter()
        .filter(|h| h.stable && !h.selected && h.refused.is_none())
        .count();
    let calls_left = hunks
        .iter()
        .filter(|h| h.kind == EditKind::Call && !h.selected && h.refused.is_none() && !h.stable)
        .count();
    if calls_left > 0 {
        p.warnings.push(format!(
            "{calls_left} call site(s) reaching it through a likely or possible edge are not selected: after --apply they still call `{old}`; review them: --include-likely and --include-possible select them"
        ));
    }
    if stable_left > 0 && !selection.allow_stable {
        p.warnings.push(format!(
            "{stable_left} hunk(s) change stable code (ripple.toml `stable`): left unselected; --allow-stable selects them"
        ));
    }
    Ok(RenamePlan {
        target,
        lang,
        old_name: old,
        new_name: new_name.to_owned(),
        new_qualified_name,
        declarations: family
            .iter()
            .map(|m| {
                let old_name = res.decls[m.method].name.to_string();
                let new = match old_name.rsplit_once('.') {
                    Some((prefix, _)) => format!("{prefix}.{new_name}"),
                    None => new_name.to_owned(),
                };
                RenamedDecl { old: old_name, new }
            })
            .collect(),
        hunks,
        check_by_hand: p.ws.check.into_iter().collect(),
        warnings: p.warnings,
        callers: caller_counts(index, &members),
        bases,
    })
}

/// Distinct direct callers of any of `members`, each at its surest edge.
pub fn caller_counts(index: &Index, members: &HashSet<DeclId>) -> CallerCounts {
    let mut best: HashMap<DeclId, Confidence> = HashMap::new();
    for &m in members {
        for (caller, c, _) in
            index
                .graph
                .neighbours(&index.res, m, Direction::Callers, Confidence::Possible)
        {
            if members.contains(&caller) {
                continue;
            }
            let e = best.entry(caller).or_insert(c);
            *e = (*e).min(c);
        }
    }
    let mut counts = CallerCounts {
        total: best.len(),
        ..Default::default()
    };
    for c in best.values() {
        match c {
            Confidence::Certain => counts.certain += 1,
            Confidence::Likely => counts.likely += 1,
            Confidence::Possible => counts.possible += 1,
        }
    }
    counts
}

struct Planner<'a> {
    index: &'a Index,
    old: String,
    new: String,
    ws: Workspace<'a>,
    edits: Vec<Edit>,
    /// Each edit's index in `edits` by file and first byte.
    placed: HashMap<(FileId, usize), usize>,
    warnings: Vec<String>,
}

impl<'a> Planner<'a> {
    /// Add an edit; the same identifier asked for twice keeps the surer.
    fn push(&mut self, edit: Edit) {
        match self.placed.get(&(edit.file, edit.bytes.start)) {
            Some(&i) => {
                if edit.confidence < self.edits[i].confidence {
                    self.edits[i] = edit;
                }
            }
            None => {
                self.placed
                    .insert((edit.file, edit.bytes.start), self.edits.len());
                self.edits.push(edit);
            }
        }
    }

    /// Refuse a new name that already names something in the scope the
    /// renamed declaration lives in.
    fn check_free(&mut self, method: DeclId) -> Result<(), RefactorError> {
        let res = &self.index.res;
        let decl = &res.decls[method];
        let prefix = decl.name.rsplit_once('.').map_or("", |(p, _)| p);
        let mut taken = vec![format!("{prefix}.{}", self.new)];
        // A Go method set holds both receivers' methods.
        if let Some(t) = prefix.strip_prefix("(*") {
            taken.push(format!("({t}.{}", self.new));
        } else if let Some(t) = prefix.strip_prefix('(') {
            taken.push(format!("(*{t}.{}", self.new));
        }
        let module_level = decl
            .parent
            .is_none_or(|p| matches!(res.decls[p].kind, DeclKind::Module));
        let scope = match decl.kind {
            DeclKind::Method => format!("the methods of {prefix}"),
            _ if decl.lang == Lang::Go => format!("package {prefix}"),
            _ if module_level => format!("module {prefix}"),
            _ => prefix.to_owned(),
        };
        if let Some(other) = res
            .decls
            .iter()
            .find(|d| !d.is_external() && taken.iter().any(|t| **t == *d.name))
        {
            let location = other
                .file
                .and_then(|f| self.index.files.get(f.index()))
                .map_or(String::new(), |f| {
                    format!("{}:{}", f.path, other.span.start_line)
                });
            return Err(RefactorError::Exists {
                name: decl.name.to_string(),
                new_name: self.new.clone(),
                scope,
                location: format!("{} {}", other.kind.name(), location),
            });
        }
        if decl.lang == Lang::Python
            && module_level
            && let Some(file) = decl.file
        {
            self.check_module_binding(file, &decl.name)?;
        }
        Ok(())
    }

    /// Python: a module that will bind the new name must not bind it
    /// already (an import or an assignment the index does not list).
    fn check_module_binding(&mut self, file: FileId, name: &str) -> Result<(), RefactorError> {
        let path = self.ws.path(file);
        let new = self.new.clone();
        let Some(parsed) = self.ws.parsed(file)? else {
            return Ok(());
        };
        if let Some(line) = python::module_bindings(parsed, &new).first() {
            return Err(RefactorError::Exists {
                name: name.to_owned(),
                new_name: new,
                scope: format!("module {}", self.index.res.file_module[file.index()]),
                location: format!("{path}:{line}"),
            });
        }
        let module = &self.index.res.file_module[file.index()];
        let qualified = format!("{module}.{new}");
        if let Some(other) = self
            .index
            .res
            .decls
            .iter()
            .find(|d| *d.name == *qualified && !d.is_external())
        {
            return Err(RefactorError::Exists {
                name: name.to_owned(),
                new_name: new,
                scope: format!("module {module}"),
                location: format!("{} {path}:{}", other.kind.name(), other.span.start_line),
            });
        }
        Ok(())
    }

    fn definition(&mut self, m: &overrides::Member) -> Result<(), RefactorError> {
        let decl = &self.index.res.decls[m.method];
        let Some(file) = decl.file else {
            return Ok(());
        };
        let old = self.old.clone();
        let span = decl.span;
        let found = self.ws.parsed(file)?.and_then(|p| p.def_name(span, &old));
        let (kind, why) = if m.why.is_empty() {
            (EditKind::Definition, "the definition".to_owned())
        } else {
            (EditKind::Override, format!("{} {}", decl.name, m.why))
        };
        match found {
            Some(bytes) => {
                self.push(Edit {
                    file,
                    bytes,
                    kind,
                    confidence: m.confidence,
                    why,
                });
                // Documentation that names the function is text, not a
                // use: offered, never selected by the definition's
                // confidence.
                let docs = self
                    .ws
                    .parsed(file)?
                    .map(|p| p.doc_mentions(span, &old))
                    .unwrap_or_default();
                for bytes in docs {
                    self.push(Edit {
                        file,
                        bytes,
                        kind: EditKind::DocMention,
                        confidence: Confidence::Possible,
                        why: format!("{} names it in its documentation", decl.name),
                    });
                }
            }
            None => self.ws.note(
                file,
                span.start_byte as usize,
                format!(
                    "{} is not defined by a `def`/`func` named `{old}` here: rename it by hand",
                    decl.name
                ),
            ),
        }
        Ok(())
    }

    /// Call sites with an edge to a member, at the surest such edge.
    fn calls(
        &mut self,
        members: &HashSet<DeclId>,
    ) -> Result<HashSet<(FileId, u32)>, RefactorError> {
        let res = &self.index.res;
        let sites = self.ws.sites_reaching(members)?;
        let old = self.old.clone();
        for (&(file, call), reaching) in &sites {
            let (confidence, caller) = (reaching.confidence, reaching.caller);
            let Some((_, site)) = self.index.call_site(file, call) else {
                // An implicit call the index keeps no site for (a property
                // read, a hook a library runs): only its caller is known.
                let at = res.decls[caller].span.start_byte as usize;
                self.ws.note(
                    file,
                    at,
                    format!(
                        "{} uses the target without a call ripple can place (a property read, a hook): find the use by hand",
                        res.decls[caller].name
                    ),
                );
                continue;
            };
            let span = site.span;
            let Some(parsed) = self.ws.parsed(file)? else {
                continue;
            };
            let Some(bytes) = parsed.callee_name(span) else {
                self.ws.note(
                    file,
                    span.start_byte as usize,
                    format!(
                        "reaches the target without naming it (an operator, a conversion, a `with`) in {}: nothing to rename here, but what calls it implicitly may change",
                        res.decls[caller].name
                    ),
                );
                continue;
            };
            // Called through another name (an import alias, a variable):
            // the name at the site stays.
            if &parsed.source[bytes.clone()] != old.as_bytes() {
                continue;
            }
            self.push(Edit {
                file,
                bytes,
                kind: EditKind::Call,
                confidence,
                why: format!("call in {}", res.decls[caller].name),
            });
        }
        Ok(sites.into_keys().collect())
    }

    /// `from m import old [as g]` where `m` exports the target; returns
    /// the files of the modules that export it once renamed.
    fn imports(
        &mut self,
        target: DeclId,
        scanned: &[FileId],
    ) -> Result<Vec<FileId>, RefactorError> {
        let res = &self.index.res;
        let Some(home) = res.decls[target].file else {
            return Ok(Vec::new());
        };
        let old = self.old.clone();
        // Each file's `from … import old` names, with the module each names.
        let mut found: Vec<(FileId, Range<usize>, bool, String)> = Vec::new();
        for &file in scanned {
            let is_package = self.ws.path(file).ends_with("__init__.py");
            let importer = res.file_module[file.index()].clone();
            let Some(parsed) = self.ws.parsed(file)? else {
                continue;
            };
            for i in python::from_imports_of(parsed, &old) {
                let from = overrides::absolute_module(&i.module, &importer, is_package);
                found.push((file, i.name, i.alias.is_none(), from));
            }
        }
        let mut exporting: Vec<FileId> = vec![home];
        let mut done = vec![false; found.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (k, (file, bytes, bare, from)) in found.iter().enumerate() {
                if done[k]
                    || !exporting
                        .iter()
                        .any(|&e| res.file_module[e.index()] == *from)
                {
                    continue;
                }
                done[k] = true;
                self.push(Edit {
                    file: *file,
                    bytes: bytes.clone(),
                    kind: EditKind::Import,
                    confidence: Confidence::Certain,
                    why: format!("import from {from}"),
                });
                // Imported without an alias, the name is bound in this
                // module too: it binds the new name now, and whoever
                // imports it from here follows.
                if *bare && !exporting.contains(file) {
                    self.check_module_binding(*file, &res.decls[target].name)?;
                    exporting.push(*file);
                    changed = true;
                }
            }
        }
        Ok(exporting)
    }

    fn all_entries(&mut self, file: FileId) -> Result<(), RefactorError> {
        let old = self.old.clone();
        let Some(parsed) = self.ws.parsed(file)? else {
            return Ok(());
        };
        for bytes in python::all_entries(parsed, &old) {
            self.push(Edit {
                file,
                bytes,
                kind: EditKind::AllEntry,
                confidence: Confidence::Certain,
                why: "__all__".to_owned(),
            });
        }
        Ok(())
    }

    fn patch_strings(
        &mut self,
        scanned: &[FileId],
        dotted: &[String],
    ) -> Result<(), RefactorError> {
        let old = self.old.clone();
        for &file in scanned {
            let Some(parsed) = self.ws.parsed(file)? else {
                continue;
            };
            let found: Vec<(Range<usize>, String)> = python::patch_strings(parsed, &old, dotted)
                .into_iter()
                .map(|bytes| {
                    let start = parsed.source[..bytes.start]
                        .iter()
                        .rposition(|b| *b == b'"' || *b == b'\'')
                        .map_or(bytes.start, |q| q + 1);
                    let why = format!(
                        "patch(\"{}\")",
                        String::from_utf8_lossy(&parsed.source[start..bytes.end])
                    );
                    (bytes, why)
                })
                .collect();
            for (bytes, why) in found {
                self.push(Edit {
                    file,
                    bytes,
                    kind: EditKind::PatchString,
                    confidence: Confidence::Certain,
                    why,
                });
            }
        }
        Ok(())
    }

    fn patch_object_strings(
        &mut self,
        scanned: &[FileId],
        owners: &[String],
    ) -> Result<(), RefactorError> {
        let owners: Vec<&str> = owners.iter().map(String::as_str).collect();
        let old = self.old.clone();
        for &file in scanned {
            let Some(parsed) = self.ws.parsed(file)? else {
                continue;
            };
            for bytes in python::patch_object_strings(parsed, &owners, &old) {
                self.push(Edit {
                    file,
                    bytes,
                    kind: EditKind::PatchString,
                    // The owner is matched by its name, not resolved.
                    confidence: Confidence::Likely,
                    why: format!("patch.object(…, \"{old}\")"),
                });
            }
        }
        Ok(())
    }

    /// Identifiers spelled like the old name that no hunk renames and no
    /// call edge explains: method values, function values, references.
    fn mentions(
        &mut self,
        files: &[FileId],
        members: &HashSet<DeclId>,
    ) -> Result<(), RefactorError> {
        let res = &self.index.res;
        let wanted: HashSet<FileId> = files.iter().copied().collect();
        // Call sites whose callees are all other declarations: their name
        // is someone else's.
        let mut sites: HashMap<(FileId, u32), bool> = HashMap::new();
        for e in &res.edges {
            if wanted.contains(&e.file) {
                let other = sites.entry((e.file, e.call)).or_insert(true);
                *other &= !members.contains(&e.callee);
            }
        }
        let mut elsewhere: HashMap<FileId, Vec<u32>> = HashMap::new();
        for ((file, call), other) in sites {
            if other {
                elsewhere.entry(file).or_default().push(call);
            }
        }
        let mut edited: HashMap<FileId, HashSet<usize>> = HashMap::new();
        for e in &self.edits {
            edited.entry(e.file).or_default().insert(e.bytes.start);
        }
        let mut noted: HashMap<String, HashSet<u32>> = HashMap::new();
        for c in &self.ws.check {
            noted.entry(c.file.clone()).or_default().insert(c.line);
        }
        let other_decl_starts: HashSet<(FileId, u32)> = res
            .decls
            .iter()
            .filter(|d| !d.is_external())
            .filter_map(|d| Some((d.file?, d.span.start_line)))
            .collect();
        let old = self.old.clone();
        for &file in files {
            let mut skip = edited.remove(&file).unwrap_or_default();
            for &call in elsewhere.get(&file).into_iter().flatten() {
                if let Some((_, site)) = self.index.call_site(file, call) {
                    let span = site.span;
                    if let Some(Some(p)) = self.ws.files.get(&file)
                        && let Some(r) = p.callee_name(span)
                    {
                        skip.insert(r.start);
                    }
                }
            }
            let noted = noted.remove(self.ws.path(file)).unwrap_or_default();
            let Some(parsed) = self.ws.parsed(file)? else {
                continue;
            };
            let found = match parsed.lang {
                Lang::Python => python::mentions(parsed, &old),
                Lang::Go => go::mentions(parsed, &old),
            };
            let lines = LineIndex::new(&parsed.source);
            let mut notes = Vec::new();
            for r in found {
                if skip.contains(&r.start) {
                    continue;
                }
                // The name of another declaration of the same name
                // (`def save` of an unrelated class) is not a reference.
                let line = lines.line_of(r.start);
                if other_decl_starts.contains(&(file, line)) && is_declaring(parsed, r.start) {
                    continue;
                }
                notes.push(r.start);
            }
            notes.retain(|&at| !noted.contains(&lines.line_of(at)));
            for at in notes {
                self.ws.note(
                    file,
                    at,
                    format!(
                        "`{old}` here is not a call the graph resolves to the target (a reference, a method value, another declaration's use): rename it if it means the target"
                    ),
                );
            }
        }
        Ok(())
    }

    fn exportedness_warning(&mut self, target: DeclId) {
        let res = &self.index.res;
        let home = res.decls[target]
            .file
            .map(|f| res.file_module[f.index()].clone())
            .unwrap_or_default();
        let outside: BTreeSet<&str> = self
            .edits
            .iter()
            .filter(|e| res.file_module[e.file.index()] != home)
            .map(|e| self.ws.path(e.file))
            .collect();
        if names::go_exported(&self.old) {
            self.warnings.push(format!(
                "`{}` is exported and `{}` is not: {} file(s) of other packages use it ({}) and would no longer compile",
                self.old,
                self.new,
                outside.len(),
                outside.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        } else {
            self.warnings.push(format!(
                "`{}` is not exported and `{}` is: the rename makes it part of package {home}'s API",
                self.old, self.new
            ));
        }
    }

    /// Place the edits on their lines, decide selection, and record each
    /// touched file's content hash.
    fn hunks(
        &self,
        conventions: &Conventions,
        stable_symbol: bool,
        selection: Selection,
    ) -> (Vec<RenameHunk>, BTreeMap<String, u64>) {
        let mut hunks = Vec::new();
        let mut bases = BTreeMap::new();
        let mut line_indexes: HashMap<FileId, LineIndex> = HashMap::new();
        for e in &self.edits {
            let Some(Some(parsed)) = self.ws.files.get(&e.file) else {
                continue;
            };
            let path = self.ws.path(e.file);
            bases
                .entry(path.to_owned())
                .or_insert_with(|| content_hash(&parsed.source));
            let lines = line_indexes
                .entry(e.file)
                .or_insert_with(|| LineIndex::new(&parsed.source));
            let line = lines.line_of(e.bytes.start);
            let (start, _) = lines.text_range(line);
            let old_text = lines.text(line).to_owned();
            let (a, b) = (e.bytes.start - start, e.bytes.end - start);
            let new_text = format!(
                "{}{}{}",
                old_text.get(..a).unwrap_or(""),
                self.new,
                old_text.get(b..).unwrap_or("")
            );
            let Verdict {
                selected,
                stable,
                refused,
            } = Verdict::of(conventions, path, e.confidence, stable_symbol, selection);
            hunks.push(RenameHunk {
                id: HunkId::of(
                    path,
                    &format!("{}:{}", e.bytes.start, e.bytes.end),
                    &self.new,
                ),
                file: path.to_owned(),
                line,
                column: a as u32 + 1,
                kind: e.kind,
                confidence: e.confidence,
                selected,
                old_text,
                new_text,
                why: e.why.clone(),
                stable,
                refused,
                bytes: e.bytes.clone(),
            });
        }
        hunks.sort_by(|x, y| (&x.file, x.bytes.start).cmp(&(&y.file, y.bytes.start)));
        (hunks, bases)
    }
}

/// Whether the identifier at `at` is the name a declaration statement
/// declares (`def NAME`, `func NAME`, `func (r T) NAME`).
fn is_declaring(p: &Parsed, at: usize) -> bool {
    let Some(node) = p.tree.root_node().descendant_for_byte_range(at, at + 1) else {
        return false;
    };
    node.parent().is_some_and(|parent| {
        matches!(
            parent.kind(),
            "function_definition"
                | "class_definition"
                | "function_declaration"
                | "method_declaration"
        ) && parent.child_by_field_name("name") == Some(node)
    })
}
