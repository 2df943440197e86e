//! Package identity (import paths from `go.mod`), qualified names as go/ssa
//! spells them, and the symbol-table lookups: a file's names, scopes and
//! locals, imported and dot-imported packages, and what `pkg.Name` is.

use super::{Analysis, Callee, PkgRef, RType};
use crate::lang::go::{Binding, ExprId, GoExpr};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{Confidence, DeclKind, Sym};
use crate::resolve::{Builder, RawDeclId, SourceFile, go_std};
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

/// Import path of every Go file: the module path of the nearest enclosing
/// `go.mod` plus the directory below it; without a go.mod, the directory.
pub fn package_paths(
    files: &[SourceFile],
    go_files: &[u32],
    go_modules: &[(String, String)],
) -> HashMap<u32, String> {
    let mut out = HashMap::default();
    for &i in go_files {
        let path = files[i as usize].path;
        let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let module = go_modules
            .iter()
            .filter(|(mdir, _)| {
                mdir.is_empty() || dir == mdir || dir.starts_with(&format!("{mdir}/"))
            })
            .max_by_key(|(mdir, _)| mdir.len());
        let external_test = match &files[i as usize].facts.lang_facts {
            LangFacts::Go(g) => files[i as usize].facts.sym(g.package).ends_with("_test"),
            _ => false,
        };
        let import = match module {
            Some((mdir, mpath)) => {
                let rest = dir
                    .strip_prefix(mdir.as_str())
                    .unwrap_or("")
                    .trim_start_matches('/');
                if rest.is_empty() {
                    mpath.clone()
                } else if mpath == "std" {
                    // Go's own source tree (`src/go.mod` says `module std`):
                    // its packages are imported as `fmt`, `net/http`.
                    rest.to_owned()
                } else {
                    format!("{mpath}/{rest}")
                }
            }
            None => {
                if dir.is_empty() {
                    match &files[i as usize].facts.lang_facts {
                        LangFacts::Go(g) => files[i as usize].facts.sym(g.package).to_owned(),
                        _ => String::new(),
                    }
                } else {
                    dir.to_owned()
                }
            }
        };
        // `package foo_test` files form their own package (`path_test` in SSA).
        let import = if external_test {
            format!("{import}_test")
        } else {
            import
        };
        out.insert(i, import);
    }
    out
}

/// `(*T).M` → `(*pkg.T).M`, `F` → `pkg.F`, `F$1` → `pkg.F$1`.
pub fn qualified_name(pkg: &str, local: &str) -> String {
    if let Some(rest) = local.strip_prefix("(*") {
        format!("(*{pkg}.{rest}")
    } else if let Some(rest) = local.strip_prefix('(') {
        format!("({pkg}.{rest}")
    } else {
        format!("{pkg}.{local}")
    }
}

/// The import path of a function or method outside the repository, from
/// its SSA name: `flag.Var` and `(*flag.FlagSet).Var` are package flag's.
pub(super) fn external_package(name: &str) -> Option<&str> {
    let name = name.trim_start_matches('(').trim_start_matches('*');
    let qualified = match name.find(')') {
        Some(end) => &name[..end],
        None => name,
    };
    qualified.rsplit_once('.').map(|(path, _)| path)
}

/// Closures named as go/ssa names them: those inside the n-th `init()`
/// are `pkg.init#n$1`, and those in package-level initializers are
/// `pkg.init$1`, `pkg.init$2`… across the package's files in order (SSA
/// numbers them in initialization order, which follows dependencies;
/// file order agrees wherever no initializer depends on a later one).
/// Extraction named both `init$1` within each file.
pub(super) fn name_init_closures(
    b: &mut Builder,
    facts: &FileFacts,
    base: RawDeclId,
    path: &str,
    init_numbers: &HashMap<u32, u32>,
    package_closures: &mut HashMap<String, u32>,
) {
    let mut top_numbers: HashMap<u32, u32> = HashMap::default();
    for (li, d) in facts.decls.iter().enumerate() {
        if d.kind != DeclKind::Closure {
            continue;
        }
        // The outermost closure around this one, and what encloses that.
        let mut top = li as u32;
        let mut root = d.parent;
        while let Some(r) = root {
            match facts.decls.get(r as usize) {
                Some(p) if p.kind == DeclKind::Closure => {
                    top = r;
                    root = p.parent;
                }
                _ => break,
            }
        }
        let Some(rest) = d.local_name.strip_prefix("init$") else {
            continue;
        };
        let root_decl = root.and_then(|r| facts.decls.get(r as usize));
        let name = match root_decl.map(|r| r.kind) {
            Some(DeclKind::Function) => match root.and_then(|r| init_numbers.get(&r)) {
                Some(n) => format!("{path}.init#{n}${rest}"),
                None => continue,
            },
            None | Some(DeclKind::Package) => {
                let number = match top_numbers.get(&top) {
                    Some(&n) => n,
                    None => {
                        let n = package_closures.entry(path.to_owned()).or_insert(0);
                        *n += 1;
                        top_numbers.insert(top, *n);
                        *n
                    }
                };
                // `rest` is the file's number of the outermost closure, then
                // any nested numbers (`2$1`).
                let nested = rest.find('$').map_or("", |i| &rest[i..]);
                format!("{path}.init${number}{nested}")
            }
            _ => continue,
        };
        if let Some(decl) = b.res.decls.get_mut((base + li as u32) as usize) {
            decl.name = name.into();
        }
    }
}

