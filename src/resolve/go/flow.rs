//! The concrete types that may reach an expression (as x/tools' VTA traces
//! them), and the narrowing of an interface call to the methods of those
//! types.

use super::calls::push_external;
use super::library::{debug_handed, external_method};
use super::packages::external_package;
use super::values::{MAX_FUNC_VALUES, Traced};
use super::{Analysis, Callee, EXTERNAL_VALUE, PkgRef, RType};
use crate::lang::go::{ExprId, FORWARDED_RETURN, GoExpr, GoType, GoTypeBody};
use crate::model::{Confidence, Sym};
use crate::resolve::{RawDeclId, go_std};

/// Values or arguments kept per parameter or field; past it the list is
/// marked overflowing (what flows there is then unknown).
pub(super) const MAX_SOURCES: usize = 64;

/// In a traced set of types: some value whose type could not be traced
/// (the set stands for every type).
pub(super) const FLOW_UNKNOWN: RawDeclId = EXTERNAL_VALUE - 1;

/// In a traced set of types: a value of a type from outside the repository.
pub(super) const FLOW_EXTERNAL: RawDeclId = EXTERNAL_VALUE - 2;

/// Add a traced type; too many, or an unknown one, make the set unknown.
/// Types from outside the repository are named as external values are
/// (`EXTERNAL_VALUE + index`).
pub(super) fn push_flow(out: &mut Vec<RawDeclId>, d: RawDeclId) {
    if out.first() == Some(&FLOW_UNKNOWN) || out.contains(&d) {
        return;
    }
    if d == FLOW_UNKNOWN || out.len() >= MAX_FUNC_VALUES {
        out.clear();
        out.push(FLOW_UNKNOWN);
    } else {
        out.push(d);
    }
}

impl<'a> Analysis<'a> {
    /// The methods `name` of the types in `flow`, as possible callees,
    /// when every value of the flow is known and some type has one.
    pub(super) fn known_flow_methods(
        &mut self,
        flow: &[RawDeclId],
        name: &str,
    ) -> Option<Vec<Callee>> {
        if flow.contains(&FLOW_UNKNOWN) {
            return None;
        }
        let methods = self.flow_methods(flow, name, 0)?;
        (!methods.is_empty()).then(|| {
            methods
                .into_iter()
                .map(|m| Callee::Decl(m, Confidence::Possible))
                .collect()
        })
    }

