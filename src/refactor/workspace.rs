//! What every refactoring plan reads and collects the same way: the files
//! it touches (read from disk, checked against the index, parsed once),
//! the call sites the graph resolves to the declarations it changes, and
//! the places it leaves to a person — unresolved calls named like the
//! target and places the target is handed to code ripple does not follow.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::syntax::{Parsed, word_positions};
use super::{CheckByHand, LineIndex, RefactorError};
use crate::conventions::{Class, Conventions};
use crate::index::Index;
use crate::model::{Confidence, Decl, DeclKind, FileId, Lang, content_hash};
use crate::resolve::DeclId;

/// A call site the graph resolves to one of the changed declarations, at
/// its surest edge.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reaching {
    pub(super) confidence: Confidence,
    pub(super) caller: DeclId,
    pub(super) callee: DeclId,
}

pub(super) struct Workspace<'a> {
    pub(super) index: &'a Index,
    /// Files read so far; `None` for one that does not parse as its language.
    pub(super) files: HashMap<FileId, Option<Parsed>>,
    pub(super) check: BTreeSet<CheckByHand>,
}

impl<'a> Workspace<'a> {
    pub(super) fn new(index: &'a Index) -> Workspace<'a> {
        Workspace {
            index,
            files: HashMap::new(),
            check: BTreeSet::new(),
        }
    }

    /// A file's syntax tree, read from disk and checked against the index:
    /// the spans the index holds are only good for the content it read.
    pub(super) fn parsed(&mut self, file: FileId) -> Result<Option<&Parsed>, RefactorError> {
        if !self.files.contains_key(&file) {
            let parsed = self.read(file)?;
            self.files.insert(file, parsed);
        }
        Ok(self.files.get(&file).and_then(Option::as_ref))
    }

    fn read(&self, file: FileId) -> Result<Option<Parsed>, RefactorError> {
        read_parsed(self.index, file)
    }

    /// Read and parse those of `files` not read yet, on every core:
    /// parsing is most of what planning costs.
    fn read_all(&mut self, files: impl IntoIterator<Item = FileId>) -> Result<(), RefactorError> {
        use rayon::prelude::*;
        let unread: BTreeSet<FileId> = files
            .into_iter()
            .filter(|f| !self.files.contains_key(f))
            .collect();
        let index = self.index;
        let read: Vec<(FileId, Result<Option<Parsed>, RefactorError>)> = unread
            .into_par_iter()
            .map(|file| (file, read_parsed(index, file)))
            .collect();
        for (file, parsed) in read {
            self.files.insert(file, parsed?);
        }
        Ok(())
    }

    pub(super) fn path(&self, file: FileId) -> &'a str {
        self.index
            .files
            .get(file.index())
            .map_or("", |f| f.path.as_str())
    }

    /// List the line holding byte `at` to check by hand.
    pub(super) fn note(&mut self, file: FileId, at: usize, reason: String) {
        let path = self.path(file).to_owned();
        let Ok(Some(parsed)) = self.parsed(file) else {
            return;
        };
        let lines = LineIndex::new(&parsed.source);
        let line = lines.line_of(at);
        let text = lines.text(line).trim().to_owned();
        self.check.insert(CheckByHand {
            file: path,
            line,
            text,
            reason,
        });
    }

    /// Call sites with an edge to one of `members`, each at its surest
    /// edge, in file order; their files are read.
    pub(super) fn sites_reaching(
        &mut self,
        members: &HashSet<DeclId>,
    ) -> Result<BTreeMap<(FileId, u32), Reaching>, RefactorError> {
        let mut sites: BTreeMap<(FileId, u32), Reaching> = BTreeMap::new();
        for e in &self.index.res.edges {
            if !members.contains(&e.callee) {
                continue;
            }
            let found = Reaching {
                confidence: e.confidence,
                caller: e.caller,
                callee: e.callee,
            };
            let best = sites.entry((e.file, e.call)).or_insert(found);
            if e.confidence < best.confidence {
                *best = found;
            }
        }
        self.promote_calls_on_self(members, &mut sites);
        self.read_all(sites.keys().map(|&(file, _)| file))?;
        Ok(sites)
    }

