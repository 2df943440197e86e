//! The static type of an expression: types as files write them, type
//! parameters bound for generic types and functions (unification with call
//! arguments), underlying and alias types, and struct fields.

use super::{Analysis, BUILTIN_TYPES, PkgRef, RType};
use crate::lang::go::{Binding, ExprId, GoExpr, GoField, GoType, GoTypeBody, TypeId};
use crate::model::Sym;
use crate::resolve::go_std;

/// Whether a type has a part not known (`Box[T]` outside a call that
/// binds T).
pub(super) fn has_unknown(t: &RType) -> bool {
    match t {
        RType::Unknown => true,
        RType::Pointer(t) | RType::Slice(t) | RType::Map(t) | RType::Chan(t) => has_unknown(t),
        RType::Named(_, _, args) => args.iter().any(has_unknown),
        _ => false,
    }
}

/// An interface method as a file writes it: (name, file context,
/// parameter types, result types).
pub(super) type Signature<'a> = (&'a str, usize, &'a [TypeId], &'a [TypeId]);

/// A method's parameter count, as interface method sets compare them.
pub(super) fn arity(params: &[TypeId]) -> u16 {
    params.len().min(u16::MAX as usize) as u16
}

/// Type parameters bound to type arguments: (parameter name, argument).
pub(super) type TypeEnv<'a> = Vec<(&'a str, RType)>;

/// `byte` and `rune` are aliases: compare them as what they alias.
pub(super) fn canonical_basic(name: &str) -> &str {
    match name {
        "byte" => "uint8",
        "rune" => "int32",
        "[]byte" => "[]uint8",
        other => other,
    }
}

impl<'a> Analysis<'a> {
    pub(super) fn resolve_type(&self, ci: usize, t: TypeId, depth: u32) -> RType {
        self.resolve_type_in(ci, t, depth, &[])
    }