    /// The methods `name` of the types in `flow`. A type that has no such
    /// method but embeds an interface that does passes the call on to
    /// what its embedded field holds (a wrapper overriding one method of
    /// an http.ResponseWriter, say). None when some field's values are
    /// not known.
    pub(super) fn flow_methods(
        &mut self,
        flow: &[RawDeclId],
        name: &str,
        hops: u32,
    ) -> Option<Vec<RawDeclId>> {
        let mut out = Vec::new();
        for d in flow {
            let Some((p, t)) = self.type_names.get(d).cloned() else {
                continue;
            };
            if let Some(m) = self.method(p, &t, name, 0) {
                if !out.contains(&m) {
                    out.push(m);
                }
                continue;
            }
            let Some(iname) = self
                .embedded_interface(p, &t, name)
                .map(|(_, iname)| iname)
                .or_else(|| self.embedded_std_interface(p, &t, name))
            else {
                continue;
            };
            let held = self.field_flow(p, &t, &iname, 1);
            if hops >= 3 || held.contains(&FLOW_UNKNOWN) {
                return None;
            }
            for m in self.flow_methods(&held, name, hops + 1)? {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        Some(out)
    }

    /// The concrete types whose values may reach `e`, for narrowing a call
    /// through an interface to the implementations that can be behind it
    /// (as x/tools' VTA does): repository types by declaration, plus
    /// [`FLOW_EXTERNAL`] for a type from outside and [`FLOW_UNKNOWN`] when
    /// some source could not be traced (a parameter of a function nothing
    /// in the repository calls, a field set by reflection, a trace too
    /// deep). Unknown means every implementation stays.
    pub(super) fn flowing_types(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<RawDeclId> {
        self.traced(ci, scope, Traced::TypesOfExpr(e), depth)
    }

    /// What the static type alone says flows: a concrete type is its own
    /// answer; None for an interface (or an unknown type), which must be
    /// traced to its sources.
    pub(super) fn static_flow(&mut self, t: &RType) -> Option<Vec<RawDeclId>> {
        self.static_flow_at(t, 0)
    }

    /// [`Self::static_flow`], `depth` named types in (`type A B; type B A`
    /// does not compile, but is still read).
    pub(super) fn static_flow_at(&mut self, t: &RType, depth: u32) -> Option<Vec<RawDeclId>> {
        if depth > 8 {
            return Some(vec![FLOW_UNKNOWN]);
        }
        match t {
            RType::Unknown | RType::TypeValue(_) => None,
            RType::Pointer(inner) => Some(match inner.as_ref() {
                RType::Named(PkgRef::Repo(p), n, ..) => self.type_flow(*p, n),
                // A type from outside, named as the external values are.
                RType::Named(PkgRef::Ext(path), n, ..) if !path.is_empty() => {
                    vec![self.external_value(format!("*{path}.{n}"))]
                }
                // A pointer to a basic type, or one no method can be called on.
                _ => Vec::new(),
            }),
            RType::Named(PkgRef::Repo(p), n, ..) => match self.type_body(*p, n) {
                Some((_, GoTypeBody::Interface { .. })) => None,
                Some((tci, GoTypeBody::Other(inner))) => {
                    // `type Handler = http.Handler` is still an interface; a
                    // named slice, map or channel type is a concrete type of
                    // its own, whose values may have methods; of interfaces,
                    // it also stands for what is stored in it, which is
                    // traced (see `expr_flow_uncached`).
                    let under = self.resolve_type(tci, *inner, 0);
                    self.static_flow_at(&under, depth + 1)
                        .is_some()
                        .then(|| self.type_flow(*p, n))
                }
                Some((_, GoTypeBody::Struct(_))) => Some(self.type_flow(*p, n)),
                None => None,
            },
            RType::Named(PkgRef::Ext(path), n, ..) if path.is_empty() => {
                (!matches!(n.as_str(), "error" | "any")).then(Vec::new)
            }
            RType::Named(PkgRef::Ext(path), n, ..) => {
                let std = go_std::std();
                let qualified = format!("{path}.{n}");
                (std.is_type(&qualified) && std.interface(&qualified).is_none())
                    .then(|| vec![self.external_value(qualified)])
            }
            // A container stands for its elements: of a concrete type, that
            // type (`[]memStore{{}}`, whose elements are spelled `{}`);
            // else what is stored in it, which is traced.
            RType::Slice(elem) | RType::Map(elem) | RType::Chan(elem) => {
                let elem = elem.as_ref().clone();
                self.static_flow_at(&elem, depth + 1)
            }
            RType::Func(_) => Some(Vec::new()),
            RType::Struct(sci, t) => match self.ctxs[*sci].go.types.get(*t as usize) {
                Some(GoType::Interface(_)) => None,
                // An anonymous struct may have methods promoted from its
                // embedded fields; not worth modelling.
                _ => Some(vec![FLOW_UNKNOWN]),
            },
        }
    }

    /// A repository type as a traced type: its declaration.
    pub(super) fn type_flow(&self, p: usize, name: &str) -> Vec<RawDeclId> {
        match self.pkgs[p].types.get(name) {
            Some(&(tci, ti)) => vec![self.ctxs[tci].base + self.ctxs[tci].go.type_decls[ti].decl],
            None => vec![FLOW_UNKNOWN],
        }
    }

    pub(super) fn expr_flow_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<RawDeclId> {
        // A literal or an arithmetic expression: nothing with methods.
        if e == 0 {
            return Vec::new();
        }
        let t = self.type_of(ci, scope, e, 0);
        if let Some(mut flow) = self.static_flow(&t) {
            // `http.HandlerFunc(f)`: a function converted to a library's
            // function type, whose methods call it (the adapter pattern).
            if let RType::Named(PkgRef::Ext(path), ..) = &t
                && !path.is_empty()
                && let GoExpr::Call(c) = *self.expr(ci, e)
            {
                for f in self.converted_functions(ci, scope, c, depth) {
                    push_flow(&mut flow, f);
                }
            }
            return flow;
        }
        let mut flow = self.traced_expr_flow(ci, scope, e, depth);
        // A named container of interfaces (`type nodes chan Node`) holds
        // what was stored in it, traced above, and is a type of its own.
        if let RType::Named(PkgRef::Repo(p), n, ..) = &t
            && matches!(
                self.underlying(t.clone()),
                RType::Slice(_) | RType::Map(_) | RType::Chan(_)
            )
        {
            for d in self.type_flow(*p, n) {
                push_flow(&mut flow, d);
            }
        }
        flow
    }

    /// [`Self::expr_flow_uncached`] for a value whose static type does not
    /// answer: its sources.
    pub(super) fn traced_expr_flow(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let unknown = vec![FLOW_UNKNOWN];
        match self.expr(ci, e).clone() {
            GoExpr::Ident(n) => {
                if self.sym(ci, n) == "nil" && self.local(ci, scope, n).is_none() {
                    return Vec::new();
                }
                self.traced(ci, scope, Traced::TypesOfName(n), depth + 1)
            }
            GoExpr::Selector(base, name) => {
                let name = self.sym(ci, name).to_owned();
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return match pkg {
                        PkgRef::Repo(p) => match self.pkgs[p].vars.get(&name) {
                            Some(&(vci, vname)) => {
                                self.traced(vci, 0, Traced::TypesOfName(vname), depth + 1)
                            }
                            None => unknown,
                        },
                        // `io.Discard`, `os.Stdout`: a value the library made.
                        PkgRef::Ext(path) => self.library_values(&path),
                    };
                }
                match self.type_of(ci, scope, base, 0).deref() {
                    RType::Named(PkgRef::Repo(p), tname, ..) => {
                        let (p, tname) = (*p, tname.clone());
                        self.field_flow(p, &tname, &name, depth)
                    }
                    &RType::Struct(sci, t) => match self.anonymous_struct(sci, t) {
                        Some((p, pseudo, _)) => self.field_flow(p, &pseudo, &name, depth),
                        None => unknown,
                    },
                    // A field of a standard-library struct (`goflag.Value`
                    // on a *flag.Flag) holds what the library put there: its
                    // own values, or the repository's it was given.
                    RType::Named(PkgRef::Ext(path), ..) if !path.is_empty() => {
                        self.library_values(path)
                    }
                    _ => unknown,
                }
            }
            GoExpr::Call(c) => self.traced(ci, scope, Traced::TypesOfCall(c, 0), depth + 1),
            GoExpr::Nth(inner, n) => match self.expr(ci, inner).clone() {
                GoExpr::Call(c) => self.traced(ci, scope, Traced::TypesOfCall(c, n), depth + 1),
                // `v, ok := m[k]`, `v, ok := x.(I)`
                GoExpr::Index(_) | GoExpr::TypeAssert(..) if n == 0 => {
                    self.flowing_types(ci, scope, inner, depth + 1)
                }
                _ => unknown,
            },
            // `x.(I)` with `I` an interface: what `x` holds (that has
            // I's methods, which the call's lookup checks).
            GoExpr::TypeAssert(operand, _) => self.flowing_types(ci, scope, operand, depth + 1),
            // Elements of a container are traced with the container, as
            // function values are; but a named container type stands for
            // itself there too (see `expr_flow_uncached`), and is not one
            // of its own elements: `c[0].Error()` inside `chain`'s Error
            // is not a call of that Error.
            GoExpr::Index(inner) | GoExpr::RangeValue(inner) => {
                let mut flow = self.flowing_types(ci, scope, inner, depth + 1);
                let t = self.type_of(ci, scope, inner, 0);
                if let RType::Named(PkgRef::Repo(p), n, ..) = t.deref()
                    && flow.first() != Some(&FLOW_UNKNOWN)
                    && matches!(
                        self.underlying(t.deref().clone()),
                        RType::Slice(_) | RType::Map(_) | RType::Chan(_)
                    )
                {
                    let own = self.type_flow(*p, n);
                    let before = flow.len();
                    flow.retain(|d| !own.contains(d));
                    // Only the container itself was known (a receiver of
                    // a type whose stored elements are not traced): its
                    // elements are not known either.
                    if flow.is_empty() && before > 0 {
                        flow.push(FLOW_UNKNOWN);
                    }
                }
                flow
            }
            // A channel's element; else an index or a map key, which is
            // not tracked (and was bound only to find channel elements).
            GoExpr::RangeKey(inner) => {
                if self.is_channel(ci, scope, inner) {
                    self.flowing_types(ci, scope, inner, depth + 1)
                } else {
                    Vec::new()
                }
            }
            GoExpr::Composite(_) => {
                let mut out = Vec::new();
                let elems = self.composite_elems.get(&(ci, e)).cloned();
                for (escope, value) in elems.unwrap_or_default() {
                    for d in self.flowing_types(ci, escope, value, depth + 1) {
                        push_flow(&mut out, d);
                    }
                }
                out
            }
            GoExpr::FuncLit(_) => Vec::new(),
            _ => unknown,
        }
    }

    /// Types a variable may hold: every value bound to it where it is
    /// declared, and the arguments passed for it when it is a parameter.
    pub(super) fn name_flow_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        name: Sym,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let mut out = Vec::new();
        if let Some(local) = self.local_sources(ci, scope, name) {
            if local.opaque {
                push_flow(&mut out, FLOW_UNKNOWN);
            }
            if local.from_library {
                push_flow(&mut out, FLOW_EXTERNAL);
            }
            for (sci, sscope, e) in local.values {
                for d in self.flowing_types(sci, sscope, e, depth + 1) {
                    push_flow(&mut out, d);
                }
            }
            return out;
        }
        let text = self.sym(ci, name);
        let pkg = self.ctxs[ci].pkg;
        if self.pkgs[pkg].funcs.contains_key(text) {
            return Vec::new();
        }
        match self.pkgs[pkg].vars.get(text) {
            Some(&(vci, vname)) if vci != ci || scope != 0 => {
                self.traced(vci, 0, Traced::TypesOfName(vname), depth + 1)
            }
            _ => vec![FLOW_UNKNOWN],
        }
    }

    /// Types stored in a struct field anywhere in the repository.
    pub(super) fn field_flow(
        &mut self,
        p: usize,
        tname: &str,
        field: &str,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let key = self.field_key(p, tname, field);
        let sources = match self.field_sources.get(&key) {
            Some(sources) if !self.field_overflow.contains(&key) => sources.clone(),
            // Set by reflection (a decoder), through a pointer, or never.
            _ => return vec![FLOW_UNKNOWN],
        };
        let mut out = Vec::new();
        for (sci, sscope, e) in sources {
            for d in self.flowing_types(sci, sscope, e, depth + 1) {
                push_flow(&mut out, d);
            }
        }
        out
    }

    /// Types of the `n`-th result of a call: what the functions it reaches
    /// return there, or the converted value of a conversion.
    pub(super) fn call_flow_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        call: u32,
        n: u8,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        if n == 0 && self.is_builtin_call(ci, scope, call, "append") {
            let mut out = Vec::new();
            for a in args {
                for d in self.flowing_types(ci, scope, a, depth + 1) {
                    push_flow(&mut out, d);
                }
            }
            return out;
        }
        // A new map or slice holds what is stored in it afterwards, which
        // the variable or field it is assigned to records.
        if self.is_builtin_call(ci, scope, call, "make") {
            return Vec::new();
        }
        let targets = self.fresh_callees(ci, scope, callee, depth);
        if targets.is_empty() {
            return vec![FLOW_UNKNOWN];
        }
        let mut out = Vec::new();
        for t in targets {
            match t {
                Callee::Decl(f, _) => {
                    let returns = self.returns_of.get(&f).cloned().unwrap_or_default();
                    let mut found = false;
                    for (rci, rscope, pos, e) in returns {
                        let flow = if pos == n {
                            self.flowing_types(rci, rscope, e, depth + 1)
                        } else if pos == FORWARDED_RETURN && n > 0 {
                            // `return g()` gives g's n-th result too.
                            match self.expr(rci, e).clone() {
                                GoExpr::Call(c) => {
                                    self.traced(rci, rscope, Traced::TypesOfCall(c, n), depth + 1)
                                }
                                _ => continue,
                            }
                        } else {
                            continue;
                        };
                        found = true;
                        for d in flow {
                            push_flow(&mut out, d);
                        }
                    }
                    if !found {
                        push_flow(&mut out, FLOW_UNKNOWN);
                    }
                }
                Callee::NotACall if n == 0 && args.len() == 1 => {
                    for d in self.flowing_types(ci, scope, args[0], depth + 1) {
                        push_flow(&mut out, d);
                    }
                }
                // A function outside the repository returns values its
                // package makes, or ones the repository handed that package
                // (`errors.New` makes an *errors.errorString; what
                // `atomic.Value.Load` returns was given to `Store`).
                Callee::External(name) | Callee::ExternalValue(name, _) => {
                    // What the library makes, where the table traced every
                    // return (`errors.New` gives an *errors.errorString;
                    // `fmt.Errorf("…: %w", err)` a *fmt.wrapError, never
                    // `err` itself).
                    let made = match (
                        go_std::std().dynamic_results(&name, n),
                        external_package(&name),
                    ) {
                        (Some(types), _) => types
                            .iter()
                            .map(|t| self.external_value((*t).to_owned()))
                            .collect(),
                        (None, Some(p))
                            if self.may_give_back_arguments(ci, scope, &name, &args, depth) =>
                        {
                            self.library_values(p)
                        }
                        _ => vec![FLOW_EXTERNAL],
                    };
                    for d in made {
                        push_flow(&mut out, d);
                    }
                }
                _ => push_flow(&mut out, FLOW_UNKNOWN),
            }
        }
        out
    }