    /// A Python call `self.m(…)` whose every target is one of `members`
    /// (a method and the overrides that change with it) runs one of them
    /// whichever subclass `self` is: the change must reach it, as surely
    /// as a direct call. Its edges are only likely or possible because
    /// each says which override runs.
    fn promote_calls_on_self(
        &self,
        members: &HashSet<DeclId>,
        sites: &mut BTreeMap<(FileId, u32), Reaching>,
    ) {
        let index = self.index;
        let mut elsewhere: HashSet<(FileId, u32)> = HashSet::new();
        for e in &index.res.edges {
            if !members.contains(&e.callee) && sites.contains_key(&(e.file, e.call)) {
                elsewhere.insert((e.file, e.call));
            }
        }
        for (&(file, call), reaching) in sites.iter_mut() {
            if reaching.confidence == Confidence::Certain
                || elsewhere.contains(&(file, call))
                || index.res.is_receiver_unknown(file, call)
                || index.files.get(file.index()).map(|f| f.lang) != Some(Lang::Python)
            {
                continue;
            }
            let on_self = index.call_site(file, call).is_some_and(|(_, site)| {
                site.callee_text
                    .strip_prefix("self.")
                    .is_some_and(|method| !method.contains('.'))
            });
            if on_self {
                reaching.confidence = Confidence::Certain;
            }
        }
    }

    /// Unresolved call sites named `name` outside `covered`, to check by
    /// hand; `what` says what to do there if it calls the target.
    pub(super) fn unresolved(&mut self, name: &str, covered: &HashSet<(FileId, u32)>, what: &str) {
        let index = self.index;
        for u in index.res.unresolved_named(name) {
            if covered.contains(&(u.file, u.call)) {
                continue;
            }
            let Some((_, site)) = index.call_site(u.file, u.call) else {
                continue;
            };
            let reason = format!(
                "unresolved call `{}` in {} ({}): {what} if it calls the target",
                site.callee_text, index.res.decls[u.caller].name, u.reason
            );
            self.note(u.file, site.span.start_byte as usize, reason);
        }
    }

    /// Call sites that pass one of `members` to code ripple does not
    /// follow; `why` phrases the reason from the receiving callee's text.
    pub(super) fn handed_out(&mut self, members: &HashSet<DeclId>, why: impl Fn(&str) -> String) {
        let index = self.index;
        for h in &index.res.handed_out {
            if !members.contains(&h.func) {
                continue;
            }
            let Some((_, site)) = index.call_site(h.file, h.call) else {
                continue;
            };
            self.note(
                h.file,
                site.span.start_byte as usize,
                why(&site.callee_text),
            );
        }
    }

    /// Go interface methods named `name` in `files`, to check by hand: a
    /// method that changes stops implementing them. `why` phrases the
    /// reason from the interface (`interface Charger`).
    pub(super) fn interface_methods(
        &mut self,
        files: &[FileId],
        name: &str,
        why: impl Fn(&str) -> String,
    ) -> Result<(), RefactorError> {
        for &file in files {
            let Some(parsed) = self.parsed(file)? else {
                continue;
            };
            for (bytes, iface) in super::go::interface_methods(parsed, name) {
                let iface = iface.map_or("an interface".to_owned(), |i| format!("interface {i}"));
                self.note(file, bytes.start, why(&iface));
            }
        }
        Ok(())
    }

    /// The indexed files of `lang` whose text holds `word`, read and
    /// parsed on every core: parsing is most of what planning costs.
    pub(super) fn files_mentioning(
        &mut self,
        lang: Lang,
        word: &str,
    ) -> Result<Vec<FileId>, RefactorError> {
        use rayon::prelude::*;
        let index = self.index;
        let unread: Vec<FileId> = (0..index.files.len())
            .map(FileId::new)
            .filter(|f| index.files[f.index()].lang == lang && !self.files.contains_key(f))
            .collect();
        let read: Vec<(FileId, Result<Option<Parsed>, RefactorError>)> = unread
            .par_iter()
            .filter_map(|&file| {
                let f = &index.files[file.index()];
                // An unreadable file cannot hold a use to change.
                let bytes = std::fs::read(index.root.join(&f.path)).ok()?;
                if !holds_word(&bytes, word) {
                    return None;
                }
                if content_hash(&bytes) != f.hash {
                    let stale = RefactorError::Stale {
                        path: f.path.clone(),
                    };
                    return Some((file, Err(stale)));
                }
                Some((file, Ok(Parsed::new(f.lang, bytes))))
            })
            .collect();
        for (file, parsed) in read {
            self.files.insert(file, parsed?);
        }
        let mut out: Vec<FileId> = self
            .files
            .iter()
            .filter(|(f, p)| {
                index.files[f.index()].lang == lang
                    && p.as_ref().is_some_and(|p| holds_word(&p.source, word))
            })
            .map(|(f, _)| *f)
            .collect();
        out.sort();
        Ok(out)
    }
}

/// A file of the index, read from disk and parsed; refused when it no
/// longer holds what the index read (its spans would point elsewhere).
fn read_parsed(index: &Index, file: FileId) -> Result<Option<Parsed>, RefactorError> {
    let Some(f) = index.files.get(file.index()) else {
        return Ok(None);
    };
    let bytes = std::fs::read(index.root.join(&f.path)).map_err(|source| RefactorError::Read {
        path: f.path.clone(),
        source,
    })?;
    if content_hash(&bytes) != f.hash {
        return Err(RefactorError::Stale {
            path: f.path.clone(),
        });
    }
    Ok(Parsed::new(f.lang, bytes))
}

