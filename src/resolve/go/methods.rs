//! Method sets: a type's own and promoted methods (embedded structs and
//! interfaces), interface method sets, and which repository types implement
//! an interface (method names, arities and signatures).

use super::library::{external_method, receiver_type_name, std_interface};
use super::types::{Signature, arity, has_unknown};
use super::{Analysis, Callee, PkgRef, RType};
use crate::lang::go::{Binding, GoType, GoTypeBody, TypeId};
use crate::model::{Confidence, Sym};
use crate::resolve::{RawDeclId, go_std};
use rustc_hash::FxHashMap as HashMap;

/// A method set as one string (`Read/1,Close/0`), the key of memos by method set.
pub(super) fn methods_key(methods: &[(&str, u16)]) -> String {
    methods
        .iter()
        .map(|(m, a)| format!("{m}/{a}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Standard-library interfaces with exactly one implementation in every
/// program: a call through one can only reach that type's method, and call
/// graphs (which never contain interface methods) name it so.
pub(super) const SOLE_IMPLEMENTATIONS: &[(&str, &str)] = &[("reflect.Type", "*reflect.rtype")];

impl<'a> Analysis<'a> {
    /// The embedded field of repository struct `pkg.tname` whose interface
    /// type (of the repository) has method `name`: the interface's package
    /// and name, which is also the field's.
    pub(super) fn embedded_interface(
        &self,
        pkg: usize,
        tname: &str,
        name: &str,
    ) -> Option<(usize, String)> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(ip), iname, ..)
                    if matches!(
                        self.type_body(*ip, iname),
                        Some((_, GoTypeBody::Interface { .. }))
                    ) && self
                        .interface_methods(*ip, iname, 0)
                        .is_some_and(|ms| ms.iter().any(|(m, _)| m == name)) =>
                {
                    Some((*ip, iname.clone()))
                }
                _ => None,
            }
        })
    }

    /// Whether a repository type has method `name` taking `arity` parameters
    /// (any count when its parameters are unknown).
    pub(super) fn has_method(&self, pkg: usize, tname: &str, name: &str, arity: u16) -> bool {
        match self.method(pkg, tname, name, 0) {
            Some(m) => self
                .params_of
                .get(&m)
                .is_none_or(|params| params.len() == arity as usize),
            // Promoted from an embedded interface: `struct{ ResponseWriter }`
            // implements ResponseWriter, with a method of its own or not;
            // `struct{ io.Writer }` has Write.
            None => {
                self.embedded_interface(pkg, tname, name).is_some()
                    || self.embedded_std_interface(pkg, tname, name).is_some()
                    || self.promoted_std_method(pkg, tname, name, 0).is_some()
            }
        }
    }

    /// A method `pkg.tname` has from an embedded standard-library type,
    /// directly or through embedded repository structs (`Prefix` of
    /// `struct{ *log.Logger }`), named as external methods are.
    pub(super) fn promoted_std_method(
        &self,
        pkg: usize,
        tname: &str,
        name: &str,
        depth: u32,
    ) -> Option<String> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let std = go_std::std();
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Ext(path), ext, ..) if !path.is_empty() => std
                    .method(&format!("{path}.{ext}"), name)
                    .map(|_| external_method(path, ext, name)),
                RType::Named(PkgRef::Repo(p), n, ..) if self.method(*p, n, name, 0).is_none() => {
                    self.promoted_std_method(*p, n, name, depth + 1)
                }
                _ => None,
            }
        })
    }

    /// The embedded standard-library interface of `pkg.tname` that has
    /// method `name` (`io.Writer` in `struct{ io.Writer }`): its name,
    /// which is also the field's.
    pub(super) fn embedded_std_interface(
        &self,
        pkg: usize,
        tname: &str,
        name: &str,
    ) -> Option<String> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                // `error`, the one builtin interface, has an empty path.
                RType::Named(PkgRef::Ext(path), ext, ..) => {
                    let qualified = match path.is_empty() {
                        true => ext.clone(),
                        false => format!("{path}.{ext}"),
                    };
                    std_interface(&qualified)
                        .is_some_and(|methods| methods.iter().any(|(m, _)| *m == name))
                        .then(|| ext.clone())
                }
                _ => None,
            }
        })
    }

    /// A method of a repository type, own or promoted from an embedded field.
    pub(super) fn method(
        &self,
        pkg: usize,
        tname: &str,
        name: &str,
        depth: u32,
    ) -> Option<RawDeclId> {
        if depth > 4 {
            return None;
        }
        if let Some(&m) = self.pkgs[pkg]
            .methods
            .get(tname)
            .and_then(|ms| ms.get(name))
        {
            return Some(m);
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        if let GoTypeBody::Struct(fields) = body {
            for f in fields.iter().filter(|f| f.name.is_none()) {
                if let RType::Named(PkgRef::Repo(p), n, ..) =
                    self.resolve_type(tci, f.ty, 0).deref()
                    && let Some(m) = self.method(*p, n, name, depth + 1)
                {
                    return Some(m);
                }
            }
        }
        None
    }

    pub(super) fn interface_methods(
        &self,
        pkg: usize,
        name: &str,
        depth: u32,
    ) -> Option<Vec<(String, u16)>> {
        if depth > 4
            || !matches!(
                self.type_body(pkg, name),
                Some((_, GoTypeBody::Interface { .. }))
            )
        {
            return None;
        }
        let signatures = self.interface_signatures(pkg, name, depth);
        Some(
            signatures
                .iter()
                .map(|&(m, _, params, _)| (m.to_owned(), arity(params)))
                .collect(),
        )
    }

    /// The result types of method `name` of the repository interface
    /// `iface` (or of an interface it embeds), with the file they are
    /// written in.
    pub(super) fn interface_method_results(
        &self,
        pkg: usize,
        iface: &str,
        name: &str,
        depth: u32,
    ) -> Option<(usize, Vec<TypeId>)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, iface)?;
        let GoTypeBody::Interface {
            methods,
            results,
            embeds,
            ..
        } = body
        else {
            return None;
        };
        if let Some(i) = methods.iter().position(|&(m, _)| self.sym(tci, m) == name) {
            return Some((tci, results.get(i).cloned().unwrap_or_default()));
        }
        embeds
            .iter()
            .find_map(|e| match self.resolve_type(tci, *e, 0) {
                RType::Named(PkgRef::Repo(p), n, ..) => {
                    self.interface_method_results(p, &n, name, depth + 1)
                }
                _ => None,
            })
    }

    /// Repository types whose method set covers the interface.
    pub(super) fn implementors(&mut self, pkg: usize, iface: &str) -> Vec<(usize, String)> {
        let key = (pkg, iface.to_owned());
        if let Some(v) = self.implementors.get(&key) {
            return v.clone();
        }
        let signatures = self.interface_signatures(pkg, iface, 0);
        let wanted: Vec<(&str, u16)> = signatures
            .iter()
            .map(|&(m, _, params, _)| (m, arity(params)))
            .collect();
        let mut out = if wanted.is_empty() {
            Vec::new()
        } else {
            self.types_with_methods(&wanted)
        };
        out.retain(|(p, tname)| {
            signatures.iter().all(|(m, ici, params, results)| {
                self.method(*p, tname, m, 0)
                    .is_none_or(|decl| self.signature_fits(decl, *ici, params, results))
            })
        });
        self.implementors.insert(key, out.clone());
        out
    }

    /// The methods of repository interface `name` (and of those it
    /// embeds) with their parameter and result types, and the file
    /// context that writes them.
    pub(super) fn interface_signatures(
        &self,
        pkg: usize,
        name: &str,
        depth: u32,
    ) -> Vec<Signature<'a>> {
        if depth > 4 {
            return Vec::new();
        }
        let Some((
            tci,
            GoTypeBody::Interface {
                methods,
                results,
                params,
                embeds,
            },
        )) = self.type_body(pkg, name)
        else {
            return Vec::new();
        };
        let mut out: Vec<Signature<'a>> = methods
            .iter()
            .zip(params.iter().zip(results))
            .map(|(&(m, _), (p, r))| (self.sym(tci, m), tci, p.as_slice(), r.as_slice()))
            .collect();
        for e in embeds {
            if let RType::Named(PkgRef::Repo(p), n, ..) = self.resolve_type(tci, *e, 0) {
                out.extend(self.interface_signatures(p, &n, depth + 1));
            }
        }
        out
    }

    /// Whether method `m` may implement an interface method whose
    /// parameter and result types file `ici` writes as `params` and
    /// `results`: no place where both name a type and the types differ
    /// (`SetOption(parser.OptionName, …)` is not `SetOption(renderer.
    /// OptionName, …)`; `WithCallDepth(int) Logger` is not
    /// `WithCallDepth(int) LogSink`). A type either side cannot name (a
    /// type parameter, a literal type, an alias) decides nothing.
    pub(super) fn signature_fits(
        &self,
        m: RawDeclId,
        ici: usize,
        params: &[TypeId],
        results: &[TypeId],
    ) -> bool {
        let Some(&(mci, f)) = self.func_results.get(&m) else {
            return true;
        };
        // An alias (`type FileMode = fs.FileMode`) is the type it names.
        let named = |t: &RType| match t.deref() {
            RType::Named(PkgRef::Repo(p), n, _) => {
                !has_unknown(t)
                    && self.pkgs[*p]
                        .types
                        .get(n)
                        .is_some_and(|&(tci, ti)| !self.ctxs[tci].go.type_decls[ti].alias)
            }
            RType::Named(..) => !has_unknown(t),
            _ => false,
        };
        let differ = |a: &RType, b: &RType| named(a) && named(b) && a != b;
        if f.results.len() == results.len() {
            for (a, b) in f.results.iter().zip(results) {
                if differ(
                    &self.resolve_type(mci, *a, 0),
                    &self.resolve_type(ici, *b, 0),
                ) {
                    return false;
                }
            }
        }
        let Some(names) = self.params_of.get(&m) else {
            return true;
        };
        if names.len() != params.len() {
            return true;
        }
        for (name, b) in names.iter().zip(params) {
            // A blank parameter's binding would be another blank's.
            let Some(name) = name.filter(|&n| self.sym(mci, n) != "_") else {
                continue;
            };
            let Some((_, Binding::Type(a))) = self.local(mci, f.decl, name) else {
                continue;
            };
            if differ(
                &self.resolve_type(mci, *a, 0),
                &self.resolve_type(ici, *b, 0),
            ) {
                return false;
            }
        }
        true
    }

    /// Fill [`Analysis::declared_by`] and [`Analysis::embedders`].
    pub(super) fn index_method_holders(&mut self) {
        let mut declared_by: HashMap<String, Vec<(usize, String)>> = HashMap::default();
        let mut embedders = Vec::new();
        for (p, package) in self.pkgs.iter().enumerate() {
            for (tname, methods) in &package.methods {
                for name in methods.keys() {
                    declared_by
                        .entry(name.clone())
                        .or_default()
                        .push((p, tname.clone()));
                }
            }
            for (tname, &(tci, ti)) in &package.types {
                if let GoTypeBody::Struct(fields) = &self.ctxs[tci].go.type_decls[ti].body
                    && fields.iter().any(|f| f.name.is_none())
                {
                    embedders.push((p, tname.clone()));
                }
            }
        }
        self.declared_by = declared_by;
        self.embedders = embedders;
    }

    /// Repository types (not interfaces) with every method in `methods`
    /// (which is not empty), sorted.
    pub(super) fn types_with_methods(&self, methods: &[(&str, u16)]) -> Vec<(usize, String)> {
        let Some(&(first, _)) = methods.first() else {
            return Vec::new();
        };
        let candidates = self
            .declared_by
            .get(first)
            .into_iter()
            .flatten()
            .chain(&self.embedders);
        let mut out = Vec::new();
        for (p, tname) in candidates {
            let Some(&(tci, ti)) = self.pkgs[*p].types.get(tname) else {
                continue;
            };
            if matches!(
                self.ctxs[tci].go.type_decls[ti].body,
                GoTypeBody::Interface { .. }
            ) {
                continue;
            }
            if methods
                .iter()
                .all(|&(m, arity)| self.has_method(*p, tname, m, arity))
            {
                out.push((*p, tname.clone()));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The method `name` an anonymous struct gets from one of its embedded
    /// fields.
    pub(super) fn anonymous_struct_method(
        &self,
        sci: usize,
        t: TypeId,
        name: &str,
    ) -> Option<Callee> {
        let Some(GoType::Struct(fields)) = self.ctxs[sci].go.types.get(t as usize) else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(sci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(p), tname, ..) => self
                    .method(*p, tname, name, 0)
                    .map(|m| Callee::Decl(m, Confidence::Certain)),
                RType::Named(PkgRef::Ext(path), tname, ..) if !path.is_empty() => {
                    let qualified = format!("{path}.{tname}");
                    go_std::std()
                        .method(&qualified, name)
                        .map(|_| Callee::External(external_method(path, tname, name)))
                }
                _ => None,
            }
        })
    }

    /// Repository types (not interfaces) that have every method in `methods`.
    pub(super) fn implementors_of(
        &mut self,
        key: String,
        methods: &[(&str, u16)],
    ) -> Vec<(usize, String)> {
        let key = (usize::MAX, key);
        if let Some(v) = self.implementors.get(&key) {
            return v.clone();
        }
        let out = if methods.is_empty() {
            // Every type has the empty method set.
            let mut all = Vec::new();
            for (p, package) in self.pkgs.iter().enumerate() {
                for (tname, &(tci, ti)) in &package.types {
                    if !matches!(
                        self.ctxs[tci].go.type_decls[ti].body,
                        GoTypeBody::Interface { .. }
                    ) {
                        all.push((p, tname.clone()));
                    }
                }
            }
            all.sort();
            all
        } else {
            self.types_with_methods(methods)
        };
        self.implementors.insert(key, out.clone());
        out
    }

    /// The first embedded field type from outside the repository, searching
    /// through embedded repository structs.
    pub(super) fn external_embedded(
        &self,
        pkg: usize,
        tname: &str,
        depth: u32,
    ) -> Option<(String, String)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        for f in fields.iter().filter(|f| f.name.is_none()) {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Ext(path), n, ..) if !path.is_empty() => {
                    return Some((path.clone(), n.clone()));
                }
                RType::Named(PkgRef::Repo(p), n, ..) => {
                    if let Some(found) = self.external_embedded(*p, n, depth + 1) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Methods whose receiver is of a named function type.
    pub(super) fn find_func_receivers(&mut self) {
        for ci in 0..self.ctxs.len() {
            let (pkg, base, go) = (self.ctxs[ci].pkg, self.ctxs[ci].base, self.ctxs[ci].go);
            for f in &go.funcs {
                let (Some((recv, _)), Some(name)) = (f.recv, f.recv_name) else {
                    continue;
                };
                let recv = receiver_type_name(self.sym(ci, recv)).to_owned();
                if self.is_func_type(&RType::Named(PkgRef::Repo(pkg), recv, Vec::new())) {
                    self.func_receivers.insert(base + f.decl, name);
                }
            }
        }
    }

    /// The method whose receiver `name` is, seen from `scope` (a closure
    /// inside the method included), when it is one of [`Self::func_receivers`].
    pub(super) fn func_receiver_of(&self, ci: usize, scope: u32, name: Sym) -> Option<RawDeclId> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            if self.ctxs[ci].bindings.contains_key(&(cur, name)) {
                let f = self.ctxs[ci].base + cur;
                return (self.func_receivers.get(&f) == Some(&name)).then_some(f);
            }
            s = self.scope_parent(ci, cur);
        }
        None
    }
}
