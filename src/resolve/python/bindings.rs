//! Names and modules: free names (builtins, `from m import *`), relative
//! and absolute module references, submodules, module-level `__getattr__`,
//! and the parameters pytest fills by name.

use rustc_hash::FxHashMap as HashMap;
use smallvec::{SmallVec, smallvec};

use crate::lang::python::{Exports, ExprId, PyExpr};
use crate::model::{DeclKind, Sym};
use crate::resolve::{RawDeclId, SourceFile};

use super::Analysis;
use super::values::{GSym, Slot, Vals, Value, push_unique};

impl Analysis<'_> {
    /// pytest passes a fixture's value to every test or fixture that names
    /// it as a parameter; the fixture is the one in the same module, else the
    /// one in the nearest `conftest.py` above it.
    pub(super) fn find_fixture_uses(&mut self, files: &[SourceFile]) {
        let mut fixtures: HashMap<GSym, Vec<(String, RawDeclId)>> = HashMap::default();
        for ci in 0..self.files.len() {
            let path = files[self.files[ci].file as usize].path;
            let dir = path
                .rsplit_once('/')
                .map(|(d, _)| d)
                .unwrap_or("")
                .to_owned();
            let facts = self.files[ci].facts;
            for (local, info) in self.files[ci].py.decl_info.iter().enumerate() {
                if info.is_fixture {
                    let name = facts.decls[local]
                        .local_name
                        .rsplit('.')
                        .next()
                        .unwrap_or("");
                    let g = self.intern(name);
                    let key = if path.ends_with("conftest.py") {
                        dir.clone()
                    } else {
                        path.to_owned()
                    };
                    fixtures
                        .entry(g)
                        .or_default()
                        .push((key, self.gdecl(ci, local as u32)));
                }
            }
        }
        if fixtures.is_empty() {
            return;
        }
        for ci in 0..self.files.len() {
            let path = files[self.files[ci].file as usize].path;
            let facts = self.files[ci].facts;
            for (local, info) in self.files[ci].py.decl_info.iter().enumerate() {
                let d = &facts.decls[local];
                if !(d.is_test || info.is_fixture) {
                    continue;
                }
                for p in &info.params {
                    let g = self.gsym(ci, p.name);
                    let Some(candidates) = fixtures.get(&g) else {
                        continue;
                    };
                    // Same module first, then the deepest conftest directory containing the test.
                    let best = candidates
                        .iter()
                        .filter(|(key, _)| {
                            key == path || key.is_empty() || path.starts_with(&format!("{key}/"))
                        })
                        .max_by_key(|(key, _)| if key == path { usize::MAX } else { key.len() });
                    if let Some(&(_, fixture)) = best {
                        let func = self.gdecl(ci, local as u32);
                        self.fixture_uses.push((ci, func, g, fixture));
                    }
                }
            }
        }
    }

    pub(super) fn module_decl(&self, file: u32) -> RawDeclId {
        self.ctx_of_file
            .get(&file)
            .map(|&ci| self.files[ci].base)
            .unwrap_or(0)
    }

    pub(super) fn free_name(&mut self, ci: usize, name: Sym) -> Vals {
        let gname = self.gsym(ci, name);
        let file = self.files[ci].file;
        let mut seen = Vec::new();
        let (found, bound) = self.star_lookup(file, gname, &mut seen);
        if bound {
            return found;
        }
        let text = &self.strings[gname as usize];
        if self.builtins.contains(text.as_str()) {
            return smallvec![Value::Builtin(gname)];
        }
        self.external_star_member(file, gname, 0)
    }

    /// A name looked up through the `from m import *` imports of `file`'s
    /// module scope, and whether one of them binds it (by a statement, a
    /// submodule or an out-of-repo star import): only then is the name
    /// theirs, whatever its value is known to be so far.
    pub(super) fn star_lookup(
        &mut self,
        file: u32,
        name: GSym,
        seen: &mut Vec<u32>,
    ) -> (Vals, bool) {
        // Free names (every builtin) of a module with star imports come
        // here on each evaluation: no hashing, no copies of the sources.
        if seen.contains(&file) {
            return (Vals::new(), false);
        }
        seen.push(file);
        let name = self.unversioned(name);
        let mut out = Vals::new();
        let mut bound = false;
        for &f in self.star_sources(file).iter() {
            if !self.star_exports(f, name) {
                continue;
            }
            let decl = self.module_decl(f);
            let vals = if self.binds(decl, name) {
                self.get(Slot::Var(decl, name))
            } else {
                let (vals, inner) = self.star_lookup(f, name, seen);
                if inner {
                    vals
                } else if let Some(sf) = self.submodule(f, name) {
                    smallvec![Value::Module(sf)]
                } else {
                    let vals = self.external_star_member(f, name, 0);
                    if vals.is_empty() {
                        continue;
                    }
                    vals
                }
            };
            bound = true;
            for v in vals {
                push_unique(&mut out, v);
            }
        }
        (out, bound)
    }

    /// Whether a statement of `scope` binds `name` (an assignment, a
    /// definition, an import, a loop or `with` target), in any version.
    pub(super) fn binds(&self, scope: RawDeclId, name: GSym) -> bool {
        self.static_binds.contains(&Slot::Var(scope, name))
    }

    /// Whether `from module import *` of `file`'s module binds `name`:
    /// a name its literal `__all__` lists, or without one, any name
    /// without a leading underscore.
    pub(super) fn star_exports(&self, file: u32, name: GSym) -> bool {
        let Some(&ci) = self.ctx_of_file.get(&file) else {
            return true;
        };
        match &self.files[ci].py.exports {
            Exports::Public => !self.strings[name as usize].starts_with('_'),
            Exports::Listed(names) => names.iter().any(|&s| self.gsym(ci, s) == name),
            Exports::Computed => true,
        }
    }

    /// The repository modules whose names `file`'s module-level star
    /// imports bring in (an import resolves the same way every time;
    /// external modules contribute nothing the analysis can see).
    pub(super) fn star_sources(&mut self, file: u32) -> std::rc::Rc<[u32]> {
        if let Some(v) = self.star_sources.get(&file) {
            return v.clone();
        }
        let mut out = Vec::new();
        let mut external = Vec::new();
        if let Some(&ci) = self.ctx_of_file.get(&file) {
            let stars: Vec<ExprId> = self.files[ci]
                .py
                .star_imports
                .iter()
                .filter(|(scope, _)| *scope == 0)
                .map(|(_, e)| *e)
                .collect();
            for e in stars {
                let Some(PyExpr::ModuleRef { level, path }) =
                    self.files[ci].py.exprs.get(e as usize)
                else {
                    continue;
                };
                match self.module_ref(ci, *level, *path) {
                    Some(Value::Module(f)) if !out.contains(&f) => out.push(f),
                    Some(Value::External(m)) if !external.contains(&m) => external.push(m),
                    _ => {}
                }
            }
        }
        let out: std::rc::Rc<[u32]> = out.into();
        self.star_sources.insert(file, out.clone());
        self.external_stars.insert(file, external.into());
        out
    }

    /// `name` as a member of the out-of-repo modules `file` star-imports:
    /// `os.getcwd` is `posix.getcwd` (or `nt.getcwd`) when os.py binds no
    /// `getcwd` but runs `from posix import *`. Empty without such imports.
    pub(super) fn external_star_member(&mut self, file: u32, name: GSym, depth: u32) -> Vals {
        // A rebinding's version (`fsencode@1`) is its name to other modules.
        let name = self.unversioned(name);
        self.star_sources(file);
        let sources = self.external_stars.get(&file).cloned();
        let mut out = Vals::new();
        for &m in sources.iter().flat_map(|s| s.iter()) {
            for v in self.attr(Value::External(m), name, depth + 1) {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// `name` without a rebinding's version suffix (`a@2` is `a`).
    pub(super) fn unversioned(&mut self, name: GSym) -> GSym {
        match self
            .strings
            .get(name as usize)
            .and_then(|t| t.split_once('@'))
        {
            Some((base, _)) if !base.is_empty() => {
                let base = base.to_owned();
                self.intern(&base)
            }
            _ => name,
        }
    }

    pub(super) fn module_ref(&mut self, ci: usize, level: u8, path: Sym) -> Option<Value> {
        // Pure given the module table, and evaluated for every use of an
        // imported name: worth remembering.
        if let Some(v) = self.module_refs.get(&(ci, level, path)) {
            return *v;
        }
        let text = self.files[ci].facts.sym(path).to_owned();
        let v = self.module_ref_str(ci, level, text);
        self.module_refs.insert((ci, level, path), v);
        v
    }

    /// The submodule `name` of the package in file `f`, if the repository has it.
    pub(super) fn submodule(&mut self, f: u32, name: GSym) -> Option<u32> {
        if let Some(v) = self.submodules.get(&(f, name)) {
            return *v;
        }
        let sub = format!(
            "{}.{}",
            self.module_name_of.get(&f).map_or("", String::as_str),
            self.strings[name as usize]
        );
        let v = self.modules.get(&sub).copied();
        self.submodules.insert((f, name), v);
        v
    }

    pub(super) fn module_ref_str(&mut self, ci: usize, level: u8, path: String) -> Option<Value> {
        let file = self.files[ci].file;
        let full = if level == 0 {
            path.clone()
        } else {
            let me = self.module_name_of.get(&file).cloned().unwrap_or_default();
            let is_package = self.module_is_init.contains(&file);
            let mut parts: Vec<&str> = me.split('.').collect();
            // `from . import x` in pkg/mod.py means pkg; in pkg/__init__.py also pkg.
            let drop = if is_package {
                level as usize - 1
            } else {
                level as usize
            };
            for _ in 0..drop.min(parts.len()) {
                parts.pop();
            }
            let mut base = parts.join(".");
            if !path.is_empty() {
                if !base.is_empty() {
                    base.push('.');
                }
                base.push_str(&path);
            }
            base
        };
        if let Some(&f) = self.modules.get(&full) {
            return Some(Value::Module(f));
        }
        if level == 0 {
            // A script imports its siblings by bare name (its directory is
            // on sys.path). A module of a package does not: in Python 3 a
            // bare `import json` in `service/api.py` is the standard
            // library's, even beside `service/json.py`.
            let me = self.module_name_of.get(&file).cloned().unwrap_or_default();
            if let Some((pkg, _)) = me.rsplit_once('.')
                && !self
                    .modules
                    .get(pkg)
                    .is_some_and(|f| self.module_is_init.contains(f))
            {
                let sibling = format!("{pkg}.{full}");
                if let Some(&f) = self.modules.get(&sibling) {
                    return Some(Value::Module(f));
                }
            }
        }
        if full.is_empty() {
            return None;
        }
        Some(Value::External(self.intern(&full)))
    }

    /// The module-level `__getattr__` functions (PEP 562) of the module in
    /// file `f`.
    pub(super) fn module_getattr_hooks(&mut self, f: u32) -> SmallVec<[RawDeclId; 1]> {
        let decl = self.module_decl(f);
        let found = self.get(Slot::Var(decl, self.dunder_getattr));
        self.functions_among(found, DeclKind::Function)
    }

    /// A name a module does not define is what its `__getattr__` returns
    /// (PEP 562: lazy imports, deprecated aliases), read by calling it.
    pub(super) fn module_getattr_fallback(&mut self, f: u32, name: GSym) -> Vals {
        if !self.may_ask_getattr(name) {
            return Vals::new();
        }
        let hooks = self.module_getattr_hooks(f);
        self.read_through(hooks)
    }
}