impl<'a> Analysis<'a> {
    pub(super) fn sym(&self, ci: usize, s: Sym) -> &'a str {
        self.ctxs[ci].facts.sym(s)
    }

    pub(super) fn expr(&self, ci: usize, e: ExprId) -> &'a GoExpr {
        self.ctxs[ci]
            .go
            .exprs
            .get(e as usize)
            .unwrap_or(&GoExpr::Unknown)
    }

    pub(super) fn scope_parent(&self, ci: usize, scope: u32) -> Option<u32> {
        let d = self.ctxs[ci].facts.decls.get(scope as usize)?;
        if scope == 0 {
            None
        } else {
            Some(d.parent.unwrap_or(0))
        }
    }

    /// The binding of a local name, searching enclosing closures, then package level.
    pub(super) fn local(&self, ci: usize, scope: u32, name: Sym) -> Option<(usize, &'a Binding)> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            if let Some(list) = self.ctxs[ci].bindings.get(&(cur, name)) {
                // A declared type (parameter, `var x T`) is authoritative; else
                // the first value assigned, other than a range's first
                // variable (bindings are per function, and `for i := range
                // xs` is mostly an index, whose type is not tracked).
                let typed = list.iter().find(|b| matches!(b, Binding::Type(_)));
                let assigned = list.iter().find(|b| {
                    !matches!(b, Binding::Value(e) if matches!(self.expr(ci, *e), GoExpr::RangeKey(_)))
                });
                return typed.or(assigned).or(list.first()).map(|b| (ci, *b));
            }
            s = self.scope_parent(ci, cur);
        }
        // Package-level variables of other files of the same package.
        let text = self.sym(ci, name);
        let (vci, vname) = *self.pkgs[self.ctxs[ci].pkg].vars.get(text)?;
        self.ctxs[vci]
            .bindings
            .get(&(0, vname))
            .and_then(|l| l.first())
            .map(|b| (vci, *b))
    }

    /// If `e` names an imported package (not shadowed), which one.
    pub(super) fn package_operand(&self, ci: usize, scope: u32, e: ExprId) -> Option<PkgRef> {
        let GoExpr::Ident(n) = self.expr(ci, e) else {
            return None;
        };
        if self.local(ci, scope, *n).is_some() {
            return None;
        }
        let path = *self.ctxs[ci].imports.get(self.sym(ci, *n))?;
        Some(match self.pkg_by_path.get(path) {
            Some(&p) => PkgRef::Repo(p),
            None => PkgRef::Ext(path.to_owned()),
        })
    }

    /// The dot-imported package an unqualified `name` (declared nowhere in
    /// the file's own package) comes from: the repository package among
    /// them that declares it, else the one out-of-repository dot import
    /// (with several, which one exports it is not known here).
    pub(super) fn dot_package(&self, ci: usize, name: &str) -> Option<PkgRef> {
        let dots = &self.ctxs[ci].dot_imports;
        if dots.is_empty() || !name.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        let mut external = None;
        let mut externals = 0;
        for path in dots {
            match self.pkg_by_path.get(*path) {
                Some(&p) => {
                    let pkg = &self.pkgs[p];
                    if pkg.funcs.contains_key(name)
                        || pkg.types.contains_key(name)
                        || pkg.vars.contains_key(name)
                    {
                        return Some(PkgRef::Repo(p));
                    }
                }
                None => {
                    externals += 1;
                    external = Some(PkgRef::Ext((*path).to_owned()));
                }
            }
        }
        if externals == 1 { external } else { None }
    }

    /// The type of `pkg.name`: a function's results, a variable's type, or
    /// the type itself (a conversion).
    pub(super) fn package_member_type(&self, pkg: PkgRef, name: &str, depth: u32) -> RType {
        match pkg {
            PkgRef::Repo(p) => {
                if let Some(&(fci, fi)) = self.pkgs[p].funcs.get(name) {
                    let f = &self.ctxs[fci].go.funcs[fi as usize];
                    RType::Func(
                        f.results
                            .iter()
                            .map(|r| self.resolve_type(fci, *r, 0))
                            .collect(),
                    )
                } else if let Some(&(vci, vname)) = self.pkgs[p].vars.get(name) {
                    match self.ctxs[vci]
                        .bindings
                        .get(&(0, vname))
                        .and_then(|l| l.first())
                    {
                        Some(b) => self.binding_type(vci, 0, b, depth),
                        None => RType::Unknown,
                    }
                } else if self.pkgs[p].types.contains_key(name) {
                    RType::TypeValue(Box::new(RType::Named(
                        PkgRef::Repo(p),
                        name.to_owned(),
                        Vec::new(),
                    )))
                } else {
                    RType::Unknown
                }
            }
            // Whether `pkg.Name` is a type, a function or a variable is
            // not in the repository; for the standard library it is in
            // the table, and elsewhere guessing would invent methods.
            PkgRef::Ext(path) => {
                let qualified = format!("{path}.{name}");
                let std = go_std::std();
                if let Some(results) = std.func_results(&qualified) {
                    RType::Func(results.iter().map(|r| self.std_type(r)).collect())
                } else if let Some(t) = std.var_type(&qualified) {
                    self.std_type(t)
                } else if std.is_type(&qualified) {
                    RType::TypeValue(Box::new(RType::Named(
                        PkgRef::Ext(path),
                        name.to_owned(),
                        Vec::new(),
                    )))
                } else {
                    RType::Unknown
                }
            }
        }
    }

    /// What calling `pkg.name` reaches.
    pub(super) fn package_member_callees(
        &mut self,
        pkg: PkgRef,
        name_s: &str,
        depth: u32,
    ) -> Vec<Callee> {
        match pkg {
            PkgRef::Repo(p) => {
                if let Some(&(fci, fi)) = self.pkgs[p].funcs.get(name_s) {
                    let d = self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl;
                    vec![Callee::Decl(d, Confidence::Certain)]
                } else if self.pkgs[p].types.contains_key(name_s) {
                    vec![Callee::NotACall]
                } else if let Some(&(vci, vname)) = self.pkgs[p].vars.get(name_s) {
                    // `clock.Now()` with `var Now = time.Now`: what the
                    // package's variable holds.
                    let vals = self.ident_func_values(vci, 0, vname, depth + 1);
                    if vals.is_empty() {
                        vec![Callee::Unresolved(format!(
                            "`{name_s}` is a variable of {} with no traced function value",
                            self.pkgs[p].path
                        ))]
                    } else {
                        self.func_value_callees(vals)
                    }
                } else {
                    vec![Callee::Unresolved(format!(
                        "`{name_s}` is not a function of {}",
                        self.pkgs[p].path
                    ))]
                }
            }
            PkgRef::Ext(path) => {
                let qualified = format!("{path}.{name_s}");
                let std = go_std::std();
                // `http.HandlerFunc(f)` and `unsafe.Pointer(p)` convert;
                // they call nothing.
                if qualified == "unsafe.Pointer"
                    || (std.is_type(&qualified) && std.func_results(&qualified).is_none())
                {
                    vec![Callee::NotACall]
                } else {
                    vec![Callee::External(qualified)]
                }
            }
        }
    }

    /// The function `pkg.name` is, as a value.
    pub(super) fn package_member_values(
        &mut self,
        pkg: PkgRef,
        name_s: &str,
        depth: u32,
    ) -> Vec<RawDeclId> {
        match pkg {
            PkgRef::Repo(p) => match self.pkgs[p].funcs.get(name_s) {
                Some(&(fci, fi)) => {
                    vec![self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl]
                }
                None => match self.pkgs[p].vars.get(name_s) {
                    Some(&(vci, vname)) => self.ident_func_values(vci, 0, vname, depth + 1),
                    None => Vec::new(),
                },
            },
            PkgRef::Ext(path) => vec![self.external_value(format!("{path}.{name_s}"))],
        }
    }

    /// A call of the predeclared function `name`, not shadowed by a local
    /// or a function of the package.
    pub(super) fn is_builtin_call(&self, ci: usize, scope: u32, call: u32, name: &str) -> bool {
        let callee = self.ctxs[ci].go.calls[call as usize].callee;
        match *self.expr(ci, callee) {
            GoExpr::Ident(n) => {
                self.sym(ci, n) == name
                    && self.local(ci, scope, n).is_none()
                    && !self.pkgs[self.ctxs[ci].pkg].funcs.contains_key(name)
            }
            _ => false,
        }
    }

    /// Import paths some file of the repository imports.
    pub(super) fn imported_paths(&mut self) -> &HashSet<String> {
        let ctxs = &self.ctxs;
        self.imported_paths.get_or_insert_with(|| {
            ctxs.iter()
                .flat_map(|c| {
                    c.go.imports
                        .iter()
                        .map(|&(_, path)| c.facts.sym(path).to_owned())
                })
                .collect()
        })
    }
}
