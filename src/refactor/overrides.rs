//! The methods a Python method's rename carries along: the methods of the
//! same name it overrides and those overriding it, closed over the class
//! hierarchy (renaming `B.m` where `A.m` is its base and `C(A).m` a
//! sibling override renames all three, or `self.m()` in `A` stops reaching
//! one of them). The index keeps no class bases once resolved, so the
//! bases of the classes involved are read again from their statements and
//! named the way Python binds them: a class of the same module, a
//! `from … import` of the file, an absolute dotted name, and any of these
//! through a module that imports the class (`xml.sax.ContentHandler`). A
//! base found only by its short name elsewhere makes the link `likely`.

use std::collections::{HashMap, HashSet};

use super::python;
use super::syntax::Parsed;
use crate::index::Index;
use crate::model::{Confidence, DeclKind, FileId, Lang};
use crate::resolve::DeclId;

/// A method renamed with the target, and how sure the link is.
pub(super) struct Member {
    pub(super) method: DeclId,
    pub(super) confidence: Confidence,
    pub(super) why: String,
}

/// Every method named `old` linked to `target` by overriding, the target
/// first.
pub(super) fn family(index: &Index, target: DeclId, old: &str) -> Vec<Member> {
    let res = &index.res;
    let class_of = |m: DeclId| {
        res.decls[m]
            .parent
            .filter(|p| res.decls[*p].kind == DeclKind::Class)
    };
    let mut members = vec![Member {
        method: target,
        confidence: Confidence::Certain,
        why: String::new(),
    }];
    let Some(_) = class_of(target) else {
        return members;
    };
    let candidates: Vec<DeclId> = res
        .decl_ids()
        .filter(|&d| {
            let decl = &res.decls[d];
            d != target
                && decl.lang == Lang::Python
                && decl.kind == DeclKind::Method
                && decl.name.rsplit('.').next() == Some(old)
                && class_of(d).is_some()
        })
        .collect();
    let mut hierarchy = Hierarchy::new(index);
    let mut changed = true;
    while changed {
        changed = false;
        for &c in &candidates {
            if members.iter().any(|m| m.method == c) {
                continue;
            }
            let Some(cls) = class_of(c) else { continue };
            let link = members.iter().find_map(|m| {
                let other = class_of(m.method)?;
                let (exact, relation) = if let Some(exact) = hierarchy.inherits(cls, other) {
                    (exact, "overrides")
                } else {
                    (hierarchy.inherits(other, cls)?, "is overridden by")
                };
                let confidence = if exact {
                    m.confidence
                } else {
                    m.confidence.max(Confidence::Likely)
                };
                Some((confidence, relation, m.method))
            });
            if let Some((confidence, relation, linked)) = link {
                members.push(Member {
                    method: c,
                    confidence,
                    why: format!("{relation} {}", res.decls[linked].name),
                });
                changed = true;
            }
        }
    }
    members
}

/// Class bases read on demand, per file.
struct Hierarchy<'a> {
    index: &'a Index,
    classes: HashMap<&'a str, DeclId>,
    by_short: HashMap<&'a str, Vec<DeclId>>,
    /// Python files by module name, to follow a name a module imports.
    modules: HashMap<&'a str, FileId>,
    files: HashMap<FileId, Option<FileClasses>>,
    bases: HashMap<DeclId, Vec<(DeclId, bool)>>,
}

struct FileClasses {
    statements: Vec<python::ClassStatement>,
    /// `from M import N [as A]`: the bound name and the absolute `M.N`;
    /// `import M as A`: `A` and `M`.
    imported: HashMap<String, String>,
}