/// The declaration `target` if a refactoring may edit it: indexed (not an
/// external callee), a function or method, not off-limits.
pub(super) fn editable<'a>(
    index: &'a Index,
    conventions: &Conventions,
    target: DeclId,
) -> Result<&'a Decl, RefactorError> {
    let decl = indexed(index, conventions, target)?;
    if !matches!(decl.kind, DeclKind::Function | DeclKind::Method) {
        return Err(RefactorError::NotRefactorable {
            name: decl.name.to_string(),
            kind: decl.kind.name(),
        });
    }
    Ok(decl)
}

/// Refuse a change to a Go method that implements a repository interface:
/// renaming it or changing its parameters alone would leave its type
/// outside the interface, which no longer compiles wherever a value of
/// the type is used as one. `change` names the change for the message.
pub(super) fn refuse_interface_implementation(
    index: &Index,
    target: DeclId,
    change: &'static str,
) -> Result<(), RefactorError> {
    let decl = &index.res.decls[target.index()];
    if decl.lang != Lang::Go || decl.kind != DeclKind::Method {
        return Ok(());
    }
    let impls = super::go_impls::find(index);
    let Some(implemented) = impls.methods.get(&target) else {
        return Ok(());
    };
    let interfaces: Vec<String> = implemented
        .iter()
        .map(|(iface, method)| {
            // The interface that declares the method, which may be one
            // the implemented interface embeds.
            let declarer = impls
                .declarer
                .get(&(*iface, method.clone()))
                .copied()
                .unwrap_or(*iface);
            let d = &index.res.decls[declarer.index()];
            let place = d
                .file
                .map(|f| format!(" ({}:{})", index.files[f.index()].path, d.span.start_line))
                .unwrap_or_default();
            format!("{}.{method}{place}", d.name)
        })
        .collect();
    Err(RefactorError::ImplementsInterface {
        name: decl.name.to_string(),
        them: if interfaces.len() == 1 { "it" } else { "them" },
        interfaces: interfaces.join(", "),
        change,
    })
}

/// The declaration `target` if it is indexed (not an external callee)
/// and not off-limits, of whatever kind.
pub(super) fn indexed<'a>(
    index: &'a Index,
    conventions: &Conventions,
    target: DeclId,
) -> Result<&'a Decl, RefactorError> {
    let Some(decl) = index.res.decls.get(target.index()) else {
        return Err(RefactorError::External {
            name: format!("declaration {target}"),
        });
    };
    if decl.is_external() {
        return Err(RefactorError::External {
            name: decl.name.to_string(),
        });
    }
    let path = index.file_of(target).map_or("", |f| f.path.as_str());
    if conventions.class_of_path(path) == Some(Class::OffLimits)
        || conventions.class_of_symbol(&decl.name, path) == Some(Class::OffLimits)
    {
        return Err(RefactorError::OffLimits {
            name: decl.name.to_string(),
        });
    }
    Ok(decl)
}

/// Whether a declaration ripple.toml marks stable by its symbol is among
/// `members`.
pub(super) fn stable_symbol(index: &Index, conventions: &Conventions, members: &[DeclId]) -> bool {
    members.iter().any(|&m| {
        let path = index.file_of(m).map_or("", |f| f.path.as_str());
        conventions.class_of_symbol(&index.res.decls[m].name, path) == Some(Class::Stable)
    })
}

/// Whether a file is where a function of `home`'s module or package can
/// be named: a file of that module, or one importing it.
pub(super) fn near_module(index: &Index, home: FileId) -> impl Fn(&FileId) -> bool + '_ {
    let res = &index.res;
    let module = &res.file_module[home.index()];
    let importing: HashSet<FileId> = res
        .imports
        .iter()
        .filter(|(_, to)| res.file_module[to.index()] == *module)
        .map(|(from, _)| *from)
        .collect();
    move |f: &FileId| res.file_module[f.index()] == *module || importing.contains(f)
}

/// Whether `word` occurs in `text` as a whole identifier: the files
/// worth parsing.
pub(super) fn holds_word(text: &[u8], word: &str) -> bool {
    word_positions(text, word).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::holds_word;

    #[test]
    fn files_are_scanned_for_the_whole_name_only() {
        assert!(holds_word(b"x = warn(1)", "warn"));
        assert!(holds_word(b"patch(\"pkg.warn\")", "warn"));
        assert!(holds_word(b"warn", "warn"));
        assert!(!holds_word(b"import warnings; forewarn()", "warn"));
    }
}