    /// Whether a call of `callee`, outside the repository, may give back
    /// a value of the repository's. A package-level function can only
    /// give back one that reaches it through an argument
    /// (`errors.Unwrap(err)`), or inside a library value that may wrap one
    /// (`fmt.Errorf("%w", err)`); `strconv.Atoi(s)` gives back what it
    /// makes. A method may give back what its receiver was handed.
    pub(super) fn may_give_back_arguments(
        &mut self,
        ci: usize,
        scope: u32,
        callee: &str,
        args: &[ExprId],
        depth: u32,
    ) -> bool {
        callee.starts_with('(')
            || args.iter().any(|&a| {
                self.flowing_types(ci, scope, a, depth + 1)
                    .iter()
                    .any(|&d| d == FLOW_UNKNOWN || !(FLOW_EXTERNAL..EXTERNAL_VALUE).contains(&d))
            })
    }

    /// Narrow the callees of `receiver.name(…)` through an interface to
    /// the methods of the types that flow to the receiver. When what flows
    /// is unknown, or nothing implementing the interface is found to flow
    /// (a gap in the tracing rather than a call that cannot happen), every
    /// implementation stays; but with `outside_only_leaves_none`, values
    /// that all come from outside the repository leave none of its own.
    pub(super) fn narrowed(
        &mut self,
        callees: Vec<Callee>,
        at: (usize, u32),
        receiver: ExprId,
        name: &str,
        depth: u32,
        outside_only_leaves_none: bool,
    ) -> Vec<Callee> {
        let (ci, scope) = at;
        // No type implements the whole interface, but a wrapper that gets
        // the method from an embedded interface may flow here (`struct{
        // Named }` used as a Walker): the call goes on to what that field
        // holds.
        if self.narrow_interface_calls
            && !callees.is_empty()
            && callees.iter().all(|c| matches!(c, Callee::Unresolved(_)))
        {
            let flow = self.flowing_types(ci, scope, receiver, depth + 1);
            return self.known_flow_methods(&flow, name).unwrap_or(callees);
        }
        if !self.may_narrow(&callees) {
            return callees;
        }
        let flow = self.flowing_types(ci, scope, receiver, depth + 1);
        self.narrowed_by(callees, flow, name, outside_only_leaves_none)
    }