impl<'a> Hierarchy<'a> {
    fn new(index: &'a Index) -> Hierarchy<'a> {
        let mut classes = HashMap::new();
        let mut by_short: HashMap<&str, Vec<DeclId>> = HashMap::new();
        for d in index.res.decl_ids() {
            let decl = &index.res.decls[d];
            if decl.lang == Lang::Python && decl.kind == DeclKind::Class && !decl.is_external() {
                classes.insert(&*decl.name, d);
                let short = decl.name.rsplit('.').next().unwrap_or(&decl.name);
                by_short.entry(short).or_default().push(d);
            }
        }
        let modules = index
            .files
            .iter()
            .zip(&index.res.file_module)
            .enumerate()
            .filter(|(_, (f, _))| f.lang == Lang::Python)
            .map(|(i, (_, module))| (module.as_str(), FileId::new(i)))
            .collect();
        Hierarchy {
            index,
            classes,
            by_short,
            modules,
            files: HashMap::new(),
            bases: HashMap::new(),
        }
    }

    /// Whether `class` inherits from `base` (at any depth): `Some(true)`
    /// when every link was named exactly, `Some(false)` when one was found
    /// by its short name only.
    fn inherits(&mut self, class: DeclId, base: DeclId) -> Option<bool> {
        let mut best: Option<bool> = None;
        let mut seen: HashSet<DeclId> = HashSet::new();
        let mut stack = vec![(class, true)];
        while let Some((c, exact)) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            for (b, link_exact) in self.bases_of(c) {
                let exact = exact && link_exact;
                if b == base {
                    best = Some(best.unwrap_or(false) || exact);
                }
                stack.push((b, exact));
            }
        }
        best
    }

    fn bases_of(&mut self, class: DeclId) -> Vec<(DeclId, bool)> {
        if let Some(b) = self.bases.get(&class) {
            return b.clone();
        }
        let found = self.read_bases(class);
        self.bases.insert(class, found.clone());
        found
    }

    fn read_bases(&mut self, class: DeclId) -> Vec<(DeclId, bool)> {
        let res = &self.index.res;
        let decl = &res.decls[class];
        let Some(file) = decl.file else {
            return Vec::new();
        };
        let index = self.index;
        let parsed = self
            .files
            .entry(file)
            .or_insert_with(|| read_file(index, file));
        let Some(parsed) = parsed else {
            return Vec::new();
        };
        let (start, end) = (decl.span.start_byte as usize, decl.span.end_byte as usize);
        let Some(stmt) = parsed
            .statements
            .iter()
            .find(|s| s.start_byte >= start && s.start_byte < end)
        else {
            return Vec::new();
        };
        let module = res.file_module.get(file.index()).map_or("", String::as_str);
        let named: Vec<(String, Vec<String>)> = stmt
            .bases
            .iter()
            .map(|text| {
                let (first, rest) = match text.split_once('.') {
                    Some((f, r)) => (f, Some(r)),
                    None => (text.as_str(), None),
                };
                let mut names = vec![format!("{module}.{text}")];
                if let Some(imported) = parsed.imported.get(first) {
                    names.push(match rest {
                        Some(r) => format!("{imported}.{r}"),
                        None => imported.clone(),
                    });
                }
                names.push(text.clone());
                (text.clone(), names)
            })
            .collect();
        let mut out = Vec::new();
        for (text, names) in &named {
            if let Some(d) = names.iter().find_map(|n| self.classes.get(n.as_str())) {
                out.push((*d, true));
                continue;
            }
            if let Some(d) = names.iter().find_map(|n| self.imported_class(n)) {
                out.push((d, true));
                continue;
            }
            let short = text.rsplit('.').next().unwrap_or(text);
            if let Some([only]) = self.by_short.get(short).map(Vec::as_slice) {
                out.push((*only, false));
            }
        }
        out
    }

    /// The class `name` (`M.N`) stands for when module `M` imports it
    /// (`from .handler import ContentHandler` in `xml/sax/__init__.py`),
    /// followed through a few such modules.
    fn imported_class(&mut self, name: &str) -> Option<DeclId> {
        let mut name = name.to_owned();
        for _ in 0..4 {
            let (module, last) = name.rsplit_once('.')?;
            let file = *self.modules.get(module)?;
            let index = self.index;
            let next = self
                .files
                .entry(file)
                .or_insert_with(|| read_file(index, file))
                .as_ref()?
                .imported
                .get(last)?
                .clone();
            if let Some(&d) = self.classes.get(next.as_str()) {
                return Some(d);
            }
            name = next;
        }
        None
    }
}