    /// A type as file `ci` writes it, with the type parameters `env`
    /// binds replaced by their arguments (`T` in a method of `Stack[T]`
    /// called on a `Stack[Shape]`).
    pub(super) fn resolve_type_in(
        &self,
        ci: usize,
        t: TypeId,
        depth: u32,
        env: &[(&str, RType)],
    ) -> RType {
        if depth > 12 {
            return RType::Unknown;
        }
        let go = self.ctxs[ci].go;
        let args = || self.type_args(ci, t, depth, env);
        match go.types.get(t as usize).unwrap_or(&GoType::Unknown) {
            GoType::Unknown => RType::Unknown,
            GoType::Named { pkg: None, name } => {
                let name = self.sym(ci, *name);
                if let Some((_, bound)) = env.iter().find(|(n, _)| *n == name) {
                    return bound.clone();
                }
                if BUILTIN_TYPES.contains(&name) {
                    return RType::Named(PkgRef::Ext(String::new()), name.to_owned(), Vec::new());
                }
                let pkg = self.ctxs[ci].pkg;
                if self.pkgs[pkg].types.contains_key(name) {
                    return RType::Named(PkgRef::Repo(pkg), name.to_owned(), args());
                }
                match self.dot_package(ci, name) {
                    Some(PkgRef::Repo(p)) if !self.pkgs[p].types.contains_key(name) => {
                        RType::Unknown
                    }
                    Some(dot) => RType::Named(dot, name.to_owned(), args()),
                    None => RType::Unknown,
                }
            }
            GoType::Named {
                pkg: Some(alias),
                name,
            } => {
                let alias = self.sym(ci, *alias);
                let name = self.sym(ci, *name).to_owned();
                match self.ctxs[ci].imports.get(alias) {
                    Some(path) => match self.pkg_by_path.get(*path) {
                        Some(&p) => RType::Named(PkgRef::Repo(p), name, args()),
                        None => RType::Named(PkgRef::Ext((*path).to_owned()), name, args()),
                    },
                    None => RType::Unknown,
                }
            }
            GoType::Pointer(inner) => {
                RType::Pointer(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Slice(inner) => {
                RType::Slice(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Map(_, v) => RType::Map(Box::new(self.resolve_type_in(ci, *v, depth + 1, env))),
            GoType::Chan(inner) => {
                RType::Chan(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Func { results } => RType::Func(
                results
                    .iter()
                    .map(|r| self.resolve_type_in(ci, *r, depth + 1, env))
                    .collect(),
            ),
            GoType::Struct(_) | GoType::Interface(_) => RType::Struct(ci, t),
        }
    }

    /// The type arguments file `ci` gives the generic type `t`, if any.
    pub(super) fn type_args(
        &self,
        ci: usize,
        t: TypeId,
        depth: u32,
        env: &[(&str, RType)],
    ) -> Vec<RType> {
        self.ctxs[ci]
            .go
            .type_args_of(t)
            .iter()
            .map(|&a| self.resolve_type_in(ci, a, depth + 1, env))
            .collect()
    }

    /// What the type parameters of generic type `pkg.tname` stand for in
    /// an instance with `args`.
    pub(super) fn type_env(&self, pkg: usize, tname: &str, args: &[RType]) -> TypeEnv<'a> {
        if args.is_empty() {
            return Vec::new();
        }
        let Some(&(tci, ti)) = self.pkgs[pkg].types.get(tname) else {
            return Vec::new();
        };
        self.bind_params(tci, &self.ctxs[tci].go.type_decls[ti].params, args)
    }

    /// Type parameters named in file `ci`, bound in order to `args`: a
    /// generic type's, or the names a method gives its receiver's.
    pub(super) fn bind_params(&self, ci: usize, params: &[Sym], args: &[RType]) -> TypeEnv<'a> {
        params
            .iter()
            .zip(args)
            .map(|(&p, a)| (self.sym(ci, p), a.clone()))
            .collect()
    }

    pub(super) fn binding_type(&self, ci: usize, scope: u32, b: &Binding, depth: u32) -> RType {
        match b {
            Binding::Type(t) => self.resolve_type(ci, *t, 0),
            Binding::Value(e) => self.type_of(ci, scope, *e, depth + 1),
        }
    }

    pub(super) fn type_of(&self, ci: usize, scope: u32, e: ExprId, depth: u32) -> RType {
        if depth > 24 {
            return RType::Unknown;
        }
        match self.expr(ci, e) {
            GoExpr::Ident(n) => {
                if let Some((bci, b)) = self.local(ci, scope, *n) {
                    let bscope = if bci == ci { scope } else { 0 };
                    return self.binding_type(bci, bscope, b, depth);
                }
                let name = self.sym(ci, *n);
                let pkg = self.ctxs[ci].pkg;
                if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(name) {
                    let f = &self.ctxs[fci].go.funcs[fi as usize];
                    return RType::Func(
                        f.results
                            .iter()
                            .map(|r| self.resolve_type(fci, *r, 0))
                            .collect(),
                    );
                }
                if self.pkgs[pkg].types.contains_key(name) || BUILTIN_TYPES.contains(&name) {
                    let t = if BUILTIN_TYPES.contains(&name) {
                        PkgRef::Ext(String::new())
                    } else {
                        PkgRef::Repo(pkg)
                    };
                    return RType::TypeValue(Box::new(RType::Named(
                        t,
                        name.to_owned(),
                        Vec::new(),
                    )));
                }
                match self.dot_package(ci, name) {
                    Some(pkg) => self.package_member_type(pkg, name, depth),
                    None => RType::Unknown,
                }
            }
            GoExpr::Selector(base, name) => {
                let name = self.sym(ci, *name);
                if let Some(pkg) = self.package_operand(ci, scope, *base) {
                    return self.package_member_type(pkg, name, depth);
                }
                let bt = self.type_of(ci, scope, *base, depth + 1);
                if let RType::Named(PkgRef::Ext(path), tname, ..) = bt.deref()
                    && !path.is_empty()
                {
                    let qualified = format!("{path}.{tname}");
                    let std = go_std::std();
                    if let Some(ft) = std.field(&qualified, name) {
                        return self.std_type(ft);
                    }
                    let results = std
                        .method(&qualified, name)
                        .map(|(_, r)| r)
                        .or_else(|| std.interface_method_results(&qualified, name));
                    if let Some(results) = results {
                        return RType::Func(results.iter().map(|r| self.std_type(r)).collect());
                    }
                }
                if let RType::Struct(sci, t) = bt.deref()
                    && let Some(GoType::Struct(fields)) = self.ctxs[*sci].go.types.get(*t as usize)
                {
                    let field = fields
                        .iter()
                        .find(|f| f.name.is_some_and(|n| self.sym(*sci, n) == name));
                    return match field {
                        Some(f) => self.resolve_type(*sci, f.ty, depth + 1),
                        None => RType::Unknown,
                    };
                }
                if let RType::Named(PkgRef::Repo(p), tname, args) = bt.deref() {
                    if let Some(ft) = self.field_type(*p, tname, name, args, 0) {
                        return ft;
                    }
                    // A declared method's results, else an interface method's.
                    let results = self
                        .method(*p, tname, name, 0)
                        .and_then(|m| self.func_results.get(&m))
                        .map(|&(fci, f)| {
                            (
                                fci,
                                f.results.clone(),
                                self.bind_params(fci, &f.recv_params, args),
                            )
                        })
                        .or_else(|| {
                            let (fci, results) =
                                self.interface_method_results(*p, tname, name, 0)?;
                            Some((fci, results, self.type_env(*p, tname, args)))
                        });
                    if let Some((fci, results, env)) = results {
                        return RType::Func(
                            results
                                .iter()
                                .map(|r| self.resolve_type_in(fci, *r, 0, &env))
                                .collect(),
                        );
                    }
                }
                RType::Unknown
            }
            GoExpr::Call(c) => self.call_result(ci, scope, *c, 0, depth),
            GoExpr::Nth(inner, n) => match self.expr(ci, *inner) {
                GoExpr::Call(c) => self.call_result(ci, scope, *c, *n as usize, depth),
                GoExpr::TypeAssert(..) | GoExpr::Index(_) if *n == 0 => {
                    self.type_of(ci, scope, *inner, depth + 1)
                }
                GoExpr::TypeAssert(..) => RType::Unknown,
                _ if *n == 0 => self.type_of(ci, scope, *inner, depth + 1),
                _ => RType::Unknown,
            },
            GoExpr::Index(inner) => match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                RType::Slice(t) | RType::Map(t) => *t,
                RType::Pointer(p) => match *p {
                    RType::Slice(t) => *t,
                    _ => RType::Unknown,
                },
                // `F[int]` instantiates a generic function: still F.
                f @ RType::Func(_) => f,
                tv @ RType::TypeValue(_) => tv,
                _ => RType::Unknown,
            },
            GoExpr::Deref(inner) => match self.type_of(ci, scope, *inner, depth + 1) {
                RType::Pointer(t) => *t,
                RType::TypeValue(t) => RType::TypeValue(Box::new(RType::Pointer(t))),
                _ => RType::Unknown,
            },
            GoExpr::AddrOf(inner) => {
                RType::Pointer(Box::new(self.type_of(ci, scope, *inner, depth + 1)))
            }
            GoExpr::Composite(t) | GoExpr::TypeAssert(_, t) => self.resolve_type(ci, *t, 0),
            // `for v := range ch`: the channel's element; an index or a
            // map key (not tracked) otherwise.
            GoExpr::RangeKey(inner) => {
                match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                    RType::Chan(t) => *t,
                    _ => RType::Unknown,
                }
            }
            GoExpr::RangeValue(inner) => {
                match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                    RType::Slice(t) | RType::Map(t) | RType::Chan(t) => *t,
                    RType::Pointer(p) => match *p {
                        RType::Slice(t) => *t,
                        _ => RType::Unknown,
                    },
                    _ => RType::Unknown,
                }
            }
            GoExpr::Type(t) => RType::TypeValue(Box::new(self.resolve_type(ci, *t, 0))),
            GoExpr::FuncLit(_) | GoExpr::Unknown => RType::Unknown,
        }
    }

    /// The type call `c` of file `ci` returns (its `n`-th result).
    pub(super) fn call_result(&self, ci: usize, scope: u32, c: u32, n: usize, depth: u32) -> RType {
        let Some(call) = self.ctxs[ci].go.calls.get(c as usize) else {
            return RType::Unknown;
        };
        let (callee, args) = (call.callee, call.args.as_slice());
        if let GoExpr::Ident(name) = self.expr(ci, callee)
            && self.local(ci, scope, *name).is_none()
        {
            match self.sym(ci, *name) {
                "new" => {
                    return match args.first() {
                        Some(&a) => match self.type_of(ci, scope, a, depth + 1) {
                            RType::TypeValue(t) => RType::Pointer(t),
                            _ => RType::Unknown,
                        },
                        None => RType::Unknown,
                    };
                }
                "make" => {
                    return match args.first() {
                        Some(&a) => match self.type_of(ci, scope, a, depth + 1) {
                            RType::TypeValue(t) => *t,
                            _ => RType::Unknown,
                        },
                        None => RType::Unknown,
                    };
                }
                "append" => {
                    return args
                        .first()
                        .map(|&a| self.type_of(ci, scope, a, depth + 1))
                        .unwrap_or(RType::Unknown);
                }
                _ => {}
            }
        }
        let explicit = self.ctxs[ci].go.call_type_args_of(c);
        let result = match self.type_of(ci, scope, callee, depth + 1) {
            RType::Func(results) => results.into_iter().nth(n).unwrap_or(RType::Unknown),
            // `List[Shape](xs)` converts to the instance.
            RType::TypeValue(t) if n == 0 => match *t {
                RType::Named(pkg, name, args) if args.is_empty() && !explicit.is_empty() => {
                    let args = explicit
                        .iter()
                        .map(|&a| self.resolve_type(ci, a, 0))
                        .collect();
                    RType::Named(pkg, name, args)
                }
                t => t,
            },
            _ => RType::Unknown,
        };
        if has_unknown(&result)
            && let Some((fci, fi)) = self.repo_func(ci, scope, callee)
            && let Some(t) = self.inferred_result(fci, fi, n, (ci, scope), (args, explicit), depth)
        {
            return t;
        }
        result
    }

    /// The repository function a callee names (`F`, `pkg.F`, `F[int]`).
    pub(super) fn repo_func(&self, ci: usize, scope: u32, callee: ExprId) -> Option<(usize, u32)> {
        match *self.expr(ci, callee) {
            GoExpr::Ident(name) if self.local(ci, scope, name).is_none() => self.pkgs
                [self.ctxs[ci].pkg]
                .funcs
                .get(self.sym(ci, name))
                .copied(),
            GoExpr::Selector(base, name) => match self.package_operand(ci, scope, base)? {
                PkgRef::Repo(p) => self.pkgs[p].funcs.get(self.sym(ci, name)).copied(),
                PkgRef::Ext(_) => None,
            },
            GoExpr::Index(inner) => self.repo_func(ci, scope, inner),
            _ => None,
        }
    }

    /// The n-th result of a call to generic function `fi` of file `fci`,
    /// its type parameters bound to the call's explicit type arguments
    /// (`Make[Sq]()`), then by unifying each parameter's type with its
    /// argument's: `Ident(ID(4))` is an ID, `First(ids)` an element of
    /// ids, `NewBox(&Circle{})` a `Box[*Circle]`.
    pub(super) fn inferred_result(
        &self,
        fci: usize,
        fi: u32,
        n: usize,
        (ci, scope): (usize, u32),
        (args, explicit): (&[ExprId], &[TypeId]),
        depth: u32,
    ) -> Option<RType> {
        let go = self.ctxs[fci].go;
        let f = go.funcs.get(fi as usize)?;
        let result = *f.results.get(n)?;
        let params = self.params_of.get(&(self.ctxs[fci].base + f.decl))?;
        let mut env: TypeEnv = Vec::new();
        for (&p, &t) in f.type_params.iter().zip(explicit) {
            let t = self.resolve_type(ci, t, 0);
            if t != RType::Unknown {
                env.push((self.sym(fci, p), t));
            }
        }
        for (i, p) in params.iter().enumerate() {
            let Some(p) = p else { continue };
            let Some(&arg) = args.get(i) else { break };
            let Some(ty) = self.ctxs[fci].bindings.get(&(f.decl, *p)).and_then(|bs| {
                bs.iter().find_map(|b| match b {
                    Binding::Type(t) => Some(*t),
                    Binding::Value(_) => None,
                })
            }) else {
                continue;
            };
            let arg_type = self.type_of(ci, scope, arg, depth + 1);
            self.unify(fci, ty, arg_type, &mut env, 0);
        }
        if env.is_empty() {
            return None;
        }
        let t = self.resolve_type_in(fci, result, 0, &env);
        (t != RType::Unknown).then_some(t)
    }

    /// Binds the type parameters that type `t` of file `fci` spells to
    /// what `arg` has in their places (`[]T` against `[]Name`).
    pub(super) fn unify(
        &self,
        fci: usize,
        t: TypeId,
        arg: RType,
        env: &mut TypeEnv<'a>,
        depth: u32,
    ) {
        if depth > 8 || arg == RType::Unknown {
            return;
        }
        let go = self.ctxs[fci].go;
        match go.types.get(t as usize) {
            Some(GoType::Named { pkg: None, name }) => {
                let name = self.sym(fci, *name);
                let declared = self.pkgs[self.ctxs[fci].pkg].types.contains_key(name);
                if !declared && !BUILTIN_TYPES.contains(&name) {
                    if !env.iter().any(|(n, _)| *n == name) {
                        env.push((name, arg));
                    }
                    return;
                }
                if let RType::Named(_, an, aargs) = arg
                    && an == name
                {
                    self.unify_args(fci, t, aargs, env, depth);
                }
            }
            Some(GoType::Named { pkg: Some(_), name }) => {
                if let RType::Named(_, an, aargs) = arg
                    && an == self.sym(fci, *name)
                {
                    self.unify_args(fci, t, aargs, env, depth);
                }
            }
            Some(&GoType::Pointer(inner)) => {
                if let RType::Pointer(a) = arg {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Slice(inner)) => {
                if let RType::Slice(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Map(_, inner)) => {
                if let RType::Map(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Chan(inner)) => {
                if let RType::Chan(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            _ => {}
        }
    }

    pub(super) fn unify_args(
        &self,
        fci: usize,
        t: TypeId,
        args: Vec<RType>,
        env: &mut TypeEnv<'a>,
        depth: u32,
    ) {
        for (&p, a) in self.ctxs[fci].go.type_args_of(t).iter().zip(args) {
            self.unify(fci, p, a, env, depth + 1);
        }
    }

    pub(super) fn type_body(&self, pkg: usize, name: &str) -> Option<(usize, &'a GoTypeBody)> {
        let &(tci, ti) = self.pkgs[pkg].types.get(name)?;
        Some((tci, &self.ctxs[tci].go.type_decls[ti].body))
    }

    /// The type of field `field` of `pkg.tname` (an instance with `args`
    /// when the type is generic).
    pub(super) fn field_type(
        &self,
        pkg: usize,
        tname: &str,
        field: &str,
        args: &[RType],
        depth: u32,
    ) -> Option<RType> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let env = self.type_env(pkg, tname, args);
        for f in fields {
            if let Some(n) = f.name
                && self.sym(tci, n) == field
            {
                return Some(self.resolve_type_in(tci, f.ty, 0, &env));
            }
        }
        // Fields promoted from embedded structs; an embedded field is also named by its type.
        for f in fields.iter().filter(|f| f.name.is_none()) {
            let t = self.resolve_type_in(tci, f.ty, 0, &env);
            match t.deref() {
                RType::Named(_, n, ..) if n == field => return Some(t.clone()),
                RType::Named(PkgRef::Repo(p), n, inner_args) => {
                    if let Some(ft) = self.field_type(*p, n, field, inner_args, depth + 1) {
                        return Some(ft);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The struct that declares `field` as `pkg.tname` sees it: the type
    /// itself, or the embedded struct it is promoted from. Values stored in
    /// a field are keyed by its owner, so `outer.f = v` and `inner.f` meet.
    pub(super) fn field_owner(
        &self,
        pkg: usize,
        tname: &str,
        field: &str,
        depth: u32,
    ) -> Option<(usize, String)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let named = |f: &GoField| match f.name {
            Some(n) => self.sym(tci, n) == field,
            None => {
                matches!(self.resolve_type(tci, f.ty, 0).deref(), RType::Named(_, n, ..) if n == field)
            }
        };
        if fields.iter().any(named) {
            return Some((pkg, tname.to_owned()));
        }
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(p), n, ..) => self.field_owner(*p, n, field, depth + 1),
                _ => None,
            }
        })
    }

    /// The key values stored in `field` of `pkg.tname` are kept under:
    /// the struct that declares the field.
    pub(super) fn field_key(
        &self,
        pkg: usize,
        tname: &str,
        field: &str,
    ) -> (usize, String, String) {
        let (p, t) = self
            .field_owner(pkg, tname, field, 0)
            .unwrap_or_else(|| (pkg, tname.to_owned()));
        (p, t, field.to_owned())
    }

    /// A named slice, map or channel type of the repository as the type it
    /// is declared over (`type nodeStack []Node`: `(*s)[i]` is a Node);
    /// any other type as it is.
    pub(super) fn underlying(&self, t: RType) -> RType {
        let mut t = t;
        for _ in 0..8 {
            let RType::Named(PkgRef::Repo(p), name, args) = &t else {
                return t;
            };
            let Some((tci, GoTypeBody::Other(inner))) = self.type_body(*p, name) else {
                return t;
            };
            let env = self.type_env(*p, name, args);
            let under = self.resolve_type_in(tci, *inner, 0, &env);
            match under {
                RType::Slice(_) | RType::Map(_) | RType::Chan(_) | RType::Named(..) => t = under,
                _ => return t,
            }
        }
        t
    }

    /// A repository type declared over an interface (`type FileInfo =
    /// fs.FileInfo`, or `type Info fs.FileInfo`) as that interface: its
    /// methods are the interface's, so a call through it dispatches as one
    /// through the interface. Any other type as it is.
    pub(super) fn interface_behind(&self, t: RType, depth: u32) -> RType {
        if depth > 8 {
            return t;
        }
        let RType::Named(PkgRef::Repo(p), name, ..) = &t else {
            return t;
        };
        let Some((tci, GoTypeBody::Other(inner))) = self.type_body(*p, name) else {
            return t;
        };
        // Through a chain of such declarations (`type A = B; type B = io.Reader`).
        let under = self.interface_behind(self.resolve_type(tci, *inner, 0), depth + 1);
        let is_interface = match &under {
            RType::Named(PkgRef::Repo(q), n, ..) => {
                matches!(
                    self.type_body(*q, n),
                    Some((_, GoTypeBody::Interface { .. }))
                )
            }
            RType::Named(PkgRef::Ext(path), n, ..) if path.is_empty() => n == "error",
            RType::Named(PkgRef::Ext(path), n, ..) => {
                go_std::std().interface(&format!("{path}.{n}")).is_some()
            }
            _ => false,
        };
        if is_interface { under } else { t }
    }

    /// Whether `e` is a channel (of a named channel type or not).
    pub(super) fn is_channel(&self, ci: usize, scope: u32, e: ExprId) -> bool {
        matches!(self.underlying_type_of(ci, scope, e, 0), RType::Chan(_))
    }

    /// [`Self::type_of`], a named container type as the one it is declared over.
    pub(super) fn underlying_type_of(&self, ci: usize, scope: u32, e: ExprId, depth: u32) -> RType {
        let t = self.type_of(ci, scope, e, depth);
        self.underlying(t)
    }

    /// A function type, directly or as a named type over one (`type HandlerFunc func(…)`).
    pub(super) fn is_func_type(&self, t: &RType) -> bool {
        match t {
            RType::Func(_) => true,
            RType::Named(PkgRef::Repo(p), name, ..) => match self.type_body(*p, name) {
                Some((tci, GoTypeBody::Other(inner))) => {
                    matches!(self.resolve_type(tci, *inner, 0), RType::Func(_))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The name of a struct's n-th field (an embedded field is named by its type).
    /// An anonymous struct type (`[]struct{ name string; fn func() }`, a
    /// test table) as a pseudo type name whose fields can hold sources:
    /// its package and its field names. Two such types of one package
    /// with the same field names share their fields, as Go's identical
    /// types do (the literal's type and a variable's, written twice).
    /// The struct whose fields a value of type `t` (through pointers) has,
    /// as field sources key it: a repository type, or an anonymous struct
    /// with its field names in order.
    pub(super) fn field_holder(&self, t: &RType) -> Option<(usize, String, Option<Vec<String>>)> {
        match t.deref() {
            RType::Named(PkgRef::Repo(p), name, ..) => Some((*p, name.clone(), None)),
            &RType::Struct(sci, t) => self
                .anonymous_struct(sci, t)
                .map(|(p, pseudo, names)| (p, pseudo, Some(names))),
            _ => None,
        }
    }

    pub(super) fn anonymous_struct(
        &self,
        sci: usize,
        t: TypeId,
    ) -> Option<(usize, String, Vec<String>)> {
        let Some(GoType::Struct(fields)) = self.ctxs[sci].go.types.get(t as usize) else {
            return None;
        };
        let names: Vec<String> = fields
            .iter()
            .map(|f| match f.name {
                Some(n) => self.sym(sci, n).to_owned(),
                None => match self.resolve_type(sci, f.ty, 0).deref() {
                    RType::Named(_, name, ..) => name.clone(),
                    _ => String::new(),
                },
            })
            .collect();
        let pseudo = format!("struct{{{}}}", names.join("; "));
        Some((self.ctxs[sci].pkg, pseudo, names))
    }

    pub(super) fn field_name_at(&self, pkg: usize, tname: &str, n: usize) -> Option<String> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let f = fields.get(n)?;
        match f.name {
            Some(name) => Some(self.sym(tci, name).to_owned()),
            None => match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(_, name, ..) => Some(name.clone()),
                _ => None,
            },
        }
    }
}