    /// Whether narrowing is on and some callee is a method it could keep.
    pub(super) fn may_narrow(&self, callees: &[Callee]) -> bool {
        self.narrow_interface_calls
            && callees
                .iter()
                .any(|c| matches!(c, Callee::Decl(..) | Callee::ExternalValue(..)))
    }

    /// [`Self::narrowed`] to what `flow` says reaches the receiver.
    pub(super) fn narrowed_by(
        &mut self,
        callees: Vec<Callee>,
        flow: Vec<RawDeclId>,
        name: &str,
        outside_only_leaves_none: bool,
    ) -> Vec<Callee> {
        if !self.may_narrow(&callees) || flow.contains(&FLOW_UNKNOWN) {
            return callees;
        }
        let external = flow.contains(&FLOW_EXTERNAL);
        let Some(mut methods) = self.flow_methods(&flow, name, 0) else {
            return callees;
        };
        // A value made by a package outside the repository (an
        // http.HandlerFunc, a *http.ServeMux) may pass the call on to what
        // the repository handed that package: the handlers given to
        // mux.Handle are served through it.
        // Types from outside the repository add their method, when the
        // standard-library table has it (`*httptest.ResponseRecorder`
        // behind an http.ResponseWriter).
        let std = go_std::std();
        let mut libraries: Vec<&str> = Vec::new();
        let mut outside: Vec<String> = Vec::new();
        for &d in &flow {
            let Some(t) = d
                .checked_sub(EXTERNAL_VALUE)
                .and_then(|i| self.external_values.get(i as usize))
            else {
                continue;
            };
            let qualified = t.trim_start_matches('*');
            let Some((path, tname)) = qualified.rsplit_once('.') else {
                continue;
            };
            if !libraries.contains(&path) {
                libraries.push(path);
            }
            if std.method(qualified, name).is_some() {
                outside.push(external_method(path, tname, name));
            }
        }
        // A repository type's method promoted from an embedded
        // standard-library type (`struct{ *log.Logger }` has Prefix).
        let mut promoted: Vec<String> = Vec::new();
        for &d in &flow {
            if let Some((p, t)) = self.type_names.get(&d).cloned()
                && self.method(p, &t, name, 0).is_none()
                && let Some(m) = self.promoted_std_method(p, &t, name, 0)
                && !promoted.contains(&m)
            {
                promoted.push(m);
            }
        }
        // Not through a function converted to a library's function type
        // (`http.HandlerFunc(f)`): its method calls only `f`.
        let converted = flow
            .iter()
            .any(|d| *d < FLOW_EXTERNAL && !self.type_names.contains_key(d));
        let handed: Vec<RawDeclId> = if converted {
            Vec::new()
        } else {
            libraries
                .iter()
                .filter_map(|path| self.handed_to_library.get(*path))
                .flatten()
                .copied()
                .collect()
        };
        if debug_handed() && !handed.is_empty() {
            eprintln!(
                "narrow .{name}: libraries {libraries:?}, {} handed",
                handed.len()
            );
        }
        for d in handed {
            if let Some((p, t)) = self.type_names.get(&d)
                && let Some(m) = self.method(*p, t, name, 0)
                && !methods.contains(&m)
            {
                methods.push(m);
            }
        }
        // Functions converted to a library's function type, whose method
        // (`(net/http.HandlerFunc).ServeHTTP`) calls them: a trace holds
        // nothing else but types.
        let adapted: Vec<RawDeclId> = if outside.is_empty() {
            Vec::new()
        } else {
            flow.iter()
                .copied()
                .filter(|d| *d < FLOW_EXTERNAL && !self.type_names.contains_key(d))
                .collect()
        };
        let mut kept: Vec<Callee> = callees
            .iter()
            .filter(|c| match c {
                Callee::Decl(d, _) => methods.contains(d),
                Callee::ExternalValue(m, _) => {
                    external || outside.contains(m) || promoted.contains(m)
                }
                _ => true,
            })
            .cloned()
            .collect();
        for f in adapted {
            for m in &outside {
                kept.push(Callee::Through(m.clone(), f));
            }
        }
        for m in outside {
            push_external(&mut kept, m);
        }
        let from_outside_only = methods.is_empty()
            && flow
                .iter()
                .all(|&d| d == FLOW_EXTERNAL || d >= EXTERNAL_VALUE);
        if kept
            .iter()
            .any(|c| matches!(c, Callee::Decl(..) | Callee::ExternalValue(..)))
            || (outside_only_leaves_none && from_outside_only)
        {
            kept
        } else {
            callees
        }
    }
}