fn read_file(index: &Index, file: FileId) -> Option<FileClasses> {
    let f = index.files.get(file.index())?;
    let bytes = std::fs::read(index.root.join(&f.path)).ok()?;
    let parsed = Parsed::new(Lang::Python, bytes)?;
    let module = index.res.file_module.get(file.index())?;
    let is_package = f.path.ends_with("__init__.py");
    let mut imported: HashMap<String, String> =
        python::module_aliases(&parsed).into_iter().collect();
    imported.extend(python::from_imports(&parsed).into_iter().map(|i| {
        let from = absolute_module(&i.module, module, is_package);
        (
            i.alias.unwrap_or_else(|| i.name_text.clone()),
            format!("{from}.{}", i.name_text),
        )
    }));
    Some(FileClasses {
        statements: python::classes(&parsed),
        imported,
    })
}

/// The module a `from MODULE import` names, relative dots resolved against
/// the importing module (its package, or itself for an `__init__.py`).
pub(super) fn absolute_module(written: &str, importer: &str, is_package: bool) -> String {
    let dots = written.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return written.to_owned();
    }
    let mut parts: Vec<&str> = importer.split('.').filter(|p| !p.is_empty()).collect();
    if !is_package {
        parts.pop();
    }
    for _ in 1..dots {
        parts.pop();
    }
    let rest = &written[dots..];
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_link_through_imports_exactly_and_through_short_names_likely() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("pkg");
        std::fs::create_dir(&pkg).unwrap();
        std::fs::write(pkg.join("__init__.py"), "").unwrap();
        std::fs::write(
            pkg.join("base.py"),
            "class Repo:\n    def save(self):\n        return 1\n",
        )
        .unwrap();
        std::fs::write(
            pkg.join("child.py"),
            "import importlib\nimport pkg.base as b\nmodels = importlib.import_module('pkg.base')\n\n\n\
             class Child(b.Repo):\n    def save(self):\n        return 2\n\n\n\
             class Loose(models.Repo):\n    def save(self):\n        return 3\n\n\n\
             class Apart:\n    def save(self):\n        return 4\n",
        )
        .unwrap();
        let index = Index::open(dir.path(), &crate::index::NoProgress).unwrap();
        let target = crate::lookup::resolve(&index.res, "pkg.base.Repo.save").unwrap();
        let found: Vec<(String, Confidence)> = family(&index, target, "save")
            .iter()
            .map(|m| (index.res.decls[m.method].name.to_string(), m.confidence))
            .collect();
        assert_eq!(
            found,
            [
                ("pkg.base.Repo.save".to_owned(), Confidence::Certain),
                ("pkg.child.Child.save".to_owned(), Confidence::Certain),
                ("pkg.child.Loose.save".to_owned(), Confidence::Likely),
            ]
        );
    }

    #[test]
    fn a_base_named_through_a_module_that_imports_it_links_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let sax = dir.path().join("sax");
        std::fs::create_dir(&sax).unwrap();
        std::fs::write(sax.join("__init__.py"), "from .handler import Handler\n").unwrap();
        std::fs::write(
            sax.join("handler.py"),
            "class Handler:\n    def start(self):\n        return 1\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("dom.py"),
            "import sax\nfrom sax import Handler as H\n\n\n\
             class Pull(sax.Handler):\n    def start(self):\n        return 2\n\n\n\
             class Push(H):\n    def start(self):\n        return 3\n",
        )
        .unwrap();
        let index = Index::open(dir.path(), &crate::index::NoProgress).unwrap();
        let target = crate::lookup::resolve(&index.res, "sax.handler.Handler.start").unwrap();
        let found: Vec<(String, Confidence)> = family(&index, target, "start")
            .iter()
            .map(|m| (index.res.decls[m.method].name.to_string(), m.confidence))
            .collect();
        assert_eq!(
            found,
            [
                ("sax.handler.Handler.start".to_owned(), Confidence::Certain),
                ("dom.Pull.start".to_owned(), Confidence::Certain),
                ("dom.Push.start".to_owned(), Confidence::Certain),
            ]
        );
    }

    #[test]
    fn relative_imports_resolve_against_the_package() {
        assert_eq!(
            absolute_module(".pricing", "shop.checkout", false),
            "shop.pricing"
        );
        assert_eq!(absolute_module(".pricing", "shop", true), "shop.pricing");
        assert_eq!(absolute_module("..util", "shop.a.b", false), "shop.util");
        assert_eq!(absolute_module(".", "shop.a", false), "shop");
        assert_eq!(absolute_module("os.path", "shop.a", false), "os.path");
    }
}

/// A Python method and the method of the same name it overrides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Override {
    pub method: DeclId,
    pub overridden: DeclId,
    /// Every base on the way was named exactly (not found by its short
    /// name alone).
    pub exact: bool,
}

/// The repository's Python class hierarchy, as the SCIP export relates it.
#[derive(Debug, Default)]
pub struct PythonHierarchy {
    /// Every repository method that overrides one of a base class, linked
    /// to the nearest definer along each base (a base that does not define
    /// the name is looked through, as Python's MRO does). Dunder methods
    /// are left out: nearly every class "overrides" `__init__`, and
    /// scip-python leaves them out of its relationships for the same reason.
    pub overrides: Vec<Override>,
    /// Each repository class and its direct bases in the repository.
    pub bases: Vec<(DeclId, DeclId)>,
}

pub fn python_hierarchy(index: &Index) -> PythonHierarchy {
    let res = &index.res;
    let mut methods: HashMap<(DeclId, &str), DeclId> = HashMap::new();
    for d in res.decl_ids() {
        let decl = &res.decls[d];
        if decl.lang != Lang::Python || decl.kind != DeclKind::Method || decl.is_external() {
            continue;
        }
        if let Some(cls) = decl
            .parent
            .filter(|p| res.decls[*p].kind == DeclKind::Class)
        {
            let short = decl.name.rsplit('.').next().unwrap_or(&decl.name);
            methods.entry((cls, short)).or_insert(d);
        }
    }
    let mut keys: Vec<(&(DeclId, &str), &DeclId)> = methods.iter().collect();
    keys.sort();
    let mut hierarchy = Hierarchy::new(index);
    let mut classes: Vec<DeclId> = hierarchy.classes.values().copied().collect();
    classes.sort();
    // Every file declaring a class is read: parsed in parallel up front
    // rather than one at a time as the walk reaches it.
    let files: HashSet<FileId> = classes
        .iter()
        .filter_map(|cls| res.decls[*cls].file)
        .collect();
    let mut files: Vec<FileId> = files.into_iter().collect();
    files.sort();
    use rayon::prelude::*;
    let read: Vec<(FileId, Option<FileClasses>)> = files
        .par_iter()
        .map(|&f| (f, read_file(index, f)))
        .collect();
    hierarchy.files.extend(read);
    let mut out = PythonHierarchy::default();
    for &cls in &classes {
        for (base, _) in hierarchy.bases_of(cls) {
            out.bases.push((cls, base));
        }
    }
    for (&(cls, name), &method) in keys {
        if name.starts_with("__") {
            continue;
        }
        let mut seen: HashSet<DeclId> = HashSet::from([cls]);
        let mut stack: Vec<(DeclId, bool)> = hierarchy.bases_of(cls);
        stack.reverse();
        while let Some((base, exact)) = stack.pop() {
            if !seen.insert(base) {
                continue;
            }
            if let Some(&overridden) = methods.get(&(base, name)) {
                out.overrides.push(Override {
                    method,
                    overridden,
                    exact,
                });
                continue;
            }
            let mut further = hierarchy.bases_of(base);
            further.reverse();
            stack.extend(further.into_iter().map(|(b, e)| (b, exact && e)));
        }
    }
    out
}
